"""tb/sim/batch.py's counting, in-process with a stand-in for the harness (no simulator): the cases
a run reports as checked are the cases it compared with the golden model, no more, no less."""

import asyncio
import json

import pytest

from golden.board import START
from tb.sim.batch import RESULT_FILE, BlockCheck, Case, check_cases


class Echo(BlockCheck):
    """A block whose golden answer to a case is the case's label."""

    block = "echo"

    def stimulus(self, case):
        return case.label

    def expected(self, case):
        return case.label

    def parse(self, lines, cases):
        return lines


class Harness:
    """Answers each stimulus line with ``answer(line)``; lines answered None are left out."""

    def __init__(self, answer):
        self.answer = answer

    async def run(self, lines):
        return [a for a in map(self.answer, lines) if a is not None]


def run(answer, count=5):
    cases = [Case(START, f"case {i}") for i in range(count)]
    return asyncio.run(check_cases(Harness(answer), Echo(), cases, "fuzz"))


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # check_cases writes its result and failure files here


def result():
    with open(RESULT_FILE) as saved:
        return json.load(saved)


def test_every_case_of_a_clean_run_is_counted():
    assert run(lambda line: line).checked == 5 and result()["checked"] == 5


def test_the_mismatching_case_is_counted_as_checked():
    with pytest.raises(AssertionError, match="MISMATCH in echo"):
        run(lambda line: "wrong" if line == "case 0" else line)
    assert result()["checked"] == 1  # the first case was compared, and differed
    with pytest.raises(AssertionError):
        run(lambda line: "wrong" if line == "case 3" else line)
    assert result()["tests"]["fuzz"]["checked"] == 4


def test_a_short_answer_is_a_failure_not_fewer_cases():
    with pytest.raises(AssertionError, match="the harness answered 4 of 5 cases"):
        run(lambda line: None if line == "case 4" else line)  # the others still pair up with their cases
