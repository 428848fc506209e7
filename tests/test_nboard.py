"""``gamechip nboard`` (gamechip/games/nboard.py), ``gamechip match`` (gamechip/games/match.py) and
GGF/OBF records (golden/contest/ggf.py).

The NBoard sessions follow the command table of the protocol's text (NTest's
instructions/Protocol.htm: nboard, set depth, set game, move, hint, go, ping, learn); every answer
is compared with the golden model computed here (the book, the search). The matches are short:
``gamechip nboard`` at a small budget against the engines of tests/nboard_engine.py, and every
record is replayed by the rules.
"""

import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.games.match import elo, elo_summary, pair_stats, sprt
from gamechip.games.nboard import GoldenBackend, NBoardEngine
from golden.board import parse_board, parse_game_record, parse_square, popcount, square_name, squares_of, start_position
from golden.contest.ggf import GgfError, format_ggf, parse_ggf, parse_ggf_games, parse_obf
from golden.openings import book_move
from golden.othello import game_over, legal_moves, play
from golden.search import MAX_DEPTH, minimax, search_events

ROOT = Path(__file__).resolve().parent.parent
ENGINE = f"{sys.executable} {ROOT / 'tests' / 'nboard_engine.py'}"
GAMECHIP = f"{sys.executable} -m gamechip nboard --budget 2000"
BUDGET = 2000
START_BO = "8 ---------------------------O*------*O--------------------------- *"


def session(lines, budget=BUDGET):
    """The engine's answers (stdout lines) and diagnostics (stderr lines) for ``lines``."""
    out, err = [], []
    status = NBoardEngine(GoldenBackend(budget), out.append, err.append).run(lines)
    return status, out, err


def squares(record):
    return parse_game_record(record)


def position_after(record):
    position = start_position()
    for square in squares(record):
        position = play(position, square)
    return position


def test_a_session_from_the_protocols_command_table_gets_the_answers_it_specifies():
    game = f"(;GM[Othello]PC[NBoard]PB[human]PW[gamechip]RE[?]TI[5:00]TY[8]BO[{START_BO}]B[F5]W[F6]B[E6];)"
    status, out, err = session(["nboard 2", "set depth 6", "set contempt 0", f"set game {game}", "ping 1", "hint 2",
                                "go", "move F4/0.5/1.2", "ping 2", "hint 1", "go", "learn", "quit", "go"])
    assert status == 0 and err == []
    book = square_name(book_move(squares("f5f6e6")))          # white to move, in the book
    # hint 2: the book move, then the best other move, valued at the depth the search reaches here
    depth = search_events(position_after("f5f6e6"), 6, BUDGET).depth
    second = max(((-search_events(play(position_after("f5f6e6"), s), depth - 1).value, -s) for s in
                  squares_of(legal_moves(*own_opp(position_after("f5f6e6")))) if square_name(s) != book))
    after = position_after("f5f6e6f4")                          # F4 leaves the book: the search at depth 6
    searched = search_events(after, 6, BUDGET)
    assert out[:4] == ["set myname gamechip", "pong 1", "status Analyzing", f"book {book} 0 0 0 book"]
    assert out[4].startswith(f"search {square_name(-second[1])} {second[0]} 0 {depth} ") and out[5] == "status"
    assert out[6].startswith("nodestats 0 ") and out[7].startswith(f"=== {book}/0/")
    assert out[8] == "pong 2" and out[9] == "status Analyzing"
    assert out[10].startswith(f"search {searched.best_text} {searched.value} 0 {searched.depth} ")
    assert out[11] == "status"
    assert out[12] == f"nodestats {searched.nodes} " + out[12].split()[-1]
    assert out[13].startswith(f"=== {searched.best_text}/{searched.value}/")
    assert out[14:] == ["learned"]   # nothing after quit


def own_opp(position):
    return position.own, position.opp


def hint_lines(out):
    """The search/book lines of one hint's answer: (move, eval, depth), checked against the
    protocol's form: ``search {pv} {eval} 0 {depth} {freeform}``, pv starting with the move, eval
    a double, depth starting with an integer."""
    assert out[0] == "status Analyzing" and out[-1] == "status", out
    lines = []
    for line in out[1:-1]:
        kind, pv, evaluation, games, depth, *_ = line.split()
        assert kind == "search" and games == "0" and (pv[:2] == "PA" or parse_square(pv[:2]) is not None), line
        lines.append((pv[:2], float(evaluation), int(depth)))
    return lines


