"""Game commands: play (one refereed game of the processor) and tournament (both colours
against every reference level)."""

import argparse
import os
import sys
import time

from gamechip.cli.arguments import EVALUATORS, cycles, positive, seconds, simulator_list, simulators, whole_number_from
from gamechip.cli.common import UsageError, announce_rtl, check_sim, output_dir, output_file
from gamechip.installation import require


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


CONTEXTS_HELP = ("the processor's search contexts: 1 (default) or 2, the root split over both contexts "
                 "(docs/root-split.md); with --sim the design processor_c2")


def contexts_option(args, sim=None):
    """``--contexts`` as a number (1 or 2), after checking it: bad input is one line, exit status 2."""
    from gamechip.games.play import check_contexts

    try:
        contexts = int(args.contexts)
    except ValueError:
        contexts = args.contexts
    try:
        check_contexts(contexts, sim)
    except ValueError as error:
        raise UsageError(str(error))
    return contexts


ENGINES_HELP = ("the processor's search engines K, one context each: 1 (default), or 2..16, the root split over "
                "K engines (docs/k-engines.md); with --sim the design processor_k2 or processor_k3 (K = 2 or 3)")


def engines_option(args, contexts=1, sim=None):
    """``--engines`` as a number after checking it (against ``contexts``, and with ``sim`` against the
    converted designs): bad input is one line, exit status 2."""
    from gamechip.games.play import check_engines

    try:
        engines = int(args.engines)
    except ValueError:
        engines = args.engines
    try:
        check_engines(engines, contexts, sim)
    except ValueError as error:
        raise UsageError(str(error))
    if engines != 1 and (args.solve_empties or getattr(args, "evaluator", "seed") != "seed"):
        raise UsageError(f"--engines {engines}: the K-engine processor has the seed's evaluator and no endgame solve; "
                         f"leave out --solve-empties and --evaluator")
    return engines


SOLVE_EMPTIES_HELP = ("the processor solves its endgame (WLD, then exact) at E empty squares or fewer, 0 never "
                      "(docs/solve.md); default: the converted processor's E (rtl/processor_settings.py PROCESSOR_SOLVE_EMPTIES) "
                      "with one context, 0 with --contexts 2 (the two-context processor does not solve); with --sim "
                      "the design's own E, which only a conversion changes")


def solve_empties_option(args, contexts, converted=None):
    """``--solve-empties`` for ``contexts`` after checking it against them and against a converted
    processor (``converted``, default ``--sim``: a simulated design or a board, whose E is its
    conversion's): bad input is one line, exit status 2."""
    from rtl.processor_settings import PROCESSOR_SOLVE_EMPTIES

    design_empties = PROCESSOR_SOLVE_EMPTIES if contexts == 1 else 0
    if args.solve_empties is None:
        return design_empties
    if args.solve_empties and contexts != 1:
        raise UsageError("--solve-empties: the two-context processor does not solve (its engine has no solve mode): "
                         "use --contexts 1 or --solve-empties 0")
    if (args.sim if converted is None else converted) and args.solve_empties != design_empties:
        raise UsageError(f"--solve-empties {args.solve_empties}: the converted processor ({'--sim' if args.sim else '--port'}) "
                         f"solves at {design_empties} empties, its conversion parameter; leave the option out")
    return args.solve_empties


def solve_empties_argument(parser):
    from rtl.processor_settings import MAX_SOLVE_EMPTIES

    parser.add_argument("--solve-empties", type=whole_number_from(0, f"must be 0..{MAX_SOLVE_EMPTIES}",
                                                                  MAX_SOLVE_EMPTIES),
                        metavar="E", help=SOLVE_EMPTIES_HELP)


EVALUATOR_HELP = ("the processor's leaf evaluator: seed (the default, docs/spec.md §4) or pattern (the committed "
                  "pattern weights, docs/pattern-evaluator.md; with --sim the design processor_pattern; one context)")


def evaluator_option(args):
    """``--evaluator`` after checking it against the other options: the pattern evaluator is built for
    one context (bad input is one line, exit status 2)."""
    if args.evaluator == "pattern" and args.contexts != "1":
        raise UsageError("--evaluator pattern is built for one context: leave out --contexts 2")
    return args.evaluator


