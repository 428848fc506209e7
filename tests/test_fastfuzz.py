"""The fast fuzz loop (tb/host/fastfuzz.py, tb/checks/golden_worker.py) without a simulator: a stand-in
harness answers each stimulus file from the golden model, with a planted wrong answer where a
test wants one. The golden worker runs as a real process (CPython here, and PyPy's words kernel
when pypy3 is installed)."""

import asyncio
import json
import os
import shutil
import subprocess
import sys

import pytest

from golden.board import Position
from golden.othello import legal_moves
from tb.sim import fastfuzz
from tb.sim.batch import CASE_FILE, RESULT_FILE, BatchTB, check_cases, fuzz_chunk, fuzz_generators
from tb.checks.combinational import CHUNK, DiscFlipperCheck, MoveCheckerCheck, fuzz_chunks, pack_stimulus
from tb.checks.golden_worker import KERNELS
from tb.host.harness import BIN_FILE, IN_FILE

PYPY = shutil.which("pypy3")
SEED = 7
COUNT = CHUNK + 700   # two chunks, the second one short
FIELD_BYTES = 8       # 8x8 boards: 64-bit words in the harness's stimulus memory


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # the worker's slot files, the result and case files go here


def answer(check, fields, wrong):
    """The block's answer line to one stimulus line (from the golden model: a correct block),
    with bit 0 of the first field flipped when ``wrong``."""
    if check.block == "move_checker":
        own, opp = (int(f, 16) for f in fields)
        value = legal_moves(own, opp)
        return check.expected_line(value ^ wrong)
    black, white, wtm, move = (int(f, 16) for f in fields)
    p = Position(black, white, bool(wtm))
    expected = check.expected(type("C", (), {"position": p, "move": move})())
    return check.expected_line((expected[0] ^ wrong, *expected[1:]))


def unpack(stimulus, fields):
    """Binary stimulus -> the hex fields of each vector (what $fread puts in the memory)."""
    words = [format(int.from_bytes(stimulus[i:i + FIELD_BYTES], "big"), "x")
             for i in range(0, len(stimulus), FIELD_BYTES)]
    return [" ".join(words[i:i + fields]) for i in range(0, len(words), fields)]


class StandIn(BatchTB):
    """tb.sim.batch.BatchTB without a simulator: ``go_file`` answers the stimulus itself (IN_FILE's
    lines, or BIN_FILE's words like the Verilog harness); the vector numbered ``wrong_at``
    (counted over the whole run) gets a wrong answer."""

    def __init__(self, check, wrong_at=None):
        self.check, self.wrong_at, self.vectors = check, wrong_at, 0

    async def go_file(self, vectors, binary=False):
        if binary:
            with open(BIN_FILE, "rb") as stimulus:
                lines = unpack(stimulus.read(), 2 if self.check.block == "move_checker" else 4)
        else:
            with open(IN_FILE) as stimulus:
                lines = stimulus.read().split("\n")[:-1]
        assert len(lines) == vectors
        out = []
        for line in lines:
            out.append(answer(self.check, line.split(), int(self.vectors == self.wrong_at)))
            self.vectors += 1
        return "".join(line + "\n" for line in out).encode()


def env(count=COUNT):
    return {"sim": "verilator", "seed": SEED, "count": count, "case": None, "design": "design-x",
            "rtl_root": "/rtl", "rtl_digest": "abc"}


def fast(check, wrong_at=None, python=sys.executable, kernel="ints", count=COUNT):
    return asyncio.run(fastfuzz.check_fuzz(StandIn(check, wrong_at), check, env(count), python, kernel=kernel,
                                           width_bytes=FIELD_BYTES))


def in_process(check, wrong_at=None, count=COUNT):
    """tb.sim.batch's in-process loop on the same cases and the same stand-in harness."""
    positions_rng, moves_rng = fuzz_generators(SEED)
    chunks = (fuzz_chunk(check, positions_rng, moves_rng, first, count) for first in range(0, count, CHUNK))
    return asyncio.run(check_cases(StandIn(check, wrong_at), check, chunks, "fuzz"))


def result():
    with open(RESULT_FILE) as saved:
        return json.load(saved)


@pytest.fixture
def environment(monkeypatch):
    for name, value in env().items():
        if value is not None:
            monkeypatch.setenv(f"GAMECHIP_{name.upper()}", str(value))
    monkeypatch.setenv("GAMECHIP_RTL_TESTED", "/rtl")
    monkeypatch.setenv("GAMECHIP_RTL_DIGEST", "abc")


