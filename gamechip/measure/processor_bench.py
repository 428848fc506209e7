"""``make bench`` for the whole processor (docs/spec.md §8) on Verilator: simulated cycles per second with
every check of the processor bench on, beside the search engine's checked rate on the same
searches.

* Processor: tb/test_processor.py ``throughput``, one game as black against the reference program
  at level LEVEL, BUDGET cycles a move, stopped after REPLIES replies: the whole processor under
  the HDL clock, the referee's bytes over its UART pins, every reply, status output and node
  signature compared with the golden processor (its own process, PyPy when installed). Cycles
  are simulated time over the clock period, book moves and UART frames included.
* Engine: every search of that game again on the search engine alone under its node scoreboard
  (tb/test_search.py ``from_file``, every node event logged and compared by the golden process),
  as gamechip.measure.search_bench measures it.

* Equal wall time (:func:`run_equal_wall_time`, golden models only, in golden processes: PyPy
  when installed): the one-context processor and the two-context processor (the root split of
  docs/root-split.md) on the search bench's 20 midgame positions, each given 0.1 s and 1 s of its
  own placed clock (``make area``'s area.json; README's figures when there is none), beside the
  seed's processor at 32 MHz (3.2 M and 32 M cycles, its published depth). Also the root split
  against one context at equal cycles, and its search overhead. Runnable alone:
  ``python -m gamechip.measure.processor_bench [--scale S] [--long-scale L]``.

Wall-clock rates depend on what else the machine runs: the 1-minute load average is printed.
Numbers are printed, never asserted.
"""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gamechip.measure.search_bench import AREA_RESULTS, POSITIONS, SEED, SEED_CHIP, SEED_DEPTH_32M, checked_run, \
    midgame_positions, say
from golden.board import parse_board
from golden.search import MAX_DEPTH
from rtl.designs import PROCESSOR_DEPTH_LIMIT

SIM = "verilator"
BUDGET = 1_000_000
LEVEL = 2
REPLIES = 10
TARGET_RATIO = 2.0   # the engine's checked rate over the processor's, at most


def processor_rate(budget=BUDGET, replies=REPLIES, level=LEVEL):
    """The processor's checked game (``throughput``): its ACTUAL_FILE record and the load."""
    from tb.host.processor_bench import run_processor_bench

    say(f"processor on {SIM}: one game at {budget:,} cycles a move, the first {replies} replies, every check on")
    load_before = os.getloadavg()[0]
    outcome = run_processor_bench(SIM, ["throughput"], tag="bench", echo=True, optimised=True,
                                  env={"GAMECHIP_PROC_BUDGET": str(budget), "GAMECHIP_PROC_LEVEL": str(level),
                                       "GAMECHIP_PROC_MAX_REPLIES": str(replies)})
    if not outcome.passed or not outcome.actual:
        raise RuntimeError(outcome.result.get("failure") or
                           f"the processor's throughput game failed; log {outcome.sim_dir / 'gamechip.log'}")
    return dict(outcome.actual, load=(load_before, os.getloadavg()[0]))


def run_processor_throughput(sims, scale=1.0, long_scale=None):
    """The processor's sections of ``make bench``: its checked game (Verilator only), then the equal
    wall-time comparison (golden); 0, or 1 after a failure."""
    status = processor_throughput(sims, scale)
    return max(status, run_equal_wall_time(scale, LONG_SCALE if long_scale is None else long_scale))


def processor_throughput(sims, scale=1.0):
    """The processor's checked game against the engine's checked rate (Verilator only)."""
    from tb.checks.search import SearchCase

    print()
    if SIM not in sims:
        print(f"processor: measured on {SIM} only (not among the simulators chosen)")
        return 0
    replies = max(3, round(REPLIES * scale))
    try:
        game = processor_rate(replies=replies)
        cases = [SearchCase(parse_board(text), PROCESSOR_DEPTH_LIMIT, BUDGET, f"processor game search #{i}")
                 for i, text in enumerate(game["searched_positions"])]
        say(f"search engine on {SIM}: the game's {len(cases)} searches, every node checked")
        load_before = os.getloadavg()[0]
        engine = checked_run(SIM, cases) if cases else None
        engine_load = (load_before, os.getloadavg()[0])
    except RuntimeError as error:
        print(f"bench stopped: {error}")
        return 1
    rate = game["cycles"] / game["seconds"]
    print(f"processor on {SIM}, one game against reference level {LEVEL}, {BUDGET:,} cycles a move, "
          f"{game['replies']} replies ({len(cases)} searched), every reply, status and node signature checked")
    print(f"{'':<10} {'cycles':>12} {'checked: cycles/s':>18} {'per CPU-s of the simulator':>27} {'load':>9}")
    print(f"{'processor':<10} {game['cycles']:>12,} {rate:>18,.0f} {game['cycles'] / game['cpu_seconds']:>27,.0f} "
          f"{'{:.1f}-{:.1f}'.format(*game['load']):>9}")
    if engine is None:
        print("no search in the game: no engine rate to compare with")
        return 0
    print(f"{'engine':<10} {engine['cycles']:>12,} {engine['wall']:>18,.0f} {engine['cpu']:>27,.0f} "
          f"{'{:.1f}-{:.1f}'.format(*engine_load):>9}")
    ratio = engine["wall"] / rate
    print(f"the engine's checked rate over the processor's: {ratio:.2f} (target <= {TARGET_RATIO}: "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}); the engine: the same searches on the search engine "
          f"alone under its node scoreboard")
    return 0


