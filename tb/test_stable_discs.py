"""Bench for rtl/stable_discs: every cycle's flip-flop vector, ``done`` and ``count`` against
the golden iteration (docs/spec.md §3), so the exact cycle of ``done`` is checked, not only the count."""

import cocotb
import pytest

from tb.checks.stable_discs import StableDiscsCheck
from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay


CHECK = StableDiscsCheck()


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
def test_stable_discs(sim):
    runner.regression_for("stable_discs", sim)
