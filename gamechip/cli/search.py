"""The search command: the tree search (docs/spec.md §7), golden, and with --sim the engine with every
node checked."""

import json
import os
import sys
import tempfile

from gamechip.cli.arguments import board_or_start, cycles, evaluator_arguments, pattern_weights_of, positive, \
    simulator_list, whole_number_from
from gamechip.cli.common import UsageError, announce_rtl, check_sim
from golden.board import BoardError, draw, format_board, parse_square

window_bound = whole_number_from(-256, "must be -256 .. 256 (infinity)", maximum=256)   # a root window bound


def search_arguments(parser):
    parser.add_argument("--board", help="board text, a GGF game or an OBF line, or a file holding one; "
                                           "default: the start position")
    parser.add_argument("--depth", type=positive, default=4, help="depth limit 1..16 (default 4)")
    parser.add_argument("--budget", type=cycles, help="cycle budget, e.g. 1024 or 3.2M (default: none)")
    parser.add_argument("--alpha", type=window_bound, default=-256,
                        help="the root window's alpha (docs/spec.md §12), -256 (minus infinity, the default) .. 255")
    parser.add_argument("--beta", type=window_bound, default=256,
                        help="the root window's beta, -255 .. 256 (plus infinity, the default)")
    parser.add_argument("--single-iteration", action="store_true",
                        help="search iteration DEPTH alone, as a job of the two-context processor's root split "
                             "(docs/root-split.md); golden only: the engine runs that mode inside processor_c2")
    parser.add_argument("--root-pv", metavar="SQUARE",
                        help="with --single-iteration: the root's PV move, e.g. D3 (default: none)")
    parser.add_argument("--sim", help=f"also run the engine on this simulator ({simulator_list()})")
    evaluator_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--monitor", choices=("hdl", "python"), default="hdl",
                        help="with --sim: hdl (the default) clocks the engine in HDL and logs every node to a "
                             "file checked by a golden process; python samples every cycle from Python (slow)")


def run_search(args):
    from golden.search import MAX_DEPTH, search_events
    from tb.checks.search import SearchCase
    from tb.host.search_bench import DESIGN, PATTERN_DESIGN, replay_search_case

    pos = board_or_start(args.board)
    if not 1 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be 1..{MAX_DEPTH}, got {args.depth}")
    if not args.alpha < args.beta:
        raise UsageError(f"the window needs -256 <= alpha < beta <= 256, got ({args.alpha}, {args.beta})")
    root_pv = None
    if args.root_pv is not None:
        if not args.single_iteration:
            raise UsageError("--root-pv goes with --single-iteration")
        try:
            root_pv = parse_square(args.root_pv)
        except (BoardError, ValueError) as error:
            raise UsageError(f"--root-pv: {error}")
    pattern = pattern_weights_of(args)
    if args.pattern_weights and args.sim:
        raise UsageError("--pattern-weights is golden only: the search_pattern design holds the committed "
                         "weight file (golden/pattern_weights.txt)")
    if args.single_iteration and args.sim:
        raise UsageError("--single-iteration is golden only: the search design has no single-iteration inputs "
                         "(the engine runs that mode inside processor_c2)")
    if args.sim:
        check_sim(args.sim)
    report = match = None
    if args.sim:
        announce_rtl()
        case = SearchCase(pos, args.depth, args.budget, "gamechip search", alpha=args.alpha, beta=args.beta,
                          evaluator=args.evaluator)
        design = PATTERN_DESIGN if pattern is not None else DESIGN
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as saved:
            json.dump({"block": "search", "design": design, "sim": args.sim, "seed": 0,
                       "case": case.to_dict()}, saved)
        try:
            # the golden process runs the golden search while the simulator runs the engine
            outcome, _ = replay_search_case(saved.name, waves=False, echo=not args.json, monitor=args.monitor)
        finally:
            os.unlink(saved.name)
        if not outcome.actual:
            raise RuntimeError(f"the {args.sim} run gave no answer; log: {outcome.sim_dir / 'gamechip.log'}")
        answer = outcome.actual["answer"] or {}
        match = outcome.passed and outcome.actual["trace_match"]
        report = dict(outcome.actual["golden"])
        report["sim"] = dict(answer, simulator=args.sim, trace_match=bool(match), monitor=args.monitor,
                             nodes_checked=outcome.actual["nodes_checked"],
                             cycles_per_node=round(answer.get("cycles", 0) / max(1, answer.get("nodes", 0)), 3))
        if not match:
            report["sim"]["failure"] = outcome.result.get("failure", "")
    else:
        report = search_events(pos, args.depth, args.budget, alpha=args.alpha, beta=args.beta,
                               single_iteration=args.single_iteration, root_pv=root_pv, pattern=pattern).summary()
    report["cycles_per_node"] = round(report["cycles"] / max(1, report["nodes"]), 3)
    if args.json:
        print(json.dumps(report))
        return 0 if match is not False else 1
    print(draw(pos))
    limits = f"depth limit {args.depth}, budget {args.budget if args.budget is not None else 'none'}"
    if pattern is not None:
        limits += ", pattern evaluator"
    if (args.alpha, args.beta) != (-256, 256):
        limits += f", window ({args.alpha}, {args.beta})"
    if args.single_iteration:
        limits += f", iteration {args.depth} alone, root PV {args.root_pv.upper() if args.root_pv else 'none'}"
    print(f"search of {format_board(pos)}: {limits}")
    rows = [("golden", report)] + ([(args.sim, report["sim"])] if args.sim else [])
    print(f"{'':10} {'best':>5} {'value':>6} {'depth':>6} {'nodes':>10} {'cycles':>12} {'cycles/node':>12}")
    for name, r in rows:
        print(f"{name:10} {r.get('best', '?'):>5} {r.get('value', '?'):>6} {r.get('depth', '?'):>6} "
              f"{r.get('nodes', 0):>10,} {r.get('cycles', 0):>12,} {r.get('cycles_per_node', 0):>12}")
    if args.sim:
        if match:
            print(_agreement(outcome.actual["golden"], outcome.actual["nodes_checked"]))
        else:
            print(report["sim"]["failure"], file=sys.stderr)
            print("traces differ", file=sys.stderr)
    return 0 if match is not False else 1


def _agreement(golden, reports):
    """The line for a search whose ``reports`` node reports all matched (``golden``: the golden
    search's summary with its ``roots``): the engine reports the root of every iteration as well
    as the nodes it generates (the 'nodes' column), so the two counts differ; say how."""
    roots, total = golden["roots"], golden["nodes"]
    generated = reports - roots
    nodes = (f"the {total:,} generated nodes" if generated == total else
             f"{generated:,} of the {total:,} generated nodes (the budget ended before the rest reported)")
    return (f"traces match: all {reports:,} node reports agreed, in the same cycle: "
            f"the root of each of the {roots} iteration{'s' if roots != 1 else ''} and {nodes}")


COMMANDS = {
    "search": (search_arguments, run_search),
}
