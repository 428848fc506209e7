"""``make bench`` for the search engine (SPEC §7): cycles per node, simulated cycles per second,
and the completed depth within the seed's budgets, on 20 fixed midgame positions.

* Cycles per node come from the golden model's cycle schedule, which the regression's
  scoreboard proves equal to the engine's, cycle by cycle; they are split into generation
  cycles (one per generated node), cycles waiting for the evaluator's stable-disc iterations,
  and cycles spent returning to a level above.
* Simulated cycles per second: the engine runs free (no per-cycle scoreboard) on each
  simulator, every answer compared with the golden search.
* Completed depth: for 1,024 cycles the engine is simulated (Verilator). For 3.2 M and 32 M
  cycles simulation (and the Python golden model, ~15k nodes/s) would take hours, so the
  depth is extrapolated: the golden search runs iterations until one passes
  ``MEASURED_CYCLES``; each further iteration is assumed to cost the last measured
  iteration's cycles times the ratio of the last two (the effective branching factor of
  iterative deepening, taken over an even and an odd ply so the odd/even swing averages out).
  The table says which figures are measured and which extrapolated.
"""

import json
import random
import sys
import tempfile
import time

from golden.board import popcount
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.search import MAX_DEPTH, TERMINAL, search, search_events
from golden.evaluator import DEFAULT, evaluate

SEED = 2010
POSITIONS = 20
BUDGETS = (1_024, 3_200_000, 32_000_000)
MEASURED_CYCLES = 60_000
TARGET_CYCLES_PER_NODE = 2.5
TARGET_DEPTH_32M = 11
FREE_RUN_CASES = {"verilator": 20, "icarus": 1, "ghdl": 2}


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


def cycle_split(result):
    """(generation, evaluator waits, returns) cycles of a golden SearchResult."""
    waits = 0
    for node in result.trace:
        if node.kind != "inner":
            waits += evaluate(node.position).done_cycle + (1 if node.kind == TERMINAL else 0)
    generation = result.nodes
    return generation, waits, result.cycles - generation - waits


class _Enough(Exception):
    pass


def iteration_cycles(pos, limit_cycles):
    """Cycles of iterations 1, 2, ... of the golden search until one passes ``limit_cycles``."""
    costs = []

    def on_iteration(depth, best, value, end):
        costs.append(end + 1 - sum(costs))
        if sum(costs) >= limit_cycles:
            raise _Enough

    try:
        search_events(pos, MAX_DEPTH, on_iteration=on_iteration)
    except _Enough:
        pass
    return costs


def depth_within(costs, budget):
    """Deepest completed iteration within ``budget`` cycles; (depth, extrapolated?)."""
    costs = list(costs)
    extrapolated = False
    growth = (costs[-1] / costs[-3]) ** 0.5 if len(costs) >= 3 and costs[-3] else 4.0
    while sum(costs) <= budget and len(costs) < MAX_DEPTH:
        costs.append(costs[-1] * growth)
        extrapolated = True
    total, depth = 0, 0
    for d, cost in enumerate(costs, 1):
        total += cost
        if total > budget and d > 1:
            break
        depth = d
    return depth, extrapolated


def free_run(sim, cases, optimised=True):
    from tb.test_search import SearchCase, run_search_bench

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump([case.to_dict() for case in cases], out)
    outcome = run_search_bench(sim, ["free_run"], "small", tag="bench", echo=True, optimised=optimised,
                               cases_file=out.name)
    if not outcome.passed or not outcome.actual:
        raise RuntimeError(f"free run on {sim} failed; log {outcome.sim_dir / 'gamechip.log'}")
    return outcome.actual


