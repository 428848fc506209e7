"""The check of rtl/evaluator: the whole leaf evaluation of one node, every term and the exact
cycle of ``done`` against the golden evaluator, for the default and the heavy weights; the
positions at the edges of its stages and of its 9-bit range."""

import os
import random

from golden import positions as golden_positions
from golden.board import Position, popcount
from golden.evaluator import DEFAULT, HEAVY, STAGES, evaluate
from tb.checks.combinational import BlockCheck, Case
from tb.checks.responses import cycle_runs

WEIGHTS = {"evaluator": DEFAULT, "evaluator_heavy": HEAVY}
TERMS = ("corners", "xsquares", "mobility", "stable", "discs")
FIELDS = ("done_cycle", "terminal", "stage") + tuple(f"{t}_{s}" for t in TERMS for s in ("own", "opp")) + (
    "fixed", "adaptive")


def signed9(value):
    return value - 512 if isinstance(value, int) and value >= 256 else value


def stage_boundary_positions(rng):
    """Positions with 20, 21, 36, 37, 53 and 54 discs: the edges of the four game stages."""
    wanted, found = {20, 21, 36, 37, 53, 54}, []
    while wanted:
        for position in golden_positions.random_game_positions(rng):
            discs = popcount(position.black | position.white)
            if discs in wanted:
                wanted.discard(discs)
                found.append((f"stage boundary: {discs} discs", position))
    return found


def saturating_positions(weights, rng, tries=20000):
    """The first random positions whose raw fixed or adaptive value leaves -256..255, each way."""
    found = {}
    for _ in range(tries):
        position = (golden_positions.random_occupancy(rng) if rng.random() < 0.5
                    else rng.choice(golden_positions.random_game_positions(rng)))
        ev = evaluate(position, weights)
        for name, raw in (("fixed", ev.fixed_raw), ("adaptive", ev.adaptive_raw)):
            for sign, beyond in (("+", raw > 255), ("-", raw < -256)):
                if beyond and (name, sign) not in found:
                    found[(name, sign)] = (f"{name} saturates {sign} (raw {raw})", position)
    return list(found.values())


def dominated_positions():
    """One side holds ranks 1-6 (48 stable discs), the other rank 7: the fixed value's raw sum
    passes the 9-bit range under heavy weights (random boards rarely get there), both ways."""
    out = []
    for white_holds in (False, True):
        position = Position.from_own_opp((1 << 48) - 1, 0xFF << 48, white_holds)
        for pos in (position, position.swap_side()):
            out.append((f"{'O' if white_holds else 'X'} holds ranks 1-6, {pos.side} to move", pos))
    return out


class EvaluatorCheck(BlockCheck):
    block = "evaluator"

    def __init__(self):
        super().__init__()
        self.design = os.environ.get("GAMECHIP_DESIGN", "evaluator")
        self.weights = WEIGHTS.get(self.design, DEFAULT)

    def cases(self, positions, rng=None, exhaustive=False):
        positions = list(positions)
        if exhaustive:
            positions += stage_boundary_positions(random.Random(7))
            positions += saturating_positions(self.weights, random.Random(8)) + dominated_positions()
        return [Case(position, label) for label, position in positions]

    def stimulus(self, case):
        p = case.position
        return f"{self.board_hex(p.black)} {self.board_hex(p.white)} {int(p.white_to_move)}"

    def expected(self, case):
        ev = evaluate(case.position, self.weights)
        return (ev.done_cycle, int(ev.terminal), ev.stage, *ev.corners, *ev.xsquares, *ev.mobility,
                *ev.stable, *ev.discs, ev.fixed, ev.adaptive)

    def parse(self, lines, cases):
        out = []
        for run in cycle_runs(lines):
            last = run[-1]
            done_cycle = last[0] if last[1] == 1 and all(f[1] == 0 for f in run[:-1]) else -1
            out.append((done_cycle, *last[2:-2], signed9(last[-2]), signed9(last[-1])))
        return out

    def report(self, actual):
        values = dict(zip(FIELDS, actual))
        report = {t: [values[f"{t}_own"], values[f"{t}_opp"]] for t in TERMS}
        stage = values["stage"]
        report.update(stage=STAGES[stage] if isinstance(stage, int) and stage < 4 else stage,
                      fixed=values["fixed"], adaptive=values["adaptive"], terminal=bool(values["terminal"]),
                      done_cycle=values["done_cycle"])
        return report

    def explain(self, case, expected, actual):
        lines = [f"weights: {self.design} ({self.weights})", f"{'':<14}{'expected':>10}{'actual':>10}"]
        for name, want, got in zip(FIELDS, expected, actual):
            lines.append(f"{name:<14}{want!s:>10}{got!s:>10}" + ("   <-- differs" if want != got else ""))
        return lines
