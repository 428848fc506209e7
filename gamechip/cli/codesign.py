"""The codesign command: the co-design seed's measurements (docs/spec.md §10), NegaScout on the host with
the evaluator on a bus, and with --sim every bus transaction through the simulated peripheral."""

import os
import sys

from gamechip.cli.arguments import natural
from gamechip.cli.common import UsageError, output_dir


def codesign_arguments(parser):
    parser.add_argument("--game", action="store_true", help="one self-play game at every depth 1..D (default)")
    parser.add_argument("--positions", type=int, help="N seeded midgame positions at every depth 1..D instead")
    parser.add_argument("--depth", type=int, required=True, help="deepest search depth D (the co-design seed: 8)")
    parser.add_argument("--seed", type=natural, default=1, help="seed of the positions (default 1)")
    parser.add_argument("--sim", choices=("verilator", "icarus"),
                        help="verilator or icarus: also stream every bus transaction of both models through the "
                             "simulated peripheral (HDL-clocked AXI4-Lite replay) and check every response against "
                             "the golden bus model")
    parser.add_argument("--out", help="folder of the recorded transaction stream with --sim "
                                      "(default build/codesign)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_codesign(args):
    from gamechip.measure.codesign import Mismatch, run

    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    if args.positions is not None and args.positions < 0:
        raise UsageError(f"--positions must be 0 or more, got {args.positions}")
    if args.game and args.positions is not None:
        raise UsageError("choose --game or --positions N, not both")
    mode = "positions" if args.positions is not None else "game"
    try:
        stream_dir = output_dir(args.out or os.path.join("build", "codesign"), "--out") if args.sim else None
        return run(mode, args.positions or 0, args.depth, args.seed, args.json, sim=args.sim, stream_dir=stream_dir)
    except Mismatch as error:
        print(f"gamechip codesign: MISMATCH: {error}", file=sys.stderr)
        return 1


COMMANDS = {
    "codesign": (codesign_arguments, run_codesign),
}
