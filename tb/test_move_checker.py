"""Bench for rtl/move_checker: the legal-move vector of the side to move, against the golden
bitboard move generator, on directed positions and both kinds of random positions."""

import cocotb
import pytest

from golden.board import square_name, squares_of
from golden.othello import legal_moves
from tb import runner
from tb.batch import BlockCheck, hex_field, run_directed, run_fuzz, run_random, run_replay


class MoveCheckerCheck(BlockCheck):
    block = "move_checker"

    def stimulus(self, case):
        return f"{self.board_hex(case.position.own)} {self.board_hex(case.position.opp)}"

    def expected(self, case):
        return legal_moves(case.position.own, case.position.opp, self.size)

    def parse(self, lines, cases):
        return [hex_field(line) for line in lines]

    def explain(self, case, expected, actual):
        def names(bits):
            return " ".join(square_name(s, self.size) for s in squares_of(bits)) or "none"

        lines = [f"expected legal: {names(expected)}"]
        if isinstance(actual, str):
            return lines + [f"actual legal:   unknown bits in {actual}"]
        return lines + [
            f"actual legal:   {names(actual)}",
            f"missing:        {names(expected & ~actual)}",
            f"extra:          {names(actual & ~expected)}",
        ]


CHECK = MoveCheckerCheck()


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
def test_move_checker(sim):
    runner.regression_for("move_checker", sim)
