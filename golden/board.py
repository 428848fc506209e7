"""Board representation, text forms and square names (docs/spec.md §0).

A position is two bitboards, ``black`` and ``white``: bit ``i`` is square
``i = row*size + col``, col 0.. = files A.., row 0.. = ranks 1.. (A1 = bit 0).
Every size-dependent function takes ``size`` (even, 4..8, default 8) so the
same model checks the N x N builds of the RTL.

All bad input raises :class:`BoardError` (a ``ValueError``) whose message says
what is wrong and what would be valid, because these texts come from users,
test vectors and the referee protocol and must be debuggable from the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

SIZES = (4, 6, 8)
BLACK_CHAR = "X"
WHITE_CHAR = "O"
EMPTY_CHAR = "-"


class BoardError(ValueError):
    """Bad board, square, side or game-record input."""


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size, else raise BoardError."""
    if size not in SIZES:
        raise BoardError(f"board size must be one of {', '.join(map(str, SIZES))}, got {size!r}")
    return size


if hasattr(int, "bit_count"):  # Python >= 3.10: the C method itself, no Python frame per call
    popcount = int.bit_count
else:  # Debian's PyPy (Python 3.9) runs the golden search too
    def popcount(x: int) -> int:
        """Number of set bits (discs) in a bitboard."""
        return bin(x).count("1")


def squares_of(bitboard: int) -> list[int]:
    """Square indices of the set bits of ``bitboard``, ascending."""
    out = []
    while bitboard:
        low = bitboard & -bitboard
        out.append(low.bit_length() - 1)
        bitboard ^= low
    return out


