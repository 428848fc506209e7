"""Self-play games for the pattern evaluator's corpus, pure Python (golden/ only), so that the
workers run on the golden interpreter (PyPy when installed).

One game, from its own random generator (seeded by the corpus seed and the game's number, so a
game does not depend on which worker plays it or on how many there are):

1. ``random_plies`` uniformly random legal moves from the start position, a number drawn in
   OPENING_RANDOM_PLIES: the randomised opening that makes the games differ;
2. the golden search (docs/spec.md §7, the seed's fixed-weight evaluator) at ``depth`` for both
   sides, until at most ``solve_empties`` squares are empty;
3. perfect play to the end: the exact solver (golden/solve.py, plain scoring) picks every move.

The record is the game's moves and its final disc difference (black minus white, empty squares
not counted, as the search's terminal value). Every position from step 3 on lies on a perfect
line, so that difference is its exact value; a position before has the game's result under
perfect endgame play as its label (see docs/pattern-evaluator.md for why).

Worker protocol (``python -m gamechip.train.selfplay SEED DEPTH SOLVE_EMPTIES FIRST STEP COUNT``):
games FIRST, FIRST + STEP, ... (COUNT of them), one line each on stdout as it ends:
``game<TAB>random_plies<TAB>solve_ply<TAB>score<TAB>moves``.
"""

from __future__ import annotations

import random
import sys

from golden.board import format_game_record, popcount, squares_of, start_position
from golden.othello import legal_moves, pass_move, play
from golden.search import search_events
from golden.solve import solve

OPENING_RANDOM_PLIES = (4, 10)   # inclusive bounds of the randomised opening's length


def game_random(seed: int, game: int) -> random.Random:
    """The random generator of game ``game`` of the corpus with ``seed`` (string seeding hashes
    with SHA-512: the same on every interpreter and platform)."""
    return random.Random(f"gamechip-selfplay:{seed}:{game}")


def empties(pos) -> int:
    return 64 - popcount(pos.black | pos.white)


def play_game(seed: int, game: int, depth: int, solve_empties: int) -> tuple:
    """Play game ``game``: (random plies, the ply at which perfect play began, final disc
    difference black - white, the moves played (squares; passes are not written))."""
    rng = game_random(seed, game)
    random_plies = rng.randint(*OPENING_RANDOM_PLIES)
    pos = start_position()
    moves = []
    solve_ply = None
    while True:
        own_moves = legal_moves(pos.own, pos.opp)
        if not own_moves:
            if not legal_moves(pos.opp, pos.own):
                break
            pos = pass_move(pos)
            continue
        if len(moves) < random_plies:
            move = rng.choice(squares_of(own_moves))
        elif empties(pos) > solve_empties:
            move = search_events(pos, depth).best
        else:
            if solve_ply is None:
                solve_ply = len(moves)
            move = solve(pos).best
        moves.append(move)
        pos = play(pos, move)
    if solve_ply is None:
        solve_ply = len(moves)
    return random_plies, solve_ply, popcount(pos.black) - popcount(pos.white), moves


def game_line(game: int, random_plies: int, solve_ply: int, score: int, moves) -> str:
    return f"{game}\t{random_plies}\t{solve_ply}\t{score}\t{format_game_record(moves)}"


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 6:
        print("usage: python -m gamechip.train.selfplay SEED DEPTH SOLVE_EMPTIES FIRST STEP COUNT",
              file=sys.stderr)
        return 2
    seed, depth, solve_empties, first, step, count = (int(a) for a in args)
    for game in range(first, first + step * count, step):
        print(game_line(game, *play_game(seed, game, depth, solve_empties)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
