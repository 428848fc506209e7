"""Node ordering (docs/spec.md §5): the next move to explore at a node, one selection per cycle.

Combinational. The priority sequence is the PV move first (when ``pv_valid``), then the
static order A1, H1, A8, H8, every other square in index order except the X-squares, then
B2, G2, B7, G7, the PV square being left out of the static part. ``next_move`` is the first
legal square strictly after ``last_move`` in that sequence, or the first legal square of
the whole sequence when ``first`` is set; ``last_move`` may be any square, legal or not.
There are no per-level "explored" bits: the last move alone says where to continue.

Hardware (docs/spec.md §5), all structure fixed at elaboration time:

* PV stage: when ``first`` and ``pv_valid`` and the PV square is legal, the answer is
  ``pv_move``. Otherwise the static part is scanned, with the PV square masked out when
  ``pv_valid``; when ``last_move`` is the PV move the scan starts at the top of the static
  part (the PV move is position 0 of the whole sequence).
* Mapping: fixed wiring permutes ``legal`` into priority order (``ordered[p]`` =
  ``legal[STATIC_ORDER[p]]``).
* Last-move mapping: a ROM gives the priority position of ``last_move`` (and of
  ``pv_move``); one mask cell per position compares it with the cell's constant position
  (the positions after the last move remain), and drops the PV square.
* Masked priority encoder: a binary tree of encoder nodes (built at elaboration time, depth
  6) finds the highest-priority position still legal and unmasked.
* Inverse mapping: a ROM turns the position back into a square.

``found`` = a square was selected; ``next_move`` = 0 when nothing is found.
"""

from myhdl import ConcatSignal, Signal, always_comb, block, concat, intbv

from rtl.popcount import count_signal, popcount
from rtl.rom import rom

SQUARES = 64
CORNER_SQUARES = (0, 7, 56, 63)      # A1, H1, A8, H8
X_SQUARES = (9, 14, 49, 54)          # B2, G2, B7, G7
STATIC_ORDER = (CORNER_SQUARES
                + tuple(s for s in range(SQUARES) if s not in CORNER_SQUARES + X_SQUARES)
                + X_SQUARES)
POSITION_OF = tuple(STATIC_ORDER.index(square) for square in range(SQUARES))


@block
def mask_cell(ordered, position, pv_valid, pv_position, scan_all, last_position, candidate):
    """Whether priority position ``position`` (a constant) may be chosen: it is legal, after
    the last move (or the scan starts at the top), and not the PV square.

    ordered: legal vector in priority order (in); pv_valid, scan_all: bool (in);
    pv_position, last_position: priority positions of pv_move and last_move (in);
    candidate: bool (out).
    """

    if position == 0:  # nothing comes before position 0 (and "< 0" would be a constant)
        @always_comb
        def mask_top():
            if ordered[0] and scan_all and not (pv_valid and pv_position == 0):
                candidate.next = 1
            else:
                candidate.next = 0

        return mask_top

    @always_comb
    def mask_position():
        if (ordered[position] and (scan_all or last_position < position)
                and not (pv_valid and pv_position == position)):
            candidate.next = 1
        else:
            candidate.next = 0

    return mask_position


@block
def encoder_leaf(candidates, position, valid, index):
    """Encoder of positions ``position`` and ``position + 1`` (the first wins).

    candidates: Signal(intbv[64]) (in); position: constant, even;
    valid: either is set (out, bool); index: 1 when only the second is set (out, intbv[1]).
    """

    @always_comb
    def encode_pair():
        valid.next = candidates[position] or candidates[position + 1]
        if candidates[position]:
            index.next = 0
        else:
            index.next = 1

    return encode_pair


@block
def encoder_node(low_valid, low_index, high_valid, high_index, valid, index):
    """Merge two encoder halves of 2**k positions each: the low (higher-priority) half wins.

    low_valid, high_valid: bool (in); low_index, high_index: intbv[k] (in);
    valid: bool (out); index: intbv[k+1], top bit set when the high half was chosen (out).
    """

    @always_comb
    def merge():
        valid.next = low_valid or high_valid
        if low_valid:
            index.next = concat(False, low_index)
        else:
            index.next = concat(True, high_index)

    return merge


