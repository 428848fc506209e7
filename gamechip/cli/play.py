"""Game commands: play (one refereed game of the processor) and tournament (both colours
against every reference level)."""

import argparse
import os
import sys
import time

from gamechip.cli.arguments import cycles, positive, simulator_list, simulators
from gamechip.cli.common import UsageError, announce_rtl, check_sim, output_dir, output_file


def _levels(text):
    """'1-7', '3', '1,3,5' -> [levels]."""
    levels = set()
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            levels.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"levels are 1..7 as '1-7', '3' or '1,3,5', got '{text}'")
    if not levels or not levels <= set(range(1, 8)):
        raise argparse.ArgumentTypeError(f"levels are 1..7, got '{text}'")
    return sorted(levels)


def play_arguments(parser):
    parser.add_argument("--budget", type=cycles, required=True, help="processor cycles per move, e.g. 1024 or 3.2M")
    parser.add_argument("--level", type=int, choices=range(1, 8), default=1, help="reference level 1..7 (depth)")
    parser.add_argument("--color", choices=("black", "white"), default="black", help="the processor's colour")
    parser.add_argument("--sim", help=f"simulate the RTL processor on this simulator ({simulator_list()}); "
                                      "default: its golden model")
    parser.add_argument("--record", help="results file (default: a new file under runs/)")
    parser.add_argument("--check", choices=("moves", "nodes"), default="moves",
                        help="moves: every processor move against the golden processor (default); "
                             "nodes: also every search node against the golden search")


def run_play(args):
    from gamechip.play import default_record, golden_game, print_move, write_record

    default = default_record(args.level, args.color, args.budget)
    record = output_file(args.record or default, "--record", default.name)
    if args.check == "nodes" and not args.sim:
        raise UsageError("--check nodes needs --sim: it checks the simulated engine's nodes")
    if args.sim:
        from tb.host.processor_bench import GameFailed, simulated_game

        check_sim(args.sim)
        announce_rtl()
        try:
            game = simulated_game(args.sim, args.level, args.color, args.budget, tag="play", echo=True,
                                  check_nodes=args.check == "nodes")
        except GameFailed as failure:
            print(failure, file=sys.stderr)
            print(f"FAIL: the game stopped at the first difference from the golden processor; nothing written "
                  f"to {record}", file=sys.stderr)
            return 1
    else:
        game = golden_game(args.level, args.color, args.budget, on_move=print_move(args.color))
    path = write_record(game, record)
    print(f"final score: black {game['black']} white {game['white']} "
          f"(processor {game['processor_discs']}, reference level {args.level} {game['reference_discs']}); "
          f"{game['reason']}")
    print(f"game record: {game['record']}")
    print(f"mean search depth of the processor: {game['mean_depth']}")
    print(f"record written to {path}")
    return 0


def tournament_arguments(parser):
    parser.add_argument("--budget", type=cycles, required=True, help="processor cycles per move")
    parser.add_argument("--levels", type=_levels, default=list(range(1, 8)), help="e.g. 1-7 (default)")
    parser.add_argument("--sim", help="simulate the RTL processor (default: its golden model)")
    parser.add_argument("--jobs", type=positive, help="worker processes on this machine (default: one per core)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="play the games as tasks of this Dask distributed scheduler instead: each worker "
                             "plays in a build slot of its own machine with its own simulators and RTL (the "
                             "tables name each game's host and RTL digest)")
    parser.add_argument("--mode", choices=("processor", "engine"), default="processor",
                        help="with --sim: processor (the whole processor over its pins) or engine (games by the "
                             "golden processor, every search on the simulated search engine, every node "
                             "checked: the seed's 3.2M and 32M budgets in hours)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the games already finished in --out (its games.json), play the rest")
    parser.add_argument("--out", help="folder for tournament.md, tournament.csv, games.json "
                                      "(default: a new folder under runs/)")


def run_tournament(args):
    from gamechip.processes import ClusterError
    from gamechip.play import run_tournament as play_tournament

    out = output_dir(args.out or f"runs/tournament-{time.strftime('%Y%m%d-%H%M%S')}-budget{args.budget}", "--out")
    if args.sim and args.cluster:  # the simulators must be on the workers, not here
        if args.sim not in simulators():
            raise UsageError(f"unknown simulator '{args.sim}': choose one of {simulator_list()}")
    elif args.sim:
        check_sim(args.sim)
        announce_rtl()
    if args.mode == "engine" and not args.sim:
        raise UsageError("--mode engine needs --sim (it simulates every search of every game)")
    if args.cluster and args.jobs is not None:
        raise UsageError("--jobs sets the local worker processes; with --cluster the cluster's workers play the games")
    try:
        return play_tournament(args.budget, args.levels, args.sim, args.jobs or os.cpu_count() or 1, out,
                               mode=args.mode, resume=args.resume, cluster=args.cluster)
    except ClusterError as error:
        raise UsageError(str(error))


COMMANDS = {
    "play": (play_arguments, run_play),
    "tournament": (tournament_arguments, run_tournament),
}
