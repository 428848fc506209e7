"""The cocotb side of scripts/k_splitter_check/run.py: the converted ``k_splitter`` (KS_ENGINES
engines) searches each case of KS_CASES (INDEX:DEPTH:BUDGET, comma-separated); its job port's
events, clock by clock, and its answer must be the golden splitter's (golden/root_split.py,
``engines=K, contexts=1``). A difference names the case, the event and both values."""

import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

from golden.positions import sampled_midgames
from golden.root_split import KIND_CODES, root_split

ENGINES = int(os.environ["KS_ENGINES"])
CASES = [tuple(int(x) for x in case.split(":")) for case in os.environ["KS_CASES"].split(",")]
EVENT_START, EVENT_RESULT = 1, 2


def signed9(value):
    return value - 512 if value & 256 else value


def golden_events(result):
    """(clock, event, engine, kind, move, depth, alpha, beta[, value, nodes, signature]) of every job."""
    events = []
    for job in result.jobs:
        common = (job.engine, KIND_CODES[job.kind], job.move or 0, job.depth, job.alpha, job.beta)
        events.append((job.start, EVENT_START) + common)
        events.append((job.done, EVENT_RESULT) + common + (job.value, job.nodes, job.signature))
    return sorted(events)


def port_event(dut, clock):
    event = int(dut.job_event.value)
    fields = (clock, event, int(dut.job_engine.value), int(dut.job_kind.value), int(dut.job_move.value),
              int(dut.job_depth.value), signed9(int(dut.job_alpha.value)), signed9(int(dut.job_beta.value)))
    if event == EVENT_RESULT:
        fields += (signed9(int(dut.job_value.value)), int(dut.job_nodes.value), int(dut.job_signature.value))
    return fields


@cocotb.test()
async def compare(dut):
    cocotb.start_soon(Clock(dut.clk, 10, "ns").start())
    dut.rst.value, dut.start.value, dut.idle_move.value = 1, 0, 0
    for _ in range(3):
        await FallingEdge(dut.clk)
    dut.rst.value = 0
    positions = sampled_midgames(47, 8, 14, 44)
    for index, depth, budget in CASES:
        pos = positions[index]
        golden = root_split(pos, depth, budget or None, engines=ENGINES, contexts=1)
        dut.root_black.value, dut.root_white.value = pos.black, pos.white
        dut.root_white_to_move.value, dut.depth_limit.value = int(pos.white_to_move), depth
        dut.budget.value = budget or (1 << 32) - 1
        dut.start.value = 1
        await FallingEdge(dut.clk)
        dut.start.value = 0
        events, clock = [], 0
        while not int(dut.done.value):
            assert not int(dut.fault.value), f"case {index}:{depth}:{budget}: fault in clock {clock}"
            if int(dut.job_event.value):
                events.append(port_event(dut, clock))
            await FallingEdge(dut.clk)
            clock += 1
        expected = golden_events(golden)
        for number, (actual, wanted) in enumerate(zip(events, expected)):
            assert actual == wanted, f"case {index}:{depth}:{budget} job event {number}: {actual}, golden {wanted}"
        assert len(events) == len(expected), f"case {index}:{depth}:{budget}: {len(events)} events, golden {len(expected)}"
        answer = (int(dut.best_move.value), signed9(int(dut.value.value)), int(dut.depth.value), int(dut.nodes.value),
                  int(dut.cycles.value), int(dut.trace_signature.value))
        wanted = (golden.best or 0, golden.value, golden.depth, golden.nodes, golden.cycles, golden.signature)
        assert answer == wanted, f"case {index}:{depth}:{budget}: answer {answer}, golden {wanted}"
        dut._log.info(f"case {index}:{depth}:{budget}: {len(events)} job events and the answer as the golden's "
                      f"(best, value, depth, nodes, cycles, signature {answer})")
