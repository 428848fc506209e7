"""The move checker's coverage sampler (whole-board shifts, on machine words under PyPy) against
an oracle that walks every empty square in every direction, one square at a time; and the golden
worker's samplers of machine words under PyPy against the bench's on CPython."""

import shutil
import subprocess
from pathlib import Path

import pytest

from golden.board import popcount, square_name, squares_of
from gamechip.coverage.model import read_hit_files
from tb.checks.combinational import DiscFlipperCheck, MoveCheckerCheck, fuzz_chunk, fuzz_chunks, fuzz_generators
from tb.checks.coverage_samplers import (COVERAGE_OUT, DIRECTIONS, EMPTY_EDGES, MOBILITY_EDGES, CoverageRecorder,
                                         bucket, sample_cases, sample_move_checker)
from tb.checks.directed import directed_positions

ROOT = Path(__file__).resolve().parent.parent


def walk(own, opp, square, step_row, step_col, wrap):
    """Discs captured from ``square`` one way: ``wrap`` steps the flat index (rows wrap)."""
    row, col = divmod(square, 8)
    index, run = square, 0
    while True:
        if wrap:
            index += step_row * 8 + step_col
            if not 0 <= index < 64:
                return 0
        else:
            row, col = row + step_row, col + step_col
            if not (0 <= row < 8 and 0 <= col < 8):
                return 0
            index = row * 8 + col
        if opp >> index & 1:
            run += 1
        else:
            return run if own >> index & 1 and run else 0


def oracle(case, legal):
    position = case.position
    own, opp = position.own, position.opp
    hits = {}

    def hit(key):
        hits[key] = hits.get(key, 0) + 1

    for square in squares_of(legal):
        hit(f"legal_square:{position.side}/{square_name(square)}")
    empty = [s for s in range(64) if not (own | opp) >> s & 1]
    directions_of = {s: 0 for s in empty}
    for name, step_row, step_col in DIRECTIONS:
        runs = {s: walk(own, opp, s, step_row, step_col, False) for s in empty}
        for k in sorted({k for k in runs.values() if k}):
            hit(f"capture_run:{name}/{k}")
        for s, k in runs.items():
            directions_of[s] += bool(k)
        if step_col and any(walk(own, opp, s, step_row, step_col, True) and not runs[s] for s in empty):
            hit(f"wrap_trap:{name}")
    for count in sorted({directions_of[s] for s in squares_of(legal)}):
        hit(f"capture_directions:{count}")
    hit(f"mobility:{bucket(popcount(legal), MOBILITY_EDGES)}")
    hit(f"empty_squares:{bucket(len(empty), EMPTY_EDGES)}")
    return hits


def cases():
    check = MoveCheckerCheck(8)
    positions_rng, moves_rng = fuzz_generators(11)
    chosen = fuzz_chunk(check, positions_rng, moves_rng, 0, 1500) + check.cases(directed_positions(8), exhaustive=True)
    return check, chosen


def test_the_sampler_counts_what_a_square_by_square_walk_counts():
    check, chosen = cases()
    for case in chosen:
        legal = check.expected(case)
        hits = {}
        sample_move_checker(case, legal, hits, 8)
        assert hits == oracle(case, legal), case.label
    every = sample_cases("move_checker", chosen, [check.expected(case) for case in chosen])
    assert any(key.startswith("wrap_trap:") for key in every) and "capture_directions:4" in every


WORKER = """
import io, os, sys
from golden import words
from tb.checks.golden_worker import serve
assert words.NATIVE, "golden.words is not native here: the word path would not be taken"
serve(sys.argv[1], 8, 7, int(sys.argv[2]), 8, kernel="words", acks=io.StringIO(""), out=io.StringIO())
"""


@pytest.mark.skipif(not shutil.which("pypy3"), reason="pypy3 not installed: the machine-word path is PyPy's only")
@pytest.mark.parametrize("design, check", [("move_checker", MoveCheckerCheck(8)), ("disc_flipper", DiscFlipperCheck(8))])
def test_the_golden_worker_under_pypy_samples_what_the_bench_samples(design, check, tmp_path):
    """The fast loop's golden worker under PyPy samples its words as they are (word_sampler): the
    same hits as the bench's own loop sampling the same cases on CPython."""
    count = 3000
    run = subprocess.run(["pypy3", "-c", WORKER, design, str(count)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", COVERAGE_OUT: str(tmp_path / "worker"),
                                           "GAMECHIP_DESIGN": design, "GAMECHIP_SIM": "verilator"})
    assert run.returncode == 0, run.stderr[-2000:]
    bench = CoverageRecorder(design, "verilator", "fuzz", str(tmp_path / "bench"))
    for chunk in fuzz_chunks(check, 7, count):
        bench.sample(chunk, [check.expected(case) for case in chunk])
    worker = read_hit_files([tmp_path / "worker"])[design]
    assert worker.runs[0][2:] == (count, bench.sampled) and worker.hits == bench.hits
