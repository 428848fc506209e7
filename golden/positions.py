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


def random_occupancy(rng: random.Random, size: int = 8) -> Position:
    """Each square independently empty, black or white (1/3 each); random side."""
    check_size(size)
    black = white = 0
    for sq in range(size * size):
        kind = rng.randrange(3)
        if kind == 1:
            black |= 1 << sq
        elif kind == 2:
            white |= 1 << sq
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
