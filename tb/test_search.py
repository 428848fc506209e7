"""Bench for rtl/search: a node-by-node scoreboard against the golden search (docs/spec.md §7).

Every node the engine reports (``node_event``: cycle, kind, ply, board, side to move, legal
moves, and for a leaf every evaluation term, the stable counts and the value) is compared with
the golden search's trace (``golden.search``), then the answer (best move, value, completed
depth, node count, cycle count). The first divergence stops the test and names the node by its
path from the root. Two monitors feed the same scoreboard (tb/checks/search.py):

* ``hdl`` (the default): the top level is the HDL-clocked harness (tb/host/harness.py), which writes
  every node event to a file; Python only starts each search and waits for its end, while a
  golden process (PyPy when installed) checks the file as it grows, one search behind at most.
  Hundreds of thousands of cycles per second on Verilator.
* ``python``: the engine itself is the top level, clocked by cocotb and sampled on every falling
  edge: slow (about 7,500 cycles/s on Verilator), but every cycle passes through Python, for
  replays and debugging.

The engine with two interleaved contexts (``search_c2``, rtl/contexts.py) has the per-cycle
monitor only (InterleavedSearchTB): both contexts search at once, and each context's events,
numbered in its own cycles, go to the same scoreboard against its own golden search. The same
monitor plays refereed games, one on each context (``paired_games``, tb/sim/paired_games.py).
"""

import json
import os
import time
from collections import deque
from dataclasses import replace

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer

from golden.board import draw, format_board
from golden.search import MINUS_INFINITY, PLUS_INFINITY
from tb.checks.search_cases import (SCALES, aimed_cases, deep_cases, deep_solve_cases, directed_cases, endgame_cases,
                                    pattern_directed_cases, random_cases, solve_cases, solve_directed_cases)
from tb.checks.aimed_search import cut_at_15_cases, full_board_cases
from tb.blocks import design_evaluator, regression_tier
from tb.checks.coverage_benches import context_bins
from tb.checks.coverage_samplers import CoverageRecorder
from tb.host import runner
from tb.host.search_bench import DESIGN, INTERLEAVED, replay_search_case, run_search_bench
from tb.host.toolchain import coverage_only_tests
from tb.sim.results import (SearchCounts, case_file_lines, case_record, end_run_if_failed, environment, progress,
                            record_result)
from tb.host.run_files import ACTUAL_FILE, CASE_FILE
from tb.checks.search import (ANSWER_PORTS, CLOCK_NS, CYCLE_DIGITS, EVENT_FILES, LEAF_FIELDS, STALL_CYCLES,
                             GoldenProcess, LineFormat, SearchCase, answer_of, check_search, evaluator_weights,
                             golden_length, loud_fields)

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
    if hasattr(dut, "solve_mode"):     # the engine that solves (rtl/designs.py: search)
        dut.solve_mode.value = int(case.solve is not None)
        dut.solve_winner.value = int(case.solve == "winner")
    elif case.solve is not None:
        raise ValueError(f"{case.label}: a solve on an engine without the solve mode")


def sampled(value):
    """A port's value as an int, or "x" when it has X or Z bits (the report shows it as such)."""
    return int(value) if value.is_resolvable else "x"


class SearchTB:
    """The per-cycle monitor: owns the clock, the reset and the engine's ports, and records
    what the harness would write, cycle by cycle."""

    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        Clock(dut.clk, CLOCK_NS, unit="ns").start()
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
        self.started = {}
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
                running[turn] = [index, 0, self.begin(cases[index])]
                self.started[index] = (turn, 1 - turn in running)   # its context, the other busy
            else:
                dut.start.value = 0
            await FallingEdge(dut.clk)

    def begin(self, case):
        """Start ``case`` on the context whose turn it is (its root and limits applied, ``start``
        raised in this clock); the first event line of its search."""
        apply_case(self.dut, case)
        self.dut.start.value = 1
        # cycle 0 is this context's next turn, two clocks on; its cycles are two clocks apart
        return [f"S {round(get_sim_time('ns')) + 3 * CLOCK_NS // 2} {2 * CLOCK_NS}"]

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
    lines += case_file_lines()
    return "\n".join(lines)


def search_environment():
    """The run's environment (tb.sim.results.environment) with the search bench's own settings."""
    return dict(environment(), design=os.environ.get("GAMECHIP_DESIGN", DESIGN),
                scale=os.environ.get("GAMECHIP_SEARCH_SCALE", "small"),
                monitor=os.environ.get("GAMECHIP_SEARCH_MONITOR", "python"))


