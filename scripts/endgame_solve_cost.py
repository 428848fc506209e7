"""The cycles the processor's endgame solve takes (docs/solve.md, "The processor solves its endgame").

For each E of ``--empties``: ``--games`` games of the contest's reference program (level
``--level``) against itself, each after ``--random-plies`` random plies drawn from its seed (0, 1,
...), give their first position with E empty squares; the golden cycle model of the processor's
engine (golden.search, solve mode, plain scoring) solves it as the processor does, WLD then exact,
without a budget, on a board stack of ``--levels`` levels. Prints one JSON line a position and then
one table row per E: positions, WLD and WLD+exact cycles (median, 90th percentile, largest), the
positions whose WLD+exact (and WLD alone) exceed ``--budget``, and the solves that overflowed the
stack. Run it under PyPy: ``pypy3 scripts/endgame_solve_cost.py``.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from golden.board import popcount, start_position  # noqa: E402
from golden.contest.reference import ReferencePlayer  # noqa: E402
from golden.othello import legal_moves, pass_move, play  # noqa: E402
from golden.processor import WLD_WINDOW  # noqa: E402
from golden.search import MAX_DEPTH, SOLVE_LEVELS, search_events  # noqa: E402

SEED_BUDGET = 3_200_000   # the seed's cycles a move


def first_positions(seed, level, random_plies, wanted):
    """{empties: the game's first position with that many empty squares} for ``wanted``."""
    rng, player = random.Random(seed), ReferencePlayer(level)
    position, plies, found = start_position(), 0, {}
    while True:
        moves = legal_moves(position.own, position.opp)
        if not moves:
            if not legal_moves(position.opp, position.own):
                return found
            position = pass_move(position)
            continue
        empties = 64 - popcount(position.black | position.white)
        if empties in wanted:
            found.setdefault(empties, position)
        squares = [square for square in range(64) if moves >> square & 1]
        move = rng.choice(squares) if plies < random_plies else player.move(position)
        position, plies = play(position, move), plies + 1


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--empties", default="10,12,14", help="the E to measure (default 10,12,14)")
    parser.add_argument("--games", type=int, default=40, help="games (seeds 0..N-1; default 40)")
    parser.add_argument("--level", type=int, default=4, help="the reference program's level (default 4)")
    parser.add_argument("--random-plies", type=int, default=8, help="random plies first (default 8)")
    parser.add_argument("--levels", type=int, default=SOLVE_LEVELS, help=f"board-stack levels (default {SOLVE_LEVELS})")
    parser.add_argument("--budget", type=int, default=SEED_BUDGET, help=f"cycles a move (default {SEED_BUDGET:,})")
    args = parser.parse_args()
    wanted = [int(text) for text in args.empties.split(",")]
    rows = {empties: [] for empties in wanted}
    for seed in range(args.games):
        for empties, position in sorted(first_positions(seed, args.level, args.random_plies, set(wanted)).items()):
            started = time.perf_counter()
            wld = search_events(position, MAX_DEPTH, None, alpha=WLD_WINDOW[0], beta=WLD_WINDOW[1], solve="plain",
                                levels=args.levels)
            exact = search_events(position, MAX_DEPTH, None, solve="plain", levels=args.levels)
            row = {"empties": empties, "seed": seed, "board": position.text(), "wld_cycles": wld.cycles,
                   "exact_cycles": exact.cycles, "wld": wld.value, "exact": exact.value,
                   "overflow": wld.aborted or exact.aborted, "seconds": round(time.perf_counter() - started, 1)}
            rows[empties].append(row)
            print(json.dumps(row), flush=True)
    print(f"| E | positions | WLD cycles median / 90 % / max | WLD+exact median / 90 % / max | "
          f"WLD+exact > {args.budget:,} | WLD > {args.budget:,} | overflowed ({args.levels} levels) |")
    print("|---:|---:|---|---|---:|---:|---:|")
    for empties in wanted:
        found = rows[empties]
        if not found:
            continue
        wld = [row["wld_cycles"] for row in found]
        both = [row["wld_cycles"] + row["exact_cycles"] for row in found]
        print(f"| {empties} | {len(found)} | {percentile(wld, .5):,} / {percentile(wld, .9):,} / {max(wld):,} | "
              f"{percentile(both, .5):,} / {percentile(both, .9):,} / {max(both):,} | "
              f"{sum(total > args.budget for total in both)} | {sum(cycles > args.budget for cycles in wld)} | "
              f"{sum(row['overflow'] for row in found)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
