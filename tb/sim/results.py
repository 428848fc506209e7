"""What every cocotb test of the benches reports, and how: the run's environment, the counts of
a test (``Tally``) merged into the result file, the first failing case saved as a case file
with its report, progress lines, and the comparison of a batch of answers with the golden
values. The batch loop (tb.sim.batch) and the fast fuzz loop (tb.sim.fastfuzz) both settle
their chunks here, so that a mismatch reads the same whichever loop found it.
"""

import json
import os
import time
from dataclasses import asdict, dataclass
from typing import Optional

from golden.board import draw, format_board, format_game_record, square_name, squares_of
from tb.host.run_files import CASE_FILE, RESULT_FILE

# set (gamechip mutate): once a test of the run has failed, the later tests fail at once
# without simulating (a mutant is killed by its first mismatch; the rest would only cost time)
FIRST_FAILURE_ENDS_RUN = "GAMECHIP_FIRST_FAILURE_ENDS_RUN"
def environment():
    """What the runner passed in: simulator name, seed, count, case file."""
    return {
        "sim": os.environ.get("GAMECHIP_SIM", "?"),
        "seed": int(os.environ.get("GAMECHIP_SEED", "1")),
        "count": int(os.environ.get("GAMECHIP_COUNT", "0")),
        "case": os.environ.get("GAMECHIP_CASE"),
        "design": os.environ.get("GAMECHIP_DESIGN", "?"),
        "rtl_root": os.environ.get("GAMECHIP_RTL_TESTED"),
        "rtl_digest": os.environ.get("GAMECHIP_RTL_DIGEST"),
    }


def case_record(block, case, env, **more):
    """A case file's fields: what was run, on which simulator and RTL (so that a replay tests the
    RTL the case failed on), the case (a tb.sim.batch.Case, or the fields of a bench's own kind
    of case as a dict), and whatever the bench adds (expected, actual, ...)."""
    return {"block": block, "design": env["design"], "sim": env["sim"], "seed": env["seed"],
            "rtl_root": env["rtl_root"], "rtl_digest": env["rtl_digest"],
            "case": case if isinstance(case, dict) else case.to_dict(), **more}


@dataclass
class Tally:
    checked: int = 0
    units: int = 0  # the check's ``unit`` (cases, or chess replies) in the checked cases
    sim_seconds: float = 0.0  # writing stimulus, simulating, reading responses
    golden_seconds: float = 0.0  # the golden model computing the expected values
    worker_seconds: float = 0.0  # tb.sim.fastfuzz: the golden worker making chunks (cases, stimulus, expected files)
    # CPU seconds (not wall) of the simulator's process over the whole loop (in tb.sim.batch's loop
    # its golden thread included), and of tb.sim.fastfuzz's golden worker: what the loop costs each
    # core whatever else the machine runs
    sim_cpu_seconds: float = 0.0
    worker_cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


@dataclass
class SearchCounts:
    """One search bench test's counts in the result file: node reports checked, searches, cycles,
    and the CPU seconds of the simulator's process and of the golden process."""
    checked: int = 0
    searches: int = 0
    wall_seconds: float = 0.0
    cycles: int = 0
    sim_cpu_seconds: Optional[float] = None
    golden_cpu_seconds: Optional[float] = None
    depths: Optional[list] = None   # the completed depth of each search


def describe_case(case):
    if hasattr(case, "describe"):  # a chess case describes itself
        return case.describe()
    size = case.position.size
    lines = [f"case:     {case.label}", f"board:    {format_board(case.position)}"]
    if case.move is not None:
        name = square_name(case.move, size) if 0 <= case.move < size * size else "off the board"
        lines.append(f"move:     {name} (index {case.move})")
    if case.color is not None:
        lines.append(f"colour:   {case.color} (whose stable discs are counted)")
    if case.legal is not None:
        names = " ".join(square_name(s, size) for s in squares_of(case.legal)) or "none"
        lines.append(f"legal:    {case.legal:#018x} ({names}; * in the diagram)")
    if case.pv is not None:
        lines.append(f"pv:       {square_name(case.pv, size)}")
    if case.moves:
        lines.append(f"moves:    {format_game_record(case.moves, size)}")
    lines += ["          " + row for row in draw(case.position, highlight=case.legal or 0).splitlines()]
    return lines


