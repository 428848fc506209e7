"""The score of a mutation run (``gamechip mutate``, ``gamechip report OUT``): killed / (killed +
survivors not proved equivalent or waived), per block, file, function and operator, which tests
killed the mutants first, every survivor with its diff and the command that replays it, and the
bench bugs (killed mutants equivalent to the original). As ``OUT/report.md``, an annotated copy
of each rtl file (``OUT/annotated/``), a summary on the console or ``--json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gamechip.mutation.journal import IDENTICAL, JOURNAL, byte_identical, read_catalogue, read_journal
from gamechip.mutation.model import ELAB, NETLIST, file_digest
from gamechip.mutation.waivers import load_waivers

def summarise(out, waivers=None):
    """The run's result object: per block, file, function and operator the counts and score,
    and every survivor with its diff and replay command."""
    out = Path(out)
    catalogue = read_catalogue(out)
    entries = read_journal(out / JOURNAL)
    waivers = load_waivers() if waivers is None else waivers
    by_id = {m["id"]: m for m in catalogue["mutants"]}
    result = {"sim": catalogue["sim"], "rtl_root": catalogue.get("rtl_root"), "quick": catalogue.get("quick", False), "rtl_digest": catalogue["rtl_digest"], "blocks": {}, "files": {},
              "functions": {}, "operators": {}, "lines": {}, "digests": {}, "survivors": [], "equivalent": [], "waived": [], "errors": [], "pending": 0, "bench_bugs": [],
              "killed_by": {"directed": 0, "random": 0, "other": 0, "timeout": 0}, "killed_by_test": {}}

    def count(table, key, verdict):
        row = table.setdefault(key, {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "waived": 0,
                                     "errors": 0, "pending": 0})
        row["mutants"] += 1
        row[verdict] += 1

    for block, spec in catalogue["blocks"].items():
        result["blocks"].setdefault(block, {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "waived": 0,
                                            "errors": 0, "pending": 0, "not_mutants": 0,
                                            "kind": spec.get("kind", "source")})
        for mutant_id in spec["mutants"]:
            mutant, entry = by_id[mutant_id], entries.get((block, mutant_id))
            verdict = entry["verdict"] if entry else "waived" if mutant_id in waivers else "pending"
            if verdict == "invalid":   # an --elab copy that does not elaborate: no design, no mutant
                result["blocks"][block]["not_mutants"] += 1
                continue
            if verdict == "survived" and entry.get("equivalent"):
                verdict = "equivalent"
            elif verdict == "survived" and mutant_id in waivers:
                verdict = "waived"
            key = {"killed": "killed", "survived": "survived", "equivalent": "equivalent", "waived": "waived",
                   "error": "errors", "pending": "pending"}[verdict]
            for table, name in ((result["blocks"], block), (result["files"], mutant["file"]),
                                (result["functions"], f"{mutant['file']}: {mutant['function']}"),
                                (result["operators"], mutant["operator"])):
                if table is result["blocks"]:
                    row = table[name]
                    row["mutants"] += 1
                    row[key] += 1
                else:
                    count(table, name, key)
            result["digests"][mutant["file"]] = mutant_id.rsplit(":", 1)[1]
            line = result["lines"].setdefault(mutant["file"], {}).setdefault(mutant["line"], {})
            line[key] = line.get(key, 0) + 1
            if verdict == "killed":
                test = entry.get("test") or "?"
                result["killed_by"][_kind_of_test(test)] += 1
                tests = result["killed_by_test"].setdefault(block, {})
                tests[test] = tests.get(test, 0) + 1
            if verdict == "survived":
                result["survivors"].append({**mutant, "block": block, "replay": replay_command(out, block, mutant),
                                            "proof": entry.get("proof")})
            if verdict == "equivalent":
                result["equivalent"].append({**mutant, "block": block, "proof": entry.get("proof")})
            if verdict == "waived":
                result["waived"].append({**mutant, "block": block, "reason": waivers[mutant_id],
                                         "simulated": entry is not None})
            if verdict == "error":
                result["errors"].append({**mutant, "block": block, "message": entry.get("message", "")})
            if verdict == "pending":
                result["pending"] += 1
            bug = _bench_bug(entry, waivers.get(mutant_id))
            if bug:
                result["bench_bugs"].append({**mutant, "block": block, **bug})
    for table in ("blocks", "files", "functions", "operators"):
        for row in result[table].values():
            judged = row["killed"] + row["survived"]
            row["score"] = round(row["killed"] / judged, 4) if judged else None
    return result


def _bench_bug(entry, waiver=None):
    """{test, message, evidence} when the bench rejected a mutant that is equivalent to the
    original: killed and proved equivalent by the miter, byte-identical to the original and
    killed when run (--prove-killed), or killed though reviewed as equivalent (``waiver``, its
    reason: the review or the bench is wrong). Else None."""
    if not entry:
        return None
    if entry["verdict"] == "killed" and waiver:
        return {"test": entry.get("test"), "message": entry.get("message", ""),
                "evidence": f"waived as equivalent in tb/mutation_waivers.json: {waiver}"}
    proof = entry.get("proof") or {}
    if entry["verdict"] == "killed" and proof.get("verdict") == "equivalent":
        bound = f", bounded: {proof['bounded_cycles']} cycles from reset" if proof.get("bounded_cycles") else ""
        return {"test": entry.get("test"), "message": entry.get("message", ""),
                "evidence": f"proved equivalent by the SAT miter ({proof.get('detail') or 'proved'}{bound})"}
    simulated = entry.get("simulated") or {}
    if byte_identical(entry) and simulated.get("verdict") == "killed":
        return {"test": simulated.get("test"), "message": simulated.get("message", ""), "evidence": IDENTICAL}
    return None


def _kind_of_test(test):
    """directed (hand-picked positions and sequences), random (seeded random vectors), or other
    (whole games and recorded searches: the processor's and the peripheral's benches). A corpus
    case (``corpus:<file>``, a survivor's counterexample kept by --add-to-corpus) is directed:
    one hand-kept case, whatever words its file name holds."""
    if test == "timeout":
        return "timeout"
    if test.startswith(CORPUS_TEST):
        return "directed"
    if "random" in test or "fuzz" in test:
        return "random"
    if test.startswith("directed") or test in DIRECTED_TESTS:
        return "directed"
    return "other"


CORPUS_TEST = "corpus:"   # the test of a mutant killed by a corpus case: corpus:<its file name>
# the benches' tests of hand-picked cases whose names do not say "directed"
DIRECTED_TESTS = {"every_byte_both_ways", "rx_back_to_back", "rx_baud_mismatch", "rx_framing_error", "rx_glitch",
                  "rx_stuck_low_and_break", "referee_codes", "processor_pass", "register_map", "endgame"}


def replay_command(out, block, mutant):
    return f"gamechip mutate --out {out} --blocks {block} --replay '{mutant['id']}'"


def format_report(result, out=None):
    """The report as Markdown: the score table, killed-by, survivors with their diffs."""
    quick = ", --quick: benches at their smallest size, not a score" if result.get("quick") else ""
    lines = [f"# Mutation score ({result['sim']}, RTL digest {result['rtl_digest']}{quick})", "",
             "Score = killed / (killed + survivors); equivalent and waived survivors are left out of it."
             + (" Rows `<block>:netlist` are Yosys netlist mutants of the converted design (`--netlist N`), "
                "the others source mutants of rtl/." if any(row.get("kind") == NETLIST
                                                            for row in result["blocks"].values()) else "")
             + (" Rows `<block>:elab` are elaboration-time mutants (`--elab`), a copy of rtl/ converted for each; "
                f"{sum(row.get('not_mutants', 0) for row in result['blocks'].values())} copies that did not elaborate "
                "or convert are not mutants and are left out of every count." if any(
                    row.get("kind") == ELAB for row in result["blocks"].values()) else ""), "",
             *_bench_bug_lines(result),
             "| block | mutants | killed | survived | proved equivalent | waived | errors | pending | score |",
             "|---|---|---|---|---|---|---|---|---|"]
    for block, row in result["blocks"].items():
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(f"| {block} | {row['mutants']} | {row['killed']} | {row['survived']} | {row['equivalent']} | "
                     f"{row['waived']} | {row['errors']} | {row['pending']} | {score} |")
    killed = result["killed_by"]
    lines += ["", f"Killed first by a directed test: {killed['directed']}; by random vectors: {killed['random']} "
              f"(a block whose mutants die only there has a gap in its directed set); by whole games and recorded "
              f"searches: {killed['other']}; by a hang (timeout): {killed['timeout']}.", "", "| block | killed by (test: mutants) |", "|---|---|"]
    for block, tests in result["killed_by_test"].items():
        lines.append(f"| {block} | " + ", ".join(f"{test}: {n}" for test, n in sorted(tests.items(), key=lambda x: -x[1]))
                     + " |")
    lines += ["", "## By operator", "", "| operator | mutants | killed | survived | score |", "|---|---|---|---|---|"]
    for operator, row in sorted(result["operators"].items()):
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(f"| {operator} | {row['mutants']} | {row['killed']} | {row['survived']} | {score} |")
    lines += ["", f"## Survivors ({len(result['survivors'])})", ""]
    for survivor in result["survivors"]:
        lines += [f"- `{survivor['id']}` ({survivor['block']}, {survivor['function']})",
                  f"  - `- {survivor['original']}`", f"  - `+ {survivor['mutated']}`",
                  f"  - replay: `{survivor['replay']}`"]
        lines += _proof_lines(survivor.get("proof"))
        if (survivor.get("proof") or {}).get("verdict") == "counterexample" and out is not None:
            lines.append(f"  - keep the counterexample as a corpus case: `gamechip mutate --out {out} --add-to-corpus "
                         f"'{survivor['id']}'`")
    if result["equivalent"]:
        lines += ["", f"## Proved equivalent ({len(result['equivalent'])})", "",
                  "Yosys SAT miter against the original: combinational blocks on every legal board (no square "
                  "both black and white), sequential ones bounded from reset.", ""]
        for mutant in result["equivalent"]:
            proof = mutant.get("proof") or {}
            bound = f", bounded: {proof['bounded_cycles']} cycles" if proof.get("bounded_cycles") else ""
            lines.append(f"- `{mutant['id']}` ({mutant['block']}): `{mutant['original']}` -> `{mutant['mutated']}` "
                         f"({proof.get('seconds', 0):.0f} s{bound})")
    if result["waived"]:
        lines += ["", f"## Waived ({len(result['waived'])}, reviewed in tb/mutation_waivers.json)", ""]
        lines += [f"- `{w['id']}` ({w['block']}): `{w['original']}` -> `{w['mutated']}`: {w['reason']}"
                  f"{'' if w.get('simulated', True) else ' (not run: --recheck-waivers runs it)'}"
                  for w in result["waived"]]
    if result["errors"]:
        lines += ["", f"## Errors ({len(result['errors'])})", ""]
        lines += [f"- `{e['id']}`: {e['message'][:200]}" for e in result["errors"]]
    return "\n".join(lines) + "\n"


def _bench_bug_lines(result):
    """The report's loudest section: mutants the bench killed that equal the original."""
    bugs = result.get("bench_bugs") or []
    if not bugs:
        return []
    lines = [f"## BENCH BUGS ({len(bugs)}): killed mutants that are equivalent to the original", "",
             "The bench rejected a design that answers as the original does: the bench (or the golden model, "
             "or a watchdog) is wrong, not the mutant. `gamechip mutate` and `gamechip report` exit with status 3.",
             ""]
    for bug in bugs:
        lines += [f"- `{bug['id']}` ({bug['block']}, {bug['function']}): `{bug['original']}` -> `{bug['mutated']}`",
                  f"  - killed by `{bug['test']}`: {bug['message'][:300]}", f"  - yet {bug['evidence']}"]
    return lines + [""]


def _proof_lines(proof):
    """The survivor's SAT verdict: a counterexample as its inputs and, for a board, its picture."""
    if not proof:
        return []
    if proof["verdict"] != "counterexample":
        return [f"  - proof: {proof['verdict']}{': ' + proof['detail'] if proof.get('detail') else ''}"]
    inputs = proof.get("inputs") or {}
    steps = inputs if isinstance(inputs, list) else [inputs]
    lines = [f"  - counterexample (the mutant answers differently{', ' + proof['detail'] if proof.get('detail') else ''}): "
             + " | ".join(", ".join(f"{k}=0x{v:x}" for k, v in sorted(step.items())) for step in steps[:4])
             + (" ..." if len(steps) > 4 else "")]
    if not isinstance(inputs, list):
        board = _board(inputs)
        if board:
            lines += ["", "    ```", *("    " + row for row in board.splitlines()), "    ```"]
    return lines


def _board(inputs):
    from golden.board import BoardError, Position, draw

    for black, white in (("black", "white"), ("own", "opp")):
        if black in inputs and white in inputs:
            try:
                return draw(Position(inputs[black], inputs[white], bool(inputs.get("white_to_move", 0))),
                            highlight=1 << inputs["move"] if "move" in inputs else 0)
            except (BoardError, ValueError):
                return None
    return None


ANNOTATED = "annotated"


def write_annotated(result, out):
    """OUT/annotated/rtl/<file>.txt: the source with each line's verdicts in the margin
    (k = killed, S = survived, e = proved equivalent, w = waived, E = error, . = pending)."""
    marks = {"killed": "k", "survived": "S", "equivalent": "e", "waived": "w", "errors": "E", "pending": "."}
    written = []
    for name, lines in result["lines"].items():
        source = Path(result.get("rtl_root") or ".") / name
        try:
            text = source.read_text()
        except OSError:
            continue
        if file_digest(text) != result["digests"].get(name):
            continue   # edited since the run: its lines no longer match
        target = Path(out) / ANNOTATED / (name + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        rows = []
        for number, code in enumerate(text.splitlines(), 1):
            counts = lines.get(number, {})
            margin = " ".join(f"{n}{marks[k]}" for k, n in counts.items())
            rows.append(f"{margin:>14} {number:5} | {code}")
        target.write_text(f"# {name}: verdicts per line ({', '.join(f'{m} = {k}' for k, m in marks.items())})\n"
                          + "\n".join(rows) + "\n")
        written.append(target)
    return written


def print_summary(result, as_json, out):
    report = format_report(result, out)
    (Path(out) / "report.md").write_text(report)
    write_annotated(result, out)
    if as_json:
        print(json.dumps({"blocks": {name: {key: row[key] for key in ("kind", "mutants", "killed", "survived", "equivalent",
                                                                      "waived", "errors", "pending", "not_mutants",
                                                                      "score")}
                                     for name, row in result["blocks"].items()},
                          "killed_by": result["killed_by"], "survivors": [s["id"] for s in result["survivors"]],
                          "bench_bugs": [{key: bug[key] for key in ("id", "block", "test", "evidence")}
                                         for bug in result["bench_bugs"]]}))
        return
    table = report.split("## By operator")[0]
    print(table.rstrip())
    for bug in result["bench_bugs"]:
        print(f"BENCH BUG: {bug['id']} ({bug['block']}) killed by {bug['test']}, yet {bug['evidence']}",
              file=sys.stderr)
    for survivor in result["survivors"][:20]:
        print(f"survived: {survivor['file']}:{survivor['line']} {survivor['operator']}: "
              f"{survivor['original']}  ->  {survivor['mutated']}")
    if len(result["survivors"]) > 20:
        print(f"... {len(result['survivors']) - 20} more in {Path(out) / 'report.md'}")
    print(f"report: {Path(out) / 'report.md'}")
