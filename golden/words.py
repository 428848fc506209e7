"""The search's inner loop on machine words, for PyPy: legal moves, flips, stable discs,
popcounts and move order on 8x8 bitboards held as signed 64-bit integers.

The rest of the golden model keeps a bitboard as a Python int 0 .. 2**64-1. Under PyPy every int
of 2**63 or more (any board with a disc on H8, and most shifted ones) is a heap-allocated big
integer, and ``golden.othello.legal_moves`` runs slower than on CPython. Here the same 64 bits are
kept as a signed word (H8 is the sign bit) and every shift goes through PyPy's wrapping machine
operations (``__pypy__.intop``), so that the JIT compiles each operation to one instruction:
legal moves are ~40x faster than the big-integer version under PyPy. The algorithms are those of
golden.othello and golden.stable, rewritten for words; golden.search uses this module when it
runs under PyPy (:data:`NATIVE`), and tests check that both give identical traces. Under CPython
the wrapping operations are emulated (correct, and slow: only for those tests).
"""

from __future__ import annotations

from golden import evaluator, ordering
from golden.board import start_position
from golden.othello import geometry

try:
    from __pypy__ import intop

    lshift = intop.int_lshift     # (x << s) modulo 2**64, as a signed word
    urshift = intop.uint_rshift   # x >> s of the word read as unsigned (zeros shifted in)
    wrapping_sub = intop.int_sub
    wrapping_mul = intop.int_mul
    NATIVE = True
except ImportError:
    NATIVE = False
    _MASK = (1 << 64) - 1

    def _signed(x):
        x &= _MASK
        return x - (1 << 64) if x >> 63 else x

    def lshift(x, s):
        return _signed(x << s)

    def urshift(x, s):
        return (x & _MASK) >> s

    def wrapping_sub(x, y):
        return _signed(x - y)

    def wrapping_mul(x, y):
        return _signed(x * y)

FULL = (1 << 64) - 1


def to_word(bitboard: int) -> int:
    """A bitboard 0 .. 2**64-1 as a signed word."""
    return bitboard - (1 << 64) if bitboard >> 63 else bitboard


def from_word(word: int) -> int:
    """A signed word as a bitboard 0 .. 2**64-1."""
    return word & FULL


_G = geometry(8)
INNER_FILES = to_word(_G.axes[0][2])
FIRST_FILE = to_word(_G.first_file)
LAST_FILE = to_word(_G.last_file)
EDGE_RANKS = to_word(_G.edge_ranks)
EDGE_FILES = to_word(_G.edge_files)
CORNERS = to_word(_G.corners)
INNER = to_word(_G.inner)
NOT_LAST_FILE = ~LAST_FILE
NOT_FIRST_FILE = ~FIRST_FILE
_M1, _M2, _M4, _H01 = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101


def popcount(word: int) -> int:
    """Set bits of a word (SWAR: no big integer, no string)."""
    x = wrapping_sub(word, urshift(word, 1) & _M1)
    x = (x & _M2) + (urshift(x, 2) & _M2)
    x = (x + urshift(x, 4)) & _M4
    return urshift(wrapping_mul(x, _H01), 56)


def legal_moves(own: int, opp: int) -> int:
    """golden.othello.legal_moves on words (the same runs grown by one, then two steps)."""
    inner = opp & INNER_FILES
    moves = 0
    for s, o in ((1, inner), (8, opp), (9, inner), (7, inner)):
        s2 = s + s
        x = lshift(own, s) & o
        y = urshift(own, s) & o
        x |= lshift(x, s) & o
        y |= urshift(y, s) & o
        pair = o & lshift(o, s)
        pair_down = urshift(pair, s)
        x |= lshift(x, s2) & pair
        y |= urshift(y, s2) & pair_down
        x |= lshift(x, s2) & pair
        y |= urshift(y, s2) & pair_down
        moves |= lshift(x, s) | urshift(y, s)
    return moves & ~(own | opp)


def flips(own: int, opp: int, bit: int) -> int:
    """golden.othello.flips_8x8_unchecked on words: the discs flipped by a move to the empty square ``bit``."""
    flipped = 0
    inner = opp & INNER_FILES
    for step, run_mask in ((1, inner), (8, opp), (9, inner), (7, inner)):
        square = lshift(bit, step)
        if square & run_mask:
            run = 0
            while square & run_mask:
                run |= square
                square = lshift(square, step)
            if square & own:
                flipped |= run
        square = urshift(bit, step)
        if square & run_mask:
            run = 0
            while square & run_mask:
                run |= square
                square = urshift(square, step)
            if square & own:
                flipped |= run
    return flipped


