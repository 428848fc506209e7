"""Board pictures of a failing chess case (python-chess's ``chess.svg``): the position with the
expected and the actual answer where they first differ, the squares of the wrong move framed
(filled red) and the move drawn as a blue arrow.

Move generator: the reply of the first differing request (the move, or DONE / ILLEGAL in the
caption). Repetition detector: the position after the command whose outputs differ, with the
near-repetition candidate (its square now and then) of each side."""

import chess
import chess.svg

from gamechip.views.failure import case_value, first_difference
from golden.chess.encoding import parse_fen_any, word_move
from golden.chess.movegen import MOVE, STATUS_NAMES

WRONG = "#d62728aa"
SIZE = 360


def _svg(board, title, caption, squares=(), arrow=None):
    fill = {square: WRONG for square in squares}
    arrows = [chess.svg.Arrow(*arrow, color="#1f77b4")] if arrow else []
    picture = chess.svg.board(board, fill=fill, arrows=arrows, size=SIZE)
    lines = [title] + caption
    text = "".join(f'<text x="4" y="{SIZE + 18 + 16 * i}" font-family="sans-serif" font-size="13">{line}</text>'
                   for i, line in enumerate(lines))
    height = SIZE + 24 + 16 * len(lines)
    inner = picture.split(">", 1)[1].rsplit("</svg>", 1)[0]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'width="{SIZE}" height="{height}"><svg width="{SIZE}" height="{SIZE}" viewBox="0 0 390 390">{inner}</svg>'
            f'{text}</svg>')


def _reply_picture(board, title, reply, request):
    status, word = reply if isinstance(reply, (list, tuple)) and len(reply) == 2 else (reply, None)
    if status == MOVE and isinstance(word, int):
        move = word_move(word)
        return _svg(board, title, [f"{request}: {move.uci()}"], (move.from_square, move.to_square),
                    (move.from_square, move.to_square))
    name = STATUS_NAMES.get(status, str(status)) if not isinstance(status, str) else f"{status} {word}"
    return _svg(board, title, [f"{request}: {name}"])


def chess_pictures(record, prefix=""):
    """(index of the first differing request, {file name: SVG}) of a chess case record; ``prefix``
    leads each picture's title (what the pictures are, when they are not this run's answers)."""
    case = record["case"]
    board = parse_fen_any(case["fen"])
    expected, actual = case_value(record.get("expected")), case_value(record.get("actual"))
    if not isinstance(expected, list) or not isinstance(actual, list):
        return None, {"board-expected.svg": _svg(board, f"{prefix}expected", [str(expected)[:80]]),
                      "board-actual.svg": _svg(board, f"{prefix}actual", [str(actual)[:80]])}
    index = first_difference(expected, actual)
    moves = case.get("moves", [])
    if case.get("kind") == "repetition":
        for command in moves[1:index + 1]:
            if command == "pop":
                board.pop()
            elif command not in ("init", "idle"):   # a detector command that moves no piece
                board.push(chess.Move.from_uci(command))
        pictures = {}
        for name, values in (("expected", expected), ("actual", actual)):
            value = values[index] if index < len(values) else None
            if isinstance(value, (list, tuple)) and len(value) == 6:
                rep, dist, near, near_from, near_to, dbg = value
                squares = (near_from, near_to) if near == 1 and isinstance(near_from, int) else ()
                caption = [f"after command {index} ({moves[index] if index < len(moves) else '?'}): rep={rep} "
                           f"rep_dist={dist} near={near} near_from={near_from} near_to={near_to} rd_dbg_d={dbg}"]
                pictures[f"board-{name}.svg"] = _svg(board, prefix + name, caption, squares,
                                                     (near_from, near_to) if squares else None)
            else:
                pictures[f"board-{name}.svg"] = _svg(board, prefix + name, [f"after command {index}: {value}"])
        return index, pictures
    step = moves[index - 1] if 0 < index <= len(moves) else "?"
    request = "start" if index == 0 else "idle step (no request)" if step == "idle" else f"next after {step}"
    want = expected[index] if index < len(expected) else "no reply"
    got = actual[index] if index < len(actual) else "no reply"
    return index, {"board-expected.svg": _reply_picture(board, f"{prefix}expected", want, request),
                   "board-actual.svg": _reply_picture(board, f"{prefix}actual", got, request)}
