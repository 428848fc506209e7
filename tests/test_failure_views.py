"""What a failure leaves a person to look at: ``gamechip replay CASE --waves`` (VCD on Icarus, a
GTKWave save file, a picture of the signal window, board pictures) and ``gamechip report DIR``
(one HTML page for a campaign), on a real failure: a tiny campaign on Icarus over a copy of rtl/
with a planted move-checker bug, plus a passing block. The save files of all three dump formats
(VCD, FST, GHW) are opened in GTKWave itself on a virtual display (Xvfb), which says through its
Tcl interface what window it shows.

Like tests/test_campaign.py, every command runs as a subprocess with its own GAMECHIP_BUILD, so
nothing here touches build/ while the regression runs. The timing model (tb/host/timeline.py) is
checked against a real dump of a start/done block, in-process with runner.BUILD redirected.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.views.waves import Dump, Located, Trace, harness_traces, render_window, value_at
from golden.board import parse_board, square_name, squares_of
from tb.host import runner, timeline
from tb.sim.batch import Case
from tb.host.harness import OUT_FILE, harness_name
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


# --- GTKWave itself, on a virtual display ------------------------------------------------------

GTKWAVE_PACKAGES = {"gtkwave": "gtkwave", "xvfb-run": "xvfb", "xauth": "xauth"}
# Run by gtkwave -S once the save file is loaded: the window, the marker, every row and its value.
GTKWAVE_PROBE = r"""
puts "window [gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime] [gtkwave::getMarker] [gtkwave::getTimeDimension]"
for {set i 0} {$i < [gtkwave::getTotalNumTraces]} {incr i} {
    puts "row [gtkwave::getTraceNameFromIndex $i]|[gtkwave::getTraceValueAtMarkerFromIndex $i]"
}
gtkwave::/File/Quit
"""
NS_PER_UNIT = {"f": 1e-6, "p": 1e-3, "n": 1.0, "u": 1e3, "m": 1e6, "s": 1e9}


@dataclass
class GtkwaveWindow:
    start_ns: float
    end_ns: float
    marker_ns: float
    rows: dict  # row name as GTKWave shows it (e.g. 'legal[63:0]') -> its value at the marker


def open_in_gtkwave(save_file, tmp_path):
    """Open ``save_file`` in GTKWave under Xvfb and read back what it shows."""
    missing = sorted({package for tool, package in GTKWAVE_PACKAGES.items() if not shutil.which(tool)})
    if missing:
        pytest.fail(f"GTKWave on a virtual display is needed to check the save file: "
                    f"sudo apt-get install {' '.join(missing)}   (scripts/setup.sh does it when it may)",
                    pytrace=False)
    probe = tmp_path / "gtkwave-probe.tcl"
    probe.write_text(GTKWAVE_PROBE)
    display = 100 + os.getpid() % 400  # xvfb-run -a counts up from here: parallel workers rarely collide
    run = subprocess.run(["xvfb-run", "-a", "-n", str(display), "-s", "-screen 0 1600x1000x24",
                          "gtkwave", "-S", str(probe), str(save_file)],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    window = re.search(r"^window (\d+) (\d+) (-?\d+) (\w)$", run.stdout, re.M)
    assert window, (f"GTKWave did not answer the probe (exit {run.returncode}):\n"
                    f"{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    scale = NS_PER_UNIT[window.group(4)]
    rows = dict(line[4:].split("|", 1) for line in run.stdout.splitlines() if line.startswith("row "))
    return GtkwaveWindow(*(int(window.group(n)) * scale for n in (1, 2, 3)), rows)


def check_gtkwave_opens_on_the_marker(save_file, tmp_path, marker_ns, step_ns, signals):
    """The save file opens on the failing vector or cycle: the marker where it should be and
    inside the window, the window several vectors / cycles wide (yet zoomed: not 100s of them),
    and every signal found in the dump."""
    shown = open_in_gtkwave(save_file, tmp_path)
    assert shown.marker_ns == pytest.approx(marker_ns), shown
    assert shown.start_ns < shown.marker_ns < shown.end_ns, f"the marker is off screen: {shown}"
    span = shown.end_ns - shown.start_ns
    assert 4 * step_ns <= span <= 40 * step_ns, f"a window of {span:g} ns: {shown}"
    names = {re.sub(r"\[\d+:0\]$", "", row) for row in shown.rows}
    assert set(signals) <= names, f"GTKWave shows {sorted(names)}, the save file names {signals}"
    return shown


def window_expected(svg):
    """The signal window's expected column: {signal: (text, differs from the dump)}."""
    return {name: (text, differs == "1") for name, differs, text in
            re.findall(r'class="expected" data-signal="(\w+)" data-differs="(\d)">(?:<title>[^<]*</title>)?([^<]*)<',
                       svg)}


