"""Engine-protocol commands: nboard (the processor as an NBoard engine on stdin/stdout) and match
(NBoard engines against each other, the cutechess-cli of the project)."""

import os
import re
import shlex
import sys
import time
from pathlib import Path

from gamechip.cli.arguments import EVALUATORS, cycles, pattern_weights_of, positive, seconds, simulator_list
from gamechip.cli.common import UsageError, check_sim, output_dir
from gamechip.installation import require


def nboard_arguments(parser):
    from gamechip.cli.play import CONTEXTS_HELP, ENGINES_HELP, solve_empties_argument

    parser.add_argument("--budget", type=cycles, required=True,
                        help="the processor's cycles a move, e.g. 20k or 3.2M (from 20k the golden backend runs "
                             "on PyPy when installed: 4-5x CPython's speed; GAMECHIP_GOLDEN_PYTHON chooses)")
    parser.add_argument("--contexts", default="1", help=CONTEXTS_HELP + " (golden backend only)")
    parser.add_argument("--engines", default="1", help=ENGINES_HELP + " (golden backend only: nboard --sim runs "
                        "each search on the one-context engine)")
    solve_empties_argument(parser)
    parser.add_argument("--sim", help=f"run every search on the search engine simulated on this simulator "
                                      f"({simulator_list()}), every node checked; default: the golden processor")
    parser.add_argument("--port", metavar="DEVICE",
                        help="a board on this serial port (or socket://HOST:PORT, gamechip serve) plays the game "
                             "from the start, every reply checked against the golden processor")
    parser.add_argument("--baud", type=positive, help="with --port: the line's speed (default 115200)")
    parser.add_argument("--timeout", type=seconds, help="with --port: seconds to wait for each reply (default 30)")
    parser.add_argument("--cases", metavar="DIR",
                        help="with --sim: where each search's case file goes, for its replay "
                             "(default: a new folder under runs/)")
    parser.add_argument("--evaluator", choices=EVALUATORS, default="seed",
                        help="the processor's leaf evaluator: seed (the default, docs/spec.md §4) or pattern (the "
                             "committed pattern weights, docs/pattern-evaluator.md; with --sim the design "
                             "search_pattern; one context, no --port)")
    parser.add_argument("--pattern-weights", metavar="FILE",
                        help="with --evaluator pattern, golden backend only: the weight file (default: "
                             "golden/pattern_weights.txt, the committed one, which search_pattern holds)")


def run_nboard(args):
    from gamechip.cli.play import contexts_option, engines_option, solve_empties_option
    from gamechip.games.nboard import BoardBackend, GoldenBackend, SimulatedBackend, run_engine

    contexts = contexts_option(args)
    engines = engines_option(args, contexts)
    if engines != 1 and (args.sim or args.port):
        raise UsageError(f"--engines {engines} is the golden backend's: nboard --sim searches on the one-context "
                         f"engine and a board has one engine (gamechip play --engines {engines} --sim simulates "
                         f"the K-engine processor)")
    if args.sim and args.port:
        raise UsageError("--sim and --port are two backends: choose one")
    if args.sim and args.solve_empties:
        raise UsageError("--solve-empties with --sim: the simulated engine runs every search as a midgame search "
                         "(nboard --sim does not solve); leave the option out")
    if args.sim:
        args.solve_empties = 0
    # the golden backend's E, or a board's: its design's (a board is the one-context processor)
    solve_empties = solve_empties_option(args, contexts, converted=bool(args.port))
    if (args.baud or args.timeout) and not args.port:
        raise UsageError(f"--{'baud' if args.baud else 'timeout'} needs --port")
    if contexts != 1 and (args.sim or args.port):
        raise UsageError("--contexts 2 is the golden backend's: the simulated engine and a board have one context")
    if args.cases and not args.sim:
        raise UsageError("--cases needs --sim")
    if args.evaluator == "pattern" and (args.port or contexts != 1):
        raise UsageError("--evaluator pattern is built for one context and has no board yet: leave out "
                         f"{'--port' if args.port else '--contexts 2'}")
    pattern = pattern_weights_of(args)   # a bad weight file is one line before the engine starts
    if args.pattern_weights and args.sim:
        raise UsageError("--pattern-weights is golden only: the design search_pattern holds the committed weight "
                         "file (golden/pattern_weights.txt)")
    if args.sim:
        check_sim(args.sim)
        cases = output_dir(args.cases or f"runs/nboard-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}", "--cases")
        backend = SimulatedBackend(args.sim, args.budget, cases, evaluator=args.evaluator)
    elif args.port:
        require("board", "--port")
        from gamechip.games.port import DEFAULT_BAUD, DEFAULT_TIMEOUT, PortUnavailable, open_port
        from rtl.designs import PROCESSOR_DEPTH_LIMIT

        timeout = args.timeout or DEFAULT_TIMEOUT
        try:
            port = open_port(args.port, args.baud or DEFAULT_BAUD, timeout)
        except PortUnavailable as error:
            raise UsageError(str(error))
        backend = BoardBackend(port, args.budget, PROCESSOR_DEPTH_LIMIT, timeout,
                               lambda line: print(line, file=sys.stderr, flush=True), solve_empties)
    else:
        run_in_golden_interpreter(args.budget, contexts, args.evaluator, engines, args.pattern_weights, args.solve_empties)
        backend = GoldenBackend(args.budget, contexts, solve_empties if engines == 1 else 0, pattern, engines)
    return run_engine(backend)


