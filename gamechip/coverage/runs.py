"""The bench runs behind ``gamechip coverage``: each design's regression tests (the same tests and
sizes as make test's, from tb/blocks.py) with functional coverage sampling on, their hit files in
one folder."""

import os

from tb.blocks import DESIGN_BLOCK
from tb.checks.coverage_samplers import COVERAGE_OUT


def run_with_coverage(design, sim, hits_dir, seed=None):
    """One design's regression tests on ``sim``, sampling into ``hits_dir``: the RunResult."""
    from tb.host.runner import run_design

    block = DESIGN_BLOCK[design]
    env = {"GAMECHIP_SEED": str(seed if seed is not None else os.environ.get("GAMECHIP_SEED", "1")),
           "GAMECHIP_COUNT": str(block.counts[sim]), COVERAGE_OUT: str(hits_dir)}
    return run_design(design, sim, block.module, list(block.tests), env=env, quick_build=block.quick_build, quiet=True)


def run_designs(designs, sims, hits_dir, progress=print):
    """Every (design, sim) run; [(design, sim, passed, note)] with the failure's first line."""
    outcomes = []
    for design in designs:
        for sim in sims:
            progress(f"coverage: {design} on {sim} ...")
            outcome = run_with_coverage(design, sim, hits_dir)
            note = "" if outcome.passed else (outcome.result.get("failure") or "failed before any check").splitlines()[0]
            outcomes.append((design, sim, outcome.passed, note))
            if not outcome.passed:
                progress(f"coverage: {design} on {sim} FAILED: {note} (log: {outcome.sim_dir / 'gamechip.log'})")
    return outcomes
