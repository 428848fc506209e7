"""Bench for rtl/chess/repetition: long random walks of pushes and pops (moves of real games,
biased towards moving back), every output (rep, rep_dist, near, near_from, near_to and rd_dbg_d
at a random k) compared with the golden model after every command, within 4 cycles. Directed:
a repetition 32 plies back (found) and 34 back (not found), triangulation, a window cut by an
irreversible move and reopened by a pop, more than 32 pushes then pops, a pop with nothing stored.

Idle steps (IDLE: no init, push or pop for the harness's whole cycle budget, MAX_CYCLES clock
edges) come at random in the walks and at chosen places in the directed cases: only the commands
change what is stored (docs/spec-chess.md §6), so after an idle step every output must show what it
showed before, rd_dbg_d at the idle step's own rd_dbg_k. rd_valid is not judged there: docs/spec-chess.md §6
defines the outputs, not a reply pulse (it is the harness's signal that a command's outputs are
ready). The data ports carry a move of the board and rd_wtm the wrong side while idle, which the
detector must ignore."""

import random

import chess
import cocotb
import pytest

from golden.chess.encoding import format_fen
from golden.chess.positions import random_game, repetition_cycle, repetition_walk
from golden.chess.repetition import entry_of
from tb.host import runner
from tb.sim.batch import BlockCheck, check_cases_counting_cycles, hex_field, run_replay
from tb.checks.aimed_chess import repetition_cases
from tb.checks.chess_case import IDLE, ChessCase, repetition_outputs
from tb.checks.responses import MAX_CYCLES

OUTPUT_CYCLES = 4  # docs/spec-chess.md §6: outputs valid at most 4 cycles after a command
FIELDS = ("rep", "rep_dist", "near", "near_from", "near_to", "dbg_d")


# Random walks: the chance of a run of idle steps after a command (and after the init). An idle
# step is MAX_CYCLES clock edges of the harness: Icarus and GHDL do little in them (no input
# changes after the first), Verilator evaluates its model at every edge, so the chance is kept
# low enough for the walks to cost about what they cost without idle steps.
IDLE_CHANCE = 0.01
IDLE_RUNS = (1, 1, 1, 2, 3)


def walk_case(board, label, commands, rng):
    """A case from ``board``: init, then ``commands`` ('push', Move) / ('pop', None) / ('idle', None)."""
    steps = {"pop": "pop", "idle": IDLE}
    moves = ("init",) + tuple(move.uci() if kind == "push" else steps[kind] for kind, move in commands)
    return ChessCase(format_fen(board), label, "repetition", 0, moves, tuple(rng.randrange(0, 40) for _ in moves))


def with_idle_steps(commands, rng):
    """``commands`` with runs of idle steps at random: after the init and after any command."""
    out = []
    for command in [None] + list(commands):
        if command is not None:
            out.append(command)
        if rng.random() < IDLE_CHANCE:
            out += [("idle", None)] * rng.choice(IDLE_RUNS)
    return out


def idle_line(board, index, dbg):
    """The harness line of an idle step: no command, a move of ``board`` on rd_from, rd_to,
    rd_piece and rd_irrev (the ``index``-th legal move, cycling) and the side not to move on
    rd_wtm: inputs a command would sample, which without one must change nothing."""
    moves = list(board.legal_moves)
    fields = "00 00 0 0"
    if moves:
        entry = entry_of(board, moves[index % len(moves)])
        fields = f"{entry.from_square:02x} {entry.to_square:02x} {entry.piece:x} {entry.irrev}"
    return f"0 0 0 {int(board.turn != chess.WHITE)} {fields} {dbg:02x}"


