"""Parallel search over P search engines (docs/spec.md §12), timed in simulated engine cycles.

Deep Blue's organisation: a host searches the top ``split`` plies of the tree and hands the
subtrees below, each with its alpha-beta window, to P engines (the engine of docs/spec.md §7
with root-window inputs, or its golden twin). Time is the engines' simulated time, so a
speed-up is deterministic and independent of the machine that computes it:

* an engine is busy from the cycle its subtree is handed to it until its search ends
  (``EngineRun.cycles`` later) or the host cancels it;
* the host is one sequential processor: every dispatch costs it ``host_cycles`` (sending the
  128-bit board and the window over a bus and starting the engine), so dispatches queue
  behind each other; expanding its own top plies is free;
* a result reaches the host when its search ends; a bound the host learns at cycle t reaches
  only the subtrees dispatched after t (a running engine keeps the window it was given).

Two schemes:

* ``seed``, the parallel-minimax seed's: every node at ply ``split`` is one subtree, searched
  with the full window; nothing is shared, nothing is cancelled; the host minimaxes the exact
  values.
* ``ybw``, Young Brothers Wait with PVS windows at every host node: a node's eldest child is
  searched first (itself split further when it is above ``split``); once it has returned, its
  younger brothers all start at once with a null window on the node's best value so far (the
  bound shared with every search started later), a brother that fails high is searched again
  with the window (alpha, beta) as it then stands, and a cut-off cancels every subtree still
  running or waiting below the node.

Both return the exact root value (checked against the sequential search in the tests). Nodes
counted are the nodes the engines generate, a cancelled search's only up to its cancel cycle.
"""

from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass, field
from typing import Callable, Optional

from golden.board import Position
from golden.othello import legal_moves, pass_move, play
from golden.ordering import ordered_moves
from golden.search import MINUS_INFINITY, PLUS_INFINITY, leaf_value, search, search_events
from golden.evaluator import evaluate

SCHEMES = ("seed", "ybw")
# A dispatch: a 128-bit board and two 9-bit bounds over a 32-bit bus (6 writes of about 4 bus
# cycles each), the start pulse, and the host's own bookkeeping; documented, not measured.
HOST_CYCLES = 32


@dataclass(frozen=True)
class EngineRun:
    """One engine search of a subtree: its fail-hard value in the window it was given, its
    simulated cycles and nodes, and the cycle each node was generated (to count a cancelled
    search's nodes up to its cancel cycle)."""

    value: int
    cycles: int
    nodes: int
    generated: array = field(repr=False, compare=False)

    def nodes_before(self, cycle: int) -> int:
        """Nodes generated in the first ``cycle`` cycles of the search."""
        low, high = 0, len(self.generated)
        while low < high:
            middle = (low + high) // 2
            if self.generated[middle] < cycle:
                low = middle + 1
            else:
                high = middle
        return low


def golden_engine_run(board: str, depth: int, alpha: int, beta: int) -> EngineRun:
    """The golden twin of the engine (golden.search) on one subtree: the default engine. The
    nodes are streamed (only each one's generation cycle is kept), so a subtree of millions of
    nodes costs a few bytes a node."""
    from golden.board import parse_board

    generated = array("I")
    keep = generated.append

    def on_node(iteration, ply, path, own, opp, white_to_move, legal, kind, terms, value, cycle_generated, cycle):
        if ply > 0:
            keep(cycle_generated)

    result = search_events(parse_board(board), depth, None, on_node=on_node, alpha=alpha, beta=beta)
    return EngineRun(result.value, result.cycles, result.nodes, array("I", sorted(generated)))


def engine_server(lines, write) -> None:
    """Answer engine jobs, one JSON object a line (``board``, ``depth``, ``alpha``, ``beta``),
    with ``value``, ``cycles``, ``nodes`` and ``generated`` (the generation cycles as base64 of
    32-bit words): ``python -m golden.host.parallel_search`` runs this on stdin and stdout, so that a host
    in CPython can have its engines' golden searches run by PyPy."""
    import base64
    import json

    for line in lines:
        job = json.loads(line)
        run = golden_engine_run(job["board"], job["depth"], job["alpha"], job["beta"])
        write(json.dumps({"value": run.value, "cycles": run.cycles, "nodes": run.nodes,
                          "generated": base64.b64encode(run.generated.tobytes()).decode("ascii")}) + "\n")


