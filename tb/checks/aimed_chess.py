"""Positions aimed at chess test-plan bins random walks rarely reach (tb/testplans/chess_*.toml
names them): a repetition at every even distance from 4 to 32 plies."""

import chess

from tb.checks.chess_case import ChessCase

KINGS_ONLY = "7k/8/8/8/8/8/8/K7 w - - 0 1"


def king_cycle(length, start, rows):
    """A closed king walk of ``length`` moves from ``start`` through distinct squares of ``rows``
    (ranks, 0-based), as squares from the start back to it; None when there is none."""
    def neighbours(square):
        rank, file = divmod(square, 8)
        return [r * 8 + f for r in (rank - 1, rank, rank + 1) for f in (file - 1, file, file + 1)
                if (r, f) != (rank, file) and r in rows and 0 <= f < 8]

    def extend(path):
        if len(path) == length:
            return path + [start] if start in neighbours(path[-1]) else None
        for square in neighbours(path[-1]):
            if square not in path:
                found = extend(path + [square])
                if found:
                    return found
        return None

    if length == 2:
        return [start, neighbours(start)[0], start]
    return extend([start])


def repetition_cases():
    """For every even distance k = 2m from 4 to 32: each king walks a closed loop of m moves
    through distinct squares (white on ranks 1-3, black on ranks 6-8, never adjacent), so the
    position first comes back after exactly k plies, every move reversible. (k = 2 cannot be: a
    move always changes the board, so two plies cannot restore it.)"""
    cases = []
    for half in range(2, 17):
        white, black = king_cycle(half, chess.A1, range(0, 3)), king_cycle(half, chess.H8, range(5, 8))
        moves = []
        for index in range(half):
            moves += [chess.Move(white[index], white[index + 1]).uci(), chess.Move(black[index], black[index + 1]).uci()]
        commands = ("init",) + tuple(moves)
        cases.append(ChessCase(KINGS_ONLY, f"aimed: a repetition {2 * half} plies back (two king loops of {half})",
                               "repetition", 0, commands, tuple(2 * half for _ in commands)))
    return cases
