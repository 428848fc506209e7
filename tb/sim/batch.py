"""Simulator-side engine shared by every bench: batches of cases through a harness, compared
with the golden model, reported as one named case on the first mismatch.

A bench file defines a ``BlockCheck`` (how a case becomes a stimulus line, what the golden
model expects, how response lines become values, how to describe a case) and its cocotb tests
call ``check_cases``. Results and the first failing case go to JSON files in the simulator's
working directory, where ``tb.host.runner`` picks them up after the run.
"""

import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

from cocotb.triggers import RisingEdge, Timer

from tb.checks.combinational import CHUNK, BlockCheck, Case, fuzz_chunk, fuzz_generators, hex_field  # noqa: F401 (re-exported)
from tb.checks.coverage_samplers import CoverageRecorder
from tb.checks.directed import directed_positions, mixed_positions, random_positions
from tb.host.harness import COUNT_FILE, IN_FILE, MAX_BATCH, MUTANT_SELECTOR, OUT_FILE
from tb.host.run_files import ACTUAL_FILE, CASE_FILE, CLOCK_SOURCE, RESULT_FILE  # noqa: F401 (re-exported)
from tb.sim import fastfuzz
from tb.sim.results import (FIRST_FAILURE_ENDS_RUN, Tally, case_record, describe_case,  # noqa: F401 (re-exported)
                            end_run_if_failed, environment, progress, record_result, settle_chunk, verify)

# set (gamechip mutate): the numbers of a group of mutants of a schemata or netlist build, all
# judged in this one run (check_group); their verdicts go to the file MUTANT_VERDICTS names
MUTANT_GROUP = "GAMECHIP_MUTANTS"
MUTANT_VERDICTS = "GAMECHIP_MUTANT_VERDICTS"


def start_clock(dut, period_ns):
    """Clock ``dut.clk`` from Python unless the HDL harness around the design already does:
    a bench that only needs the clock's edges then runs the same on both tops."""
    if os.environ.get(CLOCK_SOURCE) == "hdl":
        return
    from cocotb.clock import Clock

    Clock(dut.clk, period_ns, unit="ns").start()


class BatchTB:
    """Owns the harness: the go/ready handshake and the stimulus and response files."""

    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        dut.go.value = 0

    async def run(self, lines):
        """Each line is one case's stimulus: one vector, or several joined by newlines. The
        harness takes at most MAX_BATCH vectors a go (its stimulus memory), so longer runs go in
        several, split between cases."""
        answers, batch, vectors = [], [], 0
        for line in lines:
            size = line.count("\n") + 1
            if size > MAX_BATCH:
                raise ValueError(f"one case of {size} vectors: a batch holds at most {MAX_BATCH}")
            if vectors + size > MAX_BATCH:
                answers += await self._go(batch, vectors)
                batch, vectors = [], 0
            batch.append(line)
            vectors += size
        if batch:
            answers += await self._go(batch, vectors)
        return answers

    async def _go(self, lines, vectors):
        with open(IN_FILE, "w") as stimulus:
            stimulus.write("".join(line + "\n" for line in lines))
        return (await self.go_file(vectors)).decode().split("\n")[:-1]

    async def go_file(self, vectors, binary=False):
        """Run the ``vectors`` stimulus lines already in IN_FILE (``binary``: the packed stimulus
        in BIN_FILE, Verilog combinational harnesses only); the response file's bytes."""
        with open(COUNT_FILE, "w") as count:
            count.write(f"{vectors} 1\n" if binary else f"{vectors}\n")
        self.dut.go.value = 0
        await Timer(1, "ns")
        self.dut.go.value = 1
        await RisingEdge(self.dut.ready)
        self.dut.go.value = 0
        with open(OUT_FILE, "rb") as response:
            return response.read()


def _prepare(check, chunks):
    """The next chunk of cases with its stimulus lines and expected values (None when there are
    no more), and the seconds the golden model took: work for the golden thread."""
    chunk = next(chunks, None)
    if chunk is None:
        return None
    stimulus = [check.stimulus(case) for case in chunk]
    started = time.perf_counter()
    expected = [check.expected(case) for case in chunk]
    return chunk, stimulus, expected, time.perf_counter() - started


def verify_and_sample(check, chunk, expected, lines, coverage):
    """verify, then (when the run samples coverage and the chunk matched) the chunk's bins."""
    verdict = verify(check, chunk, expected, lines)
    if coverage is not None and verdict[2] is None:
        coverage.sample(chunk, expected)
    return verdict


