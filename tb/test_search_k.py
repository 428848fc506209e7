"""Bench for the K-engine splitter (designs search_k2 and search_k3, rtl/k_engines.py;
docs/k-engines.md): searches of a move on K engines, every job of every engine against the golden
splitter (golden/root_split.py, ``engines=K, contexts=1``), clock by clock.

The top level is the splitter inside its HDL-clocked harness (tb.host.harness
``verilog_clock_harness``), which logs the job port (tb.checks.processor JOB_LOG, one line a
clock with a job event). Python applies a case's root and limits, pulses ``start`` and sleeps until
``done``; then that search's job events must be the golden job list's, event by event (clock from
the first start, engine, kind, root move, depth, window; on a result the value, node count and the
signature of the job's node events, tb.checks.processor ``job_port_difference``), and the answer
ports (best move, value, completed depth, nodes, cycles, trace signature) the golden answer. The
first difference names the case, the clock, the engine, the job with its child board, and the
commands that replay the job (its nodes one by one) and the search (with its waveform).
"""

import os
import time

import cocotb
import pytest
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer

from tb.blocks import regression_tier
from tb.checks.evaluator import signed9
from tb.checks.processor import JobLog, job_port_difference
from tb.checks.coverage_samplers import CoverageRecorder
from tb.checks.search_k import (CASES, CASES_VARIABLE, answer_difference, case_heading, coverage_bins, golden_answer,
                                golden_search, parse_cases, replay_text)
from tb.host import runner
from tb.host.search_k_bench import SEARCH_K_DESIGNS, run_search_k_bench
from tb.sim.results import SearchCounts, record_result

CLOCK_NS = 10
NO_LIMIT = (1 << 32) - 1
SLACK_CLOCKS = 64     # clocks past the golden search's end before a missing ``done`` is a failure


async def reset(dut):
    dut.rst.value, dut.start.value, dut.idle_move.value = 1, 0, 0
    for _ in range(3):
        await FallingEdge(dut.clk)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


def answer_ports(dut):
    return {"best_move": int(dut.best_move.value), "value": signed9(int(dut.value.value)),
            "depth": int(dut.depth.value), "nodes": int(dut.nodes.value), "cycles": int(dut.cycles.value),
            "trace_signature": int(dut.trace_signature.value)}


async def search(dut, case, limit):
    """Start ``case`` at a falling edge and return at the falling edge after ``done`` rose (or
    after ``limit`` clocks); True when ``done`` rose."""
    pos = case.position
    dut.root_black.value, dut.root_white.value = pos.black, pos.white
    dut.root_white_to_move.value, dut.depth_limit.value = int(pos.white_to_move), case.depth
    dut.budget.value = case.budget if case.budget is not None else NO_LIMIT
    dut.start.value = 1
    await FallingEdge(dut.clk)
    dut.start.value = 0
    if int(dut.done.value):
        await FallingEdge(dut.done)
    finished = RisingEdge(dut.done)
    await First(finished, Timer(limit * CLOCK_NS, "ns"))
    ended = int(dut.done.value) == 1
    await FallingEdge(dut.clk)
    await FallingEdge(dut.clk)      # the harness's job log line of the last clock is written
    return ended


@cocotb.test()
async def searches(dut):
    """The tier's cases (tb.checks.search_k CASES) for this simulator, or those of GAMECHIP_SEARCH_K_CASES."""
    sim, design = os.environ.get("GAMECHIP_SIM", "SIM"), os.environ["GAMECHIP_DESIGN"]
    engines = SEARCH_K_DESIGNS[design]
    chosen = os.environ.get(CASES_VARIABLE)
    cases = parse_cases(chosen) if chosen else CASES[regression_tier()][sim]
    await reset(dut)
    log = JobLog()
    log.new_lines()          # nothing before the first search
    counts = SearchCounts(depths=[])
    coverage = CoverageRecorder.from_environment("searches")   # tb/testplans/search_k2.toml
    started = time.perf_counter()
    for number, case in enumerate(cases, 1):
        golden = golden_search(case, engines)
        ended = await search(dut, case, golden.cycles + SLACK_CLOCKS)
        jobs = [job.to_dict() for job in golden.jobs]
        failure = None
        if not ended:
            failure = f"no done within {golden.cycles + SLACK_CLOCKS} clocks (the golden search takes {golden.cycles})"
        difference = job_port_difference(log.new_lines(), jobs, sim, worker="engine")
        if difference:
            failure = f"{failure}\n{difference}" if failure else \
                f"the job port differs from the golden splitter's jobs\n{difference}"
        if failure is None:
            failure = answer_difference(answer_ports(dut), golden_answer(golden))
            failure = failure and f"the answer differs: {failure} (every job event was the golden's)"
        if failure:
            message = f"{case_heading(case, design, sim)}\n{failure}\n{replay_text(case, sim, design)}"
            counts.wall_seconds = time.perf_counter() - started
            record_result("searches", counts, failure=message)
            raise AssertionError(message)
        counts.searches += 1
        counts.checked += golden.nodes
        counts.cycles += golden.cycles
        counts.depths.append(golden.depth)
        if coverage is not None:
            coverage.add(coverage_bins(golden, engines))
        dut._log.info(f"search {number}/{len(cases)} {case.label}: {len(jobs)} jobs on {engines} engines, "
                      f"{golden.nodes} nodes, {golden.cycles} clocks, as the golden splitter's")
    counts.wall_seconds = time.perf_counter() - started
    record_result("searches", counts)
    if coverage is not None:
        coverage.save()


# --- pytest ----------------------------------------------------------------------------

def settle_search_k(sim, design):
    outcome = run_search_k_bench(sim, design, cases=os.environ.get(CASES_VARIABLE),
                                 waves=os.environ.get("GAMECHIP_SEARCH_K_WAVES") == "1")
    if not outcome.passed:
        message = outcome.result.get("failure") or outcome.log_excerpt(3000)
        pytest.fail(f"{message}\nlog: {outcome.sim_dir / 'gamechip.log'}", pytrace=False)
    assert outcome.result.get("checked", 0) > 0, f"the {design} bench on {sim} checked nothing"


# K = 2 on every simulator (Verilator the larger set, Icarus and GHDL short searches:
# tb.checks.search_k CASES) and K = 3, in make test-full (tb.blocks FULL_TIER_DESIGNS).
@pytest.mark.full
@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search_k(sim):
    settle_search_k(sim, "search_k2")


@pytest.mark.full
@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search_k3(sim):
    settle_search_k(sim, "search_k3")
