"""Disc Flipper (docs/spec.md §2, Tables 1-2): a whole move in one combinational pass.

Two cell networks per board, one cell per (square, direction):

* forward: the pattern network of ``rtl.cells`` (own disc, then a run of opponent discs);
* backward: flip counts. The cell at the move square, when the square is empty, takes the
  pattern ``v`` arriving from each direction ``d`` and sends ``v - 1`` back to its neighbour
  ``s - d`` when ``v >= 2``. A cell receiving a count ``f >= 1`` flips its disc and sends
  ``f - 1`` on in the same backward direction, so counts run down to zero exactly at the
  bracketing own disc (Table 2).

``flips[(s, d)]`` is the count cell ``s`` sends to ``s - d``; it exists exactly when
``pattern[(s - d, d)]`` (the pattern arriving at ``s`` from that side) exists.

A move that flips nothing (occupied square, square off the board such as 36..63 on 6x6,
or no bracket) is illegal: the board passes through unchanged and ``illegal`` is set.
"""

from myhdl import ConcatSignal, Signal, always_comb, block, intbv

from rtl.cells import pattern_network, pattern_signal, pattern_signals, predecessor_table
from rtl.geometry import DIRECTIONS, neighbour, opposite


@block
def placement_cell(own, opp, move, square, placing):
    """Whether the disc is placed on this square.

    own, opp: bitboards (in); move: move square (in); square: constant index;
    placing: ``move`` is this square and it is empty (out, bool).
    """

    @always_comb
    def detect_placement():
        if move == square and not own[square] and not opp[square]:
            placing.next = 1
        else:
            placing.next = 0

    return detect_placement


@block
def flip_origin_cell(placing, arriving, flip):
    """Backward cell with nothing behind it in the backward direction (the neighbour ahead,
    ``s + d``, is off the board): only the move square can start a count here.

    placing: the disc goes on this square (in); arriving: pattern arriving from ``s - d`` (in);
    flip: count sent back to ``s - d`` (out).
    """

    predecessor = predecessor_table(flip.max)

    @always_comb
    def originate_flips():
        if placing and arriving >= 2:
            flip.next = predecessor[int(arriving)]
        else:
            flip.next = 0

    return originate_flips


@block
def flip_cell(placing, arriving, incoming, flip):
    """Backward cell of Table 2.

    placing: the disc goes on this square (in); arriving: pattern arriving from ``s - d`` (in);
    incoming: count arriving from ``s + d`` (in); flip: count sent back to ``s - d`` (out).
    The move square starts a count; any other square relays ``incoming - 1`` (its own disc
    flips when ``incoming >= 1``).
    """

    predecessor = predecessor_table(flip.max)

    @always_comb
    def relay_flips():
        if placing and arriving >= 2:
            flip.next = predecessor[int(arriving)]
        elif incoming != 0:
            flip.next = predecessor[int(incoming)]
        else:
            flip.next = 0

    return relay_flips


@block
def flipped_cell(incoming, flipped):
    """Whether this square's disc flips.

    incoming: the counts arriving at the square from all its neighbours, concatenated (in);
    flipped: some count is non-zero (out, bool).
    """

    @always_comb
    def detect_flip():
        if incoming != 0:
            flipped.next = 1
        else:
            flipped.next = 0

    return detect_flip


def flip_signals(size):
    """``{(s, d): count signal}``: one for every square ``s`` whose neighbour ``s - d`` exists."""
    return {
        (square, direction): pattern_signal(size)
        for square in range(size * size)
        for direction in DIRECTIONS
        if neighbour(square, opposite(direction), size) is not None
    }


def incoming_flips(flips, square, size):
    """The counts arriving at ``square`` (sent by each neighbour ``s + d``) as one ConcatSignal.

    A plain function so that no list of Signals lands in the block namespace (MyHDL would
    take such a list for a memory).
    """
    incoming = []
    for direction in DIRECTIONS:
        ahead = neighbour(square, direction, size)
        if ahead is not None:
            incoming.append(flips[(ahead, direction)])
    return ConcatSignal(*incoming)


def bit_vector(bits, size):
    """``{square: bool signal}`` as one size*size-bit ConcatSignal, bit s = square s."""
    return ConcatSignal(*(bits[square] for square in reversed(range(size * size))))


@block
def disc_flipper(black, white, white_to_move, move, new_black, new_white, illegal, size=8):
    """Play one move.

    black, white:         Signal(intbv[size*size]) board (in).
    white_to_move:        Signal(bool), the side that plays (in).
    move:                 Signal(intbv[ceil(log2(size*size))]), square of the new disc (in).
    new_black, new_white: Signal(intbv[size*size]), the board after the move; equal to the
                          inputs when the move is illegal (out).
    illegal:              Signal(bool), the move square is occupied, off the board, or
                          flips nothing (out).
    size:                 board side N (elaboration-time constant).
    """
    squares = size * size
    own = Signal(intbv(0)[squares:])
    opp = Signal(intbv(0)[squares:])

    @always_comb
    def choose_sides():
        if white_to_move:
            own.next = white
            opp.next = black
        else:
            own.next = black
            opp.next = white

    patterns = pattern_signals(size)
    flips = flip_signals(size)
    placing = {square: Signal(bool(0)) for square in range(squares)}
    flipped = {square: Signal(bool(0)) for square in range(squares)}

    cells = [pattern_network(own, opp, patterns, size)]
    for square in range(squares):
        cells.append(placement_cell(own, opp, move, square, placing[square]))
        cells.append(flipped_cell(incoming_flips(flips, square, size), flipped[square]))
    for (square, direction), flip in flips.items():
        arriving = patterns[(neighbour(square, opposite(direction), size), direction)]
        ahead = neighbour(square, direction, size)
        if ahead is None:
            cells.append(flip_origin_cell(placing[square], arriving, flip))
        else:
            cells.append(flip_cell(placing[square], arriving, flips[(ahead, direction)], flip))

    flipped_vector = bit_vector(flipped, size)
    placed_vector = bit_vector(placing, size)

    @always_comb
    def apply_move():
        if flipped_vector == 0:
            illegal.next = 1
            new_black.next = black
            new_white.next = white
        elif white_to_move:
            illegal.next = 0
            new_black.next = black & ~flipped_vector
            new_white.next = white | flipped_vector | placed_vector
        else:
            illegal.next = 0
            new_black.next = black | flipped_vector | placed_vector
            new_white.next = white & ~flipped_vector

    return choose_sides, cells, apply_move
