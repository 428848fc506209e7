"""Argument types and values shared by the commands: whole numbers, cycle counts, scales and
seconds as argparse types (a bad one is argparse's one-line error, exit status 2), the
simulator, block and design names for help texts, and the board an option names.

Option names say how many values they take: ``--sim`` and ``--block`` one, ``--sims``,
``--blocks`` and ``--designs`` several; parallelism on this machine is ``--jobs``."""

import argparse
import math

from golden.board import START, BoardError


def whole_number_from(minimum, too_small, maximum=None):
    """An argparse type: a whole number of at least ``minimum`` and, when given, at most
    ``maximum`` (``too_small`` says the range)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'")
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"{too_small}, got {value}")
        return value
    return parse


positive = whole_number_from(1, "must be at least 1")
natural = whole_number_from(0, "must be 0 or more")


def scale(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.5 or 4, got '{text}'")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number more than 0, got '{text}'")
    return value


def seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def cycles(text):
    """A cycle count: a whole number, or with a k / M suffix (3.2M = 3,200,000)."""
    factor = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if factor > 1 else text
    try:
        value = float(number) * factor
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of cycles such as 1024 or 3.2M, got '{text}'")
    if not math.isfinite(value) or value < 0 or value != int(value) or value >= 1 << 32:
        raise argparse.ArgumentTypeError(f"cycles must be a whole number 0..2**32-1, got '{text}'")
    return int(value)


def simulators():
    """The simulator names a --sim option takes (from tb.host.run_files: a help text need not
    load the runner)."""
    from tb.host.run_files import SIMULATORS

    return SIMULATORS


def simulator_list():
    """The simulator names as help texts list them: 'icarus, verilator, ghdl'."""
    return ", ".join(simulators())


def block_list(also=()):
    """The blocks a --blocks option of fuzz or campaign takes (``also``: further names a command
    takes), as help texts list them."""
    from tb.blocks import BLOCKS

    return ", ".join([*BLOCKS, *also])


def design_list():
    """The designs of rtl/designs.py, as help texts list them."""
    from rtl.designs import PORTS

    return ", ".join(PORTS)


def board_or_start(text):
    """The position of a --board option, the start position when absent: board text, a GGF game
    (its final position) or an OBF line, or a file holding one of them."""
    import os

    from golden.contest.ggf import parse_any_board

    if text is None:
        return START
    if os.path.isfile(text):
        try:
            with open(text) as file:
                text = file.read().strip()
        except (OSError, UnicodeDecodeError) as error:
            raise BoardError(f"cannot read the board file {text}: {error}")
    return parse_any_board(text)


EVALUATORS = ("seed", "pattern")


def evaluator_arguments(parser):
    """--evaluator and --pattern-weights, shared by the commands that evaluate or search."""
    parser.add_argument("--evaluator", choices=EVALUATORS, default="seed",
                        help="the leaf evaluation: seed (the default: the seed's weighted terms, docs/spec.md §4) "
                             "or pattern (the trained pattern evaluator, docs/pattern-evaluator.md; with --sim the "
                             "design built with it)")
    parser.add_argument("--pattern-weights", metavar="FILE",
                        help="with --evaluator pattern: the weight file (default: golden/pattern_weights.txt, "
                             "the trained one, which the designs hold; another file is golden only)")


def pattern_weights_of(args):
    """The PatternWeights ``args`` ask for (None for the seed's evaluator); a bad file is a
    BoardError (one line, exit status 2)."""
    from golden.patterns import default_weights, read_weights

    if args.evaluator != "pattern":
        if args.pattern_weights:
            from gamechip.cli.common import UsageError
            raise UsageError("--pattern-weights goes with --evaluator pattern")
        return None
    return read_weights(args.pattern_weights) if args.pattern_weights else default_weights()
