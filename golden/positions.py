"""Random stimulus positions, reproducible from a ``random.Random``.

Two kinds are needed: uniformly random occupancy (odd patterns the rules
rarely reach: edge cases for the combinational blocks) and positions from
randomly played games (the distribution the processor really sees, including
forced passes and finished games).
"""

from __future__ import annotations

import random

from golden.board import Position, check_size, squares_of, start_position
from golden.othello import flips_8x8_unchecked, game_over, legal_moves_8x8, flips, legal_moves


def random_occupancy(rng: random.Random, size: int = 8) -> Position:
    """Each square independently empty, black or white (1/3 each); random side.

    All squares are drawn at once: two random bits per square (01 black, 10 white, 00 empty),
    and the squares that drew 11 draw again, all together, until none is left: a few word
    operations a round instead of one random draw per square, because the fuzzers ask for
    hundreds of thousands of these. Reproducible from the seed like any draw of ``rng``."""
    check_size(size)
    squares = size * size
    getrandbits = rng.getrandbits
    black = white = 0
    pending = (1 << squares) - 1
    while pending:
        first, second = getrandbits(squares), getrandbits(squares)
        settled = pending & ~(first & second)
        black |= settled & first
        white |= settled & second
        pending &= first & second
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
    # the 8x8 kernels of golden.othello without their argument checks: every position here
    # follows from the last by a legal move, so none can fail them
    legal, flip = (legal_moves_8x8, lambda own, opp, move: flips_8x8_unchecked(own, opp, 1 << move)) if size == 8 else \
        (lambda own, opp: legal_moves(own, opp, size), lambda own, opp, move: flips(own, opp, move, size))
    trusted = Position.trusted
    while True:
        moves = legal(own, opp)
        if moves:
            move = rng.choice(squares_of(moves))
            flipped = flip(own, opp, move)
            own, opp = opp & ~flipped, own | flipped | (1 << move)
        elif legal(opp, own):
            own, opp = opp, own
        else:
            return positions
        white = not white
        positions.append(trusted(opp, own, True, size) if white else trusted(own, opp, False, size))


def random_played(rng: random.Random, count: int, size: int = 8) -> list[Position]:
    """``count`` positions: all positions of successive random games, truncated."""
    out: list[Position] = []
    while len(out) < count:
        out.extend(random_game_positions(rng, size))
    return out[:count]


def sampled_midgames(seed: int, count: int, low: int = 6, high: int = 60) -> list[Position]:
    """``count`` positions drawn from random games (about one in ten), each with ``low``..``high``
    discs and a move left for either side: the golden search's test positions."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        for p in random_game_positions(rng):
            if low <= bin(p.black | p.white).count("1") <= high and not game_over(p) and rng.random() < 0.1:
                out.append(p)
    return out[:count]
