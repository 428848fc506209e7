"""What ``gamechip mutate`` does with a verdict after the run: a survivor's SAT counterexample
replayed and kept as a corpus case (``--add-to-corpus``). One small Icarus run of the move
checker (its schemata conversion is cached with test_mutate's) is copied by every test, which
plants the verdict it needs; the replays, proofs and simulations are all real."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def gamechip(*args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


RUN = ["--blocks", "move_checker", "--sim", "icarus", "--quick", "--limit", "1", "--workers", "1"]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("mutate-run") / "run"
    run = gamechip("mutate", *RUN, "--no-prove", "--out", str(out), "--json")
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout)["blocks"]["move_checker"]["killed"] == 1, run.stdout
    return out


def journal(out):
    return [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]


def the_mutant(out):
    return next(e for e in journal(out) if e.get("number"))


def plant(out, **fields):
    """Append a later journal entry for the run's one mutant (the last entry of a mutant wins)."""
    entry = {**the_mutant(out), **fields}
    with open(out / "journal.jsonl", "a") as journal_file:
        journal_file.write(json.dumps(entry) + "\n")
    return entry


@pytest.fixture
def run_copy(finished_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    return out


def test_a_survivors_counterexample_is_replayed_and_kept_in_the_corpus(run_copy, tmp_path):
    # as if the bench had a gap: the mutant survived, and the miter (a real one) tells it apart
    from gamechip.mutant_proof import prove
    from rtl.designs import PORTS
    from tb import runner

    killed = the_mutant(run_copy)
    verilog = (runner.hdl_dir("move_checker", run_copy / "schemata") / "move_checker.v").read_text()
    proof = prove(verilog, "move_checker", killed["number"], PORTS["move_checker"], timeout=120)
    assert proof.verdict == "counterexample", proof
    mutant = plant(run_copy, verdict="survived", test=None, message="",
                   proof={"verdict": proof.verdict, "inputs": proof.inputs, "seconds": proof.seconds})
    shown = gamechip("report", str(run_copy))
    assert shown.returncode == 0 and "| move_checker | 1 | 0 | 1 |" in shown.stdout, shown.stdout
    assert f"--add-to-corpus '{mutant['id']}'" in (run_copy / "report.md").read_text()

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    env = {"GAMECHIP_CORPUS": str(corpus)}
    added = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus", "--why", "move checker bench gap", env=env)
    assert added.returncode == 0, added.stdout + added.stderr
    assert f"added: {mutant['id']} (move_checker): original passes, mutant fails" in added.stdout, added.stdout
    [case_path] = corpus.glob("*.json")
    case = json.loads(case_path.read_text())
    assert case["why"].startswith("move checker bench gap; mutant " + mutant["id"])
    assert case["mutant"]["id"] == mutant["id"] and case["sim"] == "icarus" and "rtl_root" not in case
    # the corpus case is a real one: the project's RTL passes it as tb/test_corpus.py replays it
    from tb.corpus import check_corpus_case
    assert check_corpus_case(case_path).passed

    last = journal(run_copy)[-1]
    assert last["verdict"] == "killed" and last["test"] == f"corpus:{case_path.name}"
    assert last["proof"] == mutant["proof"]   # the counterexample stays beside the verdict
    scored = gamechip("report", str(run_copy))
    assert "| move_checker | 1 | 1 | 0 |" in scored.stdout, scored.stdout
    assert f"corpus:{case_path.name}: 1" in (run_copy / "report.md").read_text()
    # no longer a survivor: naming it again is bad input, one line
    again = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus", mutant["id"], env=env)
    assert again.returncode == 2 and "not a survivor with a SAT counterexample" in again.stderr, again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def test_a_counterexample_the_mutant_passes_is_refused_and_not_added(run_copy, tmp_path):
    # an empty board: no pattern starts anywhere, so the mutated pattern constant shows nowhere
    plant(run_copy, verdict="survived", test=None, message="",
          proof={"verdict": "counterexample", "inputs": {"own": 0, "opp": 0}, "seconds": 0})
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    refused = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus", env={"GAMECHIP_CORPUS": str(corpus)})
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "refused:" in refused.stdout and "the mutant passes the counterexample's case too" in refused.stdout
    assert not list(corpus.glob("*.json")) and journal(run_copy)[-1]["verdict"] == "survived"


@pytest.mark.parametrize("args, message", [
    (["--add-to-corpus"], "is not a mutation run folder"),
    (["--add-to-corpus", "rtl/x.py:1:1:op:00000000"], "is not a mutation run folder"),
    (["--why", "a gap"], "--why goes with --add-to-corpus"),
])
def test_add_to_corpus_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    run = gamechip("mutate", "--out", str(tmp_path / "none"), *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_add_to_corpus_names_an_unknown_mutant_and_a_run_without_journal(run_copy):
    unknown = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus", "rtl/x.py:1:1:op:00000000")
    assert unknown.returncode == 2 and "'rtl/x.py:1:1:op:00000000' is not in" in unknown.stderr, unknown.stderr
    killed = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus", the_mutant(run_copy)["id"])
    assert killed.returncode == 2 and "not a survivor with a SAT counterexample" in killed.stderr
    nothing = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus")
    assert nothing.returncode == 0 and "nothing to add" in nothing.stdout, nothing.stdout + nothing.stderr
    (run_copy / "journal.jsonl").unlink()
    missing = gamechip("mutate", "--out", str(run_copy), "--add-to-corpus")
    assert missing.returncode == 2 and "has no journal.jsonl" in missing.stderr, missing.stderr