def test_hint_n_answers_the_top_n_moves_best_first_with_their_negamax_values():
    # out of the book: the processor's move first, then the others by value; every value is the
    # plain negamax (no pruning) of the position after the move, one ply less deep than the search
    game = f"(;GM[Othello]BO[{START_BO}]B[F5]W[D6]B[C3]W[D3]B[C4]W[F4]B[F6]W[F3]B[E6]W[E7];)"
    position = position_after("f5d6c3d3c4f4f6f3e6e7")
    legal = squares_of(legal_moves(position.own, position.opp))
    for count in (1, 3, len(legal) + 5):
        status, out, err = session(["set depth 3", f"set game {game}", f"hint {count}"], budget=300)
        assert status == 0 and err == []
        lines = hint_lines(out)
        top = search_events(position, 3, 300)
        assert len(lines) == min(count, len(legal)) and len({move for move, _, _ in lines}) == len(lines)
        assert lines[0] == (top.best_text, top.value, top.depth)
        negamax = {square_name(s): -minimax(play(position, s), top.depth - 1) for s in legal}
        assert all(value == negamax[move] and depth == top.depth for move, value, depth in lines)
        assert [value for _, value, _ in lines] == sorted(negamax.values(), reverse=True)[:len(lines)]


def test_hint_at_a_pass_is_pa_with_the_positions_value_and_a_finished_game_has_no_move():
    passed = parse_board("X" + "O" * 55 + "-XXXXXX-" + " O")   # white to move, no move, black has one
    bo = "8 " + "".join("*" if passed.black >> s & 1 else "O" if passed.white >> s & 1 else "-"
                        for s in range(64)) + " O"
    status, out, err = session(["set depth 2", f"set game (;GM[Othello]BO[{bo}];)", "hint 4"])
    expected = search_events(passed, 2, BUDGET)
    assert status == 0 and err == [] and expected.best is None
    assert hint_lines(out) == [("PA", expected.value, expected.depth)]
    assert expected.value == -minimax(passed.swap_side(), 1)
    full = "8 " + "*" * 64 + " O"
    status, out, err = session([f"set game (;GM[Othello]BO[{full}];)", "hint 2", "hint lots"])
    assert status == 0 and out == ["status Analyzing", "status"] * 2
    assert err == ["gamechip nboard: hint 'lots': not a number of moves: the top move only"]


def test_passes_and_a_position_from_elsewhere_go_to_the_search_and_a_forced_pass_is_pa():
    # white has no move after these discs: black to move, then white must pass
    board = parse_board("XXXXXXXX" * 6 + "XXXXXXOO" + "XXXXXX--" + " X")
    bo = "8 " + "".join("*" if board.black >> s & 1 else "O" if board.white >> s & 1 else "-" for s in range(64)) + " *"
    status, out, err = session([f"set game (;GM[Othello]BO[{bo}];)", "go"])
    expected = search_events(board, MAX_DEPTH, BUDGET)
    assert status == 0 and err == [] and out[-1].startswith(f"=== {expected.best_text}/")
    # a game whose moves include a pass: the position after it, searched (no book after a pass)
    passed = parse_board("X" + "O" * 55 + "-XXXXXX-" + " O")
    assert not legal_moves(passed.own, passed.opp) and legal_moves(passed.opp, passed.own)
    bo = "8 " + "".join("*" if passed.black >> s & 1 else "O" if passed.white >> s & 1 else "-"
                        for s in range(64)) + " O"
    status, out, err = session([f"set game (;GM[Othello]BO[{bo}]W[PA];)", "go", "hint 1",
                                "set game (;GM[Othello]BO[" + bo + "];)", "go"])
    black_to_move = passed.swap_side()
    expected = search_events(black_to_move, MAX_DEPTH, BUDGET)
    assert out[1].startswith(f"=== {expected.best_text}/") and out[3].startswith(f"search {expected.best_text} ")
    assert out[-1].startswith("=== PA//")   # forced: no eval