class SearchTally:
    """Searches checked so far by one cocotb test: counts (tb.sim.results.SearchCounts in the
    result file), and the first failure raised."""

    def __init__(self, test, cases, env):
        end_run_if_failed(test)
        self.test, self.cases, self.env = test, cases, env
        self.checked = self.cycles = self.searches = 0
        self.golden_cpu = 0.0
        self.depths = []   # the completed depth of each search
        self.answers = []  # each search's answer (from_file writes them to ACTUAL_FILE)
        self.coverage = CoverageRecorder.from_environment(test)   # tb/testplans/search.toml, search_c2.toml
        self.started, self.cpu_started = time.perf_counter(), time.process_time()

    def settle(self, case, outcome, beside=None):
        """One search's outcome from tb.checks.search.check_search: count it, or save the case
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
            record_result(self.test, SearchCounts(self.checked, self.searches, time.perf_counter() - self.started,
                                                  self.cycles), failure=message)
            raise AssertionError(message)
        if self.coverage is not None:
            self.coverage.add(outcome.get("hits", {}))
        self.checked += outcome["nodes"]
        self.cycles += outcome["cycles"]
        self.searches += 1
        self.golden_cpu += outcome.get("cpu_seconds", 0.0)
        self.depths.append(answer["depth"])
        self.answers.append(dict(answer, nodes_checked=outcome["nodes"]))
        seconds = time.perf_counter() - self.started
        progress(f"search {self.test} on {self.env['sim']} ({self.env['monitor']} monitor): "
                 f"{self.searches}/{len(self.cases)} searches, {self.checked:,} nodes, {self.cycles:,} cycles "
                 f"checked, {self.cycles / max(seconds, 1e-9):,.0f} cycles/s ({case.label}: best {answer['best']}, "
                 f"value {answer['value']}, depth {answer['depth']}, "
                 f"{answer['cycles'] / max(1, answer['nodes']):.2f} cycles/node)")

    def done(self):
        """Record the counts; the simulator's CPU time (this process: the model and cocotb) and
        the golden process's tell what each side costs on a shared machine."""
        record_result(self.test, SearchCounts(self.checked, self.searches, time.perf_counter() - self.started,
                                              self.cycles, sim_cpu_seconds=time.process_time() - self.cpu_started,
                                              golden_cpu_seconds=self.golden_cpu or None, depths=self.depths))
        if self.coverage is not None:
            self.coverage.save()
        if self.test == "from_file":
            with open(ACTUAL_FILE, "w") as out:
                json.dump({"answers": self.answers}, out)


async def check_searches(dut, cases, test):
    """Run every case under the scoreboard; stop at the first divergence with a named node. The
    golden search takes the design's evaluator (tb.blocks.design_evaluator)."""
    env = search_environment()
    cases = [replace(case, evaluator=design_evaluator(env["design"])) for case in cases]
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
    tally = SearchTally(test, cases, env)
    for case in cases:
        lines = await tb.run(case, golden_length(case) + STALL_CYCLES + 1)   # when to give up
        tally.settle(case, check_search(case, lines, tb.format))
    tally.done()


async def check_searches_interleaved(dut, cases, test, env):
    """Both contexts of the interleaved engine under the scoreboard, each search against its
    own golden search; outcomes are settled as the searches end."""
    tb = InterleavedSearchTB(dut)
    await tb.reset()
    tally = SearchTally(test, cases, env)
    limits = [golden_length(case) + STALL_CYCLES + 1 for case in cases]
    def settle(index, lines, beside):
        outcome = check_search(cases[index], lines, tb.format)
        if "hits" in outcome:   # coverage per context (tb/testplans/search_c2.toml)
            outcome["hits"] = context_bins(outcome["hits"], *tb.started[index], beside is not None)
        tally.settle(cases[index], outcome, None if beside is None else cases[beside].label)

    await tb.run_all(cases, limits, settle)
    tally.done()


async def check_searches_clocked(dut, cases, test, env):
    """The hdl monitor's loop: search k+1 runs while the golden process checks search k, each
    in its own event file; outcomes are settled in order."""
    tb = ClockedSearchTB(dut)
    await tb.ready()
    tally = SearchTally(test, cases, env)
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


# --- cocotb tests ----------------------------------------------------------------------

@cocotb.test()
async def directed(dut):
    await check_searches(dut, directed_cases(), "directed")


@cocotb.test()
async def random_play(dut):
    env = search_environment()
    await check_searches(dut, random_cases(env["seed"], env["scale"]), "random_play")


@cocotb.test()
async def endgame(dut):
    env = search_environment()
    await check_searches(dut, endgame_cases(env["seed"], env["scale"]), "endgame")


