"""The search engine's leaf value from the pattern evaluator (docs/spec.md §7 and §13; the engine
built with ``evaluator="pattern"``, rtl/search.py).

The pattern evaluator (rtl/pattern_evaluator.py) sums the weights of a board's pattern instances
and answers (``done``) in cycle 1 after its start edge for every board; it does not tell a
finished board apart. This block starts it with the engine's evaluator inputs and gives the
engine its leaf value: on a finished board (``terminal``, from the seed evaluator's move checkers
on the same latched board) 4 x (own discs - opp discs) saturated to -256..255, the pattern
evaluator's unit of a quarter disc, else the pattern value. ``terminal`` and the disc counts are
valid from cycle 0, before the pattern evaluator's ``done``.
"""

from myhdl import ConcatSignal, Signal, always_comb, block, intbv

from rtl.evaluator import difference, wide_signal
from rtl.pattern_evaluator import saturated, pattern_evaluator

# 4 x own - 4 x opp in quarter discs: each 0..256 (9 bits unsigned), the difference -256..256 (10 bits signed)
TERMINAL_WIDTH = 10


def quarter_discs(count):
    """4 x ``count`` (a 7-bit disc count) as a TERMINAL_WIDTH-bit unsigned shadow signal: two zero
    bits below it, one above (exact widths: no implicit widening or slicing of a signed value)."""
    return ConcatSignal(intbv(0)[TERMINAL_WIDTH - 2 - len(count):], count, intbv(0)[2:])


@block
def pattern_leaf(clk, rst, start, black, white, white_to_move, done, stage, terminal, discs_own, discs_opp,
                 value, weights=None):
    """The pattern evaluator and a finished board's value, as the engine's leaf value.

    clk, rst, start, black, white, white_to_move, done, stage: the pattern evaluator's ports
                    (rtl/pattern_evaluator.py: start latches the board, done in cycle 1 after the
                    start edge, stage the latched board's).
    terminal:       Signal(bool) the latched board is finished (in, valid from cycle 0).
    discs_own, discs_opp: Signal(intbv(0, min=0, max=65)) the latched board's discs of the side
                    to move and of the other side (in, valid from cycle 0).
    value:          Signal(intbv(0, min=-256, max=256)) the leaf value (out; valid with done):
                    4 x (discs_own - discs_opp) saturated when terminal, else the pattern value.
    weights:        golden.patterns.PatternWeights (conversion time; None: the committed file).
    """
    pattern_value = Signal(intbv(0, min=-256, max=256))
    quarters = wide_signal(TERMINAL_WIDTH)
    terminal_value = Signal(intbv(0, min=-256, max=256))
    cells = [
        pattern_evaluator(clk, rst, start, black, white, white_to_move, done, stage, pattern_value,
                          weights=weights),
        difference(quarter_discs(discs_own), quarter_discs(discs_opp), quarters),
        saturated(quarters, terminal_value),
    ]

    @always_comb
    def leaf_value():
        if terminal:
            value.next = terminal_value
        else:
            value.next = pattern_value

    return cells, leaf_value
