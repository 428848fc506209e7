"""``gamechip serve``: the simulated processor behind a TCP port (gamechip/games/serve.py), for
``gamechip play --port socket://HOST:PORT``."""

import sys
import time

from gamechip.cli.arguments import cycles, natural
from gamechip.cli.common import UsageError, announce_rtl, check_sim, output_dir

SERVE_SIMULATORS = ("verilator", "icarus")


def listen_address(text):
    """'HOST:PORT' -> (host, port); port 0 picks a free one."""
    import argparse

    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:5000 (port 0..65535), got '{text}'")
    return host.strip("[]"), int(port)


def serve_arguments(parser):
    parser.add_argument("--sim", choices=SERVE_SIMULATORS, default="verilator",
                        help="simulator of the processor (default verilator; icarus is much slower)")
    parser.add_argument("--listen", type=listen_address, required=True, metavar="HOST:PORT",
                        help="where clients connect (port 0: any free one, named in the 'listening on' line)")
    parser.add_argument("--budget", type=cycles, default=None,
                        help="the processor's cycles per move (the budget input port; default: the regression's, "
                             "rtl/designs.py PROCESSOR_BUDGET); play --port takes the same --budget")
    parser.add_argument("--records", metavar="DIR",
                        help="folder for each game's GGF record, game-NNN.ggf (default: a new folder under runs/)")
    parser.add_argument("--games", type=natural, default=0,
                        help="stop after this many games (a client's connection is one game; default 0: serve "
                             "until Ctrl-C)")


def run_serve(args):
    from gamechip.games.serve import ServeError, check_listen, serve
    from rtl.designs import PROCESSOR_BUDGET

    check_sim(args.sim)
    host, port = args.listen
    problem = check_listen(host, port)
    if problem:
        raise UsageError(problem)
    records = output_dir(args.records or f"runs/serve-{time.strftime('%Y%m%d-%H%M%S')}", "--records")
    announce_rtl()
    try:
        return serve(args.sim, host, port, PROCESSOR_BUDGET if args.budget is None else args.budget, args.games,
                     records=records)
    except ServeError as error:
        print(f"gamechip serve: FAIL: {error}", file=sys.stderr)
        return 1


COMMANDS = {
    "serve": (serve_arguments, run_serve),
}
