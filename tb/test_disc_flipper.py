"""Bench for rtl/disc_flipper: the whole new board and ``illegal`` for a move, against the
golden bitboard flipper, at 8x8 and at 6x6 and 4x4 against a golden model of the same size."""

import cocotb
import pytest

from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay
from tb.blocks import BLOCKS, regression_params
from tb.checks.combinational import DiscFlipperCheck  # noqa: F401 (the check lives with the pure code: tb.checks.combinational)

CHECK = DiscFlipperCheck()


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


@pytest.mark.parametrize("sim, design", regression_params(BLOCKS["disc_flipper"], runner.SIMULATORS))
def test_disc_flipper(sim, design):
    runner.regression_for(design, sim)