def directed_cases():
    rng = random.Random(0)
    # First (a killed mutant dies in the first slice): the game goes back past the detector's
    # init, a pop with nothing stored. The buffer stays empty and nothing is shown (rep 0,
    # rd_dbg_d 63), so the count must not wrap below 0 (a wrapped count opens the window over
    # the cleared entries, whose D_k are all 0: rep at k = 2). The pushes after it are about
    # the position before the pop with the other side to move: D_1 = 1 (rd_dbg_k 1), and the
    # near candidate three plies later is the black knight's (black to move), not a white one.
    board = chess.Board()
    cases = [ChessCase(format_fen(board), "a pop with nothing stored after an init, then pushes from the earlier position",
                       "repetition", 0, ("init", "g1f3", "init", "pop", "g1f3", "g8f6", "f3g1"), (1, 1, 2, 2, 1, 1, 3))]
    # Second (in the first slice too): idle steps right after the init, between pushes, between a
    # push and a pop, while a repetition (k = 4) and a near candidate (k = 3) are shown, and six in
    # a row (6 * MAX_CYCLES clock edges) with rd_dbg_k moving over k = 4, 2, 1, 3, 5 (outside W: 63)
    # and 0 (never in W: 63) while nothing is commanded.
    knights = ("g1f3", "g8f6", "f3g1", "f6g8")
    steps = (("init", 4), (IDLE, 1), (knights[0], 1), (IDLE, 1), (knights[1], 2), (knights[2], 3), (IDLE, 3),
             (knights[3], 4), (IDLE, 4), (IDLE, 2), (IDLE, 1), (IDLE, 3), (IDLE, 5), (IDLE, 0), ("pop", 3),
             (IDLE, 3), (IDLE, 2), (knights[3], 4), ("e2e4", 1), (IDLE, 1), ("pop", 4), (IDLE, 4))
    cases.append(ChessCase(format_fen(board), "idle steps after every command kind, six in a row, rd_dbg_k "
                           "changing while idle", "repetition", 0, *zip(*steps)))
    for plies in (32, 34):
        board, moves = repetition_cycle(plies)
        cases.append(walk_case(board, f"the start position again {plies} plies later", [("push", m) for m in moves], rng))
    board = chess.Board("4k3/8/8/8/8/8/8/K7 w - - 0 1")
    tri = [chess.Move.from_uci(u) for u in ("a1a2", "e8d8", "a2b1", "d8e8", "b1a1", "e8d8", "a1a2", "d8e8")]
    cases.append(walk_case(board, "triangulation: the same board with the other side to move",
                           [("push", m) for m in tri], rng))
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    walk = [chess.Move.from_uci(u) for u in ("e1e2", "e8d8", "e2e1", "d8e8", "e1e2", "e8d8")]
    cases.append(walk_case(board, "the king leaves and comes back: the castling right is lost (irreversible)",
                           [("push", m) for m in walk], rng))
    board = chess.Board()
    shuffle = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "e7e5")]
    commands = [("push", m) for m in shuffle] + [("pop", None)] * 3 + [("push", shuffle[5])]
    cases.append(walk_case(board, "a window cut by a pawn move and reopened by pops", commands, rng))
    knights = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")] * 10
    commands = [("push", m) for m in knights] + [("pop", None)] * 32 + [("push", m) for m in knights[:6]]
    cases.append(walk_case(chess.Board(), "40 pushes (8 lost), 32 pops, pushes again", commands, rng))
    commands = ([("push", m) for m in knights] + [("idle", None)] * 3 + [("pop", None)] * 32 + [("idle", None)] * 2
                + [("push", m) for m in knights[:6]] + [("idle", None)])
    cases.append(walk_case(chess.Board(), "40 pushes, idle with the buffer full, 32 pops, idle with it empty, "
                           "pushes again", commands, rng))
    # An init clears the stored entries to from = to = a1: a piece leaving a1 as the first ply after
    # it is displaced for the counters of k = 1 (outside W, never shown), and for its pop too.
    board = chess.Board("4k3/8/8/8/8/8/8/r3K3 b - - 0 1")
    commands = [("push", chess.Move.from_uci("a1a4")), ("pop", None), ("push", chess.Move.from_uci("a1b1")),
                ("push", chess.Move.from_uci("e1d2")), ("pop", None), ("pop", None)]
    cases.append(walk_case(board, "black moves first, a rook leaving a1 (the square the cleared entries name), "
                           "then pops", commands, rng))
    return cases + repetition_cases()   # every even distance 4..32 (tb/testplans/chess_repetition.toml)


