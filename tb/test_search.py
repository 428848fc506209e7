"""Bench for rtl/search: a node-by-node scoreboard against the golden search (SPEC §7).

Every node the engine reports (``node_event``: cycle, kind, ply, board, side to move, legal
moves, and for a leaf every evaluation term, the stable counts and the value) is compared with
the golden search's trace (``golden.search``), then the answer (best move, value, completed
depth, node count, cycle count). The first divergence stops the test and names the node by its
path from the root. Two monitors feed the same scoreboard (tb/search_check.py):

* ``hdl`` (the default): the top level is the HDL-clocked harness (tb/harness.py), which writes
  every node event to a file; Python only starts each search and waits for its end, while a
  golden process (PyPy when installed) checks the file as it grows, one search behind at most.
  Hundreds of thousands of cycles per second on Verilator.
* ``python``: the engine itself is the top level, clocked by cocotb and sampled on every falling
  edge: slow (about 7,500 cycles/s on Verilator), but every cycle passes through Python, for
  replays and debugging.

The engine with two interleaved contexts (``search_c2``, rtl/contexts.py) has the per-cycle
monitor only (InterleavedSearchTB): both contexts search at once, and each context's events,
numbered in its own cycles, go to the same scoreboard against its own golden search.
"""

import json
import os
import random
import time
from collections import deque

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer
from cocotb.utils import get_sim_time

from golden.board import draw, format_board, parse_board, popcount, start_position
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.search import MINUS_INFINITY, PLUS_INFINITY, search, search_events
from tb import runner
from tb.batch import ACTUAL_FILE, CASE_FILE, RESULT_FILE, case_record, end_run_if_failed, progress
from tb.batch import environment as batch_environment
from tb.search_check import (ANSWER_PORTS, CLOCK_NS, CYCLE_DIGITS, EVENT_FILES, LEAF_FIELDS, STALL_CYCLES,
                             GoldenProcess, LineFormat, SearchCase, answer_of, check_search, loud_fields)

DESIGN = "search"
INTERLEAVED = "search_c2"    # the engine with two interleaved contexts (rtl/contexts.py)
MONITORS = ("hdl", "python")
NO_LIMIT = (1 << 32) - 1
FIRST_WAKE_CYCLES = 2_000        # the hdl monitor looks up from the simulation after this many
MAX_WAKE_CYCLES = 200_000        # cycles, doubling up to this: limits and progress
PROGRESS_SECONDS = 2.0


def line_format(dut):
    """The event line format at the widths of the ports the simulator has (the RTL under test's)."""
    names = [f"event_{f}" for f in LEAF_FIELDS] + list(ANSWER_PORTS)
    return LineFormat({name: len(getattr(dut, name)) for name in names})


def apply_case(dut, case):
    pos = case.position
    dut.root_black.value = pos.black
    dut.root_white.value = pos.white
    dut.root_white_to_move.value = int(pos.white_to_move)
    dut.depth_limit.value = case.depth
    dut.budget.value = case.budget if case.budget is not None else NO_LIMIT
    dut.root_alpha.value = case.alpha & 0x1FF
    # 9 bits cannot hold +256: -256, which no beta can be, stands for plus infinity
    dut.root_beta.value = (MINUS_INFINITY if case.beta == PLUS_INFINITY else case.beta) & 0x1FF


def sampled(value):
    """A port's value as an int, or "x" when it has X or Z bits (the report shows it as such)."""
    return int(value) if value.is_resolvable else "x"


class SearchTB:
    """The per-cycle monitor: owns the clock, the reset and the engine's ports, and records
    what the harness would write, cycle by cycle."""

    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        cocotb.start_soon(Clock(dut.clk, CLOCK_NS, "ns").start())
        self.event_ports = {name: getattr(dut, f"event_{name}") for name in LEAF_FIELDS}
        self.format = line_format(dut)

    async def reset(self):
        self.dut.rst.value = 1
        self.dut.start.value = 0
        await RisingEdge(self.dut.clk)
        await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        await FallingEdge(self.dut.clk)

    async def start(self, case):
        """Apply the root and limits of ``case`` and pulse ``start``; return at the falling
        edge of cycle 0 (the first cycle after the start edge)."""
        apply_case(self.dut, case)
        self.dut.start.value = 1
        await FallingEdge(self.dut.clk)          # the start edge is the rising edge before this
        self.dut.start.value = 0

    def answer_ports(self):
        return {name: int(getattr(self.dut, name).value) for name in ANSWER_PORTS}

    async def run(self, case, limit):
        """Run ``case``, sampling every falling edge until done, a fault or cycle ``limit``;
        return the event lines (the same as the harness's event file)."""
        dut = self.dut
        await self.start(case)
        lines = [f"S {round(get_sim_time('ns')) - CLOCK_NS // 2}"]
        cycle = 0
        while True:
            if int(dut.fault.value):
                lines.append(f"F {cycle:0{CYCLE_DIGITS}x}")
                break
            node_event = int(dut.node_event.value)
            ports = {name: sampled(port.value) for name, port in self.event_ports.items()}
            if loud_fields(node_event, ports):
                lines.append(self.format.loud_line(cycle, node_event, ports))
                break
            if node_event:
                lines.append(self.format.sampled_line(cycle, ports))
            if int(dut.done.value):
                lines.append(self.format.answer_line(cycle, self.answer_ports()))
                break
            if cycle >= limit:
                lines.append(f"T {cycle:0{CYCLE_DIGITS}x}")
                break
            await FallingEdge(dut.clk)
            cycle += 1
        return lines


