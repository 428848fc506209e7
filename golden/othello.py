"""Othello rules on whole bitboards: legal moves, flips, play, perft.

This is the golden model of the Move Checker (docs/spec.md §1) and the Disc
Flipper (section 2). The RTL builds both from per-square cells; here every
result comes from shifting whole bitboards along the 8 directions (docs/spec.md
§0, "golden model independence"), so the two share no algorithm.

A shift by ``s`` moves every disc one step along a direction: +1 east,
+size north, +size+1 north-east, +size-1 north-west; right shifts are the
opposite directions. Steps that change column would wrap from one edge file
to the other, so the runs of opponent discs they walk are masked to the
inner files: a disc between two others on such a line is never on an edge
file, and only the final step (onto the move square or the bracketing disc)
may land there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from golden.board import BoardError, Position, check_size, popcount, square_name


class IllegalMove(BoardError):
    """A move or pass that the rules do not allow in the given position."""


@dataclass(frozen=True)
class Geometry:
    """Masks and shift amounts for one board size, computed once per size."""

    size: int
    full: int          # every square of the board
    first_file: int    # file A
    last_file: int     # the last file (H on 8x8)
    edge_ranks: int    # first and last rank
    edge_files: int    # first and last file
    border: int        # edge ranks and files
    corners: int
    inner: int         # squares not on the border
    # One entry per axis: (shift, 2*shift, mask for the opponent run).
    axes: tuple[tuple[int, int, int], ...]


@lru_cache(maxsize=None)
def geometry(size: int = 8) -> Geometry:
    """Precomputed masks for ``size`` (cached: built once per board size)."""
    check_size(size)
    full = (1 << (size * size)) - 1
    first_file = sum(1 << (row * size) for row in range(size))
    last_file = first_file << (size - 1)
    first_rank = (1 << size) - 1
    edge_ranks = first_rank | first_rank << (size * (size - 1))
    edge_files = first_file | last_file
    inner_files = full & ~edge_files
    axes = tuple(
        (s, 2 * s, mask)
        for s, mask in ((1, inner_files), (size, full), (size + 1, inner_files), (size - 1, inner_files))
    )
    border = edge_ranks | edge_files
    return Geometry(
        size=size,
        full=full,
        first_file=first_file,
        last_file=last_file,
        edge_ranks=edge_ranks,
        edge_files=edge_files,
        border=border,
        corners=edge_ranks & edge_files,
        inner=full & ~border,
        axes=axes,
    )


def legal_moves(own: int, opp: int, size: int = 8) -> int:
    """Bitboard of the legal moves of the side owning ``own``.

    Per axis and direction, ``x`` collects the opponent discs reachable from
    an own disc through a contiguous opponent run; a move is an empty square
    one step beyond such a run. The run is grown by one step twice and then
    by two steps (through ``pair``: opponent discs whose predecessor is also
    an opponent disc) twice, covering runs of up to 6 = size - 2 discs for
    every supported size with fewer Python operations than six single steps.
    """
    if size == 8:
        return legal_moves_8x8(own, opp)
    g = geometry(size)
    moves = 0
    for s, s2, mask in g.axes:
        o = opp & mask
        x = (own << s) & o
        y = (own >> s) & o
        x |= (x << s) & o
        y |= (y >> s) & o
        pair = o & (o << s)
        pair_down = pair >> s
        x |= (x << s2) & pair
        y |= (y >> s2) & pair_down
        x |= (x << s2) & pair
        y |= (y >> s2) & pair_down
        moves |= (x << s) | (y >> s)
    return moves & g.full & ~(own | opp)


_FULL_8 = (1 << 64) - 1
_INNER_FILES_8 = geometry(8).axes[0][2]


def legal_moves_8x8(own: int, opp: int) -> int:
    """:func:`legal_moves` on the 8x8 board, its loop over the four axes written out: the
    search calls it two to three times per node."""
    inner = opp & _INNER_FILES_8
    # east (+1) / west (-1)
    x = (own << 1) & inner
    y = (own >> 1) & inner
    x |= (x << 1) & inner
    y |= (y >> 1) & inner
    pair = inner & (inner << 1)
    pair_down = pair >> 1
    x |= (x << 2) & pair
    y |= (y >> 2) & pair_down
    x |= (x << 2) & pair
    y |= (y >> 2) & pair_down
    moves = (x << 1) | (y >> 1)
    # north (+8) / south (-8)
    x = (own << 8) & opp
    y = (own >> 8) & opp
    x |= (x << 8) & opp
    y |= (y >> 8) & opp
    pair = opp & (opp << 8)
    pair_down = pair >> 8
    x |= (x << 16) & pair
    y |= (y >> 16) & pair_down
    x |= (x << 16) & pair
    y |= (y >> 16) & pair_down
    moves |= (x << 8) | (y >> 8)
    # north-east (+9) / south-west (-9)
    x = (own << 9) & inner
    y = (own >> 9) & inner
    x |= (x << 9) & inner
    y |= (y >> 9) & inner
    pair = inner & (inner << 9)
    pair_down = pair >> 9
    x |= (x << 18) & pair
    y |= (y >> 18) & pair_down
    x |= (x << 18) & pair
    y |= (y >> 18) & pair_down
    moves |= (x << 9) | (y >> 9)
    # north-west (+7) / south-east (-7)
    x = (own << 7) & inner
    y = (own >> 7) & inner
    x |= (x << 7) & inner
    y |= (y >> 7) & inner
    pair = inner & (inner << 7)
    pair_down = pair >> 7
    x |= (x << 14) & pair
    y |= (y >> 14) & pair_down
    x |= (x << 14) & pair
    y |= (y >> 14) & pair_down
    moves |= (x << 7) | (y >> 7)
    return moves & _FULL_8 & ~(own | opp)


def flips_8x8_unchecked(own: int, opp: int, bit: int) -> int:
    """:func:`flips` on the 8x8 board for the empty square ``bit`` (a one-bit bitboard),
    unchecked: the search's inner loop. Each run of opponent discs is walked square by square
    (runs are short), stopping at the first square that is not an opponent disc."""
    flipped = 0
    inner = opp & _INNER_FILES_8
    for step, run_mask in ((1, inner), (8, opp), (9, inner), (7, inner)):
        square = bit << step
        if square & run_mask:
            run = 0
            while square & run_mask:
                run |= square
                square <<= step
            if square & own:
                flipped |= run
        square = bit >> step
        if square & run_mask:
            run = 0
            while square & run_mask:
                run |= square
                square >>= step
            if square & own:
                flipped |= run
    return flipped


def flips(own: int, opp: int, move: int, size: int = 8) -> int:
    """Bitboard of the discs flipped when the owner of ``own`` plays ``move``.

    0 when the square is occupied or the move brackets nothing (an illegal
    move), which is what the Disc Flipper's ``illegal`` output signals.
    Per direction the opponent run adjacent to the move is filled by
    single-step shifts; it flips when the square beyond it holds an own disc.
    """
    g = geometry(size)
    if not 0 <= move < size * size:
        raise BoardError(f"move must be a square 0..{size * size - 1}, got {move!r}")
    bit = 1 << move
    if (own | opp) & bit:
        return 0
    flipped = 0
    for s, _, mask in g.axes:
        o = opp & mask
        x = (bit << s) & o
        if x:
            for _ in range(size - 3):
                x |= (x << s) & o
            if (x << s) & own:
                flipped |= x
        y = (bit >> s) & o
        if y:
            for _ in range(size - 3):
                y |= (y >> s) & o
            if (y >> s) & own:
                flipped |= y
    return flipped


def play(pos: Position, move: int) -> Position:
    """Position after the side to move plays ``move``; IllegalMove if it may not."""
    own, opp = pos.own, pos.opp
    flipped = flips(own, opp, move, pos.size)
    if not flipped:
        why = "the square is occupied" if (own | opp) >> move & 1 else "it flips nothing"
        raise IllegalMove(
            f"illegal move {square_name(move, pos.size)} for {pos.side}: {why}; board {pos.text()}"
        )
    return Position.from_own_opp(opp & ~flipped, own | flipped | (1 << move), not pos.white_to_move, pos.size)


def pass_move(pos: Position) -> Position:
    """Position after the side to move passes; IllegalMove if it has a legal move.

    Othello allows a pass only when no move is legal, so a pass offered with
    moves available (e.g. a bogus ``VV`` on the referee protocol) is rejected.
    """
    moves = legal_moves(pos.own, pos.opp, pos.size)
    if moves:
        first = square_name((moves & -moves).bit_length() - 1, pos.size)
        raise IllegalMove(
            f"{pos.side} may not pass: it has {popcount(moves)} legal moves (e.g. {first}); board {pos.text()}"
        )
    return pos.swap_side()


def must_pass(pos: Position) -> bool:
    """True when the side to move has no legal move but the opponent has one."""
    return not legal_moves(pos.own, pos.opp, pos.size) and bool(legal_moves(pos.opp, pos.own, pos.size))


def game_over(pos: Position) -> bool:
    """True when neither side has a legal move."""
    return not legal_moves(pos.own, pos.opp, pos.size) and not legal_moves(pos.opp, pos.own, pos.size)


def perft(pos: Position, depth: int) -> int:
    """Leaf count of the game tree to ``depth`` plies (docs/spec.md §0 convention).

    A forced pass consumes a ply and is a node; a finished game is one leaf
    whatever depth remains; depth 0 is 1. At depth 1 the leaves are counted
    with a popcount, which matches the convention: a side without moves has
    exactly one child (the pass, or the finished game itself).
    """
    if depth < 0:
        raise BoardError(f"perft depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    return _perft(pos.own, pos.opp, depth, pos.size)


def _perft(own: int, opp: int, depth: int, size: int) -> int:
    moves = legal_moves(own, opp, size)
    if not moves:
        if depth == 1 or not legal_moves(opp, own, size):
            return 1
        return _perft(opp, own, depth - 1, size)
    if depth == 1:
        return popcount(moves)
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        flipped = flips(own, opp, bit.bit_length() - 1, size)
        total += _perft(opp & ~flipped, own | flipped | bit, depth - 1, size)
    return total
