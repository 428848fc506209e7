"""Simulator-side engine shared by every bench: batches of cases through a harness, compared
with the golden model, reported as one named case on the first mismatch.

A bench file defines a ``BlockCheck`` (how a case becomes a stimulus line, what the golden
model expects, how response lines become values, how to describe a case) and its cocotb tests
call ``check_cases``. Results and the first failing case go to JSON files in the simulator's
working directory, where ``tb.runner`` picks them up after the run.
"""

import inspect
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import cocotb
from cocotb.triggers import RisingEdge, Timer

from golden.board import draw, format_board, format_game_record, square_name, squares_of
from tb.checks import CHUNK, BlockCheck, Case, fuzz_chunk, fuzz_generators, hex_field  # noqa: F401 (re-exported)
from tb.directed import directed_positions, mixed_positions, random_positions
from tb.harness import COUNT_FILE, IDLE_MARK, IN_FILE, MAX_BATCH, MUTANT_SELECTOR, OUT_FILE
from tb.run_files import ACTUAL_FILE, CASE_FILE, CLOCK_SOURCE, RESULT_FILE  # noqa: F401 (re-exported)

# set (gamechip mutate): once a test of the run has failed, the later tests fail at once
# without simulating (a mutant is killed by its first mismatch; the rest would only cost time)
FIRST_FAILURE_ENDS_RUN = "GAMECHIP_FIRST_FAILURE_ENDS_RUN"
# set (gamechip mutate): the numbers of a group of mutants of a schemata or netlist build, all
# judged in this one run (check_group); their verdicts go to the file MUTANT_VERDICTS names
MUTANT_GROUP = "GAMECHIP_MUTANTS"
MUTANT_VERDICTS = "GAMECHIP_MUTANT_VERDICTS"


def environment():
    """What the runner passed in: simulator name, seed, count, case file."""
    return {
        "sim": os.environ.get("GAMECHIP_SIM", "?"),
        "seed": int(os.environ.get("GAMECHIP_SEED", "1")),
        "count": int(os.environ.get("GAMECHIP_COUNT", "0")),
        "case": os.environ.get("GAMECHIP_CASE"),
        "design": os.environ.get("GAMECHIP_DESIGN", "?"),
        "rtl_root": os.environ.get("GAMECHIP_RTL_TESTED"),
        "rtl_digest": os.environ.get("GAMECHIP_RTL_DIGEST"),
    }


def start_clock(dut, period_ns):
    """Clock ``dut.clk`` from Python unless the HDL harness around the design already does:
    a bench that only needs the clock's edges then runs the same on both tops."""
    if os.environ.get(CLOCK_SOURCE) == "hdl":
        return
    from cocotb.clock import Clock

    clock = Clock(dut.clk, period_ns, "ns").start()
    if inspect.iscoroutine(clock):  # cocotb 1.x: a coroutine to schedule; 2.x: already a task
        cocotb.start_soon(clock)


def case_record(block, case, env, **more):
    """A case file's fields: what was run, on which simulator and RTL (so that a replay tests the
    RTL the case failed on), the case, and whatever the bench adds (expected, actual, ...)."""
    return {"block": block, "design": env["design"], "sim": env["sim"], "seed": env["seed"],
            "rtl_root": env["rtl_root"], "rtl_digest": env["rtl_digest"], "case": case.to_dict(), **more}


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


DONE_WHILE_IDLE = "done high again after its done"


def cycle_runs(lines):
    """Response lines of a start/done harness -> per vector, its list of per-cycle field
    tuples (``cycle`` first; every vector's lines start again at cycle 0). A done in the idle
    cycles after a vector (tb.harness IDLE_MARK) ends that vector's run as a last tuple whose
    ``done`` field is DONE_WHILE_IDLE: no expected answer matches it."""
    runs = []
    for line in lines:
        fields = tuple(hex_field(f) for f in line.split())
        if isinstance(fields[0], int) and fields[0] >= IDLE_MARK and runs:
            if runs[-1][-1][1] != DONE_WHILE_IDLE:
                runs[-1].append((fields[0] - IDLE_MARK, DONE_WHILE_IDLE, *fields[2:]))
            continue
        if fields[0] == 0:
            runs.append([])
        runs[-1].append(fields)
    return runs


def split_steps(answers, cases):
    """One answer per vector -> per case, its ``len(case.moves) + 1`` answers (before the
    first fed move, then after each)."""
    out, first = [], 0
    for case in cases:
        steps = len(case.moves) + 1
        out.append(answers[first:first + steps])
        first += steps
    return out


@dataclass
class Tally:
    checked: int = 0
    units: int = 0  # the check's ``unit`` (cases, or chess replies) in the checked cases
    sim_seconds: float = 0.0  # writing stimulus, simulating, reading responses
    golden_seconds: float = 0.0  # the golden model computing the expected values
    worker_seconds: float = 0.0  # tb.fastfuzz: the golden worker making chunks (cases, stimulus, expected files)
    # tb.fastfuzz: CPU seconds (not wall) of the simulator's process over the whole loop, and of
    # the golden worker: what the loop costs each core whatever else the machine runs
    sim_cpu_seconds: float = 0.0
    worker_cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


def describe_case(case):
    if hasattr(case, "describe"):  # a chess case describes itself
        return case.describe()
    size = case.position.size
    lines = [f"case:     {case.label}", f"board:    {format_board(case.position)}"]
    if case.move is not None:
        name = square_name(case.move, size) if 0 <= case.move < size * size else "off the board"
        lines.append(f"move:     {name} (index {case.move})")
    if case.color is not None:
        lines.append(f"colour:   {case.color} (whose stable discs are counted)")
    if case.legal is not None:
        names = " ".join(square_name(s, size) for s in squares_of(case.legal)) or "none"
        lines.append(f"legal:    {case.legal:#018x} ({names}; * in the diagram)")
    if case.pv is not None:
        lines.append(f"pv:       {square_name(case.pv, size)}")
    if case.moves:
        lines.append(f"moves:    {format_game_record(case.moves, size)}")
    lines += ["          " + row for row in draw(case.position, highlight=case.legal or 0).splitlines()]
    return lines


