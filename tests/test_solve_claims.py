"""The processor's endgame solve in games (docs/games.md): each game records the first move at which
the processor's solve said it wins or draws, and a tournament checks that no game's result
contradicts it (golden.contest.games solve_claim, claim_contradicted; gamechip tournament's summary)."""

import json
import subprocess
import sys
from pathlib import Path

from golden.contest.games import claim_contradicted, solve_claim
from golden.processor import EXACT, WLD

ROOT = Path(__file__).resolve().parents[1]


def ply(color, move, solved=None, value=0):
    return {"color": color, "move": move, "info": {"source": "search", "solved": solved, "value": value}}


def game(claim, processor_discs, reference_discs, reason="end of game"):
    return {"solve_claim": claim, "processor_discs": processor_discs, "reference_discs": reference_discs,
            "reason": reason}


def test_the_claim_is_the_first_solved_win_or_draw_of_the_processor():
    plies = [ply("X", "c4"), ply("O", "e3", EXACT, 5),          # the reference's: not the processor's
             ply("X", "f6", WLD, -1),                            # a solved loss claims nothing
             ply("O", "e6"), ply("X", "f5", None, 9),            # a midgame value is no solve
             ply("O", "d6"), ply("X", "c5", WLD, 0),             # the first solved draw
             ply("O", "c3"), ply("X", "b4", EXACT, 4)]
    assert solve_claim(plies, "X") == {"ply": 6, "move": "c5", "solved": WLD, "value": 0, "claim": "draw"}
    assert solve_claim(plies[:6], "X") is None
    assert solve_claim(plies, "O")["claim"] == "win"


def test_a_result_worse_than_the_claim_contradicts_it():
    win = {"ply": 50, "move": "a1", "solved": EXACT, "value": 4, "claim": "win"}
    draw = {"ply": 50, "move": "a1", "solved": WLD, "value": 0, "claim": "draw"}
    assert claim_contradicted(game(win, 30, 34)) and claim_contradicted(game(win, 32, 32))
    assert not claim_contradicted(game(win, 33, 31))
    assert claim_contradicted(game(draw, 31, 33))
    assert not claim_contradicted(game(draw, 32, 32)) and not claim_contradicted(game(draw, 40, 24))
    assert not claim_contradicted(game(None, 0, 64))
    assert not claim_contradicted(game(win, 0, 0, reason="invalid move"))   # the result is not the board's


def test_a_short_tournament_records_its_solves_and_no_result_contradicts_them(tmp_path):
    out = tmp_path / "tournament"
    run = subprocess.run([sys.executable, "-m", "gamechip", "tournament", "--budget", "2000", "--levels", "1",
                          "--jobs", "1", "--solve-empties", "14", "--out", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    games = json.loads((out / "games.json").read_text())
    claims = [g["solve_claim"] for g in games]
    assert len(games) == 2 and all(claims), claims
    assert not any(claim_contradicted(g) for g in games)
    assert "Endgame solves: 2 of 2 games with a solved win or draw" in run.stdout
    assert "0 contradicted by the result" in (out / "tournament.md").read_text()
