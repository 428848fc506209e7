"""The check of rtl/node_order: a legal vector walked to exhaustion (select, feed the selection
back as the last move, repeat until nothing is found), every selection against the golden
priority order, with and without a PV move."""

from golden.board import square_name, squares_of
from golden.ordering import next_move, ordered_moves
from golden.othello import legal_moves
from tb.checks.combinational import BlockCheck, Case, hex_field
from tb.checks.responses import split_steps

ALL = (1 << 64) - 1
CORNERS = (0, 7, 56, 63)
X_SQUARES = (9, 14, 49, 54)


def raw_vectors():
    """Legal vectors no position produces but the hardware must handle: 0, 1 and 64 bits."""
    vectors = [("no legal move", 0, None), ("all 64 squares", ALL, None)]
    vectors += [(f"all 64 squares, pv {square_name(pv)}", ALL, pv) for pv in CORNERS + X_SQUARES + (27, 63)]
    vectors += [(f"single square {square_name(s)}", 1 << s, None) for s in range(64)]
    vectors += [(f"single square {square_name(s)}, pv on it", 1 << s, s) for s in range(64)]
    vectors += [("corners and X-squares only", sum(1 << s for s in CORNERS + X_SQUARES), None)]
    return vectors


def pv_choices(legal):
    """No PV; a legal PV that is last in the static order (so PV-first changes the walk);
    a PV that is not legal (it must be skipped)."""
    choices = [None]
    moves = ordered_moves(legal)
    if moves:
        choices.append(moves[-1])
    illegal = next((s for s in range(64) if not legal >> s & 1), None)
    if illegal is not None:
        choices.append(illegal)
    return choices


def walk_case(position, label, legal, pv):
    """A case whose ``moves`` are the selections fed back as ``last_move``, one per step. They
    come from the golden order (a batch cannot feed the block's own answers back), so the walk
    is checked step by step up to its first divergence."""
    return Case(position, label, legal=legal, pv=pv, moves=tuple(ordered_moves(legal, pv)))


class NodeOrderCheck(BlockCheck):
    """A value is the list of (found, next_move) answers along the walk."""

    block = "node_order"

    def cases(self, positions, rng=None, exhaustive=False):
        out = []
        for label, position in positions:
            legal = legal_moves(position.own, position.opp)
            if exhaustive:
                out += [walk_case(position, label, legal, pv) for pv in pv_choices(legal)]
            else:
                roll = rng.random()
                pv = None if roll < 0.34 else rng.choice(squares_of(legal) or [0]) if roll < 0.67 else rng.randrange(64)
                out.append(walk_case(position, label, legal, pv))
                out.append(walk_case(position, label + " (random vector)", rng.getrandbits(64),
                                     rng.choice([None, rng.randrange(64)])))
        if exhaustive:
            start = positions[0][1]
            out += [walk_case(start, label, legal, pv) for label, legal, pv in raw_vectors()]
        return out

    def stimulus(self, case):
        # The inputs the block must not look at, pv_move without pv_valid and last_move with
        # first, carry stale squares (as registers hold them), spread over the board by the legal
        # vector, not 0: a block that reads pv_move without pv_valid would pass every walk that
        # drove 0 there.
        stale = (case.legal * 0x9E3779B97F4A7C15) >> 52
        pv_valid, pv = int(case.pv is not None), case.pv if case.pv is not None else stale & 63
        steps = (None,) + case.moves
        return "\n".join(
            f"{case.legal:016x} {pv_valid} {pv:02x} {int(last is None)} {(stale >> 6 & 63 if last is None else last):02x}"
            for last in steps)

    def expected(self, case):
        answers, last = [], None
        while True:
            chosen = next_move(case.legal, last, case.pv)
            answers.append((0, 0) if chosen is None else (1, chosen))
            if chosen is None:
                return answers
            last = chosen

    def parse(self, lines, cases):
        return split_steps([tuple(hex_field(f) for f in line.split()) for line in lines], cases)

    def report(self, actual):
        return [[found, square_name(move) if found else None] for found, move in actual]

    def explain(self, case, expected, actual):
        def names(answers):
            return " ".join(square_name(m) if f == 1 else ("end" if f == 0 else f"?{f}") for f, m in answers)

        lines = [f"expected walk: {names(expected)}", f"actual walk:   {names(actual)}"]
        for step, (want, got) in enumerate(zip(expected, actual)):
            if want != got:
                lines.append(f"first difference at step {step} (after {names(expected[step - 1:step]) or 'the start'})")
                break
        return lines
