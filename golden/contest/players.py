"""Game players that the referee (golden/contest/referee.py) can connect (docs/spec.md §9).

A player is any object with this small interface (:class:`Player`)::

    name: str                                  # shown in results files and logs
    reset(color: str) -> None                  # a new game starts; color is 'X' (black) or 'O'
    move(position: Position) -> int | None     # the square to play, None = pass
    info() -> dict                             # optional: facts about the last move

``move`` is only called when ``position`` has the player's colour to move. It
should return a legal square, or None when (and only when) the side to move has
no legal move; anything else is an invalid move and loses the game, which is
what the referee checks, so players for tests may break the rules on purpose.
``info`` is read right after ``move`` and may report e.g. the search depth
reached, nodes and cycles; keys are free-form, values should be printable.

The processor (over its UART) and searches with their own board keep to the
same interface, or talk the two-character protocol directly (see
``golden.contest.referee``: a player can also be a message-level endpoint).

This module holds the players for tests: :class:`RandomPlayer` and
:class:`ScriptedPlayer`. The contest's reference program is
``golden.contest.reference.ReferencePlayer``.
"""

from __future__ import annotations

import random
from typing import Iterable, Optional, Protocol, Union, runtime_checkable

from golden.board import BLACK_CHAR, WHITE_CHAR, BoardError, Position, parse_square, squares_of
from golden.othello import legal_moves

COLORS = (BLACK_CHAR, WHITE_CHAR)


@runtime_checkable
class Player(Protocol):
    """What the referee needs from a Python player (see the module docstring)."""

    name: str

    def reset(self, color: str) -> None:
        """A new game starts and this player plays ``color`` ('X' black, 'O' white)."""

    def move(self, position: Position) -> Optional[int]:
        """The square to play in ``position`` (own colour to move); None = pass."""


def check_color(color: str) -> str:
    """Return ``color`` if it is 'X' or 'O', else raise BoardError."""
    if color not in COLORS:
        raise BoardError(f"color must be {BLACK_CHAR!r} (black) or {WHITE_CHAR!r} (white), got {color!r}")
    return color


def player_info(player: object) -> dict:
    """The player's ``info()`` as a new dict, or {} when it has none."""
    info = getattr(player, "info", None)
    return dict(info()) if callable(info) else {}


class RandomPlayer:
    """Plays a uniformly random legal move (passes when it has none).

    ``reset`` re-seeds from (seed, color), so every game is a function of the
    seed alone, whatever games the same object played before.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.name = f"random(seed={seed})"
        self._rng = random.Random(f"{seed}:X")

    def reset(self, color: str) -> None:
        self._rng = random.Random(f"{self.seed}:{check_color(color)}")

    def move(self, position: Position) -> Optional[int]:
        moves = legal_moves(position.own, position.opp, position.size)
        return self._rng.choice(squares_of(moves)) if moves else None

    def info(self) -> dict:
        return {}


class ScriptExhausted(BoardError):
    """A ScriptedPlayer was asked for more moves than its script holds."""


class ScriptedPlayer:
    """Plays a fixed list of moves in order, legal or not (for tests).

    Each entry is a square index, a square name ('d3' / 'D3') or None for a
    pass. ``reset`` rewinds to the first entry.
    """

    def __init__(self, moves: Iterable[Union[int, str, None]], name: str = "scripted") -> None:
        self.moves = [parse_square(m) if isinstance(m, str) else m for m in moves]
        self.name = name
        self._next = 0

    def reset(self, color: str) -> None:
        check_color(color)
        self._next = 0

    def move(self, position: Position) -> Optional[int]:
        if self._next >= len(self.moves):
            raise ScriptExhausted(
                f"{self.name}: script of {len(self.moves)} moves exhausted; board {position.text()}"
            )
        self._next += 1
        return self.moves[self._next - 1]

    def info(self) -> dict:
        return {"script_index": self._next - 1}