# Set in the environment of the golden interpreter's engine: it runs there, not once more elsewhere.
IN_GOLDEN_INTERPRETER = "GAMECHIP_NBOARD_IN_GOLDEN_INTERPRETER"


def golden_engine_command(python, budget, contexts, evaluator="seed", engines=1, pattern_weights=None,
                          solve_empties=None):
    """The command line of ``gamechip nboard`` on ``python`` with every option of the golden
    backend as the user gave it (``solve_empties`` None: not given, so the started engine takes the
    default for its contexts and engines, as this one did)."""
    return ([python, "-m", "gamechip", "nboard", "--budget", str(budget), "--contexts", str(contexts),
             "--evaluator", evaluator, "--engines", str(engines)]
            + (["--pattern-weights", str(Path(pattern_weights).resolve())] if pattern_weights else [])
            + (["--solve-empties", str(solve_empties)] if solve_empties is not None else []))


def run_in_golden_interpreter(budget, contexts, evaluator="seed", engines=1, pattern_weights=None, solve_empties=None):
    """``gamechip nboard`` (the golden backend) again in place of this process, on the golden
    interpreter when its searches pay for its start (PyPy when installed:
    tb.checks.search.golden_python_for_budget), with the same options (golden_engine_command);
    os.execve, so stdin, stdout, Ctrl-C and the exit status are the engine's. Returns when the
    engine runs here."""
    from tb.checks.search import ROOT, golden_python_for_budget

    if os.environ.get(IN_GOLDEN_INTERPRETER):
        return
    try:
        python = golden_python_for_budget(budget)
    except RuntimeError as error:
        raise UsageError(str(error))
    if python == sys.executable:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(python, golden_engine_command(python, budget, contexts, evaluator, engines, pattern_weights,
                                                solve_empties),
                  dict(os.environ, PYTHONPATH=ROOT, **{IN_GOLDEN_INTERPRETER: "1"}))
    except OSError as error:
        raise UsageError(f"the golden interpreter {python} does not start ({error.strerror}): GAMECHIP_GOLDEN_PYTHON "
                         f"is pypy, cpython or an interpreter's path")


