"""Clocks to a fixed depth on K engines (docs/k-engines.md), from the golden models.

The search bench's 20 midgame positions (random play, seed 2010, as ``make bench``), each searched
to one fixed depth without a budget by:

* the one-context processor (iterative deepening inside the engine, ``--contexts 1``);
* the two-context processor's root split (``processor_c2``, one engine of two contexts);
* the root split on K engines of one context each (the K-engine processor), for each K asked;
* with ``--two-contexts``, the root split on K engines of two contexts each too (2K contexts).

Each search runs in a fresh golden process (``python -m golden.root_split``, PyPy when installed),
cycle for cycle the design's. Printed per design: the clocks to complete the depth summed over the
positions, the speed-up in clocks against one context, the nodes and the search overhead (nodes /
one context's nodes - 1), and whether every answer's value equals the one context's. A speed-up
in wall time needs each design's placed clock: only the one-context processor's and
``processor_c2``'s are measured (docs/area.md); it is printed at the clocks given with
``--clock DESIGN=MHZ`` and otherwise not at all.

``python -m gamechip.measure.k_engines [--depth D] [--engines 1,2,4] [--positions N] [--jobs J]
[--two-contexts]``; numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from gamechip.measure.processor_bench import golden_split_run
from gamechip.measure.search_bench import POSITIONS, SEED, midgame_positions, say

DEPTH = 8
ENGINE_COUNTS = (1, 2, 4)
ONE_CONTEXT = "processor (one context)"
TWO_CONTEXTS = "processor_c2 (root split, 1 engine x 2 contexts)"


def design_name(engines: int, contexts: int) -> str:
    return f"processor_k K={engines} ({engines} x {contexts} context{'s' if contexts > 1 else ''})"


def designs(engine_counts, two_contexts: bool):
    """(name, contexts, engines) of every design measured; engines None: not a split on K engines."""
    rows = [(ONE_CONTEXT, 1, None), (TWO_CONTEXTS, 2, None)]
    rows += [(design_name(k, 1), 1, k) for k in engine_counts]
    if two_contexts:
        rows += [(design_name(k, 2), 2, k) for k in engine_counts]
    return rows


def measure(depth, engine_counts, positions, jobs, two_contexts, python=None):
    """{(design, position index): answer} of every search, each in its own golden process."""
    from tb.checks.search import golden_python

    python = python or golden_python()
    boards = [p.text() for p in midgame_positions()[:positions]]
    runs = [(name, contexts, engines, index) for index in range(len(boards))
            for name, contexts, engines in designs(engine_counts, two_contexts)]
    say(f"k-engines: {len(runs)} golden searches to depth {depth} ({len(boards)} positions) in {jobs} golden "
        f"process(es) ({python})")
    finished = []

    def one(run):
        name, contexts, engines, index = run
        answer = golden_split_run(python, boards[index], depth, None, contexts, engines)
        finished.append(run)
        say(f"  {len(finished)}/{len(runs)}: {name}, position {index}: {answer['cycles']:,} clocks, "
            f"{answer['nodes']:,} nodes, {answer['cpu_seconds']:.1f} CPU-s")
        return (name, index), answer

    with ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(one, runs)), len(boards)


def print_table(answers, count, depth, engine_counts, two_contexts, clocks, seconds):
    print()
    print(f"clocks to complete depth {depth}, {count} midgame positions of the search bench (random play, seed "
          f"{SEED}), golden models, no budget; bench time {seconds:,.0f} s")
    print(f"{'design':<50} {'clocks':>13} {'speed-up':>9} {'nodes':>12} {'overhead':>9} {'values':>7} "
          f"{'per position':>15}")
    base = [answers[ONE_CONTEXT, i] for i in range(count)]
    base_clocks = sum(a["cycles"] for a in base)
    base_nodes = sum(a["nodes"] for a in base)
    for name, _, _ in designs(engine_counts, two_contexts):
        rows = [answers[name, i] for i in range(count)]
        total = sum(a["cycles"] for a in rows)
        nodes = sum(a["nodes"] for a in rows)
        same = all(a["value"] == b["value"] and a["depth"] == b["depth"] == depth for a, b in zip(rows, base))
        each = [b["cycles"] / a["cycles"] for a, b in zip(rows, base)]
        print(f"{name:<50} {total:>13,} {base_clocks / total:>9.2f} {nodes:>12,} {nodes / base_nodes - 1:>+9.3f} "
              f"{'same' if same else 'DIFFER':>7} {min(each):>6.2f}-{max(each):<6.2f}")
        if name in clocks:
            wall = base_clocks / clocks[ONE_CONTEXT] / (total / clocks[name])
            print(f"{'':<50} at {clocks[name]} MHz against one context at {clocks[ONE_CONTEXT]} MHz: "
                  f"{wall:.2f} in wall time")
    print("  speed-up: one context's clocks over the design's, summed over the positions (per position: its range)")
    print("  overhead: nodes / one context's nodes - 1; values: every answer's value and depth as one context's")


def parse_clocks(texts, names):
    clocks = {}
    for text in texts:
        design, _, mhz = text.rpartition("=")
        matches = [name for name in names if name.startswith(design) or design in name]
        if not design or len(matches) != 1:
            raise ValueError(f"--clock {text!r}: DESIGN=MHZ with DESIGN one of: {', '.join(names)}")
        clocks[matches[0]] = float(mhz)
    return clocks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gamechip.measure.k_engines",
                                     description="clocks to a fixed depth: one context, the two-context root "
                                                 "split and the root split on K engines (golden models)")
    parser.add_argument("--depth", type=int, default=DEPTH, help=f"the fixed depth (default {DEPTH})")
    parser.add_argument("--engines", default=",".join(map(str, ENGINE_COUNTS)),
                        help="engine counts, comma-separated (default 1,2,4)")
    parser.add_argument("--positions", type=int, default=POSITIONS, help=f"positions, 1..{POSITIONS} (default all)")
    parser.add_argument("--jobs", type=int, default=1, help="golden processes at once (default 1)")
    parser.add_argument("--two-contexts", action="store_true", help="also K engines of two contexts each")
    parser.add_argument("--clock", action="append", default=[], metavar="DESIGN=MHZ",
                        help="a design's placed clock, for a wall-time speed-up (one context's is needed too)")
    args = parser.parse_args(argv)
    try:
        engine_counts = tuple(int(k) for k in args.engines.split(","))
        names = [name for name, _, _ in designs(engine_counts, args.two_contexts)]
        clocks = parse_clocks(args.clock, names)
    except ValueError as error:
        print(f"k_engines: {error}", file=sys.stderr)
        return 2
    if not 1 <= args.depth <= 16 or not 1 <= args.positions <= POSITIONS or args.jobs < 1 \
            or not all(1 <= k <= 16 for k in engine_counts):
        print(f"k_engines: depth 1..16, positions 1..{POSITIONS}, jobs >= 1, engines 1..16", file=sys.stderr)
        return 2
    if clocks and ONE_CONTEXT not in clocks:
        clocks = {}
    started = time.perf_counter()
    answers, count = measure(args.depth, engine_counts, args.positions, args.jobs, args.two_contexts)
    print_table(answers, count, args.depth, engine_counts, args.two_contexts, clocks,
                time.perf_counter() - started)
    print(f"  machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
