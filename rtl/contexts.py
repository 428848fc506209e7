"""Interleaved search contexts (C-slow retiming) for the engine and its evaluator.

A design built with ``contexts=2`` runs two independent searches at once, one register stage
apart. Its logic is cut in two *stages*: stage 0 reads the state registers as they are,
stage 1 reads them one clock later (``late`` copies) together with stage 0's results
(``late`` copies of them too), and writes the state registers' next values. Every loop of the
original design therefore has two registers, and the two contexts take turns: in every cycle
one context is in stage 0 and the other in stage 1, and each context sees exactly the
one-context schedule, one step every two clocks. Nothing in a context's behaviour changes:
not its nodes, not their order, not its cycle count (``cycles`` counts the context's own
steps), so the golden model's cycle schedule holds for each context unchanged.

What pays for it is the clock: stage 0 (the move checkers, node ordering, the evaluator up to
its weighted sums) and stage 1 (the disc flipper, the saturation, the fold and the control) each
hold about half of the one-context design's longest path. Per-level memories are
addressed by context and level; a register that the control does not assign in a cycle takes
its ``late`` copy (the same context's value), never the other context's.

With ``contexts=1`` (every design but the multi-context engine) ``late`` returns the signal
itself and no register is added: the design is the one-context design.
"""

from myhdl import Signal, always_seq, block

CONTEXT_CHOICES = (1, 2)


@block
def late_register(clk, rst, source, copy):
    """copy = source one clock later (reset to its initial value, as the source is)."""

    @always_seq(clk.posedge, reset=rst)
    def delay():
        copy.next = source

    return delay


class Stages:
    """The ``late`` copies of one design (or sub-block) with ``contexts`` contexts.

    ``late(signal)`` is the signal as stage 1 sees it; ``pairs`` are (signal, copy), which the
    block instantiates as ``late_register`` cells after its last ``late`` (MyHDL wants every
    cell made in the block's own function): none with one context."""

    def __init__(self, contexts):
        if contexts not in CONTEXT_CHOICES:
            raise ValueError(f"contexts must be one of {CONTEXT_CHOICES}, got {contexts!r}")
        self.contexts = contexts
        self.pairs = []

    @property
    def interleaved(self):
        return self.contexts > 1

    def late(self, signal):
        if not self.interleaved:
            return signal
        copy = Signal(signal.val)
        self.pairs.append((signal, copy))
        return copy
