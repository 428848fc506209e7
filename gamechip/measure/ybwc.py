"""Young Brothers Wait on K engines x C contexts (docs/k-engines.md), measured from the golden models.

The search bench's 20 midgame positions (random play, seed 2010, as ``make bench``), each searched
to one fixed depth without a budget, in one golden process per position (``python -m golden.ybwc
BOARD DEPTH --compare ...``, PyPy when installed), by:

* the one-context processor (iterative deepening inside the engine);
* for each design K x C asked, the root split (golden/root_split.py) and Young Brothers Wait
  (golden/ybwc.py) on K engines of C contexts.

Printed per design and scheduler: the clocks to complete the depth summed over the positions, the
speed-up in clocks against one context (summed, and the range per position), against the root
split of the same design, the search overhead (nodes / one context's nodes - 1), whether every
value equals one context's, jobs, abandoned jobs and the table's peak per ply. Then, at placed
clocks (gamechip.measure.processor_bench.placed_clocks: the one-context processor's for designs of
one context an engine, the two-context processor's for two), the equal-wall-time speed-up against
the one-context processor and the nodes per second; these clocks are those of one engine placed
alone, not of K engines and a scheduler on one chip, which nobody has placed.

``python -m gamechip.measure.ybwc [--depth D] [--designs 1x1,2x1,4x1,4x2,8x1] [--positions N]
[--first I] [--jobs J] [--split-plies H] [--min-job-depth M]``; numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from gamechip.measure.processor_bench import ONE, TWO, placed_clocks
from gamechip.measure.search_bench import POSITIONS, SEED, midgame_positions, say
from golden.board import BoardError
from golden.ybwc import MIN_JOB_DEPTH, SPLIT_PLIES, parse_designs

DEPTH = 8
DESIGNS = "1x1,2x1,4x1,4x2,8x1"
SCHEDULERS = ("root_split", "ybwc")


def golden_compare(python, board, depth, designs, split_plies, min_job_depth):
    """One position's :func:`golden.ybwc.compare` in a fresh golden process."""
    from tb.checks.search import ROOT

    args = [python, "-m", "golden.ybwc", board, str(depth), "--compare", designs,
            "--split-plies", str(split_plies), "--min-job-depth", str(min_job_depth)]
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    if run.returncode:
        raise RuntimeError(f"golden comparison under {python} failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout)


def measure(depth, designs, first, positions, jobs, split_plies, min_job_depth, python=None):
    from tb.checks.search import golden_python

    python = python or golden_python()
    boards = [p.text() for p in midgame_positions()[first:first + positions]]
    say(f"ybwc: {len(boards)} positions to depth {depth}, designs {designs}, in {jobs} golden process(es) "
        f"({python})")
    finished = []

    def one(index):
        answer = golden_compare(python, boards[index], depth, designs, split_plies, min_job_depth)
        finished.append(index)
        say(f"  {len(finished)}/{len(boards)}: position {first + index}: one context {answer['one']['cycles']:,} "
            f"clocks; " + ", ".join(f"{row['engines']}x{row['contexts']} ybwc {row['ybwc']['cycles']:,}"
                                    for row in answer["designs"]) + f"; {answer['cpu_seconds']:.0f} CPU-s")
        return answer

    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, range(len(boards))))


def totals(answers, index, scheduler):
    rows = [answer["designs"][index][scheduler] for answer in answers]
    return rows, sum(row["cycles"] for row in rows), sum(row["nodes"] for row in rows)


