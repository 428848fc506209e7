"""The host side of the board bench (tb/test_board.py): run its cocotb tests on a simulator, the
HDL-clocked harness of the board top as the top level."""

import os

from tb.host import runner

DESIGN = "board_ulx3s"


def run_board_bench(sim, tests, env=None, tag="", rtl_root=None, echo=False):
    """Run cocotb ``tests`` of the board bench on ``sim``; ``rtl_root`` as runner.run_design's
    (a netlist root runs the bench at gate level)."""
    full_env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1"), **(env or {})}
    return runner.run_design(DESIGN, sim, "tb.test_board", tests, env=full_env,
                             tag="-".join(filter(None, (tag, "clocked"))), clocked=True, quick_build=True,
                             short_run=True, quiet=True, echo=echo, rtl_root=rtl_root)