def engine_run_from_answer(answer: dict) -> EngineRun:
    """An EngineRun from one answer line of :func:`engine_server`."""
    import base64

    generated = array("I")
    generated.frombytes(base64.b64decode(answer["generated"]))
    return EngineRun(answer["value"], answer["cycles"], answer["nodes"], generated)


@dataclass(frozen=True)
class Job:
    """A subtree handed to an engine: board text, depth and root window."""

    board: str
    depth: int
    alpha: int
    beta: int


@dataclass
class ParallelResult:
    scheme: str
    engines: int
    value: int
    cycles: int          # simulated cycles until the root's value is known
    nodes: int           # nodes generated by the engines
    busy: list           # cycles each engine spent searching
    dispatches: int      # subtrees handed out (re-searches included)
    cancelled: int       # of which cancelled by a cut-off
    host_busy: int       # cycles the host spent ordering its own nodes (shallow searches)

    @property
    def balance(self) -> float:
        """Busiest engine / mean engine busy time (1.0: perfectly balanced)."""
        mean = sum(self.busy) / len(self.busy)
        return max(self.busy) / mean if mean else 1.0


class _Node:
    """A host node of the YBW search: window, children, running state."""

    def __init__(self, position, ply, alpha, beta, parent, index):
        self.position, self.ply = position, ply
        self.alpha, self.beta = alpha, beta
        self.parent, self.index = parent, index
        self.children: list = []      # (child position) in search order
        self.pending = 0              # children searches running or waiting
        self.next_child = 0
        self.done = False
        self.active = {}              # child index -> running child task (a _Node or a job ticket)


class _Simulation:
    """The engines, the host and the event queue in simulated cycles."""

    def __init__(self, engines: int, run: Callable[[Job], EngineRun], host_cycles: int,
                 prefetch: Optional[Callable[[Job], None]] = None):
        self.run, self.prefetch = run, prefetch or (lambda job: None)
        self.host_cycles = host_cycles
        self.free_at = [0] * engines          # when each engine is free
        self.busy = [0] * engines
        self.host_free = 0
        self.host_busy = 0
        self.events: list = []                # (cycle, sequence, callback)
        self.sequence = 0
        self.waiting: list = []               # tickets not yet on an engine, in order
        self.now = 0
        self.nodes = self.dispatches = self.cancelled = 0

    # -- events ------------------------------------------------------------------------------
    def at(self, cycle, callback):
        self.sequence += 1
        heapq.heappush(self.events, (cycle, self.sequence, callback))

    def drain(self):
        while self.events:
            self.now, _, callback = heapq.heappop(self.events)
            callback()
            self._assign()

    def host_work(self, cycles):
        """The host is busy for ``cycles`` from now (or from when it is free): dispatches wait."""
        self.host_free = max(self.host_free, self.now) + cycles
        self.host_busy += cycles

    # -- engines -----------------------------------------------------------------------------
    def submit(self, job: Job, on_done):
        """Queue ``job``; ``on_done(value, cycle)`` when its search ends. Returns its ticket."""
        self.prefetch(job)
        ticket = {"job": job, "on_done": on_done, "engine": None, "cancelled": False}
        self.waiting.append(ticket)
        self._assign()
        return ticket

    def cancel(self, ticket):
        if ticket["cancelled"] or ticket.get("finished"):
            return
        ticket["cancelled"] = True
        if ticket["engine"] is None:
            self.waiting.remove(ticket)
            return
        self.cancelled += 1
        engine, started = ticket["engine"], ticket["started"]
        elapsed = max(0, self.now - started)   # handed out but not started yet (the host was busy): 0
        self.nodes += ticket["run"].nodes_before(elapsed)
        self.busy[engine] += elapsed
        self.free_at[engine] = self.now

    def _assign(self):
        while self.waiting:
            engine = min(range(len(self.free_at)), key=lambda e: (self.free_at[e], e))
            if self.free_at[engine] > self.now:
                return   # every engine busy: the next end event assigns again
            ticket = self.waiting.pop(0)
            start = max(self.now, self.host_free)
            self.host_free = start + self.host_cycles
            start += self.host_cycles
            run = self.run(ticket["job"])
            ticket.update(engine=engine, started=start, run=run)
            self.free_at[engine] = start + run.cycles
            self.dispatches += 1
            self.at(start + run.cycles, lambda ticket=ticket: self._finish(ticket))

    def _finish(self, ticket):
        if ticket["cancelled"]:
            return
        ticket["finished"] = True
        run = ticket["run"]
        self.nodes += run.nodes
        self.busy[ticket["engine"]] += run.cycles
        ticket["on_done"](run.value, self.now)


