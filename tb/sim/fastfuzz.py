"""The fuzz loop of the combinational blocks on Verilator, with the golden side in another
process: ``python -m tb.checks.golden_worker`` under PyPy (when installed) makes each chunk's stimulus
(binary, read by the harness with one ``$fread``) and the expected response file, byte for byte as the harness writes it, on the core the
simulator does not use; this side only moves the stimulus into place, runs the harness and
compares the simulator's response file with the expected one as bytes.

Only when a chunk's bytes differ does this side decode it: it makes the chunk's cases again in
this process from the random generators' states the worker sent (tb.checks.combinational ``fuzz_chunk``, the
same code as the in-process loop), checks that they are the stimulus the simulator ran, and
compares every answer with the golden model here (the block's ``expected``), so that a mismatch
is reported exactly as tb.sim.batch reports it (both settle through tb.sim.results): seed, case, position, expected and actual values,
case file, replay command. Bytes that differ while every answer matches would mean the worker
wrote a wrong expected file: that stops the run as an error of the fast path.

The checks with a fast path define ``expected_line`` (tb.checks.combinational); the other blocks, and the
other simulators, keep tb.sim.batch's in-process loop.
"""

import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

from tb.checks.combinational import BlockCheck, fuzz_chunk, pack_stimulus
from tb.host.harness import BIN_FILE, stimulus_width
from tb.sim.results import Tally, end_run_if_failed, progress, record_result, settle_chunk, verify

ROOT = Path(__file__).resolve().parents[2]
FAST_SIMULATORS = ("verilator",)
# an interpreter for the golden worker (e.g. /usr/bin/pypy3, or a CPython), or "inprocess" for
# tb.sim.batch's in-process loop; unset: pypy3 from PATH, else in-process
GOLDEN_PYTHON = "GAMECHIP_GOLDEN_PYTHON"
WORKER_LOG = "golden_worker.log"
NO_PYPY = ("PyPy (pypy3) not found: the golden model runs in this process on CPython (same results, slower); "
           "'make setup' installs pypy3")


class FastPathError(AssertionError):
    """The fast path itself went wrong (not the block): a worker that died or is out of step."""


def has_fast_path(check):
    return type(check).expected_line is not BlockCheck.expected_line and \
        type(check).units is BlockCheck.units


def golden_python(check, env):
    """(interpreter for the golden worker or None, a line to show or None)."""
    if env["sim"] not in FAST_SIMULATORS or not has_fast_path(check):
        return None, None
    setting = os.environ.get(GOLDEN_PYTHON, "")
    if setting == "inprocess":
        return None, f"golden model in this process ({GOLDEN_PYTHON}=inprocess)"
    if setting:
        found = shutil.which(setting)
        if not found:
            raise FastPathError(f"{GOLDEN_PYTHON}={setting}: no such interpreter")
        return found, None
    found = shutil.which("pypy3")
    return (found, None) if found else (None, NO_PYPY)


class Worker:
    """The golden worker process and its two pipes."""

    def __init__(self, python, check, seed, count, field_bytes, kernel=None):
        command = [python, "-m", "tb.checks.golden_worker", "--block", check.block, "--size", str(check.size),
                   "--seed", str(seed), "--count", str(count), "--field-bytes", str(field_bytes)] + \
            (["--kernel", kernel] if kernel else [])
        self.log = open(WORKER_LOG, "w")
        # only the project on its path: the simulator's PYTHONPATH holds CPython's packages
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.ended = False

    def receive(self):
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            self.log.flush()
            tail = Path(WORKER_LOG).read_text()[-3000:]
            raise FastPathError(f"the golden worker ({' '.join(self.process.args)}) stopped with exit status "
                                f"{self.process.returncode}:\n{tail}")
        record = json.loads(line)
        self.ended = bool(record.get("end"))
        return record

    def release(self, chunk):
        """The bench is done with ``chunk``: its slot may be written again."""
        try:
            self.process.stdin.write(f"{chunk}\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass

    def stop(self):
        if not self.ended:
            self.process.kill()
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        self.process.stdout.close()
        self.process.wait()
        self.log.close()


def chunk_cases(check, record, count):
    """The cases of the chunk the worker described in ``record``, made again in this process."""
    positions_rng, moves_rng = random.Random(), random.Random()
    for rng, (version, state, gauss) in zip((positions_rng, moves_rng), record["states"]):
        rng.setstate((version, tuple(state), gauss))
    return fuzz_chunk(check, positions_rng, moves_rng, record["first"], count)


def decode_chunk(check, record, answers, count, stimulus, field_bytes):
    """A chunk whose response bytes differ from the worker's: verify's (matched, units,
    mismatch) from the cases made again here and the golden model in this process."""
    cases = chunk_cases(check, record, count)
    if pack_stimulus([check.stimulus(case) for case in cases], field_bytes) != stimulus:
        raise FastPathError(f"chunk {record['chunk']}: the golden worker's stimulus is not the bench's own cases "
                            f"from the same generator states (tb.checks.golden_worker out of step with tb.checks.combinational)")
    lines = answers.decode(errors="replace").split("\n")[:-1]
    verdict = verify(check, cases, [check.expected(case) for case in cases], lines)
    if verdict[2] is None:
        raise FastPathError(f"chunk {record['chunk']}: the simulator's answers match the golden model, but not the "
                            f"expected file of the golden worker ({record['expected']}): its kernel is wrong")
    return verdict


def field_bytes(design):
    """Bytes of one binary stimulus field of ``design``'s harness (a word of its memory)."""
    from rtl.designs import PORTS

    return (stimulus_width(PORTS[design]) + 7) // 8


async def check_fuzz(tb, check, env, python, test="fuzz", kernel=None, width_bytes=None):
    """The fuzz test of ``check``'s block: ``env['count']`` positions from ``env['seed']``
    through ``tb`` (a tb.sim.batch.BatchTB, or anything with its ``go_file``), golden side in a
    worker run by ``python``; raises AssertionError on the first mismatch like tb.sim.batch.
    ``width_bytes``: of a stimulus field (default: from the design's ports)."""
    end_run_if_failed(test)
    tally = Tally()
    count = env["count"]
    width_bytes = width_bytes or field_bytes(env["design"])
    started, cpu = time.perf_counter(), time.process_time()
    worker = Worker(python, check, env["seed"], count, width_bytes, kernel)
    try:
        hello = worker.receive()
        progress(f"{check.block}: golden model in a separate {hello['python']} process ({hello['kernel']} kernel), "
                 f"the simulator's answers compared with its expected file")
        while True:
            record = worker.receive()
            if record.get("end"):
                break
            os.replace(record["stimulus"], BIN_FILE)
            simulated = time.perf_counter()
            answers = await tb.go_file(record["cases"], binary=True)
            tally.sim_seconds += time.perf_counter() - simulated
            with open(record["expected"], "rb") as expected_file:
                expected = expected_file.read()
            worker.release(record["chunk"])
            if answers == expected:
                verdict = (record["cases"], record["cases"], None)
            else:
                with open(BIN_FILE, "rb") as stimulus:
                    verdict = decode_chunk(check, record, answers, count, stimulus.read(), width_bytes)
            tally.worker_seconds += record["worker_seconds"]
            tally.worker_cpu_seconds += record["worker_cpu_seconds"]
            tally.sim_cpu_seconds = time.process_time() - cpu
            settle_chunk(check, test, env, tally, verdict, record["golden_seconds"], started, total=count)
    finally:
        worker.stop()
    tally.wall_seconds = time.perf_counter() - started
    tally.sim_cpu_seconds = time.process_time() - cpu
    record_result(test, tally)
    return tally
