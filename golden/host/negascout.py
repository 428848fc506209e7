"""The co-design host's search (docs/spec.md §10): NegaScout with a Zobrist transposition table, move
ordering from a shallow search, and, for playing games, the opening book and the co-design seed's corner
"killer". It calls an evaluation backend for every evaluation: the golden evaluator, or the
peripheral through a transfer model (golden/host/peripheral.py), so that the same search can be
counted on the bus.

The leaf value is the adaptive evaluator's (docs/spec.md §4) from the side to move, raised to at least
-255 like the engine's; a pass is a ply; a finished game is a leaf at any depth. So the root
value equals golden.search.minimax(pos, depth, adaptive=True) (tests check it, and that both
transfer models make the identical search).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional

from golden.board import Position
from golden.evaluator import evaluate
from golden.openings import book_move
from golden.ordering import ordered_moves
from golden.othello import legal_moves, pass_move, play

VALUE_FLOOR = -255
INFINITY = 10_000
EXACT, LOWER, UPPER = 0, 1, 2
ORDER_MIN_DEPTH = 2     # nodes with this many plies left order their children by a shallow search (every
                        # interior node is then sent as a child before it is searched: see golden/host/peripheral.py)
ORDER_DEPTH = 1         # plies of that shallow search
CORNERS = (0, 7, 56, 63)

_ZOBRIST_RNG = random.Random(2010)
ZOBRIST = [[_ZOBRIST_RNG.getrandbits(64) for _ in range(64)] for _ in range(2)]
ZOBRIST_WHITE_TO_MOVE = _ZOBRIST_RNG.getrandbits(64)


def zobrist(position: Position) -> int:
    key = ZOBRIST_WHITE_TO_MOVE if position.white_to_move else 0
    for colour, board in enumerate((position.black, position.white)):
        table = ZOBRIST[colour]
        while board:
            low = board & -board
            key ^= table[low.bit_length() - 1]
            board ^= low
    return key


def golden_backend(path) -> int:
    """The golden evaluator's adaptive value of the last position of ``path``."""
    return evaluate(path[-1]).adaptive


@dataclass
class Entry:
    depth: int
    flag: int
    value: int
    best: Optional[int]


@dataclass
class SearchStats:
    nodes: int = 0
    evaluations: int = 0
    table_hits: int = 0
    re_searches: int = 0
    trace: list = field(default_factory=list)   # (depth of the node in the tree, position) of every evaluation


class NegaScout:
    """``search(root, depth)`` -> (value, best move or None). ``backend(path)`` evaluates the
    last position of ``path`` (the root first): one hardware call. ``keep_trace`` records
    every evaluation (for the identical-search check)."""

    def __init__(self, backend: Callable = golden_backend, keep_trace: bool = False):
        self.backend = backend
        self.table = {}
        self.stats = SearchStats()
        self.keep_trace = keep_trace

    def _leaf(self, path) -> int:
        self.stats.evaluations += 1
        if self.keep_trace:
            self.stats.trace.append((len(path) - 1, path[-1]))
        return max(VALUE_FLOOR, self.backend(path))

    def _children(self, path, depth, legal, hint):
        """(move, child) best first: the table's best move, then by a shallow search when
        enough plies are left, else the static priority order."""
        position = path[-1]
        moves = ordered_moves(legal, hint)
        children = [(move, play(position, move)) for move in moves]
        if depth >= ORDER_MIN_DEPTH and len(children) > 1:
            scores = [-self._negascout(path + [child], ORDER_DEPTH, -INFINITY, INFINITY) for _, child in children]
            order = sorted(range(len(children)), key=lambda i: (moves[i] != hint, -scores[i]))
            children = [children[i] for i in order]
        return children

    def _negascout(self, path, depth, alpha, beta) -> int:
        self.stats.nodes += 1
        position = path[-1]
        legal = legal_moves(position.own, position.opp)
        if depth == 0 or (not legal and not legal_moves(position.opp, position.own)):
            return self._leaf(path)
        if not legal:
            return -self._negascout(path + [pass_move(position)], depth - 1, -beta, -alpha)
        key = zobrist(position)
        entry = self.table.get(key)
        hint = None
        if entry is not None:
            hint = entry.best
            if entry.depth == depth:   # a deeper entry would change the value against fixed-depth minimax
                self.stats.table_hits += 1
                if entry.flag == EXACT:
                    return entry.value
                if entry.flag == LOWER and entry.value >= beta:
                    return entry.value
                if entry.flag == UPPER and entry.value <= alpha:
                    return entry.value
        best_value, best_move, window_low = -INFINITY, None, alpha
        bound = beta
        for index, (move, child) in enumerate(self._children(path, depth, legal, hint)):
            value = -self._negascout(path + [child], depth - 1, -bound, -window_low)
            if index > 0 and window_low < value < beta and depth > 1:
                self.stats.re_searches += 1
                value = -self._negascout(path + [child], depth - 1, -beta, -value)
            if value > best_value:
                best_value, best_move = value, move
            window_low = max(window_low, value)
            if window_low >= beta:
                break
            bound = window_low + 1
        flag = UPPER if best_value <= alpha else LOWER if best_value >= beta else EXACT
        self.table[key] = Entry(depth, flag, best_value, best_move)
        return best_value

    def search(self, root: Position, depth: int) -> tuple:
        """(value, best move) of ``root`` searched ``depth`` plies with the full window."""
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        value = self._negascout([root], depth, -INFINITY, INFINITY)
        entry = self.table.get(zobrist(root))
        return value, (entry.best if entry is not None else None)


def choose_move(root: Position, moves_so_far, depth: int, backend: Callable = golden_backend,
                new_search: Callable = None, keep_trace: bool = False) -> tuple:
    """The host's move in a game: (move, how, search or None). The opening book first, then the
    co-design seed's killer (an available corner is played without search), then NegaScout."""
    legal = legal_moves(root.own, root.opp)
    if not legal:
        return None, "pass", None
    booked = book_move(moves_so_far)
    if booked is not None and legal >> booked & 1:
        return booked, "book", None
    for corner in CORNERS:
        if legal >> corner & 1:
            return corner, "corner killer", None
    if new_search:
        new_search()
    searcher = NegaScout(backend, keep_trace)
    value, move = searcher.search(root, depth)
    return move, f"negascout {value}", searcher