# --- equal wall time: one context against the root split over two ---------------------------

WALL_BUDGETS = (0.1, 1.0)          # seconds per move
LONG_SCALE = 0.1                   # share of the positions ``make bench`` gives the 1 s budget
# the placed clocks (MHz, ECP5) the README reports, for a machine without make area's area.json:
# the processor as registered (with the endgame solve, docs/area.md) and the two-context engine
README_CLOCKS = {"processor": 13.5, "search_c2": 36.5}
ONE, TWO = "processor", "processor_c2"
SEED_BUDGETS = {0.1: (3_200_000, None), 1.0: (32_000_000, SEED_DEPTH_32M)}   # the seed's cycles, published depth


def placed_clocks(area_results=AREA_RESULTS):
    """{design: (MHz, where from)} of the one-context processor and the two-context one (its
    engine ``search_c2`` until ``processor_c2`` is placed): ECP5 place-and-route clocks of the last
    ``make area`` (GAMECHIP_AREA_JSON names another area.json), else README's figures."""
    path = Path(os.environ.get("GAMECHIP_AREA_JSON") or area_results)
    placed = {}
    if path.exists():
        try:
            for row in json.loads(path.read_text())["rows"]:
                if row.get("family") == "ecp5" and row.get("fmax_measured") and row.get("fmax_mhz"):
                    placed[row["design"]] = (row["fmax_mhz"], f"placed, {path}")
        except (ValueError, KeyError, TypeError):
            placed = {}
    note = f"README's figure (no ECP5 clock in {path})"
    one = placed.get(ONE) or (README_CLOCKS["processor"], note)
    two = placed.get(TWO) or (lambda c: (c[0], f"search_c2's clock, {c[1]}"))(
        placed.get("search_c2") or (README_CLOCKS["search_c2"], note))
    return {ONE: one, TWO: two}


