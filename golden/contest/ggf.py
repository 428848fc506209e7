"""Othello games and positions as the Othello world writes them: GGF game records (the Generic
Game Format of GGS, NBoard and the engines that speak its protocol) and OBF positions (Edax's
problem files). Pure data over golden.board and golden.othello: every game read is replayed by
the rules, so a record that parses is a legal game.

A GGF game::

    (;GM[Othello]PC[gamechip]DT[2026-12-07 04:20:00 UTC]PB[gamechip]PW[zebra]RE[+12]TY[8]
    BO[8 ---------------------------O*------*O--------------------------- *]B[F5//0.01]W[F6];)

``BO`` is the start position: the size, 64 squares from A1 along rank 1, then rank 2, ... (``*``
black, ``O`` white, ``-`` empty) and the side to move (``*`` or ``O``). ``B[..]``/``W[..]`` are
the moves in order, each ``SQUARE[/EVAL[/TIME]]``, a pass ``PA`` (``PASS`` and lower case read
too). ``RE`` is the result from black's side: black's discs minus white's (``+12``, ``-4``, ``0``);
a game lost otherwise has a suffix (``:r`` resigned or forfeited, ``:t`` out of time), the reason
in a game comment ``GC``. Values escape ``]`` and ``\\`` with a backslash. Unknown tags are kept
and ignored.

An OBF line: 64 squares (``X`` black, ``O`` white, ``-`` empty), a space, the side to move and a
``;``, then optional move scores (``C4:+18;``); ``%`` starts a comment.

Bad input raises :class:`golden.board.BoardError` with one line saying where and what.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from golden.board import (BLACK_CHAR, EMPTY_CHAR, WHITE_CHAR, BoardError, Position, parse_board, parse_square,
                          popcount, square_name, start_position)
from golden.othello import flips, legal_moves, pass_move, play

GGF_BLACK, GGF_WHITE, GGF_EMPTY = "*", "O", "-"
PASS_NAMES = ("PA", "PASS")
TAG = re.compile(r"\s*([A-Z0-9]+)\[((?:[^\]\\]|\\.)*)\]", re.S)


class GgfError(BoardError):
    """A GGF or OBF text that is not a legal game or position (the message says where)."""


@dataclass
class GgfMove:
    """One move of a record: the square (None for a pass), the mover ('X'/'O'), and the eval
    and seconds written with it (None when absent)."""

    color: str
    square: Optional[int]
    evaluation: Optional[float] = None
    seconds: Optional[float] = None

    @property
    def text(self) -> str:
        return "PA" if self.square is None else square_name(self.square)


@dataclass
class GgfGame:
    """A game: its start position, its moves in order (passes included) and its tags."""

    start: Position
    moves: list[GgfMove] = field(default_factory=list)
    tags: dict = field(default_factory=dict)

    @property
    def black_name(self) -> str:
        return self.tags.get("PB", "")

    @property
    def white_name(self) -> str:
        return self.tags.get("PW", "")

    def positions(self) -> list[Position]:
        """The start position and the position after every move."""
        out = [self.start]
        for move in self.moves:
            out.append(apply_move(out[-1], move.square))
        return out

    @property
    def final(self) -> Position:
        return self.positions()[-1]

    def from_standard_start(self) -> bool:
        return self.start == start_position()

    def squares(self) -> list[Optional[int]]:
        return [m.square for m in self.moves]


def apply_move(position: Position, square: Optional[int]) -> Position:
    """``position`` after ``square`` (None: a pass); GgfError when the move is not legal."""
    legal = legal_moves(position.own, position.opp)
    side = "black" if position.side == BLACK_CHAR else "white"
    if square is None:
        if legal:
            raise GgfError(f"{side} passes with a legal move ({', '.join(names(legal))})")
        return pass_move(position)
    if not flips(position.own, position.opp, square):
        raise GgfError(f"{side}'s move {square_name(square)} is not legal"
                       + (f" (legal: {', '.join(names(legal))})" if legal else " (no legal move: pass)"))
    return play(position, square)


def names(bitboard: int) -> list[str]:
    return [square_name(s) for s in range(64) if bitboard >> s & 1]


def escape(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("]", "\\]")


def unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value, flags=re.S)


def format_ggf_board(position: Position) -> str:
    """The ``BO`` value of ``position``: ``8 <64 squares> <side>``."""
    squares = "".join(GGF_BLACK if position.black >> s & 1 else GGF_WHITE if position.white >> s & 1 else GGF_EMPTY
                      for s in range(64))
    return f"8 {squares} {GGF_WHITE if position.white_to_move else GGF_BLACK}"


def parse_ggf_board(value: str) -> Position:
    """A ``BO`` value (spaces inside the 64 squares are allowed, as some writers group the ranks)."""
    parts = value.split()
    if not parts or parts[0] != "8":
        raise GgfError(f"BO[{value[:20]}...]: only 8x8 boards are played here (the value starts with the size, 8)")
    squares, side = "".join(parts[1:-1]), parts[-1] if len(parts) > 1 else ""
    if len(squares) != 64 or side not in (GGF_BLACK, GGF_WHITE):
        raise GgfError(f"BO[...] needs 64 squares (*, O, -) and the side to move (* or O); got {len(squares)} "
                       f"squares and side {side!r}")
    black = white = 0
    for square, char in enumerate(squares):
        if char == GGF_BLACK:
            black |= 1 << square
        elif char in (GGF_WHITE, "o"):
            white |= 1 << square
        elif char not in (GGF_EMPTY, "."):
            raise GgfError(f"BO[...]: bad square {char!r} at {square_name(square)}: use *, O or -")
    return Position(black, white, side == GGF_WHITE)


def parse_number(text: str, what: str) -> Optional[float]:
    if text.strip() == "":
        return None
    try:
        return float(text)
    except ValueError:
        raise GgfError(f"{what}: {text!r} is not a number") from None


def parse_move_value(value: str, color: str, number: int) -> GgfMove:
    square_text, *rest = value.split("/")
    where = f"move {number} ({'B' if color == BLACK_CHAR else 'W'}[{value}])"
    if square_text.strip().upper() in PASS_NAMES:
        square = None
    else:
        try:
            square = parse_square(square_text)
        except BoardError as error:
            raise GgfError(f"{where}: {error}") from None
    evaluation = parse_number(rest[0], f"{where} eval") if rest else None
    seconds = parse_number(rest[1], f"{where} time") if len(rest) > 1 else None
    return GgfMove(color, square, evaluation, seconds)


def parse_ggf(text: str) -> GgfGame:
    """The one game of ``text`` (see :func:`parse_ggf_games`)."""
    games = parse_ggf_games(text)
    if len(games) != 1:
        raise GgfError(f"expected one GGF game, found {len(games)}")
    return games[0]


def parse_ggf_games(text: str) -> list[GgfGame]:
    """Every game of ``text``, each ``(; TAG[value] ... ;)``, replayed by the rules; GgfError on
    anything else (text outside a game, a missing ``;)``, a game that is not Othello, an illegal
    move or pass, a move of the side not to move)."""
    if not isinstance(text, str):
        raise GgfError(f"a GGF record is text, got {type(text).__name__}")
    games, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        if not text.startswith("(;", at):
            raise GgfError(f"GGF: expected '(;' at character {at + 1}, got {text[at:at + 12]!r}")
        end = text.find(";)", at + 2)
        while end != -1 and inside_value(text, at + 2, end):
            end = text.find(";)", end + 1)
        if end == -1:
            raise GgfError(f"GGF: the game starting at character {at + 1} has no end ';)'")
        games.append(parse_game_body(text[at + 2:end], len(games) + 1))
        at = end + 2
    if not games:
        raise GgfError("GGF: no game found (a game is written '(;GM[Othello]...;)')")
    return games


def inside_value(text: str, start: int, position: int) -> bool:
    """True when ``position`` falls inside a ``[...]`` value of ``text[start:]``."""
    depth, at = False, start
    while at < position:
        char = text[at]
        if char == "\\" and depth:
            at += 2
            continue
        if char == "[":
            depth = True
        elif char == "]":
            depth = False
        at += 1
    return depth


def parse_game_body(body: str, number: int) -> GgfGame:
    tags, moves_text, at = {}, [], 0
    while True:
        match = TAG.match(body, at)
        if match is None:
            rest = body[at:].strip()
            if rest:
                raise GgfError(f"GGF game {number}: cannot read {rest[:24]!r} (expected TAG[value])")
            break
        key, value = match.group(1), unescape(match.group(2))
        if key in ("B", "W"):
            moves_text.append((BLACK_CHAR if key == "B" else WHITE_CHAR, value))
        else:
            tags[key] = value
        at = match.end()
    if tags.get("GM", "Othello").lower() != "othello":
        raise GgfError(f"GGF game {number}: GM[{tags['GM']}] is not Othello")
    if tags.get("TY", "8").strip() not in ("8", ""):
        raise GgfError(f"GGF game {number}: TY[{tags['TY']}]: only the 8x8 game is played here")
    start = parse_ggf_board(tags["BO"]) if "BO" in tags else start_position()
    game = GgfGame(start, [], tags)
    position = start
    for index, (color, value) in enumerate(moves_text, 1):
        try:
            move = parse_move_value(value, color, index)
        except GgfError as error:
            raise GgfError(f"GGF game {number}, {error}") from None
        if color != position.side:
            raise GgfError(f"GGF game {number}, move {index}: {'B' if color == BLACK_CHAR else 'W'}[{value}] but "
                           f"{'black' if position.side == BLACK_CHAR else 'white'} is to move")
        try:
            position = apply_move(position, move.square)
        except GgfError as error:
            raise GgfError(f"GGF game {number}, move {index}: {error}") from None
        game.moves.append(move)
    return game


FORFEIT = ":r"   # the RE suffix of a game lost by forfeit (an invalid move, a crash, no answer in time)


def forfeit_result(winner: str) -> str:
    """The ``RE`` value of a game that ``winner`` ('X' or 'O') won by forfeit: all 64 discs."""
    return ("+64" if winner == BLACK_CHAR else "-64") + FORFEIT


def result_text(black: int, white: int, suffix: str = "") -> str:
    """The ``RE`` value: black's discs minus white's, signed (``+12``, ``-4``, ``0``), and an
    optional suffix (``:r``, ``:t``)."""
    difference = black - white
    return (f"+{difference}" if difference > 0 else str(difference)) + suffix


def format_ggf(moves: Sequence, black_name: str = "", white_name: str = "", start: Optional[Position] = None,
               result: Optional[str] = None, comment: str = "", place: str = "gamechip", date: str = "",
               extra: Optional[dict] = None) -> str:
    """A GGF record of ``moves`` from ``start`` (default: the standard start). Each move is a
    square (int), None (a pass), or a GgfMove. ``result`` is the ``RE`` value (default: the disc
    difference of the final position, when the game is over); ``comment`` goes into ``GC``.
    The moves are checked by the rules (GgfError)."""
    start = start or start_position()
    position = start
    parts = [f"GM[Othello]PC[{escape(place)}]"]
    if date:
        parts.append(f"DT[{escape(date)}]")
    parts.append(f"PB[{escape(black_name)}]PW[{escape(white_name)}]")
    body = []
    for index, move in enumerate(moves, 1):
        if not isinstance(move, GgfMove):
            move = GgfMove(position.side, move)
        try:
            after = apply_move(position, move.square)
        except GgfError as error:
            raise GgfError(f"move {index}: {error}") from None
        value = move.text
        if move.evaluation is not None or move.seconds is not None:
            value += "/" + ("" if move.evaluation is None else f"{move.evaluation:g}")
            if move.seconds is not None:
                value += f"/{move.seconds:.3f}"
        body.append(f"{'B' if position.side == BLACK_CHAR else 'W'}[{value}]")
        position = after
    if result is None and not legal_moves(position.own, position.opp) and not legal_moves(position.opp, position.own):
        result = result_text(popcount(position.black), popcount(position.white))
    if result is not None:
        parts.append(f"RE[{escape(result)}]")
    if comment:
        parts.append(f"GC[{escape(comment)}]")
    for key, value in (extra or {}).items():
        parts.append(f"{key}[{escape(value)}]")
    parts.append(f"TY[8]BO[{format_ggf_board(start)}]")
    return "(;" + "".join(parts) + "".join(body) + ";)"


def parse_obf(text: str) -> Position:
    """The position of an OBF line (see the module docstring)."""
    line = text.split("%", 1)[0].strip()
    board, _, _ = line.partition(";")
    squares, _, side = board.strip().partition(" ")
    side = side.strip()
    if len(squares) != 64 or side not in (BLACK_CHAR, WHITE_CHAR):
        raise GgfError(f"OBF: expected 64 squares (X, O, -), a space, the side to move (X or O) and ';', got "
                       f"{text.strip()[:80]!r}")
    black = white = 0
    for square, char in enumerate(squares):
        if char in (BLACK_CHAR, "x", "*"):
            black |= 1 << square
        elif char in (WHITE_CHAR, "o"):
            white |= 1 << square
        elif char not in (EMPTY_CHAR, "."):
            raise GgfError(f"OBF: bad square {char!r} at {square_name(square)}: use X, O or -")
    return Position(black, white, side == WHITE_CHAR)


def format_obf(position: Position) -> str:
    return f"{position.text()};"


def looks_like_ggf(text: str) -> bool:
    return text.lstrip().startswith("(;")


def looks_like_obf(text: str) -> bool:
    return ";" in text.split("%", 1)[0] and not looks_like_ggf(text)


def parse_any_board(text: str) -> Position:
    """The position of a board as a user gives it: a GGF game (its final position), an OBF line,
    or the board text of golden.board (64 squares, a space, the side to move)."""
    if looks_like_ggf(text):
        return parse_ggf(text).final
    if looks_like_obf(text):
        return parse_obf(text)
    return parse_board(text)