def run_search_bench(sims):
    from tb.test_search import SearchCase

    positions = midgame_positions()
    print(f"bench: search engine on {len(positions)} midgame positions (random play, seed {SEED})",
          file=sys.stderr, flush=True)

    # Cycles per node at a fixed depth, from the verified cycle model.
    totals = [0, 0, 0, 0]
    for number, pos in enumerate(positions, 1):
        print(f"bench: cycle split at depth 5, position {number}/{len(positions)}", file=sys.stderr, flush=True)
        result = search(pos, 5)
        generation, waits, returns = cycle_split(result)
        for i, value in enumerate((result.nodes, generation, waits, returns)):
            totals[i] += value
    nodes = totals[0]

    # Simulated cycles per second (free run), and the 1,024-cycle budget simulated.
    budget_cases = [SearchCase(p, MAX_DEPTH, BUDGETS[0], f"bench #{i}") for i, p in enumerate(positions)]
    rates, measured_depths = {}, None
    for sim in sims:
        chosen = budget_cases[:FREE_RUN_CASES[sim]]
        started = time.perf_counter()
        answers = free_run(sim, chosen)
        for case, answer in zip(chosen, answers):
            golden = search(case.position, case.depth, case.budget).summary()
            got = {k: answer[k] for k in golden}
            if got != golden:
                raise RuntimeError(f"{sim}: {case.position.text()} budget {case.budget}: "
                                   f"engine {got}, golden {golden}")
        cycles = sum(a["cycles"] for a in answers)
        rates[sim] = (cycles / sum(a["seconds"] for a in answers), len(answers), time.perf_counter() - started)
        if sim == "verilator" or measured_depths is None:
            measured_depths = (sim, [a["depth"] for a in answers])

    # Completed depth at the larger budgets, extrapolated from the golden iterations.
    print(f"bench: golden iterations up to {MEASURED_CYCLES:,} cycles per position ...", file=sys.stderr, flush=True)
    costs = []
    for number, pos in enumerate(positions, 1):
        costs.append(iteration_cycles(pos, MEASURED_CYCLES))
        print(f"bench: position {number}/{len(positions)}: iterations cost {costs[-1]} cycles",
              file=sys.stderr, flush=True)

    print()
    print(f"search engine, {len(positions)} midgame positions (20..40 discs, random play, seed {SEED})")
    print(f"cycles per node at depth 5: {sum(totals[1:]) / nodes:.3f}  "
          f"(generation {totals[1] / nodes:.3f}, stable-disc waits {totals[2] / nodes:.3f}, "
          f"returns {totals[3] / nodes:.3f}; {nodes:,} nodes; target <= {TARGET_CYCLES_PER_NODE}: "
          f"{'met' if sum(totals[1:]) / nodes <= TARGET_CYCLES_PER_NODE else 'NOT met'})")
    print("  (from the golden cycle schedule, which the regression's scoreboard checks cycle by cycle)")
    print()
    print(f"{'simulator':<10} {'cycles/s':>10} {'searches':>9}  (free run, no scoreboard; answers checked)")
    for sim, (rate, count, _) in rates.items():
        print(f"{sim:<10} {rate:>10,.0f} {count:>9}")
    print()
    print(f"{'budget':>12} {'mean depth':>11} {'min':>4} {'max':>4}  how")
    sim, depths = measured_depths
    print(f"{BUDGETS[0]:>12,} {sum(depths) / len(depths):>11.2f} {min(depths):>4} {max(depths):>4}  "
          f"simulated on {sim} ({len(depths)} positions)")
    for budget in BUDGETS:
        results = [depth_within(c, budget) for c in costs]
        depths = [d for d, _ in results]
        how = ("extrapolated from golden iterations" if any(e for _, e in results)
               else "golden cycle model, all iterations computed")
        note = ""
        if budget == 32_000_000:
            note = f"; target >= {TARGET_DEPTH_32M}: {'met' if sum(depths) / len(depths) >= TARGET_DEPTH_32M else 'NOT met'}"
        print(f"{budget:>12,} {sum(depths) / len(depths):>11.2f} {min(depths):>4} {max(depths):>4}  {how}{note}")
    growth = [(c[-1] / c[-3]) ** 0.5 for c in costs if len(c) >= 3]
    print(f"\neffective branching factor per ply (last iterations): mean {sum(growth) / len(growth):.2f}")
    return 0