def failure_message(check, case, expected, actual, env):
    return "\n".join([
        f"MISMATCH in {check.block} ({env['design']}) on {env['sim']}, seed {env['seed']}",
        f"rtl:      {env['rtl_root']}/rtl (digest {env['rtl_digest']})",
        *describe_case(case),
        *check.explain(case, expected, actual),
        f"case file: {os.path.abspath(CASE_FILE)}",
        f"replay it with a waveform: gamechip replay {os.path.abspath(CASE_FILE)} --waves",
    ])


def save_failure(check, case, expected, actual, env):
    """Keep the first failing case of a run (the runner clears the file before each run)."""
    if os.path.exists(CASE_FILE):
        return
    record = case_record(check.block, case, env, expected=repr(expected), actual=repr(actual))
    with open(CASE_FILE, "w") as out:
        json.dump(record, out, indent=2)


def record_result(test, tally, failure=None):
    """Merge one test's tally into the result file (atomically: a reader never sees half)."""
    record = {"tests": {}}
    if os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            record = json.load(previous)
    record["tests"][test] = asdict(tally)
    record["checked"] = sum(t["checked"] for t in record["tests"].values())
    if failure:
        record.setdefault("failure", failure)  # the first one, whose case file was kept
        record.setdefault("failures", {})[test] = failure
    with open(RESULT_FILE + ".tmp", "w") as out:
        json.dump(record, out)
    os.replace(RESULT_FILE + ".tmp", RESULT_FILE)


def progress(text):
    """A progress line for the person at the terminal; the runner shows lines with this prefix."""
    print(f"gamechip: {text}", flush=True)


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


def _verify(check, chunk, expected, lines):
    """Parse a chunk's response lines and compare: (cases that matched, their check units, first
    mismatch as (case, expected, actual) or None)."""
    actuals = check.parse(lines, chunk)
    if len(actuals) != len(chunk):   # zip would check the cases answered and drop the rest unseen
        return 0, 0, (chunk[min(len(actuals), len(chunk) - 1)], "an answer for every case of the batch",
                      f"the harness answered {len(actuals)} of {len(chunk)} cases")
    units = 0
    for matched, (case, want, got) in enumerate(zip(chunk, expected, actuals)):
        if want != got:
            return matched, units, (case, want, got)
        units += check.units(case, want)
    return len(chunk), units, None


def settle_chunk(check, test, env, tally, verdict, golden_seconds, started, total=None):
    """Count one compared chunk into ``tally``; on its mismatch save the case, record the failure
    and raise AssertionError with the message (the same for every loop: tests/test_batch.py and
    tests/test_fastfuzz.py check it). ``verdict`` is _verify's (matched, units, mismatch)."""
    matched, units, mismatch = verdict
    tally.checked += matched + (mismatch is not None)   # the mismatching case was compared too
    tally.units += units
    tally.golden_seconds += golden_seconds
    tally.wall_seconds = time.perf_counter() - started
    if mismatch is not None:
        case, expected, actual = mismatch
        save_failure(check, case, expected, actual, env)
        message = failure_message(check, case, expected, actual, env)
        record_result(test, tally, failure=message)
        raise AssertionError(message)
    if total:
        rate = tally.checked / tally.wall_seconds if tally.wall_seconds else 0.0
        progress(f"{check.block} on {env['sim']}: {tally.checked:,}/{total:,} cases checked, {rate:,.0f}/s, "
                 f"seed {env['seed']}")


def end_run_if_failed(test):
    """Under FIRST_FAILURE_ENDS_RUN, fail ``test`` at once when an earlier test of this run has
    recorded a failure in RESULT_FILE."""
    if os.environ.get(FIRST_FAILURE_ENDS_RUN) and os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            if json.load(previous).get("failure"):
                raise AssertionError(f"{test} not run: an earlier test of this run failed ({FIRST_FAILURE_ENDS_RUN})")


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
    chunks = (iter([cases[first:first + CHUNK] for first in range(0, len(cases), CHUNK)])
              if isinstance(cases, list) else iter(cases))
    golden = ThreadPoolExecutor(1)
    pending = None   # the last simulated chunk's check, running in the golden thread

    def settle(checking, chunk_golden_seconds):
        settle_chunk(check, test, env, tally, checking.result(), chunk_golden_seconds, started, total)

    try:
        preparing = golden.submit(_prepare, check, chunks)
        while True:
            prepared = preparing.result()
            if prepared is None:
                break
            preparing = golden.submit(_prepare, check, chunks)
            chunk, stimulus, expected, golden_seconds = prepared
            simulated = time.perf_counter()
            lines = await tb.run(stimulus)
            tally.sim_seconds += time.perf_counter() - simulated
            if pending is not None:
                settle(*pending)
            pending = (golden.submit(_verify, check, chunk, expected, lines), golden_seconds)
        if pending is not None:
            settle(*pending)
    finally:
        golden.shutdown(wait=True, cancel_futures=True)
    tally.wall_seconds = time.perf_counter() - started
    record_result(test, tally)
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
            matched, units, mismatch = _verify(check, chunk, expected, lines)
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

    Blocks with a fast path (tb.fastfuzz) on Verilator have their golden side in a separate
    process (PyPy where installed); every other run, and a machine without PyPy, runs the
    golden model in this process (a thread), with the same cases and results."""
    env = environment()
    from tb import fastfuzz

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
