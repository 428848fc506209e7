"""The processor bench on the two-context processor (design ``processor_c2``, tb/test_processor.py).

* The job check itself (tb.checks.processor): the harness logs the job port field by field, and a
  log that differs from the golden root splitter's job list in one field is named at that event.
* Planted bugs (full tier): the bench finds bugs planted in the root splitter (rtl/root_split.py)
  and names the first job in which the hardware differs from the golden root splitter
  (golden/root_split.py). Each bug is a text substitution in a copy of the rtl package; the bench's
  default Icarus plan (tb.blocks ``processor_plan``) runs on the copy, and the failure must name a
  job event that is the golden splitter's for the searched position (its clock, context, kind
  and root move) and the field the bug changes.
* Table 6 (full tier): ``gamechip tournament --budget 1024 --contexts 2`` on Verilator, every
  game through the bench.
"""

import json
import re
import subprocess
import sys

import pytest

from gamechip.formal.proofs import PlantedBug, planted_root
from golden.board import parse_board, square_name
from golden.root_split import KIND_CODES, root_split
from rtl.designs import PROCESSOR_C2_BUDGET, PROCESSOR_DEPTH_LIMIT
from rtl.processor import JOB_PORTS
from tb.blocks import processor_plan
from tb.checks.processor import (EVENT_RESULT, EVENT_START, JOB_LOG_FIELDS, golden_job_events,
                                 job_port_difference, parse_job_log)
from tb.host.processor_bench import run_processor_bench
from tb.host.runner import ROOT

DESIGN = "processor_c2"
# what each bug changes: (the bug, the kinds its first differing job may have, the fields that may differ)
PLANTED = {
    "same_move": (PlantedBug("a null-window job does not advance the move order: both contexts are handed "
                             "the same root move", "root_split.py",
                             "                    else:\n                        last_move.next = want_move",
                             "                    elif want_kind != KIND_NULL:\n"
                             "                        last_move.next = want_move"),
                  {"NULL"}, {"move"}),
    "bound_lost": (PlantedBug("a re-search's value does not raise the shared alpha", "root_split.py",
                              "            elif neg_value > alpha:\n                alpha_after.next = neg_value\n",
                              "            elif neg_value > alpha:\n"),
                   {"NULL", "RESEARCH"}, {"alpha", "beta"}),
}
FAILURE = re.compile(r"job event (\d+) differs: clock (\d+), context (\d), (\w+) job of root move (\w+)")
POSITION = re.compile(r"position ([-XO]{64} [XO])")
DIFFERING = re.compile(r"differing: (.*)")


def test_job_log_fields_are_the_job_port():
    """The harness logs the processor's job port field by field (rtl/processor.py JOB_PORTS)."""
    assert list(JOB_LOG_FIELDS) == [name for name, _, _ in JOB_PORTS]


def test_job_port_difference_names_the_first_differing_job():
    """The comparison itself, on a golden job list and a log made from it with one field changed."""
    from golden.board import start_position

    jobs = [job.to_dict() for job in root_split(start_position(), PROCESSOR_DEPTH_LIMIT, 600).jobs]
    events = golden_job_events(jobs)
    assert {e["kind"] for e in events} >= {KIND_CODES["ROOT"], KIND_CODES["PV"], KIND_CODES["NULL"]}

    def line(event, clock_offset=500):
        fields = [event["event"], event["context"], event["kind"], event["move"], event["depth"],
                  event["alpha"] & 511, event["beta"] & 511, event["value"] & 511, event["nodes"], event["signature"]]
        return " ".join([str(event["clock"] + clock_offset)] + [format(f, "x") for f in fields])

    lines = [line(e) for e in events]
    assert parse_job_log(lines) == [{k: v for k, v in e.items() if k != "job"} | {"clock": e["clock"] + 500}
                                    for e in events]
    assert job_port_difference(lines, jobs) is None
    target = next(i for i, e in enumerate(events) if e["kind"] == KIND_CODES["NULL"] and e["event"] == EVENT_START)
    changed = dict(events[target], alpha=events[target]["alpha"] - 1)
    message = job_port_difference(lines[:target] + [line(changed)] + lines[target + 1:], jobs, "icarus")
    job = events[target]["job"]
    assert message.startswith(f"job event {target + 1} differs: clock {job['start']}, context {job['context']}, "
                              f"NULL job of root move {square_name(job['move'])}"), message
    assert f"alpha expected {job['alpha']}, actual {job['alpha'] - 1}" in message
    assert f"gamechip search --board '{job['board']}' --depth {job['depth']}" in message
    assert events[-1]["event"] == EVENT_RESULT
    assert job_port_difference(lines[:-1], jobs).startswith(f"job event {len(lines)} differs")


@pytest.mark.full
@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_root_split_bug_named(bug, tmp_path):
    planted, kinds, fields = PLANTED[bug]
    root = planted_root(ROOT, planted, tmp_path / bug)
    tests, env = processor_plan("icarus", DESIGN)
    outcome = run_processor_bench("icarus", tests, env, tag=f"planted-{bug}", rtl_root=root, design=DESIGN)
    assert not outcome.passed, f"the bench passed the processor with the planted bug: {planted.why}"
    found = FAILURE.search(outcome.log)
    assert found, f"the bench failed without naming a job:\n{outcome.log[-3000:]}"
    index, clock, context, named_kind, move = int(found[1]), int(found[2]), int(found[3]), found[4], found[5]
    assert named_kind in kinds, found[0]
    differing = DIFFERING.search(outcome.log[found.end():])[1]
    named = {part.split()[0] for part in differing.split(", ") if " expected " in part}
    assert named and named <= fields, differing
    # the named job is the golden splitter's event at that place in the searched position's job list
    position = parse_board(POSITION.findall(outcome.log[:found.start()])[-1])
    jobs = [job.to_dict() for job in root_split(position, PROCESSOR_DEPTH_LIMIT, PROCESSOR_C2_BUDGET).jobs]
    expected = golden_job_events(jobs)[index - 1]
    assert (expected["clock"], expected["context"], square_name(expected["move"])) == (clock, context, move)


@pytest.mark.full
def test_table6_on_processor_c2(tmp_path):
    """Table 6 (docs/spec.md §9: 1,024 clocks a move against reference levels 1-7, both colours) with the
    two-context processor on Verilator (``gamechip tournament --contexts 2``): every game played to
    its end, every reply, status and job of both contexts checked by the processor bench."""
    out = tmp_path / "table6"
    run = subprocess.run([sys.executable, "-m", "gamechip", "tournament", "--budget", "1024", "--sim", "verilator",
                          "--contexts", "2", "--jobs", "1", "--out", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=3600)
    assert run.returncode == 0, run.stderr[-3000:]
    games = json.loads((out / "games.json").read_text())
    assert sorted((g["level"], g["processor_color"]) for g in games) == \
        sorted((level, color) for level in range(1, 8) for color in ("black", "white"))
    for game in games:
        assert game["contexts"] == 2 and game["jobs_checked"] > 0 and game["job_nodes_checked"] > 0, game
    print((out / "tournament.md").read_text())