# how a report's last line begins: the command that records the case's waveform (a replay that
# records it already leaves that line out)
REPLAY_HINT = "replay it with a waveform: "


def case_file_lines():
    """A failure report's last lines: the run's case file and the command that replays it."""
    path = os.path.abspath(CASE_FILE)
    return [f"case file: {path}", f"{REPLAY_HINT}gamechip replay {path} --waves"]


def failure_message(check, case, expected, actual, env):
    return "\n".join([
        f"MISMATCH in {check.block} ({env['design']}) on {env['sim']}, seed {env['seed']}",
        f"rtl:      {env['rtl_root']}/rtl (digest {env['rtl_digest']})",
        *describe_case(case),
        *check.explain(case, expected, actual),
        *case_file_lines(),
    ])


def save_failure(check, case, expected, actual, env):
    """Keep the first failing case of a run (the runner clears the file before each run)."""
    keep_first_case(case_record(check.block, case, env, expected=repr(expected), actual=repr(actual)))


def keep_first_case(record):
    """Write case-file ``record`` unless the run has kept a failing case already."""
    if os.path.exists(CASE_FILE):
        return
    with open(CASE_FILE, "w") as out:
        json.dump(record, out, indent=2)


def record_result(test, tally, failure=None):
    """Merge one test's ``tally`` (a Tally, or the search benches' SearchCounts) into the result
    file (atomically: a reader never sees half)."""
    record = {"tests": {}}
    if os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            record = json.load(previous)
    record["tests"][test] = asdict(tally)
    record["checked"] = sum(t["checked"] for t in record["tests"].values())
    if failure:
        record.setdefault("failure", failure)  # the first one, whose case file was kept
        record.setdefault("failures", {})[test] = failure
    with open(RESULT_FILE + ".tmp", "w") as out:
        json.dump(record, out)
    os.replace(RESULT_FILE + ".tmp", RESULT_FILE)


def progress(text):
    """A progress line for the person at the terminal; the runner shows lines with this prefix."""
    print(f"gamechip: {text}", flush=True)


def verify(check, chunk, expected, lines):
    """Parse a chunk's response lines and compare: (cases that matched, their check units, first
    mismatch as (case, expected, actual) or None)."""
    actuals = check.parse(lines, chunk)
    if len(actuals) != len(chunk):   # zip would check the cases answered and drop the rest unseen
        return 0, 0, (chunk[min(len(actuals), len(chunk) - 1)], "an answer for every case of the batch",
                      f"the harness answered {len(actuals)} of {len(chunk)} cases")
    units = 0
    for matched, (case, want, got) in enumerate(zip(chunk, expected, actuals)):
        if want != got:
            return matched, units, (case, want, got)
        units += check.units(case, want)
    return len(chunk), units, None


def settle_chunk(check, test, env, tally, verdict, golden_seconds, started, total=None):
    """Count one compared chunk into ``tally``; on its mismatch save the case, record the failure
    and raise AssertionError with the message (the same for every loop: tests/test_batch.py and
    tests/test_fastfuzz.py check it). ``verdict`` is verify's (matched, units, mismatch)."""
    matched, units, mismatch = verdict
    tally.checked += matched + (mismatch is not None)   # the mismatching case was compared too
    tally.units += units
    tally.golden_seconds += golden_seconds
    tally.wall_seconds = time.perf_counter() - started
    if mismatch is not None:
        case, expected, actual = mismatch
        save_failure(check, case, expected, actual, env)
        message = failure_message(check, case, expected, actual, env)
        record_result(test, tally, failure=message)
        raise AssertionError(message)
    if total:
        rate = tally.checked / tally.wall_seconds if tally.wall_seconds else 0.0
        progress(f"{check.block} on {env['sim']}: {tally.checked:,}/{total:,} cases checked, {rate:,.0f}/s, "
                 f"seed {env['seed']}")


def end_run_if_failed(test):
    """Under FIRST_FAILURE_ENDS_RUN, fail ``test`` at once when an earlier test of this run has
    recorded a failure in RESULT_FILE."""
    if os.environ.get(FIRST_FAILURE_ENDS_RUN) and os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            if json.load(previous).get("failure"):
                raise AssertionError(f"{test} not run: an earlier test of this run failed ({FIRST_FAILURE_ENDS_RUN})")