def play_arguments(parser):
    parser.add_argument("--budget", type=cycles, required=True, help="processor cycles per move, e.g. 1024 or 3.2M")
    parser.add_argument("--contexts", default="1", help=CONTEXTS_HELP)
    parser.add_argument("--engines", default="1", help=ENGINES_HELP)
    parser.add_argument("--evaluator", choices=EVALUATORS, default="seed", help=EVALUATOR_HELP)
    solve_empties_argument(parser)
    parser.add_argument("--level", type=int, choices=range(1, 8), default=1,
                        help="reference level 1..7 (its search depth; default 1)")
    parser.add_argument("--color", choices=("black", "white"), default=None,
                        help="the processor's colour (with --port: the board's), black or white; default black, "
                             "or with --human the colour the human does not play")
    parser.add_argument("--sim", help=f"simulate the RTL processor on this simulator ({simulator_list()}); "
                                      "default: its golden model")
    parser.add_argument("--record", help="results file (default: a new file under runs/)")
    parser.add_argument("--check", choices=("moves", "nodes"), default="moves",
                        help="moves: every processor move against the golden processor (default); "
                             "nodes: also every search node against the golden search")
    board = parser.add_argument_group("a board on a serial port (docs/serial.md)")
    board.add_argument("--port", metavar="DEVICE",
                       help="referee the processor on this serial port (/dev/ttyUSB0, or a pyserial URL such as "
                            "socket://127.0.0.1:PORT for gamechip serve); --budget is the board's, every reply is "
                            "checked against the golden processor at it. Exit status: 0 game played and every reply "
                            "matched, 1 a reply differed, 2 bad options or the port cannot be opened, 3 the board "
                            "broke the protocol (no reply, garbage, the port closed), 4 the server (gamechip serve) "
                            "is busy with another game: try again, no record; 5 the human left (end of input), "
                            "130 interrupted")
    board.add_argument("--baud", type=positive, help="with --port: the line's speed (default 115200)")
    board.add_argument("--timeout", type=seconds,
                       help="with --port: seconds to wait for each reply of the board (default 30)")
    board.add_argument("--human", choices=("black", "white"), metavar="COLOUR",
                       help="with --port: you play COLOUR (black or white) at the terminal instead of the reference "
                            "player; the board plays the other colour")
    board.add_argument("--depth-limit", type=positive, default=None,
                       help="with --port: the board's search depth limit (default: the converted processor's, "
                            "rtl/designs.py PROCESSOR_DEPTH_LIMIT)")


def run_play(args):
    from gamechip.games.play import default_record, ggf_path, golden_game, print_move, write_record
    from golden.contest.games import claim_contradicted

    if args.port:
        return run_port_game(args)
    contexts = contexts_option(args, args.sim)
    engines = engines_option(args, contexts, args.sim)
    evaluator = evaluator_option(args)
    solve_empties = solve_empties_option(args, contexts) if engines == 1 else 0
    args.color = args.color or "black"
    for option in ("baud", "timeout", "human", "depth_limit"):
        if getattr(args, option):
            raise UsageError(f"--{option.replace('_', '-')} needs --port")
    default = default_record(args.level, args.color, args.budget)
    record = output_file(args.record or default, "--record", default.name)
    if args.check == "nodes" and not args.sim:
        raise UsageError("--check nodes needs --sim: it checks the simulated engine's nodes")
    if args.sim:
        from gamechip.games.play import simulated_game_of
        from tb.host.processor_bench import GameFailed

        check_sim(args.sim)
        announce_rtl()
        try:
            game = simulated_game_of(args.sim, args.level, args.color, args.budget, contexts, evaluator, engines,
                                     tag="play", echo=True, check_nodes=args.check == "nodes")
        except GameFailed as failure:
            print(failure, file=sys.stderr)
            print(f"FAIL: the game stopped at the first difference from the golden processor; nothing written "
                  f"to {record}", file=sys.stderr)
            return 1
    else:
        game = dict(golden_game(args.level, args.color, args.budget, on_move=print_move(args.color),
                                contexts=contexts, solve_empties=solve_empties, evaluator=evaluator, engines=engines),
                    contexts=contexts)
    path = write_record(game, record)
    print(f"final score: black {game['black']} white {game['white']} "
          f"(processor {game['processor_discs']}, reference level {args.level} {game['reference_discs']}); "
          f"{game['reason']}")
    print(f"game record: {game['record']}")
    print(f"mean search depth of the processor: {game['mean_depth']}")
    claim = game.get("solve_claim")
    if claim:
        print(f"endgame solve: {claim['claim']} solved at ply {claim['ply'] + 1} ({claim['move']}, {claim['solved']}); "
              f"{'CONTRADICTED by the result' if claim_contradicted(game) else 'the result agrees'}")
    print(f"record written to {path} (GGF: {ggf_path(path)})")
    return 0


