"""The distributed arbiter: among candidate squares, the one of the first priority level, and
within it the lowest square, strictly after a mask point (level, square).

Each square's cell decides alone whether it is still in the race (its level from the level
planes, compared with the mask point); the level planes then select the first level with a
square left, and the priority encoder of the Othello node ordering (a tree of encoder nodes)
picks its lowest square. Used twice by the move generator: victims (levels Q R B N P empty) and
attackers (levels P N B R Q K).
"""

from myhdl import ConcatSignal, Signal, always_comb, block, intbv

from rtl.node_order import priority_encoder

LEVELS = 6


@block
def arbiter_cell(candidates, plane0, plane1, plane2, plane3, plane4, plane5, square, mask_on,
                 mask_level, mask_square, enabled):
    """Square ``square`` (a constant) is enabled when it is a candidate and its (level, square)
    comes after (mask_level, mask_square), or the mask is off."""

    if square == 0:  # nothing has a lower square (and "< 0" would be a constant)
        @always_comb
        def enable_first():
            level = intbv(0)[3:]
            if plane0[0]:
                level[:] = 0
            elif plane1[0]:
                level[:] = 1
            elif plane2[0]:
                level[:] = 2
            elif plane3[0]:
                level[:] = 3
            elif plane4[0]:
                level[:] = 4
            else:
                level[:] = 5
            enabled.next = candidates[0] and (not mask_on or mask_level < level)

        return enable_first

    @always_comb
    def enable():
        level = intbv(0)[3:]
        if plane0[square]:
            level[:] = 0
        elif plane1[square]:
            level[:] = 1
        elif plane2[square]:
            level[:] = 2
        elif plane3[square]:
            level[:] = 3
        elif plane4[square]:
            level[:] = 4
        else:
            level[:] = 5
        enabled.next = candidates[square] and (
            not mask_on or mask_level < level or (mask_level == level and mask_square < square))

    return enable


@block
def level_select(enabled, plane0, plane1, plane2, plane3, plane4, plane5, chosen, chosen_level):
    """The enabled squares of the first level that has any (and that level, unless
    ``chosen_level`` is None)."""

    if chosen_level is None:
        @always_comb
        def select_squares():
            if (enabled & plane0) != 0:
                chosen.next = enabled & plane0
            elif (enabled & plane1) != 0:
                chosen.next = enabled & plane1
            elif (enabled & plane2) != 0:
                chosen.next = enabled & plane2
            elif (enabled & plane3) != 0:
                chosen.next = enabled & plane3
            elif (enabled & plane4) != 0:
                chosen.next = enabled & plane4
            else:
                chosen.next = enabled & plane5

        return select_squares

    @always_comb
    def select():
        if (enabled & plane0) != 0:
            chosen.next = enabled & plane0
            chosen_level.next = 0
        elif (enabled & plane1) != 0:
            chosen.next = enabled & plane1
            chosen_level.next = 1
        elif (enabled & plane2) != 0:
            chosen.next = enabled & plane2
            chosen_level.next = 2
        elif (enabled & plane3) != 0:
            chosen.next = enabled & plane3
            chosen_level.next = 3
        elif (enabled & plane4) != 0:
            chosen.next = enabled & plane4
            chosen_level.next = 4
        else:
            chosen.next = enabled & plane5
            chosen_level.next = 5

    return select


@block
def arbiter(candidates, plane0, plane1, plane2, plane3, plane4, plane5, mask_on, mask_level,
            mask_square, found, level, square):
    """candidates: Signal(intbv[64]); plane0..plane5: the level planes (a candidate lies in
    exactly one); mask_on, mask_level (intbv[3]), mask_square (intbv[6]): only candidates after
    that point compete. found: any did; level, square: the winner (out; level may be None when unused)."""
    planes = (plane0, plane1, plane2, plane3, plane4, plane5)
    enabled_bits = {s: Signal(bool(0)) for s in range(64)}
    enabled = ConcatSignal(*(enabled_bits[s] for s in reversed(range(64))))
    chosen = Signal(intbv(0)[64:])
    cells = [arbiter_cell(candidates, *planes, s, mask_on, mask_level, mask_square, enabled_bits[s])
             for s in range(64)]
    cells.append(level_select(enabled, *planes, chosen, level))
    cells.append(priority_encoder(chosen, found, square))
    return cells
