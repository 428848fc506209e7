"""The host side of the peripheral's bench (tb/test_evaluator_axi.py): run its cocotb tests with
the design as the top level (AxiLiteMaster), or replay a transaction stream through the
HDL-clocked replay harness at full speed."""

import os

from tb.host import runner
from tb.host.harness import AXI_STALLS

DESIGN = "evaluator_axi"
TESTS = ("register_map", "random_transactions", "games_with_backtracks", "searches_replayed")
STREAM_ENV = "GAMECHIP_AXI_STREAM"   # a stream file (tb/sim/axi_stream.py) to replay instead of the regression's


def run_evaluator_axi(sim, tests=TESTS, waves=False, tag="", rtl_root=None):
    """Build (if needed) and run ``tests`` of this bench on the converted peripheral under ``sim``,
    the design itself as the top level; returns tb.host.runner's RunResult."""
    env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1")}
    return runner.run_design(DESIGN, sim, "tb.test_evaluator_axi", list(tests), env=env, waves=waves, tag=tag,
                             rtl_root=rtl_root, direct=True, quiet=True, quick_build=True)


def run_stream(sim, stream=None, waves=False, tag="stream", rtl_root=None, echo=False, plusargs=()):
    """Replay a stream file (default: the regression's stream, played with the master's stalls:
    tb.host.harness AXI_STALLS) through the HDL-clocked replay harness under ``sim`` (Verilator or
    Icarus); returns tb.host.runner's RunResult. A given stream is played without stalls, so that its
    bus cycles are the transfer models' own."""
    env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1")}
    if stream:
        env[STREAM_ENV] = os.path.abspath(stream)
    else:
        plusargs = (*plusargs, f"+{AXI_STALLS}")
    return runner.run_design(DESIGN, sim, "tb.test_evaluator_axi", ["searches_streamed"], env=env, waves=waves,
                             tag=tag, rtl_root=rtl_root, clocked=True, quiet=not echo, echo=echo, plusargs=plusargs)