@pytest.fixture
def failed_campaign(tmp_path):
    """A real campaign: move_checker over the planted bug (fails at once) and openings (passes)."""
    _, file, *edits = MUTANTS["move_checker drops one direction"]
    env = {"GAMECHIP_BUILD": str(tmp_path / "build"), "GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))}
    out = tmp_path / "campaign"
    # Shrinking a failing case costs several simulations; this test is about what is shown.
    no_shrink = ["--no-shrink"] if "--no-shrink" in gamechip("campaign", "--help").stdout else []
    run = gamechip("campaign", "--blocks", "move_checker", "openings", "--sims", "icarus", "--count", "20",
                   "--shard-size", "20", "--jobs", "2", "--out", out, *no_shrink, env=env)
    assert run.returncode == 1, run.stderr[-3000:]
    return out, env


def check_replay_views(case_file, env):
    run = gamechip("replay", case_file, "--waves", env=env)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-3000:]
    paths = printed_paths(run.stderr)
    assert "note:" not in run.stderr, run.stderr[-2000:]
    # it has just recorded the waveform: it points at the save file, not at the command just run
    assert "replay it with a waveform" not in run.stderr and "MISMATCH in move_checker" in run.stderr
    save_file = next(p for what, p in paths.items() if what.startswith("GTKWave save file"))
    assert run.stderr.rstrip().endswith(f"open it: gtkwave {save_file}"), run.stderr[-1000:]
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
    save_file = next(p for what, p in paths.items() if what.startswith("GTKWave save file"))
    check_gtkwave_opens_on_the_marker(save_file, waveform.parent, go_ns + timeline.PRIME_NS, timeline.SETTLE_NS,
                                      ["go", "ready", "own", "opp", "legal"])

    window = paths["signal window (SVG)"].read_text()
    assert all(f'data-signal="{name}"' in window for name in ("go", "ready", "own", "opp", "legal"))
    assert "failing vector 0" in window and format(actual, "016x") in window
    assert window_expected(window) == {"legal": ("0x" + format(expected, "016x"), True)}
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
    assert run.returncode == 1 and run.stdout.startswith("FAIL:"), run.stdout + run.stderr  # as the campaign exits
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


def test_a_corpus_case_that_now_passes_says_so_in_every_picture(tmp_path):
    """The real RTL passes its corpus case: the board pictures show the saved failure and the
    signal window the replay's right answers, and each view says which it is; nothing in the
    signal window is red and nothing calls the vector failing."""
    case_file = next((ROOT / "tb" / "cases").glob("move_checker-icarus-*.json"))
    run = gamechip("replay", case_file, "--waves", env={"GAMECHIP_BUILD": str(tmp_path / "build")})
    assert run.returncode == 0 and "the case no longer fails on icarus" in run.stdout, run.stderr[-3000:]
    paths = printed_paths(run.stdout)
    passes = "replayed: passes (the saved failure at vector 0 is shown in the board pictures)"
    window = paths["signal window (SVG)"].read_text()
    assert passes in window and "failing" not in window, window[:2000]
    assert "#d32f2f" not in window and 'data-differs="1"' not in window   # no red: the replay matches
    save_label, save_file = next((what, p) for what, p in paths.items() if what.startswith("GTKWave save file"))
    gtkw = save_file.read_text()
    assert gtkw.splitlines()[1].endswith(passes) and "failing" not in gtkw
    assert "where the saved failure was; passes now" in save_label and "failing" not in save_label
    for side in ("expected", "actual"):
        board = paths[f"board picture ({side})"].read_text()
        assert f">saved failure: {side} legal moves<" in board, board[:1000]
    assert run.stdout.rstrip().endswith(f"open it: gtkwave {save_file}")


