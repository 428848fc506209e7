"""Stable Discs Evaluator (docs/spec.md §3): the stable discs of one colour, iterated one layer a cycle.

Rule: a disc is stable when on each of the 4 axes one of its two neighbours is a stable disc
of its colour or off the board; the stable set is the least fixed point. Hardware:

* Border squares are combinational. Off-board neighbours satisfy every axis that crosses
  the edge, leaving only the axis along the edge, so a border disc is stable exactly when a
  run of own discs along the border joins it to an own corner. Each corner starts two
  chains of links (one per border direction) that run along the border towards the next
  corner; a border square is stable when one of the two links reaching it is set.
* The (N-2)^2 inner squares have a flip-flop each, cleared at ``start`` and updated every
  cycle while busy from the current stable output, so the set grows layer by layer from
  the edges inward: in cycle j after ``start`` the stable output is S_j of the golden model.
* ``done`` = busy and no inner flip-flop would change on the next edge; busy clears on the
  edge after ``done``. Outputs then hold until the next ``start``.
* Shortcut: when all four corners are empty at ``start``, nothing can be stable, so the
  block answers at once (done in cycle 0, stable = 0, count = 0) through an explicit gate.
* ``count`` is the popcount of the stable output, summed by the adder tree of
  ``rtl.popcount`` (built at elaboration time, pairs of signals added level by level).
"""

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, intbv

from rtl.contexts import Stages, late_register
from rtl.geometry import neighbour, opposite
from rtl.popcount import count_signal, popcount

WEST, EAST, SOUTH, NORTH = (0, -1), (0, 1), (-1, 0), (1, 0)
SOUTH_WEST, NORTH_EAST, SOUTH_EAST, NORTH_WEST = (-1, -1), (1, 1), (-1, 1), (1, -1)


def corners(size):
    """A1, H1, A8, H8 (for size 8) as square indices."""
    return (0, size - 1, size * (size - 1), size * size - 1)


def border_directions(corner, size):
    """The two directions that lead from ``corner`` along the border into the board."""
    return [d for d in (EAST, WEST, NORTH, SOUTH) if neighbour(corner, d, size) is not None]


def is_border(square, size):
    """Whether ``square`` lies on the outer ring of the board."""
    row, col = divmod(square, size)
    return row in (0, size - 1) or col in (0, size - 1)


@block
def corner_cell(own, square, stable_bit):
    """A corner has an off-board neighbour on every axis: stable iff own.

    own: latched own bitboard (in); square: constant index; stable_bit: (out, bool).
    """

    @always_comb
    def corner_stable():
        stable_bit.next = own[square]

    return corner_stable


@block
def chain_link(own, square, behind, link):
    """One link of a border chain: own disc here and the chain reaches the square behind.

    own: latched own bitboard (in); square: constant index; behind: link (or corner) of the
    previous square on the way from the corner (in); link: (out, bool).
    """

    @always_comb
    def extend_chain():
        link.next = own[square] and behind

    return extend_chain


@block
def border_cell(link_a, link_b, stable_bit):
    """A non-corner border square is stable when a chain from either end reaches it.

    link_a, link_b: the two chain links at this square (in); stable_bit: (out, bool).
    """

    @always_comb
    def border_stable():
        stable_bit.next = link_a or link_b

    return border_stable


@block
def inner_cell(clk, rst, start, busy, own, square, west, east, south, north,
               south_west, north_east, south_east, north_west, stable_ff, pending, contexts=1):
    """Flip-flop of one inner square.

    clk, rst, start, busy: control (in; ``busy`` as the control's stage sees it, rtl/contexts.py);
    own: latched own bitboard (in); square: constant index; west .. north_west: current stable
    bits of the 8 neighbours (in); stable_ff: the flip-flop (out, bool); pending: it would change
    on the next edge (out, bool); contexts: interleaved contexts (elaboration time).
    """
    stages = Stages(contexts)
    supported = Signal(bool(0))
    supported_late = stages.late(supported)
    stable_late = stages.late(stable_ff)

    @always_comb
    def check_axes():
        supported.next = (own[square] and (west or east) and (south or north)
                          and (south_west or north_east) and (south_east or north_west))

    @always_comb
    def detect_change():
        pending.next = supported != stable_ff

    @always_seq(clk.posedge, reset=rst)
    def update():
        if start:
            stable_ff.next = 0
        elif busy:
            stable_ff.next = supported_late
        else:
            stable_ff.next = stable_late

    late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]

    return late_cells, check_axes, detect_change, update


