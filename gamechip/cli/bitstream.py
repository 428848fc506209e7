"""``gamechip bitstream``: the processor's board top as a bitstream for a real board
(gamechip/bitstream.py; docs/board.md)."""

from gamechip.cli.common import UsageError, announce_rtl, output_dir
from gamechip.installation import require


def bitstream_arguments(parser):
    from gamechip.boards import TARGETS
    from rtl.board import CORES

    parser.add_argument("--board", required=True, help=f"one of {', '.join(TARGETS)}")
    parser.add_argument("--device", help="the board's FPGA size: " + "; ".join(
        f"{name}: {', '.join(t.devices)} (default {t.default_device})" for name, t in TARGETS.items()))
    parser.add_argument("--core", default="processor",
                        help=f"what sits behind the board's UART: {', '.join(CORES)} (default processor; echo "
                             "sends every byte back, a check of the serial link)")
    parser.add_argument("--budget", type=int, help="the search's cycles per move (default: 0.1 s at the "
                                                   "processor clock)")
    parser.add_argument("--seed", type=int, default=1, help="nextpnr's placement seed (default 1)")
    parser.add_argument("--out", default="runs/bitstream", help="folder of the boards' folders "
                                                                "(default runs/bitstream)")


def run_bitstream(args):
    require("fpga", "this command")
    from gamechip.bitstream import BitstreamError, build
    from gamechip.boards import TARGETS
    from gamechip.measure.area import ToolMissing
    from rtl.board import CORES

    target = TARGETS.get(args.board)
    if target is None:
        raise UsageError(f"unknown board '{args.board}': choose one of {', '.join(TARGETS)}")
    device = (args.device or target.default_device).upper()
    if device not in target.devices:
        raise UsageError(f"unknown device '{args.device}' for {target.title}: choose one of {', '.join(target.devices)}")
    if args.core not in CORES:
        raise UsageError(f"unknown core '{args.core}': choose one of {', '.join(CORES)}")
    if args.budget is not None and not 1 <= args.budget < 1 << 32:
        raise UsageError(f"--budget must be 1 .. {(1 << 32) - 1} cycles, got {args.budget}")
    output_dir(args.out, "--out")
    announce_rtl()
    try:
        build(args.board, device, core=args.core, budget=args.budget, out=args.out, seed=args.seed)
    except ToolMissing as missing:
        raise UsageError(f"bitstream: {missing}")
    except BitstreamError as error:
        print(f"bitstream FAILED: {error}")
        return 1
    return 0


COMMANDS = {"bitstream": (bitstream_arguments, run_bitstream)}