def square_name(index: int, size: int = 8) -> str:
    """Name of square ``index``: column letter + row number ('D3' is 19 on 8x8)."""
    check_size(size)
    if not isinstance(index, int) or not 0 <= index < size * size:
        raise BoardError(f"square index must be 0..{size * size - 1}, got {index!r}")
    return chr(ord("A") + index % size) + str(index // size + 1)


def parse_square(text: str, size: int = 8) -> int:
    """Index of a square named like 'D3' or 'd3' (file letter, rank number)."""
    check_size(size)
    last_file = chr(ord("A") + size - 1)
    name = text.strip().upper() if isinstance(text, str) else ""
    if (
        len(name) != 2
        or not "A" <= name[0] <= last_file
        or not "1" <= name[1] <= str(size)
    ):
        raise BoardError(
            f"bad square {text!r}: use a file letter A..{last_file} "
            f"followed by a rank 1..{size} (e.g. D3)"
        )
    return (int(name[1]) - 1) * size + ord(name[0]) - ord("A")


def parse_game_record(text: str, size: int = 8) -> list[int]:
    """Squares of a game record written as concatenated squares ('f5d6c3').

    Passes are not written in Othello records; the reader of the record
    infers them from the position, so the result holds squares only.
    """
    record = text.strip()
    if len(record) % 2:
        raise BoardError(
            f"game record {record!r} has odd length {len(record)}: "
            "expected concatenated two-character squares like f5d6c3"
        )
    moves = []
    for k in range(0, len(record), 2):
        try:
            moves.append(parse_square(record[k:k + 2], size))
        except BoardError as err:
            raise BoardError(f"game record move {k // 2 + 1}: {err}") from None
    return moves


def format_game_record(moves: Iterable[int], size: int = 8) -> str:
    """Game record text: the squares in lower case, concatenated."""
    return "".join(square_name(m, size).lower() for m in moves)


@dataclass(frozen=True)
class Position:
    """A board and the side to move; validated on construction."""

    black: int
    white: int
    white_to_move: bool = False
    size: int = 8

    def __post_init__(self) -> None:
        check_size(self.size)
        limit = 1 << (self.size * self.size)
        for colour, bb in (("black", self.black), ("white", self.white)):
            if not isinstance(bb, int) or isinstance(bb, bool) or not 0 <= bb < limit:
                raise BoardError(
                    f"{colour} bitboard must be an int in 0..2**{self.size * self.size}-1, got {bb!r}"
                )
        if not isinstance(self.white_to_move, bool):
            raise BoardError(f"white_to_move must be a bool, got {self.white_to_move!r}")
        both = self.black & self.white
        if both:
            names = ", ".join(square_name(s, self.size) for s in squares_of(both))
            noun = "square" if popcount(both) == 1 else "squares"
            verb = "is" if popcount(both) == 1 else "are"
            raise BoardError(f"{noun} {names} {verb} in both the black and the white bitboard")

    @classmethod
    def trusted(cls, black: int, white: int, white_to_move: bool, size: int = 8) -> "Position":
        """A Position without the checks, for code whose positions follow from valid ones by
        legal moves (random games for the fuzzers: millions of positions)."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "black", black)
        object.__setattr__(pos, "white", white)
        object.__setattr__(pos, "white_to_move", white_to_move)
        object.__setattr__(pos, "size", size)
        return pos

    @classmethod
    def from_own_opp(cls, own: int, opp: int, white_to_move: bool, size: int = 8) -> "Position":
        """Build from side-to-move-relative bitboards, as the move code uses them."""
        if white_to_move:
            return cls(opp, own, True, size)
        return cls(own, opp, False, size)

    @property
    def own(self) -> int:
        """Discs of the side to move."""
        return self.white if self.white_to_move else self.black

    @property
    def opp(self) -> int:
        """Discs of the side not to move."""
        return self.black if self.white_to_move else self.white

    @property
    def side(self) -> str:
        """'X' (black) or 'O' (white): the side to move."""
        return WHITE_CHAR if self.white_to_move else BLACK_CHAR

    @property
    def empty(self) -> int:
        """Bitboard of empty squares."""
        return ((1 << (self.size * self.size)) - 1) & ~(self.black | self.white)

    def swap_side(self) -> "Position":
        """Same discs, other side to move."""
        return Position(self.black, self.white, not self.white_to_move, self.size)

    def text(self) -> str:
        """The board text of docs/spec.md §0."""
        return format_board(self)

    def __str__(self) -> str:
        return self.text()


def format_board(pos: Position) -> str:
    """N*N characters X/O/- from A1 row by row, a space, the side to move."""
    chars = []
    for sq in range(pos.size * pos.size):
        bit = 1 << sq
        chars.append(BLACK_CHAR if pos.black & bit else WHITE_CHAR if pos.white & bit else EMPTY_CHAR)
    return "".join(chars) + " " + pos.side


def parse_board(text: str, size: int = 8) -> Position:
    """Parse the board text of docs/spec.md §0 (surrounding whitespace ignored)."""
    check_size(size)
    n2 = size * size
    expected = f"expected {n2} followed by a space and the side to move (X or O)"
    if not isinstance(text, str):
        raise BoardError(f"board text must be a string, got {type(text).__name__}")
    stripped = text.strip()
    if " " not in stripped:
        if len(stripped) == n2:
            raise BoardError(f"board text has {n2} squares but no side to move: {expected}")
        raise BoardError(f"board text has {len(stripped)} characters and no space: {expected}")
    squares, _, side = stripped.rpartition(" ")
    if len(squares) != n2:
        raise BoardError(f"board text has {len(squares)} squares, {expected}")
    if side not in (BLACK_CHAR, WHITE_CHAR):
        raise BoardError(f"side to move must be X or O, got {side!r}")
    black = white = 0
    for sq, ch in enumerate(squares):
        if ch == BLACK_CHAR:
            black |= 1 << sq
        elif ch == WHITE_CHAR:
            white |= 1 << sq
        elif ch != EMPTY_CHAR:
            raise BoardError(f"bad character {ch!r} at {square_name(sq, size)}: use X, O or -")
    return Position(black, white, side == WHITE_CHAR, size)


def start_position(size: int = 8) -> Position:
    """Standard start: white on the a-to-h diagonal centre pair, black on the other."""
    check_size(size)
    lo, hi = size // 2 - 1, size // 2
    white = (1 << (lo * size + lo)) | (1 << (hi * size + hi))
    black = (1 << (hi * size + lo)) | (1 << (lo * size + hi))
    return Position(black, white, False, size)


START = start_position()


def draw(pos: Position, highlight: int = 0, marks: Optional[Mapping[int, str]] = None) -> str:
    """Multi-line diagram, rank N at the top, for failure reports and the CLI.

    Discs are X / O, empty squares '.'. Squares in ``highlight`` show '*'
    when empty and are bracketed ('[X]') when occupied. ``marks`` maps a
    square to one character drawn instead of its content (e.g. move numbers
    or a probe value); a marked square is still bracketed if highlighted.
    """
    size = pos.size
    marks = marks or {}
    files = "".join(f" {chr(ord('A') + c)} " for c in range(size)).rstrip()
    lines = ["   " + files]
    for row in range(size - 1, -1, -1):
        cells = []
        for col in range(size):
            sq = row * size + col
            bit = 1 << sq
            ch = "X" if pos.black & bit else "O" if pos.white & bit else "."
            occupied = ch != "."
            if sq in marks:
                ch = str(marks[sq])[:1]
            if highlight & bit:
                cells.append(f"[{ch}]" if occupied or sq in marks else " * ")
            else:
                cells.append(f" {ch} ")
        lines.append(f"{row + 1:2d} " + "".join(cells) + f" {row + 1}")
    lines.append("   " + files)
    lines.append(
        f"{'O (white)' if pos.white_to_move else 'X (black)'} to move;"
        f" X {popcount(pos.black)}, O {popcount(pos.white)}"
    )
    return "\n".join(lines)
