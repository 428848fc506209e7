"""Openings table (docs/spec.md §6): named lines, their symmetric images, book moves.

The named lines live in ``golden/openings.tsv`` (see ``golden/openings.md``). The
51 lines flagged ``contest`` are expanded by the symmetry group of the start
position into the table the processor stores (:func:`book_lines`). While the
game so far is a proper prefix of some stored line, the processor plays that
line's next move, the first matching line in table order winning
(:func:`book_move`); once nothing matches, the book is out for the rest of
the game (automatically so here: an extension of a sequence that is no
prefix of any line is no prefix either).

The RTL walks a trie in block RAM; the golden model is a plain linear scan
of the table, so the two share no algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from golden.board import START, BoardError, format_game_record, parse_game_record, square_name
from golden.othello import game_over, legal_moves, play
from golden.symmetry import SYMMETRIES, transform_moves

DEFAULT_PATH = Path(__file__).resolve().parent / "openings.tsv"
COLUMNS = ("name", "moves", "contest", "list")


class OpeningsError(BoardError):
    """A malformed openings file; the message names the file and line."""


@dataclass(frozen=True)
class Opening:
    """One named line: ``moves`` are square indices from the start position."""

    name: str
    moves: tuple[int, ...]
    contest: bool
    list: str

    @property
    def record(self) -> str:
        """The moves as a game record ('f5d6c3...')."""
        return format_game_record(self.moves)


def _replay_error(moves: Sequence[int]) -> Optional[str]:
    """Why ``moves`` is not a legal pass-free sequence from the start, or None."""
    pos = START
    for k, move in enumerate(moves, 1):
        name = square_name(move)
        if not legal_moves(pos.own, pos.opp):
            state = "the game is over" if game_over(pos) else f"{pos.side} must pass"
            return (
                f"move {k} ({name}) cannot be played: {state} after {k - 1} moves "
                "(opening lines may not contain passes)"
            )
        if not legal_moves(pos.own, pos.opp) >> move & 1:
            why = "the square is occupied" if (pos.black | pos.white) >> move & 1 else "it flips nothing"
            return f"move {k} ({name}) is illegal for {pos.side}: {why}"
        pos = play(pos, move)
    return None


def parse_openings(text: str, source: str = "<string>") -> list[Opening]:
    """Parse the TSV text of an openings file; ``source`` names it in errors."""
    out: list[Opening] = []
    header_seen = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if line.startswith("#") or not line.strip():
            continue

        def fail(what: str) -> OpeningsError:
            return OpeningsError(f"{source}, line {number}: {what}")

        fields = line.split("\t")
        if not header_seen:
            if tuple(f.strip() for f in fields) != COLUMNS:
                raise fail(
                    f"expected the header line {chr(9).join(COLUMNS)!r} (tab-separated), got {line!r}"
                )
            header_seen = True
            continue
        if len(fields) != len(COLUMNS):
            raise fail(
                f"expected {len(COLUMNS)} tab-separated columns ({', '.join(COLUMNS)}), "
                f"got {len(fields)}: {line!r}"
            )
        name, record, contest, list_name = (f.strip() for f in fields)
        if not name:
            raise fail("empty opening name")
        if not record:
            raise fail(f"opening {name!r} has no moves")
        try:
            moves = tuple(parse_game_record(record))
        except BoardError as err:
            raise fail(f"opening {name!r}: {err}") from None
        if contest not in ("0", "1"):
            raise fail(f"opening {name!r}: contest must be 0 or 1, got {contest!r}")
        if not list_name:
            raise fail(f"opening {name!r}: empty list column")
        why = _replay_error(moves)
        if why:
            raise fail(f"opening {name!r} ({record}): {why}")
        out.append(Opening(name, moves, contest == "1", list_name))
    if not header_seen:
        raise OpeningsError(f"{source}: no header line {chr(9).join(COLUMNS)!r} found")
    return out


def load_openings(path: Union[str, Path] = DEFAULT_PATH) -> list[Opening]:
    """Read and check an openings TSV file (``#`` comments, then a header line)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise OpeningsError(f"{path}: cannot read openings file: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise OpeningsError(f"{path}: not UTF-8 text: {err}") from None
    return parse_openings(text, str(path))


def contest_lines(openings: Iterable[Opening]) -> list[Opening]:
    """The lines flagged contest=1, in file order."""
    return [o for o in openings if o.contest]


def expand(lines: Iterable[Sequence[int]]) -> list[tuple[int, ...]]:
    """Each line followed by its images under SYMMETRIES, duplicates dropped."""
    table: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for line in lines:
        for name in SYMMETRIES:
            image = tuple(transform_moves(name, line))
            if image not in seen:
                seen.add(image)
                table.append(image)
    return table


@lru_cache(maxsize=1)
def _default_book() -> tuple[tuple[int, ...], ...]:
    return tuple(expand(o.moves for o in contest_lines(load_openings())))


def book_lines(openings: Optional[Iterable[Opening]] = None) -> list[tuple[int, ...]]:
    """The stored table: the contest lines expanded by the symmetry group.

    For each contest line in file order, its images under SYMMETRIES in that
    order (identity first), dropping any sequence already in the table. The
    RTL builds its ROM from exactly this list. ``None``: the default file.
    """
    if openings is None:
        return list(_default_book())
    return expand(o.moves for o in contest_lines(openings))


def book_move(
    moves_so_far: Sequence[int], lines: Optional[Sequence[Sequence[int]]] = None
) -> Optional[int]:
    """Next move of the first line (table order) of which ``moves_so_far`` is a proper prefix.

    None when no line has it as a proper prefix (out of book). ``lines``
    defaults to :func:`book_lines` of the default file.
    """
    if lines is None:
        lines = _default_book()
    game = tuple(moves_so_far)
    n = len(game)
    for line in lines:
        if len(line) > n and tuple(line[:n]) == game:
            return line[n]
    return None