class InterleavedSearchTB(SearchTB):
    """The per-cycle monitor of an engine with two interleaved contexts (rtl/contexts.py, the
    ``search_c2`` design): both contexts search at once, each taking the next case as soon as it
    answers, so that every phase of one context against the other is seen. In each clock the
    ports describe, and ``start`` starts, the context named by ``turn``; a context's cycle k is
    the k-th clock of its turn after its start, which is the golden model's cycle k."""

    async def run_all(self, cases, limits, settle):
        """Run ``cases`` (with cycle ``limits``, each context's own cycles) two at a time;
        ``settle(index, lines, beside)`` gets each one's event lines as it ends, and the index of
        the case the other context is searching then (None: it is idle)."""
        dut = self.dut
        waiting = list(range(len(cases)))
        running = {}      # context -> [case index, its cycle, event lines]
        dut.start.value = 0
        while waiting or running:
            turn = int(dut.turn.value)
            entry = running.get(turn)
            if entry is not None:
                index, cycle, lines = entry
                if self.sample(cycle, lines, limits[index]):
                    del running[turn]
                    other = running.get(1 - turn)
                    settle(index, lines, None if other is None else other[0])
                else:
                    entry[1] += 1
            if turn not in running and waiting:
                index = waiting.pop(0)
                apply_case(dut, cases[index])
                dut.start.value = 1
                # cycle 0 is this context's next turn, two clocks on; its cycles are two clocks apart
                running[turn] = [index, 0, [f"S {round(get_sim_time('ns')) + 3 * CLOCK_NS // 2} {2 * CLOCK_NS}"]]
            else:
                dut.start.value = 0
            await FallingEdge(dut.clk)

    def sample(self, cycle, lines, limit):
        """Record this clock's ports as ``cycle`` of the context whose turn it is; True when its
        search has ended (an answer, a fault, X on a port, or the cycle limit)."""
        dut = self.dut
        if int(dut.fault.value):
            lines.append(f"F {cycle:0{CYCLE_DIGITS}x}")
            return True
        node_event = int(dut.node_event.value)
        ports = {name: sampled(port.value) for name, port in self.event_ports.items()}
        if loud_fields(node_event, ports):
            lines.append(self.format.loud_line(cycle, node_event, ports))
            return True
        if node_event:
            lines.append(self.format.sampled_line(cycle, ports))
        if int(dut.done.value):
            lines.append(self.format.answer_line(cycle, self.answer_ports()))
            return True
        if cycle >= limit:
            lines.append(f"T {cycle:0{CYCLE_DIGITS}x}")
            return True
        return False


