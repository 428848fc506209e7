"""Young Brothers Wait on K engines of C contexts, clock by clock (docs/k-engines.md, "Young
Brothers Wait on the chip").

The K-engine processor's second scheduler: where the root split (golden/root_split.py) searches
the root's first move alone, this one splits that first move too. The top ``H`` plies of each
iteration are *split points*, nodes the scheduler keeps in a table; the nodes at ply ``H`` (and a
child below a split point that has no move of its own: a pass or a finished game) are *jobs*,
single-iteration searches on an engine context (*worker*), each the engine's golden twin
(:func:`golden.search.search_events`), exactly as the root split's jobs are.

At a split point with window (alpha0, beta), alpha live:

* the **eldest brother** (the first move of the split point's order) is searched first, alone
  under that split point, with the window (alpha, beta) as it stands;
* once it has returned, the **younger brothers** are dealt one at a time to free workers, each
  with a null window on the split point's alpha as it is when the job starts (the bound
  broadcast: one alpha per split point, updated at each result); a younger brother that fails
  high is searched again with (alpha, beta) as it then stands (``RESEARCH``, the oldest queued
  first);
* a child at ply < ``H`` with a move of its own is not a job but a new split point, opened by the
  worker that chose it with the window its parent gives it then (negated), and that worker goes
  on to choose the new split point's eldest brother;
* a result >= beta **closes the window**: the split point answers beta (fail-hard) at once, and
  every job and split point still running, chosen or open below it is abandoned in that clock
  (its worker free, the nodes its engine generated up to that clock counted);
* a split point whose moves have all been searched answers its alpha to its parent, in the same
  clock (the completion runs up the chain of split points, at most ``H`` levels).

Clocks, as the root split's contract (docs/k-engines.md): clock ``k`` serves worker
``k mod W`` (W = K x C; worker ``w`` is context ``w mod C`` of engine ``w // C``), and applies to
it the first of: take its result (the engine's ``done`` visible, :func:`golden.root_split.done_clock`);
start its chosen job, with its split point's alpha as it is now; open the split point it chose,
that is choose that split point's eldest brother (the split point is ready ``DISPATCH_LATENCY``
clocks after it was chosen: its board flipped, its legal moves computed); choose its next job.
A free worker chooses the younger brother or re-search of the shallowest split point that has one
(the lowest table slot among split points of that ply). A chosen job starts in the worker's first
clock at least ``DISPATCH_LATENCY`` after the choice.

Iterative deepening at the root as the root split: iteration 1 is one job on the root; iteration
``d`` >= 2 has ``min(H, max(1, d - min_job_depth))`` split plies; the next iteration starts when
the root has its value and every worker is idle. Order at a split point: the root's previous best
first at the root; at ply 1 the best reply its move's latest search found (the root split's
``replies``, one 6-bit word per root move); below, the previous iteration's principal variation
when the split point lies on it; then the static order (golden.ordering). A job's engine PV
(``root_pv``) follows the same rule. Budget as the root split: each job's engine budget is what
is left of the move's budget when it starts (halved with two contexts); no job of iteration >= 2
starts at or after the budget; a job that runs out abandons the iteration.

With ``split_plies=1`` this is the root split (the same jobs in the same clocks; the tests check
it). :func:`ybwc_search` returns the answer (best, value, depth, nodes, ``cycles = k_end + 1``),
the completed iterations, the job list (:class:`YbwcJob`, every job with its worker, split point,
path, window, clocks and result; an abandoned job with the clock it was abandoned in and the
nodes counted) and the table's peak occupancy per ply.
``python -m golden.ybwc BOARD DEPTH [BUDGET] [--engines K] [--contexts C] [--split-plies H]``
prints one search's answer as a JSON line.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Optional

from golden.board import BoardError, Position, square_name
from golden.ordering import ordered_moves
from golden.othello import legal_moves, play
from golden.root_split import CONTEXT_CHOICES, DISPATCH_LATENCY, MAX_ENGINES, done_clock
from golden.search import MAX_DEPTH, MINUS_INFINITY, PLUS_INFINITY, Answer, check_search_request, search_events
from golden.signature import SignatureFold, rotate_fold

ROOT, ELDEST, NULL, RESEARCH = "ROOT", "ELDEST", "NULL", "RESEARCH"
SPLIT_PLIES = 4          # the default H: split points at plies 0..H-1
SHALLOWEST, DEEPEST = "shallowest", "deepest"
PRIORITIES = (SHALLOWEST, DEEPEST)
PRIORITY = SHALLOWEST    # which split point's younger brothers a free worker takes first
MIN_JOB_DEPTH = 2        # the default: an iteration d has min(H, max(1, d - MIN_JOB_DEPTH)) split plies


@dataclass
class YbwcJob:
    """One job: ``path`` the moves from the root to its board (``board``, searched to ``depth``
    with the engine window ``alpha``..``beta``, -256 and 256 the infinities, ``root_pv`` the
    engine's PV move or None); ``kind`` ROOT, ELDEST, NULL or RESEARCH (as a child of its split
    point, ``slot`` = (ply, index) of the split point in the table); ``worker`` = engine x C +
    context; ``chosen``/``start``/``done`` clocks; ``abandoned`` the clock it was abandoned in
    (None: its result was taken); result: ``value``, ``best``, ``nodes`` (up to the abandon when
    abandoned), ``cycles`` (the engine's), ``depth_reported``, ``signature``."""

    iteration: int
    kind: str
    path: tuple
    board: str
    depth: int
    alpha: int
    beta: int
    root_pv: Optional[int]
    budget: Optional[int]
    slot: tuple
    worker: int
    engine: int
    context: int
    chosen: int
    start: int
    done: int = 0
    abandoned: Optional[int] = None
    cycles: int = 0
    value: int = 0
    best: Optional[int] = None
    nodes: int = 0
    depth_reported: int = 0
    signature: int = 0

    def describe(self) -> str:
        path = " ".join("pass" if m is None else square_name(m) for m in self.path) or "root"
        end = f"abandoned in clock {self.abandoned}" if self.abandoned is not None else f"done in clock {self.done}"
        return (f"{self.kind} job of iteration {self.iteration} at {path} (split point {self.slot}), engine "
                f"{self.engine} context {self.context}, chosen in clock {self.chosen}, started {self.start}, {end}: "
                f"board {self.board} depth {self.depth} window ({self.alpha}, {self.beta}) root_pv "
                f"{'none' if self.root_pv is None else square_name(self.root_pv)}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class YbwcResult(Answer):
    """The answer of :func:`ybwc_search` (``best`` None: a pass). ``iterations``: per completed
    iteration (depth, best, value, clock it completed in, nodes so far); ``peak_slots``: the most
    split points open at once on each ply; ``peak_queue``: the longest re-search queue of a split
    point; ``split_points``: split points opened; ``signature``: the taken jobs' signatures folded
    in the order their results were taken."""

    best: Optional[int]
    value: int
    depth: int
    nodes: int
    cycles: int
    jobs: list = field(default_factory=list)
    iterations: list = field(default_factory=list)
    peak_slots: list = field(default_factory=list)
    peak_queue: int = 0
    split_points: int = 0
    abandoned_jobs: int = 0
    signature: int = 0
    aborted: bool = False


class JobRunner:
    """Runs a job's golden search (single-iteration mode) and keeps what the scheduler needs: its
    result and the engine cycle each node was generated in (to count an abandoned job's nodes).
    ``cache``: a dict shared between searches of one position (a job is a pure function of its
    board, depth, window, PV and budget), or None."""

    def __init__(self, signatures: bool, cache: Optional[dict] = None):
        self.signatures, self.cache = signatures, cache

    def __call__(self, position: Position, depth: int, alpha: int, beta: int, root_pv, budget):
        key = (position.black, position.white, position.white_to_move, depth, alpha, beta, root_pv, budget)
        if self.cache is not None and key in self.cache:
            return self.cache[key]
        generated = array("I")
        keep = generated.append
        fold = SignatureFold() if self.signatures else None
        fold_node = fold.on_node if fold else None

        def on_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated_cycle, cycle):
            if ply:
                keep(generated_cycle)
            if fold_node:
                fold_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated_cycle, cycle)

        result = search_events(position, depth, budget, on_node=on_node, alpha=alpha, beta=beta,
                               single_iteration=True, root_pv=root_pv if depth > 1 else None)
        answer = (result.value, result.best, result.nodes, result.cycles, result.depth,
                  fold.signature if fold else 0, array("I", sorted(generated)))
        if self.cache is not None:
            self.cache[key] = answer
        return answer


