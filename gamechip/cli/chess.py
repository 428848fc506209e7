"""The chess command: the chess chip's blocks, golden and with --sim simulated: ordered moves,
perft, repetitions."""

import json
import sys

from gamechip.cli.arguments import natural, simulator_list
from gamechip.cli.common import UsageError, check_sim, simulate_one

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def _chess_board(text):
    """The position of a --fen option: its FEN text, or the start position when absent."""
    from golden.chess.encoding import ChessInputError, parse_fen

    try:
        return parse_fen(START_FEN if text is None else text)
    except ChessInputError as error:
        raise UsageError(str(error))


def _print_json(value):
    print(json.dumps(value))


def _run_moves(args):
    from golden.chess.movegen import ILLEGAL, first_reply, ordered_moves
    from tb.checks.chess_case import walk_case

    board = _chess_board(args.fen)
    mode = int(args.captures)
    illegal = first_reply(board, mode)[0] == ILLEGAL
    golden = [] if illegal else [m.uci() for m in ordered_moves(board, mode)]
    report = {"moves": golden}
    matched = True
    if args.sim:
        actual, matched = simulate_one("chess_movegen", args.sim, walk_case(board, "gamechip chess moves", mode))
        simulated = [move for status, move in actual if status == "MOVE"]
        statuses = [status for status, _ in actual]
        report["sim"] = {"moves": simulated, "end": statuses[-1] if statuses else None}
        report["differ"] = [{"index": i, "expected": want, "actual": got}
                            for i, (want, got) in enumerate(zip(golden + ["DONE"], simulated + [statuses[-1]]))
                            if want != got] if not matched else []
    if args.json:
        _print_json(report)
    else:
        print(board)
        kind = "captures" if mode else "moves"
        print("ILLEGAL: the side to move attacks the enemy king" if illegal else
              f"{len(golden)} {kind} in the chip's order: {' '.join(golden) or '(none)'}")
        if args.sim:
            print(f"{args.sim}: {' '.join(report['sim']['moves']) or '(none)'} then {report['sim']['end']}"
                  + ("" if matched else "   <-- MISMATCH"))
            for d in report["differ"]:
                print(f"  differs at move {d['index']}: expected {d['expected']}, actual {d['actual']}")
    return 0 if matched else 1


def _run_perft(args):
    from golden.chess.movegen import perft
    from tb.host.runner import run_design

    board = _chess_board(args.fen)
    nodes = perft(board.copy(), args.depth)
    report = {"nodes": nodes}
    matched = True
    if args.sim:
        check_sim(args.sim)
        outcome = run_design("chess_movegen", args.sim, "tb.test_chess_movegen", ["perft_position"], tag="ask",
                             echo=not args.json, quiet=True,
                             env={"GAMECHIP_PERFT_FEN": board.fen(en_passant="fen"),
                                  "GAMECHIP_PERFT_DEPTH": str(args.depth)})
        simulated = (outcome.actual or {}).get("nodes")
        matched = outcome.passed and simulated == nodes
        report["sim"] = {"nodes": simulated}
        if not matched:
            report["differ"] = {"expected": nodes, "actual": simulated,
                                "failure": (outcome.result.get("failure") or "").splitlines()[:12]}
    if args.json:
        _print_json(report)
    else:
        print(nodes)
        if args.sim:
            print(f"{args.sim}: {report['sim']['nodes']}" + ("" if matched else "   <-- MISMATCH"))
            if not matched and outcome.result.get("failure"):
                print(outcome.result["failure"], file=sys.stderr)
    return 0 if matched else 1


def _run_repetition(args):
    from golden.chess.encoding import ChessInputError, format_fen, parse_moves, square_name
    from golden.chess.repetition import RepetitionModel
    from tb.checks.chess_case import ChessCase

    board = _chess_board(args.fen)
    try:
        moves = parse_moves(board, args.moves)
    except ChessInputError as error:
        raise UsageError(str(error))
    model, replay, plies = RepetitionModel(board), board.copy(), []

    def entry(outputs):
        return {"rep": outputs["rep"], "rep_dist": outputs["rep_dist"], "near": outputs["near"],
                "near_from": square_name(outputs["near_from"]) if outputs["near"] == 1 else None,
                "near_to": square_name(outputs["near_to"]) if outputs["near"] == 1 else None}

    for move in moves:
        model.push(replay, move)
        replay.push(move)
        o = model.outputs()
        plies.append(entry({"rep": o.rep, "rep_dist": o.rep_dist, "near": o.near, "near_from": o.near_from,
                            "near_to": o.near_to}))
    report = {"plies": plies}
    matched = True
    if args.sim:
        case = ChessCase(format_fen(board), "gamechip chess repetition", "repetition", 0,
                         ("init",) + tuple(m.uci() for m in moves), (0,) * (len(moves) + 1))
        actual, matched = simulate_one("chess_repetition", args.sim, case)
        simulated = [entry(values) if isinstance(values, dict) else {"error": str(values)} for values in actual[1:]]
        report["sim"] = {"plies": simulated}
        report["differ"] = [i for i, (a, b) in enumerate(zip(plies, simulated)) if a != b]
    if args.json:
        _print_json(report)
    else:
        for index, (move, ply) in enumerate(zip(moves, plies)):
            line = (f"{index + 1:3} {move.uci():6} rep={ply['rep']} rep_dist={ply['rep_dist']:2} near={ply['near']}"
                    + (f" ({ply['near_from']}->{ply['near_to']})" if ply["near"] else ""))
            if args.sim:
                line += "" if index not in report["differ"] else f"   <-- {args.sim}: {report['sim']['plies'][index]}"
            print(line)
        if args.sim:
            print(f"{args.sim}: " + ("every ply matches" if matched else f"{len(report['differ'])} plies differ"))
    return 0 if matched else 1


def chess_arguments(parser):
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    moves = actions.add_parser("moves", help="the pseudo-legal moves in the generator's order")
    moves.add_argument("--fen", help="position as FEN text (default: the start position)")
    moves.add_argument("--captures", action="store_true", help="captures only (mode 1)")
    moves.add_argument("--sim", help=f"also walk the simulated generator ({simulator_list()})")
    moves.add_argument("--json", action="store_true", help="print one JSON object instead")
    moves.set_defaults(run=_run_moves)
    perft = actions.add_parser("perft", help="leaf count through the ordered generator")
    perft.add_argument("--fen", help="position as FEN text (default: the start position)")
    perft.add_argument("--depth", type=natural, required=True, help="plies to count the leaves at (required)")
    perft.add_argument("--sim", help=f"also count through the simulated generator ({simulator_list()})")
    perft.add_argument("--json", action="store_true", help="print one JSON object instead")
    perft.set_defaults(run=_run_perft)
    repetition = actions.add_parser("repetition", help="the repetition detector after each move")
    repetition.add_argument("--fen", help="position as FEN text (default: the start position)")
    repetition.add_argument("--moves", required=True, help='UCI moves, e.g. "g1f3 g8f6 f3g1 f6g8"')
    repetition.add_argument("--sim", help=f"also run the simulated detector ({simulator_list()})")
    repetition.add_argument("--json", action="store_true", help="print one JSON object instead")
    repetition.set_defaults(run=_run_repetition)


COMMANDS = {
    # each ACTION sets its own run
    "chess": (chess_arguments, None),
}