async def check_cases(tb, check, cases, test, tally=None, total=None):
    """Run ``cases`` (a list, or an iterator of lists: chunks made on demand) through the
    harness; raise AssertionError on the first mismatch. ``tally`` carries counts across calls;
    ``total`` turns on progress lines.

    The simulator and the golden model overlap: while the simulator runs chunk k (the GIL is
    free then), a golden thread parses and checks chunk k - 1 and makes chunk k + 1 with its
    stimulus and expected values. Mismatches are still reported in case order, the first one.
    """
    if os.environ.get(MUTANT_GROUP):
        return await check_group(tb, check, cases, test, tally)
    end_run_if_failed(test)
    env = environment()
    tally = tally or Tally()
    started = time.perf_counter() - tally.wall_seconds
    cpu_started = time.process_time() - tally.sim_cpu_seconds   # the process: simulator and golden thread
    chunks = (iter([cases[first:first + CHUNK] for first in range(0, len(cases), CHUNK)])
              if isinstance(cases, list) else iter(cases))
    golden = ThreadPoolExecutor(1)
    pending = None   # the last simulated chunk's check, running in the golden thread
    coverage = CoverageRecorder.from_environment(test)   # None unless the run samples coverage

    def settle(checking, chunk_golden_seconds):
        settle_chunk(check, test, env, tally, checking.result(), chunk_golden_seconds, started, total)

    try:
        preparing = golden.submit(_prepare, check, chunks)
        while True:
            prepared = preparing.result()
            if prepared is None or coverage is not None and coverage.closed():
                break
            preparing = golden.submit(_prepare, check, chunks)
            chunk, stimulus, expected, golden_seconds = prepared
            simulated = time.perf_counter()
            lines = await tb.run(stimulus)
            tally.sim_seconds += time.perf_counter() - simulated
            if pending is not None:
                settle(*pending)
            pending = (golden.submit(verify_and_sample, check, chunk, expected, lines, coverage), golden_seconds)
        if pending is not None:
            settle(*pending)
    finally:
        golden.shutdown(wait=True, cancel_futures=True)
        if coverage is not None:
            coverage.save()
    tally.wall_seconds = time.perf_counter() - started
    tally.sim_cpu_seconds = time.process_time() - cpu_started
    record_result(test, tally)
    return tally


async def check_cases_counting_cycles(dut, check, cases, test, total=None, tally=None):
    """check_cases through a new BatchTB, then the check's report of the cycles its replies took
    (the chess blocks' ``report_cycles``)."""
    tally = await check_cases(BatchTB(dut), check, cases, test, tally=tally, total=total)
    check.report_cycles()
    return tally


class MutantGroup:
    """The verdicts file of a group run: which mutants a test killed (test, the mismatch, the
    seconds simulated for it), the simulated seconds of each, and the mutant being run, so that
    a run that crashes or is killed names the mutant it was on and loses no verdict before it."""

    def __init__(self):
        self.path = os.environ[MUTANT_VERDICTS]
        self.numbers = [int(n) for n in os.environ[MUTANT_GROUP].split(",")]
        self.state = {"killed": {}, "seconds": {}, "running": None}
        if os.path.exists(self.path):
            with open(self.path) as previous:
                self.state = json.load(previous)

    def alive(self):
        return [n for n in self.numbers if str(n) not in self.state["killed"]]

    def running(self, number):
        self.state["running"] = number
        self.save()

    def ran(self, number, seconds):
        self.state["seconds"][str(number)] = self.state["seconds"].get(str(number), 0.0) + seconds

    def kill(self, number, test, message):
        self.state["killed"][str(number)] = {"test": test, "message": message}

    def save(self):
        with open(self.path + ".tmp", "w") as out:
            json.dump(self.state, out)
        os.replace(self.path + ".tmp", self.path)


def _short_mismatch(check, case, expected, actual):
    """One line for a mutant's kill: the case and both values."""
    label = describe_case(case)[0].split(":", 1)[-1].strip()
    return f"MISMATCH in {check.block} on case {label}: expected {expected!r}, actual {actual!r}"[:400]


FIRST_SLICE = 4   # cases in a group's first batch of each test: most mutants die in the first few


def _growing_slices(chunks):
    """The cases of ``chunks`` (lists, made on demand) again, in slices of FIRST_SLICE cases,
    then twice as many each time, up to CHUNK: a killed mutant costs the cases up to its first
    mismatch, not a whole chunk of them."""
    size, pending = FIRST_SLICE, []
    for chunk in chunks:
        pending += chunk
        while len(pending) >= size:
            yield pending[:size]
            pending, size = pending[size:], min(CHUNK, 2 * size)
    if pending:
        yield pending


async def check_group(tb, check, cases, test, tally=None):
    """check_cases for a group of mutants (MUTANT_GROUP): each chunk of cases, its stimulus and
    golden values made once, runs on every mutant of the group not yet killed, the design's
    MUTSEL written between runs (a sequential design is reset by the harness at every batch; the
    cases go in slices that grow from FIRST_SLICE, so that the first mismatch comes early);
    a mismatch kills that mutant, never the test. The original (MUTSEL 0) is not run here:
    gamechip mutate has run it through the ordinary bench first."""
    group = MutantGroup()
    tally = tally or Tally()
    started = time.perf_counter() - tally.wall_seconds
    selector = getattr(tb.dut.dut, MUTANT_SELECTOR)
    for chunk in _growing_slices([cases] if isinstance(cases, list) else cases):
        alive = group.alive()
        if not alive:
            break
        stimulus = [check.stimulus(case) for case in chunk]
        golden = time.perf_counter()
        expected = [check.expected(case) for case in chunk]
        tally.golden_seconds += time.perf_counter() - golden
        matching = None   # a surviving mutant's answers
        for number in alive:
            group.running(number)
            selector.value = number
            simulated = time.perf_counter()
            lines = await tb.run(stimulus)
            tally.sim_seconds += time.perf_counter() - simulated
            matched, units, mismatch = verify(check, chunk, expected, lines)
            group.ran(number, time.perf_counter() - simulated)
            if mismatch is not None:
                group.kill(number, test, _short_mismatch(check, *mismatch))
            else:
                matching = lines
        if matching is not None and matching is not lines:
            check.parse(matching, chunk)   # what a bench keeps from parsing (perft's answers): a survivor's
        tally.checked += len(chunk)
    selector.value = 0
    group.running(None)
    tally.wall_seconds = time.perf_counter() - started
    record_result(test, tally)
    return tally