def run_port_game(args):
    """``play --port``: the board against the reference player or a human (gamechip/games/port.py)."""
    require("board", "--port")
    from gamechip.games.play import ggf_path, port_record, print_move
    from gamechip.games.port import (DEFAULT_BAUD, DEFAULT_TIMEOUT, EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_PROTOCOL,
                                     PortGame, PortUnavailable, TerminalPlayer, open_port)
    from golden.contest.reference import ReferencePlayer
    from rtl.designs import PROCESSOR_DEPTH_LIMIT

    if args.sim or args.check != "moves":
        raise UsageError("--port plays a board: --sim and --check nodes need a simulation of their own")
    if args.evaluator != "seed":
        raise UsageError("--port plays a board, whose processor has the seed's evaluator: leave out --evaluator")
    if args.contexts != "1" or args.engines != "1":
        raise UsageError("--port plays a board with the one-context processor: --contexts 2 and --engines K have "
                         "no board yet")
    solve_empties_option(args, 1, converted=True)
    board_color = board_colour(args.color, args.human)
    opponent_name = f"human at the terminal ({args.human})" if args.human else f"reference level {args.level}"
    default = port_record(board_color, f"human-{args.human}" if args.human else f"level{args.level}", args.budget)
    record = output_file(args.record or default, "--record", default.name)
    try:
        port = open_port(args.port, args.baud or DEFAULT_BAUD, args.timeout or DEFAULT_TIMEOUT)
    except PortUnavailable as error:
        raise UsageError(str(error))
    print(f"play: the board on {args.port} plays {board_color} at {args.budget:,} cycles a move, every reply "
          f"checked against the golden processor; opponent: {opponent_name}", file=sys.stderr, flush=True)
    opponent = TerminalPlayer() if args.human else ReferencePlayer(args.level)
    try:
        game = PortGame(port, opponent, board_color, args.budget, args.depth_limit or PROCESSOR_DEPTH_LIMIT,
                        args.timeout or DEFAULT_TIMEOUT, opponent_name)
        status, outcome, text = game.run(print_move(board_color, "board", opponent_name))
    finally:
        port.close()
    if status == 0:
        print(outcome)
    elif status == EXIT_PROTOCOL:
        print(f"FAIL: the board broke the protocol: {outcome}", file=sys.stderr)
    elif status == EXIT_INTERRUPTED:
        print("gamechip play: interrupted", file=sys.stderr)
    else:   # a mismatch (its report), the server busy, the human gone
        print(outcome if status == EXIT_MISMATCH else f"gamechip play: {outcome}", file=sys.stderr)
    if text is None:   # the game never started
        return status
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(text)
    ggf_path(record).write_text(game.ggf + "\n")
    print(f"record written to {record} (GGF: {ggf_path(record)})", file=sys.stderr if status else sys.stdout)
    return status


def board_colour(color, human):
    """The board's colour in ``play --port``: ``--color`` names it, ``--human`` the human's own;
    given both, they must differ (UsageError)."""
    if human is None:
        return color or "black"
    other = "white" if human == "black" else "black"
    if color is not None and color != other:
        raise UsageError(f"--human {human} plays {human} against the board, so the board plays {other}; "
                         f"--color {color} names the board's colour: leave it out")
    return other


