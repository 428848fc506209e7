"""Bench for rtl/openings: games fed move by move (both sides) into the book ROM; after every move
the block's answer (in book, next book move) is compared with the golden book lookup. Covers
every prefix of every stored line, deviations from the book, and random games."""

import cocotb
import pytest

from golden.board import format_game_record, square_name, squares_of
from golden.openings import book_lines, book_move
from golden.othello import legal_moves, play
from tb.host import runner
from tb.checks.combinational import BlockCheck, Case
from tb.checks.directed import replay_game
from tb.checks.responses import cycle_runs, split_steps
from tb.sim.batch import run_directed, run_fuzz, run_random, run_replay


def random_continuation(position, rng, plies):
    """Up to ``plies`` random legal moves from ``position`` (stops at a pass)."""
    moves = []
    for _ in range(plies):
        legal = squares_of(legal_moves(position.own, position.opp))
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move)
        position = play(position, move)
    return moves


class _FirstMove:
    """random_continuation's chooser for directed games: always the first legal move."""

    @staticmethod
    def choice(moves):
        return moves[0]


class OpeningsCheck(BlockCheck):
    """A case is a game; its value is the list of (in_book, book_move) after each prefix of it.
    Random cases ignore the positions they are given: they follow a random book line for a
    random number of plies, then leave it with random legal moves."""

    block = "openings"

    def cases(self, positions, rng=None, exhaustive=False):
        lines = book_lines()
        if exhaustive:
            return [self.game(line, f"book line #{i}") for i, line in enumerate(lines)] + self.leaving(lines)
        out = []
        for number, _ in enumerate(positions):
            line = rng.choice(lines)
            kept = list(line[:rng.randrange(len(line) + 1)])
            moves = kept + random_continuation(replay_game(kept), rng, rng.randrange(1, 8))
            out.append(self.game(moves, f"random game #{number}: book for {len(kept)} plies, then random"))
        return out

    def leaving(self, lines):
        """Each book line left once, at a ply that walks along the lines (the first legal move the
        book does not hold there, or past the line's end), then two more moves: the block must
        say out of book and stay there, whichever way the book is left (the scan of a node's
        children ends, or the node has none)."""
        out = []
        for number, line in enumerate(lines):
            ply = number % (len(line) + 1)
            kept = list(line[:ply])
            position = replay_game(kept)
            legal = squares_of(legal_moves(position.own, position.opp))
            if not legal:
                continue
            held = {other[ply] for other in lines if len(other) > ply and list(other[:ply]) == kept}
            leave = next((move for move in legal if move not in held), None)
            if leave is None:
                continue
            moves = kept + [leave]
            moves += random_continuation(replay_game(moves), _FirstMove(), 2)
            where = "past its end" if ply == len(line) else f"at ply {ply + 1}"
            out.append(self.game(moves, f"book line #{number} left {where}, then two more moves"))
        return out

    def game(self, moves, label):
        return Case(replay_game(moves), label, moves=tuple(moves))

    def stimulus(self, case):
        return "\n".join(["1 00"] + [f"0 {move:02x}" for move in case.moves])

    def expected(self, case):
        answers = []
        for played in range(len(case.moves) + 1):
            move = book_move(case.moves[:played])
            answers.append((0, 0) if move is None else (1, move))
        return answers

    def parse(self, lines, cases):
        """Each vector's last line is its done cycle (or the harness's cycle limit)."""
        answers = []
        for run in cycle_runs(lines):
            cycle, done, in_book, move = run[-1]
            answers.append((in_book, move) if done == 1 else (done if isinstance(done, str) else "no done", cycle))
        return split_steps(answers, cases)

    def report(self, actual):
        return [square_name(m) if b == 1 else None for b, m in actual]

    def explain(self, case, expected, actual):
        def show(answer):
            return square_name(answer[1]).lower() if answer[0] == 1 else ("out" if answer[0] == 0 else str(answer))

        for played, (want, got) in enumerate(zip(expected, actual)):
            if want != got:
                return [f"after {format_game_record(case.moves[:played]) or 'no move'} ({played} plies):",
                        f"expected: {show(want)}", f"actual:   {show(got)}"]
        return [f"expected {len(expected)} answers, got {len(actual)}"]


CHECK = OpeningsCheck()


@cocotb.test()
async def directed(dut):
    await run_directed(dut, CHECK)


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
def test_openings(sim):
    runner.regression_for("openings", sim)
