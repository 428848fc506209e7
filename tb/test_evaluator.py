"""Bench for rtl/evaluator: the whole leaf evaluation of one node (both move checkers, both stable
evaluators, the fixed and the adaptive evaluation, saturation), every term and the exact cycle
of ``done`` against the golden evaluator, for the default and the heavy weight configuration."""

import cocotb
import pytest

from tb.checks.evaluator import EvaluatorCheck
from tb.host import runner
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay
from tb.blocks import BLOCKS, regression_params

CHECK = EvaluatorCheck()


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


@pytest.mark.parametrize("sim, design", regression_params(BLOCKS["evaluator"], runner.SIMULATORS))
def test_evaluator(sim, design):
    runner.regression_for(design, sim)
