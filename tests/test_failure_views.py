"""What a failure leaves a person to look at: ``gamechip replay CASE --waves`` (VCD on Icarus, a
GTKWave save file, a picture of the signal window, board pictures) and ``gamechip report DIR``
(one HTML page for a campaign), on a real failure: a tiny campaign on Icarus over a copy of rtl/
with a planted move-checker bug, plus a passing block.

Like tests/test_campaign.py, every command runs as a subprocess with its own GAMECHIP_BUILD, so
nothing here touches build/ while the regression runs. The timing model (tb/timeline.py) is
checked against a real dump of a start/done block, in-process with runner.BUILD redirected.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.waves import Dump, Trace
from golden.board import parse_board, square_name, squares_of
from tb import runner, timeline
from tb.batch import Case
from tb.harness import OUT_FILE, harness_name
from tests.test_mutants import MUTANTS, mutant_root

ROOT = Path(__file__).resolve().parent.parent


def gamechip(*args, env=None):
    return subprocess.run([sys.executable, "-m", "gamechip", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def printed_paths(text):
    """'what: /path' lines of the replay's output -> {what: Path}."""
    return {what: Path(path) for what, path in re.findall(r"^([^:\n]+): (/\S+)$", text, re.M)}


def dump_values_at(dump, traces, time_ns):
    units = time_ns * dump.units_per_ns
    values = {}
    for trace in traces:
        values[trace.name] = None
        for at, value in trace.changes:
            if at > units:
                break
            values[trace.name] = value
    return values


@pytest.fixture
def failed_campaign(tmp_path):
    """A real campaign: move_checker over the planted bug (fails at once) and openings (passes)."""
    _, file, *edits = MUTANTS["move_checker drops one direction"]
    env = {"GAMECHIP_BUILD": str(tmp_path / "build"), "GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))}
    out = tmp_path / "campaign"
    # Shrinking a failing case costs several simulations; this test is about what is shown.
    no_shrink = ["--no-shrink"] if "--no-shrink" in gamechip("campaign", "--help").stdout else []
    run = gamechip("campaign", "--blocks", "move_checker", "openings", "--sims", "icarus", "--count", "20",
                   "--shard-size", "20", "--workers", "2", "--out", out, *no_shrink, env=env)
    assert run.returncode == 1, run.stderr[-3000:]
    return out, env


def check_replay_views(case_file, env):
    run = gamechip("replay", case_file, "--waves", env=env)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-3000:]
    paths = printed_paths(run.stderr)
    assert "note:" not in run.stderr, run.stderr[-2000:]
    waveform = Path(run.stderr.split("waveform: ")[-1].split()[0])
    assert waveform.suffix == ".vcd" and "$enddefinitions" in waveform.read_text()
    top = harness_name("move_checker")
    dump = Dump(waveform)
    traces = dump.read(top, [Trace(n, "", w) for n, w in (("go", 1), ("own", 64), ("opp", 64), ("legal", 64))])
    record = json.loads((waveform.parent / "gamechip_failure.json").read_text())
    expected, actual = int(record["expected"]), int(record["actual"])

    # The save file names signals that are in the dump and puts the marker on the failing vector:
    # the second run of the case (the check), applied PRIME_NS after its go edge.
    gtkw = next(p for what, p in paths.items() if what.startswith("GTKWave save file")).read_text()
    dump_names = {var.full_name for var in dump.wave.all_vars()}
    shown = [line for line in gtkw.splitlines() if line and line[0] not in "[@-*"]
    assert shown and all(re.sub(r"\[\d+:0\]$", "", name) in dump_names for name in shown), shown
    assert f"{top}.legal[63:0]" in shown and "-inputs" in gtkw and "@22" in gtkw
    marker_units = int(re.search(r"^\*\S+ (\d+) ", gtkw, re.M).group(1))
    go_ns = dump.rising_edges_ns(traces[0])[-1]
    assert marker_units == (go_ns + timeline.PRIME_NS) * dump.units_per_ns
    assert dump_values_at(dump, traces, marker_units / dump.units_per_ns)["legal"] == actual

    window = paths["signal window (SVG)"].read_text()
    assert all(f'data-signal="{name}"' in window for name in ("go", "ready", "own", "opp", "legal"))
    assert "failing vector 0" in window and format(actual, "016x") in window
    assert paths["signal window (PNG)"].read_bytes()[:4] == b"\x89PNG"

    differing = {square_name(s) for s in squares_of(expected ^ actual)}
    for side in ("expected", "actual"):
        board = paths[f"board picture ({side})"].read_text()
        assert board.startswith("<svg") and set(re.findall(r'class="differs" data-square="(\w+)"', board)) == differing


