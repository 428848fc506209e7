"""``make bench`` for the search engine (docs/spec.md §7), on 20 fixed midgame positions: cycles per node,
how fast the golden search runs (CPython and the fast path, PyPy), how fast each simulator runs
the engine alone and with every node checked, and the completed depth within the seed's budgets,
all measured.

* Cycles per node come from the golden model's cycle schedule, which the scoreboard proves equal
  to the engine's, cycle by cycle; they are split into generation cycles (one per generated
  node), cycles waiting for the evaluator's stable-disc iterations, and cycles spent returning.
* Golden: ``python -m golden.search`` on one position (1 M cycles), under CPython (the ``ints``
  kernel) and under PyPy (``words``), in nodes per CPU second.
* Simulators: the HDL-clocked harness (tb/test_search.py, ``hdl`` monitor). "Alone": node events
  not even written, answers compared with the golden search. "Every node checked": every node
  event logged and compared by the golden process. Wall-clock cycles per second, and per CPU
  second of the simulator process and of the golden process: on a shared machine the wall clock
  says how busy the machine was, CPU time what each side costs (with two free cores the checked
  rate is the smaller of the two).
* Completed depth: 1,024 and 3.2 M cycles are simulated on Verilator with every node checked (the
  20 positions, 64 M cycles: also the checked-throughput figure); 32 M cycles by the golden search
  (whose cycle schedule the scoreboard verifies node by node), in golden processes on every core.
  Nothing is extrapolated.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from golden.board import popcount
from golden.evaluator import T_DONE_CYCLE
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.search import MAX_DEPTH, TERMINAL, search_events

SEED = 2010
POSITIONS = 20
BUDGETS = (1_024, 3_200_000, 32_000_000)
SIMULATED_BUDGETS = {"verilator": (1_024, 3_200_000)}   # every node checked
GOLDEN_BUDGETS = (32_000_000,)
GOLDEN_RATE_CYCLES = 1_000_000
# (searches, budget) for the simulator alone, and for every node checked where no depth budget is
# simulated: Icarus and GHDL run this design at a few hundred cycles per second
FREE_RUN = {"verilator": (3, 1_000_000), "icarus": (1, 4_000), "ghdl": (1, 4_000)}
CHECKED = {"icarus": (1, 4_000), "ghdl": (1, 4_000)}
TARGET_CYCLES_PER_NODE = 2.5
TARGET_CHECKED_RATE = 150_000
SEED_DEPTH_32M = 9.64      # the seed's processor at 32 M cycles per move (Table 7); its C twin 7.63


def midgame_positions(seed=SEED, count=POSITIONS):
    """``count`` positions from random games, 20..40 discs, side to move has a move."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = random_game_positions(rng)
        candidates = [p for p in game if 20 <= popcount(p.black | p.white) <= 40
                      and legal_moves(p.own, p.opp)]
        if candidates:
            out.append(rng.choice(candidates))
    return out


def say(text):
    print(f"bench: {text}", file=sys.stderr, flush=True)


def cycle_split(pos, depth):
    """(nodes, generation, evaluator waits, returns) cycles of the golden search of ``pos``, and
    the tree's shape: (inner nodes, frontier nodes: the inner nodes whose children are leaves)."""
    waits, inner, frontier = [0], [0], [0]

    def on_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        if terms is not None:
            waits[0] += terms[T_DONE_CYCLE] + (1 if kind == TERMINAL else 0)
        elif ply > 0:
            inner[0] += 1
            frontier[0] += ply + 1 == iteration

    result = search_events(pos, depth, on_node=on_node)
    return (result.nodes, result.nodes, waits[0], result.cycles - result.nodes - waits[0],
            inner[0], frontier[0])


