"""``gamechip plant`` (gamechip/cli/plant.py, tb/host/planted.py): a copy of the RTL with one of the
corpus's planted bugs, so that the failure workflow can be practised on a real failure.

Every corpus case names the planted bug it was found with, and plant can write that bug; the
copy fails the case (the real RTL passes it: tb/test_corpus.py) and the fuzz command plant
prints finds it. The default regression plants and replays the move checker's bug (its fuzz
run is README.md's failure quick start, run by tests/test_readme.py); the other bugs' replays
and fuzz runs are in make test-full.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.cli.plant import MARKER, shown_path
from tb.host import corpus
from tb.host.planted import PLANTED_BUGS, PlantError, bug_id, copy_with_edits, corpus_cases_by_bug, edits_of

ROOT = Path(__file__).resolve().parent.parent
CORPUS_BUGS = corpus_cases_by_bug(corpus.corpus_files(ROOT / "tb" / "cases"))
DEFAULT_BUG = "move_checker drops one direction"


def bug_params():
    return [name if name == DEFAULT_BUG else pytest.param(name, marks=pytest.mark.full)
            for name in sorted(CORPUS_BUGS)]


def test_every_corpus_case_names_a_bug_that_plant_can_write():
    cited = {path for paths in CORPUS_BUGS.values() for path in paths}
    assert cited == set(corpus.corpus_files(ROOT / "tb" / "cases")), "a corpus case whose why names no planted bug"
    assert DEFAULT_BUG in CORPUS_BUGS


def test_every_planted_bug_still_applies_to_the_rtl():
    for name in PLANTED_BUGS:
        _, file, edits = edits_of(name)
        text = (ROOT / "rtl" / file).read_text()
        assert all(old in text and old != new for old, new in edits), f"'{name}' no longer applies to rtl/{file}"


def test_a_bug_whose_text_is_gone_is_refused_and_nothing_is_written(tmp_path):
    with pytest.raises(PlantError, match="no longer applies"):
        copy_with_edits(tmp_path / "copy", "move_checker.py", (("text that is not there", "x"),))
    assert not (tmp_path / "copy").exists()


def test_plant_lists_the_corpus_bugs_and_writes_one(tmp_path, capsys):
    assert main(["plant", "--list"]) == 0
    listing = capsys.readouterr().out
    for name, paths in CORPUS_BUGS.items():
        assert re.search(rf"^  {re.escape(bug_id(name))} +{PLANTED_BUGS[name][0]} +.*{paths[0].name}$", listing, re.M)

    out = tmp_path / "planted"
    for attempt in range(2):   # a second time over its own copy: replaced
        assert main(["plant", bug_id(DEFAULT_BUG), "--out", str(out)]) == 0
        printed = capsys.readouterr().out
    design, file, *_ = PLANTED_BUGS[DEFAULT_BUG]
    assert (out / MARKER).read_text().strip() == DEFAULT_BUG
    changed = [path.relative_to(out / "rtl") for path in (out / "rtl").rglob("*.py")
               if path.read_text() != (ROOT / "rtl" / path.relative_to(out / "rtl")).read_text()]
    assert changed == [Path(file)]
    assert f"GAMECHIP_RTL_ROOT={out} gamechip fuzz --blocks move_checker --sim icarus --count 300" in printed
    assert f"gamechip replay {shown_path(CORPUS_BUGS[DEFAULT_BUG][0])} --waves" in printed


@pytest.mark.parametrize("args, message", [
    (["plant"], "name a bug"),
    (["plant", "no-such-bug"], "no planted bug 'no-such-bug'"),
    (["plant", "evaluator drops a corner"], "has no corpus case"),
    (["plant", bug_id(DEFAULT_BUG), "--list"], "not both"),
    (["plant", bug_id(DEFAULT_BUG), "--out", "{foreign}"], "holds files that plant did not write"),
    (["plant", bug_id(DEFAULT_BUG), "--out", "{file}"], "is a file, not a folder"),
])
def test_bad_plant_input_is_one_line_and_status_2(args, message, tmp_path, capsys):
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine\n")
    (tmp_path / "file").write_text("x\n")
    args = [arg.format(foreign=tmp_path / "foreign", file=tmp_path / "file") for arg in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine\n" and not (tmp_path / "foreign" / "rtl").exists()


@pytest.mark.parametrize("name", bug_params())
def test_the_planted_copy_fails_the_bugs_corpus_case(name, tmp_path):
    out = tmp_path / "planted"
    assert main(["plant", bug_id(name), "--out", str(out)]) == 0
    for path in CORPUS_BUGS[name]:
        with pytest.raises(corpus.CorpusRegression, match="MISMATCH"):
            corpus.check_corpus_case(path, rtl_root=out)


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(CORPUS_BUGS))
def test_the_printed_fuzz_command_finds_the_bug(name, tmp_path, capsys):
    out = tmp_path / "planted"
    assert main(["plant", bug_id(name), "--out", str(out)]) == 0
    command = re.search(r"^find it by fuzzing: (.*)$", capsys.readouterr().out, re.M).group(1)
    bin_dir = str(Path(sys.executable).parent)
    run = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"],
                              "GAMECHIP_BUILD": str(tmp_path / "build")})
    assert run.returncode == 1 and "MISMATCH in " in run.stderr, f"$ {command}\n{run.stderr[-3000:]}"


def test_a_corpus_without_planted_bugs_is_one_line_and_status_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(corpus, "CORPUS", tmp_path)
    assert main(["plant", "--list"]) == 2
    err = capsys.readouterr().err
    assert f"no case of the corpus {tmp_path} names a planted bug" in err and len(err.strip().splitlines()) == 1
