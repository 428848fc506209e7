"""The root splitter of the two-context processor (docs/root-split.md), clock by clock.

The processor built with two contexts keeps iterative deepening at the root and hands the root's
moves to the two contexts of the engine as single-iteration subtree searches (*jobs*), each with
the root window as it stands when the job starts: the first move (the previous iteration's best)
alone with the full window, the others with a null window on alpha, a move that fails high
searched again. This module is the contract's golden twin:

* each job is :func:`golden.search.search_events` in single-iteration mode (the engine's own
  golden twin), so its value, best reply, node count, cycles ``C`` and node events are exact;
* the splitter's clocks are an event simulation of the contract's clock loop: clock ``k`` belongs
  to context ``k mod 2``; a job chosen in clock ``k`` starts in clock ``k + DISPATCH_LATENCY``,
  and a job started in clock ``s`` has its result taken in clock ``s + DONE_LATENCY + 2 C``;
  nothing changes between those clocks, so the simulation jumps from one clock where something
  can happen to the next, and applies in each the steps of the contract (result, start, choice,
  end of iteration) in order.

:func:`root_split` returns the answer (best move, value, depth, nodes, ``cycles = k_end + 1``)
and the job list, every job with its start clock, context, kind, move, child board, depth, window
as given to the engine's ports (``-256`` stands for minus infinity as alpha and for plus infinity
as beta), root PV, engine budget, and its result: clock, value, best reply, nodes, depth
reported and the signature of its node events (:class:`golden.signature.SignatureFold`).
``python -m golden.root_split BOARD DEPTH [BUDGET]`` prints one search's answer as a JSON line
(``--contexts 1``: the one-context search's, for comparisons).
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Optional

from golden.board import BoardError, Position, square_name
from golden.ordering import ordered_moves
from golden.othello import legal_moves, play
from golden.search import MAX_DEPTH, PLUS_INFINITY, Answer, search_events
from golden.signature import SignatureFold, rotate_fold

DONE_LATENCY = 2          # a job's done is seen DONE_LATENCY + 2 C clocks after its start
DISPATCH_LATENCY = 2      # a job chosen in clock k starts in clock k + DISPATCH_LATENCY
CONTEXTS = 2
INFINITY_CODE = -256      # the window ports' code for minus infinity (alpha) and plus infinity (beta)
ROOT, PV, NULL, RESEARCH = "ROOT", "PV", "NULL", "RESEARCH"
KIND_CODES = {ROOT: 0, PV: 1, NULL: 2, RESEARCH: 3}   # the job port's job_kind


@dataclass
class Job:
    """One subtree search handed to a context. ``move`` is the root move (None for ``ROOT``);
    ``board`` the searched board's text (the child, or the root for ``ROOT``); ``alpha``/``beta``
    the window on the engine's ports; ``root_pv`` the PV given to the engine (None: not valid);
    ``budget`` the engine's budget (None: unlimited); ``root_alpha`` the root's alpha when the job
    started (None before the first job's result); ``chosen`` the clock it was chosen in,
    ``start`` the clock it started in. The result: ``done`` the clock it is taken,
    ``cycles`` the engine's C, ``depth_reported`` (0: the engine ran out of budget)."""

    iteration: int
    kind: str
    move: Optional[int]
    board: str
    depth: int
    alpha: int
    beta: int
    root_pv: Optional[int]
    budget: Optional[int]
    start: int
    context: int
    root_alpha: Optional[int]
    chosen: int = 0
    done: int = 0
    cycles: int = 0
    value: int = 0
    best: Optional[int] = None
    nodes: int = 0
    depth_reported: int = 0
    signature: int = 0

    @property
    def move_text(self) -> str:
        return "root" if self.move is None else square_name(self.move)

    def describe(self) -> str:
        """The job in one line: what a bench names when the hardware's job differs."""
        return (f"{self.kind} job of iteration {self.iteration}, move {self.move_text}, context {self.context}, "
                f"clocks {self.start}..{self.done}: board {self.board} depth {self.depth} window "
                f"({self.alpha}, {self.beta}) root_pv "
                f"{'none' if self.root_pv is None else square_name(self.root_pv)}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SplitResult(Answer):
    """The answer of :func:`root_split` (``best`` None: a pass). ``iterations``: per completed
    iteration (depth, best, value, clock it completed in, nodes so far); ``signature`` the job
    signatures folded in the order their results were taken (the processor's trace signature)."""

    best: Optional[int]
    value: int
    depth: int
    nodes: int
    cycles: int
    jobs: list = field(default_factory=list)
    iterations: list = field(default_factory=list)
    signature: int = 0
    aborted: bool = False


def engine_window(alpha: int, beta: int) -> tuple:
    """The golden search's window of a job whose ports carry ``alpha``, ``beta`` (-256 coded)."""
    return alpha, PLUS_INFINITY if beta == INFINITY_CODE else beta


def run_job(job: Job, position: Position, signatures: bool = True) -> Job:
    """The job's search on the engine in single-iteration mode (its golden twin): fills in the
    result fields except ``done``."""
    alpha, beta = engine_window(job.alpha, job.beta)
    fold = SignatureFold() if signatures else None
    result = search_events(position, job.depth, job.budget, on_node=fold.on_node if fold else None,
                           alpha=alpha, beta=beta, single_iteration=True, root_pv=job.root_pv)
    job.cycles, job.value, job.best, job.nodes = result.cycles, result.value, result.best, result.nodes
    job.depth_reported = result.depth
    job.signature = fold.signature if fold else 0
    return job


class _Splitter:
    """The splitter's state between clocks (the contract's registers)."""

    def __init__(self, pos, depth_limit, budget, signatures, keep_jobs):
        self.pos, self.depth_limit, self.budget = pos, depth_limit, budget
        self.signatures, self.keep_jobs = signatures, keep_jobs
        self.root_moves = legal_moves(pos.own, pos.opp)
        self.running = [None] * CONTEXTS
        self.chosen = [None] * CONTEXTS     # (kind, move, clock) chosen, starting two clocks on
        self.replies = {}                 # root move -> best reply of its latest completed job
        self.nodes = 0
        self.signature = 0
        self.jobs = []
        self.deepest = (0, None, 0)       # depth, best, value of the deepest completed iteration
        self.iterations = []
        self.begin(1, None)

    def begin(self, depth, previous_best):
        self.depth = depth
        self.first_started = self.first_taken = self.abandoned = False
        self.order = ordered_moves(self.root_moves, previous_best) if depth > 1 else []
        self.next_index = 1               # the next move of the order after m0
        self.queue = deque()              # moves waiting for a re-search, oldest first
        self.alpha, self.best = None, None

    def available(self):
        """The job a free context would start: (kind, move), or None."""
        if not self.first_started:
            return (ROOT, None) if self.depth == 1 else (PV, self.order[0])
        if self.queue:
            return RESEARCH, self.queue[0]
        if self.first_taken and self.next_index < len(self.order):
            return NULL, self.order[self.next_index]
        return None

    def idle(self):
        """No job running or chosen on either context."""
        return self.running == [None] * CONTEXTS and self.chosen == [None] * CONTEXTS

    def complete(self):
        return (self.first_taken and not self.queue and self.next_index >= len(self.order)
                and self.idle())

    def choose(self, kind, move, clock, context):
        """The job is handed to the context: its move leaves the order or the queue now."""
        if kind in (ROOT, PV):
            self.first_started = True
        elif kind == NULL:
            self.next_index += 1
        else:
            self.queue.popleft()
        self.chosen[context] = (kind, move, clock)

    def start(self, kind, move, chosen, clock, context):
        """The chosen job starts, with the window of the root's alpha as it is now."""
        if kind == ROOT:
            position, window = self.pos, (INFINITY_CODE, INFINITY_CODE)
        else:
            position = play(self.pos, move)
            if kind == PV:
                window = (INFINITY_CODE, INFINITY_CODE)
            elif kind == NULL:
                window = (-self.alpha - 1, -self.alpha)
            else:
                window = (INFINITY_CODE, -self.alpha)
        budget = None if self.budget is None else max(0, self.budget - clock) >> 1
        job = Job(self.depth, kind, move, position.text(), max(1, self.depth - 1), *window,
                  self.replies.get(move) if kind != ROOT else None, budget, clock, context, self.alpha,
                  chosen)
        run_job(job, position, self.signatures)
        job.done = clock + DONE_LATENCY + 2 * job.cycles
        self.running[context] = job
        if self.keep_jobs:
            self.jobs.append(job)

    def take(self, job):
        self.nodes += job.nodes + (0 if job.kind == ROOT else 1)
        self.signature = rotate_fold(self.signature, job.signature)
        if job.depth_reported < job.depth:
            self.abandoned = True
            return
        value = -job.value
        if job.kind == ROOT:
            self.best, self.alpha = job.best, job.value
            self.first_taken = True
            return
        self.replies[job.move] = job.best
        if job.kind == PV:
            self.alpha, self.best, self.first_taken = value, job.move, True
        elif job.kind == NULL:
            if value > job.root_alpha:
                self.queue.append(job.move)
        elif value > self.alpha:
            self.alpha, self.best = value, job.move

    def clock(self, k):
        """The contract's steps in clock ``k``; True when the search ends in it."""
        context = k % CONTEXTS
        job = self.running[context]
        if job is not None:
            if job.done == k:
                self.running[context] = None
                self.take(job)
        elif self.chosen[context] is not None:
            kind, move, chosen = self.chosen[context]
            self.chosen[context] = None
            if not self.abandoned:            # a job chosen before the iteration was abandoned is dropped
                self.start(kind, move, chosen, k, context)
        elif not self.abandoned:
            wanted = self.available()
            if wanted is not None:
                if self.depth >= 2 and self.budget is not None and k + DISPATCH_LATENCY >= self.budget:
                    self.abandoned = True
                else:
                    self.choose(*wanted, k, context)
        if not self.idle():
            return False
        if self.abandoned:
            return True
        if self.complete():
            self.deepest = (self.depth, self.best, self.alpha)
            self.iterations.append((self.depth, self.best, self.alpha, k, self.nodes))
            if self.depth == self.depth_limit:
                return True
            self.begin(self.depth + 1, self.best)
        return False

    def next_clock(self, k):
        """The next clock in which something can happen: a result, a start, or a free context's
        choice."""
        candidates = []
        for context, job in enumerate(self.running):
            if job is not None:
                candidates.append(job.done)
            elif self.chosen[context] is not None:
                candidates.append(self.chosen[context][2] + DISPATCH_LATENCY)
            elif not self.abandoned and self.available() is not None:
                candidates.append(k + 1 + (context - k - 1) % CONTEXTS)
        if not candidates:
            raise AssertionError(f"root splitter stuck in clock {k}: no job running and none to start")
        return min(candidates)


def root_split(pos: Position, depth_limit: int, budget: Optional[int] = None, signatures: bool = True,
               keep_jobs: bool = True) -> SplitResult:
    """The two-context processor's search of ``pos`` (docs/root-split.md): depth limit 1..16,
    ``budget`` in clocks (None: unlimited). ``signatures``: fold every job's node events (the
    bench's check; off, the jobs' signatures are 0 and the search runs faster); ``keep_jobs``:
    keep the job list in the result."""
    if not isinstance(pos, Position) or pos.size != 8:
        raise BoardError("the root splitter is defined for the 8x8 board")
    if not isinstance(depth_limit, int) or not 1 <= depth_limit <= MAX_DEPTH:
        raise BoardError(f"depth limit must be 1..{MAX_DEPTH}, got {depth_limit!r}")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        raise BoardError(f"budget must be a number of clocks >= 0, got {budget!r}")
    if not legal_moves(pos.own, pos.opp):        # a pass or a finished game: answered in clock 0
        return SplitResult(None, 0, 0, 0, 1)
    splitter = _Splitter(pos, depth_limit, budget, signatures, keep_jobs)
    k = 0
    while not splitter.clock(k):
        k = splitter.next_clock(k)
    depth, best, value = splitter.deepest
    return SplitResult(best, value, depth, splitter.nodes, k + 1, splitter.jobs, splitter.iterations,
                       splitter.signature, aborted=splitter.abandoned)


def one_context_search(pos: Position, depth_limit: int, budget: Optional[int] = None) -> SplitResult:
    """The one-context processor's search (:func:`golden.search.search_events`) in the shape of
    :func:`root_split`'s answer, its ``iterations`` with the nodes generated so far (nodes of ply
    > 0 reported: every generated node is), so that the two are compared iteration by iteration."""
    generated = [0]
    iterations = []

    def on_node(iteration, ply, *rest):
        if ply:
            generated[0] += 1

    def on_iteration(depth, best, value, end):
        iterations.append((depth, best, value, end, generated[0]))

    result = search_events(pos, depth_limit, budget, on_node=on_node, on_iteration=on_iteration)
    return SplitResult(result.best, result.value, result.depth, result.nodes, result.cycles, [], iterations,
                       aborted=result.aborted)


def main(argv=None) -> int:
    """``python -m golden.root_split BOARD DEPTH [BUDGET] [--contexts 1]``: one search's answer as a
    JSON line, with its completed iterations (depth, best, value, clock, nodes so far), job count
    and CPU time; ``--contexts 1``: the one-context search instead (the bench runs both under PyPy)."""
    import json
    import platform
    import sys
    import time

    from golden.board import parse_board

    args = list(sys.argv[1:] if argv is None else argv)
    contexts = CONTEXTS
    if args[-2:-1] == ["--contexts"] and args[-1] in ("1", "2"):
        contexts, args = int(args[-1]), args[:-2]
    if len(args) not in (2, 3):
        print("usage: python -m golden.root_split BOARD DEPTH [BUDGET] [--contexts 1|2]", file=sys.stderr)
        return 2
    try:
        pos = parse_board(args[0])
        depth, budget = int(args[1]), int(float(args[2])) if len(args) == 3 else None
        started = time.process_time()
        result = (root_split(pos, depth, budget, signatures=False) if contexts == CONTEXTS
                  else one_context_search(pos, depth, budget))
    except (BoardError, ValueError) as error:
        print(f"golden.root_split: {error}", file=sys.stderr)
        return 2
    print(json.dumps(dict(result.summary(), contexts=contexts, iterations=[list(i) for i in result.iterations],
                          jobs=len(result.jobs), aborted=result.aborted,
                          cpu_seconds=time.process_time() - started,
                          interpreter=platform.python_implementation())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
