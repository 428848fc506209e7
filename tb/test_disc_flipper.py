"""Bench for rtl/disc_flipper: the whole new board and ``illegal`` for a move, against the
golden bitboard flipper, at 8x8 and at 6x6 and 4x4 against a golden model of the same size."""

import cocotb
import pytest

from golden.board import Position, format_board, square_name, squares_of
from golden.othello import flips, legal_moves
from tb import runner
from tb.batch import BlockCheck, Case, hex_field, run_directed, run_fuzz, run_random, run_replay
from tb.blocks import BLOCKS


class DiscFlipperCheck(BlockCheck):
    block = "disc_flipper"
    LEGAL_SHARE = 0.8  # random cases play a legal move this often, else any move value

    @property
    def move_bits(self):
        return max(1, (self.size * self.size - 1).bit_length())

    @property
    def move_values(self):
        """Every value the move port can carry: squares, and off-board values on 6x6."""
        return 1 << self.move_bits

    def cases(self, positions, rng=None, exhaustive=False):
        out = []
        for label, position in positions:
            if exhaustive:
                out += [Case(position, label, move=m) for m in range(self.move_values)]
                continue
            legal = squares_of(legal_moves(position.own, position.opp, self.size))
            if legal and rng.random() < self.LEGAL_SHARE:
                out.append(Case(position, label, move=rng.choice(legal)))
            else:
                out.append(Case(position, label, move=rng.randrange(self.move_values)))
        return out

    def stimulus(self, case):
        p = case.position
        return f"{self.board_hex(p.black)} {self.board_hex(p.white)} {int(p.white_to_move)} {case.move:0{(self.move_bits + 3) // 4}x}"

    def expected(self, case):
        p = case.position
        flipped = flips(p.own, p.opp, case.move, self.size) if case.move < self.size ** 2 else 0
        if not flipped:
            return (p.black, p.white, 1)
        own, opp = p.own | flipped | (1 << case.move), p.opp & ~flipped
        after = Position.from_own_opp(own, opp, p.white_to_move, self.size)
        return (after.black, after.white, 0)

    def parse(self, lines, cases):
        return [tuple(hex_field(f) for f in line.split()) for line in lines]

    def explain(self, case, expected, actual):
        def board(black, white):
            try:
                return format_board(Position(black, white, case.position.white_to_move, self.size))
            except Exception as error:  # overlapping or X bits: show the raw fields instead
                return f"black={black} white={white} ({error})"

        lines = [
            f"expected: illegal={expected[2]} board {board(*expected[:2])}",
            f"actual:   illegal={actual[2] if len(actual) > 2 else '?'} board {board(*actual[:2]) if len(actual) > 1 else actual}",
        ]
        if all(isinstance(v, int) for v in actual) and len(actual) == 3:
            differ = (expected[0] ^ actual[0]) | (expected[1] ^ actual[1])
            lines.append("differs at: " + (" ".join(square_name(s, self.size) for s in squares_of(differ)) or "no square"))
        return lines


CHECK = DiscFlipperCheck()


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


@pytest.mark.parametrize("design", BLOCKS["disc_flipper"].designs)
@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_disc_flipper(sim, design):
    runner.regression_for(design, sim)
