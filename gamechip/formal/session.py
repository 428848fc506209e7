"""``gamechip formal``: run the proofs, the planted bugs and the equivalence checks of the
designs asked for, and keep their verdicts in ``summary.json``:

    {design: {"properties": [{"name", "status", "depth", "engine", "seconds"}],
              "equivalence": {"status", "method", "seconds"},
              "planted_bug": {"why", "status", "caught_by", "trace", "case", "replay", "seconds",
                              "trace_replay", "replay_ok", "replay_planted", "replay_rtl"}}}

A property's status is ``proved`` (combinational bmc over every input, or k-induction),
``bounded`` (bmc from reset to ``depth`` cycles) or ``failed``; a planted bug must end
``caught`` (its proof failed with a counterexample trace), and a counterexample replayed in
simulation must fail there too and pass on the project's RTL (``replay_ok``). Earlier entries of designs not run
this time are kept, so the file describes every design that was ever run with this tree.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from gamechip.formal import equivalence
from gamechip.formal.counterexample import case_record
from gamechip.formal.proofs import ENGINE, PROOFS, FormalError, planted_root, run

SUMMARY = "summary.json"


def say(text):
    print(text, file=sys.stderr, flush=True)


def property_rows(outcome):
    return [{"name": p["name"], "status": p["status"], "depth": outcome.depth, "engine": ENGINE,
             "seconds": outcome.seconds, "cpu_seconds": outcome.cpu_seconds} for p in outcome.properties]


def planted_bug(proof, rtl_root, out, replay):
    """Run ``proof`` on a copy of the RTL with its bug planted; the counterexample's VCD and,
    where the block has a batch bench, a case file (replayed on that RTL with ``replay``), else a
    trace replay folder (gamechip.formal.replay; run on both RTLs with ``replay``)."""
    from tb.host.casefile import write_case_file

    bug = proof.bug
    root = planted_root(rtl_root, bug, out / "planted" / proof.design)
    outcome = run(proof.for_planted_bug(), root, out / "work" / f"{proof.design}-planted", "planted bug", say)
    entry = {"why": bug.why, "file": f"rtl/{bug.file}", "status": "caught" if outcome.status == "failed" else "missed",
             "caught_by": outcome.failed, "trace": outcome.trace, "case": None, "replay": None,
             "seconds": outcome.seconds, "rtl_root": str(root)}
    if outcome.status == "error":
        entry["status"], entry["detail"] = "error", outcome.detail
    record = case_record(proof.design, outcome.trace, root, f"planted bug: {bug.why}") if outcome.trace else None
    if outcome.trace and not record:
        entry.update(trace_replay(proof, outcome, root, rtl_root, out, replay))
    if record:
        case_file = write_case_file(out / "cases" / f"{proof.design}-planted.json", record)
        entry["case"] = str(case_file)
        if replay:
            from tb.host.runner import replay_case

            say(f"formal: replaying {case_file} on the planted bug (icarus) ...")
            result, _ = replay_case(case_file, waves=True, rtl_root=root)
            entry["replay"] = "failed as expected" if not result.passed else "passed: the bench does not see it"
    say(f"formal: {proof.design} with the planted bug ({bug.why}): {entry['status']}"
        + (f" by {', '.join(outcome.failed)}" if outcome.failed else "")
        + (f"; trace {outcome.trace}" if outcome.trace else "")
        + (f"; case {entry['case']} (gamechip replay {entry['case']})" if entry["case"] else "")
        + (f"; trace replay {entry['trace_replay']} (gamechip formal --replay-trace {entry['trace_replay']})"
           if entry.get("trace_replay") else "")
        + (f"; replay {entry['replay']}" if entry["replay"] else ""))
    return entry


def trace_replay(proof, outcome, planted_rtl, rtl_root, out, replay):
    """The entry fields of a counterexample replayed in simulation (gamechip.formal.replay): the
    replay folder, and with ``replay`` its verdicts on the planted copy and on the project's RTL."""
    from gamechip.formal import replay as trace

    testbench = Path(outcome.trace).with_name(Path(outcome.trace).stem + "_tb.v")
    if not testbench.exists():
        return {"trace_replay": None, "replay": f"no testbench {testbench.name} beside the trace"}
    folder = out / "replays" / f"{proof.design}-planted"
    trace.prepare(proof, testbench, planted_rtl, rtl_root, folder, outcome.failed, proof.bug.why)
    fields = {"trace_replay": str(folder)}
    if replay:
        say(f"formal: replaying the counterexample of {proof.design} on Icarus: the planted copy, then the RTL ...")
        said, ok = trace.verdicts(folder)
        fields.update(replay="failed as expected" if ok else "did not reproduce the proof's failure",
                      replay_ok=ok, replay_planted=said["planted"], replay_rtl=said["rtl"])
        say(f"formal: {proof.design} trace replay: planted bug {said['planted']}; RTL {said['rtl']}")
    return fields