@block
def priority_encoder(candidates, valid, index):
    """Lowest set position of ``candidates`` (Signal(intbv[64])) as ``index`` (intbv[6]);
    ``valid`` = any is set. A binary tree built at elaboration time; ``nodes[(level, i)]``
    is ``(valid, index)`` for positions i*2**(level+1) .. (i+1)*2**(level+1)-1."""
    cells = []
    nodes = {}
    for pair in range(len(candidates) // 2):
        nodes[(0, pair)] = (Signal(bool(0)), Signal(intbv(0)[1:]))
        cells.append(encoder_leaf(candidates, 2 * pair, *nodes[(0, pair)]))
    level, width = 0, len(candidates) // 2
    while width > 1:
        for pair in range(width // 2):
            last = width == 2
            nodes[(level + 1, pair)] = ((valid, index) if last else
                                        (Signal(bool(0)), Signal(intbv(0)[level + 2:])))
            cells.append(encoder_node(*nodes[(level, 2 * pair)], *nodes[(level, 2 * pair + 1)],
                                      *nodes[(level + 1, pair)]))
        level, width = level + 1, width // 2
    return cells


@block
def node_order(legal, pv_valid, pv_move, first, last_move, found, next_move):
    """Next move of a node in priority order.

    legal:     Signal(intbv[64]) legal-move vector (in).
    pv_valid:  Signal(bool), pv_move is the principal-variation move to try first (in).
    pv_move:   Signal(intbv[6]) PV square (in).
    first:     Signal(bool), nothing explored yet: start at the top of the sequence (in).
    last_move: Signal(intbv[6]) the last move explored at this node (in, ignored with first).
    found:     Signal(bool), a next move exists (out).
    next_move: Signal(intbv[6]) the next move, 0 when not found (out).
    """
    ordered = ConcatSignal(*(legal(STATIC_ORDER[p]) for p in reversed(range(SQUARES))))
    pv_position = Signal(intbv(0)[6:])
    last_position = Signal(intbv(0)[6:])
    scan_all = Signal(bool(0))
    pv_first = Signal(bool(0))
    candidate_bits = {p: Signal(bool(0)) for p in range(SQUARES)}
    candidates = ConcatSignal(*(candidate_bits[p] for p in reversed(range(SQUARES))))
    any_candidate = Signal(bool(0))
    chosen_position = Signal(intbv(0)[6:])
    chosen_square = Signal(intbv(0)[6:])

    cells = [
        rom(pv_move, pv_position, POSITION_OF),
        rom(last_move, last_position, POSITION_OF),
        priority_encoder(candidates, any_candidate, chosen_position),
        rom(chosen_position, chosen_square, STATIC_ORDER),
    ]
    for position in range(SQUARES):
        cells.append(mask_cell(ordered, position, pv_valid, pv_position, scan_all, last_position,
                               candidate_bits[position]))

    @always_comb
    def pv_stage():
        scan_all.next = first or (pv_valid and last_move == pv_move)
        pv_first.next = pv_valid and first and legal[pv_move]

    @always_comb
    def choose_move():
        if pv_first:
            found.next = 1
            next_move.next = pv_move
        elif any_candidate:
            found.next = 1
            next_move.next = chosen_square
        else:
            found.next = 0
            next_move.next = 0

    return cells, pv_stage, choose_move


# The four quadrants a1-d4, e1-h4, a5-d8, e5-h8 (parity ordering) and each square's quadrant
QUADRANT_OF = tuple((square // 8 >= 4) * 2 + (square % 8 >= 4) for square in range(SQUARES))
QUADRANT_SQUARES = tuple(tuple(s for s in range(SQUARES) if QUADRANT_OF[s] == q) for q in range(4))


@block
def quadrant_parity(empty, enable, odd):
    """The squares of the quadrants that hold an odd number of empty squares.

    empty: Signal(intbv[64]) the empty squares (in); enable: Signal(bool) (in): without it every
    quadrant counts as odd; odd: Signal(intbv[64]) the squares of the odd quadrants (out).
    """
    counts = [count_signal(16) for _ in range(4)]
    cells = [popcount(empty, counts[q], QUADRANT_SQUARES[q]) for q in range(4)]
    count_0, count_1, count_2, count_3 = counts
    parity = Signal(intbv(0)[4:])
    squares = ConcatSignal(*(parity(QUADRANT_OF[s]) for s in reversed(range(SQUARES))))

    @always_comb
    def odd_quadrants():
        bits = intbv(0)[4:]
        bits[0] = count_0[0] or not enable
        bits[1] = count_1[0] or not enable
        bits[2] = count_2[0] or not enable
        bits[3] = count_3[0] or not enable
        parity.next = bits

    @always_comb
    def odd_squares():
        odd.next = squares

    return cells, odd_quadrants, odd_squares


@block
def parity_order(legal, empty, use_parity, pv_valid, pv_move, first, last_move, found, next_move):
    """Next move of a node in parity order: the PV move first (when ``pv_valid`` and legal), then
    the legal squares of the quadrants with an odd number of empty squares in the static order,
    then the others in the static order. Without ``use_parity`` every square counts as odd: the
    sequence is node_order's exactly.

    legal, empty: Signal(intbv[64]) the legal moves and the empty squares of the node (in).
    use_parity: Signal(bool) order by parity (in).
    pv_valid, pv_move, first, last_move, found, next_move: as node_order's.

    Two node_order walks without a PV, one over the odd part and one over the even part (the PV
    square masked out of both): the quadrant of the last move says which part the node is in, so
    no state is added; the even walk starts at its top when the odd part is exhausted.
    """
    odd_squares = Signal(intbv(0)[SQUARES:])
    pv_square = Signal(intbv(0)[SQUARES:])
    legal_odd = Signal(intbv(0)[SQUARES:])
    legal_even = Signal(intbv(0)[SQUARES:])
    odd_first = Signal(bool(0))
    even_first = Signal(bool(0))
    in_even_part = Signal(bool(0))
    odd_found = Signal(bool(0))
    even_found = Signal(bool(0))
    odd_move = Signal(intbv(0)[6:])
    even_move = Signal(intbv(0)[6:])
    no_pv_odd = Signal(bool(0))           # undriven: constant 0 (the walks have no PV)
    no_pv_even = Signal(bool(0))
    no_pv_move_odd = Signal(intbv(0)[6:])
    no_pv_move_even = Signal(intbv(0)[6:])

    cells = [
        quadrant_parity(empty, use_parity, odd_squares),
        node_order(legal_odd, no_pv_odd, no_pv_move_odd, odd_first, last_move, odd_found, odd_move),
        node_order(legal_even, no_pv_even, no_pv_move_even, even_first, last_move, even_found, even_move),
    ]

    @always_comb
    def pv_mask():
        square = intbv(0)[SQUARES:]
        if pv_valid:
            square[pv_move] = 1
        pv_square.next = square

    @always_comb
    def part_vectors():
        legal_odd.next = legal & odd_squares & ~pv_square
        legal_even.next = legal & ~odd_squares & ~pv_square

    @always_comb
    def walk_starts():
        # after the PV move (or at the first move) the odd walk starts at its top; after an
        # odd move the odd walk continues and the even walk is ready at its top
        in_even_part.next = not first and not (pv_valid and last_move == pv_move) and not odd_squares[last_move]
        odd_first.next = first or (pv_valid and last_move == pv_move)
        even_first.next = first or (pv_valid and last_move == pv_move) or odd_squares[last_move]

    @always_comb
    def choose_parity_move():
        if pv_valid and first and legal[pv_move]:
            found.next = 1
            next_move.next = pv_move
        elif in_even_part or not odd_found:
            found.next = even_found
            next_move.next = even_move
        else:
            found.next = 1
            next_move.next = odd_move

    return cells, pv_mask, part_vectors, walk_starts, choose_parity_move
