"""The bench runs behind ``gamechip coverage``: each design's regression tests (the same tests and
sizes as make test's, from tb/blocks.py; for a design with a bench of its own, the regression's
pytest test of it) with functional coverage sampling on, their hit files in one folder."""

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


def run_bench_tests(design, sim, hits_dir):
    """A design with a bench of its own (tb.blocks.BENCH_SAMPLED_TESTS): the regression's pytest
    tests of it on ``sim``, in a pytest of their own sampling into ``hits_dir``; (passed, note), or
    None when the design has no such test on ``sim``."""
    import subprocess
    import sys

    from gamechip.coverage.closure import bench_nodeids

    nodeids = [n for n in bench_nodeids(design) if n.endswith(f"[{sim}]")]   # make test's, as the batch runs
    if not nodeids:
        return None
    env = dict(os.environ, **{COVERAGE_OUT: str(Path(hits_dir).resolve())})
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *nodeids], cwd=ROOT,
                         env=env, capture_output=True, text=True)
    lines = (run.stdout + run.stderr).strip().splitlines()
    return run.returncode == 0, "" if run.returncode == 0 else (lines[-1] if lines else f"pytest exit {run.returncode}")


def run_designs(designs, sims, hits_dir, progress=print):
    """Every (design, sim) run; [(design, sim, passed, note)] with the failure's first line."""
    from tb.blocks import BENCH_SAMPLED_TESTS

    outcomes = []
    for design in designs:
        for sim in sims:
            if design in BENCH_SAMPLED_TESTS:
                progress(f"coverage: {design} on {sim} (its regression tests) ...")
                outcome = run_bench_tests(design, sim, hits_dir)
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