ORDER_DEPTH = 2


def order_depth_for(depth, ply):
    """Plies of the shallow search the host orders a node's children with: ORDER_DEPTH at the
    root and its children (at most half of what is left below), the engine's static order
    deeper, where the host's serial ordering time cost more than it saved (depth 8, 3 host
    plies: 58,000 host cycles and a speed-up of 3.3 at 16 engines, against 10,500 and 5.0)."""
    return min(ORDER_DEPTH, (depth - ply - 1) // 2) if ply < 2 else 0


def _children(position: Position, order_depth: int = 0):
    """(children, cycles): the children of a host node, best first by a shallow search of
    ``order_depth`` plies (0: the engine's static order; a pass is one child), and what those
    searches cost the host in engine cycles (the host runs them itself, at engine speed)."""
    legal = legal_moves(position.own, position.opp)
    if legal:
        children = [play(position, move) for move in ordered_moves(legal, None)]
        if not order_depth:
            return children, 0
        shallow = [search(child, order_depth) for child in children]
        order = sorted(range(len(children)), key=lambda i: shallow[i].value)  # stable: static order breaks ties
        return [children[i] for i in order], sum(result.cycles for result in shallow)
    if legal_moves(position.opp, position.own):
        return [pass_move(position)], 0
    return [], 0


def _terminal_value(position: Position) -> int:
    return leaf_value(evaluate(position), False)


def parallel_search(position: Position, depth: int, engines: int, scheme: str = "ybw", split: int = 2,
                    run: Callable[[Job], EngineRun] = None, host_cycles: int = HOST_CYCLES,
                    prefetch=None) -> ParallelResult:
    """Search ``position`` to ``depth`` plies on ``engines`` engines (see the module docstring).

    ``split``: the host searches plies 0..split-1 and hands out the nodes at ply ``split``
    (each searched to ``depth - split`` plies); ``run(job)`` runs one engine search (default
    the golden engine); ``prefetch(job)`` is told of every job as soon as the host knows it
    (to compute it ahead, e.g. on a Dask cluster)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme '{scheme}': choose one of {', '.join(SCHEMES)}")
    if engines < 1:
        raise ValueError(f"engines must be at least 1, got {engines}")
    if not 1 <= split < depth:
        raise ValueError(f"split must be 1..depth-1, got {split} for depth {depth}")
    run = run or (lambda job: golden_engine_run(job.board, job.depth, job.alpha, job.beta))
    sim = _Simulation(engines, run, host_cycles, prefetch)
    answer = {}
    if scheme == "seed":
        minimax_values = _seed(sim, position, depth, split)
        sim.drain()
        answer["value"], answer["cycle"] = minimax_values()
    else:
        _ybw_start(sim, _Node(position, 0, MINUS_INFINITY, PLUS_INFINITY, None, 0), depth, split, answer)
        sim.drain()
    return ParallelResult(scheme, engines, answer["value"], answer["cycle"], sim.nodes, sim.busy,
                          sim.dispatches, sim.cancelled, sim.host_busy)


# --- the parallel-minimax seed's scheme ---------------------------------------------------

def _seed(sim, root, depth, split):
    """Every node at ply ``split`` searched with the full window; returns the function that
    minimaxes their exact values on the host once every search has ended."""
    values = {}

    def tree(position, ply, path):
        """The host's tree: a leaf is ('job', path) or ('value', v); an inner node a list."""
        children, _ = _children(position)
        if not children:
            return ("value", _terminal_value(position))
        if ply == split:
            job = Job(position.text(), depth - split, MINUS_INFINITY, PLUS_INFINITY)
            sim.submit(job, lambda value, cycle: values.__setitem__(path, (value, cycle)))
            return ("job", path)
        return [tree(child, ply + 1, path + (i,)) for i, child in enumerate(children)]

    shape = tree(root, 0, ())

    def negamax(node):
        """(value, cycle it is known) of a host node."""
        if isinstance(node, tuple):
            return values[node[1]] if node[0] == "job" else (node[1], 0)
        results = [negamax(child) for child in node]
        return max(-value for value, _ in results), max(cycle for _, cycle in results)

    return lambda: negamax(shape)


# --- Young Brothers Wait ------------------------------------------------------------------

def _ybw_start(sim, node, depth, split, answer):
    node.children, cost = _children(node.position, order_depth_for(depth, node.ply))
    sim.host_work(cost)
    if not node.children:
        _ybw_done(sim, node, _terminal_value(node.position), sim.now, depth, split, answer)
        return
    _ybw_child(sim, node, 0, node.alpha, node.beta, depth, split, answer)


def _ybw_child(sim, node, index, alpha, beta, depth, split, answer):
    """Search child ``index`` of ``node`` with the node's window (alpha, beta)."""
    child_position = node.children[index]
    node.pending += 1
    if node.ply + 1 == split:
        job = Job(child_position.text(), depth - split, -beta, -alpha)

        def done(value, cycle, index=index, alpha=alpha, beta=beta):
            node.active.pop(index, None)
            node.pending -= 1
            _ybw_result(sim, node, index, -value, alpha, beta, depth, split, answer)
        node.active[index] = ("job", sim.submit(job, done))
    else:
        child = _Node(child_position, node.ply + 1, -beta, -alpha, node, index)
        child.window_of_parent = (alpha, beta)
        node.active[index] = ("node", child)
        _ybw_start(sim, child, depth, split, answer)


def _ybw_done(sim, node, value, cycle, depth, split, answer):
    """``node`` has its value (for its side to move): report it to its parent."""
    node.done = True
    if node.parent is None:
        answer["value"], answer["cycle"] = value, cycle
        return
    parent = node.parent
    parent.active.pop(node.index, None)
    parent.pending -= 1
    alpha, beta = node.window_of_parent
    _ybw_result(sim, parent, node.index, -value, alpha, beta, depth, split, answer)


def _ybw_result(sim, node, index, value, alpha_used, beta_used, depth, split, answer):
    """Child ``index`` of ``node`` returned ``value`` (for node's side) from the window
    (alpha_used, beta_used) it was searched with."""
    if node.done:
        return
    if value >= node.beta:                 # cut-off: cancel every search still under this node
        _cancel_below(sim, node)
        _ybw_done(sim, node, node.beta, sim.now, depth, split, answer)
        return
    if value > alpha_used and value >= beta_used and beta_used < node.beta:
        # failed high on a narrower window than the node's: the exact value is not known yet,
        # only that it is above the node's alpha as it stood; search again as it stands now
        _ybw_child(sim, node, index, node.alpha, node.beta, depth, split, answer)
    elif value > node.alpha:
        node.alpha = value
    if index == 0 and node.next_child == 0:
        node.next_child = 1
        # the eldest brother has returned: every younger one starts, null window on alpha
        for younger in range(1, len(node.children)):
            node.next_child = younger + 1
            _ybw_child(sim, node, younger, node.alpha, node.alpha + 1, depth, split, answer)
    if node.pending == 0 and node.next_child >= len(node.children):
        _ybw_done(sim, node, node.alpha, sim.now, depth, split, answer)


def _cancel_below(sim, node):
    for kind, task in list(node.active.values()):
        if kind == "job":
            sim.cancel(task)
        else:
            task.done = True
            _cancel_below(sim, task)
    node.active.clear()
    node.pending = 0


def sequential(position: Position, depth: int, run: Callable[[Job], EngineRun] = None) -> EngineRun:
    """The whole tree on one engine, full window: the reference for speed-up and overhead."""
    run = run or (lambda job: golden_engine_run(job.board, job.depth, job.alpha, job.beta))
    return run(Job(position.text(), depth, MINUS_INFINITY, PLUS_INFINITY))


if __name__ == "__main__":
    import sys

    def _write(text):
        sys.stdout.write(text)
        sys.stdout.flush()

    engine_server(sys.stdin, _write)
