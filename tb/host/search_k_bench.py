"""The host side of the K-engine splitter's bench (tb/test_search_k.py): run its searches on a
simulator, every job of every engine checked against the golden splitter."""

from tb.checks.search_k import CASES_VARIABLE, parse_cases
from tb.host import runner

# The K-engine splitter's designs (rtl/designs.py) and their engine counts.
SEARCH_K_DESIGNS = {"search_k2": 2, "search_k3": 3}


def run_search_k_bench(sim, design, cases=None, waves=False, echo=False, rtl_root=None, tag=""):
    """Run the bench's searches on ``design`` under ``sim``: the regression tier's cases, or
    ``cases`` (``SET:INDEX:DEPTH:BUDGET,...``, tb.checks.search_k); a runner RunResult."""
    env = {}
    if cases:
        parse_cases(cases)      # a bad case is refused here, before any build
        env[CASES_VARIABLE] = cases
    return runner.run_design(design, sim, "tb.test_search_k", ["searches"], env=env, waves=waves,
                             tag="-".join(filter(None, (tag, "waves" if waves else ""))), echo=echo, rtl_root=rtl_root, clocked=True,
                             quick_build=True, short_run=True, quiet=True)