def golden_run(python, pos, budget):
    """One golden search in a fresh ``python`` process (``python -m golden.search``)."""
    from tb.checks.search import ROOT

    run = subprocess.run([python, "-m", "golden.search", pos.text(), str(MAX_DEPTH), str(budget)], cwd=ROOT,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    if run.returncode:
        raise RuntimeError(f"golden search under {python} failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout)


def engine_runs(sim, cases, test):
    """Run ``cases`` (SearchCase) through the HDL-clocked bench: ``free_run`` (the simulator alone)
    or ``from_file`` (every node checked). Returns the run's RunResult."""
    from tb.host.search_bench import run_search_bench

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump([case.to_dict() for case in cases], out)
    try:
        outcome = run_search_bench(sim, [test], "small", tag="bench", echo=True, optimised=True, cases_file=out.name)
    finally:
        os.unlink(out.name)
    if not outcome.passed:
        raise RuntimeError(outcome.result.get("failure") or
                           f"{test} on {sim} failed; log {outcome.sim_dir / 'gamechip.log'}")
    return outcome


def free_run_rate(sim, positions, count, budget):
    from tb.checks.search import SearchCase

    cases = [SearchCase(p, MAX_DEPTH, budget, f"bench #{i}") for i, p in enumerate(positions[:count])]
    say(f"{sim}: the engine alone, {len(cases)} search(es) of {budget:,} cycles")
    answers = engine_runs(sim, cases, "free_run").actual
    for case, answer in zip(cases, answers):
        golden = search_events(case.position, case.depth, case.budget).summary()
        if {k: answer[k] for k in golden} != golden:
            raise RuntimeError(f"{sim}: {case.position.text()} budget {case.budget}: engine {answer}, golden {golden}")
    cycles = sum(a["cycles"] for a in answers)
    return {"cycles": cycles, "wall": cycles / sum(a["seconds"] for a in answers),
            "cpu": cycles / sum(a["cpu_seconds"] for a in answers)}


def checked_run(sim, cases):
    """Every node of ``cases`` checked; rates and the per-search answers (depths)."""
    outcome = engine_runs(sim, cases, "from_file")
    t = outcome.result["tests"]["from_file"]
    return {"cycles": t["cycles"], "nodes": t["checked"], "wall": t["cycles"] / t["wall_seconds"],
            "cpu": t["cycles"] / t["sim_cpu_seconds"], "golden_cpu": t["checked"] / max(t["golden_cpu_seconds"] or 0, 1e-9),
            "depths": t.get("depths", [])}


AREA_RESULTS = Path("runs/area/area.json")   # written by make area
SEED_CHIP = (32.0, "the seed's processor: 32 MHz, 2 cycles a node plus the stable-disc iterations")
DEEP_BLUE = "the Deep Blue chess chip: 2-2.5 M positions/s at 24 MHz"


ENGINES = {"search": "one context", "search_c2": "two contexts, both busy"}   # design -> how it runs


def print_nodes_per_second(cycles_per_node, area_results=AREA_RESULTS):
    """The engine's nodes per second at its clock: the place-and-route Fmax of ``search`` and of
    ``search_c2`` (two interleaved contexts, rtl/contexts.py) from the last ``make area``
    (GAMECHIP_AREA_JSON names another area.json) over the cycles per node. A context of
    ``search_c2`` steps every other clock on the same schedule, so its two contexts together
    make Fmax / (cycles per node) nodes a second, each alone half of that."""
    path = Path(os.environ.get("GAMECHIP_AREA_JSON") or area_results)
    print()
    if not path.exists():
        print(f"nodes per second at the engine's clock: no area results at {path} (make area places and routes "
              f"the engine; GAMECHIP_AREA_JSON names another area.json)")
        return
    try:
        rows = [r for r in json.loads(path.read_text())["rows"] if r["design"] in ENGINES and r["fmax_mhz"]]
    except (ValueError, KeyError, TypeError) as error:
        print(f"nodes per second at the engine's clock: {path} is not an area.json of make area ({error})")
        return
    if not rows:
        print(f"nodes per second at the engine's clock: {path} has no clock for the search designs")
        return
    print(f"{'engine clock':<58} {'MHz':>7} {'cycles/node':>12} {'M nodes/s':>10}")
    for r in sorted(rows, key=lambda r: (list(ENGINES).index(r["design"]), not r["fmax_measured"])):
        how = (f"{r['design']} ({ENGINES[r['design']]}), {r['family']}, "
               f"{'place and route, ' + r['device'] if r['fmax_measured'] else 'estimated from levels'}")
        print(f"{how:<58} {r['fmax_mhz']:>7.1f} {cycles_per_node:>12.3f} {r['fmax_mhz'] / cycles_per_node:>10.2f}")
    print(f"{'seed: ' + SEED_CHIP[1]:<58}")
    print(f"{'  (2 cycles a node, stable iterations left out: at most)':<58} {SEED_CHIP[0]:>7.1f} {2.0:>12.3f} "
          f"{SEED_CHIP[0] / 2:>10.2f}")
    print(f"{DEEP_BLUE} (clocks from {path}, {rows[0].get('yosys', '?')})")


def run_search_bench(sims, scale=1.0):
    from tb.checks.search import golden_python, SearchCase

    positions = midgame_positions()[:max(1, round(POSITIONS * scale))]
    say(f"search engine on {len(positions)} midgame positions (random play, seed {SEED})")
    started = time.perf_counter()

    totals = [0] * 6
    for pos in positions:
        for i, value in enumerate(cycle_split(pos, 5)):
            totals[i] += value
    nodes = totals[0]

    say(f"golden search alone: {GOLDEN_RATE_CYCLES:,} cycles, CPython and {golden_python()}")
    golden_rates = {"CPython": golden_run(sys.executable, positions[0], GOLDEN_RATE_CYCLES)}
    fast = golden_python()
    if fast != sys.executable:
        golden_rates["PyPy"] = golden_run(fast, positions[0], GOLDEN_RATE_CYCLES)

    alone, checked, depths = {}, {}, {}
    for sim in sims:
        count, budget = FREE_RUN[sim]
        alone[sim] = free_run_rate(sim, positions, count, budget)
        if sim in SIMULATED_BUDGETS:
            for budget in SIMULATED_BUDGETS[sim]:
                cases = [SearchCase(p, MAX_DEPTH, budget, f"bench #{i}, budget {budget:,}")
                         for i, p in enumerate(positions)]
                say(f"{sim}: every node checked, {len(cases)} searches of {budget:,} cycles")
                run = checked_run(sim, cases)
                depths[budget] = (f"simulated on {sim}, every node checked", run["depths"])
                if budget == max(SIMULATED_BUDGETS[sim]):
                    checked[sim] = run
        else:
            count, budget = CHECKED[sim]
            say(f"{sim}: every node checked, {count} search(es) of {budget:,} cycles")
            checked[sim] = checked_run(sim, [SearchCase(p, MAX_DEPTH, budget, f"bench #{i}")
                                             for i, p in enumerate(positions[:count])])

    for budget in GOLDEN_BUDGETS:
        if budget in depths:
            continue
        workers = os.cpu_count() or 1
        say(f"golden search, {len(positions)} positions at {budget:,} cycles in {workers} golden processes "
            f"({fast}); about {budget / 1.2 / 300_000 * len(positions) / workers / 60:.0f} min")
        done = []

        def one(pos):
            answer = golden_run(fast, pos, budget)
            done.append(answer["depth"])
            say(f"  {len(done)}/{len(positions)}: depth {answer['depth']} ({answer['nodes']:,} nodes, "
                f"{answer['nodes_per_second']:,.0f} nodes/CPU-s)")
            return answer["depth"]

        with ThreadPoolExecutor(workers) as pool:
            depths[budget] = (f"golden search ({'PyPy' if fast != sys.executable else 'CPython'})",
                              list(pool.map(one, positions)))

    print()
    print(f"search engine, {len(positions)} midgame positions (20..40 discs, random play, seed {SEED}); "
          f"bench time {time.perf_counter() - started:,.0f} s")
    cycles_per_node = sum(totals[1:4]) / nodes
    print(f"cycles per node at depth 5: {cycles_per_node:.3f}  "
          f"(generation {totals[1] / nodes:.3f}, stable-disc waits {totals[2] / nodes:.3f}, "
          f"returns {totals[3] / nodes:.3f}; {nodes:,} nodes; target <= {TARGET_CYCLES_PER_NODE}: "
          f"{'met' if cycles_per_node <= TARGET_CYCLES_PER_NODE else 'NOT met'})")
    # what a pipelined schedule would pay per register stage: one before the flip delays every inner
    # node's first move, one after the evaluator every frontier node's last fold (unless speculated)
    print(f"tree shape at depth 5: inner nodes {totals[4] / nodes:.3f} a node, of which frontier nodes "
          f"(parents of leaves) {totals[5] / nodes:.3f}")
    print_nodes_per_second(cycles_per_node)
    print()
    print(f"{'golden search':<16} {'nodes/CPU-s':>12}  kernel")
    for name, answer in golden_rates.items():
        print(f"{name:<16} {answer['nodes_per_second']:>12,.0f}  {answer['kernel']} "
              f"({GOLDEN_RATE_CYCLES:,}-cycle search, {answer['nodes']:,} nodes)")
    print()
    print(f"{'simulator':<10} {'alone: cycles/s':>16} {'per sim CPU-s':>14} {'checked: cycles/s':>18} "
          f"{'per sim CPU-s':>14} {'golden nodes/CPU-s':>19} {'cycles checked':>15}")
    for sim in sims:
        a, c = alone[sim], checked[sim]
        note = ""
        if sim == "verilator":
            best = min(c["cpu"], c["golden_cpu"] * c["cycles"] / max(c["nodes"], 1))
            note = (f"  with two free cores: {best:,.0f} cycles/s checked; target >= {TARGET_CHECKED_RATE:,}: "
                    f"{'met' if best >= TARGET_CHECKED_RATE else 'NOT met'} (wall clock: "
                    f"{'met' if c['wall'] >= TARGET_CHECKED_RATE else 'NOT met'})")
        print(f"{sim:<10} {a['wall']:>16,.0f} {a['cpu']:>14,.0f} {c['wall']:>18,.0f} {c['cpu']:>14,.0f} "
              f"{c['golden_cpu']:>19,.0f} {c['cycles']:>15,}{note}")
    print("  (HDL clock; 'checked': every node event logged by the harness and compared by the golden process)")
    print()
    print(f"{'budget':>12} {'mean depth':>11} {'min':>4} {'max':>4}  how")
    for budget in BUDGETS:
        if budget not in depths:
            print(f"{budget:>12,} {'-':>11}  not measured (no simulator chosen simulates it)")
            continue
        how, values = depths[budget]
        note = f"; the seed's processor: {SEED_DEPTH_32M}" if budget == 32_000_000 else ""
        print(f"{budget:>12,} {sum(values) / len(values):>11.2f} {min(values):>4} {max(values):>4}  "
              f"{how}, {len(values)} positions{note}")
    return 0


def simulator_rate_line(sim="verilator"):
    """One line for ``make bench-verilator``: the engine alone on ``sim`` (FREE_RUN searches, HDL
    clock, optimised build), with the simulator's version and the cocotb line that ran it."""
    import cocotb

    count, budget = FREE_RUN[sim]
    rate = free_run_rate(sim, midgame_positions(), count, budget)
    tool = {"verilator": ["verilator", "--version"], "icarus": ["iverilog", "-V"], "ghdl": ["ghdl", "--version"]}[sim]
    version = subprocess.run(tool, capture_output=True, text=True).stdout.splitlines()[0].strip()
    return (f"{version}, cocotb {cocotb.__version__}: {rate['wall']:,.0f} simulated cycles/s (wall), "
            f"{rate['cpu']:,.0f} per simulator CPU-second; the search engine alone, {count} searches of "
            f"{budget:,} cycles")


if __name__ == "__main__":
    print(simulator_rate_line(*sys.argv[1:2]))