class SplitPoint:
    """A node of the table: its board, window (``alpha`` live, ``beta`` fixed at its opening),
    order, the children it is waiting for, its re-search queue and its best move so far."""

    def __init__(self, position, path, ply, alpha, beta, parent, kind, used, order, slot, opened):
        self.position, self.path, self.ply = position, path, ply
        self.alpha, self.beta = alpha, beta
        self.parent, self.kind, self.used = parent, kind, used   # used: the window (in the parent's terms)
        self.order, self.slot, self.opened = order, slot, opened
        self.next_index = 1                # the next younger brother
        self.eldest_taken = False          # the eldest brother chosen (by the worker that opened it)
        self.eldest_done = False
        self.queue = deque()               # moves waiting for a re-search, oldest first
        self.children = {}                 # move -> running/chosen job (worker index) or open SplitPoint
        self.best, self.line = order[0], []
        self.closed = False

    def has_work(self):
        """A child a free worker may take: a younger brother or a re-search once the eldest has
        returned; the root's eldest (no worker opened the root)."""
        if not self.eldest_taken:
            return self.parent is None
        return self.eldest_done and bool(self.queue or self.next_index < len(self.order))

    def complete(self):
        return self.eldest_done and not self.queue and self.next_index >= len(self.order) and not self.children


