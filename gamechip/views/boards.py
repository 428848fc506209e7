"""Board pictures (SVG) for failure reports: a position with what a block answered about it.

A picture is a ``BoardPicture``: the discs, plus the squares a block's answer names (dots for
moves, shading for sets such as stable discs, small labels such as the order of a walk), the
square played or asked about (a blue frame, ``class="move"``), the squares where expected and
actual differ (a red frame inside it, ``class="differs"``; both carry ``data-square``), and
optional caption lines and a table of values beside the board. Square names come from
golden.board; nothing here knows the board text format.
"""

from dataclasses import dataclass, field
from typing import Optional

from gamechip.views.drawing import Canvas
from golden.board import square_name, squares_of

SQUARE = 40
MARGIN = 22  # room for the rank numbers and file letters
TITLE_HEIGHT = 26
LINE_HEIGHT = 17
TABLE_ROW = 18

BOARD_GREEN, GRID, SHADE = "#2e7d32", "#1b5e20", "#8bc34a"
DOT, MOVE_FRAME, DIFF_FRAME = "#ffca28", "#1e88e5", "#e53935"
# The two frames of a square are nested rings, so a move that also differs shows both: the blue
# one along the square's edge, the red one inside it. (inset of the stroke's centre, stroke width)
MOVE_RING, DIFF_RING = (1.5, 3), (6.5, 3)


@dataclass
class BoardPicture:
    title: str
    size: int
    black: int
    white: int
    dots: int = 0  # squares named by the answer (legal moves, a book move ...)
    shade: int = 0  # a set of squares (stable discs ...)
    labels: dict = field(default_factory=dict)  # square -> short text (walk order ...), drawn instead of a dot
    move: Optional[int] = None  # a square played or asked about: blue frame
    differs: int = 0  # squares where expected and actual disagree: red frame
    caption: list = field(default_factory=list)
    table: list = field(default_factory=list)  # (name, value, differs)


def _square_xy(square, size):
    row, col = divmod(square, size)
    return MARGIN + col * SQUARE, TITLE_HEIGHT + (size - 1 - row) * SQUARE  # rank 1 at the bottom


def _table_width(table):
    if not table:
        return 0
    longest = max(len(str(name)) + len(str(value)) for name, value, _ in table)
    return 24 + int(longest * 7.6) + 24


def board_svg(picture):
    """The SVG text of one picture."""
    return board_canvas(picture).svg(title=picture.title)


def board_canvas(picture):
    """One picture laid out on a Canvas (SVG or PNG)."""
    size = picture.size
    board_px = size * SQUARE
    table_px = _table_width(picture.table)
    width = max(MARGIN * 2 + board_px + table_px, 12 + 7 * max([len(picture.title)] + [len(c) for c in picture.caption]))
    board_bottom = TITLE_HEIGHT + board_px
    height = max(board_bottom + MARGIN + LINE_HEIGHT * len(picture.caption) + 10,
                 TITLE_HEIGHT + TABLE_ROW * (len(picture.table) + 1) + 8)
    canvas = Canvas(width, height)
    canvas.text(MARGIN, 18, picture.title, size=14, bold=True)
    _draw_squares(canvas, picture)
    _draw_coordinates(canvas, size, board_bottom)
    for number, line in enumerate(picture.caption):
        canvas.text(MARGIN, board_bottom + MARGIN + 8 + number * LINE_HEIGHT, line, size=12)
    _draw_table(canvas, picture.table, MARGIN * 2 + board_px)
    return canvas


def _draw_squares(canvas, p):
    for square in range(p.size * p.size):
        x, y = _square_xy(square, p.size)
        bit = 1 << square
        canvas.rect(x, y, SQUARE, SQUARE, fill=SHADE if p.shade & bit else BOARD_GREEN, stroke=GRID)
    for square in range(p.size * p.size):
        _draw_square_content(canvas, p, square)
    for square in squares_of(p.differs):  # frames last, so nothing covers them
        _ring(canvas, square, p.size, DIFF_RING, DIFF_FRAME, "differs", "differs from the expected answer")
    if p.move is not None and 0 <= p.move < p.size * p.size:
        _ring(canvas, p.move, p.size, MOVE_RING, MOVE_FRAME, "move", "the move")


def _ring(canvas, square, size, ring, colour, kind, what):
    x, y = _square_xy(square, size)
    inset, width = ring
    name = square_name(square, size)
    canvas.rect(x + inset, y + inset, SQUARE - 2 * inset, SQUARE - 2 * inset, stroke=colour, width=width,
                attrs={"class": kind, "data-square": name}, title=f"{name}: {what}")


def _draw_square_content(canvas, p, square):
    x, y = _square_xy(square, p.size)
    cx, cy, bit = x + SQUARE / 2, y + SQUARE / 2, 1 << square
    disc = None
    if p.black & bit and p.white & bit:  # an impossible answer: both colours on one square
        canvas.circle(cx, cy, SQUARE * 0.38, fill="#8e24aa", stroke="#000")
        canvas.text(cx, cy + 5, "?", size=14, fill="#fff", anchor="middle", bold=True)
        disc = "both"
    elif p.black & bit:
        canvas.circle(cx, cy, SQUARE * 0.38, fill="#111", stroke="#000")
        disc = "black"
    elif p.white & bit:
        canvas.circle(cx, cy, SQUARE * 0.38, fill="#f5f5f5", stroke="#333")
        disc = "white"
    if square in p.labels:  # a label says more than a dot: it replaces it
        colour = "#fff" if disc == "black" else "#000"
        if not disc:
            canvas.circle(cx, cy, 10, fill=DOT, stroke="#333")
        canvas.text(cx, cy + 4, p.labels[square], size=11, fill=colour, anchor="middle", bold=True)
    elif p.dots & bit:
        canvas.circle(cx, cy, 6 if disc else 7, fill=DOT, stroke="#333")


def _draw_coordinates(canvas, size, board_bottom):
    for col in range(size):
        canvas.text(MARGIN + col * SQUARE + SQUARE / 2, board_bottom + 15, chr(ord("a") + col), size=12,
                    fill="#444", anchor="middle")
    for row in range(size):
        canvas.text(MARGIN / 2, TITLE_HEIGHT + (size - 1 - row) * SQUARE + SQUARE / 2 + 4, str(row + 1), size=12,
                    fill="#444", anchor="middle")


def _draw_table(canvas, table, left):
    if not table:
        return
    name_width = max(len(str(name)) for name, _, _ in table)
    for number, (name, value, differs) in enumerate(table):
        y = TITLE_HEIGHT + number * TABLE_ROW
        if differs:
            canvas.rect(left - 4, y + 1, _table_width(table) - 16, TABLE_ROW - 2, fill="#ffcdd2",
                        attrs={"class": "differs-row", "data-name": name})
        canvas.text(left, y + 13, f"{str(name):<{name_width}}  {value}", size=12, mono=True,
                    fill=DIFF_FRAME if differs else "#000")