CHECKS = [MoveCheckerCheck(8), DiscFlipperCheck(8)]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.block)
def test_a_clean_run_counts_every_case(check, environment):
    tally = fast(check)
    assert tally.checked == COUNT and tally.units == COUNT and result()["tests"]["fuzz"]["checked"] == COUNT
    assert tally.golden_seconds > 0 and tally.worker_seconds > 0


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.block)
@pytest.mark.parametrize("wrong_at", [0, CHUNK + 321])
def test_a_mismatch_is_reported_exactly_as_by_the_in_process_loop(check, wrong_at, environment):
    with pytest.raises(AssertionError) as slow:
        in_process(check, wrong_at)
    slow_case, slow_result = open(CASE_FILE).read(), result()
    for stale in (CASE_FILE, RESULT_FILE):
        os.remove(stale)
    with pytest.raises(AssertionError) as quick:
        fast(check, wrong_at)
    assert type(quick.value) is AssertionError   # the block failed, not the fast path
    message = str(quick.value)
    assert message == str(slow.value)
    assert open(CASE_FILE).read() == slow_case
    assert result()["tests"]["fuzz"]["checked"] == slow_result["tests"]["fuzz"]["checked"] == wrong_at + 1
    # what a reader needs: block, seed, the case, position, expected and actual, replay command
    assert f"MISMATCH in {check.block} (design-x) on verilator, seed {SEED}" in message
    assert f"case:     fuzz #{wrong_at} (" in message and "board:    " in message
    assert ("expected legal:" in message and "actual legal:" in message) if check.block == "move_checker" else \
        ("expected: illegal=" in message and "actual:   illegal=" in message)
    assert "gamechip replay" in message and "--waves" in message


def test_the_mismatching_case_is_the_planted_one(environment):
    check = MoveCheckerCheck(8)
    with pytest.raises(AssertionError):
        fast(check, wrong_at=CHUNK + 5)
    saved = json.load(open(CASE_FILE))
    case = list(fuzz_chunks(check, SEED, COUNT))[1][5]
    assert saved["case"]["label"] == case.label and case.label.startswith(f"fuzz #{CHUNK + 5} (random_")
    assert saved["case"]["board"] == case.to_dict()["board"]
    assert saved["seed"] == SEED and saved["expected"] != saved["actual"]
    assert int(saved["expected"]) ^ int(saved["actual"]) == 1


@pytest.mark.parametrize("block", ["move_checker", "disc_flipper"])
def test_the_words_kernel_writes_the_bytes_of_the_ints_kernel(block):
    """Under CPython golden.words emulates its machine words: slow, but the same bytes."""
    check = {c.block: c for c in CHECKS}[block]
    count = 3000
    made = {}
    for kernel in ("ints", "words"):
        positions_rng, moves_rng = fuzz_generators(SEED)
        made[kernel] = KERNELS[kernel](check, positions_rng, moves_rng, count, FIELD_BYTES).chunk(0)[:3]
    assert made["ints"] == made["words"]
    stimulus, expected, cases = made["ints"]
    bench_cases = next(fuzz_chunks(check, SEED, count))
    assert cases == len(bench_cases) == count
    lines = [check.stimulus(case) for case in bench_cases]
    assert stimulus == pack_stimulus(lines, FIELD_BYTES) and len(stimulus) == FIELD_BYTES * len(" ".join(lines).split())
    assert expected == "".join(check.expected_line(check.expected(case)) + "\n" for case in bench_cases)


@pytest.mark.parametrize("block", ["move_checker", "disc_flipper"])
def test_pypy_writes_the_bytes_cpython_writes(block, tmp_path):
    """The worker under PyPy (words kernel) and under CPython (ints kernel): identical files.
    Without pypy3 the words kernel runs under CPython: the same code, compared all the same."""
    files = {}
    for python, kernel in ((PYPY or sys.executable, "words"), (sys.executable, "ints")):
        folder = tmp_path / kernel
        folder.mkdir()
        run = subprocess.run([python, "-m", "tb.checks.golden_worker", "--block", block, "--seed", str(SEED), "--count",
                              str(COUNT), "--kernel", kernel, "--field-bytes", str(FIELD_BYTES)], cwd=folder, input="0\n1\n", capture_output=True,
                             text=True, env={"PYTHONPATH": str(fastfuzz.ROOT)}, timeout=300)
        assert run.returncode == 0, run.stderr
        records = [json.loads(line) for line in run.stdout.splitlines()]
        assert records[0]["kernel"] == kernel and records[-1] == {"end": True}
        files[kernel] = [(folder / name).read_bytes() for r in records[1:-1] for name in (r["stimulus"], r["expected"])]
        files[kernel + " states"] = [r["states"] for r in records[1:-1]]
    assert files["words"] == files["ints"] and len(files["ints"]) == 4
    assert files["words states"] == files["ints states"]


