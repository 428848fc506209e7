"""Shrinking failing cases (tb/host/shrink.py), the regression corpus (tb/host/corpus.py, tb/cases/) and
their commands.

The reductions and the round loop are checked in Python with a stand-in for the simulator; one
planted bug goes the whole way on Icarus: a campaign finds it, the shard shrinks the case and
keeps the original, and the corpus test fails on the broken RTL with the shrunk board and passes
on the real one.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from golden.board import START, Position, parse_board, popcount
from golden.ordering import ordered_moves
from golden.othello import play
from tb.host import corpus
from tb.host import shrink as shrink_module
from tb.sim.batch import Case
from tb.host.casefile import read_case_file
from tb.host.shrink import (DiscRemoval, LegalBitRemoval, MovePrefixes, ShrinkError, partition_removals, reduction_for,
                       shrink_record)
from tests.test_mutants import MUTANTS, mutant_root

ROOT = Path(__file__).resolve().parent.parent
SEEDED = corpus.corpus_files(ROOT / "tb" / "cases")


def gamechip(*args, env=None):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def discs(record):
    position = parse_board(record["case"]["board"], record["case"].get("size", 8))
    return popcount(position.black | position.white)


# --- reductions ------------------------------------------------------------------------------

def test_removals_go_from_halves_down_to_single_parts():
    removals = partition_removals(range(8))
    assert removals[:2] == [frozenset(range(4, 8)), frozenset(range(4))]  # keep one half; drop one half
    assert removals[2:4] == [frozenset(range(2, 8)), frozenset(range(2))]  # keep one quarter; drop one quarter
    assert {r for r in removals if len(r) == 1} == {frozenset({i}) for i in range(8)}
    assert len(set(removals)) == len(removals) and frozenset(range(8)) not in removals
    assert partition_removals([5]) == [frozenset({5})] and partition_removals([]) == []


def test_disc_removal_keeps_the_moved_square_and_the_side_to_move():
    position = parse_board("XO" + "-" * 61 + "O O")  # A1 X, B1 O, H8 O; O to move
    case = Case(position, "t", move=63)  # a move onto an occupied square stays one
    reduction = reduction_for("disc_flipper", case)
    assert isinstance(reduction, DiscRemoval) and reduction.parts(case) == [0, 1] and reduction.size(case) == 3
    smaller = reduction.without(case, {0})
    assert smaller.position == Position(0, (1 << 1) | (1 << 63), True) and smaller.move == 63


def test_node_order_reduction_walks_the_smaller_vector_on_an_empty_board():
    legal = (1 << 0) | (1 << 9) | (1 << 27)
    case = Case(START, "t", legal=legal, pv=27, moves=tuple(ordered_moves(legal, 27)))
    reduction = reduction_for("node_order", case)
    assert isinstance(reduction, LegalBitRemoval) and reduction.parts(case) == [0, 9, 27, "pv"]
    smaller = reduction.without(case, {0, "pv"})
    assert smaller.legal == (1 << 9) | (1 << 27) and smaller.pv is None
    assert smaller.moves == tuple(ordered_moves(smaller.legal)) and smaller.position.black == smaller.position.white == 0


def test_openings_candidates_are_the_shorter_games():
    moves = (37, 43, 18)  # f5 d6 c3
    case = Case(START, "t", moves=moves)
    reduction = reduction_for("openings", case)
    assert isinstance(reduction, MovePrefixes)
    candidates = reduction.candidates(case)
    assert [c.moves for c in candidates] == [(), (37,), (37, 43)]
    assert candidates[0].position == START and candidates[2].position == play(play(START, 37), 43)


def test_a_block_whose_cases_carry_moves_needs_its_own_reduction():
    with pytest.raises(ShrinkError, match="shrinking is not supported for block 'a_new_block'"):
        reduction_for("a_new_block", Case(START, "t", moves=(37,)))


# --- the rounds, with a stand-in for the simulator -------------------------------------------

RECORD = {"block": "move_checker", "design": "move_checker", "sim": "icarus", "seed": 1,
          "expected": "1", "actual": "2"}


def fake_simulator(monkeypatch, fails):
    """Candidates fail when ``fails(case)``; counts the simulations in ``runs``."""
    runs = []

    def run_batch(record, cases, tag, rtl_root=None):
        runs.append(len(cases))
        return [{"match": not fails(c), "expected": "'e'", "actual": "'a'"} for c in cases]

    def run_record(record, name, tag, rtl_root=None):
        failing = fails(Case.from_dict(record["case"]))
        return SimpleNamespace(passed=not failing, result={"failure": "MISMATCH ...\ncase file: x\nboard: b"})

    monkeypatch.setattr("tb.host.shrink.run_batch", run_batch)
    monkeypatch.setattr("tb.host.runner.run_case_record", run_record)
    return runs


def test_rounds_end_with_no_removable_disc(monkeypatch):
    needed = (1 << 10) | (1 << 50)  # the "bug" needs the discs on C2 and C7
    position = Position(0x00FF00FF00FF00FF | needed, 0xFF00FF00FF00FF00 & ~needed)
    runs = fake_simulator(monkeypatch, lambda c: (c.position.black & needed) == needed)
    lines = []
    shrunk = shrink_record({**RECORD, "case": Case(position, "fuzz #1").to_dict()}, Case(position, "fuzz #1"),
                           progress=lines.append)
    assert shrunk.before == 64 and shrunk.after == 2 and shrunk.smaller
    assert shrunk.record["case"]["board"] == "-" * 10 + "X" + "-" * 39 + "X" + "-" * 13 + " X"
    assert len(runs) == len(shrunk.rounds) == len(lines) <= 3  # one simulation per round
    assert lines[0].startswith("shrink round 1: ") and "candidates tried" in lines[0]
    history = shrunk.record["shrink"]
    assert history["from"] == 64 and history["to"] == 2 and history["original"]["case"]["board"] == \
        Case(position, "x").to_dict()["board"] and [r["round"] for r in history["rounds"]] == list(range(1, len(runs) + 1))
    assert "case file:" not in shrunk.message and "shrunk from 64 to 2 discs" in shrunk.record["case"]["label"]


def test_a_case_that_passes_alone_is_not_shrunk(monkeypatch):
    fake_simulator(monkeypatch, lambda c: False)
    with pytest.raises(ShrinkError, match="does not fail when run on its own"):
        shrink_record({**RECORD, "case": Case(START, "t").to_dict()}, Case(START, "t"), progress=lambda line: None)


def test_a_deadline_keeps_the_smallest_failing_case_so_far(monkeypatch):
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr("tb.host.shrink.time", SimpleNamespace(time=lambda: clock.now, monotonic=lambda: clock.now))
    fake_simulator(monkeypatch, lambda c: c.position.black & 1)
    fast = shrink_module.run_batch

    def slow(*args, **kwargs):  # every simulation takes 10 s
        clock.now += 10
        return fast(*args, **kwargs)

    monkeypatch.setattr("tb.host.shrink.run_batch", slow)
    position = Position(0xFF, 0xFF00)
    record, case = {**RECORD, "case": Case(position, "t").to_dict()}, Case(position, "t")
    shrunk = shrink_record(record, case, progress=lambda line: None, deadline=25.0)
    assert len(shrunk.rounds) == 1 and shrunk.stopped == "out of time" and shrunk.smaller
    assert shrunk.record["shrink"]["stopped"] == "out of time" and "stopped early: out of time" in shrunk.summary()
    with pytest.raises(ShrinkError, match="no time left"):
        shrink_record(record, case, progress=lambda line: None, deadline=clock.now - 1)


# --- never losing the failure ---------------------------------------------------------------

def test_fuzz_keeps_the_case_as_found_when_the_shrinker_breaks(monkeypatch, tmp_path, capsys):
    from gamechip.cli.cases import shrink_saved_case as _shrink_saved_case

    case_file = tmp_path / "gamechip_failure.json"
    text = SEEDED[0].read_text()
    case_file.write_text(text)

    def broken(*args, **kwargs):
        raise RuntimeError("shrinker bug")

    monkeypatch.setattr("tb.host.shrink.shrink_record", broken)
    assert _shrink_saved_case(case_file) == case_file and case_file.read_text() == text
    assert "not shrunk: the shrinker failed (RuntimeError('shrinker bug')); keeping the case as found" in \
        capsys.readouterr().err


def test_campaign_shard_keeps_the_case_as_found_when_the_shrinker_breaks(monkeypatch, tmp_path):
    from gamechip.campaign.shards import shrink_failure

    case = json.loads(SEEDED[0].read_text())

    def broken(*args, **kwargs):
        raise RuntimeError("shrinker bug")

    monkeypatch.setattr("tb.host.shrink.shrink_record", broken)
    record = shrink_failure({"case": case, "log": str(tmp_path / "gamechip.log")}, "campaign-s0", 1e12)
    assert record["case"] == case and "original_case" not in record
    assert "not shrunk: the shrinker failed" in record["shrink_error"] and "shrinker bug" in record["shrink_error"]


# --- the corpus -------------------------------------------------------------------------------

def test_seeded_corpus_cases_are_shrunk_and_say_why():
    assert len(SEEDED) >= 3 and len({read_case_file(p)[0]["block"] for p in SEEDED}) == len(SEEDED)
    for path in SEEDED:
        record, _ = read_case_file(path)
        assert record["why"] and "planted bug" in record["why"], path.name
        assert record["shrink"]["to"] < record["shrink"]["from"], path.name
        assert path.name.startswith(f"{record['design']}-{record['sim']}-"), path.name


def test_corpus_add_names_the_case_and_adds_it_once(tmp_path):
    path, added = corpus.add(SEEDED[0], "Some bug: a wrong answer!", folder=tmp_path)
    record, _ = read_case_file(path)
    assert added and path.parent == tmp_path and record["why"] == "Some bug: a wrong answer!"
    assert path.name.startswith(f"{record['design']}-{record['sim']}-some-bug-a-wrong-answer-")
    again, added_again = corpus.add(SEEDED[0], "another reason", folder=tmp_path)
    assert again == path and not added_again and len(corpus.corpus_files(tmp_path)) == 1


def test_malformed_corpus_file_fails_its_own_test_with_one_clear_line(tmp_path):
    (tmp_path / "truncated.json").write_text('{"block": "move_checker", "design"')
    (tmp_path / "alu.json").write_text(json.dumps({**RECORD, "design": "alu", "case": {"board": "x"}}))
    (tmp_path / "bad-board.json").write_text(json.dumps({**RECORD, "case": {"board": "XO X", "label": "t"}}))
    run = subprocess.run([sys.executable, "-m", "pytest", "tb/test_corpus.py", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "GAMECHIP_CORPUS": str(tmp_path), "COLUMNS": "1000"})
    assert run.returncode == 1 and "3 failed" in run.stdout, run.stdout
    summary = [line for line in run.stdout.splitlines() if line.startswith("FAILED ")]
    assert f"test_corpus_case[truncated.json] - Failed: case file {tmp_path / 'truncated.json'} is not JSON" \
        in "\n".join(summary), run.stdout
    assert any("[alu.json] - Failed: case file" in line and "unknown design 'alu'" in line for line in summary)
    assert any("[bad-board.json] - Failed: case file" in line and "bad case: board text" in line for line in summary)
    assert "Traceback" not in run.stdout and "tb/host/corpus.py:" not in run.stdout


@pytest.mark.parametrize("args, expected", [
    (["shrink", "/nonexistent/case.json"], "cannot read case file /nonexistent/case.json: No such file"),
    (["shrink", "{bad}"], "is not JSON"),
    (["shrink", "{alu}"], "unknown design 'alu'"),
    (["corpus", "add", "/nonexistent/case.json", "--why", "x"], "cannot read case file"),
    (["corpus", "add", "{good}", "--why", " "], "--why must say which bug found the case"),
    (["replay", "{bus_gone}"], "the stream file '/nonexistent/stream.hex' it replays does not exist"),
    (["replay", "{bus_test}"], "'test' must be one of register_map"),
    (["shrink", "{bus}"], "shrinking is not supported for block 'evaluator_axi'"),
    (["corpus", "add", "{bus}", "--why", "x"], "the corpus holds cases of the batch blocks and the search engine"),
])
def test_bad_input_is_one_clear_line(tmp_path, capsys, args, expected):
    from gamechip.cli import main

    files = {"{bad}": tmp_path / "bad.json", "{alu}": tmp_path / "alu.json", "{good}": SEEDED[0],
             "{bus}": tmp_path / "bus.json", "{bus_gone}": tmp_path / "bus_gone.json",
             "{bus_test}": tmp_path / "bus_test.json"}
    files["{bad}"].write_text("[1, 2")
    files["{alu}"].write_text(json.dumps({**RECORD, "design": "alu", "case": {"board": "x"}}))
    bus = {**RECORD, "block": "evaluator_axi", "design": "evaluator_axi", "case": {"test": "random_transactions"}}
    files["{bus}"].write_text(json.dumps(bus))
    files["{bus_gone}"].write_text(json.dumps({**bus, "case": {"test": "searches_streamed",
                                                               "stream": "/nonexistent/stream.hex"}}))
    files["{bus_test}"].write_text(json.dumps({**bus, "case": {"test": "fuzz"}}))
    status = main([str(files.get(a, a)) for a in args])  # in this process: no interpreter start per case
    stderr = capsys.readouterr().err
    assert status == 2 and expected in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1


# --- a planted bug, the whole way -------------------------------------------------------------

def test_planted_bug_is_shrunk_by_the_campaign_and_caught_by_the_corpus(tmp_path):
    design, file, *edits = MUTANTS["move_checker capture mask also accepts a lone own disc"]
    rtl = mutant_root(tmp_path, file, *edits)
    out = tmp_path / "run"
    run = gamechip("campaign", "--blocks", "move_checker", "--count", "200", "--shard-size", "200", "--seed", "5",
                   "--jobs", "1", "--out", str(out), env={"GAMECHIP_RTL_ROOT": str(rtl)})
    assert run.returncode == 1, run.stdout + run.stderr
    (entry,) = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert entry["status"] == "fail" and entry["shrink"].startswith("shrunk from"), entry
    shrunk_path, original_path = Path(entry["case"]), Path(entry["original_case"])
    assert original_path == out / "cases" / shrunk_path.name.replace(".json", ".orig.json")
    shrunk, original = json.loads(shrunk_path.read_text()), json.loads(original_path.read_text())
    assert discs(shrunk) < discs(original) and shrunk["expected"] != shrunk["actual"]
    assert shrunk["shrink"]["original"]["case"] == original["case"] and shrunk["shrink"]["rounds"]
    assert f"as found:  {original_path}" in run.stdout and "shrink:    shrunk from" in run.stdout

    case, added = corpus.add(shrunk_path, "capture mask accepts a lone own disc", folder=tmp_path / "corpus")
    assert added
    with pytest.raises(corpus.CorpusRegression) as caught:  # the corpus test, on the broken RTL
        corpus.check_corpus_case(case, rtl_root=rtl)
    report = str(caught.value)
    assert case.name in report and f"board:    {shrunk['case']['board']}" in report
    assert "expected legal:" in report and "actual legal:" in report and "capture mask" in report
    corpus.check_corpus_case(case)  # and on the real RTL it passes


def test_chess_piece_removal_keeps_kings_and_valid_positions():
    import chess

    from golden.chess.movegen import ordered_moves
    from tb.checks.chess_case import ChessCase
    from tb.host.shrink import PieceRemoval
    from tb.checks.chess_case import walk_case

    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    case = walk_case(board, "kiwipete")
    reduction = PieceRemoval()
    assert reduction.size(case) == 32 and len(reduction.parts(case)) == 30
    candidates = reduction.candidates(case)
    assert candidates
    for candidate in candidates:
        smaller = candidate.board
        assert smaller.is_valid() and smaller.king(chess.WHITE) == chess.E1 and smaller.king(chess.BLACK) == chess.E8
        assert candidate.moves == tuple(m.uci() for m in ordered_moves(smaller))  # the walk of the smaller position
        assert smaller.castling_rights == smaller.clean_castling_rights()
    entry = ChessCase(case.fen, "entry", "entry", 0, ("e5f7", "a1b1", "e2a6"))
    without_rook = reduction.without(entry, {chess.A1})
    assert without_rook.moves == ("e5f7", "e2a6")  # a1b1 is gone with the rook
    captures = ChessCase(case.fen, "entry", "entry", 1, ("idle", "a1b1", "e2a6"))
    # captures only after a quiet move of the whole list, and idle steps: both kept
    assert reduction.without(captures, {chess.H1}).moves == ("idle", "a1b1", "e2a6")


def test_repetition_candidates_are_the_shorter_walks():
    from tb.checks.chess_case import ChessCase
    from tb.host.shrink import CommandPrefixes

    case = ChessCase("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "walk", "repetition", 0, ("init", "e1e2", "e8e7", "pop"),
                     (1, 2, 3, 4))
    candidates = CommandPrefixes().candidates(case)
    assert [c.moves for c in candidates] == [("init",), ("init", "e1e2"), ("init", "e1e2", "e8e7")]
    assert [c.dbg for c in candidates] == [(1,), (1, 2), (1, 2, 3)]