# Planted bugs with their shrunk cases (as in tb/cases/), replayed on the two other simulators:
# Verilator's FST and GHDL's GHW, a start/done block and a combinational one; the start/done
# block also on Icarus's VCD, which make test runs in place of its Verilator build with waves
# (make test-full runs both).
# The signal window shows each output's expected value beside it, the differing ones marked.
STABLE_DISCS_CLOCK_CYCLE = ("stable_discs inner square ignores one diagonal", "-" * 54 + "XX------XX X", "X",
                            ["clk", "start", "done", "count", "stable"],
                            {"done": ("1", True), "count": ("3", False), "stable": ("0xc080000000000000", False)})
REPLAYED_ELSEWHERE = {
    "FST, a clock cycle": ("verilator", *STABLE_DISCS_CLOCK_CYCLE),
    "VCD, a clock cycle": ("icarus", *STABLE_DISCS_CLOCK_CYCLE),
    "GHW, a vector": ("ghdl", "move_checker drops one direction", "----XO" + "-" * 58 + " X", None,
                      ["go", "ready", "own", "opp", "legal"], {"legal": ("0x0000000000000040", True)}),
}


@pytest.mark.parametrize("dump", [pytest.param(dump, marks=pytest.mark.full) if dump.startswith("FST") else dump
                                  for dump in REPLAYED_ELSEWHERE])
