"""``gamechip play`` and ``gamechip tournament --contexts``: the two-context processor's golden
games, and bad values refused with one line and exit status 2 before any work."""

import pytest

from golden.contest.games import golden_game
from golden.processor import GoldenProcessor
from golden.root_split import root_split
from tests.test_cli import gamechip


@pytest.mark.parametrize("args, expected", [
    (["play", "--budget", "256", "--contexts", "3"], "--contexts is 1 (one search context) or 2"),
    (["play", "--budget", "256", "--contexts", "two"], "got 'two'"),
    (["tournament", "--budget", "256", "--contexts", "0"], "--contexts is 1 (one search context) or 2"),
    (["tournament", "--budget", "256", "--contexts", "2", "--sim", "verilator", "--mode", "engine"],
     "--mode engine checks the games' searches on the one-context engine"),
    (["play", "--budget", "256", "--contexts", "2", "--port", "/dev/null"], "--contexts 2 and --engines K have no board yet"),
])
def test_bad_contexts_is_one_line_and_status_2(args, expected, tmp_path):
    run = gamechip(*args, "--record" if args[0] == "play" else "--out", str(tmp_path / "out"))
    assert run.returncode == 2, (run.stdout[-2000:], run.stderr[-2000:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], run.stderr
    assert not (tmp_path / "out").exists()


def test_play_with_two_contexts_is_the_root_split_processor(tmp_path):
    run = gamechip("play", "--budget", "256", "--contexts", "2", "--record", str(tmp_path / "game.txt"))
    assert run.returncode == 0, run.stderr[-2000:]
    text = (tmp_path / "game.txt").read_text()
    assert "2 contexts (root split)" in text.splitlines()[2]
    assert text.splitlines()[0] == golden_game(1, "black", 256, contexts=2)["record"]


def test_golden_processor_with_two_contexts_reports_the_split_search():
    from golden.board import start_position

    position = start_position()           # an empty opening table (lines=[]): the first move is searched
    one, two = GoldenProcessor(5000, 6, lines=[]), GoldenProcessor(5000, 6, lines=[], contexts=2)
    assert one.move(position) is not None
    best = two.move(position)
    split = root_split(position, 6, 5000)
    info = two.info()
    assert best == split.best
    assert {k: info[k] for k in ("source", "depth", "nodes", "cycles", "value")} == \
           {"source": "search", **{k: v for k, v in split.summary().items() if k != "best"}}
    assert [job["kind"] for job in info["jobs"]] == [job.kind for job in split.jobs]
    assert "jobs" not in one.info() and set(one.info()) == {"source", "depth", "nodes", "cycles", "value", "solved"}
    with pytest.raises(ValueError):
        GoldenProcessor(5000, 6, contexts=3)
