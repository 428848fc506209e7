"""The tree search of SPEC section 7, as "the equivalent software" of the processor seed.

Algorithm (the engine implements exactly this; the RTL is an explicit-stack state machine,
this is a recursive function over whole bitboards):

* **Negamax with fail-hard alpha-beta.** Every value is from the side to move's point of
  view. A leaf's value is the evaluator's (SPEC section 4, fixed or adaptive weights),
  saturated to -256..255 and then raised to at least -255, so that every value of the tree
  lies in -255..255 and negating one never leaves the 9-bit range. The root is searched
  with the window (-256, 256) by default: -256 and 256 stand for minus and plus infinity, so
  the root value is exact (a host handing the engine a subtree gives a narrower root window,
  SPEC section 12: the value is then fail-hard, clamped to it). A node with window (alpha, beta) searches its children with
  (-beta, -alpha); a child value v = -child >= beta cuts the node off (it returns beta), a
  v > alpha raises alpha (and, at the root, makes the move the best so far: the first move
  of the order wins ties, and is the best move when no move raises a narrow root window; a
  move that cuts the root off is the best move). A node returns its alpha when its moves are exhausted.
* **Passes and the end of the game**: a side with no legal move while the other has one
  passes, which is a node (the same discs, the other side to move) and a ply; when neither
  side can move the node is terminal and is evaluated (disc difference) whatever depth is
  left.
* **Order** (SPEC section 5): at the root of iteration d > 1 the best move of iteration
  d - 1 first, then the static order. Below the root the level's *killer move* first: the
  last move that cut a node off at the same ply (any iteration of this search; a pass is not
  a killer), then the static order. A killer that is not legal here is simply skipped.
* **Iterative deepening** d = 1, 2, ... up to the depth limit (at most 16). The children of a
  node at ply d - 1 are leaves. Iteration 1 always completes; an iteration d > 1 is
  abandoned at the first cycle >= the cycle budget, and the answer is the best move and
  value of the deepest completed iteration. A finished game at the root ends the search at
  once: best = pass, value = the terminal evaluation, depth = the depth limit (an exact
  result does not change with depth), no node generated.

Cycle model (the engine's schedule, so that the budget and the test bench's per-node
checks are exact; ``t`` counts cycles from 0, the first cycle after ``start``):

* a node at ply k < d is visited first in cycle t ("generate node 1"): its legal moves are
  computed, its first move is chosen, the child is flipped ("generate node 2") in the same
  cycle. An inner child is pushed and visited first in t + 1. A leaf child is handed to
  the evaluator, which answers in cycle t + 1 + c, c being the evaluator's ``done_cycle``
  (the stable-disc iterations); in that answering cycle the leaf's value is used AND the
  next sibling is generated (or the node is left).
* after a child returns, its parent resumes in the cycle after the child's last cycle; a
  cut-off makes the parent return at once, in that same cycle, to its own parent.
* leaving a node whose moves are exhausted costs the cycle in which that is found (for a
  frontier node, the answering cycle of its last leaf).
* a terminal node found at ply k < d hands its own board to the evaluator in its first
  cycle t and returns in t + 1 + c.

Every generated node, and the root of each iteration, appears once in the trace, in the
order the engine produces them, with the cycle of its *event*: an inner node's event is
its first visit (its legal moves), a leaf's or terminal node's event is the evaluator's
answer (legal moves of the side to move there, stable discs, value).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

from .board import BoardError, Position, square_name
from .evaluator import DEFAULT, Weights, evaluate
from .othello import legal_moves, pass_move, play
from .ordering import ordered_moves

MAX_DEPTH = 16
MINUS_INFINITY = -256
PLUS_INFINITY = 256
VALUE_FLOOR = -255

INNER, LEAF, TERMINAL = "inner", "leaf", "terminal"


@dataclass(frozen=True)
class TraceNode:
    """One node as the engine produces it.

    ``move`` is the square played to reach the node (None: a pass, or the root); ``path``
    the moves from the root (None = pass); ``legal`` the legal moves of the side to move;
    ``value`` (leaf/terminal only) the node's value for its side to move; ``stable`` the
    (own, opp) stable-disc counts (leaf/terminal only); ``generated`` the cycle in which the
    node was generated (the root: its first cycle); ``cycle`` the cycle of its event.
    """

    iteration: int
    ply: int
    move: Optional[int]
    path: tuple
    black: int
    white: int
    white_to_move: bool
    legal: int
    kind: str
    value: Optional[int]
    stable: Optional[tuple]
    generated: int
    cycle: int

    @property
    def position(self) -> Position:
        return Position(self.black, self.white, self.white_to_move)

    def path_text(self) -> str:
        """The moves from the root in D3 form, 'pass' for a pass; '(root)' at the root."""
        if not self.path:
            return "(root)"
        return " ".join("pass" if m is None else square_name(m) for m in self.path)

    def to_dict(self) -> dict:
        record = asdict(self)
        record["path"] = list(self.path)
        record["board"] = self.position.text()
        record["path_text"] = self.path_text()
        return record


@dataclass
class SearchResult:
    """Answer of :func:`search`; ``best`` None means pass."""

    best: Optional[int]
    value: int
    depth: int
    nodes: int
    cycles: int
    leaves: int
    aborted: bool
    trace: list = field(default_factory=list)
    iterations: list = field(default_factory=list)   # (depth, best, value, end cycle)

    @property
    def best_text(self) -> str:
        return "pass" if self.best is None else square_name(self.best)

    def summary(self) -> dict:
        return {"best": self.best_text, "value": self.value, "depth": self.depth,
                "nodes": self.nodes, "cycles": self.cycles}


def leaf_value(evaluation, adaptive: bool) -> int:
    """The evaluator's value raised to at least -255 (so that negation stays in 9 bits)."""
    value = evaluation.adaptive if adaptive else evaluation.fixed
    return max(VALUE_FLOOR, value)


