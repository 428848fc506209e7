"""The tree search of docs/spec.md §7, as "the equivalent software" of the processor seed.

Algorithm (the engine implements exactly this; the RTL is an explicit-stack state machine,
this is a recursive function over whole bitboards):

* **Negamax with fail-hard alpha-beta.** Every value is from the side to move's point of
  view. A leaf's value is the evaluator's (docs/spec.md §4, fixed or adaptive weights; or the
  pattern evaluator's, golden/patterns.py and docs/spec.md §13, when the search is given its
  weights: the engine built with ``evaluator="pattern"``),
  saturated to -256..255 and then raised to at least -255, so that every value of the tree
  lies in -255..255 and negating one never leaves the 9-bit range. The root is searched
  with the window (-256, 256) by default: -256 and 256 stand for minus and plus infinity, so
  the root value is exact (a host handing the engine a subtree gives a narrower root window,
  docs/spec.md §12: the value is then fail-hard, clamped to it). A node with window (alpha, beta) searches its children with
  (-beta, -alpha); a child value v = -child >= beta cuts the node off (it returns beta), a
  v > alpha raises alpha (and, at the root, makes the move the best so far: the first move
  of the order wins ties, and is the best move when no move raises a narrow root window; a
  move that cuts the root off is the best move). A node returns its alpha when its moves are exhausted.
* **Passes and the end of the game**: a side with no legal move while the other has one
  passes, which is a node (the same discs, the other side to move) and a ply; when neither
  side can move the node is terminal and is evaluated (disc difference) whatever depth is
  left.
* **Order** (docs/spec.md §5): at the root of iteration d > 1 the best move of iteration
  d - 1 first, then the static order. Below the root the level's *killer move* first: the
  last move that cut a node off at the same ply (any iteration of this search; a pass is not
  a killer), then the static order. A killer that is not legal here is simply skipped.
* **Solve mode** (``solve=True``, docs/spec.md §7): one search to the end of the game instead
  of iterative deepening, no evaluator. A node where neither side can move is a terminal node
  whose value is the final disc difference for its side to move (``plain``: own - opp, empty
  squares not counted; ``winner``: the empty squares go to the winner, a draw stays 0); no node
  is a frontier leaf. The order is the same (no PV at the root; killers below). The root window
  makes the kind of solve: the full window gives the exact value, (-1, 1) win/loss/draw (the
  fail-hard value is then -1, 0 or 1). The budget counts from cycle 0 (there is no iteration 1 to
  complete): a solve still running at the first cycle >= the budget is abandoned, and so is one
  whose stack would overflow: a node that is not terminal at ply ``levels`` - 1 (the deepest
  level of the engine's board stack) has its event, then the solve stops in that cycle. A
  completed solve answers depth 1, an abandoned one depth 0, best move "pass" and value 0.
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
  (the stable-disc iterations; with the pattern evaluator its constant
  golden.patterns.PATTERN_DONE_CYCLE, 1); in that answering cycle the leaf's value is used AND
  the next sibling is generated (or the node is left).
* after a child returns, its parent resumes in the cycle after the child's last cycle; a
  cut-off makes the parent return at once, in that same cycle, to its own parent.
* leaving a node whose moves are exhausted costs the cycle in which that is found (for a
  frontier node, the answering cycle of its last leaf).
* a terminal node found at ply k < d hands its own board to the evaluator in its first
  cycle t and returns in t + 1 + c; in solve mode its final count is known in that cycle t, its
  event is in t and it returns in t (its parent resumes in t + 1).

Every generated node, and the root of each iteration, appears once in the trace, in the
order the engine produces them, with the cycle of its *event*: an inner node's event is
its first visit (its legal moves), a leaf's or terminal node's event is the evaluator's
answer (legal moves of the side to move there, stable discs, value).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

from golden.board import BoardError, Position, square_name
from golden.evaluator import DEFAULT, T_ADAPTIVE, T_ADAPTIVE_RAW, T_DISCS_OPP, T_DISCS_OWN, T_DONE_CYCLE, T_FIXED, \
    T_FIXED_RAW, T_STABLE_OPP, T_STABLE_OWN, T_STAGE, T_TERMINAL, TERM_FIELDS, Weights, evaluation_terms_8x8, \
    weight_tables, evaluate, evaluation_terms
from golden.othello import flips_8x8_unchecked, legal_moves_8x8, legal_moves, pass_move, play
from golden import words
from golden.ordering import ordered_moves
from golden.patterns import PATTERN_DONE_CYCLE, PatternWeights, pattern_value

MAX_DEPTH = 16
SOLVE_LEVELS = 32       # the board stack of the solving engine (rtl/designs.py: search_solve)
SCORINGS = ("plain", "winner")
MINUS_INFINITY = -256
PLUS_INFINITY = 256
VALUE_FLOOR = -255

INNER, LEAF, TERMINAL = "inner", "leaf", "terminal"

# The four quadrants a1-d4, e1-h4, a5-d8, e5-h8 (parity ordering, docs/spec.md §7)
QUADRANT_MASKS = tuple(sum(1 << square for square in range(64)
                           if (square // 8 >= 4) == (quadrant >= 2) and (square % 8 >= 4) == (quadrant % 2 == 1))
                       for quadrant in range(4))
CORNER_MASK = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)


@dataclass(frozen=True)
class SolveSchedule:
    """How a solve orders its moves and ends its last empties (``solve=`` only; the midgame
    schedule never changes). The engine builds :data:`ENGINE_SOLVE_SCHEDULE`; the others are
    cost models for measuring what would pay (docs/solve.md, "Which ordering pays, in cycles"):

    * ``killers``: the level's killer move first (as in a depth-limited search);
    * ``parity``: after the killer, the legal squares of quadrants with an odd number of empty
      squares first, each part in the static order (no cycle: the node's board gives the parity);
    * ``last_one``: a node below the root with one empty square that its side to move can play
      takes its value, the final count after that move, in its first cycle and leaves in it: its
      child (the full board) is generated and reported as a terminal node in that cycle, in place
      of the node's own event, and is not visited;
    * ``fastest_from``: None, or fastest-first at nodes of that many empty squares or more: the
      replies of every child counted (weighted mobility, a corner reply twice), the fewest first,
      at a cost of one cycle a legal move before the first child is generated (a model: one
      child flipped and its replies counted a cycle), the killer then ignored; ``recount``: with
      no store for the counts, the replies of every move not yet searched counted again before
      each child (as many cycles as there are such moves).
    """

    killers: bool = True
    parity: bool = False
    last_one: bool = False
    fastest_from: Optional[int] = None
    recount: bool = False


ENGINE_SOLVE_SCHEDULE = SolveSchedule(parity=True, last_one=True)


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


class Answer:
    """What a search's answer shows, for every result with ``best`` (None: pass), ``value``,
    ``depth``, ``nodes`` and ``cycles``."""

    @property
    def best_text(self) -> str:
        return "pass" if self.best is None else square_name(self.best)

    def summary(self) -> dict:
        return {"best": self.best_text, "value": self.value, "depth": self.depth,
                "nodes": self.nodes, "cycles": self.cycles}


@dataclass
class SearchResult(Answer):
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


def leaf_value(evaluation, adaptive: bool) -> int:
    """The evaluator's value raised to at least -255 (so that negation stays in 9 bits)."""
    value = evaluation.adaptive if adaptive else evaluation.fixed
    return max(VALUE_FLOOR, value)


def pattern_terms(terms, stage: int) -> tuple:
    """The terms the engine built with the pattern evaluator reports for a leaf or terminal node:
    the seed evaluator's counts that come from the leaf's board in its first cycle (terminal,
    corners, X-squares, mobility, discs), the pattern evaluator's ``stage``, no stable discs and no
    fixed or adaptive value (0: that engine counts neither), and the pattern evaluator's constant
    answer cycle as ``done_cycle``."""
    reported = list(terms)
    reported[T_STAGE] = stage
    for index in (T_STABLE_OWN, T_STABLE_OPP, T_FIXED, T_ADAPTIVE, T_FIXED_RAW, T_ADAPTIVE_RAW):
        reported[index] = 0
    reported[T_DONE_CYCLE] = PATTERN_DONE_CYCLE
    return tuple(reported)


class _Abort(Exception):
    """The budget ran out inside an iteration."""


class _Overflow(_Abort):
    """A solve reached the deepest level of the board stack in cycle ``cycle``."""

    def __init__(self, cycle):
        super().__init__(cycle)
        self.cycle = cycle


def final_value(own_count: int, opp_count: int, scoring: str) -> int:
    """A finished game's value for the side with ``own_count`` discs, as the engine's solve
    mode computes it: own - opp (``plain``), or with the empty squares given to the winner
    (``winner``: the winner's discs plus the empties, 64 - 2 x the loser's discs)."""
    if scoring == "winner":
        if own_count > opp_count:
            return 64 - 2 * opp_count
        if own_count < opp_count:
            return 2 * own_count - 64
        return 0
    return own_count - opp_count


def final_terms(own_count: int, opp_count: int) -> tuple:
    """The evaluation terms a solve-mode terminal node reports: terminal, the disc counts,
    every other term 0 (no evaluator runs)."""
    terms = [0] * len(TERM_FIELDS)
    terms[T_TERMINAL], terms[T_DISCS_OWN], terms[T_DISCS_OPP] = 1, own_count, opp_count
    return tuple(terms)


# A node event as the search hands it to an observer (see :func:`search_events`):
#   on_node(iteration, ply, path, own, opp, white_to_move, legal, kind, terms, value,
#           generated, cycle)
# ``path`` is the search's own list of moves from the root (copy it to keep it), ``own`` and
# ``opp`` the discs of the side to move and of the other side, ``terms`` the tuple of
# golden.evaluator.evaluation_terms (leaf and terminal nodes; None for an inner node).


class Kernel:
    """The inner loop's operations on one representation of bitboards: Python ints 0..2**64-1
    (``ints``, fastest on CPython) or signed machine words (``words``, golden.words: fastest
    on PyPy, where big integers are slow). Nodes always leave the search as Python ints."""

    def __init__(self, name, legal, flips, terms, ordered, popcount, to_word=None, from_word=None):
        self.name, self.legal, self.flips, self.terms, self.ordered = name, legal, flips, terms, ordered
        self.popcount = popcount
        self.to_word, self.from_word = to_word, from_word
        self.bits = tuple(to_word(1 << sq) if to_word else 1 << sq for sq in range(64))


KERNELS = {
    "ints": Kernel("ints", legal_moves_8x8, flips_8x8_unchecked, evaluation_terms_8x8, ordered_moves,
                   lambda bits: bin(bits).count("1")),
    "words": Kernel("words", words.legal_moves, words.flips, words.terms, words.ordered_moves, words.popcount,
                    words.to_word, words.from_word),
}
DEFAULT_KERNEL = "words" if words.NATIVE else "ints"


class _Iteration:
    """One depth-limited alpha-beta search with the engine's cycle model. Its state lives in
    attributes rather than closures: PyPy's JIT then compiles the search once for every search
    of a process instead of once per search."""

    def __init__(self, depth, pv, weights, adaptive, abort_cycle, killers, on_node, counts, kernel,
                 window=(MINUS_INFINITY, PLUS_INFINITY), solve=None, levels=SOLVE_LEVELS, pattern=None,
                 schedule=ENGINE_SOLVE_SCHEDULE):
        """``solve``: None (a depth-limited iteration), or the scoring of a solve (SCORINGS): no
        frontier, terminal nodes valued by their final count, ``levels`` the board stack's.
        ``pattern``: the pattern evaluator's weights, or None for the seed's evaluator."""
        self.pv, self.killers, self.counts = pv, killers, counts
        self.pattern = pattern
        self.solve, self.deepest = solve, levels - 1
        # a solve's frontier is never reached (the stack overflows first); it is iteration 1
        self.depth, self.iteration = (levels + 1, 1) if solve else (depth, depth)
        self.popcount = kernel.popcount
        self.window = window
        self.abort = abort_cycle if abort_cycle is not None else 1 << 62
        self.weights = weight_tables(weights)
        self.value_index = T_ADAPTIVE if adaptive else T_FIXED
        self.legal_moves, self.flips, self.terms, self.ordered, self.bits = \
            kernel.legal, kernel.flips, kernel.terms, kernel.ordered, kernel.bits
        self.from_word, self.report = kernel.from_word, on_node
        self.on_node = on_node if kernel.from_word is None else self._report_words
        self.path = []
        self.best = None
        self.schedule = schedule
        to_word = kernel.to_word or (lambda bits: bits)
        self.quadrants = tuple(to_word(mask) for mask in QUADRANT_MASKS)
        self.corners = to_word(CORNER_MASK)
        self.board = to_word((1 << 64) - 1)
        self.reorders = solve is not None and schedule != SolveSchedule()

    def solve_moves(self, own, opp, legal, ply, t):
        """A solve's move order at a node (the schedule's), the cycle of its first child, and the
        moves whose replies are counted before the first child (0: none, or counted already)."""
        schedule = self.schedule
        killer = self.killers[ply] if schedule.killers and ply else None
        empty = self.board & ~(own | opp)
        popcount = self.popcount
        if schedule.fastest_from is not None and popcount(empty) >= schedule.fastest_from:
            bits, flips_, legal_moves_, corners = self.bits, self.flips, self.legal_moves, self.corners
            keyed = []
            for rank, move in enumerate(self.ordered(legal, None)):
                flipped = flips_(own, opp, bits[move])
                replies = legal_moves_(opp & ~flipped, own | flipped | bits[move])
                keyed.append((popcount(replies) + popcount(replies & corners), rank, move))
            keyed.sort()
            if schedule.recount:
                return [move for _, _, move in keyed], t, len(keyed)
            return [move for _, _, move in keyed], t + len(keyed), 0
        if not schedule.parity:
            return self.ordered(legal, killer), t, 0
        odd = 0
        for quadrant in self.quadrants:
            if popcount(empty & quadrant) & 1:
                odd |= quadrant
        moves = []
        if killer is not None and legal >> killer & 1:
            moves.append(killer)
            legal &= ~self.bits[killer]
        return moves + self.ordered(legal & odd, None) + self.ordered(legal & ~odd, None), t, 0

    def last_one(self, own, opp, wtm, legal, ply, t):
        """The last-one step of a node with one empty square that its side to move can play
        (``legal``): the child, the full board, is generated and valued in the node's first cycle
        ``t`` and reported there in place of the node's own event; the node leaves in ``t``."""
        flipped = self.flips(own, opp, legal)
        child_own, child_opp = opp & ~flipped, own | flipped | legal
        own_count = self.popcount(child_own)
        value = final_value(own_count, 64 - own_count, self.solve)
        self.counts[0] += 1
        self.path.append(self.ordered(legal, None)[0])
        self.on_node(self.iteration, ply + 1, self.path, child_own, child_opp, not wtm, 0, TERMINAL,
                     final_terms(own_count, 64 - own_count), value, t, t)
        self.path.pop()
        return -value, t + 1

    def _report_words(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        from_word = self.from_word
        self.report(iteration, ply, path, from_word(own), from_word(opp), wtm, from_word(legal), kind, terms,
                    value, generated, cycle)

    def pattern_leaf(self, own, opp, terms):
        """(the terms the pattern engine reports, its value) of a leaf or terminal node
        (golden/patterns.py, :func:`pattern_terms`), in the search's place of the seed's terms and
        fixed or adaptive value; ``terms`` the seed evaluator's terms of the node."""
        if self.from_word is not None:
            own, opp = self.from_word(own), self.from_word(opp)
        stage = self.pattern.stage(terms[T_DISCS_OWN] + terms[T_DISCS_OPP])
        return pattern_terms(terms, stage), pattern_value(own, opp, self.pattern, terms[T_TERMINAL])

    def run(self, own, opp, white_to_move, start):
        """Search from the root (``own``/``opp`` in the kernel's representation) starting in
        cycle ``start``; (best move, value, last cycle). Raises _Abort at the first cycle >= the
        abort cycle, after reporting every node before it."""
        value, after = self.visit(own, opp, white_to_move, 0, *self.window, start, start)
        return self.best, value, after - 1

    def visit(self, own, opp, wtm, ply, alpha, beta, t, generated):
        """Visit the node first in cycle t; return (value, first cycle after the node)."""
        # locals for speed: this is the inner loop of every check of the engine
        legal_moves_, abort, on_node, depth, path = self.legal_moves, self.abort, self.on_node, self.depth, self.path
        iteration = self.iteration
        legal = legal_moves_(own, opp)
        if not legal:
            opp_legal = legal_moves_(opp, own)
            if not opp_legal:
                if t >= abort:
                    raise _Abort
                if self.solve:
                    own_count, opp_count = self.popcount(own), self.popcount(opp)
                    value = final_value(own_count, opp_count, self.solve)
                    on_node(iteration, ply, path, own, opp, wtm, 0, TERMINAL, final_terms(own_count, opp_count),
                            value, generated, t)
                    return value, t + 1
                terms = self.terms(own, opp, 0, 0, self.weights)
                if self.pattern is None:
                    value = terms[self.value_index]
                else:
                    terms, value = self.pattern_leaf(own, opp, terms)
                answer = t + 1 + terms[T_DONE_CYCLE]
                if answer >= abort:
                    raise _Abort
                if value < VALUE_FLOOR:
                    value = VALUE_FLOOR
                on_node(iteration, ply, path, own, opp, wtm, 0, TERMINAL, terms, value, generated, answer)
                return value, answer + 1
        if t >= abort:
            raise _Abort
        if self.reorders and legal and ply and self.schedule.last_one and self.popcount(self.board & ~(own | opp)) == 1:
            return self.last_one(own, opp, wtm, legal, ply, t)
        on_node(iteration, ply, path, own, opp, wtm, legal, INNER, None, None, generated, t)
        if ply == self.deepest and self.solve:
            raise _Overflow(t)
        recount = 0
        if self.reorders and legal:
            moves, t, recount = self.solve_moves(own, opp, legal, ply, t)
        else:
            moves = self.ordered(legal, self.pv if ply == 0 else self.killers[ply]) if legal else (None,)
        if ply == 0:
            self.best = moves[0]     # the best move until one raises alpha (a narrow window)
        frontier = ply + 1 == depth
        child_wtm = not wtm
        flips_, terms_of, bits, counts, weights, value_index = \
            self.flips, self.terms, self.bits, self.counts, self.weights, self.value_index
        for move in moves:
            if recount:
                t += recount
                recount -= 1
            if move is None:
                child_own, child_opp = opp, own
            else:
                bit = bits[move]
                flipped = flips_(own, opp, bit)
                child_own, child_opp = opp & ~flipped, own | flipped | bit
            path.append(move)
            if t >= abort:
                raise _Abort
            counts[0] += 1
            if frontier:
                child_legal = legal_moves_(child_own, child_opp)
                terms = terms_of(child_own, child_opp, child_legal, legal_moves_(child_opp, child_own), weights)
                if self.pattern is None:
                    child_value = terms[value_index]
                else:
                    terms, child_value = self.pattern_leaf(child_own, child_opp, terms)
                answer = t + 1 + terms[T_DONE_CYCLE]
                if answer >= abort:
                    raise _Abort
                if child_value < VALUE_FLOOR:
                    child_value = VALUE_FLOOR
                on_node(iteration, ply + 1, path, child_own, child_opp, child_wtm, child_legal, LEAF, terms,
                        child_value, t, answer)
                counts[1] += 1
                resume = answer          # the next sibling is generated in the answer cycle
                after_cut = answer + 1
            else:
                child_value, resume = self.visit(child_own, child_opp, child_wtm, ply + 1, -beta, -alpha, t + 1, t)
                after_cut = resume
            path.pop()
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
        if t >= abort:
            raise _Abort
        return alpha, t + 1


def check_search_request(pos, depth_limit, budget, searcher="the search engine", unit="cycles"):
    """Refuse (BoardError) a search request the engine cannot take: a board other than 8x8, a
    depth limit outside 1..MAX_DEPTH, a budget that is not a whole number >= 0 (None: none).
    ``searcher`` and ``unit`` name what is asked and what its budget counts in the messages."""
    if not isinstance(pos, Position) or pos.size != 8:
        raise BoardError(f"{searcher} is defined for the 8x8 board")
    if not isinstance(depth_limit, int) or not 1 <= depth_limit <= MAX_DEPTH:
        raise BoardError(f"depth limit must be 1..{MAX_DEPTH}, got {depth_limit!r}")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        raise BoardError(f"budget must be a number of {unit} >= 0, got {budget!r}")


def _check_limits(pos, depth_limit, budget, alpha=MINUS_INFINITY, beta=PLUS_INFINITY):
    check_search_request(pos, depth_limit, budget)
    if not MINUS_INFINITY <= alpha < beta <= PLUS_INFINITY:
        raise BoardError(f"root window must satisfy {MINUS_INFINITY} <= alpha < beta <= {PLUS_INFINITY}, "
                         f"got ({alpha}, {beta})")


def search_events(pos: Position, depth_limit: int, budget: Optional[int] = None, weights: Weights = DEFAULT,
                  adaptive: bool = False, on_node=None, on_iteration=None, kernel: str = DEFAULT_KERNEL,
                  alpha: int = MINUS_INFINITY, beta: int = PLUS_INFINITY, single_iteration: bool = False,
                  root_pv: Optional[int] = None, solve: Optional[str] = None,
                  levels: int = SOLVE_LEVELS, pattern: Optional[PatternWeights] = None,
                  schedule: SolveSchedule = ENGINE_SOLVE_SCHEDULE) -> SearchResult:
    """:func:`search` without keeping the trace: every node goes to ``on_node`` (see the
    comment above :class:`_Iteration`) as the search produces it, so that a search of tens of
    millions of cycles is checked in constant memory. ``on_iteration(depth, best, value,
    end)`` is called after each completed iteration. The result's ``trace`` stays empty.
    ``kernel``: a key of KERNELS (the same nodes either way; the default is the fastest here).
    ``single_iteration``: run iteration ``depth_limit`` alone, from cycle 0, with ``root_pv`` as
    the root's PV move when ``depth_limit`` > 1 (None: no PV; an illegal one is skipped), the
    budget rule unchanged (the engine's single-iteration mode, docs/root-split.md).
    ``solve``: None, or a scoring of SCORINGS for the solve mode (module docstring; ``depth_limit``
    is then ignored but must be valid), on an engine of ``levels`` board-stack levels.
    ``pattern``: the pattern evaluator's weights (golden/patterns.py): the engine built with
    ``evaluator="pattern"`` (rtl/search.py). Every leaf's and terminal node's value is the pattern
    value instead of the seed's (``adaptive`` is then ignored), its answer comes in the pattern
    evaluator's constant cycle (PATTERN_DONE_CYCLE after the start cycle's successor) instead of
    after the stable-disc iterations, and its reported terms are :func:`pattern_terms`. A solve
    values its terminal nodes by their final count whatever the evaluator. ``schedule``: a solve's ordering and
    last-empties step (:class:`SolveSchedule`; the engine's by default, the others measure what
    the engine could build)."""
    _check_limits(pos, depth_limit, budget, alpha, beta)
    if solve is not None and solve not in SCORINGS:
        raise BoardError(f"solve scoring must be one of {', '.join(SCORINGS)}, got {solve!r}")
    if solve is not None and (single_iteration or not isinstance(levels, int) or levels < 2):
        raise BoardError(f"a solve runs alone on a stack of 2 levels or more, got levels {levels!r}")
    if root_pv is not None and (not single_iteration or not isinstance(root_pv, int) or not 0 <= root_pv < 64):
        raise BoardError(f"root_pv must be a square 0..63 with single_iteration, got {root_pv!r}")
    if kernel not in KERNELS:
        raise BoardError(f"kernel must be one of {', '.join(KERNELS)}, got {kernel!r}")
    kernel = KERNELS[kernel]
    on_node = on_node or (lambda *node: None)
    own, opp = pos.own, pos.opp
    if solve is not None:
        return _solve_events(pos, budget, on_node, on_iteration, kernel, alpha, beta, solve, levels, schedule)
    own_moves, opp_moves = legal_moves(own, opp), legal_moves(opp, own)
    if not own_moves and not opp_moves:
        terms = evaluation_terms(own, opp, 0, 0, weights)
        if pattern is None:
            value = max(VALUE_FLOOR, terms[T_ADAPTIVE if adaptive else T_FIXED])
        else:
            terms = pattern_terms(terms, pattern.stage(terms[T_DISCS_OWN] + terms[T_DISCS_OPP]))
            value = max(VALUE_FLOOR, pattern_value(own, opp, pattern, True))
        answer = 1 + terms[T_DONE_CYCLE]
        on_node(1, 0, [], own, opp, pos.white_to_move, 0, TERMINAL, terms, value, 0, answer)
        if on_iteration:
            on_iteration(depth_limit, None, value, answer)
        return SearchResult(None, value, depth_limit, 0, answer + 1, 0, False, [],
                            [(depth_limit, None, value, answer)])

    result = SearchResult(None, 0, 0, 0, 0, 0, False)
    root_own, root_opp = (kernel.to_word(own), kernel.to_word(opp)) if kernel.to_word else (own, opp)
    start = 0
    killers = [None] * (MAX_DEPTH + 1)
    counts = [0, 0]
    for depth in range(depth_limit if single_iteration else 1, depth_limit + 1):
        abort_cycle = None if depth == 1 or budget is None else max(budget, start)
        pv = (root_pv if single_iteration else result.best) if depth > 1 else None
        try:
            best, value, end = _Iteration(depth, pv, weights, adaptive, abort_cycle, killers, on_node, counts, kernel,
                                          (alpha, beta), pattern=pattern).run(root_own, root_opp, pos.white_to_move,
                                                                              start)
        except _Abort:
            result.nodes, result.leaves = counts
            result.cycles = abort_cycle
            result.aborted = True
            return result
        result.nodes, result.leaves = counts
        result.best, result.value, result.depth = best, value, depth
        result.iterations.append((depth, best, value, end))
        if on_iteration:
            on_iteration(depth, best, value, end)
        result.cycles = end + 1
        start = end + 1
    return result


def _solve_events(pos, budget, on_node, on_iteration, kernel, alpha, beta, scoring, levels, schedule):
    """The solve mode of :func:`search_events`: one search to the end from cycle 0."""
    root_own, root_opp = (kernel.to_word(pos.own), kernel.to_word(pos.opp)) if kernel.to_word else (pos.own, pos.opp)
    counts = [0, 0]
    result = SearchResult(None, 0, 0, 0, 0, 0, False)
    iteration = _Iteration(1, None, DEFAULT, False, budget, [None] * (levels + 1), on_node, counts, kernel,
                           (alpha, beta), solve=scoring, levels=levels, schedule=schedule)
    try:
        best, value, end = iteration.run(root_own, root_opp, pos.white_to_move, 0)
    except _Overflow as overflow:
        result.nodes, result.leaves = counts
        result.cycles, result.aborted = overflow.cycle, True
        return result
    except _Abort:
        result.nodes, result.leaves = counts
        result.cycles, result.aborted = budget, True
        return result
    result.nodes, result.leaves = counts
    result.best, result.value, result.depth = best, value, 1
    result.iterations.append((1, best, value, end))
    if on_iteration:
        on_iteration(1, best, value, end)
    result.cycles = end + 1
    return result


def trace_node(iteration, ply, path, own, opp, white_to_move, legal, kind, terms, value, generated, cycle):
    """A TraceNode from the arguments of an ``on_node`` call."""
    black, white = (opp, own) if white_to_move else (own, opp)
    stable = None if terms is None else (terms[T_STABLE_OWN], terms[T_STABLE_OPP])
    return TraceNode(iteration, ply, path[-1] if path else None, tuple(path), black, white, white_to_move,
                     legal, kind, value, stable, generated, cycle)


def search(pos: Position, depth_limit: int, budget: Optional[int] = None,
           weights: Weights = DEFAULT, adaptive: bool = False, kernel: str = DEFAULT_KERNEL,
           alpha: int = MINUS_INFINITY, beta: int = PLUS_INFINITY, single_iteration: bool = False,
           root_pv: Optional[int] = None, solve: Optional[str] = None, levels: int = SOLVE_LEVELS,
           pattern: Optional[PatternWeights] = None, schedule: SolveSchedule = ENGINE_SOLVE_SCHEDULE) -> SearchResult:
    """Iterative deepening alpha-beta search of ``pos`` (see the module docstring).

    ``depth_limit`` 1..16; ``budget`` in cycles (None: no budget); ``alpha``/``beta`` the root
    window of every iteration (default the full window, -256..256; a host that hands the engine
    a subtree gives it a narrower or a null window, docs/spec.md §12): fail-hard, so the value is
    ``alpha`` when every move fails low and ``beta`` on a cut-off. The result carries the
    whole trace, iteration by iteration (the aborted iteration up to the abort). A search of
    millions of cycles keeps millions of nodes: use :func:`search_events` to stream them.
    ``single_iteration``, ``root_pv``: iteration ``depth_limit`` alone (:func:`search_events`).
    ``solve``, ``levels``, ``schedule``: the solve mode; ``pattern``: the pattern evaluator's
    weights instead of the seed's evaluator (:func:`search_events`).
    """
    trace = []
    keep = trace.append

    def on_node(*node):
        keep(trace_node(*node))

    result = search_events(pos, depth_limit, budget, weights, adaptive, on_node, kernel=kernel, alpha=alpha, beta=beta,
                           single_iteration=single_iteration, root_pv=root_pv, solve=solve, levels=levels,
                           pattern=pattern, schedule=schedule)
    result.trace = trace
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


def main(argv=None) -> int:
    """``python -m golden.search BOARD DEPTH [BUDGET]``: one search's answer as a JSON line,
    with its node rate (CPU time) and the interpreter and kernel that ran it. ``make bench``
    runs it under CPython and PyPy."""
    import json
    import platform
    import sys
    import time

    from golden.board import parse_board

    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 3):
        print("usage: python -m golden.search BOARD DEPTH [BUDGET]", file=sys.stderr)
        return 2
    try:
        pos = parse_board(args[0])
        depth, budget = int(args[1]), int(float(args[2])) if len(args) == 3 else None
        started = time.process_time()
        result = search_events(pos, depth, budget)
    except (BoardError, ValueError) as error:
        print(f"golden.search: {error}", file=sys.stderr)
        return 2
    seconds = time.process_time() - started
    nodes = result.nodes + len(result.iterations) + (1 if result.aborted else 0)   # generated + roots
    print(json.dumps(dict(result.summary(), iterations=[list(i) for i in result.iterations], aborted=result.aborted,
                          cpu_seconds=seconds, nodes_per_second=nodes / max(seconds, 1e-9),
                          interpreter=platform.python_implementation(), kernel=DEFAULT_KERNEL)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
