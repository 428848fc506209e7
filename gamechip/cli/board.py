"""Board commands on the golden model, and with --sim the simulated block: show, perft, eval, book.

Squares are written upper-case in their output ('D3'), as everywhere in the project's text; a
game record alone is lower-case and concatenated ('f5d6c3')."""

import json
import sys
import time

from gamechip.cli.arguments import board_or_start, evaluator_arguments, natural, pattern_weights_of, simulator_list
from gamechip.cli.common import UsageError, simulate_one
from golden.board import draw, format_board, parse_square, square_name, squares_of
from golden.othello import IllegalMove, flips, game_over, legal_moves, pass_move, perft, play
from golden.stable import stable_discs


def _names(bits, size=8):
    return [square_name(s, size) for s in squares_of(bits)]


def show_arguments(parser):
    parser.add_argument("--board", help="board text (64 of X/O/- from A1, space, side to move), a GGF game (its last "
                                           "position) or an OBF line, or a file holding one; default: start")
    parser.add_argument("--move", help="a square such as D3: show what it flips and the board after it")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")


def run_show(args):
    pos = board_or_start(args.board)
    legal = legal_moves(pos.own, pos.opp)
    report = {
        "board": format_board(pos),
        "legal": _names(legal),
        "stable": {"black": _names(stable_discs(pos.black)), "white": _names(stable_discs(pos.white))},
    }
    if args.move is not None:
        move = parse_square(args.move)
        try:
            after = play(pos, move)
        except IllegalMove:
            legal_text = " ".join(report["legal"]) or "none (the side to move must pass)"
            raise UsageError(f"{square_name(move)} is not a legal move for {pos.side}; legal moves: {legal_text}")
        report["flipped"] = _names(flips(pos.own, pos.opp, move))
        report["board"] = format_board(after)
    if args.json:
        print(json.dumps(report))
        return 0
    print(draw(pos, highlight=legal))
    print(f"board:  {format_board(pos)}")
    if legal:
        print(f"legal moves for {pos.side} (*): {' '.join(report['legal'])}")
    else:
        print(f"{pos.side} has no legal move: " + ("game over" if game_over(pos) else "it must pass"))
    print(f"stable discs X: {' '.join(report['stable']['black']) or 'none'}")
    print(f"stable discs O: {' '.join(report['stable']['white']) or 'none'}")
    if args.move is not None:
        print(f"\n{pos.side} plays {square_name(move)}, flipping {' '.join(report['flipped'])}:")
        print(draw(after, highlight=flips(pos.own, pos.opp, move)))
        print(f"board:  {report['board']}")
    return 0


def perft_arguments(parser):
    parser.add_argument("--depth", type=natural, required=True, help="plies to count the leaves at (required)")
    parser.add_argument("--board", help="board text, a GGF game or an OBF line, or a file holding one; "
                                           "default: the start position")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead: board, depth, nodes")


def run_perft(args):
    pos = board_or_start(args.board)
    nodes = _perft_shown(pos, args.depth)
    print(json.dumps({"board": format_board(pos), "depth": args.depth, "nodes": nodes}) if args.json else nodes)
    return 0


