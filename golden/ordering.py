"""Node ordering (docs/spec.md §5): the order in which moves of a node are tried.

Static priority: the corners A1, H1, A8, H8 first, then every other square
in index order, then the X-squares B2, G2, B7, G7 last. At the root of
iteration d+1 the best move of iteration d (the principal variation move,
``pv``) is tried first.

The hardware selects one move per cycle with no "explored" bits: it masks
off every square up to and including the last move explored at this level
and takes the highest-priority legal square left (a permutation, a masked
priority encoder and the inverse permutation). The golden model does the
obvious thing instead: walk the priority sequence as a Python tuple.
"""

from __future__ import annotations

from typing import Optional

from golden.board import BoardError

SIZE = 8
N_SQUARES = SIZE * SIZE
CORNERS = (0, 7, 56, 63)          # A1, H1, A8, H8
X_SQUARES = (9, 14, 49, 54)       # B2, G2, B7, G7

STATIC_ORDER: tuple[int, ...] = (
    CORNERS
    + tuple(sq for sq in range(N_SQUARES) if sq not in CORNERS and sq not in X_SQUARES)
    + X_SQUARES
)


def _check_square(what: str, sq: object) -> int:
    if not isinstance(sq, int) or isinstance(sq, bool) or not 0 <= sq < N_SQUARES:
        raise BoardError(f"{what} must be a square index 0..{N_SQUARES - 1} or None, got {sq!r}")
    return sq


def _check_legal(legal: object) -> int:
    if not isinstance(legal, int) or isinstance(legal, bool) or not 0 <= legal < 1 << N_SQUARES:
        raise BoardError(f"legal-move vector must be an int in 0..2**{N_SQUARES}-1, got {legal!r}")
    return legal


def move_order(pv: Optional[int] = None) -> tuple[int, ...]:
    """The full priority sequence: ``pv`` first (if given), then STATIC_ORDER without it."""
    if pv is None:
        return STATIC_ORDER
    _check_square("pv", pv)
    return (pv,) + tuple(sq for sq in STATIC_ORDER if sq != pv)


def next_move(legal: int, last: Optional[int] = None, pv: Optional[int] = None) -> Optional[int]:
    """First legal square after ``last`` in ``move_order(pv)``; None if there is none.

    ``last`` None means "nothing explored yet" (start from the top). ``last``
    may be any square, legal or not: only its place in the order matters.
    """
    _check_legal(legal)
    order = move_order(pv)
    start = 0 if last is None else order.index(_check_square("last", last)) + 1
    for sq in order[start:]:
        if legal >> sq & 1:
            return sq
    return None


# The static order is three ascending runs: corners, the middle squares, X-squares.
CORNER_MASK = sum(1 << sq for sq in CORNERS)
X_MASK = sum(1 << sq for sq in X_SQUARES)
MIDDLE_MASK = ((1 << N_SQUARES) - 1) & ~CORNER_MASK & ~X_MASK


def ordered_moves(legal: int, pv: Optional[int] = None) -> list[int]:
    """Every legal square in priority order: the order the hardware's walk visits them.

    ``pv`` first when it is legal, then the corners, the middle squares and the X-squares,
    each run in index order (the search calls this at every node: tests check it against
    the walk of :func:`next_move`).
    """
    out: list[int] = []
    if pv is not None and legal >> pv & 1:
        out.append(pv)
        legal ^= 1 << pv
    run = legal & CORNER_MASK
    if run:
        legal ^= run
        while run:
            low = run & -run
            out.append(low.bit_length() - 1)
            run ^= low
    x_squares = legal & X_MASK
    run = legal ^ x_squares
    while run:
        low = run & -run
        out.append(low.bit_length() - 1)
        run ^= low
    while x_squares:
        low = x_squares & -x_squares
        out.append(low.bit_length() - 1)
        x_squares ^= low
    return out