async def each_mutant(dut, test, body, after=None):
    """A test of a bench that drives the design itself (not through the batch harness) under a
    mutant group: ``body(dut)`` once per mutant of the group not yet killed, the selector of the
    design (the instance ``dut`` of its HDL-clocked harness) written before; any exception kills
    that mutant; ``after()`` then clears what the body left running (its forked tasks)."""
    group = MutantGroup()
    selector = getattr(dut.dut, MUTANT_SELECTOR)
    for number in group.alive():
        group.running(number)
        selector.value = number
        clock = time.perf_counter()
        try:
            await body(dut)
        except Exception as failure:   # noqa: BLE001 - every failure of the test kills the mutant
            lines = str(failure).splitlines()
            group.kill(number, test, (lines[0] if lines else type(failure).__name__)[:400])
        finally:
            group.ran(number, time.perf_counter() - clock)
            if after is not None:
                after()
    selector.value = 0
    group.running(None)


# The tests every bench registers, each a one-line cocotb test calling one of these.

async def run_directed(dut, check):
    await check_cases(BatchTB(dut), check, check.cases(directed_positions(check.size), exhaustive=True), "directed")


async def run_random(dut, check, kind):
    env = environment()
    positions = random_positions(kind, random.Random(env["seed"]), env["count"], check.size)
    await check_cases(BatchTB(dut), check, check.cases(positions, rng=random.Random(env["seed"] + 1)), f"random_{kind}")


async def run_fuzz(dut, check):
    """``count`` mixed random positions from ``seed``, fed in chunks so memory stays flat.

    Blocks with a fast path (tb.sim.fastfuzz) on Verilator have their golden side in a separate
    process (PyPy where installed); every other run, and a machine without PyPy, runs the
    golden model in this process (a thread), with the same cases and results."""
    env = environment()
    python, why = fastfuzz.golden_python(check, env)
    if python:
        await fastfuzz.check_fuzz(BatchTB(dut), check, env, python)
        return
    if why:
        progress(why)
    positions_rng, moves_rng = fuzz_generators(env["seed"])

    def chunks():   # made in the golden thread, one chunk ahead of the simulator
        for first in range(0, env["count"], CHUNK):
            yield fuzz_chunk(check, positions_rng, moves_rng, first, env["count"])

    # cases per position: 2 for stable_discs (both colours), else 1
    per_position = len(check.cases(mixed_positions(random.Random(0), 1, check.size), rng=random.Random(0)))
    await check_cases(BatchTB(dut), check, chunks(), "fuzz", total=env["count"] * per_position)


async def run_replay(dut, check):
    """The one case in the file GAMECHIP_CASE names (a saved failure, or a question from the
    CLI): record what the block answered, then check it like any other case."""
    with open(environment()["case"]) as saved:
        case = Case.from_dict(json.load(saved)["case"])
    tb = BatchTB(dut)
    actual = check.parse(await tb.run([check.stimulus(case)]), [case])[0]
    with open(ACTUAL_FILE, "w") as out:
        json.dump(check.report(actual), out)
    await check_cases(tb, check, [case], "replay")


async def run_candidates(dut, check):
    """Every case in the file GAMECHIP_CASES through the harness, none of them stopping the run:
    for each, whether it matched the golden model and both values, to the file GAMECHIP_VERDICTS.
    The shrinker's batch: one simulation decides a whole round of candidates."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [Case.from_dict(record) for record in json.load(saved)]
    tb, tally, verdicts = BatchTB(dut), Tally(), []
    started = time.perf_counter()
    for first in range(0, len(cases), CHUNK):
        chunk = cases[first:first + CHUNK]
        actuals = check.parse(await tb.run([check.stimulus(case) for case in chunk]), chunk)
        if len(actuals) != len(chunk):  # a short answer would pair values with the wrong cases
            raise AssertionError(f"the harness answered {len(actuals)} of {len(chunk)} candidate cases")
        for case, actual in zip(chunk, actuals):
            expected = check.expected(case)
            verdicts.append({"match": expected == actual, "expected": repr(expected), "actual": repr(actual)})
    tally.checked, tally.wall_seconds = len(verdicts), time.perf_counter() - started
    target = os.environ["GAMECHIP_VERDICTS"]
    with open(target + ".tmp", "w") as out:
        json.dump(verdicts, out)
    os.replace(target + ".tmp", target)
    record_result("candidates", tally)
