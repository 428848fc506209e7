"""Bench for rtl/pattern_evaluator: the pattern value of one board (38 instances' weights read from
the committed weight file's ROMs, summed, saturated), its stage and the exact cycle of ``done``
against golden/patterns.py; in make test-full on Verilator the directed set holds every entry of
every table as well."""

import os

import cocotb
import pytest

from tb.blocks import full_regression
from tb.checks.pattern_evaluator import PatternEvaluatorCheck
from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay

# every table entry through the hardware: the full tier on Verilator (167,184 boards; Icarus and
# GHDL run this design at a few hundred boards a second)
CHECK = PatternEvaluatorCheck(every_entry=full_regression() and os.environ.get("GAMECHIP_SIM") == "verilator")


@cocotb.test()
async def directed(dut):
    await run_directed(dut, CHECK)


@cocotb.test()
async def random_occupancy(dut):
    await run_random(dut, CHECK, "occupancy")


@cocotb.test()
async def random_played(dut):
    await run_random(dut, CHECK, "played")


@cocotb.test()
async def fuzz(dut):
    await run_fuzz(dut, CHECK)


@cocotb.test()
async def replay(dut):
    await run_replay(dut, CHECK)


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_pattern_evaluator(sim):
    runner.regression_for("pattern_evaluator", sim)