def test_save_file_opens_in_gtkwave_on_the_failing_cycle(dump, tmp_path):
    sim, mutant, board, colour, signals, expected_column = REPLAYED_ELSEWHERE[dump]
    design, file, *edits = MUTANTS[mutant]
    case = Case(parse_board(board), f"planted bug: {mutant}", color=colour)
    (tmp_path / "case.json").write_text(json.dumps({"block": design, "design": design, "sim": sim, "seed": 1,
                                                    "case": case.to_dict()}))
    env = {"GAMECHIP_BUILD": str(tmp_path / "build"), "GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))}
    run = gamechip("replay", tmp_path / "case.json", "--waves", env=env)
    assert run.returncode == 1 and "note:" not in run.stderr, run.stderr[-3000:]
    paths = printed_paths(run.stderr)
    waveform = Path(run.stderr.split("waveform: ")[-1].split()[0])
    save_file = next(p for what, p in paths.items() if what.startswith("GTKWave save file"))
    assert save_file == waveform.parent / f"{harness_name(design)}.gtkw"  # as the README says, whatever the dump's name

    # Where the failing sample is, from the dump's last go edge and the harness timing: vector 0,
    # and for the stable-discs bug cycle 0 (done one cycle late).
    go = Trace("go", "", 1)
    dump_file = Dump(waveform)
    dump_file.read(harness_name(design), [go])
    sequential = colour is not None
    cycles = timeline.vector_cycles((waveform.parent / OUT_FILE).read_text().splitlines(), sequential)
    sample = timeline.samples(dump_file.rising_edges_ns(go)[-1], cycles, sequential)[0]
    step = timeline.CYCLE_NS if sequential else timeline.SETTLE_NS
    shown = check_gtkwave_opens_on_the_marker(save_file, tmp_path, sample.shown_ns, step, signals)

    # GTKWave reads each bus at the marker as the dump holds it: counts in decimal, sets of squares in hex
    buses = dump_file.read(harness_name(design), [t for t in harness_traces(design) if t.width > 1])
    for bus in buses:
        value = int(str(value_at(bus.changes, sample.shown_ns * dump_file.units_per_ns)), 0)
        want = format(value, f"0{(bus.width + 3) // 4}X") if bus.radix == "hex" else str(value)
        assert shown.rows[f"{bus.name}[{bus.width - 1}:0]"] == want, (bus, shown.rows)
    assert {bus.radix for bus in buses} == ({"hex", "dec"} if sequential else {"hex"})
    assert window_expected(paths["signal window (SVG)"].read_text()) == expected_column



def test_signal_window_shows_counts_in_decimal_and_sets_of_squares_in_hex():
    """The evaluator's terms are numbers (mobility_own 0x34 is 52 moves), its values signed, its
    boards sets of squares: each bus reads in its own radix, hex marked 0x."""
    values = {"black": 0x8100000000000081, "mobility_own": 52, "stage": 2, "fixed_value": 512 - 3,
              "adaptive_value": 200, "done": 1}
    traces = harness_traces("evaluator")
    for trace in traces:
        trace.changes = [(0, values.get(trace.name, 0))]
    located = Located(timeline.Sample(0, 3, 5.0, 6.0), 0.0, 10.0, "dump")
    svg = render_window(traces, located, 1000, "radix").svg()
    shown = dict(re.findall(r'class="value-at-marker" data-signal="(\w+)">([^<]*)<', svg))
    assert {name: shown[name] for name in values} == {
        "black": "0x8100000000000081", "mobility_own": "52", "stage": "2", "fixed_value": "-3",
        "adaptive_value": "200", "done": "1"}



def test_expected_outputs_of_an_evaluator_failure_are_its_ports_in_the_done_cycle():
    from gamechip.views.failure import Failure, failure_view
    from golden.evaluator import evaluate
    from rtl.designs import PORTS
    from tb.checks.evaluator import EvaluatorCheck

    position = parse_board("XXXXXXXX" + "O" * 8 + "-" * 47 + "X O")
    want = EvaluatorCheck().expected(Case(position, "x"))
    got = list(want)
    got[7] += 1  # mobility_own
    view = failure_view(Failure({"block": "evaluator", "design": "evaluator", "sim": "icarus",
                                 "case": Case(position, "x").to_dict(), "expected": repr(want),
                                 "actual": repr(tuple(got))}))
    e = evaluate(position)
    assert view.cycle == e.done_cycle and view.expected_outputs == {
        "done": 1, "terminal": int(e.terminal), "stage": e.stage, "corners_own": e.corners[0],
        "corners_opp": e.corners[1], "xsq_own": e.xsquares[0], "xsq_opp": e.xsquares[1],
        "mobility_own": e.mobility[0], "mobility_opp": e.mobility[1], "stable_own": e.stable[0],
        "stable_opp": e.stable[1], "discs_own": e.discs[0], "discs_opp": e.discs[1], "fixed_value": e.fixed,
        "adaptive_value": e.adaptive}
    assert e.fixed < 0  # shown signed beside the port's bits
    traces = harness_traces("evaluator")
    for trace in traces:
        value = view.expected_outputs.get(trace.name, 0) + (trace.name == "mobility_own")
        trace.changes = [(0, value & ((1 << trace.width) - 1))]
    svg = render_window(traces, Located(timeline.Sample(0, e.done_cycle, 5.0, 6.0), 0.0, 10.0, "dump"), 1000, "x",
                        view.expected_outputs).svg()
    column = window_expected(svg)
    assert {name for name, (_, differs) in column.items() if differs} == {"mobility_own"}
    assert column["fixed_value"] == (str(e.fixed), False) and len(column) == len(view.expected_outputs)



def test_a_move_that_differs_shows_both_its_frames(tmp_path):
    """The flipper bug of the corpus leaves the placed square empty: that square is the move
    (blue frame) and differs (red frame); both rings show, in the SVG and in the PNG."""
    from gamechip.views.boards import DIFF_FRAME, MARGIN, MOVE_FRAME, SQUARE, TITLE_HEIGHT, board_canvas
    from gamechip.views.replay import board_pictures

    record = json.loads(next((ROOT / "tb" / "cases").glob("disc_flipper-*placed-square-empty*.json")).read_text())
    view, pictures = board_pictures(record)
    move = square_name(record["case"]["move"])
    column, row = ord(move[0].lower()) - ord("a"), int(move[1])
    left, top = MARGIN + column * SQUARE, TITLE_HEIGHT + (8 - row) * SQUARE
    rings = {}  # colour -> (from, to): its stroke's band, in pixels from the square's edge
    for x, y, size, colour, width in re.findall(
            r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="[\d.]+" fill="none" '
            r'stroke="(#\w+)" stroke-width="([\d.]+)"', pictures["board-actual.svg"]):
        inset = float(x) - left
        if colour in (MOVE_FRAME, DIFF_FRAME) and 0 <= inset < SQUARE / 2 and float(y) - top == inset:
            rings[colour] = (inset - float(width) / 2, inset + float(width) / 2)
    assert set(rings) == {MOVE_FRAME, DIFF_FRAME}, rings
    outer, inner = sorted(rings.values())
    assert 0 <= outer[0] and outer[1] <= inner[0] and inner[1] < SQUARE / 2, f"the frames overlap: {rings}"

    from PIL import Image

    board_canvas(view.actual).png(tmp_path / "actual.png")
    image = Image.open(tmp_path / "actual.png").convert("RGB")
    seen = [image.getpixel((left + dx, top + SQUARE // 2)) for dx in range(SQUARE // 2)]
    for colour in (MOVE_FRAME, DIFF_FRAME):
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert seen.count(rgb) >= 2, f"{colour} is {seen.count(rgb)} pixels wide across {move}"


@pytest.mark.parametrize("journal, message", [
    (None, "no journal.jsonl in"),
    ("", "no shard has finished"),  # and no campaign.json: not a PASS of 0 shards
    ("not json\n", "skipped 1 unreadable line"),  # a damaged line alone is skipped, leaving no shard
    ('{"block": "x", "sim": "icarus", "status": "lost"}\n', "no shard has finished"),
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
    tb/host/timeline.py gives it (clock edge through write), and go rises when the model says."""
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
    from gamechip.views.replay import board_pictures
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


def test_repetition_pictures_step_over_idle_and_a_later_init():
    """A repetition case's commands that move no piece (idle steps, an init after the first) are
    passed over on the way to the first difference; the view has what write_replay_views reads."""
    from gamechip.views.replay import board_pictures

    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    outputs = [(0, 0, 0, 0, 0, 63)] * 5
    record = {"block": "chess_repetition", "design": "chess_repetition", "sim": "icarus", "seed": 1,
              "case": {"fen": fen, "label": "x", "kind": "repetition", "mode": 0,
                       "moves": ["init", "idle", "g1f3", "init", "idle"], "dbg": [1, 1, 1, 1, 1]},
              "expected": repr(outputs[:4] + [(0, 0, 0, 0, 0, 1)]), "actual": repr(outputs)}
    view, pictures = board_pictures(record)
    assert (view.vector, view.cycle, view.expected_outputs) == (4, None, {})
    assert "after command 4 (idle)" in pictures["board-expected.svg"]


def test_a_run_that_failed_before_any_check_shows_the_first_traceback_however_far_up():
    from tb.host.runner import RunResult

    prefix = " " * 56
    log = ("     0.00ns INFO     cocotb.regression                  running tb.x.register_map (1/2)\n"
           "     0.00ns WARNING  cocotb.regression                  tb.x.register_map failed\n"
           f"{prefix}Traceback (most recent call last):\n"
           f'{prefix}  File "stream.py", line 429, in _run\n'
           f"{prefix}ValueError: Cannot convert Logic('U') to bool\n"
           "     0.00ns INFO     cocotb.regression                  running tb.x.games (2/2)\n"
           + "    10.00ns INFO     cocotb.x  a line of progress\n" * 200
           + "** TESTS=2 PASS=1 FAIL=1 SKIP=0 **\n")
    excerpt = RunResult(False, None, {}, None, log).log_excerpt(3000)
    assert "ValueError: Cannot convert Logic('U') to bool" in excerpt and excerpt.endswith("SKIP=0 **\n")
    assert "running tb.x.games" not in excerpt.split("[…]")[0]   # the traceback ends where its indent does
    quiet = "no traceback here\n" * 10
    assert RunResult(False, None, {}, None, quiet).log_excerpt(3000) == quiet
    near = log[-2500:].replace("a line", "another line")
    assert RunResult(False, None, {}, None, log[:600] + near).log_excerpt(6000) == log[:600] + near
