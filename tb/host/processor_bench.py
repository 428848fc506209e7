"""The host side of the processor bench (tb/test_processor.py): run its cocotb tests on a
simulator, and play one refereed game on the simulated processor for ``gamechip play`` and
``gamechip tournament``."""

import json
import os

from rtl.designs import PROCESSOR_DEPTH_LIMIT
from tb.host import runner
from tb.host.search_bench import DESIGN as ENGINE, PATTERN_DESIGN, check_searches_on

DESIGN = "processor"
PATTERN_PROCESSOR = "processor_pattern"   # its engine alone is the design PATTERN_DESIGN
# Games at this many cycles a move or more (about 30 searches: millions of cycles) run on the
# optimised Verilator build; smaller ones on the regression's -O0 build.
OPTIMISED_FROM_BUDGET = 100_000


class GameFailed(RuntimeError):
    """A simulated game stopped: the processor's reply, status or node signature differed from
    the golden processor's (the message has the move, the position and both values), or the
    simulation broke (the message has the end of its log)."""


def simulated_game(sim, level, processor_color, budget, tag="play", echo=False, check_nodes=False, rtl_root=None,
                   design=DESIGN):
    """Play one game on ``sim`` (host side); the game dict, or GameFailed. ``check_nodes``:
    afterwards every search of the game runs again on the engine alone under the node-by-node
    scoreboard (tb/test_search.py, through tb.host.search_bench). ``design``: the processor
    design simulated (``processor``; ``processor_c2``: two search contexts, whose bench checks
    every job of both contexts during the game, its nodes by the job's node signature: with
    ``check_nodes`` those are the nodes checked, ``nodes_checked``, since a search on the
    one-context engine alone would be another search)."""
    request = {"level": level, "color": processor_color}
    outcome = run_processor_bench(sim, ["play"], tag=tag, echo=echo, rtl_root=rtl_root, design=design,
                                  optimised=budget >= OPTIMISED_FROM_BUDGET,
                                  env={"GAMECHIP_PLAY": json.dumps(request),
                                       "GAMECHIP_PROC_BUDGET": str(budget)})
    log = outcome.sim_dir / "gamechip.log"
    if not outcome.passed or not outcome.actual:
        failure = outcome.result.get("failure")
        if failure:
            raise GameFailed(f"MISMATCH in the processor on {sim} (reference level {level}, budget {budget:,}): "
                             f"{failure}\nlog: {log}")
        raise GameFailed(f"the game on {sim} broke before any mismatch:\n{outcome.log[-3000:]}\nlog: {log}")
    game = outcome.actual
    if check_nodes and "job_nodes_checked" in game:
        game["nodes_checked"] = game["job_nodes_checked"]
    elif check_nodes and game["searched_positions"]:
        try:
            checked = check_searches_on(sim, game["searched_positions"], PROCESSOR_DEPTH_LIMIT, budget,
                                        echo=echo, rtl_root=rtl_root,
                                        design=PATTERN_DESIGN if design == PATTERN_PROCESSOR else ENGINE)
        except AssertionError as mismatch:
            raise GameFailed(str(mismatch))
        game["nodes_checked"] = checked
    return game


CLOCKS = ("hdl", "python")


def run_processor_bench(sim, tests, env=None, tag="", echo=False, rtl_root=None, plusargs=(), clock="hdl",
                        optimised=False, design=DESIGN):
    """Run cocotb ``tests`` of this bench on ``sim``; ``clock`` "hdl" (the clocked harness is the
    top level) or "python" (the processor is, cocotb clocks it). ``optimised``: Verilator's model
    compiled at its default optimisation (verilated.mk's -Os), in a build folder of its own, for
    games of millions of cycles; else the model at -O0 (runner SHORT_CLOCKED_QUICK_BUILD_MAKE_ARGS),
    which suits the regression's games of a few thousand cycles a move."""
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    full_env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1"),
                "GAMECHIP_PROC_LEVEL": os.environ.get("GAMECHIP_PROC_LEVEL", "1"), **(env or {})}
    hdl = clock == "hdl"
    return runner.run_design(design, sim, "tb.test_processor", tests, env=full_env,
                             tag="-".join(filter(None, (tag, "optimised" if optimised else "",
                                                        "clocked" if hdl else "cycle"))),
                             direct=not hdl, clocked=hdl, quick_build=not optimised, short_run=True, quiet=True,
                             echo=echo, rtl_root=rtl_root, plusargs=plusargs)
