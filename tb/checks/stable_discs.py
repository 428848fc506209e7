"""The check of rtl/stable_discs: every cycle's flip-flop vector, ``done`` and ``count`` against
the golden iteration (docs/spec.md §3)."""

from golden.board import popcount, square_name, squares_of
from golden.stable import stable_iterations
from tb.checks.combinational import BlockCheck, Case
from tb.checks.responses import DONE_WHILE_IDLE, cycle_runs


class StableDiscsCheck(BlockCheck):
    """A value is the list of cycles after ``start``: (cycle, done, count, stable vector)."""

    block = "stable_discs"

    def cases(self, positions, rng=None, exhaustive=False):
        return [Case(p, label, color=c) for label, p in positions for c in ("X", "O")]

    def stimulus(self, case):
        return f"{self.board_hex(case.position.black)} {self.board_hex(case.position.white)} {int(case.color == 'O')}"

    def expected(self, case):
        own = case.position.white if case.color == "O" else case.position.black
        sets = stable_iterations(own, self.size)
        return [(cycle, int(cycle == len(sets) - 1), popcount(s), s) for cycle, s in enumerate(sets)]

    def parse(self, lines, cases):
        return cycle_runs(lines)

    def explain(self, case, expected, actual):
        def names(bits):
            if isinstance(bits, str):
                return f"unknown bits {bits}"
            return " ".join(square_name(s, self.size) for s in squares_of(bits)) or "none"

        if actual and actual[-1][1] == DONE_WHILE_IDLE:
            return [f"expected: done in cycle {len(expected) - 1}, then low while idle",
                    f"actual:   done high again in idle cycle {actual[-1][0]} after the done of cycle {len(actual) - 2}"]
        lines = [f"expected: done in cycle {len(expected) - 1}, count {expected[-1][2]}",
                 f"actual:   {'done in cycle ' + str(len(actual) - 1) if actual and actual[-1][1] == 1 else 'no done within ' + str(len(actual)) + ' cycles'}"]
        for cycle in range(max(len(expected), len(actual))):
            want = expected[cycle] if cycle < len(expected) else None
            got = actual[cycle] if cycle < len(actual) else None
            if want != got:
                lines.append(f"first difference in cycle {cycle}:")
                lines.append(f"  expected done={want[1]} count={want[2]} stable: {names(want[3])}" if want else "  expected: no such cycle (done earlier)")
                lines.append(f"  actual   done={got[1]} count={got[2]} stable: {names(got[3])}" if got else "  actual: no such cycle (done earlier)")
                break
        return lines
