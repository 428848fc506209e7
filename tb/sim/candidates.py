"""cocotb module of the shrinker (tb/host/shrink.py): the bench named by GAMECHIP_BENCH checks every
case of a file, without stopping at a mismatch. One generic module instead of a test in every
bench, so any bench that defines ``CHECK`` can be shrunk, including benches added later."""

import importlib
import os

import cocotb

from tb.sim.batch import run_candidates


@cocotb.test()
async def candidates(dut):
    bench = importlib.import_module(os.environ["GAMECHIP_BENCH"])
    await run_candidates(dut, bench.CHECK)
