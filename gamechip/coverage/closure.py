"""Closure as a test: the default regression fails when a bin of a plan is neither hit nor waived.

The regression's own bench runs sample (root conftest.py sets COVERAGE_OUT while a planned
block's bench test runs, in whichever pytest-xdist worker runs it); at the end of the session the
controller, which sees every test's result, merges the hit files of the bench tests that passed
and judges each design whose bench tests all ran and passed in the session (a design only
partly run, by -k or a failure, is not judged: its failure already fails the run).
"""

import os

from gamechip.coverage.model import design_coverage, read_hit_files
from gamechip.coverage.plan import design_plans, load_plans, load_waivers

SESSION_FOLDER = "GAMECHIP_COVERAGE_SESSION"   # the regression's hit folder, set by the controller


def bench_prefix(block):
    return f"tb/test_{block}.py::test_{block}["


def planned_bench(nodeid, plans=None):
    """Whether ``nodeid`` is the bench test of a block with a test plan."""
    from tb.blocks import BENCH_SAMPLED_TESTS

    plans = load_plans() if plans is None else plans
    designs = {design for plan in plans.values() for design in plan.designs}
    return any(nodeid.startswith(bench_prefix(block)) for block in plans) or any(
        nodeid.startswith(f"{test}[") for design in designs for test, _, _ in BENCH_SAMPLED_TESTS.get(design, ()))


def bench_nodeids(design, full=False):
    """The pytest ids of ``design``'s bench runs in the regression tier (``full``: make test-full)."""
    from tb.blocks import BENCH_SAMPLED_TESTS, DESIGN_BLOCK, regression_params
    from tb.host.runner import SIMULATORS

    if design in BENCH_SAMPLED_TESTS:
        return [f"{test}[{sim}]" for test, sims, full_only in BENCH_SAMPLED_TESTS[design]
                for sim in sims or SIMULATORS if full or sim not in full_only]
    block = DESIGN_BLOCK[design]
    prefix = bench_prefix(block.name)
    if len(block.designs) == 1:
        return [f"{prefix}{sim}]" for sim in SIMULATORS]
    return [f"{prefix}{param.id}]" for param in regression_params(block, SIMULATORS)
            if param.values[1] == design and (full or not param.marks)]


def session_closure(hit_folder, passed, full=False):
    """{design: DesignCoverage} of every planned design whose bench tests all passed (``passed``:
    the ids of the tests that passed), from the hit files those tests wrote under ``hit_folder``."""
    plans, waivers = design_plans(), load_waivers()
    judged = {}
    for design in plans:
        wanted = bench_nodeids(design, full)
        if not wanted or not set(wanted) <= set(passed):
            continue
        judged[design] = wanted
    if not judged:
        return {}
    accepted = set().union(*judged.values())
    merged = read_hit_files([hit_folder] if os.path.isdir(hit_folder) else [],
                            accept=lambda record: record.get("pytest_test") in accepted)
    return {design: design_coverage(design, merged.get(design), plans, waivers) for design in judged}
