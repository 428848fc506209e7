"""What the pattern evaluator costs the search engine a node (docs/pattern-evaluator.md, "In the
engine"): ``python -m gamechip.measure.pattern_engine`` (``make bench-pattern-engine``).

On ``make bench``'s 20 fixed midgame positions (gamechip.measure.search_bench.midgame_positions)
the golden search runs with the seed's evaluator and with the pattern evaluator at the same depth
(and budget, when one is given); the golden cycle schedule is the engine's, cycle by cycle (the
scoreboard checks it node by node on the designs ``search`` and ``search_pattern``), so the cycles
are the engine's. Printed per evaluator: nodes, leaves, cycles, cycles a node, the cycles leaves and
terminal nodes wait for the evaluator, a leaf's mean wait, and the nodes a second at the given
clocks. Nothing is extrapolated.
"""

import argparse
import sys
import time

from golden.evaluator import T_DONE_CYCLE
from golden.patterns import default_weights
from golden.search import LEAF, MAX_DEPTH, TERMINAL, search_events
from gamechip.measure.search_bench import midgame_positions

EVALUATORS = ("seed", "pattern")


def measure(evaluator, positions, depth, budget):
    """Totals of the golden searches of ``positions`` with ``evaluator``: nodes, leaves (leaf and
    terminal nodes evaluated), cycles, evaluator wait cycles (the done cycle of every evaluated
    node, as the engine waits past the cycle after its start, and a terminal node's own cycle)."""
    pattern = default_weights() if evaluator == "pattern" else None
    totals = {"nodes": 0, "leaves": 0, "cycles": 0, "waits": 0, "depths": []}

    def on_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        if kind in (LEAF, TERMINAL):
            totals["leaves"] += 1
            totals["waits"] += terms[T_DONE_CYCLE] + (1 if kind == TERMINAL else 0)

    for pos in positions:
        result = search_events(pos, depth, budget, pattern=pattern, on_node=on_node)
        totals["nodes"] += result.nodes
        totals["cycles"] += result.cycles
        totals["depths"].append(result.depth)
    return totals


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gamechip.measure.pattern_engine",
                                     description="Cycles a node of the engine with the seed's and with the "
                                                 "pattern evaluator, on make bench's 20 midgame positions.")
    parser.add_argument("--depth", type=int, default=5, help=f"depth limit 1..{MAX_DEPTH} (default 5)")
    parser.add_argument("--budget", type=int, help="cycle budget of every search (default: none)")
    parser.add_argument("--clocks", default="13.3,19.2,27.1",
                        help="clocks in MHz at which to print nodes a second (default 13.3,19.2,27.1)")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= MAX_DEPTH or (args.budget is not None and args.budget < 0):
        print(f"pattern_engine: --depth must be 1..{MAX_DEPTH} and --budget >= 0", file=sys.stderr)
        return 2
    try:
        clocks = [float(text) for text in args.clocks.split(",")]
    except ValueError:
        print(f"pattern_engine: --clocks must be MHz numbers separated by commas, got {args.clocks!r}",
              file=sys.stderr)
        return 2
    positions = midgame_positions()
    limits = f"depth {args.depth}" + (f", budget {args.budget:,} cycles" if args.budget is not None else "")
    print(f"the golden cycle schedule on {len(positions)} midgame positions (make bench's), {limits}")
    header = (f"{'evaluator':<10} {'nodes':>9} {'leaves':>9} {'cycles':>10} {'cycles/node':>12} {'waits':>8} "
              f"{'wait/leaf':>10} {'depths':>14} " + " ".join(f"{f'{mhz:g} MHz':>10}" for mhz in clocks))
    print(header)
    print(" " * (len(header) - 11 * len(clocks)) + " ".join(f"{'M nodes/s':>10}" for _ in clocks))
    rows = {}
    for evaluator in EVALUATORS:
        started = time.process_time()
        t = measure(evaluator, positions, args.depth, args.budget)
        rows[evaluator] = t
        per_node = t["cycles"] / max(1, t["nodes"])
        depths = f"{min(t['depths'])}..{max(t['depths'])}"
        print(f"{evaluator:<10} {t['nodes']:>9,} {t['leaves']:>9,} {t['cycles']:>10,} {per_node:>12.3f} "
              f"{t['waits']:>8,} {t['waits'] / max(1, t['leaves']):>10.3f} {depths:>14} "
              + " ".join(f"{mhz / per_node:>10.2f}" for mhz in clocks)
              + f"   ({time.process_time() - started:.1f} CPU s)")
    seed, pattern = rows["seed"], rows["pattern"]
    ratio = (pattern["cycles"] / max(1, pattern["nodes"])) / (seed["cycles"] / max(1, seed["nodes"]))
    print(f"pattern / seed cycles a node: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
