"""Popcount: the number of set bits of a vector, summed by an adder tree built at elaboration
time. Used by the Stable Discs Evaluator (docs/spec.md §3, 64-input count) and the Evaluator (docs/spec.md §4:
corners, X-squares, mobility, discs).

Level 0 counts the selected bits in pairs (an odd one out gets a one-bit leaf); every further
level adds the previous level's sums in pairs, an odd one out moving up unchanged, until one
sum is left, which drives ``total``. Each sum is only as wide as the number of bits it covers
needs, and an operand more than one bit narrower than its sum (an odd one out) is
zero-extended explicitly, so every adder's result is at most one bit wider than its operands
(a carry), which Verilator's -Wall accepts without a width waiver.

The leaves read single bits of the vector through constant indices: the vector is one Signal,
so no Python list of Signals (which MyHDL would take for a memory) is ever built.
"""

from myhdl import ConcatSignal, Signal, always_comb, block, intbv


def count_signal(leaves):
    """A signal that holds any count of up to ``leaves`` set bits."""
    return Signal(intbv(0, min=0, max=leaves + 1))


def carry_width(operand, result_bits):
    """``operand`` as an adder input for a ``result_bits``-bit sum: zero-extended to
    result_bits - 1 bits when narrower (an odd one out moving up the tree is narrower than
    its partner; Verilator's -Wall accepts a one-bit carry, not a wider implicit extension)."""
    if len(operand) >= result_bits - 1:
        return operand
    return ConcatSignal(intbv(0)[result_bits - 1 - len(operand):], operand)


@block
def pair_count(bits, index_a, index_b, total):
    """Leaf of the tree: the number of set bits among ``bits[index_a]``, ``bits[index_b]``.

    bits: Signal(intbv) vector (in); index_a, index_b: constant bit indices;
    total: Signal(intbv(0, min=0, max=3)) (out). Written with conditions because VHDL has
    no ``+`` on std_logic.
    """

    @always_comb
    def count_pair():
        if bits[index_a] and bits[index_b]:
            total.next = 2
        elif bits[index_a] or bits[index_b]:
            total.next = 1
        else:
            total.next = 0

    return count_pair


@block
def bit_count(bits, index, total):
    """Leaf for an odd bit out: 1 when ``bits[index]`` is set.

    bits: Signal(intbv) vector (in); index: constant bit index;
    total: Signal(intbv(0, min=0, max=2)) (out).
    """

    @always_comb
    def count_bit():
        if bits[index]:
            total.next = 1
        else:
            total.next = 0

    return count_bit


@block
def adder(a, b, total):
    """Inner adder of the tree: ``total = a + b`` (total is wide enough)."""

    @always_comb
    def add():
        total.next = a + b

    return add


@block
def popcount(bits, total, indices=None):
    """Number of set bits of ``bits`` at ``indices``.

    bits:    Signal(intbv[n]) vector (in).
    total:   Signal(intbv(0, min=0, max=...)) able to hold len(indices) (out).
    indices: elaboration-time sequence of the bit positions to count (default: all n bits,
             at least one).

    ``sums[(level, index)]`` is ``(signal, number of bits it covers)``.
    """
    indices = tuple(range(len(bits))) if indices is None else tuple(indices)
    if not indices:
        raise ValueError("popcount needs at least one bit to count")
    if total.max is not None and total.max <= len(indices):
        raise ValueError(f"popcount total (max={total.max}) cannot hold {len(indices)}")

    cells = []
    sums = {}
    for index in range(len(indices) // 2):
        sums[(0, index)] = (count_signal(2), 2)
        cells.append(pair_count(bits, indices[2 * index], indices[2 * index + 1],
                                sums[(0, index)][0]))
    if len(indices) % 2:
        sums[(0, len(indices) // 2)] = (count_signal(1), 1)
        cells.append(bit_count(bits, indices[-1], sums[(0, len(indices) // 2)][0]))

    level, width = 0, (len(indices) + 1) // 2
    while width > 1:
        for index in range(width // 2):
            (a, a_bits), (b, b_bits) = sums[(level, 2 * index)], sums[(level, 2 * index + 1)]
            result = count_signal(a_bits + b_bits)
            sums[(level + 1, index)] = (result, a_bits + b_bits)
            cells.append(adder(carry_width(a, len(result)), carry_width(b, len(result)), result))
        if width % 2:
            sums[(level + 1, width // 2)] = sums[(level, width - 1)]
        level, width = level + 1, (width + 1) // 2
    root = sums[(level, 0)][0]

    @always_comb
    def drive_total():
        total.next = root

    return cells, drive_total


@block
def xor_pair(a, b, odd):
    """Leaf or inner node of a parity tree: ``odd = a ^ b`` (bools)."""

    @always_comb
    def exclusive_or():
        odd.next = a ^ b

    return exclusive_or


@block
def parity(bits, odd, indices):
    """Whether an odd number of ``bits[indices]`` are set: a tree of two-input XORs.

    bits:    Signal(intbv[n]) vector (in).
    odd:     Signal(bool) (out).
    indices: elaboration-time sequence of the bit positions (at least two).

    (The low bit of a popcount is the same value, but its unread upper bits fail Verilator's lint.)
    """
    if len(indices) < 2:
        raise ValueError("parity needs at least two bits")
    cells = []
    # nodes[(level, i)]: the parity of a run of the selected bits (dicts, not lists: MyHDL would
    # take a list of Signals for a memory)
    nodes = {(0, i): bits(index) for i, index in enumerate(indices)}
    level, width = 0, len(indices)
    while width > 2:
        for i in range(width // 2):
            nodes[(level + 1, i)] = Signal(bool(0))
            cells.append(xor_pair(nodes[(level, 2 * i)], nodes[(level, 2 * i + 1)], nodes[(level + 1, i)]))
        if width % 2:
            nodes[(level + 1, width // 2)] = nodes[(level, width - 1)]
        level, width = level + 1, (width + 1) // 2
    cells.append(xor_pair(nodes[(level, 0)], nodes[(level, 1)], odd))
    return cells
