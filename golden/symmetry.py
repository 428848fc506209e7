"""Symmetries of the board (docs/spec.md §0).

The start position is fixed by exactly four maps: identity, rotation by 180
degrees, and the reflections in the A1-H8 and A8-H1 diagonals. These expand
the openings table (docs/spec.md §6) and give equivalent test games. The
mirrors of files or ranks are also provided, only so tests can show that they
move the start position (the seed's "horizontal and vertical symmetry" is
wrong for Othello).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterable

from golden.board import BoardError, Position, check_size, squares_of

SYMMETRIES = ("identity", "rot180", "diag_a1h8", "diag_a8h1")
MIRRORS = ("flip_files", "flip_ranks")

# (row, col) -> (row, col) for a board of size n.
_MAPS: dict[str, Callable[[int, int, int], tuple[int, int]]] = {
    "identity": lambda r, c, n: (r, c),
    "rot180": lambda r, c, n: (n - 1 - r, n - 1 - c),
    "diag_a1h8": lambda r, c, n: (c, r),
    "diag_a8h1": lambda r, c, n: (n - 1 - c, n - 1 - r),
    "flip_files": lambda r, c, n: (r, n - 1 - c),
    "flip_ranks": lambda r, c, n: (n - 1 - r, c),
}


@lru_cache(maxsize=None)
def _table(name: str, size: int) -> tuple[int, ...]:
    """Image of every square under ``name`` (validated, cached per size)."""
    if name not in _MAPS:
        raise BoardError(
            f"unknown symmetry {name!r}: use one of {', '.join(SYMMETRIES + MIRRORS)}"
        )
    check_size(size)
    out = []
    for sq in range(size * size):
        r, c = _MAPS[name](sq // size, sq % size, size)
        out.append(r * size + c)
    return tuple(out)


def transform_square(name: str, sq: int, size: int = 8) -> int:
    """Image of square ``sq`` under the map ``name``."""
    table = _table(name, size)
    if not isinstance(sq, int) or not 0 <= sq < len(table):
        raise BoardError(f"square index must be 0..{len(table) - 1}, got {sq!r}")
    return table[sq]


def transform_bitboard(name: str, bb: int, size: int = 8) -> int:
    """Image of every square of bitboard ``bb`` under the map ``name``."""
    table = _table(name, size)
    if not 0 <= bb < 1 << len(table):
        raise BoardError(f"bitboard must be in 0..2**{len(table)}-1, got {bb!r}")
    out = 0
    for sq in squares_of(bb):
        out |= 1 << table[sq]
    return out


def transform_position(name: str, pos: Position) -> Position:
    """Image of a position (both colours, same side to move)."""
    return Position(
        transform_bitboard(name, pos.black, pos.size),
        transform_bitboard(name, pos.white, pos.size),
        pos.white_to_move,
        pos.size,
    )


def transform_moves(name: str, moves: Iterable[int], size: int = 8) -> list[int]:
    """Image of a move sequence, e.g. a game record or an opening line."""
    return [transform_square(name, m, size) for m in moves]
