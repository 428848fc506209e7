"""Move Checker (docs/spec.md §1): the legal-move vector of one player, combinational.

Built on the pattern network of ``rtl.cells``: square ``s`` is legal when it is empty and a
pattern of 2 or more (own disc, then at least one opponent disc) arrives at it from some
direction. Corner, edge and inner squares have 3, 5 and 8 arriving patterns, so each square
gathers them with ConcatSignal and tests them at once: "pattern >= 2" is "some bit above
bit 0 is set", a constant mask over the concatenation. (Slicing off bit 0 instead would
leave bits that Verilator's -Wall reports as unused.)
"""

from myhdl import ConcatSignal, Signal, always_comb, block

from rtl.cells import arriving_patterns, pattern_network, pattern_signals


def gather_arriving(patterns, square, size):
    """The patterns arriving at ``square`` as one ConcatSignal, and the constant mask that
    selects bits 1 and up of each pattern field in it.

    A plain function so that no list of Signals lands in the block namespace (MyHDL would
    take such a list for a memory).
    """
    arriving = list(arriving_patterns(patterns, square, size).values())
    pattern_bits = len(arriving[0])
    capture_field = (1 << pattern_bits) - 2
    capture_mask = sum(capture_field << (index * pattern_bits) for index in range(len(arriving)))
    return ConcatSignal(*arriving), capture_mask


@block
def legal_cell(own, opp, square, arriving, capture_mask, legal_bit):
    """Legality of one square.

    own, opp: bitboards (in); square: constant index; arriving: the patterns arriving at
    ``square``, concatenated (in); capture_mask: constant int with bits 1 and up of every
    pattern field set; legal_bit: the square is legal (out, bool).
    """

    @always_comb
    def decide_legal():
        if not own[square] and not opp[square] and (arriving & capture_mask) != 0:
            legal_bit.next = 1
        else:
            legal_bit.next = 0

    return decide_legal


@block
def move_checker(own, opp, legal, size=8):
    """Legal moves of the player owning ``own``.

    own, opp: Signal(intbv[size*size]) bitboards of the player to move and the opponent (in).
    legal:    Signal(intbv[size*size]), bit s set when square s is a legal move (out).
    size:     board side N (elaboration-time constant).
    """
    patterns = pattern_signals(size)
    instances = [pattern_network(own, opp, patterns, size)]

    legal_bits = {}
    for square in range(size * size):
        arriving, capture_mask = gather_arriving(patterns, square, size)
        legal_bits[square] = Signal(bool(0))
        instances.append(legal_cell(own, opp, square, arriving, capture_mask, legal_bits[square]))

    legal_vector = ConcatSignal(*(legal_bits[square] for square in reversed(range(size * size))))

    @always_comb
    def drive_legal():
        legal.next = legal_vector

    return instances, drive_legal