class ClockedSearchTB:
    """The hdl monitor: the harness clocks the engine and logs its events; Python starts a
    search, then sleeps in simulated time until it ends, looking up now and then to lower
    the harness's limit once the golden search knows its length, to stop at a divergence the
    golden process has already found, and to show progress."""

    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        dut.go.value = 0
        dut.slot.value = 0
        dut.log_nodes.value = 1
        dut.limit.value = NO_LIMIT
        self.format = line_format(dut)

    async def ready(self):
        if str(self.dut.ready.value) != "1":   # X before the harness's first instant
            await RisingEdge(self.dut.ready)

    async def run(self, case, slot, golden=None, number=None, trace=True, label=""):
        """Start ``case`` (events to EVENT_FILES[slot]) and return when it ends, or when the
        golden process has already answered request ``number`` with a divergence."""
        dut = self.dut
        apply_case(dut, case)
        dut.slot.value = slot
        dut.log_nodes.value = int(trace)
        dut.limit.value = NO_LIMIT
        dut.go.value = 1 - int(dut.go.value)
        started_ns, started, shown = get_sim_time("ns"), time.perf_counter(), time.perf_counter()
        wake = FIRST_WAKE_CYCLES
        limited = False
        while True:
            await First(RisingEdge(dut.finished), Timer(wake * CLOCK_NS, "ns"))
            if int(dut.finished.value):
                return
            wake = min(2 * wake, MAX_WAKE_CYCLES)
            if golden is not None:
                cycles = golden.golden_cycles(number)
                if cycles is not None and not limited:
                    dut.limit.value = cycles + STALL_CYCLES + 1
                    limited = True
                if golden.done(number):
                    return
            if time.perf_counter() - shown >= PROGRESS_SECONDS:
                shown = time.perf_counter()
                simulated = int((get_sim_time("ns") - started_ns) // CLOCK_NS)
                progress(f"{label}: {simulated:,} cycles simulated, "
                         f"{simulated / (shown - started):,.0f} cycles/s")


def failure_text(case, mismatch, env):
    lines = [f"SEARCH MISMATCH in {env['design']} on {env['sim']}, seed {env['seed']}",
             f"rtl:       {env['rtl_root']}/rtl (digest {env['rtl_digest']})",
             f"case:      {case.label}",
             f"root:      {format_board(case.position)}",
             f"limits:    depth {case.depth}, budget {case.budget if case.budget is not None else 'none'}"
             f"{case.window_text()}",
             *("           " + row for row in draw(case.position).splitlines()),
             f"what:      {mismatch['what']}"]
    if mismatch.get("path") is not None:
        lines += [f"node:      #{mismatch['node']} of the trace, iteration {mismatch['iteration']}, "
                  f"path from the root: {mismatch['path']}"]
    lines += [f"cycle:     {mismatch['cycle']} after start (simulation time {mismatch['time_ns']} ns)"]
    expected, actual = mismatch.get("expected"), mismatch.get("actual")
    for name, record in (("expected", expected), ("actual", actual)):
        lines.append(f"{name + ':':10} {json.dumps(record) if record is not None else '(none)'}")
    if isinstance(expected, dict) and isinstance(actual, dict):
        differing = sorted(k for k in set(expected) | set(actual) if expected.get(k) != actual.get(k))
        lines.append(f"differs:   {', '.join(differing)}")
    lines += [f"case file: {os.path.abspath(CASE_FILE)}",
              f"replay it with a waveform: gamechip replay {os.path.abspath(CASE_FILE)} --waves"]
    return "\n".join(lines)


def environment():
    return dict(batch_environment(), design=os.environ.get("GAMECHIP_DESIGN", DESIGN),
                scale=os.environ.get("GAMECHIP_SEARCH_SCALE", "small"),
                monitor=os.environ.get("GAMECHIP_SEARCH_MONITOR", "python"))


def record_result(test, checked, searches, seconds, cycles, failure=None, sim_cpu_seconds=None,
                  golden_cpu_seconds=None, depths=None):
    record = {"tests": {}}
    if os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            record = json.load(previous)
    record["tests"][test] = {"checked": checked, "searches": searches, "wall_seconds": seconds,
                             "cycles": cycles, "sim_cpu_seconds": sim_cpu_seconds,
                             "golden_cpu_seconds": golden_cpu_seconds, "depths": depths}
    record["checked"] = sum(t["checked"] for t in record["tests"].values())
    if failure:
        record.setdefault("failure", failure)
        record.setdefault("failures", {})[test] = failure
    with open(RESULT_FILE + ".tmp", "w") as out:
        json.dump(record, out)
    os.replace(RESULT_FILE + ".tmp", RESULT_FILE)


class Tally:
    """Searches checked so far by one cocotb test: counts, and the first failure raised."""

    def __init__(self, test, cases, env):
        end_run_if_failed(test)
        self.test, self.cases, self.env = test, cases, env
        self.checked = self.cycles = self.searches = 0
        self.golden_cpu = 0.0
        self.depths = []   # the completed depth of each search
        self.started, self.cpu_started = time.perf_counter(), time.process_time()

    def settle(self, case, outcome, beside=None):
        """One search's outcome from tb.search_check.check_search: count it, or save the case
        and raise the failure report (``beside``: what the interleaved engine's other context
        was searching meanwhile, named in the report)."""
        mismatch, answer = outcome["mismatch"], outcome["answer"]
        if self.test == "replay":
            with open(ACTUAL_FILE, "w") as out:
                json.dump({"answer": answer, "trace_match": mismatch is None,
                           "nodes_checked": outcome["nodes"] if mismatch is None else mismatch.get("node"),
                           "golden": outcome["golden"]}, out)
        if mismatch is not None:
            if not os.path.exists(CASE_FILE):
                with open(CASE_FILE, "w") as out:
                    json.dump(case_record("search", case, self.env, mismatch=mismatch), out, indent=2)
            message = failure_text(case, mismatch, self.env)
            if beside is not None:
                message += (f"\nother context: searching {beside} meanwhile (the replay runs this case "
                            f"alone on {self.env['design']})")
            record_result(self.test, self.checked, self.searches, time.perf_counter() - self.started,
                          self.cycles, message)
            raise AssertionError(message)
        self.checked += outcome["nodes"]
        self.cycles += outcome["cycles"]
        self.searches += 1
        self.golden_cpu += outcome.get("cpu_seconds", 0.0)
        self.depths.append(answer["depth"])
        seconds = time.perf_counter() - self.started
        progress(f"search {self.test} on {self.env['sim']} ({self.env['monitor']} monitor): "
                 f"{self.searches}/{len(self.cases)} searches, {self.checked:,} nodes, {self.cycles:,} cycles "
                 f"checked, {self.cycles / max(seconds, 1e-9):,.0f} cycles/s ({case.label}: best {answer['best']}, "
                 f"value {answer['value']}, depth {answer['depth']}, "
                 f"{answer['cycles'] / max(1, answer['nodes']):.2f} cycles/node)")

    def done(self):
        """Record the counts; the simulator's CPU time (this process: the model and cocotb) and
        the golden process's tell what each side costs on a shared machine."""
        record_result(self.test, self.checked, self.searches, time.perf_counter() - self.started, self.cycles,
                      sim_cpu_seconds=time.process_time() - self.cpu_started,
                      golden_cpu_seconds=self.golden_cpu or None, depths=self.depths)


async def check_searches(dut, cases, test):
    """Run every case under the scoreboard; stop at the first divergence with a named node."""
    env = environment()
    if env["monitor"] == "hdl":
        await check_searches_clocked(dut, cases, test, env)
    else:
        await check_searches_per_cycle(dut, cases, test, env)


async def check_searches_per_cycle(dut, cases, test, env):
    if env["design"] == INTERLEAVED:
        await check_searches_interleaved(dut, cases, test, env)
        return
    tb = SearchTB(dut)
    await tb.reset()
    tally = Tally(test, cases, env)
    for case in cases:
        golden = search_events(case.position, case.depth, case.budget)   # its length: when to give up
        lines = await tb.run(case, golden.cycles + STALL_CYCLES + 1)
        tally.settle(case, check_search(case, lines, tb.format))
    tally.done()


async def check_searches_interleaved(dut, cases, test, env):
    """Both contexts of the interleaved engine under the scoreboard, each search against its
    own golden search; outcomes are settled as the searches end."""
    tb = InterleavedSearchTB(dut)
    await tb.reset()
    tally = Tally(test, cases, env)
    limits = [search_events(case.position, case.depth, case.budget).cycles + STALL_CYCLES + 1 for case in cases]
    await tb.run_all(cases, limits, lambda index, lines, beside: tally.settle(
        cases[index], check_search(cases[index], lines, tb.format),
        None if beside is None else cases[beside].label))
    tally.done()


async def check_searches_clocked(dut, cases, test, env):
    """The hdl monitor's loop: search k+1 runs while the golden process checks search k, each
    in its own event file; outcomes are settled in order."""
    tb = ClockedSearchTB(dut)
    await tb.ready()
    tally = Tally(test, cases, env)
    golden = GoldenProcess(log_path=os.path.abspath("golden_process.log"))
    progress(f"search {test}: golden process {golden.python}")
    in_flight = deque()
    try:
        for number, case in enumerate(cases, 1):
            if len(in_flight) == len(EVENT_FILES):
                tally.settle(*golden_outcome(golden, in_flight.popleft()))
            slot = number % len(EVENT_FILES)
            events = os.path.abspath(EVENT_FILES[slot])
            if os.path.exists(events):
                os.unlink(events)   # so that the golden process never reads the last search's file
            golden.submit(number, case, events, tb.format.widths)
            await tb.run(case, slot, golden, number, label=f"search {number}/{len(cases)} ({case.label})")
            in_flight.append((number, case))
            while in_flight and golden.done(in_flight[0][0]):
                tally.settle(*golden_outcome(golden, in_flight.popleft()))
        while in_flight:
            tally.settle(*golden_outcome(golden, in_flight.popleft()))
    finally:
        golden.close()
    for events in EVENT_FILES:   # hundreds of MB for long searches: kept only on a failure
        if os.path.exists(events):
            os.unlink(events)
    tally.done()


def golden_outcome(golden, entry):
    number, case = entry
    return case, golden.result(number)


# --- the positions ---------------------------------------------------------------------

SCALES = {
    # depth and number of random-play searches, searches with a budget that stops inside an
    # iteration, searches with a pass and a finished game inside the horizon, endgames
    # (number, empties) searched to the end, and long searches of the depth limit 16 with a budget
    # of ``long_budget`` cycles (deep iterations, killers of many plies)
    "tiny": {"windows": 0, "depth": 2, "random": 1, "budgeted": 1, "passes": 1, "endgames": 1, "empties": 3, "long": 0},
    "small": {"windows": 1, "depth": 3, "random": 3, "budgeted": 2, "passes": 2, "endgames": 2, "empties": 5, "long": 0},
    "medium": {"windows": 2, "depth": 4, "random": 6, "budgeted": 3, "passes": 3, "endgames": 3, "empties": 7, "long": 0},
    "large": {"windows": 4, "depth": 5, "random": 12, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 8, "long": 4,
              "long_budget": 250_000},
    "huge": {"depth": 6, "random": 12, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 10, "long": 10,
             "long_budget": 1_000_000},
}


def random_midgames(rng, count, low=8, high=40):
    """Positions from random games, ``low``..``high`` discs, with a legal move."""
    out = []
    while len(out) < count:
        game = random_game_positions(rng)
        candidates = [p for p in game if low <= popcount(p.black | p.white) <= high
                      and legal_moves(p.own, p.opp)]
        if candidates:
            out.append(rng.choice(candidates))
    return out


def endgames(rng, count, empties):
    """Positions from random games with exactly ``empties`` empty squares, game not over."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng):
            if 64 - popcount(p.black | p.white) == empties and (
                    legal_moves(p.own, p.opp) or legal_moves(p.opp, p.own)):
                out.append(p)
                break
    return out


def finished(node):
    """A node of the trace whose game is over (searched as terminal, or a leaf at the end)."""
    pos = node.position
    return not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own)


def with_pass_or_end(rng, count, depth):
    """Random-game positions whose depth-``depth`` tree holds both a pass and a finished game."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng)[-14:]:
            if finished_position(p):
                continue
            trace = search(p, depth).trace
            if any(n.ply > 0 and n.move is None for n in trace) and any(finished(n) for n in trace):
                out.append(p)
                break
    return out


def finished_position(p):
    return not legal_moves(p.own, p.opp) and not legal_moves(p.opp, p.own)


def directed_cases():
    black_start = start_position()
    cases = [SearchCase(black_start, d, None, f"start position, depth {d}") for d in (1, 2, 3)]
    # Depth 1 prefers C4, which is not the first legal move in the static order: iteration 2
    # must start from it (the PV), then E6 wins at depth 3.
    pv_not_first = parse_board("---------O---O---XOX-O-----OXO-----XOX-------OX----------------- X")
    cases.append(SearchCase(pv_not_first, 3, None, "PV move is not the first in static order"))
    cases.append(SearchCase(black_start, 6, 200, "start position, depth 6, budget 200 (stops in iteration 4)"))
    cases.append(SearchCase(black_start, 6, 30, "start position, budget 30 (stops in iteration 3)"))
    # Gaps the mutation score found (README, "Mutation score"): a budget that runs out inside
    # iteration 2 (every other budgeted search stops in iteration 3 or later, so an engine that
    # does not stop iteration 2 passed them), and one smaller than iteration 1, which must
    # complete anyway (an engine that applies the budget to iteration 1 passed every case).
    cases.append(SearchCase(black_start, 6, 12, "start position, budget 12 (stops in iteration 2)"))
    cases.append(SearchCase(black_start, 6, 2, "start position, budget 2 (iteration 1 completes anyway)"))
    # The side to move cannot move and the opponent's one move is A1 (square 0, the legal
    # vector 1): a pass, then a single move, then the end of the game. Nothing else gives a
    # legal vector of exactly 1, so an engine that tests "!= 1" for "any move" passed.
    only_a1 = parse_board("-XOOOOOO" + "-" * 56 + " X")
    cases.append(SearchCase(only_a1, 3, None, "root must pass, the opponent's one move is A1"))
    # The root's pass as the answer of iteration 1 (the pass leaf raises the root's alpha), as
    # the leaf that cuts the root off in iteration 1, as the child whose value cuts it off in a
    # later iteration, and as the root's only move when it fails low: four ways the
    # answer's pass flag is made, each untested before.
    cases.append(SearchCase(only_a1, 1, None, "root must pass, depth 1"))
    cases.append(SearchCase(only_a1, 1, None, "root must pass, depth 1, the pass leaf cuts the root off",
                            alpha=-20, beta=-13))
    cases.append(SearchCase(only_a1, 3, None, "root must pass, the pass child cuts the root off in iteration 2",
                            alpha=-20, beta=-10))
    cases.append(SearchCase(only_a1, 2, None, "root must pass, and the pass fails low", alpha=-5, beta=0))
    # A root child that ends the game (H2) and whose value ties the root's alpha exactly: only a
    # terminal child's value is not held inside its window, so only it can tie; with the null
    # window (51, 52) nothing raises the root's alpha and the first move, H1, stays the answer.
    tie = parse_board("OOOOOOO-OOXXXXX-OOOOOOXOOOOOOXXOOOOOOOXOOOOXXXXOOOOOOOOOOOOOOOOO O")
    cases.append(SearchCase(tie, 2, None, "a game-ending root child ties the root's alpha", alpha=51, beta=52))
    # The same child, reached second in iteration 2 (the PV H1 fails low), now over the root's
    # beta (45, 50): a terminal node at level 1 whose own value cuts the root off, the one
    # return whose cut-off compares the evaluator's value (rtl/search.py leaving_fold).
    cases.append(SearchCase(tie, 2, None, "a game-ending root child cuts the root off", alpha=45, beta=50))
    # Passes and killer moves: at depth 4 from this endgame passes cut nodes off (a pass leaf
    # at the frontier, and a pass child's returned value above it) at levels whose killer is
    # set, and later nodes of those levels have the killer legal: a pass is never a killer, so
    # the killer must stay. An engine that stores the pass's square (A1) as the killer there
    # tries the moves in another order (mutation survivors of lines 507 and 537).
    pass_killers = parse_board("--X-XXX--X--XXX-XXXXXOXXXX-XXOXX-XXXXXOX--XXXXXXOOXOXXXXOOOXXX-O O")
    cases.append(SearchCase(pass_killers, 4, None, "a pass cuts off its parent where a killer is set"))
    # A level-3 node that returns to level 2 without a cut-off, as the last child of a level-2
    # node that then returns to level 1, under a root whose alpha is set: level 1 must keep its
    # beta (minus the root's alpha, from the stack) for its next children, which cut on it. An
    # engine that loses the root's alpha there (line 601's `level >= 3`) searched every other
    # case the same.
    keeps_beta = parse_board("XXXXXXX-XXOOXX-XXXOXXXOX-XOXXXXXXXOXOOOOOXXXOXOXOXXXOOXXOOOOO-XX X")
    cases.append(SearchCase(keeps_beta, 4, None, "level 1 keeps its beta after a level-3 return"))
    # A pass at the root: white cannot move, black can.
    root_pass = parse_board("XXXXXXXX" * 7 + "XXXXXO-- O")
    cases.append(SearchCase(root_pass, 4, None, "root must pass", exact=True))
    over = parse_board("X" * 63 + "- X")
    cases.append(SearchCase(over, 2, None, "game over at the root", exact=True))
    return cases + window_cases(black_start, 3) + window_cases(pv_not_first, 4)


def window_cases(position, depth, label=""):
    """The root windows a host hands an engine (SPEC §12) around the position's true value v:
    null windows just below, at and above v (fail high, exact boundary, fail low), a narrow
    window holding v, one wholly above (every move fails low) and one wholly below (the first
    move cuts the root off)."""
    v = search(position, depth).value
    windows = [(v - 1, v), (v, v + 1), (v - 2, v + 2), (v + 1, v + 9), (v - 9, v - 1), (MINUS_INFINITY, v),
               (v, PLUS_INFINITY)]
    return [SearchCase(position, depth, None, f"{label or 'root window'} ({a}, {b}) around the value {v}",
                       alpha=a, beta=b)
            for a, b in windows if MINUS_INFINITY <= a < b <= PLUS_INFINITY]


def random_cases(seed, scale):
    rng = random.Random(seed)
    size = SCALES[scale]
    cases = [SearchCase(p, size["depth"], None, f"random play #{i} (seed {seed}), depth {size['depth']}")
             for i, p in enumerate(random_midgames(rng, size["random"]))]
    cases += [SearchCase(p, size["depth"] + 2, 300 + 200 * i,
                         f"random play #{i} (seed {seed}), budget {300 + 200 * i} cycles")
              for i, p in enumerate(random_midgames(rng, size["budgeted"]))]
    cases += [SearchCase(p, 4, None, f"pass and game over within the horizon #{i} (seed {seed})")
              for i, p in enumerate(with_pass_or_end(rng, size["passes"], 4))]
    cases += [SearchCase(p, 16, size["long_budget"], f"random play #{i} (seed {seed}), "
                         f"budget {size['long_budget']:,} cycles")
              for i, p in enumerate(random_midgames(rng, size["long"], low=20))]
    for i, p in enumerate(random_midgames(rng, size.get("windows", 0))):
        cases += window_cases(p, size["depth"], f"random play #{i} (seed {seed}), root window")
    return cases


def endgame_cases(seed, scale):
    rng = random.Random(seed + 1000)
    empties = SCALES[scale]["empties"]
    return [SearchCase(p, min(16, 2 * empties), None,
                       f"endgame #{i} with {empties} empties (seed {seed}), searched to the end",
                       exact=True)
            for i, p in enumerate(endgames(rng, SCALES[scale]["endgames"], empties))]


# --- cocotb tests ----------------------------------------------------------------------

@cocotb.test()
async def directed(dut):
    await check_searches(dut, directed_cases(), "directed")


@cocotb.test()
async def random_play(dut):
    env = environment()
    await check_searches(dut, random_cases(env["seed"], env["scale"]), "random_play")


@cocotb.test()
async def endgame(dut):
    env = environment()
    await check_searches(dut, endgame_cases(env["seed"], env["scale"]), "endgame")


@cocotb.test()
async def replay(dut):
    with open(environment()["case"]) as saved:
        case = SearchCase.from_dict(json.load(saved)["case"])
    await check_searches(dut, [case], "replay")


@cocotb.test()
async def from_file(dut):
    """The searches in the file GAMECHIP_CASES, each under the node-by-node scoreboard."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [SearchCase.from_dict(record) for record in json.load(saved)]
    await check_searches(dut, cases, "from_file")


def check_searches_on(sim, boards, depth, budget, echo=False, rtl_root=None, tag="game-nodes"):
    """Run the searches of ``boards`` (board texts) on ``sim`` with the scoreboard; the number
    of nodes checked, or AssertionError with the failure report."""
    cases = [SearchCase(parse_board(text), depth, budget, f"search #{i} of the game") for i, text in enumerate(boards)]
    return check_search_cases(sim, cases, tag, echo=echo, rtl_root=rtl_root)


def check_search_cases(sim, cases, tag, echo=False, rtl_root=None):
    """Run ``cases`` (SearchCase) in one simulation on ``sim`` under the node scoreboard; the
    number of node reports checked, or AssertionError with the failure report."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump([case.to_dict() for case in cases], out)
    try:
        outcome = run_search_bench(sim, ["from_file"], "small", tag=tag, echo=echo, cases_file=out.name,
                                   rtl_root=rtl_root)
    finally:
        os.unlink(out.name)
    if not outcome.passed:
        raise AssertionError(outcome.result.get("failure") or outcome.log_excerpt(3000))
    return outcome.result.get("checked", 0)


@cocotb.test()
async def free_run(dut):
    """The searches in the file GAMECHIP_CASES without the scoreboard (for ``make bench``):
    under the HDL clock, node events not even written; each answer and its wall time go to
    ACTUAL_FILE."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [SearchCase.from_dict(record) for record in json.load(saved)]
    tb = ClockedSearchTB(dut)
    await tb.ready()
    results = []
    for number, case in enumerate(cases, 1):
        started, cpu_started = time.perf_counter(), time.process_time()
        await tb.run(case, 0, trace=os.environ.get("GAMECHIP_SEARCH_TRACE") == "1",
                     label=f"free run {number}/{len(cases)}")
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
        with open(EVENT_FILES[0]) as events:
            last = events.read().splitlines()[-1]
        if not last.startswith("D "):
            raise AssertionError(f"free run of {case.to_dict()} ended with {last!r}")
        results.append(dict(answer_of(last), seconds=seconds, cpu_seconds=cpu_seconds))
        progress(f"search free run: {number}/{len(cases)} ({results[-1]['cycles']:,} cycles, "
                 f"{results[-1]['cycles'] / max(seconds, 1e-9):,.0f} cycles/s)")
    with open(ACTUAL_FILE, "w") as out:
        json.dump(results, out)


# --- pytest ----------------------------------------------------------------------------

# Under the HDL clock with every node checked, Verilator runs this design at 100k+ cycles/s, GHDL
# and Icarus at a few hundred: sizes chosen so each stays around a minute.
SCALE_FOR_SIM = {"icarus": "small", "verilator": "large", "ghdl": "small"}


def run_search_bench(sim, tests, scale, seed=1, waves=False, tag="", case_file=None, echo=False,
                     rtl_root=None, optimised=False, cases_file=None, monitor="hdl", plusargs=(), design=DESIGN):
    """Run cocotb ``tests`` of this bench on ``design`` (the engine, or INTERLEAVED, which has the
    per-cycle monitor only); ``monitor`` "hdl" (HDL clock, events logged by the harness) or
    "python" (the per-cycle monitor, the engine as the top level)."""
    if monitor not in MONITORS:
        raise ValueError(f"monitor must be one of {', '.join(MONITORS)}, got {monitor!r}")
    if design == INTERLEAVED and monitor != "python":
        raise ValueError(f"{INTERLEAVED} has the per-cycle monitor only")
    env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_SEARCH_SCALE": scale, "GAMECHIP_SEARCH_MONITOR": monitor}
    if cases_file:
        env["GAMECHIP_CASES"] = str(cases_file)
    if case_file:
        env["GAMECHIP_CASE"] = str(case_file)
    clocked = monitor == "hdl"
    return runner.run_design(design, sim, "tb.test_search", tests, env=env, waves=waves,
                             tag="-".join(filter(None, (tag, "clocked" if clocked else "cycle"))),
                             echo=echo, rtl_root=rtl_root, direct=not clocked, clocked=clocked, quiet=True,
                             quick_build=not optimised, plusargs=plusargs)


def waveform(sim_dir, sim, monitor="python", design=DESIGN):
    top = design if monitor == "python" else runner.harness.clocked_harness_name(design)
    return {"icarus": sim_dir / f"{top}.vcd", "verilator": sim_dir / "dump.fst",
            "ghdl": sim_dir / f"{top}.ghw"}[sim]


def replay_search_case(case_file, waves=True, echo=False, rtl_root=None, monitor="python"):
    """Re-run one saved search case (by default under the per-cycle monitor, every cycle seen
    by Python); return (RunResult, waveform path or None)."""
    record = json.loads(open(case_file).read())
    design = record.get("design", DESIGN)
    if design == INTERLEAVED:
        monitor = "python"
    outcome = run_search_bench(record["sim"], ["replay"], "small", seed=record.get("seed", 1), waves=waves,
                               tag="replay", case_file=os.path.abspath(case_file), echo=echo,
                               rtl_root=rtl_root, monitor=monitor, design=design)
    return outcome, waveform(outcome.sim_dir, record["sim"], monitor, design) if waves else None


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search(sim):
    seed = int(os.environ.get("GAMECHIP_SEED", "1"))
    scale = os.environ.get("GAMECHIP_SEARCH_SCALE") or SCALE_FOR_SIM[sim]
    if scale not in SCALES:
        pytest.fail(f"GAMECHIP_SEARCH_SCALE must be one of {', '.join(SCALES)}, got '{scale}'", pytrace=False)
    settle_run(run_search_bench(sim, ["directed", "random_play", "endgame"], scale, seed), "the search bench")


def settle_run(outcome, bench):
    """Fail with the report and the waveform of the failing case's replay, or when nothing was checked."""
    if not outcome.passed:
        message = outcome.result.get("failure", outcome.log_excerpt(3000))
        if outcome.failure_case.exists():
            replayed, path = replay_search_case(outcome.failure_case)
            message += f"\nwaveform: {path}" + ("" if path and path.exists() else " (not written)")
        pytest.fail(message, pytrace=False)
    assert outcome.result.get("checked", 0) > 0, f"{bench} checked nothing"


# Two searches at once, every node of each checked against its own golden search, under the
# per-cycle monitor (every cycle through Python: Icarus and GHDL run this design at about a hundred
# cycles a second there): on Verilator the directed set (root windows, budgets that stop inside an
# iteration, passes, finished games) and the tiny random and endgame sets; on Icarus and GHDL the
# tiny random and endgame sets (GAMECHIP_INTERLEAVED_FULL=1: what Verilator runs, a few minutes).
INTERLEAVED_TESTS = {"verilator": ["directed", "random_play", "endgame"], "icarus": ["random_play", "endgame"],
                     "ghdl": ["random_play", "endgame"]}


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search_interleaved(sim):
    tests = INTERLEAVED_TESTS["verilator" if os.environ.get("GAMECHIP_INTERLEAVED_FULL") == "1" else sim]
    settle_run(run_search_bench(sim, tests, "tiny", monitor="python", design=INTERLEAVED),
               "the interleaved search bench")
