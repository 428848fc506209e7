"""``gamechip mutate --elab``: elaboration-time mutants (gamechip/mutation/elab.py). Where they are
made (outside the @always bodies, the rest of the file byte for byte), stable ids, and four
move-checker mutants end to end on Icarus: each a copy of rtl/ converted on its own, killed by
the bench, or not a mutant when the copy does not elaborate."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from gamechip.mutation.model import is_generator
from gamechip.mutation.elab import design_files, elab_mutants

ROOT = Path(__file__).resolve().parent.parent


def test_elab_mutants_change_one_expression_outside_the_generators_and_have_stable_ids():
    files = design_files(ROOT, "move_checker")
    assert files == ["rtl/cells.py", "rtl/geometry.py", "rtl/move_checker.py"]
    found = elab_mutants(ROOT, files)
    ids = [m.id for m, _ in found]
    assert len(ids) > 20 and len(set(ids)) == len(ids) and all(i.startswith("elab:rtl/") for i in ids)
    assert [m.id for m, _ in elab_mutants(ROOT, files)] == ids
    generator_lines = {}
    for name in files:
        tree = ast.parse((ROOT / name).read_text())
        generator_lines[name] = {line for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                                 and is_generator(node) for line in range(node.lineno, node.end_lineno + 1)}
    for mutant, text in found:
        original = (ROOT / mutant.file).read_text()
        ast.parse(text)   # still Python
        assert text != original and mutant.line not in generator_lines[mutant.file], mutant.id
        # one span replaced: the text before and after it is the original's
        head = next(i for i, (a, b) in enumerate(zip(original, text)) if a != b)
        tail = next(i for i, (a, b) in enumerate(zip(reversed(original), reversed(text))) if a != b)
        assert original[:head] == text[:head] and original[len(original) - tail:] == text[len(text) - tail:]
        assert original.count("\n") == text.count("\n")


def test_four_move_checker_elab_mutants_are_converted_one_by_one_and_judged(tmp_path):
    out = tmp_path / "elab"
    run = subprocess.run([sys.executable, "-m", "gamechip", "mutate", "--blocks", "move_checker", "--elab-only",
                          "--limit", "4", "--sim", "icarus", "--quick", "--jobs", "1", "--out", str(out), "--json"],
                         cwd=ROOT, capture_output=True, text=True, env=dict(os.environ), timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    row = json.loads(run.stdout)["blocks"]["move_checker:elab"]
    assert row["kind"] == "elab" and row["errors"] == 0 and row["pending"] == 0, row
    assert row["mutants"] + row["not_mutants"] == 4 and row["killed"] >= 1, row
    entries = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    judged = [e for e in entries if e.get("number")]
    assert {e["verdict"] for e in judged} <= {"killed", "survived", "invalid"}
    # a copy that does not convert says why (the move checker's sample holds one: a direction
    # table index that no longer exists)
    invalid = [e for e in judged if e["verdict"] == "invalid"]
    assert len(invalid) == row["not_mutants"] and all(e["message"].startswith("converting move_checker from ")
                                                      for e in invalid), invalid
    assert any(e["verdict"] == "baseline" for e in entries)   # the original passed first
    assert "| move_checker:elab | " in (out / "report.md").read_text()
    assert not list((out / "elab" / "move_checker").glob("*/rtl"))   # the copies are not left behind

    # a killed one through the miter: its own conversion against the original's
    proved = subprocess.run(run.args + ["--resume", "--no-prove", "--prove-killed", "1"], cwd=ROOT,
                            capture_output=True, text=True, env=dict(os.environ), timeout=900)
    assert proved.returncode == 0 and json.loads(proved.stdout)["bench_bugs"] == [], proved.stderr[-3000:]
    killed = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()][-1]
    assert killed["verdict"] == "killed" and killed["proof"]["verdict"] == "counterexample", killed
    # as a survivor, its counterexample goes to the corpus: rtl/ passes it, the mutant's copy does not
    with open(out / "journal.jsonl", "a") as journal:
        journal.write(json.dumps({**killed, "verdict": "survived", "test": None}) + "\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    added = subprocess.run([sys.executable, "-m", "gamechip", "mutate", "--out", str(out), "--add-to-corpus"],
                           cwd=ROOT, capture_output=True, text=True, env={**os.environ, "GAMECHIP_CORPUS": str(corpus)},
                           timeout=900)
    assert added.returncode == 0 and f"added: {killed['id']}" in added.stdout, added.stdout + added.stderr
    assert len(list(corpus.glob("*.json"))) == 1


def test_a_copy_that_converts_to_verilog_no_simulator_compiles_is_not_a_mutant(tmp_path):
    """The successor table over an empty range converts to case statements without items, which
    Icarus refuses: no design to judge, so not a mutant rather than an error of the run."""
    from types import SimpleNamespace

    from gamechip.mutation.elab import judge
    from tb.host import runner
    source = (ROOT / "rtl" / "cells.py").read_text()
    table = "for v in range(1 << width))\n\n\ndef predecessor_table"
    assert source.count(table) == 1
    text = source.replace(table, table.replace("1 << width", "1 >> width"))
    original = (runner.hdl_dir("move_checker", ROOT) / "move_checker.v").read_text()
    verdict, test, message, _ = judge(SimpleNamespace(number=1, file="rtl/cells.py"), text, "move_checker",
                                      "move_checker", "icarus", ROOT, tmp_path, 1, True, 5.0, original)
    assert (verdict, test) == ("invalid", None) and "syntax error" in message, (verdict, message)
