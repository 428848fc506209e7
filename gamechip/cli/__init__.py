"""``gamechip``: the one entry point. Every Makefile target calls a sub-command of it.

Bad input (board text, square names, block or simulator names, counts) ends in one line that
says what is wrong and what is valid, and exit status 2; a mismatch found by a simulation ends
in the failure report and exit status 1.

Each command lives in a module of this package with the commands of its group: a table
``COMMANDS`` of name -> (add its arguments to a parser, run it on the parsed arguments). Only
the module of the command given is imported, so ``gamechip --help`` and every command start
without loading the others.
"""

import argparse
import importlib
import os
import sys

# name: (module of gamechip.cli, one-line help), in the order of ``gamechip --help``
COMMANDS = {
    "show": ("board", "draw a board: legal moves, stable discs, a move's flips"),
    "perft": ("board", "leaf count of the game tree (a pass is a ply, a finished game a leaf)"),
    "eval": ("board", "the evaluation of a board, term by term (golden, and a simulated block)"),
    "book": ("board", "the opening book's next move for a game so far"),
    "fuzz": ("cases", "random positions through blocks on a simulator, against the golden model"),
    "campaign": ("campaign", "fuzz blocks x simulators in parallel shards: journaled, resumable, "
                             "local or on a Dask cluster"),
    "search": ("search", "the tree search (docs/spec.md §7): golden, and the engine on a simulator "
                         "with every node checked"),
    "solve": ("solve", "exact endgames: win/loss/draw or the exact disc difference, the best move and the nodes, "
                       "by the golden solver; the FFO endgame test checked against its published scores"),
    "play": ("play", "one game: the processor against the reference software, refereed"),
    "tournament": ("play", "both colours against every reference level, in parallel; "
                           "tables like the seed's Tables 4-6 (docs/sources.md)"),
    "serve": ("serve", "the simulated processor behind a TCP port, one game per client, for "
                       "play --port socket://HOST:PORT"),
    "nboard": ("engines", "the processor as an NBoard (protocol 2) engine on stdin/stdout: golden, simulated "
                          "with every node checked, or a board"),
    "match": ("engines", "NBoard engines against each other over balanced openings, both colours, in parallel: "
                         "GGF records, results table, Elo, SPRT; resumable"),
    "openings": ("engines", "the balanced opening set: every class of N-move openings valued by a judge (the golden "
                            "pattern search, or any NBoard engine such as Zebra), those nearest 0 kept"),
    "parallel": ("parallel", "the search split over P engines (docs/spec.md §12): speed-up, efficiency, "
                             "overhead and balance in simulated engine cycles, on a Dask cluster"),
    "codesign": ("codesign", "the co-design seed's measurements (docs/spec.md §10): NegaScout host, the "
                             "evaluator on a bus, whole board against changeboard transfers"),
    "gatelevel": ("gatelevel", "each design's own bench on its synthesised netlist (Yosys, with the cell "
                               "library's simulation models) on Icarus and Verilator"),
    "formal": ("formal", "SymbiYosys proofs of the blocks against references from docs/spec.md, each run on a "
                         "planted bug too, and the synthesised netlist proved equivalent to the RTL"),
    "area": ("designs", "LUTs, flip-flops, block and distributed RAMs, logic levels and clock of every design "
                        "(pinned Yosys; nextpnr place and route where a design fits)"),
    "carry-waivers": ("mutants", "re-key tb/mutation_waivers.json after an RTL edit: a waiver names one version of "
                                 "its file, and is carried to the current one when the waived mutant is unchanged"),
    "replay": ("cases", "re-run one saved failing case, with its waveform"),
    "mutate": ("mutants", "the regression's mutation score: every RTL block's source mutants in one "
                          "schemata build per design, each run through its bench"),
    "report": ("campaign", "one static HTML page (DIR/report.html) for a campaign folder: counts, "
                           "tools, failures with board pictures and replay commands, logs"),
    "shrink": ("cases", "the smallest case the RTL still gets wrong: remove discs (legal squares, "
                        "plies) while the mismatch stays"),
    "corpus": ("cases", "the regression corpus (tb/cases/): cases make test replays forever after"),
    "plant": ("plant", "a copy of the RTL with one of the corpus's planted bugs, to practise fuzz, shrink, "
                       "replay and corpus on a real failure"),
    "chess": ("chess", "the chess chip's blocks: ordered moves, perft, repetitions "
                       "(golden, and with --sim the simulated block)"),
    "convert": ("designs", "write Verilog and VHDL of every block"),
    "bench": ("designs", "throughput of each block per simulator against the golden model alone"),
    "coverage": ("coverage", "functional coverage of every block against its test plan (tb/testplans/), "
                             "code coverage, runs/coverage/index.html; exit 1 while a bin is open"),
    "bitstream": ("bitstream", "the processor on a real board: PLL, reset, UART at 115,200 baud and LEDs around it, "
                               "synthesised, placed and packed for the ULX3S or OrangeCrab"),
}