def print_table(answers, depth, first, clocks, split_plies, min_job_depth, seconds):
    count = len(answers)
    base = [answer["one"] for answer in answers]
    base_clocks, base_nodes = sum(a["cycles"] for a in base), sum(a["nodes"] for a in base)
    print()
    print(f"clocks to complete depth {depth}, midgame positions {first}..{first + count - 1} of the search bench "
          f"(random play, seed {SEED}), golden models, no budget; YBWC with {split_plies} split plies, jobs of "
          f"depth >= {min_job_depth}; bench time {seconds:,.0f} s")
    print(f"{'design':<26} {'clocks':>12} {'speed-up':>9} {'per position':>13} {'vs root split':>14} "
          f"{'overhead':>9} {'values':>7} {'jobs':>8} {'abandoned':>10} {'table peak':>13} {'queue':>6}")
    print(f"{'processor (one context)':<26} {base_clocks:>12,} {1:>9.2f}")
    for index, design in enumerate(answers[0]["designs"]):
        name = f"{design['engines']}x{design['contexts']}"
        split_clocks = totals(answers, index, "root_split")[1]
        for scheduler in SCHEDULERS:
            rows, clocks_total, nodes = totals(answers, index, scheduler)
            same = all(a["value"] == b["value"] and a["depth"] == b["depth"] == depth for a, b in zip(rows, base))
            each = [b["cycles"] / a["cycles"] for a, b in zip(rows, base)]
            jobs = sum(row["jobs"] for row in rows)
            extra = ""
            if scheduler == "ybwc":
                peak = [max(row["peak_slots"][p] for row in rows) for p in range(len(rows[0]["peak_slots"]))]
                queue = max(row["peak_queue"] for row in rows)
                extra = f"{sum(row['abandoned_jobs'] for row in rows):>10,} {str(peak):>13} {queue:>6}"
            print(f"{name + ' ' + scheduler:<26} {clocks_total:>12,} {base_clocks / clocks_total:>9.2f} "
                  f"{min(each):>6.2f}-{max(each):<6.2f} {split_clocks / clocks_total:>14.2f} "
                  f"{nodes / base_nodes - 1:>+9.3f} {'same' if same else 'DIFFER':>7} {jobs:>8,} {extra}")
    print("  speed-up: one context's clocks over the design's, summed over the positions (per position: its range);")
    print("  vs root split: the root split's clocks on the same design over these; overhead: nodes / one context's - 1;")
    print("  table peak: the most split points open at once on each ply; queue: the longest re-search queue")
    print()
    one_mhz = clocks[ONE][0]
    print(f"at placed clocks (one engine placed alone; K engines and the scheduler are not placed): one context "
          f"{one_mhz} MHz ({clocks[ONE][1]}), two contexts {clocks[TWO][0]} MHz ({clocks[TWO][1]})")
    base_seconds = base_clocks / (one_mhz * 1e6)
    print(f"{'processor (one context)':<26} {base_seconds * 1e3 / count:>9.2f} ms a position "
          f"{base_nodes / base_seconds / 1e6:>7.1f} M nodes/s")
    for index, design in enumerate(answers[0]["designs"]):
        mhz = clocks[ONE if design["contexts"] == 1 else TWO][0]
        for scheduler in SCHEDULERS:
            _, clocks_total, nodes = totals(answers, index, scheduler)
            wall = clocks_total / (mhz * 1e6)
            print(f"{design['engines']}x{design['contexts']} {scheduler:<22} {wall * 1e3 / count:>9.2f} ms a position "
                  f"{nodes / wall / 1e6:>7.1f} M nodes/s  {base_seconds / wall:>5.2f}x one context at equal "
                  f"wall time ({mhz} MHz)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gamechip.measure.ybwc",
                                     description="clocks to a fixed depth: one context, the root split and Young "
                                                 "Brothers Wait on K engines x C contexts (golden models)")
    parser.add_argument("--depth", type=int, default=DEPTH, help=f"the fixed depth (default {DEPTH})")
    parser.add_argument("--designs", default=DESIGNS, help=f"KxC, comma-separated (default {DESIGNS})")
    parser.add_argument("--positions", type=int, default=POSITIONS, help=f"positions (default all {POSITIONS})")
    parser.add_argument("--first", type=int, default=0, help="the first position's index (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="golden processes at once (default 1)")
    parser.add_argument("--split-plies", type=int, default=SPLIT_PLIES, help=f"YBWC's H (default {SPLIT_PLIES})")
    parser.add_argument("--min-job-depth", type=int, default=MIN_JOB_DEPTH,
                        help=f"YBWC's least job depth (default {MIN_JOB_DEPTH})")
    args = parser.parse_args(argv)
    try:
        designs = parse_designs(args.designs)
    except BoardError as error:
        print(f"ybwc: {error}", file=sys.stderr)
        return 2
    if not 1 <= args.depth <= 16 or not 0 <= args.first < POSITIONS or not 1 <= args.positions <= POSITIONS - args.first \
            or args.jobs < 1 or not all(1 <= k <= 16 and c in (1, 2) for k, c in designs) \
            or not 1 <= args.split_plies < 16 or not 1 <= args.min_job_depth <= 16:
        print(f"ybwc: depth 1..16, first + positions within {POSITIONS}, jobs >= 1, designs KxC with K 1..16 and C 1 "
              f"or 2, split plies 1..15, least job depth 1..16", file=sys.stderr)
        return 2
    started = time.perf_counter()
    answers = measure(args.depth, args.designs, args.first, args.positions, args.jobs, args.split_plies,
                      args.min_job_depth)
    print_table(answers, args.depth, args.first, placed_clocks(), args.split_plies, args.min_job_depth,
                time.perf_counter() - started)
    print(f"  machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