def _perft_shown(pos, depth):
    """perft of ``pos`` at ``depth``; a deep count is made per root move, each shown on stderr."""
    if depth < 6:
        return perft(pos, depth)
    # Deep counts take minutes in Python: count per root move ("divide") and show each.
    moves = squares_of(legal_moves(pos.own, pos.opp))
    if not moves:
        children = [] if game_over(pos) else [("pass", pass_move(pos))]
    else:
        children = [(square_name(m), play(pos, m)) for m in moves]
    if not children:
        return 1
    started, total = time.perf_counter(), 0
    for i, (name, child) in enumerate(children, 1):
        count = perft(child, depth - 1)
        total += count
        print(f"  {name}: {count:,}  ({i}/{len(children)}, {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return total


def eval_arguments(parser):
    parser.add_argument("--board", help="board text, a GGF game or an OBF line, or a file holding one; "
                                           "default: the start position")
    parser.add_argument("--sim", help=f"also ask the evaluator block on this simulator ({simulator_list()})")
    parser.add_argument("--weights", choices=("default", "heavy"), default="default",
                        help="the evaluator's weights: default (the default, the evaluator design) or heavy "
                             "(evaluator_heavy)")
    evaluator_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")


def run_pattern_eval(args, pos):
    """``gamechip eval --evaluator pattern``: every instance's squares, index and weight, and the
    value (golden; the pattern evaluator has no RTL yet)."""
    from golden.patterns import pattern_evaluate

    if args.sim:
        raise UsageError("--sim goes with the seed's evaluator: the pattern evaluator is golden only so far")
    if args.weights != "default":
        raise UsageError("--weights names the seed evaluator's weights; the pattern evaluator takes --pattern-weights")
    weights = pattern_weights_of(args)
    evaluation = pattern_evaluate(pos, weights)
    if args.json:
        print(json.dumps({"evaluator": "pattern", "stage": evaluation.stage, "terminal": evaluation.terminal,
                          "raw": evaluation.raw, "value": evaluation.value,
                          "instances": [{"instance": t.instance, "pattern": t.pattern,
                                         "squares": [square_name(sq) for sq in t.squares],
                                         "index": t.index, "weight": t.weight} for t in evaluation.terms]}))
        return 0
    print(draw(pos))
    limits = ", ".join(map(str, weights.stage_limits))
    print(f"pattern evaluator, weights {args.pattern_weights or 'golden/pattern_weights.txt'}; stage "
          f"{evaluation.stage} of {weights.stages} (largest disc counts {limits}); values in quarter discs, "
          f"from the side to move")
    print(f"{'#':>3} {'pattern':<10} {'squares':<27} {'index':>6} {'weight':>6}")
    for t in evaluation.terms:
        print(f"{t.instance:>3} {t.pattern:<10} {' '.join(square_name(sq) for sq in t.squares):<27} "
              f"{t.index:>6} {t.weight:>6}")
    print(f"sum {evaluation.raw}; value {evaluation.value}"
          + (" (finished board: 4 x the disc difference)" if evaluation.terminal else
             " (saturated to -256..255)" if evaluation.value != evaluation.raw else ""))
    return 0


def run_eval(args):
    from golden.evaluator import DEFAULT, HEAVY, STAGES, evaluate
    from tb.sim.batch import Case

    pos = board_or_start(args.board)
    if args.evaluator == "pattern":
        return run_pattern_eval(args, pos)
    pattern_weights_of(args)
    weights, design = (HEAVY, "evaluator_heavy") if args.weights == "heavy" else (DEFAULT, "evaluator")
    golden = evaluate(pos, weights).to_dict()
    keys = ("corners", "xsquares", "mobility", "stable", "discs", "stage", "terminal", "fixed", "adaptive")
    report = {key: golden[key] for key in keys if key in golden}
    sim = match = None
    if args.sim:
        sim_report, match = simulate_one(design, args.sim, Case(pos, "gamechip eval"))
        sim = {key: sim_report[key] for key in report if key in sim_report}
        report["sim"] = dict(sim, match=match)
    if args.json:
        print(json.dumps(report))
        return 0 if match is not False else 1
    print(draw(pos))
    stage = STAGES.index(golden["stage"])
    shifts = weights.adaptive_shifts[stage]
    print(f"weights: {args.weights}; fixed: corner {weights.corner}, X-square {weights.xsquare}, mobility "
          f"{weights.mobility}, stable {weights.stable}, terminal {weights.terminal}")
    print(f"stage: {golden['stage']} (limits {weights.stage_limits}); adaptive weights (mobility, stability, "
          f"corners, discs): {', '.join('0' if s is None else str(1 << s) for s in shifts)}")
    header = f"{'term':<10} {'golden own':>10} {'opp':>5}" + (f"   {args.sim + ' own':>14} {'opp':>5}" if sim else "")
    print(header)
    for term in ("corners", "xsquares", "mobility", "stable", "discs"):
        row = f"{term:<10} {golden[term][0]:>10} {golden[term][1]:>5}"
        if sim:
            row += f"   {sim[term][0]:>14} {sim[term][1]:>5}" + ("" if sim[term] == golden[term] else "  <-- differs")
        print(row)
    for name in ("terminal", "fixed", "adaptive"):
        row = f"{name:<10} {golden[name]!s:>16}"
        if sim:
            row += f"   {sim[name]!s:>20}" + ("" if sim[name] == golden[name] else "  <-- differs")
        print(row)
    if sim:
        print("simulated block matches the golden model" if match else "MISMATCH between the block and the golden model")
    return 0 if match is not False else 1


def book_arguments(parser):
    parser.add_argument("--moves", help="the game so far, e.g. f5d6c3 (default: no move yet)")
    parser.add_argument("--sim", help=f"also ask the openings ROM block on this simulator ({simulator_list()})")


def run_book(args):
    from golden.board import START, format_game_record, parse_game_record
    from golden.openings import book_move
    from tb.sim.batch import Case

    moves = parse_game_record(args.moves or "")
    pos = START
    for move in moves:
        pos = play(pos, move)
    golden = book_move(tuple(moves))
    answer = "out of book" if golden is None else square_name(golden)
    print(f"game: {format_game_record(moves) or '(start)'}")
    print(f"golden book: {answer}")
    if args.sim:
        sim_answers, match = simulate_one("openings", args.sim, Case(pos, "gamechip book", moves=tuple(moves)))
        sim_answer = sim_answers[-1]
        print(f"{args.sim} ROM:  {'out of book' if sim_answer is None else sim_answer.upper()}"
              + ("" if match else "   <-- MISMATCH with the golden book"))
        return 0 if match else 1
    return 0


COMMANDS = {
    "show": (show_arguments, run_show),
    "perft": (perft_arguments, run_perft),
    "eval": (eval_arguments, run_eval),
    "book": (book_arguments, run_book),
}
