"""The check of rtl/pattern_evaluator: the stage, the saturated pattern value and the exact cycle
of ``done`` of one board against golden/patterns.py (the committed weight file); the boards at
the stage limits, instances at the ends of their index range (all empty, all own, all the
opponent's), the value saturated at both ends, and (make test-full) every entry of every table.
"""

import random

from golden import positions as golden_positions
from golden.board import Position, popcount
from golden.patterns import (INSTANCES, PATTERN_DONE_CYCLE, PATTERN_NAMES, PATTERN_NUMBER, VALUE_MAX, VALUE_MIN,
                             default_weights, digits_of, instance_index, pattern_instances, table_size)
from tb.checks.combinational import BlockCheck, Case
from tb.checks.evaluator import signed9
from tb.checks.responses import cycle_runs

FIELDS = ("done_cycle", "stage", "value")


def raw_sum(own, opp, weights):
    """The pattern sum of the board before saturation, and its stage."""
    stage = weights.stage(popcount(own | opp))
    tables = weights.tables[stage]
    return sum(tables[PATTERN_NUMBER[inst.pattern]][instance_index(inst, own, opp)] for inst in INSTANCES), stage


def pattern_answer(position, weights):
    """What the block answers for ``position``: (done cycle, stage, value)."""
    raw, stage = raw_sum(position.own, position.opp, weights)
    value = VALUE_MIN if raw < VALUE_MIN else VALUE_MAX if raw > VALUE_MAX else raw
    return PATTERN_DONE_CYCLE, stage, value


def stage_limit_positions(weights, rng):
    """Game positions with every stage limit's disc count and one more: both sides of each
    stage boundary."""
    wanted = {count for limit in weights.stage_limits for count in (limit, limit + 1)}
    found = []
    while wanted:
        for position in golden_positions.random_game_positions(rng):
            discs = popcount(position.black | position.white)
            if discs in wanted:
                wanted.discard(discs)
                found.append((f"stage limit: {discs} discs", position))
    return found


def saturating_positions(weights, rng, tries=400):
    """The first game positions whose raw sum leaves -256..255, each way (they exist with the
    committed file: game positions reach about -300 and +350)."""
    found = {}
    for _ in range(tries):
        for position in golden_positions.random_game_positions(rng):
            raw, _ = raw_sum(position.own, position.opp, weights)
            for sign, beyond in (("+", raw > VALUE_MAX), ("-", raw < VALUE_MIN)):
                if beyond and sign not in found:
                    found[sign] = (f"value saturates {sign} (raw {raw})", position)
        if len(found) == 2:
            break
    return list(found.values())


def extreme_index_positions(rng):
    """For every pattern and every instance of it, boards on which that instance is all own,
    all the opponent's and all empty, the rest of the board random (the ends of its index
    range: the highest and lowest ROM addresses and the all-ones digit pattern)."""
    out = []
    for name in PATTERN_NAMES:
        for number, instance in enumerate(pattern_instances(name)):
            mask = sum(1 << square for square in instance.squares)
            for kind in ("own", "opp", "empty"):
                base = golden_positions.random_occupancy(rng)
                own, opp = base.own & ~mask, base.opp & ~mask
                if kind == "own":
                    own |= mask
                elif kind == "opp":
                    opp |= mask
                out.append((f"{name} instance {number} all {kind}", Position.from_own_opp(own, opp, rng.random() < 0.5)))
    return out


def table_entry_positions(weights, rng):
    """Every entry of every table of every stage as a board (make test-full): the entry's index
    written into one instance of its pattern (the instances taking turns, so every ROM port and
    both read phases serve), the other squares filled at random up to a disc count of the
    entry's stage; a fill whose sum saturates is drawn again, so that the entry shows in the value."""
    limits = (3,) + tuple(weights.stage_limits) + (64,)
    out = []
    for stage in range(weights.stages):
        low, high = limits[stage] + 1, limits[stage + 1]
        for name in PATTERN_NAMES:
            instances = pattern_instances(name)
            for index in range(table_size(name)):
                instance = instances[index % len(instances)]
                own = opp = 0
                for square, digit in zip(instance.squares, digits_of(index, len(instance.squares))):
                    own |= (digit == 1) << square
                    opp |= (digit == 2) << square
                free = [square for square in range(64) if square not in instance.squares]
                placed = popcount(own | opp)
                for _ in range(20):
                    target = rng.randint(max(low, placed), min(high, placed + len(free)))
                    fill = rng.sample(free, target - placed)
                    own_fill = sum(1 << square for square in fill if rng.random() < 0.5)
                    board_own, board_opp = own | own_fill, opp | (sum(1 << square for square in fill) & ~own_fill)
                    raw, at_stage = raw_sum(board_own, board_opp, weights)
                    if at_stage == stage and VALUE_MIN <= raw <= VALUE_MAX:
                        break
                out.append((f"table entry: stage {stage} {name} index {index}",
                            Position.from_own_opp(board_own, board_opp, rng.random() < 0.5)))
    return out


class PatternEvaluatorCheck(BlockCheck):
    block = "pattern_evaluator"

    def __init__(self, every_entry=False):
        super().__init__()
        self.weights = default_weights()
        self.every_entry = every_entry

    def cases(self, positions, rng=None, exhaustive=False):
        positions = list(positions)
        if exhaustive:
            positions += stage_limit_positions(self.weights, random.Random(7))
            positions += saturating_positions(self.weights, random.Random(8))
            positions += extreme_index_positions(random.Random(9))
            if self.every_entry:
                positions += table_entry_positions(self.weights, random.Random(10))
        return [Case(position, label) for label, position in positions]

    def stimulus(self, case):
        p = case.position
        return f"{self.board_hex(p.black)} {self.board_hex(p.white)} {int(p.white_to_move)}"

    def expected(self, case):
        return pattern_answer(case.position, self.weights)

    def parse(self, lines, cases):
        out = []
        for run in cycle_runs(lines):
            last = run[-1]
            done_cycle = last[0] if last[1] == 1 and all(f[1] == 0 for f in run[:-1]) else -1
            out.append((done_cycle, last[2], signed9(last[3])))
        return out

    def report(self, actual):
        return dict(zip(FIELDS, actual))

    def explain(self, case, expected, actual):
        raw, stage = raw_sum(case.position.own, case.position.opp, self.weights)
        lines = [f"weights: golden/pattern_weights.txt; golden raw sum {raw} (stage {stage})",
                 f"{'':<12}{'expected':>10}{'actual':>10}"]
        for name, want, got in zip(FIELDS, expected, actual):
            lines.append(f"{name:<12}{want!s:>10}{got!s:>10}" + ("   <-- differs" if want != got else ""))
        return lines
