"""What ``gamechip mutate`` does with a verdict after the run: a survivor's SAT counterexample
replayed and kept as a corpus case (``--add-to-corpus``), which later runs replay for their
survivors; a killed mutant that is equivalent to
the original flagged as a bench bug (``--prove-killed``, exit status 3). One small Icarus run of the move
checker (its schemata conversion is cached with test_mutate's) is copied by every test, which
plants the verdict it needs; the replays, proofs and simulations are all real. Those tests and the
byte-identical one are make test-full's (the run is two minutes of a busy regression); make test
keeps the commands' refusals of bad input."""

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


RUN = ["--blocks", "move_checker", "--sim", "icarus", "--quick", "--limit", "1", "--jobs", "1"]


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
    """The run's one mutant as the journal has it now (its last entry)."""
    return [e for e in journal(out) if e.get("number")][-1]


def plant(out, drop=(), **fields):
    """Append a later journal entry for the run's one mutant (the last entry of a mutant wins),
    without the fields ``drop``."""
    entry = {key: value for key, value in {**the_mutant(out), **fields}.items() if key not in drop}
    with open(out / "journal.jsonl", "a") as journal_file:
        journal_file.write(json.dumps(entry) + "\n")
    return entry


@pytest.fixture
def run_copy(finished_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    return out


# About two minutes of mutate runs: in make mutants; make test keeps the corpus path through
# test_mutate_elab's end-to-end test, make test-full the refusal below too.
@pytest.mark.extended
def test_a_survivors_counterexample_is_replayed_and_kept_in_the_corpus(run_copy, tmp_path):
    # --prove-killed puts the killed mutant through the real miter: a counterexample confirms the kill
    checked = gamechip("mutate", *RUN, "--out", str(run_copy), "--resume", "--no-prove", "--prove-killed", "1", "--json")
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert json.loads(checked.stdout)["bench_bugs"] == []
    killed = journal(run_copy)[-1]
    assert killed["verdict"] == "killed" and killed["proof"]["verdict"] == "counterexample", killed
    assert set(killed["proof"]["inputs"]) == {"own", "opp"}
    # as if the bench had a gap: the same mutant survived, with that counterexample
    mutant = plant(run_copy, verdict="survived", test=None, message="")
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
    from tb.host.corpus import check_corpus_case
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

    # a later run replays the corpus for its survivors as the regression does: the case kills the mutant
    plant(run_copy, verdict="survived", test=None, message="", drop=("proof", "corpus"))
    rerun = gamechip("mutate", *RUN, "--out", str(run_copy), "--resume", "--no-prove", "--json", env=env)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert json.loads(rerun.stdout)["blocks"]["move_checker"]["killed"] == 1, rerun.stdout
    assert f"killed by corpus case {case_path.name}" in rerun.stderr
    assert journal(run_copy)[-1]["test"] == f"corpus:{case_path.name}"


@pytest.mark.full
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
    (["--replay", "rtl/x.py:1:1:op:00000000", "--add-to-corpus"], "two different actions on a run: give one"),
])
def test_add_to_corpus_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    run = gamechip("mutate", "--out", str(tmp_path / "none"), *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


@pytest.mark.full
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


@pytest.mark.full
def test_a_killed_mutant_proved_equivalent_is_a_bench_bug_in_the_report_and_exit_status_3(run_copy):
    killed = the_mutant(run_copy)
    plant(run_copy, proof={"verdict": "equivalent", "detail": "proved", "seconds": 1})   # still killed
    report = gamechip("report", str(run_copy))
    assert report.returncode == 3, report.stdout + report.stderr
    assert f"BENCH BUG: {killed['id']} (move_checker) killed by {killed['test']}" in report.stderr
    text = (run_copy / "report.md").read_text()
    assert "## BENCH BUGS (1): killed mutants that are equivalent to the original" in text
    assert text.index("BENCH BUGS") < text.index("| block | mutants |")   # before the score, not below it
    assert "yet proved equivalent by the SAT miter (proved)" in text


@pytest.mark.full
def test_a_byte_identical_mutant_that_a_planted_bench_kills_is_flagged(tmp_path, monkeypatch, capsys):
    """The uart holds a mutant whose converted Verilog is the original's (a real one, found by the
    real conversion); the bench is replaced by one that rejects exactly that mutant."""
    from gamechip.mutation import benches, journal
    from gamechip.mutation.schemata import build_schemata, identical_mutants
    from gamechip.cli import main
    from tb.host import runner
    from tb.sim.batch import FIRST_FAILURE_ENDS_RUN

    monkeypatch.setenv(FIRST_FAILURE_ENDS_RUN, "")   # run() sets it for its benches: undone after the test
    schemata = tmp_path / "schemata"
    build_schemata(ROOT, schemata)
    identical = identical_mutants((runner.hdl_dir("uart", schemata) / "uart.v").read_text())
    assert identical, "the uart has no byte-identical mutant any more: plant the bench bug on another block"
    runs = []

    def planted_bench(block, design, sim, root, number, tag, seed=1, quick=False):
        runs.append(number)
        return ("killed", "planted_check", "MISMATCH (a planted bench bug)") if number in identical \
            else ("survived", None, "")

    monkeypatch.setattr(benches, "run_mutant", planted_bench)
    out = tmp_path / "run"
    args = ["mutate", "--blocks", "uart", "--sim", "icarus", "--quick", "--jobs", "1", "--no-prove", "--out", str(out),
            "--json"]
    assert main(args) == 0   # byte-identical: equivalent without a run, so nothing to flag yet
    assert not identical & set(runs) and json.loads(capsys.readouterr().out)["bench_bugs"] == []
    assert main(args + ["--resume", "--prove-killed", "1"]) == 3
    assert identical <= set(runs)
    bugs = json.loads(capsys.readouterr().out)["bench_bugs"]
    assert [bug["test"] for bug in bugs] == ["planted_check"] * len(identical)
    assert all(bug["evidence"] == journal.IDENTICAL for bug in bugs)
    assert "## BENCH BUGS" in (out / "report.md").read_text()


# A minute or more on 2 busy cores (a cluster's start, two runs, each worker's build and original):
# kept out of the default regression, which is at its limit; make mutants runs it.
@pytest.mark.extended
def test_mutants_run_on_a_dask_local_cluster_and_resume_there(finished_run, tmp_path):
    """Two shards on two workers of a real LocalCluster on loopback; the client keeps the journal;
    a resumed run after a lost verdict runs that mutant alone."""
    import distributed

    out = tmp_path / "dask"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        args = ["--blocks", "move_checker", "--sim", "icarus", "--quick", "--limit", "3", "--no-prove",
                "--cluster", cluster.scheduler_address, "--shard-size", "2", "--out", str(out), "--json"]
        remote = gamechip("mutate", *args)
        assert remote.returncode == 0, remote.stderr[-3000:]
        assert f"Dask cluster {cluster.scheduler_address} (2 workers, 2 threads): 3 mutants in 2 shards" in remote.stderr
        row = json.loads(remote.stdout)["blocks"]["move_checker"]
        assert row["mutants"] == 3 and row["killed"] == 3 and row["errors"] == 0, remote.stdout
        entries = journal(out)
        mutants = [e for e in entries if e.get("number")]
        assert len(mutants) == 3 and all(e["host"] and e["test"] for e in mutants)
        # the shard's first mutant is the local run's one mutant: the same verdict by the same test
        local = the_mutant(finished_run)
        assert {(e["id"], e["verdict"], e["test"]) for e in mutants} >= {(local["id"], "killed", local["test"])}
        assert any(e["verdict"] == "baseline" for e in entries)   # MUTSEL=0 passed on a worker first

        lost = mutants[-1]   # as if the client had died before journaling it
        (out / "journal.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries if e is not lost))
        again = gamechip("mutate", *args, "--resume")
        assert again.returncode == 0, again.stderr[-3000:]
        assert "1 mutants in 1 shards" in again.stderr
        assert json.loads(again.stdout)["blocks"] == json.loads(remote.stdout)["blocks"]
        rerun = [e for e in journal(out) if e.get("number")]
        assert len(rerun) == 3 and rerun[-1]["id"] == lost["id"] and rerun[-1]["verdict"] == "killed"


@pytest.mark.parametrize("args, message", [
    (["--cluster", "localhost:8786"], "bad cluster address 'localhost:8786': expected tcp://HOST:PORT"),
    (["--cluster", "tcp://127.0.0.1:1", "--jobs", "2"], "with --cluster the cluster's workers run the mutants"),
    (["--cluster", "tcp://127.0.0.1:1", "--netlist", "3"], "--netlist runs here only, not with --cluster"),
    (["--shard-size", "4"], "--shard-size goes with --cluster"),
])
def test_cluster_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    run = gamechip("mutate", "--blocks", "move_checker", "--out", str(tmp_path / "x"), *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()


def test_a_replay_names_its_case_file_absolutely_for_a_relative_out(tmp_path, monkeypatch):
    """The simulator runs in its build directory: a case file named relative to the caller's
    folder (``--out runs/mutate``) was not found there, so the original "failed" every corpus
    case and the survivors were never checked against the corpus (chess_repetition, Verilator)."""
    from gamechip.mutation import corpus as mutant_corpus
    from tb.host import runner
    seen = {}

    def recorder(design, sim, module, tests, env=None, **kwargs):
        seen.update(env)
        return runner.RunResult(True, tmp_path, {}, None, "", None)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "run_design", recorder)
    record = {"design": "move_checker", "sim": "icarus", "seed": 1, "case": {}}
    mutant_corpus.replay(record, ROOT, 0, Path("runs") / "mutate" / "corpus-replays" / "move_checker")
    case = Path(seen["GAMECHIP_CASE"])
    assert case.is_absolute() and json.loads(case.read_text())["design"] == "move_checker"
