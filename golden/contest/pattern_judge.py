"""The project's own judge of positions as a small NBoard engine: the golden search with the
trained pattern evaluator (golden/patterns.py, golden/pattern_weights.txt) to a fixed depth.

    python -m golden.contest.pattern_judge --depth 6

It answers ``go`` with ``=== MOVE/EVAL/SECONDS``: the search's best move and its value in discs
from the side to move (the pattern evaluator's quarter discs divided by 4). ``gamechip
openings`` uses it as its default judge (docs/nboard.md, "The opening set"); any NBoard GUI or
``gamechip match`` can play it. It speaks ``nboard``, ``set game``, ``set depth`` (ignored: the
depth is the command line's), ``move``, ``ping``, ``go``, ``quit``; a line it does not know is
ignored, as the protocol asks, and a ``set game`` or ``move`` it cannot read is one line on
stderr that changes nothing.
"""

import argparse
import sys
import time

from golden.board import BoardError, parse_square
from golden.contest.ggf import apply_move, parse_ggf
from golden.othello import legal_moves
from golden.patterns import UNITS_PER_DISC, default_weights
from golden.search import search_events

DEFAULT_DEPTH = 6


def judge_name(depth):
    return f"the golden search with the pattern evaluator (golden/pattern_weights.txt), depth {depth}, in discs"


def judged_move(position, depth, weights):
    """(move text, value in discs from the side to move) of the golden pattern search."""
    result = search_events(position, depth, pattern=weights)
    move = result.best_text if legal_moves(position.own, position.opp) else "PA"
    return move, result.value / UNITS_PER_DISC


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help=f"search depth (default {DEFAULT_DEPTH})")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= 16:
        print(f"pattern_judge: --depth must be 1..16, got {args.depth}", file=sys.stderr)
        return 2
    weights = default_weights()
    position = parse_ggf("(;GM[Othello];)").final
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "quit":
            break
        if command == "nboard":
            print(f"set myname pattern{args.depth}", flush=True)
        elif command == "ping":
            print(f"pong {rest}", flush=True)
        elif command == "set" and rest.startswith("game "):
            try:
                position = parse_ggf(rest[5:]).final
            except BoardError as error:
                print(f"pattern_judge: set game ignored: {error}", file=sys.stderr, flush=True)
        elif command == "move":
            text = rest.split("/")[0]
            try:
                position = apply_move(position, None if text.upper() in ("PA", "PASS") else parse_square(text))
            except BoardError as error:
                print(f"pattern_judge: move ignored: {error}", file=sys.stderr, flush=True)
        elif command == "go":
            started = time.monotonic()
            move, value = judged_move(position, args.depth, weights)
            print(f"=== {move}/{value:+.2f}/{time.monotonic() - started:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
