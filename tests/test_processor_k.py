"""The processor bench on the processor with K engines (designs ``processor_k2``, ``processor_k3``;
rtl/processor.py ``engines``, docs/k-engines.md; tb/test_processor.py): refereed games over its
pins, every reply and status against the golden processor with K engines, and every job of every
engine against the golden K-engine splitter, clock by clock (its nodes by the job's node
signature). The plans per tier and simulator are tb.blocks PROCESSOR_K_PLANS.

Planted bugs (full tier): the K-engine splitter's bench (tb/test_search_k.py, design search_k2) finds
bugs planted in rtl/k_engines.py (two engines handed the same root move; a re-search that does not
raise the root's alpha) and names the first job event that differs from the golden splitter's."""

import re

import pytest

from gamechip.formal.proofs import PlantedBug, planted_root
from golden.board import square_name
from tb.blocks import processor_plan
from tb.checks.processor import golden_job_events, job_port_difference
from tb.checks.search_k import golden_search, parse_cases
from tb.host.runner import ROOT
from tb.host.search_k_bench import run_search_k_bench
from tb.host.processor_bench import run_processor_bench
from tb.host.runner import SIMULATORS


def test_the_job_check_names_the_engine_of_the_first_differing_job():
    """The job check with the engine as the worker (tb.checks.processor ``job_port_difference``,
    ``worker="engine"``), on a golden K = 3 job list and a log made from it with one engine changed."""
    jobs = [job.to_dict() for job in golden_search(parse_cases("mid:3:4:0")[0], 3).jobs]
    events = golden_job_events(jobs, "engine")
    assert {e["engine"] for e in events} == {0, 1, 2}

    def line(event):
        fields = [event["event"], event["engine"], event["kind"], event["move"], event["depth"], event["alpha"] & 511,
                  event["beta"] & 511, event["value"] & 511, event["nodes"], event["signature"]]
        return " ".join([str(event["clock"] + 77)] + [format(f, "x") for f in fields])

    lines = [line(e) for e in events]
    assert job_port_difference(lines, jobs, "icarus", "engine") is None
    target = next(i for i, e in enumerate(events) if e["engine"] == 2 and e["event"] == 2)
    changed = dict(events[target], engine=1)
    message = job_port_difference(lines[:target] + [line(changed)] + lines[target + 1:], jobs, "icarus", "engine")
    job = events[target]["job"]
    assert message.startswith(f"job event {target + 1} differs: clock {job['done']}, engine 2, {job['kind']} job"), message
    assert "differing: engine expected 2, actual 1" in message
    assert f"gamechip search --board '{job['board']}' --depth {job['depth']}" in message


def test_bad_search_cases_are_refused_in_one_line():
    for text, expected in (("mid:1:4", "SET:INDEX:DEPTH:BUDGET"), ("early:0:3:0", "SET one of mid, late"),
                           ("mid:9:3:0", "index 0..7"), ("late:0:17:0", "depth 1..16")):
        with pytest.raises(ValueError, match=expected):
            parse_cases(text)


# processor_k2 (on Verilator the assembler's cases and the first replies of a game: about 5 s of
# simulation after a build of about 50 CPU-s; on Icarus and GHDL the Icarus compile and the
# assembler's one search cost 26 CPU-s more) and processor_k3 on every simulator, in make test-full
# (tb.blocks FULL_TIER_DESIGNS).
@pytest.mark.full
@pytest.mark.parametrize("sim,design", [pytest.param(sim, design, id=f"{sim}-{design}")
                                        for design in ("processor_k2", "processor_k3") for sim in SIMULATORS])
def test_processor_k(sim, design):
    tests, env = processor_plan(sim, design)
    outcome = run_processor_bench(sim, tests, env, design=design)
    if not outcome.passed:
        pytest.fail(f"{design} bench on {sim} ({', '.join(tests)}) failed:\n{outcome.log[-4000:]}", pytrace=False)


# Bugs planted in the K-engine splitter (rtl/k_engines.py): what each changes, the kinds of job its
# first differing job event may have and the fields that may differ there.
PLANTED = {
    "same_job": (PlantedBug("a null-window job does not advance the move order: two engines are handed the same "
                            "root move", "k_engines.py",
                            "                    else:\n                        last_move.next = want_move\n"
                            "                queued.next = queued_next",
                            "                    elif want_kind != KIND_NULL:\n"
                            "                        last_move.next = want_move\n"
                            "                queued.next = queued_next"),
                 {"NULL"}, {"move"}),
    "alpha_lost": (PlantedBug("a re-search's value does not raise the root's alpha", "k_engines.py",
                              "            elif neg_value > alpha:\n                alpha_after.next = neg_value\n",
                              "            elif neg_value > alpha:\n"),
                   {"NULL", "RESEARCH"}, {"alpha", "beta"}),
}
FAILURE = re.compile(r"job event (\d+) differs: clock (\d+), engine (\d+), (\w+) job of root move (\w+)")
CASE = re.compile(r"SEARCH MISMATCH in search_k2 on icarus: case (\S+)")
DIFFERING = re.compile(r"differing: (.*)")


@pytest.mark.full
@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_k_splitter_bug_named(bug, tmp_path):
    """The search_k2 bench on Icarus (its default cases) finds each planted bug and names the job
    event at which the splitter first differs: the golden splitter's event of that place in the
    failing search's job list (clock, engine, kind, root move), and the field the bug changes."""
    planted, kinds, fields = PLANTED[bug]
    root = planted_root(ROOT, planted, tmp_path / bug)
    outcome = run_search_k_bench("icarus", "search_k2", tag=f"planted-{bug}", rtl_root=root)
    assert not outcome.passed, f"the bench passed the splitter with the planted bug: {planted.why}"
    failure = outcome.result.get("failure", "")
    found = FAILURE.search(failure)
    assert found, f"the bench failed without naming a job:\n{failure or outcome.log[-3000:]}"
    index, clock, engine, named_kind, move = int(found[1]), int(found[2]), int(found[3]), found[4], found[5]
    assert named_kind in kinds, found[0]
    named = {part.split()[0] for part in DIFFERING.search(failure)[1].split(", ") if " expected " in part}
    assert named and named <= fields, failure
    case = parse_cases(CASE.search(failure)[1])[0]
    expected = golden_job_events([job.to_dict() for job in golden_search(case, 2).jobs], "engine")[index - 1]
    assert (expected["clock"], expected["engine"], square_name(expected["move"])) == (clock, engine, move)