def test_garbage_lines_are_ignored_and_bad_games_and_moves_change_nothing():
    status, out, err = session(["", "   ", "\x00\xff garbage", "set", "set game", "set game (;GM[Go];)",
                                "set game (;B[A1];)", "set depth lots", "move Z9", "move A1", "hint", "blah blah",
                                "ping", "go"])
    assert status == 0
    assert len(err) == 6 and all(line.startswith("gamechip nboard: ") and "\n" not in line for line in err), err
    assert "GM[Go] is not Othello" in err[1] and "black's move A1 is not legal" in err[2]
    assert out[-1].startswith("=== " + square_name(book_move([])) + "/")   # still the start position
    assert "pong" in out


def test_the_engine_process_answers_and_ends_cleanly_at_end_of_input():
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", "2000"], cwd=ROOT,
                         input="nboard 2\ngarbage \x01\nping 7\nset game (;GM[Othello];)\ngo\n", capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:2] == ["set myname gamechip", "pong 7"]
    assert run.stdout.splitlines()[-1].startswith("=== ") and "Traceback" not in run.stderr


@pytest.mark.skipif(shutil.which("pypy3") is None, reason="PyPy is not installed: no second interpreter to compare")
def test_the_golden_backend_runs_on_pypy_from_20k_cycles_and_answers_as_on_cpython():
    bo = "8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *"
    game = f"(;GM[Othello]BO[{bo}]B[F5]W[D6]B[C3]W[D3]B[C4]W[F4]B[F6]W[F3]B[E6]W[E7];)"
    position = position_after("f5d6c3d3c4f4f6f3e6e7")
    for budget, interpreter in ((20_000, "PyPy"), (2000, "CPython")):   # below 20k CPython starts sooner
        run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", str(budget)], cwd=ROOT,
                             input=f"set game {game}\nhint 1\ngo\n", capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, GAMECHIP_GOLDEN_PYTHON="pypy"))
        expected = search_events(position, MAX_DEPTH, budget)   # here, on CPython
        assert run.returncode == 0 and run.stderr == "", run.stderr
        assert run.stdout.splitlines()[1] == (f"search {expected.best_text} {expected.value} 0 {expected.depth} "
                                              f"{expected.nodes} nodes, golden processor ({interpreter})")
        assert run.stdout.splitlines()[-1].startswith(f"=== {expected.best_text}/{expected.value}/")


@pytest.mark.parametrize("budget", [2000, 20_000])   # CPython in this process; from 20k on PyPy when installed
def test_the_golden_backend_searches_with_the_pattern_weight_file_given(budget, tmp_path):
    from golden.patterns import PatternWeights, WEIGHT_MAX, default_weights, format_weights

    committed = default_weights()
    negated = PatternWeights(committed.stage_limits, tuple(tuple(tuple(min(-w, WEIGHT_MAX) for w in table)
                                                                 for table in stage) for stage in committed.tables))
    (tmp_path / "negated.txt").write_text(format_weights(negated))
    bo = "8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *"
    game = f"(;GM[Othello]BO[{bo}]B[F5]W[D6]B[C3]W[D3]B[C4]W[F4]B[F6]W[F3]B[E6]W[E7];)"
    position = position_after("f5d6c3d3c4f4f6f3e6e7")
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", str(budget), "--evaluator",
                          "pattern", "--pattern-weights", str(tmp_path / "negated.txt")], cwd=ROOT,
                         input=f"set game {game}\nhint 1\n", capture_output=True, text=True, timeout=120)
    expected = search_events(position, MAX_DEPTH, budget, pattern=negated)
    committed_value = search_events(position, MAX_DEPTH, budget, pattern=committed).value
    assert expected.value != committed_value   # the two files give this search different values
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.splitlines()[1].startswith(f"search {expected.best_text} {expected.value} 0 {expected.depth} "
                                                 f"{expected.nodes} nodes, golden processor")


def test_nboard_with_a_golden_interpreter_that_does_not_start_is_one_line_and_status_2():
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", "20k"], cwd=ROOT, input="go\n",
                         capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, GAMECHIP_GOLDEN_PYTHON=str(ROOT / "no-such-python")))
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.startswith("gamechip nboard: error: the golden interpreter ") and len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize("options, empties", [([], None), (["--solve-empties", "6"], "6"),
                                               (["--solve-empties", "0"], "0"), (["--engines", "2"], None)])