class _Abort(Exception):
    """The budget ran out inside an iteration."""


class _Iteration:
    """One depth-limited alpha-beta search with the engine's cycle model."""

    def __init__(self, root, depth, pv, start_cycle, weights, adaptive, abort_cycle, killers=None,
                 window=(MINUS_INFINITY, PLUS_INFINITY)):
        self.killers = {} if killers is None else killers    # ply -> square, kept across iterations
        self.window = window
        self.depth = depth
        self.pv = pv
        self.weights = weights
        self.adaptive = adaptive
        self.abort_cycle = abort_cycle     # None: never abort
        self.trace: list[TraceNode] = []
        self.nodes = 0
        self.leaves = 0
        self.best: Optional[int] = None
        self.value: Optional[int] = None
        self.end: Optional[int] = None
        self.root, self.start_cycle = root, start_cycle

    def run(self):
        """Search; raises _Abort (keeping the partial trace and counts) if the budget ends."""
        self.value, after = self._node(self.root, 0, (), *self.window, self.start_cycle, self.start_cycle)
        self.end = after - 1
        return self

    def _at(self, cycle):
        if self.abort_cycle is not None and cycle >= self.abort_cycle:
            raise _Abort

    def _record(self, pos, ply, path, legal, kind, generated, cycle, evaluation=None):
        self._at(cycle)
        value = stable = None
        if evaluation is not None:
            value = leaf_value(evaluation, self.adaptive)
            stable = evaluation.stable
        self.trace.append(TraceNode(self.depth, ply, path[-1] if path else None, path,
                                    pos.black, pos.white, pos.white_to_move, legal, kind,
                                    value, stable, generated, cycle))
        return value

    def _generated(self, cycle):
        self._at(cycle)
        self.nodes += 1

    def _node(self, pos, ply, path, alpha, beta, t, generated):
        """Visit ``pos`` first in cycle t; return (value, first cycle after the node)."""
        legal = legal_moves(pos.own, pos.opp)
        if not legal and not legal_moves(pos.opp, pos.own):
            self._at(t)
            evaluation = evaluate(pos, self.weights)
            answer = t + 1 + evaluation.done_cycle
            value = self._record(pos, ply, path, legal, TERMINAL, generated, answer, evaluation)
            return value, answer + 1
        self._record(pos, ply, path, legal, INNER, generated, t)
        moves = ordered_moves(legal, self.pv if ply == 0 else self.killers.get(ply)) if legal else [None]
        if ply == 0:
            self.best = moves[0]     # the best move until one raises alpha (a narrow window)
        frontier = ply + 1 == self.depth
        for move in moves:
            child = pass_move(pos) if move is None else play(pos, move)
            child_path = path + (move,)
            self._generated(t)
            if frontier:
                evaluation = evaluate(child, self.weights)
                answer = t + 1 + evaluation.done_cycle
                child_value = self._record(child, ply + 1, child_path,
                                           legal_moves(child.own, child.opp), LEAF, t, answer,
                                           evaluation)
                self.leaves += 1
                resume = answer          # the next sibling is generated in the answer cycle
                after_cut = answer + 1
            else:
                child_value, resume = self._node(child, ply + 1, child_path,
                                                 -beta, -alpha, t + 1, t)
                after_cut = resume
            value = -child_value
            if value >= beta:
                if move is not None:
                    self.killers[ply] = move
                if ply == 0:
                    self.best = move
                return beta, after_cut
            if value > alpha:
                alpha = value
                if ply == 0:
                    self.best = move
            t = resume
        self._at(t)
        return alpha, t + 1


