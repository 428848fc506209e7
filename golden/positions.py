"""Random stimulus positions, reproducible from a ``random.Random``.

Two kinds are needed: uniformly random occupancy (odd patterns the rules
rarely reach: edge cases for the combinational blocks) and positions from
randomly played games (the distribution the processor really sees, including
forced passes and finished games).
"""

from __future__ import annotations

import random

from .board import Position, check_size, squares_of, start_position
from .othello import flips, legal_moves


def _occupancy_runs() -> tuple:
    """(black, white) bits of 8 squares for each of the 3**8 ways to fill them: base-3 digit k of
    the index is square k (0 empty, 1 black, 2 white)."""
    runs = []
    for code in range(3 ** 8):
        black = white = 0
        for square in range(8):
            code, kind = divmod(code, 3)
            if kind == 1:
                black |= 1 << square
            elif kind == 2:
                white |= 1 << square
        runs.append((black, white))
    return tuple(runs)


_OCCUPANCY_RUNS = _occupancy_runs()


def random_occupancy(rng: random.Random, size: int = 8) -> Position:
    """Each square independently empty, black or white (1/3 each); random side. Eight squares
    per random draw (a draw below 3**8 picks all eight at once): the fuzzers ask for hundreds of
    thousands of these."""
    check_size(size)
    black = white = 0
    squares = size * size
    for first in range(0, squares, 8):
        run_black, run_white = _OCCUPANCY_RUNS[rng.randrange(3 ** min(8, squares - first))]
        black |= run_black << first
        white |= run_white << first
    return Position(black, white, rng.random() < 0.5, size)


def random_game_positions(rng: random.Random, size: int = 8) -> list[Position]:
    """Every position of one game of uniformly random legal moves, start included.

    A side without a move passes (the position with the other side to move is
    recorded too); the game stops when neither side can move, so the last
    position is a finished game.
    """
    pos = start_position(size)
    own, opp, white = pos.own, pos.opp, pos.white_to_move
    positions = [pos]
    while True:
        moves = legal_moves(own, opp, size)
        if moves:
            move = rng.choice(squares_of(moves))
            flipped = flips(own, opp, move, size)
            own, opp = opp & ~flipped, own | flipped | (1 << move)
        elif legal_moves(opp, own, size):
            own, opp = opp, own
        else:
            return positions
        white = not white
        positions.append(Position.from_own_opp(own, opp, white, size))


def random_played(rng: random.Random, count: int, size: int = 8) -> list[Position]:
    """``count`` positions: all positions of successive random games, truncated."""
    out: list[Position] = []
    while len(out) < count:
        out.extend(random_game_positions(rng, size))
    return out[:count]