def test_nboard_starts_the_golden_interpreter_with_the_users_options(tmp_path, options, empties):
    """From 20k cycles the golden backend runs again on the golden interpreter (PyPy): the
    options must reach it as the user gave them (a dropped --solve-empties would play with the
    design's 14; one the user did not give would be refused with --engines K)."""
    argv = tmp_path / "argv"
    spy = tmp_path / "python"
    spy.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {argv}\n")
    spy.chmod(0o755)
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", "20k", *options], cwd=ROOT,
                         input="", capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, GAMECHIP_GOLDEN_PYTHON=str(spy)))
    assert run.returncode == 0, run.stderr
    started = argv.read_text().split()
    assert started[:3] == ["-m", "gamechip", "nboard"], started
    assert started[started.index("--budget") + 1] == "20000", started
    given = started[started.index("--solve-empties") + 1] if "--solve-empties" in started else None
    assert given == empties, started
    assert started[started.index("--engines") + 1] == (options[1] if options[:1] == ["--engines"] else "1"), started


def test_nboard_with_k_engines_runs_on_the_golden_interpreter():
    """The K-engine golden backend started again on the golden interpreter (PyPy from 20k cycles)
    answers the protocol, not a refusal of an option it was not given."""
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", "20k", "--engines", "2"], cwd=ROOT,
                         input="nboard 2\nping 7\nquit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.splitlines() == ["set myname gamechip", "pong 7"], run.stdout + run.stderr


def test_nboard_bad_options_are_one_line(capsys):
    for argv, expected in ((["--budget", "2k", "--sim", "icarus", "--port", "loop://"], "choose one"),
                           (["--budget", "2k", "--timeout", "5"], "--timeout needs --port"),
                           (["--budget", "2k", "--contexts", "2", "--port", "loop://"], "golden backend"),
                           (["--budget", "2k", "--port", "/dev/gamechip-no-such-port"], "cannot open the port"),
                           (["--budget", "2k", "--pattern-weights", str(ROOT / "golden/pattern_weights.txt")],
                            "--pattern-weights goes with --evaluator pattern"),
                           (["--budget", "2k", "--evaluator", "pattern", "--pattern-weights", str(ROOT / "README.md")],
                            "not a pattern weight file"),
                           (["--budget", "2k", "--evaluator", "pattern", "--sim", "icarus", "--pattern-weights",
                             str(ROOT / "golden/pattern_weights.txt")], "--pattern-weights is golden only")):
        assert main(["nboard", *argv]) == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err


# --- GGF and OBF ----------------------------------------------------------------------------------

def test_ggf_written_is_read_back_with_passes_evals_and_escapes():
    board = parse_board("X" + "O" * 55 + "-XXXXXX-" + " O")
    text = format_ggf([None, 56], "a]b", "c\\d", start=board, comment="end; of ;) game")
    game = parse_ggf(text)
    assert game.black_name == "a]b" and game.white_name == "c\\d" and game.tags["GC"] == "end; of ;) game"
    assert [m.text for m in game.moves] == ["PA", "A8"] and game.start == board
    assert parse_ggf_games(text + "\n" + text)[1].final == game.final


@pytest.mark.parametrize("text, expected", [
    ("(;GM[Othello]B[F5]", "has no end ';)'"),
    ("nonsense", "expected '(;' at character 1"),
    ("(;GM[chess];)", "is not Othello"),
    ("(;B[F5]B[D6];)", "move 2: B[D6] but white is to move"),
    ("(;B[PA];)", "black passes with a legal move"),
    ("(;BO[8 --- *];)", "needs 64 squares"),
    ("(;B[F5/x];)", "is not a number"),
])
def test_malformed_ggf_is_one_line(text, expected):
    with pytest.raises(GgfError) as error:
        parse_ggf(text)
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_obf_positions_are_read():
    position = parse_obf("---------------------------OX------XO--------------------------- X; C4:+2; % start")
    assert position == start_position()
    with pytest.raises(GgfError, match="OBF: expected 64 squares"):
        parse_obf("XO X;")


@pytest.mark.parametrize("form", ["ggf", "obf"])
def test_show_takes_a_ggf_game_or_an_obf_position_as_its_board(form, capsys, tmp_path):
    after = position_after("f5d6c3")
    text = format_ggf(squares("f5d6c3")) if form == "ggf" else after.text() + ";"
    assert main(["show", "--board", text]) == 0
    shown = capsys.readouterr().out
    path = tmp_path / f"game.{form}"
    path.write_text(text + "\n")
    assert main(["show", "--board", str(path)]) == 0
    assert capsys.readouterr().out == shown
    assert f"X {popcount(after.black)}, O {popcount(after.white)}" in shown


