"""The contest's reference program (docs/spec.md §9, processor seed section 4.1.1).

The FPT 2010 organisers' software is described only as: minimax with alpha-beta
pruning, leaf value from the disc count plus static square values, 7 levels of
difficulty = the depth of the tree. This module rebuilds it from that
description:

* **Search**: negamax with fail-hard alpha-beta, every value from the side to
  move's point of view; level L searches L plies (levels 1..7). The root is
  searched with an infinite window, so its value is exact: the same value and
  move as plain minimax (tests/test_referee.py checks this).
* **Leaf value** (depth exhausted, game not over): ``(own discs - opp discs) +
  sum of SQUARE_WEIGHTS over own discs - sum over opp discs``.
* **Square values**: the weighted-squares table of Peter Norvig, *Paradigms of
  Artificial Intelligence Programming* (1992), chapter 18 "Othello"
  (``*weights*`` in othello.lisp): corners 120, C-squares -20, X-squares -40,
  ... It is symmetric under the whole dihedral group, so orientation does not
  matter.
* **Passes**: a side with no legal move while the other has one passes; the
  pass is a node and consumes a ply (docs/spec.md §0, §7).
* **Finished game** (neither side can move), at any depth: ``FINAL_SCALE *
  (own discs - opp discs)``. Empty squares are NOT given to the winner (plain
  disc difference, docs/spec.md §0). FINAL_SCALE exceeds the largest possible
  leaf value, so any won finished game beats any unfinished position and any
  lost one is worse.
* **Move order and ties**: moves are tried in MOVE_ORDER: squares by
  decreasing square value, equal values by increasing square index (A1, B1,
  ..., H8). Corners come first, which also makes the pruning effective. Of
  moves with equal value the first in MOVE_ORDER is chosen (a later move must
  be strictly better to replace it), so the program is deterministic.

The disc-count term is tiny next to the square values; the scale is that of
the reference description ("number of discs and static scores of the squares"),
not a tuned evaluator.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

from golden.board import BoardError, Position, popcount
from golden.othello import flips, legal_moves

SIZE = 8
LEVELS = tuple(range(1, 8))

# Norvig, PAIP ch. 18, *weights* (row by row; A1 first; symmetric).
SQUARE_WEIGHTS: tuple[int, ...] = (
    120, -20,  20,   5,   5,  20, -20, 120,
    -20, -40,  -5,  -5,  -5,  -5, -40, -20,
     20,  -5,  15,   3,   3,  15,  -5,  20,
      5,  -5,   3,   3,   3,   3,  -5,   5,
      5,  -5,   3,   3,   3,   3,  -5,   5,
     20,  -5,  15,   3,   3,  15,  -5,  20,
    -20, -40,  -5,  -5,  -5,  -5, -40, -20,
    120, -20,  20,   5,   5,  20, -20, 120,
)

# Largest |leaf value|: every square weight counted at full size plus 64 discs.
MAX_LEAF_VALUE = sum(abs(w) for w in SQUARE_WEIGHTS) + SIZE * SIZE
# One disc of final difference outweighs every leaf value (1240 with this table).
FINAL_SCALE = 10_000
assert FINAL_SCALE > MAX_LEAF_VALUE

MOVE_ORDER: tuple[int, ...] = tuple(sorted(range(SIZE * SIZE), key=lambda sq: (-SQUARE_WEIGHTS[sq], sq)))


def _weight_classes() -> tuple[tuple[int, int], ...]:
    """(weight, mask of the squares with that weight), by decreasing weight.

    A leaf value is then a few popcounts instead of a loop over 64 squares,
    and walking the classes in this order with squares ascending inside a
    class walks exactly MOVE_ORDER.
    """
    classes: dict[int, int] = {}
    for sq, w in enumerate(SQUARE_WEIGHTS):
        classes[w] = classes.get(w, 0) | (1 << sq)
    return tuple(sorted(classes.items(), key=lambda item: -item[0]))


_CLASSES = _weight_classes()
_ORDER_MASKS = tuple(mask for _, mask in _CLASSES)


def leaf_value(own: int, opp: int) -> int:
    """Value of an unfinished position at depth 0 for the side owning ``own``."""
    value = popcount(own) - popcount(opp)
    for weight, mask in _CLASSES:
        value += weight * (popcount(own & mask) - popcount(opp & mask))
    return value


def final_value(own: int, opp: int) -> int:
    """Value of a finished game for the side owning ``own`` (empties not counted)."""
    return FINAL_SCALE * (popcount(own) - popcount(opp))


def ordered_squares(moves: int) -> list[int]:
    """The squares of the bitboard ``moves`` in MOVE_ORDER."""
    out = []
    for mask in _ORDER_MASKS:
        m = moves & mask
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
    return out


@dataclass(frozen=True)
class ReferenceResult:
    """Answer of one reference search.

    ``move`` is None when the side to move must pass or the game is over;
    ``value`` is exact (side to move's view); ``nodes`` counts every position
    visited, the root included (a pass is a node).
    """

    move: Optional[int]
    value: int
    depth: int
    nodes: int


class _Counter:
    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0


def _alphabeta(own: int, opp: int, depth: int, alpha: int, beta: int, counter: _Counter) -> int:
    """Fail-hard negamax value of (own to move), clamped to [alpha, beta]."""
    counter.nodes += 1
    moves = legal_moves(own, opp)
    if not moves:
        if not legal_moves(opp, own):
            value = final_value(own, opp)
        elif depth == 0:
            value = leaf_value(own, opp)
        else:  # forced pass: a node and a ply
            value = -_alphabeta(opp, own, depth - 1, -beta, -alpha, counter)
        return min(max(value, alpha), beta)
    if depth == 0:
        return min(max(leaf_value(own, opp), alpha), beta)
    for sq in ordered_squares(moves):
        bit = 1 << sq
        flipped = flips(own, opp, sq)
        value = -_alphabeta(opp & ~flipped, own | flipped | bit, depth - 1, -beta, -alpha, counter)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
    return alpha


def reference_search(pos: Position, depth: int) -> ReferenceResult:
    """Best move and exact value of ``pos`` searched ``depth`` plies (>= 1).

    Ties go to the first move of MOVE_ORDER. With no legal move the answer is
    a pass (move None), its value searched through the pass; a finished game
    is answered at once with its final value.
    """
    if pos.size != SIZE:
        raise BoardError(f"the reference program plays on 8x8 boards only, got {pos.size}x{pos.size}")
    if not isinstance(depth, int) or depth < 1:
        raise BoardError(f"search depth must be an int >= 1, got {depth!r}")
    counter = _Counter()
    own, opp = pos.own, pos.opp
    moves = legal_moves(own, opp)
    if not moves:
        # The root's own value: through the pass, or final if nobody can move.
        value = _alphabeta(own, opp, depth, -FINAL_SCALE * 65, FINAL_SCALE * 65, counter)
        return ReferenceResult(None, value, depth, counter.nodes)
    counter.nodes += 1  # the root
    infinity = FINAL_SCALE * 65  # beyond every value (|final| <= 64 * FINAL_SCALE)
    best_move, best_value = None, -infinity
    for sq in ordered_squares(moves):
        bit = 1 << sq
        flipped = flips(own, opp, sq)
        value = -_alphabeta(opp & ~flipped, own | flipped | bit, depth - 1, -infinity, -best_value, counter)
        if best_move is None or value > best_value:
            best_move, best_value = sq, value
    return ReferenceResult(best_move, best_value, depth, counter.nodes)


def check_level(level: int) -> int:
    """Return ``level`` if it is 1..7, else raise BoardError."""
    if not isinstance(level, int) or isinstance(level, bool) or level not in LEVELS:
        raise BoardError(f"reference level must be 1..7, got {level!r}")
    return level


class ReferencePlayer:
    """The reference program at ``level`` 1..7 (search depth = level), a Player.

    Passes without searching when it has no legal move. ``info()`` after a
    move: level, depth, nodes, value (side to move's view), seconds.
    """

    def __init__(self, level: int) -> None:
        self.level = check_level(level)
        self.name = f"reference(level={level})"
        self._info: dict = {}

    def reset(self, color: str) -> None:
        self._info = {}

    def move(self, position: Position) -> Optional[int]:
        if not legal_moves(position.own, position.opp, position.size):
            self._info = {"level": self.level, "depth": 0, "nodes": 0}
            return None
        started = time.perf_counter()
        result = reference_search(position, self.level)
        self._info = {
            "level": self.level,
            "depth": result.depth,
            "nodes": result.nodes,
            "value": result.value,
            "seconds": round(time.perf_counter() - started, 6),
        }
        return result.move

    def info(self) -> dict:
        return dict(self._info)
