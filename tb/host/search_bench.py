"""The host side of the search benches (tb/test_search.py): run their cocotb tests on a simulator
(the engine under the HDL clock or the per-cycle monitor, or the interleaved engine), run given
searches under the node scoreboard, and replay a saved search case with a waveform."""

import json
import os
import tempfile

from golden.board import parse_board
from tb.checks.search import SearchCase
from tb.host import runner

DESIGN = "search"
INTERLEAVED = "search_c2"    # the engine with two interleaved contexts (rtl/contexts.py)
PATTERN_DESIGN = "search_pattern"   # the engine with the pattern evaluator (tb.blocks.design_evaluator)
MONITORS = ("hdl", "python")


def check_searches_on(sim, boards, depth, budget, echo=False, rtl_root=None, tag="game-nodes", design=DESIGN):
    """Run the searches of ``boards`` (board texts) on ``sim`` with the scoreboard; the number
    of nodes checked, or AssertionError with the failure report. ``design``: DESIGN, or
    PATTERN_DESIGN (the golden search then takes the pattern evaluator)."""
    cases = [SearchCase(parse_board(text), depth, budget, f"search #{i} of the game") for i, text in enumerate(boards)]
    return check_search_cases(sim, cases, tag, echo=echo, rtl_root=rtl_root, design=design)


def check_search_cases(sim, cases, tag, echo=False, rtl_root=None, design=DESIGN):
    """Run ``cases`` (SearchCase) in one simulation of ``design`` on ``sim`` under the node
    scoreboard; the number of node reports checked, or AssertionError with the failure report."""
    return checked_answers(sim, cases, tag, echo, rtl_root, design=design)[0]


def checked_answers(sim, cases, tag, echo=False, rtl_root=None, optimised=False, design=DESIGN):
    """:func:`check_search_cases`, with the engine's answers: (node reports checked, [the answer of
    each case, as tb.checks.search.answer_of gives it, with ``nodes_checked``])."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump([case.to_dict() for case in cases], out)
    try:
        outcome = run_search_bench(sim, ["from_file"], "small", tag=tag, echo=echo, cases_file=out.name,
                                   rtl_root=rtl_root, optimised=optimised, design=design)
    finally:
        os.unlink(out.name)
    if not outcome.passed:
        raise AssertionError(outcome.result.get("failure") or outcome.log_excerpt(3000))
    return outcome.result.get("checked", 0), (outcome.actual or {}).get("answers", [])


def run_search_bench(sim, tests, scale, seed=1, waves=False, tag="", case_file=None, echo=False,
                     rtl_root=None, optimised=False, cases_file=None, monitor="hdl", plusargs=(), design=DESIGN,
                     short_run=False):
    """Run cocotb ``tests`` of this bench on ``design`` (the engine, or INTERLEAVED, which has the
    per-cycle monitor only); ``monitor`` "hdl" (HDL clock, events logged by the harness) or
    "python" (the per-cycle monitor, the engine as the top level). ``short_run``: a run of a
    million cycles or so, whose Verilator model is compiled at -O0 (tb.host.runner ``run_design``;
    a build folder of its own)."""
    if monitor not in MONITORS:
        raise ValueError(f"monitor must be one of {', '.join(MONITORS)}, got {monitor!r}")
    if design == INTERLEAVED and monitor != "python":
        raise ValueError(f"{INTERLEAVED} has the per-cycle monitor only")
    env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_SEARCH_SCALE": scale, "GAMECHIP_SEARCH_MONITOR": monitor}
    if cases_file:
        env["GAMECHIP_CASES"] = str(cases_file)
    if case_file:
        env["GAMECHIP_CASE"] = str(case_file)
    clocked = monitor == "hdl"
    short = short_run and not optimised
    return runner.run_design(design, sim, "tb.test_search", tests, env=env, waves=waves,
                             tag="-".join(filter(None, (tag, "clocked" if clocked else "cycle", "short" if short else ""))),
                             echo=echo, rtl_root=rtl_root, direct=not clocked, clocked=clocked, quiet=True,
                             quick_build=not optimised, short_run=short, plusargs=plusargs)


def waveform(sim_dir, sim, monitor="python", design=DESIGN):
    top = design if monitor == "python" else runner.harness.clocked_harness_name(design)
    return {"icarus": sim_dir / f"{top}.vcd", "verilator": sim_dir / "dump.fst",
            "ghdl": sim_dir / f"{top}.ghw"}[sim]


def replay_search_case(case_file, waves=True, echo=False, rtl_root=None, monitor="python"):
    """Re-run one saved search case (by default under the per-cycle monitor, every cycle seen
    by Python); return (RunResult, waveform path or None)."""
    record = json.loads(open(case_file).read())
    design = record.get("design", DESIGN)
    if design == INTERLEAVED:
        monitor = "python"
    outcome = run_search_bench(record["sim"], ["replay"], "small", seed=record.get("seed", 1), waves=waves,
                               tag="replay", case_file=os.path.abspath(case_file), echo=echo,
                               rtl_root=rtl_root, monitor=monitor, design=design)
    return outcome, waveform(outcome.sim_dir, record["sim"], monitor, design) if waves else None
