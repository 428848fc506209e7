"""The bench runs behind ``gamechip coverage``: each design's regression tests (the same tests and
sizes as make test's, from tb/blocks.py; for a design with a bench of its own, the regression's
pytest test of it) with functional coverage sampling on, their hit files in one folder. The
Verilator runs of a design with a bench of its own are coverage builds as well, writing the code
coverage data that gamechip.coverage.code reports (code_data_dir)."""

import os
from pathlib import Path

from tb.blocks import DESIGN_BLOCK
from tb.checks.coverage_samplers import COVERAGE_OUT

ROOT = Path(__file__).resolve().parents[2]


def run_with_coverage(design, sim, hits_dir, seed=None):
    """One design's regression tests on ``sim``, sampling into ``hits_dir``: the RunResult."""
    from tb.host.runner import run_design

    block = DESIGN_BLOCK[design]
    env = {"GAMECHIP_SEED": str(seed if seed is not None else os.environ.get("GAMECHIP_SEED", "1")),
           "GAMECHIP_COUNT": str(block.counts[sim]), COVERAGE_OUT: str(Path(hits_dir).resolve())}
    return run_design(design, sim, block.module, list(block.tests), env=env, quick_build=block.quick_build, quiet=True)


def code_data_dir(out_dir, design):
    """Where a design's coverage data files go under a code coverage report's folder ``out_dir``."""
    return Path(out_dir) / design / "data"


def bench_test_ids(design, sim):
    """The pytest ids of the regression's tests of a design with a bench of its own on ``sim`` (make
    test's tier, as the batch runs, or make test-full's for a design only that tier runs):
    tb.blocks.BENCH_SAMPLED_TESTS, or BENCH_CODE_TESTS for a design without a test plan."""
    from gamechip.coverage.closure import bench_nodeids
    from tb.blocks import BENCH_SAMPLED_TESTS

    if design not in BENCH_SAMPLED_TESTS:
        nodeids = BENCH_CODE_TESTS.get(design, [])
    else:   # a design whose benches run in make test-full alone (search_pattern): that tier's
        nodeids = bench_nodeids(design) or bench_nodeids(design, full=True)
    return [n for n in nodeids if n.endswith(f"[{sim}]")]


# Designs with a bench of their own but no test plan, whose code coverage is collected all the same:
# the regression's pytest tests of each.
BENCH_CODE_TESTS = {"processor_c2": ["tb/test_processor.py::test_processor_c2[verilator]"]}


def run_bench_tests(design, sim, hits_dir, code_dir=None):
    """A design with a bench of its own (tb.blocks.BENCH_SAMPLED_TESTS): the regression's pytest
    tests of it on ``sim``, in a pytest of their own sampling into ``hits_dir``; (passed, note), or
    None when the design has no such test on ``sim``. ``code_dir``: on Verilator, every run of the
    tests is a coverage build writing its code coverage data into that folder (emptied first)."""
    import shutil
    import subprocess
    import sys

    from tb.host.toolchain import CODE_COVERAGE_FOLDER

    nodeids = bench_test_ids(design, sim)
    if not nodeids:
        return None
    env = dict(os.environ, **{COVERAGE_OUT: str(Path(hits_dir).resolve())})
    if code_dir is not None and sim == "verilator":
        shutil.rmtree(code_dir, ignore_errors=True)
        Path(code_dir).mkdir(parents=True)
        env[CODE_COVERAGE_FOLDER] = str(Path(code_dir).resolve())
    # the tests marked full too (pyproject.toml's addopts leave them out): a design of make test-full alone
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not extended",
                          *nodeids], cwd=ROOT,
                         env=env, capture_output=True, text=True)
    lines = (run.stdout + run.stderr).strip().splitlines()
    return run.returncode == 0, "" if run.returncode == 0 else (lines[-1] if lines else f"pytest exit {run.returncode}")


def run_designs(designs, sims, hits_dir, progress=print, code_out=None):
    """Every (design, sim) run; [(design, sim, passed, note)] with the failure's first line.
    ``code_out``: a design with a bench of its own also writes its code coverage data on Verilator,
    under code_data_dir(code_out, design), from the same runs."""
    from tb.blocks import BENCH_SAMPLED_TESTS

    outcomes = []
    for design in designs:
        for sim in sims:
            if design in BENCH_SAMPLED_TESTS:
                code = None if code_out is None else code_data_dir(code_out, design)
                progress(f"coverage: {design} on {sim} (its regression tests"
                         + (", code coverage on" if code and sim == "verilator" else "") + ") ...")
                outcome = run_bench_tests(design, sim, hits_dir, code)
                if outcome is None:
                    progress(f"coverage: {design} has no bench test on {sim}")
                    continue
                outcomes.append((design, sim, *outcome))
                if not outcome[0]:
                    progress(f"coverage: {design} on {sim} FAILED: {outcome[1]}")
                continue
            progress(f"coverage: {design} on {sim} ...")
            outcome = run_with_coverage(design, sim, hits_dir)
            note = "" if outcome.passed else (outcome.result.get("failure") or "failed before any check").splitlines()[0]
            outcomes.append((design, sim, outcome.passed, note))
            if not outcome.passed:
                progress(f"coverage: {design} on {sim} FAILED: {note} (log: {outcome.sim_dir / 'gamechip.log'})")
    return outcomes