@block
def border_network(own, stable_bits, size):
    """Corner cells, border chains and border cells.

    own: latched own bitboard (in); stable_bits: dict square -> bool signal, whose border
    entries are driven here (out).
    """
    cells = []
    links = {}
    for corner in corners(size):
        cells.append(corner_cell(own, corner, stable_bits[corner]))
        for direction in border_directions(corner, size):
            behind = stable_bits[corner]
            square = neighbour(corner, direction, size)
            while square not in corners(size):
                links[(square, direction)] = Signal(bool(0))
                cells.append(chain_link(own, square, behind, links[(square, direction)]))
                behind = links[(square, direction)]
                square = neighbour(square, direction, size)

    for (square, direction), link in links.items():
        if direction in (EAST, NORTH):
            cells.append(border_cell(link, links[(square, opposite(direction))],
                                     stable_bits[square]))
    return cells


@block
def stable_discs(clk, rst, start, black, white, color, done, count, stable, size=8, contexts=1):
    """Stable discs of one colour.

    clk:          Signal(bool) clock (in).
    rst:          ResetSignal(0, active=1, isasync=False), clears busy, flip-flops and the
                  latched board (in).
    start:        Signal(bool), latch the board and start iterating on this edge (in).
    black, white: Signal(intbv[size*size]) board (in); only read on the start edge.
    color:        Signal(bool), 0 = black's stable discs, 1 = white's (in, read with start).
    done:         Signal(bool), the stable set is the fixed point (out, combinational).
    count:        Signal(intbv(0, min=0, max=size*size+1)), popcount of ``stable`` (out).
    stable:       Signal(intbv[size*size]), current stable set (out), or None when the
                  instantiating block does not use it (the evaluator): then it is not built,
                  so no unread signal is left for Verilator's -Wall.
    size:         board side N, even (elaboration-time constant).
    contexts:     interleaved contexts (elaboration time, rtl/contexts.py): with 2, ``start``,
                  the board and ``color`` are read, and ``done`` given, in stage 1, ``count`` in
                  stage 0; ``stable`` must then be None.
    """
    if contexts > 1 and stable is not None:
        raise ValueError("an interleaved stable_discs exports no stable set")
    stages = Stages(contexts)
    squares = size * size
    corner_a, corner_b, corner_c, corner_d = corners(size)

    own = Signal(intbv(0)[squares:])
    corners_empty = Signal(bool(0))
    busy = Signal(bool(0))
    finished = Signal(bool(0))
    settled = Signal(bool(0))
    total = count_signal(squares)
    busy_late = stages.late(busy)
    own_late = stages.late(own)
    corners_empty_late = stages.late(corners_empty)

    stable_bits = {square: Signal(bool(0)) for square in range(squares)}
    pending_bits = {square: Signal(bool(0)) for square in range(squares)
                    if not is_border(square, size)}

    cells = [border_network(own, stable_bits, size)]
    for square in pending_bits:
        near = {d: stable_bits[neighbour(square, d, size)]
                for d in (WEST, EAST, SOUTH, NORTH, SOUTH_WEST, NORTH_EAST, SOUTH_EAST, NORTH_WEST)}
        cells.append(inner_cell(clk, rst, start, busy_late, own, square,
                                near[WEST], near[EAST], near[SOUTH], near[NORTH],
                                near[SOUTH_WEST], near[NORTH_EAST], near[SOUTH_EAST],
                                near[NORTH_WEST], stable_bits[square], pending_bits[square],
                                contexts=contexts))

    stable_vector = ConcatSignal(*(stable_bits[s] for s in reversed(range(squares))))
    cells.append(popcount(stable_vector, total))
    pending_vector = ConcatSignal(*(pending_bits[s] for s in sorted(pending_bits, reverse=True)))
    settled_late = stages.late(settled)

    @always_comb
    def detect_settled():
        settled.next = pending_vector == 0

    @always_seq(clk.posedge, reset=rst)
    def control():
        busy.next = busy_late
        own.next = own_late
        corners_empty.next = corners_empty_late
        if start:
            busy.next = 1
            if color:
                own.next = white
            else:
                own.next = black
            corners_empty.next = (not black[corner_a] and not white[corner_a]
                                  and not black[corner_b] and not white[corner_b]
                                  and not black[corner_c] and not white[corner_c]
                                  and not black[corner_d] and not white[corner_d])
        elif finished:
            busy.next = 0

    @always_comb
    def detect_done():
        finished.next = busy_late and (corners_empty_late or settled_late)

    if stable is None:
        @always_comb
        def drive_count():
            done.next = finished
            if corners_empty:
                count.next = 0
            else:
                count.next = total

        late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]

        return late_cells, cells, detect_settled, control, detect_done, drive_count

    @always_comb
    def drive_outputs():
        done.next = finished
        if corners_empty:
            stable.next = 0
            count.next = 0
        else:
            stable.next = stable_vector
            count.next = total

    late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]

    return late_cells, cells, detect_settled, control, detect_done, drive_outputs