class Scheduler:
    """The scheduler's state between clocks (see the module docstring)."""

    def __init__(self, pos, depth_limit, budget, engines, contexts, split_plies, min_job_depth, signatures,
                 keep_jobs, cache, capacity=None, priority=None):
        self.capacity = capacity or engines * contexts
        self.priority = priority or PRIORITY
        self.pos, self.depth_limit, self.budget = pos, depth_limit, budget
        self.engines, self.contexts, self.workers = engines, contexts, engines * contexts
        self.split_plies, self.min_job_depth = split_plies, min_job_depth
        self.keep_jobs = keep_jobs
        self.run = JobRunner(signatures, cache)
        self.root_moves = legal_moves(pos.own, pos.opp)
        self.running = [None] * self.workers      # the worker's YbwcJob
        self.chosen = [None] * self.workers       # (what, clock): what a ("job", ...) or ("open", SplitPoint)
        self.replies = {}                         # root move -> best reply of its latest completed search
        self.pv_line = []                         # the previous iteration's principal variation
        self.slots = [[] for _ in range(split_plies)]   # per ply: the open split points by slot index
        self.peak_slots = [0] * split_plies
        self.peak_queue = 0
        self.split_points = 0
        self.abandoned_jobs = 0
        self.nodes = 0
        self.signature = 0
        self.jobs = []
        self.deepest = (0, None, 0)
        self.iterations = []
        self.begin(1)

    # -- the tree ----------------------------------------------------------------------------
    def slot(self, worker, clock):
        """The worker's first clock at or after ``clock``."""
        return clock + (worker - clock) % self.workers

    def begin(self, depth):
        self.depth = depth
        self.abandoned = False
        self.root_value = None                    # (best, value, principal variation) once the root has it
        self.plies = min(self.split_plies, max(1, depth - self.min_job_depth))
        if depth == 1:
            self.root_job_chosen = False
            return
        order = ordered_moves(self.root_moves, self.deepest[1])
        self.open(self.pos, (), 0, MINUS_INFINITY, PLUS_INFINITY, None, ROOT, None, order, 0)

    def pv_for(self, path):
        """The PV move of the node at ``path`` (module docstring), or None."""
        if not path:
            return self.deepest[1]
        if len(path) == 1:
            return self.replies.get(path[0])
        if tuple(self.pv_line[:len(path)]) == path and len(self.pv_line) > len(path):
            return self.pv_line[len(path)]
        return None

    def open(self, position, path, ply, alpha, beta, parent, kind, used, order, clock):
        bank = self.slots[ply]
        index = next((i for i, sp in enumerate(bank) if sp is None), len(bank))
        point = SplitPoint(position, path, ply, alpha, beta, parent, kind, used, order, (ply, index), clock)
        if index == len(bank):
            bank.append(point)
        else:
            bank[index] = point
        self.peak_slots[ply] = max(self.peak_slots[ply], sum(sp is not None for sp in bank))
        if ply:
            self.split_points += 1
        return point

    def free_slot(self, point):
        self.slots[point.ply][point.slot[1]] = None

    def child_window(self, point, kind):
        """The window (in the split point's terms) a child of ``kind`` gets now."""
        if kind == NULL:
            return point.alpha, point.alpha + 1
        return point.alpha, point.beta

    def is_split(self, child_ply, child):
        """A child becomes a split point above the split plies when it has a move of its own and
        its ply's bank of the table has a free slot (a full bank: the child is a job)."""
        if child_ply >= self.plies or not legal_moves(child.own, child.opp):
            return False
        bank = self.slots[child_ply]
        return len(bank) < self.capacity or any(point is None for point in bank)

    # -- the steps of a clock --------------------------------------------------------------------
    def take_next(self, point):
        """The split point's next child for a free worker: (kind, move), leaving the order or queue."""
        if not point.eldest_taken:
            point.eldest_taken = True
            return ELDEST, point.order[0]
        if point.queue:
            return RESEARCH, point.queue.popleft()
        move = point.order[point.next_index]
        point.next_index += 1
        return NULL, move

    def choose_for(self, worker, clock, point, kind, move):
        """The worker takes child ``move`` of ``point``: a job (starting DISPATCH_LATENCY on) or a
        new split point (ready DISPATCH_LATENCY on)."""
        child = play(point.position, move)
        path = point.path + (move,)
        if self.is_split(point.ply + 1, child):
            used = self.child_window(point, kind)
            pv = self.pv_for(path)
            order = ordered_moves(legal_moves(child.own, child.opp), pv)
            new = self.open(child, path, point.ply + 1, -used[1], -used[0], point, kind, used, order, clock)
            new.opener = worker
            self.nodes += 1               # the split point's board, generated by the scheduler
            point.children[move] = new
            self.chosen[worker] = (("open", new), clock)
        else:
            point.children[move] = worker
            self.chosen[worker] = (("job", point, kind, move, child, path), clock)

    def choose(self, worker, clock):
        """A free worker's choice: the root job (iteration 1), or the shallowest split point's
        younger brother or re-search. False when there is nothing to choose."""
        if self.depth == 1:
            if self.root_job_chosen:
                return False
            self.root_job_chosen = True
            self.chosen[worker] = (("root",), clock)
            return True
        point = self.work()
        if point is None:
            return False
        if self.budget is not None and self.slot(worker, clock + DISPATCH_LATENCY) >= self.budget:
            self.abandoned = True
            return False
        self.choose_for(worker, clock, point, *self.take_next(point))
        return True

    def choose_eldest(self, worker, clock, point):
        """The worker that opened ``point`` chooses its eldest brother, in the clock it is ready."""
        if self.budget is not None and self.slot(worker, clock + DISPATCH_LATENCY) >= self.budget:
            self.abandoned = True
            return
        self.choose_for(worker, clock, point, *self.take_next(point))

    def work(self):
        banks = self.slots[:self.plies]
        for bank in (banks if self.priority == SHALLOWEST else reversed(banks)):
            for point in bank:
                if point is not None and not point.closed and point.has_work():
                    return point
        return None

    def start(self, worker, what, chosen, clock):
        if what[0] == "root":
            position, path, depth, alpha, beta, point, kind, move = self.pos, (), 1, MINUS_INFINITY, PLUS_INFINITY, \
                None, ROOT, None
            root_pv = None
        else:
            _, point, kind, move, position, path = what
            used = self.child_window(point, kind)
            alpha, beta = -used[1], -used[0]
            depth = self.depth - len(path)
            root_pv = self.pv_for(path)
        budget = None if self.budget is None else max(0, self.budget - clock) // self.contexts
        value, best, nodes, cycles, reported, signature, generated = self.run(position, depth, alpha, beta, root_pv,
                                                                           budget)
        job = YbwcJob(self.depth, kind, path, position.text(), depth, alpha, beta, root_pv, budget,
                      point.slot if point else (0, 0), worker, worker // self.contexts, worker % self.contexts,
                      chosen, clock, value=value, best=best, nodes=nodes, cycles=cycles, depth_reported=reported,
                      signature=signature)
        job.move, job.point, job.generated = move, point, generated
        job.used = None if point is None else self.child_window(point, kind)
        job.done = self.slot(worker, done_clock(clock, cycles, self.contexts))
        self.running[worker] = job
        if self.keep_jobs:
            self.jobs.append(job)

    def take(self, worker, job, clock):
        self.running[worker] = None
        self.nodes += job.nodes + (0 if job.kind == ROOT else 1)
        self.signature = rotate_fold(self.signature, job.signature)
        if job.depth_reported < job.depth:
            self.abandoned = True
            return
        if self.abandoned:
            return
        if job.kind == ROOT:
            self.root_value = (job.best, job.value, [job.best])
            return
        point = job.point
        del point.children[job.move]
        self.result(point, job.move, job.kind, job.used, -job.value, [job.best], clock)

    def result(self, point, move, kind, used, value, line, clock):
        """Child ``move`` of ``point``, searched with ``used`` (the window in the point's terms),
        returned ``value``: fold it in; close or complete the point when that follows."""
        if point.ply == 0:
            self.replies[move] = line[0] if line else None
        if kind == ELDEST:
            point.eldest_done = True
        if value >= point.beta:
            point.best, point.line = move, line
            self.close(point, clock)
            self.report(point, point.beta, clock)
            return
        if kind == NULL and value > used[0]:
            point.queue.append(move)
            self.peak_queue = max(self.peak_queue, len(point.queue))
        elif kind != NULL and value > point.alpha:
            point.alpha, point.best, point.line = value, move, line
        elif kind == ELDEST:
            point.line = line
        if point.complete():
            self.free_slot(point)
            self.report(point, point.alpha, clock)

    def report(self, point, value, clock):
        """A split point has its value: to its parent, or the iteration's answer at the root."""
        line = [point.best] + point.line
        if point.parent is None:
            self.root_value = (point.best, value, line)
            return
        parent = point.parent
        del parent.children[point.path[-1]]
        self.result(parent, point.path[-1], point.kind, point.used, -value, line, clock)

    def close(self, point, clock):
        """The window of ``point`` closed: every job and split point below it abandoned now."""
        point.closed = True
        self.free_slot(point)
        opener = getattr(point, "opener", None)
        if opener is not None and self.chosen[opener] is not None and self.chosen[opener][0][0] == "open" \
                and self.chosen[opener][0][1] is point:
            self.chosen[opener] = None   # opened, its eldest not chosen yet: the worker is free
        for child in list(point.children.values()):
            if isinstance(child, SplitPoint):
                self.close(child, clock)
            else:
                self.abandon(child, clock)
        point.children.clear()

    def abandon(self, worker, clock):
        job = self.running[worker]
        if job is None:                 # chosen, not started: dropped
            self.chosen[worker] = None
            return
        self.running[worker] = None
        job.abandoned = clock
        self.abandoned_jobs += 1
        # the engine's cycle t runs in the clocks up to start + C (1 + t): its nodes up to now count
        cycles_run = (clock - job.start) // self.contexts - 1
        job.nodes = bisect_right(job.generated, cycles_run)
        self.nodes += job.nodes + 1
        job.signature = 0

    def clock(self, k):
        """The steps of clock ``k``; True when the search ends in it."""
        worker = k % self.workers
        job = self.running[worker]
        if job is not None:
            if job.done == k:
                self.take(worker, job, k)
        elif self.chosen[worker] is not None:
            what, chosen = self.chosen[worker]
            if k >= chosen + DISPATCH_LATENCY:
                self.chosen[worker] = None
                if self.abandoned:
                    pass            # chosen before the iteration was abandoned: dropped
                elif what[0] == "open":
                    self.choose_eldest(worker, k, what[1])
                else:
                    self.start(worker, what, chosen, k)
        elif not self.abandoned:
            self.choose(worker, k)
        if not self.idle():
            return False
        if self.abandoned:
            return True
        if self.root_value is not None:
            best, value, line = self.root_value
            self.deepest = (self.depth, best, value)
            self.pv_line = line
            self.iterations.append((self.depth, best, value, k, self.nodes))
            if self.depth == self.depth_limit:
                return True
            self.begin(self.depth + 1)
        return False

    def idle(self):
        return not any(self.running) and not any(self.chosen)

    def next_clock(self, k):
        candidates = []
        choosable = not self.abandoned and (self.root_job_chosen is False if self.depth == 1 else
                                            self.work() is not None)
        for worker, job in enumerate(self.running):
            if job is not None:
                candidates.append(job.done)
            elif self.chosen[worker] is not None:
                candidates.append(self.slot(worker, self.chosen[worker][1] + DISPATCH_LATENCY))
            elif choosable:
                candidates.append(self.slot(worker, k + 1))
        if not candidates:
            raise AssertionError(f"YBWC scheduler stuck in clock {k}: no job running and none to start")
        return min(candidates)