def check_report(out):
    # One more shard line, as a campaign writes it for a crashed simulator, to see its log linked.
    (out / "logs").mkdir(exist_ok=True)
    (out / "logs" / "node_order-icarus-seed9.log").write_text("vvp: crashed\n")
    with open(out / "journal.jsonl", "a") as journal:
        journal.write(json.dumps({"key": "node_order/icarus/seed9/n20", "block": "node_order", "sim": "icarus",
                                  "seed": 9, "count": 20, "status": "error", "checked": 0, "seconds": 1.0,
                                  "message": "the simulation failed before comparing anything (simulator crash?)",
                                  "log": str(out / "logs" / "node_order-icarus-seed9.log")}) + "\n")
    run = gamechip("report", out)
    assert run.returncode == 0, run.stderr
    html = (out / "report.html").read_text()
    rows = dict(re.findall(r'data-block="(\w+)" data-sim="icarus">(.*?)</tr>', html))
    assert re.search(r"<td>1/1</td><td[^>]*>0</td><td class=\"fail\">1</td>", rows["move_checker"])
    assert re.search(r"<td>1/1</td><td[^>]*>1</td>.*<td>20</td>", rows["openings"])
    assert 'class="failure"' in html and 'class="differs" data-square=' in html and html.count("<svg") >= 2
    assert "gamechip replay" in html and "--waves" in html and "GAMECHIP_RTL_ROOT=" in html
    assert '<a href="logs/node_order-icarus-seed9.log">' in html and "Icarus Verilog" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched


def test_campaign_failure_replayed_with_pictures_and_reported(failed_campaign):
    out, env = failed_campaign
    entry = next(json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()
                 if json.loads(line)["status"] == "fail")
    check_replay_views(entry["case"], env)
    check_report(out)


@pytest.mark.parametrize("journal, message", [
    (None, "no journal.jsonl in"),
    ("not json\n", "line 1 is not JSON"),
    ('{"block": "move_checker"}\n', "line 1 is not a journal entry"),
    ('{"block": "x", "sim": "icarus", "status": "lost"}\n', "unknown status 'lost'"),
])
def test_report_without_a_journal_is_one_clear_line(tmp_path, capsys, journal, message):
    if journal is not None:
        (tmp_path / "journal.jsonl").write_text(journal)
    assert main(["report", str(tmp_path)]) == 2  # in-process: no simulator involved
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1, error
    assert not (tmp_path / "report.html").exists()


def test_timing_model_matches_the_dump_of_a_start_done_block(tmp_path, monkeypatch):
    """Every response line of a replayed stable-discs case is in the dump at the time
    tb/timeline.py gives it (clock edge through write), and go rises when the model says."""
    monkeypatch.setattr(runner, "BUILD", tmp_path)
    case = Case(parse_board("X" * 60 + "O" * 4 + " X"), "timing model", color="X")
    record = {"block": "stable_discs", "design": "stable_discs", "sim": "icarus", "seed": 0, "case": case.to_dict()}
    (tmp_path / "case.json").write_text(json.dumps(record))
    outcome, waveform = runner.replay_case(tmp_path / "case.json")
    assert outcome.passed, outcome.log[-3000:]
    dump = Dump(waveform)
    outputs = [Trace(n, "", 1) for n in ("done", "count", "stable")]
    go = Trace("go", "", 1)
    dump.read(harness_name("stable_discs"), outputs + [go])
    lines = (outcome.sim_dir / OUT_FILE).read_text().splitlines()
    cycles = timeline.vector_cycles(lines, sequential=True)
    assert len(cycles) == 1 and cycles[0] > 2
    assert dump.rising_edges_ns(go) == timeline.replay_go_times(cycles, sequential=True)
    for sample, line in zip(timeline.samples(dump.rising_edges_ns(go)[-1], cycles, True), lines):
        want = dict(zip(("done", "count", "stable"), (int(f, 16) for f in line.split()[1:])))
        for time_ns in (sample.shown_ns, sample.written_ns - 0.001):
            assert dump_values_at(dump, outputs, time_ns) == want, (sample, time_ns)


def test_chess_board_pictures_fill_the_squares_of_the_wrong_move():
    from gamechip.views import board_pictures
    from golden.chess.encoding import move_word
    import chess

    record = {"block": "chess_movegen", "design": "chess_movegen", "sim": "icarus", "seed": 1,
              "case": {"fen": "4k3/p7/8/8/8/8/8/4K3 b - - 0 9", "label": "x", "kind": "walk", "mode": 0,
                       "moves": ["a7a5", "a7a6"], "dbg": []},
              "expected": repr([(0, move_word(chess.Move.from_uci("a7a5"))), (0, move_word(chess.Move.from_uci("a7a6")))]),
              "actual": repr([(0, move_word(chess.Move.from_uci("a7a5"))), (0, move_word(chess.Move.from_uci("a7a5")))])}
    view, pictures = board_pictures(record)
    assert view.vector == 1
    assert "next after a7a5: a7a6" in pictures["board-expected.svg"]
    assert "next after a7a5: a7a5" in pictures["board-actual.svg"]
    for svg in pictures.values():
        assert svg.count('fill="#d62728"') == 2  # the from and to squares, filled red
