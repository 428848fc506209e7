"""The root splitter of the two-context processor (docs/root-split.md) and of the K-engine
processor (docs/k-engines.md), clock by clock.

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
* with K engines (:class:`RootSplitter`, ``engines``, ``contexts``) the same contract runs on
  ``K * contexts`` *workers*: clock ``k`` belongs to worker ``k mod (K * contexts)``, a chosen job
  starts in its worker's first clock at least ``DISPATCH_LATENCY`` after the choice, and a result
  is taken in its worker's first clock at or after the engine's ``done`` is visible
  (:func:`done_clock`); with K = 1 and two contexts this is the two-context contract exactly.

:func:`root_split` returns the answer (best move, value, depth, nodes, ``cycles = k_end + 1``)
and the job list, every job with its start clock, context, kind, move, child board, depth, window
as given to the engine's ports (``-256`` stands for minus infinity as alpha and for plus infinity
as beta), root PV, engine budget, and its result: clock, value, best reply, nodes, depth
reported and the signature of its node events (:class:`golden.signature.SignatureFold`).
``python -m golden.root_split BOARD DEPTH [BUDGET]`` prints one search's answer as a JSON line
(``--contexts 1``: the one-context search's, for comparisons; ``--engines K``: K engines').
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Optional

from golden.board import BoardError, Position, square_name
from golden.ordering import ordered_moves
from golden.othello import legal_moves, play
from golden.search import MAX_DEPTH, PLUS_INFINITY, Answer, check_search_request, search_events
from golden.signature import SignatureFold, rotate_fold

DONE_LATENCY = 2          # a job's done is seen DONE_LATENCY + 2 C clocks after its start (two contexts)
DISPATCH_LATENCY = 2      # a job chosen in clock k starts in its worker's first clock >= k + DISPATCH_LATENCY
CONTEXTS = 2
CONTEXT_CHOICES = (1, 2)  # contexts per engine (rtl/contexts.py)
MAX_ENGINES = 16          # the K-engine processor's engine count, 1..MAX_ENGINES (docs/k-engines.md)
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
    engine: int = 0

    @property
    def move_text(self) -> str:
        return "root" if self.move is None else square_name(self.move)

    def describe(self) -> str:
        """The job in one line: what a bench names when the hardware's job differs."""
        return (f"{self.kind} job of iteration {self.iteration}, move {self.move_text}, engine {self.engine} "
                f"context {self.context}, "
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


def done_clock(start: int, cycles: int, contexts: int) -> int:
    """The clock in which the engine's ``done`` of a job started in clock ``start`` is first
    visible: the start step and the job's ``cycles`` steps, each ``contexts`` clocks long."""
    return start + contexts * (1 + cycles)


class RootSplitter:
    """The splitter's state between clocks (the contract's registers), for ``engines`` engines of
    ``contexts`` contexts each: ``engines * contexts`` *workers*, worker ``w`` being context
    ``w mod contexts`` of engine ``w // contexts``; clock ``k`` belongs to worker
    ``k mod workers`` (with two contexts a context's clocks are its stage-1 clocks, as one
    engine's ``turn`` alternates)."""

    def __init__(self, pos, depth_limit, budget, signatures, keep_jobs, engines=1, contexts=CONTEXTS):
        self.pos, self.depth_limit, self.budget = pos, depth_limit, budget
        self.signatures, self.keep_jobs = signatures, keep_jobs
        self.engines, self.contexts = engines, contexts
        self.workers = engines * contexts
        self.root_moves = legal_moves(pos.own, pos.opp)
        self.running = [None] * self.workers
        self.chosen = [None] * self.workers     # (kind, move, clock) chosen, starting DISPATCH_LATENCY on
        self.replies = {}                 # root move -> best reply of its latest completed job
        self.nodes = 0
        self.signature = 0
        self.jobs = []
        self.deepest = (0, None, 0)       # depth, best, value of the deepest completed iteration
        self.iterations = []
        self.begin(1, None)

    def slot(self, worker, clock):
        """The worker's first clock at or after ``clock``."""
        return clock + (worker - clock) % self.workers

    def begin(self, depth, previous_best):
        self.depth = depth
        self.first_started = self.first_taken = self.abandoned = False
        self.order = ordered_moves(self.root_moves, previous_best) if depth > 1 else []
        self.next_index = 1               # the next move of the order after m0
        self.queue = deque()              # moves waiting for a re-search, oldest first
        self.alpha, self.best = None, None

    def available(self):
        """The job a free worker would start: (kind, move), or None."""
        if not self.first_started:
            return (ROOT, None) if self.depth == 1 else (PV, self.order[0])
        if self.queue:
            return RESEARCH, self.queue[0]
        if self.first_taken and self.next_index < len(self.order):
            return NULL, self.order[self.next_index]
        return None

    def idle(self):
        """No job running or chosen on any worker."""
        return not any(self.running) and not any(self.chosen)

    def complete(self):
        return (self.first_taken and not self.queue and self.next_index >= len(self.order)
                and self.idle())

    def choose(self, kind, move, clock, worker):
        """The job is handed to the worker: its move leaves the order or the queue now."""
        if kind in (ROOT, PV):
            self.first_started = True
        elif kind == NULL:
            self.next_index += 1
        else:
            self.queue.popleft()
        self.chosen[worker] = (kind, move, clock)

    def start(self, kind, move, chosen, clock, worker):
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
        budget = None if self.budget is None else max(0, self.budget - clock) // self.contexts
        job = Job(self.depth, kind, move, position.text(), max(1, self.depth - 1), *window,
                  self.replies.get(move) if kind != ROOT else None, budget, clock, worker % self.contexts,
                  self.alpha, chosen, engine=worker // self.contexts)
        run_job(job, position, self.signatures)
        job.done = self.slot(worker, done_clock(clock, job.cycles, self.contexts))
        self.running[worker] = job
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
        worker = k % self.workers
        job = self.running[worker]
        if job is not None:
            if job.done == k:
                self.running[worker] = None
                self.take(job)
        elif self.chosen[worker] is not None:
            kind, move, chosen = self.chosen[worker]
            if k >= chosen + DISPATCH_LATENCY:
                self.chosen[worker] = None
                if not self.abandoned:        # a job chosen before the iteration was abandoned is dropped
                    self.start(kind, move, chosen, k, worker)
        elif not self.abandoned:
            wanted = self.available()
            if wanted is not None:
                starts = self.slot(worker, k + DISPATCH_LATENCY)
                if self.depth >= 2 and self.budget is not None and starts >= self.budget:
                    self.abandoned = True
                else:
                    self.choose(*wanted, k, worker)
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
        """The next clock in which something can happen: a result, a start, or a free worker's
        choice."""
        candidates = []
        for worker, job in enumerate(self.running):
            if job is not None:
                candidates.append(job.done)
            elif self.chosen[worker] is not None:
                candidates.append(self.slot(worker, self.chosen[worker][2] + DISPATCH_LATENCY))
            elif not self.abandoned and self.available() is not None:
                candidates.append(self.slot(worker, k + 1))
        if not candidates:
            raise AssertionError(f"root splitter stuck in clock {k}: no job running and none to start")
        return min(candidates)


def root_split(pos: Position, depth_limit: int, budget: Optional[int] = None, signatures: bool = True,
               keep_jobs: bool = True, engines: int = 1, contexts: int = CONTEXTS) -> SplitResult:
    """The two-context processor's search of ``pos`` (docs/root-split.md): depth limit 1..16,
    ``budget`` in clocks (None: unlimited). ``signatures``: fold every job's node events (the
    bench's check; off, the jobs' signatures are 0 and the search runs faster); ``keep_jobs``:
    keep the job list in the result. ``engines`` engines of ``contexts`` contexts each: the
    K-engine processor's search (docs/k-engines.md) with ``engines=K, contexts=1``; the default is
    the two-context processor's."""
    if not isinstance(engines, int) or not 1 <= engines <= MAX_ENGINES:
        raise BoardError(f"engines must be 1..{MAX_ENGINES}, got {engines!r}")
    if contexts not in CONTEXT_CHOICES:
        raise BoardError(f"contexts must be one of {CONTEXT_CHOICES}, got {contexts!r}")
    check_search_request(pos, depth_limit, budget, "the root splitter", "clocks")
    if not legal_moves(pos.own, pos.opp):        # a pass or a finished game: answered in clock 0
        return SplitResult(None, 0, 0, 0, 1)
    splitter = RootSplitter(pos, depth_limit, budget, signatures, keep_jobs, engines, contexts)
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
    """``python -m golden.root_split BOARD DEPTH [BUDGET] [--contexts 1|2] [--engines K]``: one
    search's answer as a JSON line, with its completed iterations (depth, best, value, clock, nodes
    so far), job count and CPU time. Alone, ``--contexts 1`` is the one-context processor's search
    and 2 (the default) the two-context processor's root split; with ``--engines K`` the root split
    on K engines of that many contexts each (default 1: the K-engine processor, docs/k-engines.md).
    The bench runs these under PyPy."""
    import json
    import platform
    import sys
    import time

    from golden.board import parse_board

    usage = "usage: python -m golden.root_split BOARD DEPTH [BUDGET] [--contexts 1|2] [--engines K]"
    args = list(sys.argv[1:] if argv is None else argv)
    options = {}
    while len(args) >= 2 and args[-2] in ("--contexts", "--engines"):
        options[args[-2]], args = args[-1], args[:-2]
    try:
        contexts = int(options.get("--contexts", 1 if "--engines" in options else CONTEXTS))
        engines = int(options["--engines"]) if "--engines" in options else None
    except ValueError:
        print(usage, file=sys.stderr)
        return 2
    if len(args) not in (2, 3) or contexts not in CONTEXT_CHOICES:
        print(usage, file=sys.stderr)
        return 2
    try:
        pos = parse_board(args[0])
        depth, budget = int(args[1]), int(float(args[2])) if len(args) == 3 else None
        started = time.process_time()
        if engines is not None:
            result = root_split(pos, depth, budget, signatures=False, engines=engines, contexts=contexts)
        elif contexts == CONTEXTS:
            result = root_split(pos, depth, budget, signatures=False)
        else:
            result = one_context_search(pos, depth, budget)
    except (BoardError, ValueError) as error:
        print(f"golden.root_split: {error}", file=sys.stderr)
        return 2
    print(json.dumps(dict(result.summary(), contexts=contexts, engines=engines or 1,
                          iterations=[list(i) for i in result.iterations],
                          jobs=len(result.jobs), aborted=result.aborted,
                          cpu_seconds=time.process_time() - started,
                          interpreter=platform.python_implementation())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