@cocotb.test()
async def solve_directed(dut):
    """The solve mode's directed cases (tb.checks.search_cases solve_directed_cases: finished games,
    passes at the root and at the last empty, abandoned solves, WLD root outcomes), checked as
    :func:`solve` checks."""
    env = search_environment()
    await check_searches(dut, solve_directed_cases(env["seed"]), "solve_directed")


@cocotb.test()
async def pattern_directed(dut):
    """The engine with the pattern evaluator (search_pattern) only: leaves at the stage limits and
    saturated, full boards at the root, budgets in each cycle of a leaf's wait (pattern_directed_cases,
    aimed at search_pattern.toml with the committed weight file)."""
    env = search_environment()
    await check_searches(dut, pattern_directed_cases(env["seed"], evaluator_weights("pattern")), "pattern_directed")


@cocotb.test()
async def solve(dut):
    """The solve mode (tb.checks.search_cases solve_cases): every node against the golden search's
    solve, each completed solve's value and best move against the golden solver (golden/solve.py);
    from the medium scale on, also the solves whose stack goes below level 16."""
    env = search_environment()
    deep = deep_solve_cases() if env["scale"] in ("medium", "large", "regression", "huge") else []
    await check_searches(dut, solve_cases(env["seed"], env["scale"]) + deep, "solve")


@cocotb.test()
async def aimed(dut):
    """Boards no game reaches (tb.checks.search_cases aimed_cases): captures of every length in
    every direction from every square, and random occupancies; the Verilator runs that collect
    code coverage add it (CODE_COVERAGE_TESTS)."""
    await check_searches(dut, aimed_cases(search_environment()["seed"]), "aimed")


@cocotb.test()
async def aimed_deep(dut):
    """A search reaching ply 16 (tb.checks.search_cases deep_cases): thousands of nodes; the
    Verilator runs that collect code coverage add it (CODE_COVERAGE_TESTS)."""
    await check_searches(dut, deep_cases(), "aimed_deep")


@cocotb.test()
async def aimed_full_boards(dut):
    """Full boards split between the colours by a row or column boundary, either side to move
    (tb.checks.aimed_search full_board_cases): finished games at the root, whose lines give every
    pattern cell of the node's and the evaluator's move checkers every run that can reach it, for
    either side; the Verilator runs that collect code coverage add it (CODE_COVERAGE_TESTS)."""
    await check_searches(dut, full_board_cases(), "aimed_full_boards")


@cocotb.test()
async def aimed_cut_at_15(dut):
    """A depth-16 search in which a node at ply 15 cuts its parent off, so that the engine returns
    two levels from level 15 (tb.checks.aimed_search cut_at_15_cases); the Verilator runs that
    collect code coverage add it (CODE_COVERAGE_TESTS)."""
    await check_searches(dut, cut_at_15_cases(), "aimed_cut_at_15")


@cocotb.test()
async def replay(dut):
    with open(search_environment()["case"]) as saved:
        case = SearchCase.from_dict(json.load(saved)["case"])
    await check_searches(dut, [case], "replay")