def tournament_arguments(parser):
    parser.add_argument("--budget", type=cycles, required=True, help="processor cycles per move")
    parser.add_argument("--contexts", default="1", help=CONTEXTS_HELP)
    parser.add_argument("--evaluator", choices=EVALUATORS, default="seed", help=EVALUATOR_HELP)
    solve_empties_argument(parser)
    parser.add_argument("--levels", type=_levels, default="1-7",
                        help="reference levels 1..7 as 1-7, 3 or 1,3,5 (default 1-7: every level)")
    parser.add_argument("--sim", help=f"simulate the RTL processor on this simulator ({simulator_list()}); "
                                      "default: its golden model")
    parser.add_argument("--jobs", type=positive, help="worker processes on this machine (default: one per core)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="play the games as tasks of this Dask distributed scheduler instead: each worker "
                             "plays in a build slot of its own machine with its own simulators and RTL (the "
                             "tables name each game's host and RTL digest)")
    parser.add_argument("--mode", choices=("processor", "engine"), default="processor",
                        help="with --sim: processor (the default: the whole processor over its pins) or engine "
                             "(games by the golden processor, every search on the simulated search engine, every node "
                             "checked: the seed's 3.2M and 32M budgets in hours)")
    parser.add_argument("--games-per-engine", default="1",
                        help="1 (default): one game a simulation; 2: with --sim, the games two at a time on one "
                             "simulation of the two-context engine search_c2, one game on each context, every "
                             "node checked (docs/games.md)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the games already finished in --out (its games.json), play the rest")
    parser.add_argument("--out", help="folder for tournament.md, tournament.csv, games.json "
                                      "(default: a new folder under runs/)")


def run_tournament(args):
    if args.cluster:
        require("cluster", "--cluster")
    from gamechip.processes import ClusterError
    from gamechip.games.paired_games import check_games_per_engine
    from gamechip.games.play import run_tournament as play_tournament

    contexts = contexts_option(args)
    evaluator = evaluator_option(args)
    try:
        games_per_engine = check_games_per_engine(args.games_per_engine, args.sim, contexts, args.mode, args.cluster)
    except ValueError as error:
        raise UsageError(str(error))
    if evaluator == "pattern" and (args.mode == "engine" or games_per_engine == 2):
        raise UsageError("--evaluator pattern plays whole processors (golden, or --sim on processor_pattern): "
                         "leave out --mode engine and --games-per-engine 2")
    if args.mode == "engine" or games_per_engine == 2:
        # the golden processor plays, every search re-run on the engine as a midgame search: no solve
        if args.solve_empties:
            raise UsageError("--solve-empties with --mode engine or --games-per-engine 2: their games' searches run "
                             "on the engine as midgame searches, so their processor does not solve; leave it out")
        args.solve_empties = 0
    solve_empties = solve_empties_option(args, contexts, converted=bool(args.sim) and args.mode != "engine"
                                         and games_per_engine != 2)
    if contexts != 1 and args.mode == "engine":
        raise UsageError("--mode engine checks the games' searches on the one-context engine: use --contexts 1")
    if args.sim:
        contexts_option(args, args.sim)
    out = output_dir(args.out or f"runs/tournament-{time.strftime('%Y%m%d-%H%M%S')}-budget{args.budget}"
                     f"{'-contexts2' if contexts == 2 else ''}{'-paired' if games_per_engine == 2 else ''}", "--out")
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
    if games_per_engine == 2:
        from gamechip.games.paired_games import run_paired_tournament

        return run_paired_tournament(args.budget, args.levels, args.sim, args.jobs or os.cpu_count() or 1, out,
                                     resume=args.resume)
    try:
        return play_tournament(args.budget, args.levels, args.sim, args.jobs or os.cpu_count() or 1, out,
                               mode=args.mode, resume=args.resume, cluster=args.cluster, contexts=contexts,
                               solve_empties=solve_empties, evaluator=evaluator)
    except ClusterError as error:
        raise UsageError(str(error))


COMMANDS = {
    "play": (play_arguments, run_play),
    "tournament": (tournament_arguments, run_tournament),
}
