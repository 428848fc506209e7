"""A refereed game of the processor against the reference player, as plain data: who moved,
and the result as a JSON-ready dict. Shared by ``gamechip play``/``tournament`` (golden
games) and the processor bench (simulated games), so both print, record and tabulate alike.
"""

import time

from golden.board import square_name
from golden.patterns import default_weights
from golden.processor import GoldenProcessor
from golden.contest.referee import play_game
from golden.contest.reference import ReferencePlayer


def mover_name(color_char, processor_color):
    side = "black" if color_char == "X" else "white"
    return ("processor" if side == processor_color else "reference") + f" ({side})"


EVALUATORS = ("seed", "pattern")   # the processor's leaf evaluator: the seed's, or the committed pattern weights


def golden_game(level, processor_color, budget, on_move=None, contexts=1, solve_empties=0, evaluator="seed",
                engines=1):
    """One game of the golden processor (``contexts`` 1 or 2, ``solve_empties`` its endgame solve,
    ``evaluator`` one of EVALUATORS, ``engines`` K, golden/processor.py) against ReferencePlayer(level);
    the result dict, with ``searched_positions``: the board text of every position the processor
    searched, with the pattern evaluator ``evaluator`` (a record without it is the seed evaluator's),
    and with K >= 2 engines ``engines``."""
    pattern = default_weights() if evaluator == "pattern" else None
    processor = GoldenProcessor(budget, keep_trace=False, contexts=contexts, solve_empties=solve_empties,
                                engines=engines, pattern=pattern)
    reference = ReferencePlayer(level)
    black, white = (processor, reference) if processor_color == "black" else (reference, processor)
    started = time.perf_counter()
    result = play_game(black, white, on_move=on_move)
    game = result_dict(result, level, processor_color, budget, "golden", time.perf_counter() - started)
    game["searched_positions"] = [p.text() for p in processor.searched]
    if evaluator != "seed":
        game["evaluator"] = evaluator
    if engines != 1:
        game["engines"] = engines
    return game




CLAIMS = {1: "win", 0: "draw"}


def solve_claim(plies, processor_char):
    """The first of the processor's moves whose completed solve (``info["solved"]``, WLD or exact)
    said the processor wins or draws with perfect play: {"ply": its index in the game's plies
    (0 the first), "move", "solved", "value", "claim": "win" | "draw"}; None when no solve said so."""
    for index, ply in enumerate(plies):
        info = ply.get("info") or {}
        if ply["color"] == processor_char and info.get("solved") and info.get("value", -1) >= 0:
            return {"ply": index, "move": ply["move"], "solved": info["solved"], "value": info["value"],
                    "claim": CLAIMS[min(1, info["value"])]}
    return None


def claim_contradicted(game):
    """True when a finished game's result is worse for the processor than its first solve's claim
    (a win claimed and the game not won, a draw claimed and the game lost). A game that did not end
    normally (an invalid move, a missing reply) contradicts nothing: its result is not the board's."""
    claim = game.get("solve_claim")
    if claim is None or game["reason"] != "end of game":
        return False
    margin = game["processor_discs"] - game["reference_discs"]
    return margin <= 0 if claim["claim"] == "win" else margin < 0


def result_dict(result, level, processor_color, budget, simulator, seconds):
    """The game as JSON-ready data (shared by the golden path and the simulation bench)."""
    processor_char = "X" if processor_color == "black" else "O"
    reference_char = "O" if processor_char == "X" else "X"
    discs = {"X": result.black_discs, "O": result.white_discs}
    plies = [{"color": p.color, "move": None if p.move is None else square_name(p.move),
              "info": p.info} for p in result.plies]
    # a solve's depth (1) says nothing of the midgame search's: solved moves are left out
    depths = [p.info.get("depth") for p in result.plies
              if p.color == processor_char and p.info.get("source") == "search" and not p.info.get("solved")]
    return {"level": level, "processor_color": processor_color, "budget": budget,
            "simulator": simulator, "seconds": round(seconds, 2),
            "record": result.format_record(), "black": result.black_discs, "white": result.white_discs,
            "processor_discs": discs[processor_char], "reference_discs": discs[reference_char],
            "processor_moves": list(result.move_counts(processor_char)),
            "reference_moves": list(result.move_counts(reference_char)),
            "reason": result.reason, "invalid_by": result.invalid_by, "detail": result.detail,
            "mean_depth": round(sum(depths) / len(depths), 2) if depths else None,
            "plies": plies, "results_text": result.results_text(), "solve_claim": solve_claim(plies, processor_char)}


def main(argv=None):
    """``python -m golden.contest.games LEVEL COLOR BUDGET [CONTEXTS [SOLVE_EMPTIES [EVALUATOR [ENGINES]]]]``: one
    golden game as a JSON line (the tournament runs it under PyPy when installed: its searches are the
    expensive part)."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (3, 4, 5, 6, 7) or args[1] not in ("black", "white") or args[3:4] not in ([], ["1"], ["2"]) \
            or not all(text.isdigit() for text in args[4:5] + args[6:7]) or args[5:6] not in ([], ["seed"], ["pattern"]):
        print("usage: python -m golden.contest.games LEVEL black|white BUDGET [1|2 [SOLVE_EMPTIES [seed|pattern "
              "[ENGINES]]]]", file=sys.stderr)
        return 2
    print(json.dumps(golden_game(int(args[0]), args[1], int(float(args[2])), contexts=int((args[3:] or ["1"])[0]),
                                 solve_empties=int((args[4:] or ["0"])[0]), evaluator=(args[5:] or ["seed"])[0],
                                 engines=int((args[6:] or ["1"])[0]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

