"""The host side of the peripheral's bench (tb/test_evaluator_axi.py): run its cocotb tests with
the design as the top level (AxiLiteMaster), or replay a transaction stream through the
HDL-clocked replay harness at full speed."""

import json
import os
from pathlib import Path

from tb.host import runner
from tb.host.harness import AXI_STALLS

DESIGN = "evaluator_axi"
TESTS = ("register_map", "random_transactions", "games_with_backtracks", "searches_replayed")
STREAMED = "searches_streamed"   # the test of the HDL-clocked replay harness
STREAM_ENV = "GAMECHIP_AXI_STREAM"   # a stream file (tb/sim/axi_stream.py) to replay instead of the regression's


def run_evaluator_axi(sim, tests=TESTS, waves=False, tag="", rtl_root=None, seed=None):
    """Build (if needed) and run ``tests`` of this bench on the converted peripheral under ``sim``,
    the design itself as the top level; returns tb.host.runner's RunResult. ``seed``: else
    GAMECHIP_SEED's, else 1."""
    env = {"GAMECHIP_SEED": str(seed) if seed is not None else os.environ.get("GAMECHIP_SEED", "1")}
    return runner.run_design(DESIGN, sim, "tb.test_evaluator_axi", list(tests), env=env, waves=waves, tag=tag,
                             rtl_root=rtl_root, direct=True, quiet=True, quick_build=True)


def run_stream(sim, stream=None, waves=False, tag=None, rtl_root=None, echo=False, plusargs=(), seed=None):
    """Replay a stream file (default: the regression's stream, played with the master's stalls:
    tb.host.harness AXI_STALLS) through the HDL-clocked replay harness under ``sim`` (Verilator or
    Icarus); returns tb.host.runner's RunResult. A given stream is played without stalls, so that its
    bus cycles are the transfer models' own (``plusargs`` may ask for the stalls all the same).
    The regression's stream (under a million cycles) runs on Verilator's -O0 build, cheaper to build
    than its run is slower; a given stream, which may be a whole game's, on the optimised one (``tag``
    default "stream" or "stream-given": build folders of their own)."""
    env = {"GAMECHIP_SEED": str(seed) if seed is not None else os.environ.get("GAMECHIP_SEED", "1")}
    if tag is None:
        tag = "stream" if stream is None else "stream-given"
    if stream:
        env[STREAM_ENV] = os.path.abspath(stream)
    else:
        plusargs = (*plusargs, f"+{AXI_STALLS}")
    return runner.run_design(DESIGN, sim, "tb.test_evaluator_axi", [STREAMED], env=env, waves=waves,
                             tag=tag, rtl_root=rtl_root, clocked=True, quiet=not echo, echo=echo, plusargs=plusargs,
                             quick_build=stream is None, short_run=stream is None)


def replay_bus_case(case_file, waves=True, echo=False, rtl_root=None):
    """Run a saved failing case of this bench again (tb.host.casefile reads it): its test whole
    on the master's bench, or its stream through the replay harness with the stalls it was played
    with; (RunResult, waveform path or None). ``rtl_root``: the RTL to run, else the case's own."""
    record = json.loads(Path(case_file).read_text())   # checked by tb.host.casefile where a user gave it
    case = record["case"]
    root = runner.replay_rtl_root(record)[0] if rtl_root is None else rtl_root
    sim, seed = record["sim"], record["seed"]
    if case["test"] == STREAMED:
        outcome = run_stream(sim, case["stream"], waves=waves, tag="replay", rtl_root=root, echo=echo, seed=seed,
                             plusargs=(f"+{AXI_STALLS}",) if case.get("stalls") else ())
    else:
        outcome = run_evaluator_axi(sim, [case["test"]], waves=waves, tag="replay", rtl_root=root, seed=seed)
    return outcome, runner.waveform_path(outcome.sim_dir, DESIGN, sim) if waves else None