def run_designs(designs, out, rtl_root, proofs=True, planted=True, equivalent=True, replay=False):
    """Run everything asked for; write and return the summary (merged with an earlier one)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / SUMMARY
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    started = time.monotonic()
    from tb.host.casefile import write_case_file
    for number, design in enumerate(designs, 1):
        entry = summary.get(design, {})
        proof = PROOFS.get(design)
        if proofs and proof:
            outcome = run(proof, rtl_root, out / "work" / design, "rtl", say)
            if outcome.status == "error":
                raise FormalError(f"{design}: {outcome.detail}")
            entry["properties"] = property_rows(outcome)
            entry["statement"] = proof.statement
            entry["method"] = outcome.detail or f"sby {proof.mode}, depth {proof.depth}"
            say(f"formal: {design}: {outcome.status}"
                + (f" (bmc to depth {outcome.depth})" if outcome.status == "bounded" else "")
                + f", {outcome.seconds:.0f} s ({outcome.cpu_seconds:.0f} s CPU), {ENGINE}"
                + (f"; {outcome.detail}" if outcome.detail else "")
                + (f"; failed: {', '.join(outcome.failed)}; trace {outcome.trace}" if outcome.failed else ""))
        elif proofs:
            entry.setdefault("properties", [])
        if planted and proof and proof.bug:
            entry["planted_bug"] = planted_bug(proof, rtl_root, out, replay)
        if equivalent:
            entry["equivalence"] = equivalence.check(design, rtl_root, out / "work" / f"{design}-equivalence", say)
            if entry["equivalence"]["status"] != "not attempted":
                say(f"formal: {design} netlist against RTL: {entry['equivalence']['status']}, "
                    f"{entry['equivalence']['seconds']:.0f} s"
                    + (f" ({entry['equivalence']['detail']})" if entry['equivalence'].get('detail') else ""))
        entry["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        # read again before writing: another run into the same folder may have added designs
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        summary[design] = entry
        write_case_file(summary_path, summary)
        say(f"formal: {number}/{len(designs)} designs, {time.monotonic() - started:,.0f} s")
    return summary


def verdict(summary, designs):
    """(passed, unchecked, lines): passed when no property failed, every planted bug was caught
    and no equivalence failed; unchecked names the properties the proof's depth cannot reach."""
    lines, passed, unchecked = [], True, []
    for design in designs:
        entry = summary.get(design, {})
        for prop in entry.get("properties", []):
            passed &= prop["status"] != "failed"
            if prop["status"].startswith("unchecked"):
                unchecked.append(f"{design}.{prop['name']}")
            depth = f" to depth {prop['depth']}" if prop["status"] == "bounded" else ""
            lines.append(f"{design:16} {prop['name']:28} {prop['status']}{depth} ({prop['engine']}, "
                         f"{prop['seconds']:.0f} s)")
        bug = entry.get("planted_bug")
        if bug:
            passed &= bug["status"] == "caught" and bug.get("replay_ok", True)
            lines.append(f"{design:16} {'planted bug':28} {bug['status']}: {bug['why']}"
                         + (f" (by {', '.join(bug['caught_by'])})" if bug.get("caught_by") else "")
                         + (f"; replayed in simulation: {bug['replay']}" if bug.get("trace_replay") and bug.get("replay")
                            else ""))
        eq = entry.get("equivalence")
        if eq:
            passed &= eq["status"] not in ("failed", "unknown")
            lines.append(f"{design:16} {'netlist = RTL':28} {eq['status']}"
                         + (f" ({eq['seconds']:.0f} s)" if eq["status"] != "not attempted" else "")
                         + (f": {eq['detail']}" if eq.get("detail") and eq["status"] != "proved" else ""))
    return passed, unchecked, lines