@cocotb.test()
async def from_file(dut):
    """The searches in the file GAMECHIP_CASES, each under the node-by-node scoreboard; their
    answers, in order, to ACTUAL_FILE."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [SearchCase.from_dict(record) for record in json.load(saved)]
    await check_searches(dut, cases, "from_file")


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


@cocotb.test()
async def paired_games(dut):
    """Refereed games two at a time on the interleaved engine, one game on each context
    (``gamechip tournament --games-per-engine 2``, tb/sim/paired_games.py): the games of the file
    GAMECHIP_GAMES (a list of level, processor_color, budget), every node of every search checked
    against its own golden search, every answer against the golden processor's move; the games and
    the clocks simulated in ACTUAL_FILE."""
    from rtl.designs import PROCESSOR_DEPTH_LIMIT
    from tb.sim.paired_games import play_games

    env = search_environment()
    with open(os.environ["GAMECHIP_GAMES"]) as saved:
        specs = json.load(saved)
    tb = InterleavedSearchTB(dut)
    await tb.reset()
    cases = []   # the searches started so far
    tally = SearchTally("paired_games", cases, env)

    def begin(case):
        cases.append(case)
        return tb.begin(case)

    def settle(case, lines, beside):
        outcome = check_search(case, lines, tb.format)
        tally.settle(case, outcome, beside)
        return outcome

    started = time.perf_counter()
    try:
        games, clocks = await play_games(tb, specs, begin, settle, PROCESSOR_DEPTH_LIMIT, env["sim"])
    except AssertionError as failure:   # a node's divergence is recorded already; a move's is not
        record_result("paired_games", SearchCounts(tally.checked, tally.searches, time.perf_counter() - started,
                                                   tally.cycles), failure=str(failure))
        raise
    tally.done()
    with open(ACTUAL_FILE, "w") as out:
        json.dump({"games": games, "clocks": clocks, "seconds": time.perf_counter() - started}, out)


# --- pytest ----------------------------------------------------------------------------

# Under the HDL clock with every node checked, Verilator runs this design at 100k+ cycles/s, GHDL
# and Icarus at a few hundred. In the default tier Verilator's model is compiled at -O0 (short_run:
# 66 CPU-s for build and run against 109 with its per-cycle code at -Os). Per regression tier
# (tb.blocks.regression_tier), Verilator the regression set in the default tier (large's with a
# third of its random depth-5 searches and one of its four long ones: the search plan closes with
# it) and the large set in the full tier;
# Icarus and GHDL the tiny random, endgame and solve sets in the default tier (the other
# conversion and each simulator's semantics) and the small ones with the directed set in the full tier.
SCALE_FOR_SIM = {"default": {"icarus": "tiny", "verilator": "regression", "ghdl": "tiny"},
                 "full": {"icarus": "small", "verilator": "large", "ghdl": "small"}}
# The sets per simulator: Icarus and GHDL simulate the engine at tens of cycles a second on a busy
# machine, and the directed set (root windows, budgets stopping inside an iteration, passes,
# finished games: 5,351 cycles) is ten times their random searches; in the default tier they leave
# it to Verilator and search random positions, endgames and solves of each conversion. The solve
# mode's directed set (finished games, passes, abandoned solves, WLD outcomes: seconds) runs on
# Icarus and Verilator, on GHDL in the full tier.
EVERY_SEARCH_TEST = ["directed", "random_play", "endgame", "solve_directed", "solve"]
SEARCH_TESTS = {"default": {"icarus": ["random_play", "endgame", "solve_directed", "solve"], "verilator": EVERY_SEARCH_TEST,
                            "ghdl": ["random_play", "endgame", "solve"]},
                "full": {sim: EVERY_SEARCH_TEST for sim in ("icarus", "verilator", "ghdl")}}


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search(sim):
    seed = int(os.environ.get("GAMECHIP_SEED", "1"))
    scale = os.environ.get("GAMECHIP_SEARCH_SCALE") or SCALE_FOR_SIM[regression_tier()][sim]
    if scale not in SCALES:
        pytest.fail(f"GAMECHIP_SEARCH_SCALE must be one of {', '.join(SCALES)}, got '{scale}'", pytrace=False)
    tests = SEARCH_TESTS[regression_tier()][sim] + coverage_only_tests(sim, CODE_COVERAGE_TESTS)
    settle_run(run_search_bench(sim, tests, scale, seed, short_run=regression_tier() == "default"), "the search bench")


# Aimed searches that only code coverage needs and that cost the regression seconds (the aimed
# boards: hundreds of small searches; the deep ones: thousands of nodes, each checked): gamechip
# coverage's Verilator runs, which collect code coverage (tb.host.toolchain CODE_COVERAGE_FOLDER), add them.
CODE_COVERAGE_TESTS = ["aimed", "aimed_deep", "aimed_full_boards", "aimed_cut_at_15"]



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
# cycles a second there). Verilator runs the directed set (root windows, budgets that stop inside an
# iteration, passes, finished games) and the tiny random and endgame sets in both tiers; Icarus and
# GHDL the tiny random set (three searches, so the contexts interleave) in the default tier, and
# all of Verilator's in the full tier.
INTERLEAVED_TESTS = {"default": {"verilator": ["directed", "random_play", "endgame"], "icarus": ["random_play"],
                                 "ghdl": ["random_play"]},
                     "full": {sim: ["directed", "random_play", "endgame"] for sim in runner.SIMULATORS}}


# The two-context engine is the one-context engine's variant: GHDL, the slowest to simulate it,
# runs it in the full tier only (make test-full), as Verilator runs the batch blocks' variants.
@pytest.mark.parametrize("sim", [pytest.param(sim, marks=pytest.mark.full) if sim == "ghdl" else sim
                                 for sim in runner.SIMULATORS])
def test_search_interleaved(sim):
    tests = INTERLEAVED_TESTS[regression_tier()][sim] + coverage_only_tests(sim, CODE_COVERAGE_TESTS)
    settle_run(run_search_bench(sim, tests, "tiny", monitor="python", design=INTERLEAVED),
               "the interleaved search bench")
