"""A small NBoard engine for the tests: ``python tests/nboard_engine.py KIND [SEED]``.

KIND ``random`` plays a random legal move (seeded), ``greedy`` the move that flips the most
discs (the first such square), ``judge`` plays as ``greedy`` and answers as its EVAL the side to
move's legal moves minus the other side's (a value the tests compute on their own); the broken
ones fail at their first ``go``: ``crash`` exits with status 7 after a line on stderr, ``hang``
never answers, ``illegal`` answers A1 (never legal at the start of a game), ``garbage`` answers
an EVAL that is no number. It speaks only what a match needs: ``nboard``, ``set game``, ``move``,
``ping``, ``go``, ``quit``; every other line is ignored, as the protocol asks.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from golden.board import popcount, square_name, squares_of  # noqa: E402
from golden.contest.ggf import GgfError, apply_move, parse_ggf  # noqa: E402
from golden.othello import flips, legal_moves  # noqa: E402
from golden.board import parse_square, start_position  # noqa: E402


def choose(kind, position, rng):
    legal = squares_of(legal_moves(position.own, position.opp))
    if not legal:
        return "PA"
    if kind in ("greedy", "judge"):
        return square_name(max(legal, key=lambda s: (popcount(flips(position.own, position.opp, s)), -s)))
    return square_name(rng.choice(legal))


def mobility_difference(position):
    return popcount(legal_moves(position.own, position.opp)) - popcount(legal_moves(position.opp, position.own))


def main():
    kind = sys.argv[1]
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    position = start_position()
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "quit":
            return 0
        if command == "nboard":
            print(f"set myname {kind}", flush=True)
        elif command == "ping":
            print(f"pong {rest}", flush=True)
        elif command == "set" and rest.startswith("game "):
            try:
                position = parse_ggf(rest[5:]).final
            except GgfError as error:
                print(f"bad game: {error}", file=sys.stderr, flush=True)
        elif command == "move":
            text = rest.split("/")[0]
            position = apply_move(position, None if text.upper() == "PA" else parse_square(text))
        elif command == "go":
            if kind == "crash":
                print("the crashing engine gives up", file=sys.stderr, flush=True)
                return 7
            if kind == "hang":
                time.sleep(3600)
            if kind == "illegal":
                print("=== A1", flush=True)
                continue
            if kind == "garbage":
                print("=== F5/lots/0.0", flush=True)
                continue
            value = mobility_difference(position) if kind == "judge" else 0
            print(f"=== {choose(kind, position, rng)}/{value}/0.0", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
