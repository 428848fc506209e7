"""Throughput of the golden model on randomly played 8x8 positions.

Run ``python -m golden.throughput``. The test bench calls the model once per
generated node, so its speed bounds how fast a regression can check the RTL.
"""

from __future__ import annotations

import random
import time
from typing import Callable

from golden.board import squares_of
from golden.othello import flips, legal_moves
from golden.positions import random_played
from golden.stable import stable_discs


def calls_per_second(calls: list[Callable[[], object]], repeats: int = 3) -> float:
    """Best of ``repeats`` timings of running every call once."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for call in calls:
            call()
        best = min(best, time.perf_counter() - started)
    return len(calls) / best


def main() -> None:
    positions = random_played(random.Random(1), 5000)
    legal = [lambda p=p: legal_moves(p.own, p.opp) for p in positions]
    flip = [
        lambda p=p, m=m: flips(p.own, p.opp, m)
        for p in positions
        for m in squares_of(legal_moves(p.own, p.opp))
    ]
    stable = [lambda p=p: stable_discs(p.own) for p in positions]
    print(f"{len(positions)} played positions, {len(flip)} legal moves")
    for name, calls in (("legal_moves", legal), ("flips (legal moves)", flip), ("stable_discs", stable)):
        print(f"{name:20s} {calls_per_second(calls):>10,.0f} calls/s")


if __name__ == "__main__":
    main()