def golden_split_run(python, board, depth, budget, contexts, engines=None):
    """One search in a fresh golden process (``python -m golden.root_split``): the answer with its
    completed iterations (depth, best, value, clock, nodes so far); ``engines``: the root split on
    that many engines of ``contexts`` contexts each (docs/k-engines.md)."""
    from tb.checks.search import ROOT

    args = [python, "-m", "golden.root_split", board, str(depth)] + ([str(budget)] if budget is not None else [])
    args += ["--contexts", str(contexts)] + (["--engines", str(engines)] if engines is not None else [])
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    if run.returncode:
        raise RuntimeError(f"golden search under {python} failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout)


def fixed_depth(one, two):
    """(depth, clocks one, clocks two, nodes one, nodes two) at the deepest iteration both completed."""
    done_one, done_two = {i[0]: i for i in one["iterations"]}, {i[0]: i for i in two["iterations"]}
    depth = max(set(done_one) & set(done_two))
    return depth, done_one[depth][3] + 1, done_two[depth][3] + 1, done_one[depth][4], done_two[depth][4]


def run_equal_wall_time(scale=1.0, long_scale=LONG_SCALE, python=None):
    """Completed depth per move at equal wall time (see the module docstring), printed; 0."""
    from tb.checks.search import golden_python

    python = python or golden_python()
    clocks = placed_clocks()
    positions = [p.text() for p in midgame_positions()]
    counts = {0.1: min(POSITIONS, max(1, round(POSITIONS * scale))),
              1.0: min(POSITIONS, max(1, round(POSITIONS * scale * long_scale)))}
    budgets = {(design, wall): round(wall * clocks[design][0] * 1e6) for design in (ONE, TWO) for wall in WALL_BUDGETS}
    runs = [(design, wall, index, budgets[design, wall], 1 if design == ONE else 2)
            for wall in WALL_BUDGETS for index in range(counts[wall]) for design in (ONE, TWO)]
    # the root split at the one-context processor's clocks of 0.1 s: the two at equal cycles
    runs += [("equal cycles", 0.1, index, budgets[ONE, 0.1], 2) for index in range(counts[0.1])]
    workers = os.cpu_count() or 1
    cpu = sum(budget for *_, budget, _ in runs) / 250_000 / workers / 60
    say(f"equal wall time: {len(runs)} golden searches ({counts[0.1]} positions at 0.1 s, {counts[1.0]} at 1 s) in "
        f"{workers} golden processes ({python}); about {cpu:.0f} min")
    started = time.perf_counter()
    answers, done = {}, []

    def one(run):
        design, wall, index, budget, contexts = run
        answer = golden_split_run(python, positions[index], MAX_DEPTH, budget, contexts)
        done.append(run)
        say(f"  {len(done)}/{len(runs)}: {design}, {wall} s ({budget:,} clocks), position {index}: depth "
            f"{answer['depth']}, {answer['nodes']:,} nodes, {answer['cpu_seconds']:.0f} CPU-s")
        return run[:3], answer

    with ThreadPoolExecutor(workers) as pool:
        answers = dict(pool.map(one, runs))
    print_equal_wall_time(answers, clocks, budgets, counts, time.perf_counter() - started)
    return 0


def print_equal_wall_time(answers, clocks, budgets, counts, seconds):
    print()
    print(f"equal wall time: completed search depth per move, midgame positions of the search bench (random play, "
          f"seed {SEED}), golden models; bench time {seconds:,.0f} s")
    print(f"{'design':<38} {'MHz':>6} {'wall':>5} {'clocks':>12} {'positions':>9} {'mean depth':>10} {'min':>4} "
          f"{'max':>4} {'M nodes/s':>10}")
    for wall in WALL_BUDGETS:
        for design, name in ((ONE, "processor (one context)"), (TWO, "processor_c2 (root split, two contexts)")):
            results = [answers[design, wall, i] for i in range(counts[wall])]
            depths = [r["depth"] for r in results]
            rate = sum(r["nodes"] for r in results) / len(results) / wall / 1e6
            print(f"{name:<38} {clocks[design][0]:>6.1f} {wall:>5} {budgets[design, wall]:>12,} {len(results):>9} "
                  f"{sum(depths) / len(depths):>10.2f} {min(depths):>4} {max(depths):>4} {rate:>10.2f}")
        cycles, depth = SEED_BUDGETS[wall]
        published = f"{depth:>10.2f}" if depth is not None else f"{'-':>10}  (not published in the project)"
        print(f"{'seed: processor (published, Table 7)':<38} {SEED_CHIP[0]:>6.1f} {wall:>5} {cycles:>12,} {'':>9} "
              f"{published}")
    for design in (ONE, TWO):
        print(f"  {design}: {clocks[design][0]:.1f} MHz, {clocks[design][1]}")
    print("  M nodes/s: mean nodes of a move's search over the wall time it was given")
    equal = [(answers[ONE, 0.1, i], answers["equal cycles", 0.1, i]) for i in range(counts[0.1])]
    print()
    print(f"the root split against one context at equal cycles ({budgets[ONE, 0.1]:,} clocks a move, "
          f"{counts[0.1]} positions):")
    mean = sum(two["depth"] for _, two in equal) / len(equal)
    print(f"  mean completed depth: one context {sum(one['depth'] for one, _ in equal) / len(equal):.2f}, root split "
          f"{mean:.2f}")
    fixed = [fixed_depth(answers[ONE, 0.1, i], answers[TWO, 0.1, i]) for i in range(counts[0.1])]
    clock_ratio = sum(f[1] for f in fixed) / sum(f[2] for f in fixed)
    wall_ratio = clock_ratio * clocks[TWO][0] / clocks[ONE][0]
    overhead = sum(f[4] for f in fixed) / sum(f[3] for f in fixed) - 1
    per_position = [f[4] / f[3] - 1 for f in fixed]
    print(f"  time to complete a fixed depth (per position the deepest both completed at 0.1 s, depths "
          f"{min(f[0] for f in fixed)}-{max(f[0] for f in fixed)}): speed-up of the root split "
          f"{clock_ratio:.2f} in clocks, {wall_ratio:.2f} in wall time at the clocks above")
    print(f"  search overhead at that depth (nodes of the root split / nodes of one context - 1): {overhead:+.3f} "
          f"over all positions; per position {min(per_position):+.3f} to {max(per_position):+.3f}")


def main(argv=None):
    """``python -m gamechip.measure.processor_bench``: the equal wall-time section alone."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gamechip.measure.processor_bench",
                                     description="completed depth at equal wall time: one context against the "
                                                 "root split (golden models)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="share of the 20 positions at 0.1 s (default 1; at most all of them)")
    parser.add_argument("--long-scale", type=float, default=LONG_SCALE,
                        help=f"share of those also searched at 1 s (default {LONG_SCALE}; 1: all of them, the full "
                             f"figures, about an hour of golden search on two cores)")
    args = parser.parse_args(argv)
    if not args.scale > 0 or not 0 < args.long_scale <= 1:
        print("processor_bench: --scale is more than 0 and --long-scale a share in (0, 1]", file=sys.stderr)
        return 2
    return run_equal_wall_time(args.scale, args.long_scale)


if __name__ == "__main__":
    raise SystemExit(main())
