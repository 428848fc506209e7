"""The processor's decisions as a Player (docs/spec.md §8), for checking rtl/processor.

``GoldenProcessor(budget, depth_limit)`` plays exactly what the processor plays:

* **book** while the openings table has a move for the game so far
  (:func:`golden.openings.book_move` of every move of both sides, in order) AND no pass has
  happened in the game (a pass by either side switches the book off for the rest of the
  game: the table knows nothing about passes);
* otherwise the **search**: :func:`golden.search.search` of the position with the same
  depth limit and cycle budget as the processor (the RTL engine's exact equivalent);
* **pass** (None) when the side to move has no legal move (the search answers a pass).

``contexts=2`` is the two-context processor (design ``processor_c2``): its search is the root
splitter of docs/root-split.md (:func:`golden.root_split.root_split`, the budget in clocks), and
``info()`` also carries the search's job list (``jobs``, each a dict of
:class:`golden.root_split.Job`) when ``keep_trace``. ``contexts=1`` is the one-context processor.

The game history is inferred from the positions the player is asked about, so that it fits
the plain Player protocol (``reset``, ``move``): the disc that appeared since the position
after its own last move is the opponent's move; no new disc means the opponent passed.

``info()`` after a move: ``source`` ('book' or 'search'), ``depth``, ``nodes``, ``cycles``,
``value`` (0 for a book move, as the processor's status outputs report).
"""

from __future__ import annotations

from typing import Optional, Sequence

from golden.board import Position, popcount, squares_of, start_position
from golden.openings import book_move
from golden.othello import play
from golden.contest.players import check_color
from golden.root_split import CONTEXTS, root_split
from golden.search import MAX_DEPTH, search, search_events

BOOK, SEARCH = "book", "search"


class GoldenProcessor:
    """The processor's player (see the module docstring)."""

    def __init__(self, budget: Optional[int], depth_limit: int = MAX_DEPTH,
                 lines: Optional[Sequence[Sequence[int]]] = None, keep_trace: bool = True, contexts: int = 1) -> None:
        if contexts not in (1, CONTEXTS):
            raise ValueError(f"contexts must be 1 or {CONTEXTS}, got {contexts!r}")
        self.contexts = contexts
        self.budget = budget
        self.depth_limit = depth_limit
        self.lines = lines
        # the node trace of the last search (a few hundred bytes a node: millions of nodes at the
        # seed's budgets of 3.2M and 32M cycles, so that games at those budgets keep none)
        self.keep_trace = keep_trace
        self.name = f"processor(budget={budget}, depth={depth_limit}{', contexts=2' if contexts == 2 else ''})"
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
            self._info = {"source": BOOK, "depth": 0, "nodes": 0, "cycles": 0, "value": 0}
        else:
            result = self.search_position(position)
            best = result.best
            self._info = {"source": SEARCH, "depth": result.depth, "nodes": result.nodes,
                          "cycles": result.cycles, "value": result.value}
            if self.contexts == CONTEXTS and self.keep_trace:
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
        contexts the root splitter's result, with its job list)."""
        self.searched.append(position)
        if self.contexts == CONTEXTS:
            self.last_search = root_split(position, self.depth_limit, self.budget, signatures=self.keep_trace,
                                          keep_jobs=self.keep_trace)
            return self.last_search
        self.last_search = (search if self.keep_trace else search_events)(position, self.depth_limit, self.budget)
        return self.last_search

    def info(self) -> dict:
        return dict(self._info)
