"""The parallel command: the search split over P engines (docs/spec.md §12), measured in simulated engine
cycles on a Dask cluster."""

import argparse
import time

from gamechip.cli.arguments import natural, positive, simulator_list
from gamechip.cli.common import UsageError, announce_rtl, check_sim, output_dir
from gamechip.installation import require


def _engine_counts(text):
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"engine counts are whole numbers such as 1,2,4,8, got '{text}'")
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"engine counts must be at least 1, got '{text}'")
    return sorted(set(counts))


def parallel_arguments(parser):
    from gamechip.measure.parallel import DEFAULT_DEPTH

    parser.add_argument("--positions", type=positive, default=20, help="seeded midgame positions (default 20)")
    parser.add_argument("--seed", type=natural, default=1, help="seed of the positions (default 1)")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"search depth (default {DEFAULT_DEPTH}: 10^6 engine cycles or more sequentially)")
    parser.add_argument("--split", type=int, help="plies searched on the host (default: 2 for seed, as the "
                                                  "parallel-minimax seed did, 3 for ybw)")
    parser.add_argument("--engines", type=_engine_counts, default=[1, 2, 4, 8, 16, 32],
                        help="engine counts P (default 1,2,4,8,16,32)")
    parser.add_argument("--schemes", nargs="+", metavar="SCHEME", default=["seed", "ybw"],
                        help="seed (the parallel-minimax seed's split, docs/sources.md: full windows, nothing "
                             "shared) and/or ybw (Young Brothers Wait, PVS windows, bounds shared, cut-offs cancel); "
                             "default: seed ybw")
    parser.add_argument("--sim", help=f"also run every subtree on the simulated engine under the node scoreboard "
                                      f"({simulator_list()})")
    parser.add_argument("--sim-sample", type=positive, help="with --sim: only this many subtrees per position "
                                                            "(default: all)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT", help="an existing Dask scheduler (default: a "
                                                                     "local cluster, one worker per core)")
    parser.add_argument("--out", help="folder for parallel.csv, parallel.svg, parallel.json (default: under runs/)")
    parser.add_argument("--json", action="store_true", help="print one JSON object: {\"rows\": [...]}")


def run_parallel(args):
    require("cluster", "this command (its engines run on a Dask cluster)")
    from gamechip.measure.parallel import run
    from golden.host.parallel_search import SCHEMES
    from golden.search import MAX_DEPTH

    for scheme in args.schemes:
        if scheme not in SCHEMES:
            raise UsageError(f"unknown scheme '{scheme}': choose one of {', '.join(SCHEMES)}")
    if not 2 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be 2..{MAX_DEPTH}, got {args.depth}")
    if args.split is not None and not 1 <= args.split < args.depth:
        raise UsageError(f"--split must be 1..depth-1 ({args.depth - 1}), got {args.split}")
    if args.split is None and args.depth <= 3:
        raise UsageError(f"--depth {args.depth} needs --split 1..{args.depth - 1} (the default host plies are 2 and 3)")
    out = output_dir(args.out or f"runs/parallel-{time.strftime('%Y%m%d-%H%M%S')}", "--out")
    if args.sim:
        check_sim(args.sim)
        announce_rtl()
    if args.cluster:
        from gamechip.processes import ClusterError, check_cluster_address
        try:
            check_cluster_address(args.cluster)
        except ClusterError as error:
            raise UsageError(str(error))
    if args.sim_sample is not None and not args.sim:
        raise UsageError("--sim-sample needs --sim")
    return run(args.positions, args.seed, args.depth, args.engines, list(dict.fromkeys(args.schemes)), args.split,
               args.sim, args.cluster, out, args.json, args.sim_sample)


COMMANDS = {
    "parallel": (parallel_arguments, run_parallel),
}
