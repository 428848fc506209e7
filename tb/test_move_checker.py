"""Bench for rtl/move_checker: the legal-move vector of the side to move, against the golden
bitboard move generator, on directed positions and both kinds of random positions."""

import cocotb
import pytest

from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay
from tb.checks.combinational import MoveCheckerCheck  # noqa: F401 (the check lives with the pure code: tb.checks.combinational)

CHECK = MoveCheckerCheck()


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
def test_move_checker(sim):
    runner.regression_for("move_checker", sim)