# The status when stdout's reader closes it early, as a shell reports a command killed by SIGPIPE.
OUTPUT_CLOSED = 141

# Options whose values may start with '-' (a board text's first square is often empty), which
# argparse would otherwise take for an option of their own.
DASHED_VALUES = ("--board",)


class CommandParser(argparse.ArgumentParser):
    """A parser that spells each option one way (no abbreviations) and reports an unknown
    argument itself, with its own usage line: argparse would hand it up to the top-level parser,
    whose usage says nothing of the command's options."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


class VersionAction(argparse.Action):
    """--version: the installed package's version, looked up only when asked (the look-up costs
    more than the rest of a golden command's start)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"gamechip {version('gamechip')}")
        except PackageNotFoundError:
            print("gamechip: version unknown (the package is not installed: run make setup)")
        parser.exit()


def build_parser(command=None):
    """The parser of every command name and its help; ``command`` (a name of COMMANDS) also gets
    its arguments, from its group's module."""
    parser = CommandParser(prog="gamechip", description=__doc__.splitlines()[0].replace("``", ""))
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_line) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_line)
        if name == command:
            add_arguments, run = importlib.import_module(f"gamechip.cli.{module}").COMMANDS[name]
            add_arguments(command_parser)
            if run is not None:
                command_parser.set_defaults(run=run)
    return parser


def _join_dashed_values(argv):
    out = []
    for arg in argv:
        board_like = " " in arg.strip() or set(arg) <= set("-XOxo")
        if out and out[-1] in DASHED_VALUES and arg.startswith("-") and board_like:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _loaded_errors(module, *names):
    """The exception classes ``names`` of ``module`` if it was imported, else none: an exception
    of a module that was never imported cannot have been raised, and leaving it unimported keeps
    the commands that do not need it quick to start."""
    loaded = sys.modules.get(module)
    return tuple(getattr(loaded, name) for name in names) if loaded else ()


def _usage_errors():
    """The exceptions that mean bad input: one line, exit status 2."""
    from gamechip.cli.common import UsageError
    from gamechip.installation import MissingExtra
    from golden.board import BoardError

    return (BoardError, UsageError, MissingExtra, *_loaded_errors("tb.host.runner", "SettingError"),
            *_loaded_errors("tb.host.casefile", "CaseFileError"))


def main(argv=None):
    argv = _join_dashed_values(sys.argv[1:] if argv is None else list(argv))
    # the top-level parser has no option that takes a value: its first positional is the command
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    parser = build_parser(command)
    if not argv:  # a bare gamechip: the command list, as --help prints it
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    from gamechip.installation import extra_of_module, foreign_code, install_line

    foreign = foreign_code()
    if foreign:
        print(f"gamechip {args.command}: error: {foreign}", file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except _usage_errors() as error:
        print(f"gamechip {args.command}: error: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        # a path to an optional package that no require() guards: still one line naming its extra
        if extra_of_module(error.name) is None:
            raise
        print(f"gamechip {args.command}: error: {error.name} is not installed: "
              f"{install_line(extra_of_module(error.name))}", file=sys.stderr)
        return 2
    except _loaded_errors("tb.host.runner", "ConversionFailed") as error:
        # the RTL under test does not convert: a failure of that RTL
        print(f"gamechip {args.command}: FAIL: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"gamechip {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout stopped early (``| head``): nothing more to say, and Python's own
        # flush at exit must not fail on the closed pipe either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OUTPUT_CLOSED