class ChessRepetitionCheck(BlockCheck):
    """A value is the list of outputs after each command."""

    block = "chess_repetition"
    unit = "commands"

    def units(self, case, expected):
        return sum(command != IDLE for command in case.moves)   # commands: an idle step gives none

    def stimulus(self, case):
        board, lines = case.board, []
        for index, (command, dbg) in enumerate(zip(case.moves, case.dbg)):
            if command == IDLE:
                lines.append(idle_line(board, index, dbg))
            elif command == "init":
                lines.append(f"1 0 0 {int(board.turn == chess.WHITE)} 00 00 0 0 {dbg:02x}")
            elif command == "pop":
                board.pop()
                lines.append(f"0 0 1 0 00 00 0 0 {dbg:02x}")
            else:
                move = chess.Move.from_uci(command)
                entry = entry_of(board, move)
                board.push(move)
                lines.append(f"0 1 0 0 {entry.from_square:02x} {entry.to_square:02x} {entry.piece:x} {entry.irrev} "
                             f"{dbg:02x}")
        return "\n".join(lines)

    def expected(self, case):
        return repetition_outputs(case)

    def parse(self, lines, cases):
        out, index = [], 0
        for case in cases:
            replies = []
            for command, line in zip(case.moves, lines[index:index + len(case.moves)]):
                cycle, valid, *values = (hex_field(f) for f in line.split())
                if command == IDLE:   # the outputs as the harness's cycles ended, rd_valid not judged
                    replies.append(tuple(values))
                    continue
                replies.append(tuple(values) if valid == 1 and isinstance(cycle, int) and cycle <= OUTPUT_CYCLES
                               else (f"no rd_valid within {OUTPUT_CYCLES} cycles", cycle))
            index += len(case.moves)
            out.append(replies)
        return out

    def report(self, actual):
        return [dict(zip(FIELDS, values)) for values in actual]

    def explain(self, case, expected, actual):
        for index, (want, got) in enumerate(zip(expected, actual)):
            if want != got:
                command = (f"{IDLE}: no command for {MAX_CYCLES} cycles" if case.moves[index] == IDLE
                           else case.moves[index])
                return [f"first difference after command {index} ({command}, rd_dbg_k {case.dbg[index]}), "
                        f"the commands so far: {' '.join(case.moves[:index + 1])}",
                        "expected: " + ", ".join(f"{n}={v}" for n, v in zip(FIELDS, want)),
                        "actual:   " + (", ".join(f"{n}={v}" for n, v in zip(FIELDS, got)) if len(got) == 6
                                        else str(got))]
        return [f"expected {len(expected)} answers, got {len(actual)}"]

    def cases(self, positions, rng=None, exhaustive=False):
        out = []
        for label, board in positions:
            out.append(walk_case(board, label, with_idle_steps(repetition_walk(rng, board, rng.randrange(20, 200)), rng),
                                 rng))
        return out

    def report_cycles(self):
        pass


CHECK = ChessRepetitionCheck()


def walk_positions(rng, count, first=0):
    return [(f"repetition walk #{first + i}", random_game(rng, rng.randrange(0, 40))) for i in range(count)]


@cocotb.test()
async def directed(dut):
    await check_cases_counting_cycles(dut, CHECK, directed_cases(), "directed")


@cocotb.test()
async def random_walks(dut):
    from tb.sim.batch import environment

    env = environment()
    rng = random.Random(env["seed"])
    await check_cases_counting_cycles(dut, CHECK, CHECK.cases(walk_positions(rng, env["count"]), rng=rng), "random_walks")


@cocotb.test()
async def fuzz(dut):
    from tb.sim.batch import environment

    env = environment()
    rng, tally, done = random.Random(env["seed"]), None, 0
    while done < env["count"]:
        chunk = min(200, env["count"] - done)
        tally = await check_cases_counting_cycles(dut, CHECK, CHECK.cases(walk_positions(rng, chunk, done), rng=rng),
                                                  "fuzz", tally=tally, total=env["count"])
        done += chunk


@cocotb.test()
async def replay(dut):
    await run_replay(dut, CHECK)


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_chess_repetition(sim):
    runner.regression_for("chess_repetition", sim)
