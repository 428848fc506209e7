"""The processor's decisions as a Player (docs/spec.md §8), for checking rtl/processor.

``GoldenProcessor(budget, depth_limit)`` plays exactly what the processor plays:

* **book** while the openings table has a move for the game so far
  (:func:`golden.openings.book_move` of every move of both sides, in order) AND no pass has
  happened in the game (a pass by either side switches the book off for the rest of the
  game: the table knows nothing about passes);
* otherwise the **search**: :func:`golden.search.search` of the position with the same
  depth limit and cycle budget as the processor (the RTL engine's exact equivalent);
* **pass** (None) when the side to move has no legal move (the search answers a pass).

**Endgame solve** (``solve_empties`` E, the processor's conversion parameter; one context): at a
search of a position with E empty squares or fewer the move's budget B is shared by up to three
runs of the engine's golden twin, one after the other (rtl/processor.py, docs/solve.md): the WLD
solve (``solve="plain"``, window (-1, 1)) with budget B; when it completes, the exact solve (full
window) with B minus the WLD's cycles, whose move is played, or the WLD's move when the exact solve
is abandoned; when the WLD solve is abandoned (budget, or the board stack's deepest level), the
midgame search with what is left. Both solves run on the solving engine's 32-level board stack.
``info()`` then says which answer was played (``solved``: None, ``wld`` or ``exact``); ``depth``
and ``value`` are the played run's, ``nodes`` and ``cycles`` the sums over the move's runs.
``solve_empties`` is 0 (no solve) unless given: the converted designs' E is a conversion parameter
of the RTL (rtl/processor_settings.py PROCESSOR_SOLVE_EMPTIES), which a caller pairing this model with them
passes; the two-context processor does not solve.

``contexts=2`` is the two-context processor (design ``processor_c2``): its search is the root
splitter of docs/root-split.md (:func:`golden.root_split.root_split`, the budget in clocks), and
``info()`` also carries the search's job list (``jobs``, each a dict of
:class:`golden.root_split.Job`) when ``keep_trace``. ``contexts=1`` is the one-context processor.
``engines=K`` (K > 1, one context each) is the K-engine processor (docs/k-engines.md): its search
is the same splitter on K engines (``root_split(..., engines=K, contexts=1)``), its job list in
``info()`` as with two contexts; book, passes and the referee protocol are the processor's.

The game history is inferred from the positions the player is asked about, so that it fits
the plain Player protocol (``reset``, ``move``): the disc that appeared since the position
after its own last move is the opponent's move; no new disc means the opponent passed.

``info()`` after a move: ``source`` ('book' or 'search'), ``depth``, ``nodes``, ``cycles``,
``value`` (0 for a book move, as the processor's status outputs report), ``solved``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from golden.board import Position, popcount, square_name, squares_of, start_position
from golden.openings import book_move
from golden.othello import play
from golden.contest.players import check_color
from golden.root_split import CONTEXTS, MAX_ENGINES, root_split
from golden.patterns import PatternWeights
from golden.search import MAX_DEPTH, MINUS_INFINITY, PLUS_INFINITY, SOLVE_LEVELS, search, search_events

BOOK, SEARCH = "book", "search"
# info()["solved"]: the answer played came from a completed WLD or exact solve
WLD, EXACT = "wld", "exact"
# The window of the WLD solve: its fail-hard value is -1, 0 or 1.
WLD_WINDOW = (-1, 1)


def empty_squares(position: Position) -> int:
    return position.size * position.size - popcount(position.black | position.white)


@dataclass
class MoveSearch:
    """A move's searches (one, or with the endgame solve up to three runs): the answer played
    (``best``, None a pass; ``value``, ``depth`` of the run that gave it), ``solved`` (None, WLD or
    EXACT), ``nodes`` and ``cycles`` summed over ``runs`` (the engine's results, in order)."""

    best: Optional[int]
    value: int
    depth: int
    nodes: int
    cycles: int
    solved: Optional[str] = None
    runs: list = field(default_factory=list)

    @property
    def aborted(self) -> bool:
        return self.runs[-1].aborted

    @property
    def best_text(self) -> str:
        return "pass" if self.best is None else square_name(self.best)

    @property
    def trace(self) -> list:
        return [node for result in self.runs for node in result.trace]


class GoldenProcessor:
    """The processor's player (see the module docstring)."""

    def __init__(self, budget: Optional[int], depth_limit: int = MAX_DEPTH,
                 lines: Optional[Sequence[Sequence[int]]] = None, keep_trace: bool = True, contexts: int = 1,
                 solve_empties: int = 0, engines: int = 1, pattern: Optional[PatternWeights] = None) -> None:
        """``pattern``: the pattern evaluator's weights (the processor built with
        ``evaluator="pattern"``: its midgame searches are golden.search's with ``pattern``), or
        None for the seed's evaluator; one context and one engine only."""
        if contexts not in (1, CONTEXTS):
            raise ValueError(f"contexts must be 1 or {CONTEXTS}, got {contexts!r}")
        if not isinstance(engines, int) or not 1 <= engines <= MAX_ENGINES:
            raise ValueError(f"engines must be 1..{MAX_ENGINES}, got {engines!r}")
        if engines > 1 and (contexts != 1 or solve_empties):
            raise ValueError("the K-engine processor (engines > 1) has one context an engine and no endgame solve")
        if not isinstance(solve_empties, int) or not 0 <= solve_empties < SOLVE_LEVELS:
            raise ValueError(f"solve_empties must be 0..{SOLVE_LEVELS - 1}, got {solve_empties!r}")
        if solve_empties and contexts != 1:
            raise ValueError("the endgame solve (solve_empties > 0) is built for one context")
        if pattern is not None and (contexts != 1 or engines != 1):
            raise ValueError("the pattern evaluator is built for one context of one engine")
        self.contexts = contexts
        self.engines = engines
        self.pattern = pattern
        self.solve_empties = solve_empties
        self.budget = budget
        self.depth_limit = depth_limit
        self.lines = lines
        # the node trace of the last search (a few hundred bytes a node: millions of nodes at the
        # seed's budgets of 3.2M and 32M cycles, so that games at those budgets keep none)
        self.keep_trace = keep_trace
        self.on_node = None
        self.name = (f"processor(budget={budget}, depth={depth_limit}{', contexts=2' if contexts == 2 else ''}"
                     f"{f', engines={engines}' if engines > 1 else ''}"
                     f"{f', solve at {solve_empties} empties' if solve_empties else ''}"
                     f"{', pattern evaluator' if pattern is not None else ''})")
        self.reset("X")

    def reset(self, color: str) -> None:
        self.color = check_color(color)
        self.history: list[int] = []
        self.passed = False
        self._after: Optional[Position] = None   # the position after our last answer
        self._info: dict = {}
        self.last_search = None
        self.searched: list[Position] = []   # every position this game's searches started from

    def _observe(self, position: Position) -> None:
        """Add the opponent's move (or pass) that led to ``position``."""
        previous = self._after if self._after is not None else start_position(position.size)
        before = previous.black | previous.white
        new = (position.black | position.white) & ~before
        if popcount(new) == 1:
            self.history.append(squares_of(new)[0])
        elif new == 0 and self._after is not None:
            self.passed = True   # the opponent passed
        elif new:
            raise ValueError(f"{popcount(new)} new discs since the last move: not a game in sequence")

    def book(self) -> Optional[int]:
        """The book move of the game so far, None when out of book or after a pass."""
        if self.passed:
            return None
        return book_move(self.history, self.lines)

    def move(self, position: Position) -> Optional[int]:
        self._observe(position)
        best = self.book()
        if best is not None:
            self._info = {"source": BOOK, "depth": 0, "nodes": 0, "cycles": 0, "value": 0, "solved": None}
        else:
            result = self.search_position(position)
            best = result.best
            self._info = {"source": SEARCH, "depth": result.depth, "nodes": result.nodes,
                          "cycles": result.cycles, "value": result.value,
                          "solved": getattr(result, "solved", None)}
            if (self.contexts == CONTEXTS or self.engines > 1) and self.keep_trace:
                self._info["jobs"] = [job.to_dict() for job in result.jobs]
        if best is None:
            self.passed = True
            self._after = position.swap_side()
        else:
            self.history.append(best)
            self._after = play(position, best)
        return best

    def search_position(self, position: Position):
        """The search the processor runs (kept as ``last_search``, with its node trace; with two
        contexts the root splitter's result, with its job list; at ``solve_empties`` empties or
        fewer the move's runs, a MoveSearch)."""
        self.searched.append(position)
        if self.engines > 1:
            self.last_search = root_split(position, self.depth_limit, self.budget, signatures=self.keep_trace,
                                          keep_jobs=self.keep_trace, engines=self.engines, contexts=1)
            return self.last_search
        if self.contexts == CONTEXTS:
            self.last_search = root_split(position, self.depth_limit, self.budget, signatures=self.keep_trace,
                                          keep_jobs=self.keep_trace)
            return self.last_search
        if self.solve_empties and empty_squares(position) <= self.solve_empties:
            self.last_search = self.solve_position(position)
            return self.last_search
        self.last_search = self.engine_run(position, self.budget)
        return self.last_search

    def engine_run(self, position: Position, budget: Optional[int], solve: Optional[str] = None,
                   window: tuple = (MINUS_INFINITY, PLUS_INFINITY)):
        """One run of the engine's golden twin from ``position``: the midgame search, or with
        ``solve`` the solve mode on the solving engine's board stack. Without a kept trace the
        nodes go to ``on_node`` (golden.search.search_events), when set."""
        mode = dict(pattern=self.pattern) if solve is None else dict(alpha=window[0], beta=window[1], solve=solve,
                                                                     levels=SOLVE_LEVELS)
        if self.keep_trace:
            return search(position, self.depth_limit, budget, **mode)
        return search_events(position, self.depth_limit, budget, on_node=self.on_node, **mode)

    def solve_position(self, position: Position) -> MoveSearch:
        """The move's runs at ``solve_empties`` empties or fewer (module docstring)."""
        def left(spent):
            return None if self.budget is None else self.budget - spent

        wld = self.engine_run(position, self.budget, "plain", WLD_WINDOW)
        runs = [wld]
        if wld.aborted:
            midgame = self.engine_run(position, left(wld.cycles))
            runs.append(midgame)
            answer, solved = midgame, None
        else:
            exact = self.engine_run(position, left(wld.cycles), "plain")
            runs.append(exact)
            answer, solved = (wld, WLD) if exact.aborted else (exact, EXACT)
        return MoveSearch(answer.best, answer.value, answer.depth, sum(run.nodes for run in runs),
                          sum(run.cycles for run in runs), solved, runs)

    def info(self) -> dict:
        return dict(self._info)