def match_arguments(parser):
    parser.add_argument("--engine", action="append", metavar="NAME=CMD", dest="engines",
                        help="an NBoard engine: its name and its command line (given twice or more); e.g. "
                             "gc='gamechip nboard --budget 20k'")
    parser.add_argument("--openings", metavar="FILE",
                        help="one opening a line, its moves (f5d6c3...); default: the balanced set shipped with "
                             "gamechip (golden/contest/openings_balanced.txt)")
    parser.add_argument("--games", type=positive,
                        help="games per pair of engines (default: every opening with both colours)")
    parser.add_argument("--out", help="folder for the records (*.ggf) and results.json (default: a new folder "
                                      "under runs/); a folder with records resumes the match (the same engines, "
                                      "depth and budget only)")
    parser.add_argument("--jobs", type=positive, help="games at once (default: one per core)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=positive, help="the depth every engine is told (set depth; default 8)")
    limit.add_argument("--budget", type=cycles,
                       help="cycles a move for gamechip engines (sent as 'set budget N', which other engines "
                            "ignore; they get set depth 8)")
    parser.add_argument("--time", type=seconds,
                        help="seconds an engine may take for a move before it loses on time (default 60)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                        help="stop when the sequential probability ratio test (alpha = beta = 0.05) accepts "
                             "elo0 or elo1 for the first pair")


def run_match(args):
    from gamechip.games.match import (Engine, MatchError, check_resume, match_settings, read_openings,
                                      run_match as play_match)

    engines = []
    for text in args.engines or []:
        name, equals, command = text.partition("=")
        if not equals or not name.strip() or not command.strip():
            raise UsageError(f"--engine takes NAME=COMMAND, got '{text}'")
        if not re.fullmatch(r"[A-Za-z0-9._+-]+", name.strip()):
            raise UsageError(f"an engine's name names its game records: letters, digits and . _ + - only, got "
                             f"'{name.strip()}'")
        if any(engine.name == name.strip() for engine in engines):
            raise UsageError(f"two engines are named '{name.strip()}': give each its own name")
        engines.append(Engine(name.strip(), command.strip()))
    if len(engines) < 2:
        raise UsageError("a match needs two --engine NAME=COMMAND at least")
    if args.sprt and not args.sprt[0] < args.sprt[1]:
        raise UsageError(f"--sprt needs elo0 < elo1, got {args.sprt[0]:g} {args.sprt[1]:g}")
    try:
        openings = read_openings(args.openings)
    except MatchError as error:
        raise UsageError(str(error))
    out = output_dir(args.out or f"runs/match-{time.strftime('%Y%m%d-%H%M%S')}", "--out")
    try:
        check_resume(out, match_settings(engines, args.depth, args.budget))
    except MatchError as error:
        raise UsageError(str(error))
    return play_match(engines, openings, out, games=args.games, jobs=args.jobs or os.cpu_count() or 1,
                      depth=args.depth, budget=args.budget, move_seconds=args.time, sprt_bounds=args.sprt)


def openings_arguments(parser):
    from golden.contest.balanced_openings import DEFAULT_COUNT, DEFAULT_PLIES
    from golden.contest.pattern_judge import DEFAULT_DEPTH

    parser.add_argument("--plies", type=positive, default=DEFAULT_PLIES,
                        help=f"moves from the start of each opening, 1..10 (default {DEFAULT_PLIES})")
    parser.add_argument("--count", type=positive, default=DEFAULT_COUNT,
                        help=f"openings kept: the classes whose judge's value is nearest 0 (default {DEFAULT_COUNT})")
    parser.add_argument("--judge", metavar="COMMAND",
                        help="an NBoard engine's command line that values each opening (the EVAL of its go), e.g. "
                             "'python scripts/zebra-nboard --zebra /path/to/zebra --level 8'; default: the golden "
                             "search with the pattern evaluator (python -m golden.contest.pattern_judge)")
    parser.add_argument("--depth", type=positive, default=DEFAULT_DEPTH,
                        help=f"the default judge's search depth, 1..16; an NBoard judge is told set depth D "
                             f"(default {DEFAULT_DEPTH})")
    parser.add_argument("--time", type=seconds,
                        help="seconds the judge may take for one opening before it counts as hung (default 60)")
    parser.add_argument("--out", metavar="FILE",
                        help="the opening file to write, e.g. golden/contest/openings_balanced.txt (default: stdout)")
    parser.add_argument("--values", metavar="FILE",
                        help="every class's value as judged, kept for a resumed run (default: "
                             "runs/openings/values-PLIES-DIGEST.txt, one file per judge)")


def run_openings(args):
    from gamechip.games.openings import DEFAULT_MOVE_SECONDS, ValuesOfAnotherJudge, make_openings

    if args.plies > 10:
        raise UsageError(f"--plies must be 1..10 (the classes of more moves are too many to judge), got {args.plies}")
    if args.depth > 16:
        raise UsageError(f"--depth must be 1..16, got {args.depth}")
    if args.judge is not None and not args.judge.strip():
        raise UsageError("--judge needs an engine's command line")
    if args.out:
        output_dir(Path(args.out).resolve().parent, "--out")
    if args.values:
        output_dir(Path(args.values).resolve().parent, "--values")
    command = f"gamechip openings --plies {args.plies} --count {args.count} --depth {args.depth}" + \
        (f" --judge {shlex.quote(args.judge)}" if args.judge else "") + (f" --out {args.out}" if args.out else "")
    try:
        return make_openings(args.plies, args.count, args.depth, args.judge, args.out, args.values,
                             args.time or DEFAULT_MOVE_SECONDS, command,
                             progress=lambda line: print(line, file=sys.stderr, flush=True))
    except ValuesOfAnotherJudge as error:
        raise UsageError(str(error))


COMMANDS = {
    "nboard": (nboard_arguments, run_nboard),
    "match": (match_arguments, run_match),
    "openings": (openings_arguments, run_openings),
}
