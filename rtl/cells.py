"""The per-square pattern cell network shared by the move checker and the disc flipper.

docs/spec.md §2, Table 1. For every square ``s`` and flow direction ``d`` whose neighbour ``s+d``
is on the board, a cell at ``s`` computes ``pattern[s, d]`` and passes it on to ``s+d``:

    0      no pattern
    1      an own disc seen (at s)
    k + 1  an own disc, then k contiguous opponent discs ending at s

Cell rule: own disc -> 1; opponent disc with a non-zero pattern arriving from ``s-d`` ->
arriving + 1; anything else (empty square, or opponent disc with nothing arriving, or no
neighbour ``s-d`` on the board) -> 0. A pattern of 2 or more arriving at an empty square
means a disc placed there captures (pattern - 1) discs back towards ``s-d``.

A cell whose neighbour ``s+d`` is off the board would send its pattern nowhere, so it is
not built. The longest run that still has a receiver is an own disc plus N-2 opponent
discs, so patterns fit in ``intbv(0, min=0, max=N)`` (3 bits for N=8, 2 bits for N=4).

The network is kept in a dict keyed by (square, direction): a Signal may belong to only
one Python list in MyHDL, and a list of Signals would be converted as a memory.
"""

from myhdl import Signal, always_comb, block, intbv

from rtl.geometry import DIRECTIONS, neighbour, opposite


def pattern_signal(size):
    """A fresh signal wide enough for one pattern (or flip count) on a size x size board."""
    return Signal(intbv(0, min=0, max=size))


@block
def line_start_cell(own, square, pattern):
    """Pattern cell with no neighbour behind it: it can only start a pattern (an opponent
    disc with nothing behind it ends every pattern, so the opponent board is not needed).

    own: own bitboard (in); square: constant index; pattern: this cell's pattern (out).
    """

    @always_comb
    def start_pattern():
        if own[square]:
            pattern.next = 1
        else:
            pattern.next = 0

    return start_pattern


def successor_table(size):
    """v -> v + 1 for every pattern value (the largest, which no receiver ever sees, wraps
    to 0 as the adder did). A table, not an adder: synthesis maps a 3-bit ROM into plain LUTs,
    and an adder into a carry chain per cell (on iCE40 a chain of SB_CARRY and LUTs around it,
    for thousands of cells)."""
    width = len(pattern_signal(size))
    return tuple((v + 1) % (1 << width) for v in range(1 << width))


def predecessor_table(size):
    """v -> v - 1 for every pattern or count value (0, which no cell ever decrements, wraps
    to the largest as the subtractor did); a table for the reason of successor_table."""
    width = len(pattern_signal(size))
    return tuple((v - 1) % (1 << width) for v in range(1 << width))


@block
def pattern_cell(own, opp, square, arriving, pattern):
    """Pattern cell of Table 1.

    own, opp: board bitboards (in); square: constant index; arriving: pattern of the
    neighbour behind (in); pattern: this cell's pattern, sent to the neighbour ahead (out).
    """

    successor = successor_table(pattern.max)

    @always_comb
    def extend_pattern():
        if own[square]:
            pattern.next = 1
        elif opp[square] and arriving != 0:
            pattern.next = successor[int(arriving)]
        else:
            pattern.next = 0

    return extend_pattern


def pattern_signals(size):
    """The pattern signals of a size x size board: ``{(s, d): signal}``, one for every square
    ``s`` and direction ``d`` whose neighbour ``s+d`` exists (the signal cell ``s`` sends it).

    Created apart from the cells because MyHDL only accepts instances created directly in a
    block function, so the network block cannot hand its signals back.
    """
    return {
        (square, direction): pattern_signal(size)
        for square in range(size * size)
        for direction in DIRECTIONS
        if neighbour(square, direction, size) is not None
    }


@block
def pattern_network(own, opp, patterns, size):
    """All pattern cells of a size x size board.

    own, opp: bitboards of the player to move and the opponent (in).
    patterns: the dict made by ``pattern_signals(size)``; every signal in it is driven here (out).
    """
    cells = []
    for (square, direction), pattern in patterns.items():
        behind = neighbour(square, opposite(direction), size)
        if behind is None:
            cells.append(line_start_cell(own, square, pattern))
        else:
            arriving = patterns[(behind, direction)]
            cells.append(pattern_cell(own, opp, square, arriving, pattern))
    return cells


def arriving_patterns(patterns, square, size):
    """The patterns arriving at ``square``, as ``{direction: signal}`` (from ``square - d``)."""
    arriving = {}
    for direction in DIRECTIONS:
        behind = neighbour(square, opposite(direction), size)
        if behind is not None:
            arriving[direction] = patterns[(behind, direction)]
    return arriving
