"""Idle steps of the repetition detector's cases: cycles without init, push or pop, after which every
output must show what the last command left (docs/spec-chess.md §6: only the commands change the stored
plies). A case file carries them, the shrinker keeps them, the sampler counts them in their own bins
of the plan, and the bench catches a detector that forgets its plies on such a cycle."""

import subprocess
import sys

import chess
import pytest

from gamechip.coverage.plan import design_plans
from golden.chess.encoding import format_fen
from golden.chess.repetition import transposition_distance
from tb.checks.chess_case import IDLE, ChessCase, repetition_outputs
from tb.checks.coverage_chess import sample_chess_repetition
from tb.host.casefile import CaseFileError, parse_case_record, read_case_file, write_case_file
from tb.host.shrink import CommandPrefixes

KNIGHTS = ("g1f3", "g8f6", "f3g1", "f6g8")
# init, an idle step, the knights out and back (a repetition at k = 4 after the fourth move, a near
# candidate at k = 3 after the third), idle steps between them, after a pop and several in a row
STEPS = (("init", 2), (IDLE, 1), (KNIGHTS[0], 1), (KNIGHTS[1], 2), (KNIGHTS[2], 3), (IDLE, 3), (KNIGHTS[3], 4),
         (IDLE, 4), (IDLE, 2), (IDLE, 9), ("pop", 3), (IDLE, 1))


def idle_case(steps=STEPS):
    return ChessCase(format_fen(chess.Board()), "knights out and back with idle steps", "repetition", 0, *zip(*steps))


def record_of(case):
    return {"block": "chess_repetition", "design": "chess_repetition", "sim": "icarus", "seed": 1,
            "case": case.to_dict()}


def expected_outputs(case):
    return repetition_outputs(case)


def test_a_case_with_idle_steps_round_trips_through_a_case_file(tmp_path):
    case = idle_case()
    path = write_case_file(tmp_path / "case.json", record_of(case))
    _, again = read_case_file(path)
    assert again == case and again.moves.count(IDLE) == 6


@pytest.mark.parametrize("moves, dbg, expected", [
    (["init", "idel"], [0, 0], "'idel' is not a move in UCI form (e2e4, e7e8q), 'init', 'pop' or 'idle'"),
    ([IDLE, "init", "g1f3"], [0, 0, 0], "a repetition case starts with 'init', got ['idle']"),
    ([], [], "a repetition case starts with 'init', got []"),
    (["init", IDLE, "g1f3"], [0, 0], "'dbg' needs one rd_dbg_k per command: 3 commands, 2 values"),
])
def test_a_bad_repetition_case_is_one_line_naming_the_field(moves, dbg, expected):
    record = record_of(idle_case())
    record["case"].update(moves=moves, dbg=dbg)
    with pytest.raises(CaseFileError) as error:
        parse_case_record(record, "case file x.json")
    assert str(error.value) == f"case file x.json: {expected}"


def test_idle_steps_keep_every_output_and_are_sampled_apart_from_commands():
    case = idle_case()
    expected = expected_outputs(case)
    for index, command in enumerate(case.moves):
        if command != IDLE:
            continue
        # the same outputs as the command before the idle steps, rd_dbg_d at the idle step's own k
        before = max(i for i in range(index) if case.moves[i] != IDLE)
        assert expected[index][:5] == expected[before][:5]
    # the oracle: python-chess finds the start position 4 plies back, at the idle steps after f6g8 too
    board = chess.Board()
    for move in KNIGHTS:
        board.push_uci(move)
    assert transposition_distance(board, 32) == 4
    assert [expected[i][:2] for i in (7, 8, 9)] == [(1, 4)] * 3
    assert [expected[i][5] for i in (7, 8, 9)] == [0, 2, 63]   # D_4 = 0, D_2 = 2 (both knights), k = 9 outside W
    hits = {}
    sample_chess_repetition(case, expected, hits, 8)
    assert {k: v for k, v in hits.items() if k.startswith(("idle", "command"))} == {
        "command:init": 1, "command:push": 4, "command:pop": 1,
        "idle_after:init": 1, "idle_after:push": 2, "idle_after:idle": 2, "idle_after:pop": 1,
        "idle_kept:rep": 3, "idle_kept:near": 5, "idle_kept:debug_d_new_k": 2}
    plan_bins = set(design_plans()["chess_repetition"].bins("chess_repetition"))
    assert set(hits) <= plan_bins


def test_the_shrinker_keeps_idle_steps_and_gives_valid_cases():
    case = idle_case()
    candidates = CommandPrefixes().candidates(case)
    assert [len(c.moves) for c in candidates] == list(range(1, len(case.moves)))
    for candidate in candidates:
        assert parse_case_record(record_of(candidate), "candidate") == candidate
    assert candidates[1].moves == ("init", IDLE)


# A Verilog build of the planted bug's RTL and its directed run on Icarus (about 5 s unloaded), the
# shrink (22 candidates in one simulation) and two replays: make test-full.
@pytest.mark.full
def test_a_detector_that_forgets_its_plies_when_idle_is_caught_shrunk_and_replayed(tmp_path):
    from tb.blocks import DESIGN_BLOCK
    from tb.host import runner
    from tests.test_mutants import MUTANTS, mutant_root, mutant_tag

    name = "chess_repetition forgets its stored plies on a cycle without a command"
    design, file, *edits = MUTANTS[name]
    root = mutant_root(tmp_path, file, *edits)
    outcome = runner.run_design(design, "icarus", DESIGN_BLOCK[design].module, ["directed"], tag=mutant_tag(name),
                                env={"GAMECHIP_SEED": "1"}, rtl_root=root)
    assert not outcome.passed, f"mutant '{name}' passed the directed cases: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH in chess_repetition" in message and "(idle: no command for 128 cycles" in message, message
    _, case = read_case_file(outcome.failure_case)
    assert IDLE in case.moves

    def gamechip(*args, env=()):
        import os

        return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=runner.ROOT, capture_output=True,
                              text=True, timeout=1800, env={**os.environ, **dict(env)})

    shrunk = tmp_path / "shrunk.json"
    run = gamechip("shrink", str(outcome.failure_case), "--out", str(shrunk))
    assert run.returncode == 0, run.stderr[-3000:]
    _, small = read_case_file(shrunk)
    # the first idle step after a push shows the emptied window: init, idle, a push, idle
    assert small.moves == ("init", IDLE, "g1f3", IDLE), small.moves
    again = gamechip("replay", str(shrunk))
    assert again.returncode == 1 and "still fails" in again.stderr, again.stderr[-3000:]
    fixed = gamechip("replay", str(shrunk), env=[("GAMECHIP_RTL_ROOT", str(runner.ROOT))])
    assert fixed.returncode == 0 and "the case no longer fails" in fixed.stdout, fixed.stderr[-3000:]