def _edge_stable(own: int) -> int:
    """golden.stable.edge_stable on words."""
    on_edge_ranks = own & EDGE_RANKS
    on_edge_files = own & EDGE_FILES
    stable = own & CORNERS
    while True:
        along_rank = lshift(stable & NOT_LAST_FILE, 1) | urshift(stable & NOT_FIRST_FILE, 1)
        along_file = lshift(stable, 8) | urshift(stable, 8)
        grown = stable | (on_edge_ranks & along_rank) | (on_edge_files & along_file)
        if grown == stable:
            return stable
        stable = grown


def _neighbour_on_every_axis(stable: int) -> int:
    """golden.stable._neighbour_on_every_axis on words."""
    east = stable & NOT_LAST_FILE
    west = stable & NOT_FIRST_FILE
    horizontal = lshift(east, 1) | urshift(west, 1)
    vertical = lshift(stable, 8) | urshift(stable, 8)
    diagonal = lshift(east, 9) | urshift(west, 9)
    anti_diagonal = lshift(west, 7) | urshift(east, 7)
    return horizontal & vertical & diagonal & anti_diagonal


STABLE_MEMO_SIZE = 1 << 17
_stable_memo: dict = {}
_NOTHING_STABLE = (0, 1)


def stable_summary(own: int) -> tuple:
    """golden.evaluator.stable_summary on words: (stable discs, hardware iterations)."""
    if not own & CORNERS:
        return _NOTHING_STABLE
    summary = _stable_memo.get(own)
    if summary is None:
        edge = _edge_stable(own)
        inner_own = own & INNER
        stable, iterations = edge, 1
        while True:
            grown = edge | (inner_own & _neighbour_on_every_axis(stable))
            if grown == stable:
                break
            stable, iterations = grown, iterations + 1
        summary = (popcount(stable), iterations)
        if len(_stable_memo) >= STABLE_MEMO_SIZE:
            _stable_memo.clear()
        _stable_memo[own] = summary
    return summary


def squares(word: int) -> list:
    """Indices of the set bits, ascending."""
    out = []
    while word:
        low = word & wrapping_sub(0, word)
        out.append(low.bit_length() - 1)   # -2**63 (H8 alone) has bit_length 64
        word ^= low
    return out


def bit(square: int) -> int:
    return lshift(1, square)


_CORNER_SQUARES = to_word(ordering.CORNER_MASK)
_X_SQUARES = to_word(ordering.X_MASK)


def ordered_moves(legal: int, first) -> list:
    """golden.ordering.ordered_moves on words."""
    out = []
    if first is not None and legal >> first & 1:
        out.append(first)
        legal ^= lshift(1, first)
    corners = legal & _CORNER_SQUARES
    x_squares = legal & _X_SQUARES
    if corners:
        out += squares(corners)
    out += squares(legal ^ corners ^ x_squares)
    if x_squares:
        out += squares(x_squares)
    return out


terms = evaluator.make_terms(popcount, stable_summary, CORNERS, to_word(evaluator.X_MASK))


# --- the fuzz positions of golden.positions on words (tb/checks/golden_worker.py under PyPy) -----------

def random_word(getrandbits) -> int:
    """``getrandbits(64)`` as a signed word, from the same two 32-bit draws (the low half is
    drawn first, as CPython and PyPy assemble it), without a big integer in between."""
    low = getrandbits(32)
    return low | lshift(getrandbits(32), 32)


def random_occupancy(rng) -> tuple:
    """golden.positions.random_occupancy on the 8x8 board, on words: the same draws from ``rng``
    and the same position, as (black, white, white_to_move)."""
    getrandbits = rng.getrandbits
    black = white = 0
    pending = -1   # every square
    while pending:
        first, second = random_word(getrandbits), random_word(getrandbits)
        settled = pending & ~(first & second)
        black |= settled & first
        white |= settled & second
        pending &= first & second
    return black, white, rng.random() < 0.5


_START = to_word(start_position(8).black), to_word(start_position(8).white)


def random_game_positions(rng) -> list:
    """golden.positions.random_game_positions on the 8x8 board, on words: the same draws and
    the same positions, as (black, white, white_to_move) tuples."""
    own, opp = _START
    white = False
    positions = [(own, opp, False)]
    choice = rng.choice
    while True:
        moves = legal_moves(own, opp)
        if moves:
            move = lshift(1, choice(squares(moves)))
            flipped = flips(own, opp, move)
            own, opp = opp & ~flipped, own | flipped | move
        elif legal_moves(opp, own):
            own, opp = opp, own
        else:
            return positions
        white = not white
        positions.append((opp, own, True) if white else (own, opp, False))