def test_a_mismatch_under_the_pypy_worker_is_reported_too(environment):
    """Under PyPy the worker picks its kernel itself (words); without pypy3, CPython runs that kernel."""
    check = DiscFlipperCheck(8)
    with pytest.raises(AssertionError, match=rf"MISMATCH in disc_flipper .* seed {SEED}"):
        fast(check, wrong_at=CHUNK + 9, python=PYPY or sys.executable, kernel=None if PYPY else "words")
    assert result()["tests"]["fuzz"]["checked"] == CHUNK + 10


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.block)
def test_expected_lines_parse_back_to_the_expected_values(check):
    cases = next(fuzz_chunks(check, 3, 2000))
    expected = [check.expected(case) for case in cases]
    assert check.parse([check.expected_line(e) for e in expected], cases) == expected


def test_expected_lines_are_the_harness_widths():
    """$fdisplay's %h writes every digit of a port: 64-bit boards as 16, ``illegal`` as 1."""
    assert MoveCheckerCheck(8).expected_line(5) == "0000000000000005"
    assert DiscFlipperCheck(8).expected_line((1, 2, 1)) == "0000000000000001 0000000000000002 1"
    assert DiscFlipperCheck(6).expected_line((1, 2, 0)) == "000000001 000000002 0"


def test_a_wrong_expected_file_is_an_error_of_the_fast_path_not_a_pass(environment):
    """Bytes that differ while every answer matches the golden model: the worker is wrong."""
    check = MoveCheckerCheck(8)
    positions_rng, moves_rng = fuzz_generators(SEED)
    record = {"chunk": 0, "first": 0, "expected": "fuzz_expected_0.txt",
              "states": [positions_rng.getstate(), moves_rng.getstate()]}
    cases = fuzz_chunk(check, positions_rng, moves_rng, 0, 100)
    stimulus = pack_stimulus([check.stimulus(case) for case in cases], FIELD_BYTES)
    answers = "".join(check.expected_line(check.expected(case)) + "\n" for case in cases).encode()
    with pytest.raises(fastfuzz.FastPathError, match="expected file of the golden worker"):
        fastfuzz.decode_chunk(check, record, answers, 100, stimulus, FIELD_BYTES)
    with pytest.raises(fastfuzz.FastPathError, match="out of step"):
        fastfuzz.decode_chunk(check, record, answers, 100, bytes([stimulus[0] ^ 1]) + stimulus[1:], FIELD_BYTES)
    matched, _, mismatch = fastfuzz.decode_chunk(check, record, answers.replace(b"\n", b"0\n", 1), 100, stimulus,
                                                 FIELD_BYTES)
    assert matched == 0 and mismatch[0] == cases[0]


def test_a_worker_that_dies_stops_the_run_with_its_exit_status(environment, tmp_path):
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\necho 'no golden here' >&2\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(fastfuzz.FastPathError, match=r"exit status 3:\nno golden here"):
        fast(MoveCheckerCheck(8), python=str(broken))


def test_without_pypy_the_golden_model_runs_in_process_and_says_so(monkeypatch):
    monkeypatch.delenv(fastfuzz.GOLDEN_PYTHON, raising=False)
    monkeypatch.setattr(fastfuzz.shutil, "which", lambda name: None)
    assert fastfuzz.golden_python(MoveCheckerCheck(8), env()) == (None, fastfuzz.NO_PYPY)
    assert "PyPy (pypy3) not found" in fastfuzz.NO_PYPY and "CPython" in fastfuzz.NO_PYPY


def test_the_fast_path_is_for_verilator_and_the_checks_that_have_one(monkeypatch):
    monkeypatch.setattr(fastfuzz.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.delenv(fastfuzz.GOLDEN_PYTHON, raising=False)
    assert fastfuzz.golden_python(MoveCheckerCheck(8), env()) == ("/usr/bin/pypy3", None)
    assert fastfuzz.golden_python(MoveCheckerCheck(8), {**env(), "sim": "icarus"}) == (None, None)
    from tb.checks.stable_discs import StableDiscsCheck
    assert fastfuzz.golden_python(StableDiscsCheck(8), env()) == (None, None)
    monkeypatch.setenv(fastfuzz.GOLDEN_PYTHON, "inprocess")
    assert fastfuzz.golden_python(DiscFlipperCheck(8), env())[0] is None


def test_the_binary_stimulus_is_the_text_stimulus_packed():
    assert pack_stimulus(["00000000000000ff 8000000000000001", "0 3"], 8) == (
        bytes(7) + b"\xff" + b"\x80" + bytes(6) + b"\x01" + bytes(8) + bytes(7) + b"\x03")
    assert pack_stimulus(["fffffffff 1 0 23"], 5) == b"\x0f\xff\xff\xff\xff" + bytes(4) + b"\x01" + bytes(5) + bytes(4) + b"\x23"
