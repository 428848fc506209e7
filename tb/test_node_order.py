"""Bench for rtl/node_order: walks every legal vector it is given to exhaustion (select, feed the
selection back as the last move, repeat until nothing is found) and checks every selection
against the golden priority order, with and without a PV move."""

import cocotb
import pytest

from tb.checks.node_order import NodeOrderCheck
from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay

CHECK = NodeOrderCheck()


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
def test_node_order(sim):
    runner.regression_for("node_order", sim)
