"""Bench for rtl/stable_discs: every cycle's flip-flop vector, ``done`` and ``count`` against
the golden iteration (SPEC §3), so the exact cycle of ``done`` is checked, not only the count."""

import cocotb
import pytest

from golden.board import popcount, square_name, squares_of
from golden.stable import stable_iterations
from tb import runner
from tb.batch import DONE_WHILE_IDLE, BlockCheck, Case, cycle_runs, run_directed, run_fuzz, run_random, run_replay


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


CHECK = StableDiscsCheck()


@cocotb.test()
async def directed(dut):
    await run_directed(dut, CHECK)


@cocotb.test()
async def random_occupancy(dut):
    await run_random(dut, CHECK, "occupancy")


@cocotb.test()
async def random_played(dut):
    await run_random(dut, CHECK, "played")


@cocotb.test()
async def fuzz(dut):
    await run_fuzz(dut, CHECK)


@cocotb.test()
async def replay(dut):
    await run_replay(dut, CHECK)


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_stable_discs(sim):
    runner.regression_for("stable_discs", sim)
