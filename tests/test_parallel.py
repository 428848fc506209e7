"""The parallel search of docs/spec.md §12 (golden/host/parallel_search.py): both schemes must give the sequential
search's root value on every position and P, and the simulated-time accounting must hold."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.measure.parallel import midgame_positions
from golden.host.parallel_search import HOST_CYCLES, SCHEMES, Job, golden_engine_run, parallel_search, sequential
from golden.search import search

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = midgame_positions(3, seed=3, low=14, high=40)


def cached():
    results = {}

    def run(job):
        if job not in results:
            results[job] = golden_engine_run(job.board, job.depth, job.alpha, job.beta)
        return results[job]
    run.results = results
    return run


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("depth, split", [(3, 1), (4, 2), (4, 3), (5, 2)])
def test_root_value_equals_the_sequential_search_on_every_position_and_p(scheme, depth, split):
    for position in POSITIONS:
        run = cached()
        expected = search(position, depth).value
        assert sequential(position, depth, run).value == expected
        for engines in (1, 3, 8, 32):
            result = parallel_search(position, depth, engines, scheme, split, run)
            assert result.value == expected, (position.text(), scheme, engines)
            assert len(result.busy) == engines and result.balance >= 1
            assert 0 < result.nodes and result.cycles > 0


def test_the_seed_scheme_on_one_engine_is_the_sum_of_its_searches_plus_dispatches():
    position, depth, split = POSITIONS[0], 5, 2
    run = cached()
    result = parallel_search(position, depth, 1, "seed", split, run)
    jobs = [job for job in run.results if job.depth == depth - split]
    assert len(jobs) == result.dispatches and result.cancelled == 0
    assert result.cycles == sum(run(job).cycles for job in jobs) + HOST_CYCLES * len(jobs)
    assert result.nodes == sum(run(job).nodes for job in jobs)
    # nothing is shared: every P searches the same subtrees, only the time changes
    for engines in (2, 4, 8):
        again = parallel_search(position, depth, engines, "seed", split, run)
        assert again.nodes == result.nodes and again.cycles < result.cycles


def test_ybw_shares_bounds_and_cancels_cut_off_searches():
    run = cached()
    totals = {"narrow": 0, "cancelled": 0}
    for position in POSITIONS:
        for engines in (4, 8):
            result = parallel_search(position, 5, engines, "ybw", 2, run)
            totals["cancelled"] += result.cancelled
    totals["narrow"] = sum(1 for job in run.results if (job.alpha, job.beta) != (-256, 256))
    assert totals["narrow"] > 0 and totals["cancelled"] > 0, totals


def test_a_cancelled_search_counts_its_nodes_up_to_the_cancel_cycle():
    run = golden_engine_run(POSITIONS[1].text(), 4, -256, 256)
    assert run.nodes_before(0) == 0 and run.nodes_before(run.cycles + 1) == run.nodes
    assert 0 < run.nodes_before(run.cycles // 2) < run.nodes


@pytest.mark.parametrize("args, expected", [
    (["--engines", "0"], "engine counts must be at least 1"),
    (["--engines", "2,x"], "engine counts are whole numbers"),
    (["--schemes", "mpi"], "unknown scheme 'mpi': choose one of seed, ybw"),
    (["--depth", "1"], "--depth must be 2..16"),
    (["--split", "5", "--depth", "5"], "--split must be 1..depth-1"),
    (["--sim-sample", "2"], "--sim-sample needs --sim"),
])
def test_bad_arguments_are_one_line(args, expected):
    run = subprocess.run([sys.executable, "-m", "gamechip", "parallel", "--positions", "1", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and expected in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_the_command_on_a_dask_cluster_with_subtrees_checked_on_the_simulated_engine(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gamechip", "parallel", "--positions", "2", "--depth", "4",
                          "--split", "2", "--engines", "2,4", "--sim", "ghdl", "--sim-sample", "2",
                          "--out", str(tmp_path), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert {(r["scheme"], r["engines"]) for r in report["rows"]} == {(s, p) for s in SCHEMES for p in (2, 4)}
    assert all(r["values_match"] for r in report["rows"])
    assert all(set(r) >= {"scheme", "engines", "cycles", "speedup", "efficiency", "nodes", "overhead", "balance",
                          "values_match"} for r in report["rows"])
    assert report["node_reports_checked"] > 0
    assert (tmp_path / "parallel.csv").read_text().count("\n") == 5
    assert "<svg" in (tmp_path / "parallel.svg").read_text()
    assert "position 2/2" in run.stderr


def test_the_engine_server_answers_as_the_golden_engine_does_with_its_trace():
    """The PyPy engine server (python -m golden.host.parallel_search) gives each job's value, cycles, nodes
    and generation cycles exactly as the in-process engine run, and those agree with the full
    trace of the golden search (the streamed run keeps only generation cycles)."""
    from gamechip.measure.parallel import EngineServer
    from golden.board import parse_board
    from tb.checks.search import golden_python

    server = EngineServer(golden_python())
    try:
        for position in POSITIONS:
            for alpha, beta in ((-256, 256), (-3, -2), (10, 40)):
                job = (position.text(), 4, alpha, beta)
                served, local = server.run(*job), golden_engine_run(*job)
                traced = search(parse_board(job[0]), 4, None, alpha=alpha, beta=beta)
                assert (served.value, served.cycles, served.nodes) == (local.value, local.cycles, local.nodes) \
                    == (traced.value, traced.cycles, traced.nodes), job
                assert list(served.generated) == list(local.generated) == sorted(
                    n.generated for n in traced.trace if n.ply > 0), job
    finally:
        server.process.stdin.close()
        server.process.wait()