def test_show_with_a_malformed_ggf_is_one_line_and_status_2(capsys):
    assert main(["show", "--board", "(;GM[Othello]B[A1];)"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamechip show: error: GGF game 1, move 1: black's move A1 is not legal")
    assert len(err.strip().splitlines()) == 1


# --- matches --------------------------------------------------------------------------------------

def replayed(path):
    """The record at ``path`` replayed by the rules (parse_ggf checks every move): the game."""
    return parse_ggf(path.read_text())


def test_elo_and_sprt():
    assert elo(0.5) == 0 and round(elo(0.75), 1) == 190.8 and elo(1.0) == math.inf
    records = [{"black": "a", "white": "b", "winner": w} for w in ["black"] * 90 + ["white"] * 30]
    stats = pair_stats(records, "a", "b")
    assert (stats["wins"], stats["losses"], stats["score"]) == (90, 30, 0.75)
    assert stats["elo_low"] < stats["elo"] < stats["elo_high"]
    assert sprt(stats, 0, 50)[3] == "H1 accepted" and sprt(stats, 250, 400)[3] == "H0 accepted"
    assert sprt(pair_stats(records[:4], "a", "b"), 0, 50)[3] is None   # too few games to decide
    # every game won: no spread of its own; the test's one more win and loss give it one
    assert sprt(pair_stats(records[:20], "a", "b"), 0, 50)[3] == "H1 accepted"
    assert sprt(pair_stats(records[:4], "a", "b"), 0, 50)[3] is None


def test_a_pair_with_every_game_won_or_lost_shows_its_exact_95_percent_bound_not_infinity():
    # the exact (Clopper-Pearson) 95 % interval of n wins in n games, as R's binom.test(n, n) gives
    # it: [0.3976354, 1] for 4 of 4, [0.8315665, 1] for 20 of 20
    for wins, losses, p in ((4, 0, 0.3976354), (0, 4, 0.3976354), (20, 0, 0.8315665)):
        records = [{"black": "a", "white": "b", "winner": w} for w in ["black"] * wins + ["white"] * losses]
        stats = pair_stats(records, "a", "b")
        games = wins + losses
        bound = round(-400 * math.log10(1 / p - 1))
        text = elo_summary(stats)
        if wins:
            assert round(stats["elo_low"]) == bound and stats["elo_high"] == math.inf
            assert text == f"> {bound:+d} (all {games} games won: no finite estimate; 95 % lower bound)"
        else:
            assert round(stats["elo_high"]) == -bound and stats["elo_low"] == -math.inf
            assert text == f"< {-bound:+d} (all {games} games lost: no finite estimate; 95 % upper bound)"
        assert "inf" not in text
    assert (bound, elo_summary(pair_stats(records[:4], "a", "b"))[:5]) == (277, "> -72")
    mixed = pair_stats([{"black": "a", "white": "b", "winner": w} for w in ("black",) * 3 + ("white",)], "a", "b")
    assert elo_summary(mixed) == "+191 (95 % interval -126 .. +inf)"


def test_a_short_match_against_a_small_engine_writes_legal_records_and_resumes(capsys, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("# one opening\nf5d6c3  # with a comment\n")
    out = tmp_path / "match"
    argv = ["match", "--engine", f"gc={GAMECHIP}", "--engine", f"greedy={ENGINE} greedy", "--openings",
            str(openings), "--out", str(out), "--jobs", "2", "--depth", "3"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Score of gc vs greedy: " in printed and "Elo difference: " in printed
    results = json.loads((out / "results.json").read_text())
    assert [p["games"] for p in results["pairs"]] == [2]
    records = sorted(out.glob("*.ggf"))
    assert [r.name for r in records] == ["gc-vs-greedy-opening001.ggf", "greedy-vs-gc-opening001.ggf"]
    for path in records:
        game = replayed(path)
        final = game.final
        assert game_over(final) and game.tags["GC"] == "end of game"
        assert float(game.tags["RE"]) == popcount(final.black) - popcount(final.white)
        assert [m.text for m in game.moves[:3]] == ["F5", "D6", "C3"]
    records[0].unlink()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "2 games (1 kept from the records" in err and "[1/1]" in err
    assert json.loads((out / "results.json").read_text())["pairs"][0]["games"] == 2
    # the folder resumes only its own match
    assert main([*argv[:-2], "--depth", "4"]) == 2
    assert capsys.readouterr().err.strip() == f"gamechip match: error: {out} holds a match with other depth: resume " \
                                              f"it with the same settings, or give another --out"


def test_an_engine_that_crashes_hangs_or_plays_illegally_loses_its_game_and_the_match_goes_on(capsys, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("f5d6c3\n")
    out = tmp_path / "match"
    assert main(["match", "--engine", f"rnd={ENGINE} random 5", "--engine", f"crash={ENGINE} crash",
                 "--engine", f"hang={ENGINE} hang", "--engine", f"bad={ENGINE} illegal", "--openings", str(openings),
                 "--out", str(out), "--jobs", "2", "--time", "0.5", "--games", "1"]) == 0
    games = {(g["black"], g["white"]): g for g in json.loads((out / "results.json").read_text())["games"]}
    assert len(games) == 6
    reasons = {
        ("rnd", "crash"): "crash crashed (exit status 7); its last words: the crashing engine gives up",
        ("rnd", "hang"): "hang answered nothing to go (move 4) within 0.5 s",
        ("rnd", "bad"): "bad answered an illegal move 'A1': white's move A1 is not legal",
    }
    for pair, reason in reasons.items():
        game = games[pair]
        assert game["winner"] == "black" and game["reason"].startswith(reason), game
        record = replayed(out / game["record"])
        assert record.tags["RE"] == "+64:r" and record.tags["GC"].startswith(reason)
    # after the three-move opening white moves first: hang, as white, hangs before crash is asked
    assert games[("crash", "hang")]["winner"] == "black"


@pytest.mark.parametrize("argv, expected", [
    (["--engine", "a=x"], "a match needs two --engine NAME=COMMAND at least"),
    (["--engine", "a=x", "--engine", "nameless"], "--engine takes NAME=COMMAND, got 'nameless'"),
    (["--engine", "a=x", "--engine", "a=y"], "two engines are named 'a'"),
    (["--engine", "a/b=x", "--engine", "c=y"], "letters, digits and . _ + - only, got 'a/b'"),
    (["--engine", "a=x", "--engine", "b=y", "--sprt", "5", "0"], "--sprt needs elo0 < elo1"),
    (["--engine", "a=x", "--engine", "b=y", "--openings", "/no/such/file"], "cannot read the openings"),
])
def test_match_bad_input_is_one_line_and_status_2(argv, expected, capsys, tmp_path):
    assert main(["match", *argv, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err


def test_match_with_an_illegal_opening_or_an_engine_that_cannot_start(capsys, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("f5d6c3\nf5a1\n")
    assert main(["match", "--engine", "a=x", "--engine", "b=y", "--openings", str(openings)]) == 2
    assert "openings.txt:2: not an opening: white's move A1 is not legal" in capsys.readouterr().err
    assert main(["match", "--engine", f"rnd={ENGINE} random", "--engine", "none=/no/such/engine",
                 "--out", str(tmp_path / "m")]) == 3
    err = capsys.readouterr().err
    assert "gamechip match: none did not start" in err and len(err.strip().splitlines()) == 1, err


def test_the_shipped_openings_are_legal_distinct_and_say_how_they_were_made():
    from golden.contest.balanced_openings import OPENINGS_FILE
    from gamechip.games.match import read_openings

    openings = read_openings()
    assert len(openings) >= 40
    assert "# Made by: gamechip openings" in OPENINGS_FILE.read_text() and "# Judge: " in OPENINGS_FILE.read_text()
    assert len({tuple(moves) for _, moves in openings}) == len(openings)


# --- GGF records of play and tournament -------------------------------------------------------------

def test_play_writes_a_ggf_record_beside_its_record(capsys, tmp_path):
    record = tmp_path / "game.txt"
    assert main(["play", "--budget", "300", "--level", "1", "--color", "white", "--record", str(record)]) == 0
    assert f"(GGF: {tmp_path / 'game.ggf'})" in capsys.readouterr().out
    game = replayed(tmp_path / "game.ggf")
    moves, score = record.read_text().splitlines()[:2]
    assert "".join(m.text.lower() for m in game.moves if m.square is not None) == moves
    assert score == f"black {popcount(game.final.black)} white {popcount(game.final.white)}"
    assert game.white_name == "processor (budget 300)" and game.black_name == "reference level 1"
    assert game_over(game.final) and game.tags["GC"] == "end of game"


@pytest.mark.full   # a few seconds of worker processes; play's GGF test stands for it by default
def test_tournament_writes_a_ggf_record_of_every_game(capsys, tmp_path):
    assert main(["tournament", "--budget", "300", "--levels", "1", "--jobs", "1", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    played = {g["processor_color"]: g for g in json.loads((tmp_path / "games.json").read_text())}
    for color in ("black", "white"):
        game = replayed(tmp_path / "games" / f"level1-processor-{color}.ggf")
        assert "".join(m.text.lower() for m in game.moves if m.square is not None) == played[color]["record"]


def test_a_served_games_moves_are_rebuilt_from_its_messages():
    from golden.contest.referee import moves_of_exchanges

    # the processor white: F5 from the client, its replies; then a message that is no move ends it
    assert moves_of_exchanges([("F5", "D6"), ("C3", "D3"), ("ZZ", "C4")]) == squares("f5d6c3d3")
    # the processor black; an illegal reply ends the game there
    assert moves_of_exchanges([("YY", "F5"), ("D6", "A1"), ("C3", "D3")]) == squares("f5d6")
    # a pass by the client (RR) and the processor's VV at the end of the game
    board_full = moves_of_exchanges([("YY", "F5"), ("RR", "VV")])
    assert board_full == squares("f5")   # RR with a legal move for white: not a pass, the game stops


def test_replay_of_a_ggf_record_replays_every_move_and_a_bad_one_is_one_line(capsys, tmp_path):
    good, bad = tmp_path / "game.ggf", tmp_path / "bad.ggf"
    good.write_text(format_ggf(squares("f5d6c3"), "a", "b", comment="so far") + "\n")
    bad.write_text("(;GM[Othello]B[F5]W[F6]B[A1];)\n")
    assert main(["replay", str(good)]) == 0
    out = capsys.readouterr().out
    assert "1. black plays F5" in out and "3. black plays C3" in out and "; so far" in out
    after = position_after("f5d6c3")
    assert f"final: black {popcount(after.black)} white {popcount(after.white)}" in out
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == "gamechip replay: error: GGF game 1, move 3: black's move A1 is not legal (legal: " + \
        err.split("(legal: ")[1] and len(err.splitlines()) == 1


@pytest.mark.full
def test_nboard_on_a_simulated_engine_checks_every_node_of_its_search(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gamechip", "nboard", "--budget", "3000", "--sim", "icarus",
                          "--cases", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=1800,
                         input="nboard 2\nset depth 3\nset game (;GM[Othello]B[F5]W[D6]B[C3]W[F4];)\ngo\n")
    assert run.returncode == 0, run.stderr
    expected = search_events(position_after("f5d6c3f4"), 3, 3000)
    assert run.stdout.splitlines()[-1].startswith(f"=== {expected.best_text}/{expected.value}/")
    assert (tmp_path / "search-001.json").exists()


@pytest.mark.full   # 5-8 s of engine processes; the short match's resume from its records stands for it
def test_ctrl_c_stops_a_match_keeping_its_finished_games_and_it_resumes(tmp_path):
    import signal
    import time

    openings = tmp_path / "openings.txt"
    openings.write_text("f5d6c3\n")
    out = tmp_path / "match"
    argv = [sys.executable, "-m", "gamechip", "match", "--engine", f"rnd={ENGINE} random", "--engine",
            f"grd={ENGINE} greedy", "--engine", f"hang={ENGINE} hang", "--openings", str(openings), "--games", "1",
            "--jobs", "1", "--out", str(out)]
    process = subprocess.Popen(argv + ["--time", "60"], cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + 60
    while not (out / "rnd-vs-grd-opening001.ggf").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)   # the next game, against the hanging engine, is on
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert f"match interrupted: 1 games kept in {out}; run the same command with --out {out} to resume" in err
    assert "Traceback" not in err and sorted(p.name for p in out.glob("*.ggf")) == ["rnd-vs-grd-opening001.ggf"]
    resumed = subprocess.run(argv + ["--time", "0.5"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0 and "3 games (1 kept from the records" in resumed.stderr, resumed.stderr
    assert len(json.loads((out / "results.json").read_text())["games"]) == 3