def search(pos: Position, depth_limit: int, budget: Optional[int] = None,
           weights: Weights = DEFAULT, adaptive: bool = False,
           alpha: int = MINUS_INFINITY, beta: int = PLUS_INFINITY) -> SearchResult:
    """Iterative deepening alpha-beta search of ``pos`` (see the module docstring).

    ``depth_limit`` 1..16; ``budget`` in cycles (None: no budget); ``alpha``/``beta`` the root
    window of every iteration (default the full window, -256..256; a host that hands the engine
    a subtree gives it a narrower or a null window): fail-hard, so the value is ``alpha`` when
    every move fails low and ``beta`` on a cut-off. The result carries the whole trace,
    iteration by iteration (the aborted iteration up to the abort).
    """
    if not isinstance(pos, Position) or pos.size != 8:
        raise BoardError("the search engine is defined for the 8x8 board")
    if not isinstance(depth_limit, int) or not 1 <= depth_limit <= MAX_DEPTH:
        raise BoardError(f"depth limit must be 1..{MAX_DEPTH}, got {depth_limit!r}")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        raise BoardError(f"budget must be a number of cycles >= 0, got {budget!r}")
    if not MINUS_INFINITY <= alpha < beta <= PLUS_INFINITY:
        raise BoardError(f"root window must satisfy {MINUS_INFINITY} <= alpha < beta <= {PLUS_INFINITY}, "
                         f"got ({alpha}, {beta})")

    if not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own):
        evaluation = evaluate(pos, weights)
        answer = 1 + evaluation.done_cycle
        node = TraceNode(1, 0, None, (), pos.black, pos.white, pos.white_to_move, 0, TERMINAL,
                         leaf_value(evaluation, adaptive), evaluation.stable, 0, answer)
        return SearchResult(None, node.value, depth_limit, 0, answer + 1, 0, False, [node],
                            [(depth_limit, None, node.value, answer)])

    result = SearchResult(None, 0, 0, 0, 0, 0, False)
    start = 0
    killers = {}
    for depth in range(1, depth_limit + 1):
        abort_cycle = None if depth == 1 or budget is None else max(budget, start)
        pv = result.best if depth > 1 else None
        iteration = _Iteration(pos, depth, pv, start, weights, adaptive, abort_cycle, killers, (alpha, beta))
        try:
            iteration.run()
        except _Abort:
            result.trace.extend(iteration.trace)
            result.nodes += iteration.nodes
            result.leaves += iteration.leaves
            result.cycles = abort_cycle
            result.aborted = True
            return result
        result.trace.extend(iteration.trace)
        result.nodes += iteration.nodes
        result.leaves += iteration.leaves
        result.best, result.value, result.depth = iteration.best, iteration.value, depth
        result.iterations.append((depth, iteration.best, iteration.value, iteration.end))
        result.cycles = iteration.end + 1
        start = iteration.end + 1
    return result


def minimax(pos: Position, depth: int, weights: Weights = DEFAULT, adaptive: bool = False) -> int:
    """Plain negamax to ``depth`` plies, no pruning, same leaf values and pass rules.

    The reference for the alpha-beta search: its root value must equal this.
    """
    own_moves = legal_moves(pos.own, pos.opp)
    if depth == 0 or (not own_moves and not legal_moves(pos.opp, pos.own)):
        return leaf_value(evaluate(pos, weights), adaptive)
    if not own_moves:
        return -minimax(pass_move(pos), depth - 1, weights, adaptive)
    return max(-minimax(play(pos, move), depth - 1, weights, adaptive)
               for move in _squares(own_moves))


def solve(pos: Position) -> int:
    """Exact final disc difference (own - opp, empty squares not counted) under perfect play.

    Exhaustive, no pruning, no evaluator: the reference for endgame searches.
    """
    own_moves = legal_moves(pos.own, pos.opp)
    if not own_moves:
        if not legal_moves(pos.opp, pos.own):
            return bin(pos.own).count("1") - bin(pos.opp).count("1")
        return -solve(pass_move(pos))
    return max(-solve(play(pos, move)) for move in _squares(own_moves))


def _squares(bitboard):
    square = 0
    while bitboard:
        if bitboard & 1:
            yield square
        bitboard >>= 1
        square += 1