def ybwc_search(pos: Position, depth_limit: int, budget: Optional[int] = None, engines: int = 1, contexts: int = 1,
                split_plies: int = SPLIT_PLIES, min_job_depth: int = MIN_JOB_DEPTH, signatures: bool = True,
                keep_jobs: bool = True, cache: Optional[dict] = None, capacity: Optional[int] = None,
                priority: Optional[str] = None) -> YbwcResult:
    """Young Brothers Wait on ``engines`` engines of ``contexts`` contexts each (module docstring):
    depth limit 1..16, ``budget`` in clocks (None: unlimited), ``split_plies`` H >= 1 (1: the
    root split), ``min_job_depth`` >= 1. ``signatures``: fold every taken job's node events;
    ``keep_jobs``: keep the job list; ``cache``: a dict reused between searches of one position."""
    if not isinstance(engines, int) or not 1 <= engines <= MAX_ENGINES:
        raise BoardError(f"engines must be 1..{MAX_ENGINES}, got {engines!r}")
    if contexts not in CONTEXT_CHOICES:
        raise BoardError(f"contexts must be one of {CONTEXT_CHOICES}, got {contexts!r}")
    if not isinstance(split_plies, int) or not 1 <= split_plies < MAX_DEPTH:
        raise BoardError(f"split plies must be 1..{MAX_DEPTH - 1}, got {split_plies!r}")
    if priority is not None and priority not in PRIORITIES:
        raise BoardError(f"priority must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 1):
        raise BoardError(f"the table's slots per ply must be >= 1, got {capacity!r}")
    if not isinstance(min_job_depth, int) or not 1 <= min_job_depth <= MAX_DEPTH:
        raise BoardError(f"the least job depth must be 1..{MAX_DEPTH}, got {min_job_depth!r}")
    check_search_request(pos, depth_limit, budget, "the YBWC scheduler", "clocks")
    if not legal_moves(pos.own, pos.opp):        # a pass or a finished game: answered in clock 0
        return YbwcResult(None, 0, 0, 0, 1)
    scheduler = Scheduler(pos, depth_limit, budget, engines, contexts, split_plies, min_job_depth, signatures,
                          keep_jobs, cache, capacity, priority)
    k = 0
    while not scheduler.clock(k):
        k = scheduler.next_clock(k)
    depth, best, value = scheduler.deepest
    return YbwcResult(best, value, depth, scheduler.nodes, k + 1, scheduler.jobs, scheduler.iterations,
                      scheduler.peak_slots, scheduler.peak_queue, scheduler.split_points, scheduler.abandoned_jobs,
                      scheduler.signature, aborted=scheduler.abandoned)


def parse_designs(text: str) -> list:
    """``KxC,KxC,...`` (engines x contexts) as a list of (K, C)."""
    designs = []
    for item in text.split(","):
        engines, _, contexts = item.strip().partition("x")
        try:
            designs.append((int(engines), int(contexts or 1)))
        except ValueError:
            raise BoardError(f"a design is ENGINESxCONTEXTS such as 4x2, got {item!r}") from None
    return designs


def compare(pos: Position, depth: int, designs, split_plies: int = SPLIT_PLIES,
            min_job_depth: int = MIN_JOB_DEPTH) -> dict:
    """One position searched to ``depth`` without a budget by the one-context processor, and for
    each (K, C) of ``designs`` by the root split and by Young Brothers Wait on K x C workers:
    {"one": summary, "designs": [{"engines", "contexts", "root_split", "ybwc"}]}, each summary the
    answer with its jobs, abandoned jobs and table peak. The designs share a job cache."""
    from golden.root_split import one_context_search, root_split

    def summary(result):
        row = dict(result.summary(), jobs=len(result.jobs))
        if isinstance(result, YbwcResult):
            row.update(abandoned_jobs=result.abandoned_jobs, split_points=result.split_points,
                       peak_slots=result.peak_slots, peak_queue=result.peak_queue)
        return row

    cache = {}
    rows = []
    for engines, contexts in designs:
        split = root_split(pos, depth, engines=engines, contexts=contexts, signatures=False)
        ybwc = ybwc_search(pos, depth, engines=engines, contexts=contexts, split_plies=split_plies,
                           min_job_depth=min_job_depth, signatures=False, cache=cache)
        rows.append(dict(engines=engines, contexts=contexts, root_split=summary(split), ybwc=summary(ybwc)))
    return dict(one=summary(one_context_search(pos, depth)), designs=rows)


def main(argv=None) -> int:
    """``python -m golden.ybwc BOARD DEPTH [BUDGET] [--engines K] [--contexts C] [--split-plies H]
    [--min-job-depth J]``: one search's answer as a JSON line, with its completed iterations,
    job count, abandoned jobs, split points opened, the table's peak per ply and CPU time.
    ``--compare 1x1,4x2,...``: :func:`compare` of the board at DEPTH instead (gamechip.measure.ybwc)."""
    import argparse
    import json
    import platform
    import time

    from golden.board import parse_board

    parser = argparse.ArgumentParser(prog="python -m golden.ybwc", description="Young Brothers Wait on K engines")
    parser.add_argument("board")
    parser.add_argument("depth", type=int)
    parser.add_argument("budget", type=int, nargs="?")
    parser.add_argument("--engines", type=int, default=1)
    parser.add_argument("--contexts", type=int, default=1)
    parser.add_argument("--split-plies", type=int, default=SPLIT_PLIES)
    parser.add_argument("--min-job-depth", type=int, default=MIN_JOB_DEPTH)
    parser.add_argument("--compare", metavar="KxC,...",
                        help="compare the one-context processor, and the root split and YBWC on each design")
    args = parser.parse_args(argv)
    try:
        started = time.process_time()
        if args.compare:
            answer = compare(parse_board(args.board), args.depth, parse_designs(args.compare), args.split_plies,
                             args.min_job_depth)
            print(json.dumps(dict(answer, cpu_seconds=time.process_time() - started,
                                  interpreter=platform.python_implementation())))
            return 0
        result = ybwc_search(parse_board(args.board), args.depth, args.budget, args.engines, args.contexts,
                             args.split_plies, args.min_job_depth, signatures=False)
    except (BoardError, ValueError) as error:
        print(f"golden.ybwc: {error}", file=__import__("sys").stderr)
        return 2
    print(json.dumps(dict(result.summary(), engines=args.engines, contexts=args.contexts,
                          split_plies=args.split_plies, iterations=[list(i) for i in result.iterations],
                          jobs=len(result.jobs), abandoned_jobs=result.abandoned_jobs,
                          split_points=result.split_points, peak_slots=result.peak_slots,
                          peak_queue=result.peak_queue, aborted=result.aborted,
                          cpu_seconds=time.process_time() - started,
                          interpreter=platform.python_implementation())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
