"""What a new user hits: the RTL under test named and a wrong GAMECHIP_RTL_ROOT
refused, cocotb variables in the environment ignored, replays on the RTL a case failed on,
damaged case files refused before any simulation, Ctrl-C, output paths checked before the work.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from golden.board import START, format_board
from tests.test_cli import gamechip
from tests.test_mutants import MUTANTS, mutant_root

ROOT = Path(__file__).resolve().parent.parent


def one_clear_line(run, expected, status=2):
    assert run.returncode == status, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert expected in run.stderr, run.stderr[-2000:]
    assert "Traceback" not in run.stderr + run.stdout, run.stderr[-3000:]


# --- defect 1: which RTL ------------------------------------------------------------------

@pytest.mark.parametrize("root, expected", [
    ("/nonexistent", "GAMECHIP_RTL_ROOT=/nonexistent: no such folder"),
    (str(ROOT / "rtl"), f"that is the rtl package itself: point it at the folder holding it, {ROOT}"),
    ("EMPTY", "holds no rtl/ package"),
])
def test_a_wrong_rtl_root_is_refused_not_replaced_by_the_projects_own(root, expected, tmp_path):
    root = str(tmp_path) if root == "EMPTY" else root
    for args in (["fuzz", "--blocks", "move_checker", "--count", "10"],
                 ["search", "--depth", "1", "--sim", "icarus"],
                 ["eval", "--sim", "icarus"]):
        one_clear_line(gamechip(*args, env={"GAMECHIP_RTL_ROOT": root}), expected)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_cli.py",
                          "-k", "perft_start"], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "GAMECHIP_RTL_ROOT": root})
    assert run.returncode != 0 and expected in run.stdout + run.stderr, run.stdout[-2000:]


def test_every_run_names_the_rtl_it_tests(tmp_path):
    from tb.host.runner import rtl_digest

    run = gamechip("fuzz", "--blocks", "move_checker", "--count", "50")
    assert f"RTL under test: {ROOT / 'rtl'} (digest {rtl_digest()}, the project's own)" in run.stderr
    copy = mutant_root(tmp_path, "move_checker.py")  # an unchanged copy: same design, another place
    run = gamechip("search", "--depth", "1", "--sim", "icarus", "--json", env={"GAMECHIP_RTL_ROOT": str(copy)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"RTL under test: {copy / 'rtl'} (digest {rtl_digest(copy)})" in run.stderr
    header = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co",
                             "tests/test_cli.py", "-k", "perft_start"], cwd=ROOT, capture_output=True, text=True)
    assert f"RTL under test: {ROOT / 'rtl'}" in header.stdout


# --- defect 2: cocotb variables in the environment ------------------------------------------

def test_cocotb_variables_in_the_environment_do_not_steer_the_run():
    inherited = {"SIM": "icarus", "TESTCASE": "no_such_test", "MODULE": "no_such_module", "TOPLEVEL": "nothing",
                 "WAVES": "1", "COCOTB_TEST_FILTER": "nothing", "COCOTB_RESULTS_FILE": "/nonexistent/results.xml",
                 "RANDOM_SEED": "7"}
    run = gamechip("fuzz", "--blocks", "move_checker", "--sim", "ghdl", "--count", "100", env=inherited)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "PASS: 100 cases checked" in run.stdout and "ghdl" in run.stdout
    assert "overrides" not in run.stderr
    run = gamechip("fuzz", "--blocks", "move_checker", "--sim", "icarus", "--count", "100", env={"SIM": "ghdl"})
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]


# --- defect 3: replay on the RTL the case failed on -----------------------------------------

def test_replay_and_shrink_use_the_rtl_the_case_failed_on(tmp_path):
    design, file, *edits = MUTANTS["move_checker drops one direction"]
    mutant = mutant_root(tmp_path, file, *edits)
    found = gamechip("fuzz", "--blocks", "move_checker", "--count", "200", "--seed", "3", "--no-shrink",
                     env={"GAMECHIP_RTL_ROOT": str(mutant)})
    assert found.returncode == 1, found.stderr[-3000:]
    case = Path(found.stderr.split("case file: ")[1].split()[0])
    saved = json.loads(case.read_text())
    assert saved["rtl_root"] == str(mutant) and len(saved["rtl_digest"]) == 12
    kept = tmp_path / "case.json"
    kept.write_text(case.read_text())
    replay = gamechip("replay", str(kept))  # no GAMECHIP_RTL_ROOT: the case says where its RTL is
    assert replay.returncode == 1 and "still fails" in replay.stderr, replay.stdout + replay.stderr
    assert f"RTL under test: {mutant / 'rtl'}" in replay.stderr and "from its case file" in replay.stderr
    shrunk = gamechip("shrink", str(kept), "--out", str(tmp_path / "small.json"))
    assert shrunk.returncode == 0 and "shrunk from" in shrunk.stdout, shrunk.stderr[-3000:]
    # the user's GAMECHIP_RTL_ROOT wins (a copy with a fix), and the run says so
    fixed = gamechip("replay", str(kept), env={"GAMECHIP_RTL_ROOT": str(ROOT)})
    assert fixed.returncode == 0 and "no longer fails" in fixed.stdout
    assert f"the case failed on {mutant}" in fixed.stderr and "differs from the one the case failed on" in fixed.stderr
    # the RTL moved away: refused in one line, not replayed on the project's own RTL
    mutant.rename(tmp_path / "moved")
    one_clear_line(gamechip("replay", str(kept)), f"the case failed on the RTL in {mutant}, which is gone")


# --- defect 5: damaged case files ---------------------------------------------------------

def _flipper_case(**case):
    return {"block": "disc_flipper", "design": "disc_flipper", "sim": "icarus", "seed": 1,
            "case": {"board": format_board(START), "label": "hand-edited", "move": 19, **case}}


@pytest.mark.parametrize("record, expected", [
    (_flipper_case(board="XX"), "board text has 2 characters"),
    (_flipper_case(move="C3"), "'move' must be a square index 0..63, got 'C3'"),
    (_flipper_case(move=99), "'move' must be a square index 0..63, got 99"),
    (_flipper_case(move=None), "'move' must be a square index"),
    ({**_flipper_case(), "seed": "1"}, "seed must be a whole number"),
    ({**_flipper_case(), "design": "stable_discs"}, "belongs to block 'stable_discs'"),
    ({"block": "stable_discs", "design": "stable_discs", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "color": "B"}}, "'color' must be 'X' or 'O'"),
    ({"block": "node_order", "design": "node_order", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "legal": -1}}, "'legal' must be a 64-bit vector"),
    ({"block": "openings", "design": "openings", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "moves": [37, 0]}}, "move 2 of the game, A1, is not legal"),
    ({"block": "search", "design": "search", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "depth": 40}}, "'depth' must be 1..16"),
    ({"block": "search", "design": "search", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "depth": 2, "budget": "lots"}}, "'budget' must be"),
    ({"block": "search", "design": "search", "sim": "icarus", "seed": 1,
      "case": {"board": format_board(START), "label": "x", "depth": 2, "alpha": 5, "beta": 5}}, "the root window must be"),
    ([1, 2], "holds a JSON list, not a case object"),
])
def test_a_damaged_case_file_is_refused_before_any_simulation(record, expected, tmp_path):
    case = tmp_path / "case.json"
    case.write_text(json.dumps(record))
    for args in (["replay", str(case), "--waves"], ["shrink", str(case)],
                 ["corpus", "add", str(case), "--why", "hand-edited"]):
        run = gamechip(*args, env={"GAMECHIP_CORPUS": str(tmp_path / "corpus")})
        one_clear_line(run, expected)
        assert "RTL under test" not in run.stderr  # refused before anything ran
    assert not (tmp_path / "corpus").exists() or not list((tmp_path / "corpus").iterdir())


# --- defect 6: Ctrl-C -----------------------------------------------------------------------

def sigint_as_on_a_terminal():
    """preexec_fn of a process that a test interrupts: SIGINT back to its default. A command
    started in the background of a script (``make test &``, nohup, some CI runners) inherits
    SIGINT ignored, and so would every process it starts; Ctrl-C on a terminal reaches a
    foreground process whose SIGINT is not ignored, which is what these tests act out."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_after(args, marker, timeout=180, env=None, group=True):
    """Start ``gamechip ARGS`` in its own process group, wait for ``marker`` on stderr, then
    press Ctrl-C as a terminal does (SIGINT to the whole group; ``group`` False: to the command's
    process alone, as ``kill -INT`` does); (status, stdout, stderr)."""
    process = subprocess.Popen([sys.executable, "-m", "gamechip", *args], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=sigint_as_on_a_terminal,
                               env={**os.environ, **(env or {})})
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            break
    interrupt_after.children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(process.pid)], capture_output=True,
                                              text=True).stdout.split()
    interrupt_after.sent = time.monotonic()
    (os.killpg if group else os.kill)(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return process.returncode, out, "".join(seen) + err


def alive(pids, wait=10):
    """The processes of ``pids`` still running after up to ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        running = [pid for pid in pids if Path(f"/proc/{pid}").exists()
                   and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[:1]]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.2)


def test_a_build_killed_before_its_simulator_ran_is_built_again_not_trusted():
    """A compiler killed mid-write (Ctrl-C, the mutation watchdog) leaves output newer than its sources, which
    the simulator's build would otherwise reuse in every later run of that folder."""
    from tb.host import runner
    from tb.blocks import DESIGN_BLOCK

    def run():
        return runner.run_design("move_checker", "icarus", DESIGN_BLOCK["move_checker"].module, ["directed"],
                                 tag="killed-build", quiet=True, env={"GAMECHIP_SEED": "1"})

    built = run()
    assert built.passed, built.log_excerpt()
    assert not (built.sim_dir / runner.INCOMPLETE_BUILD).exists()
    # what a killed build leaves: the marker, and a half-written simulator file newer than every source
    (built.sim_dir / runner.INCOMPLETE_BUILD).touch()
    [compiled] = built.sim_dir.glob("*.vvp")
    compiled.write_text("#! /usr/bin/vvp\n:ivl_version \"11")
    again = run()
    assert again.passed, again.log_excerpt()
    assert compiled.stat().st_size > 1000   # compiled again


def test_ctrl_c_during_fuzz_is_one_line_and_status_130():
    status, out, err = interrupt_after(["fuzz", "--blocks", "move_checker", "--count", "5000000"], "cases checked")
    assert status == 130, err[-3000:]
    assert err.rstrip().endswith("gamechip fuzz: interrupted"), err[-3000:]
    assert "Traceback" not in err and "AssertionError" not in err


@pytest.mark.parametrize("group", [True, False], ids=["ctrl-c", "kill-int"])
def test_ctrl_c_during_a_solve_keeps_the_solved_positions_and_ends_the_golden_process(group):
    status, out, err = interrupt_after(["solve", "--ffo", "20,22,23", "--json"], "[2/3] FFO #22", group=group)
    assert time.monotonic() - interrupt_after.sent < 3, "the command waited for the golden solver to finish"
    assert status == 130, err[-3000:]
    assert err.rstrip().endswith("gamechip solve: interrupted"), err[-3000:]
    assert "Traceback" not in err
    assert [json.loads(line)["position"] for line in out.splitlines()] == ["FFO #20"]
    assert not alive(interrupt_after.children), "the golden solver's process outlived the command"


def test_ctrl_c_during_a_simulated_game_is_one_line_and_status_130(tmp_path):
    status, out, err = interrupt_after(["play", "--budget", "1024", "--sim", "icarus", "--record",
                                        str(tmp_path / "game.txt")], "processor (black)")
    assert status == 130, err[-3000:]
    assert err.rstrip().endswith("gamechip play: interrupted") and "Traceback" not in err, err[-3000:]


def test_ctrl_c_during_a_tournament_keeps_the_finished_games(tmp_path):
    out_dir = tmp_path / "t"
    status, out, err = interrupt_after(["tournament", "--budget", "1024", "--levels", "1-7", "--jobs", "1",
                                        "--out", str(out_dir)], "1/14 games")
    assert status == 130, err[-3000:]
    assert "tournament interrupted after" in err and "Traceback" not in err, err[-3000:]
    games = json.loads((out_dir / "games.json").read_text())
    assert 1 <= len(games) < 14 and all(g["level"] in range(1, 8) for g in games)
    assert "not played" in (out_dir / "tournament.md").read_text()
    assert len(interrupt_after.children) >= 1 and alive(interrupt_after.children) == []  # no orphaned worker


# --- defect 7: output paths checked before the work ---------------------------------------

@pytest.mark.parametrize("args, expected", [
    (["tournament", "--budget", "1024", "--out", "/proc/foo"], "--out /proc/foo: cannot write there"),
    (["tournament", "--budget", "1024", "--out", "FILE"], "exists and is not a folder"),
    (["play", "--budget", "1024", "--record", "/proc/x/game.txt"], "--record /proc/x/game.txt: its folder /proc/x: cannot write there"),
    (["convert", "--out", "/proc/x"], "--out /proc/x: cannot write there"),
])
def test_an_unwritable_output_is_refused_before_the_work(args, expected, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    args = [str(afile) if a == "FILE" else a for a in args]
    expected = expected.replace("FILE", str(afile))
    started = time.monotonic()
    one_clear_line(gamechip(*args), expected)
    assert time.monotonic() - started < 20  # refused at once, not after the games


def test_play_record_into_a_folder_writes_a_file_there(tmp_path):
    run = gamechip("play", "--budget", "256", "--level", "1", "--record", str(tmp_path))
    assert run.returncode == 0, run.stderr[-2000:]
    written = list(tmp_path.glob("play-*.txt"))
    assert len(written) == 1 and str(written[0]) in run.stdout


# --- defect 8: a mismatch in a simulated game ---------------------------------------------

def test_a_mismatch_in_a_simulated_game_names_the_position_and_both_moves(tmp_path):
    wrong_letter = mutant_root(tmp_path, "processor.py", 'LETTER_ROM = tuple(ord("A") + (s % 8) for s in range(SQUARES))',
                               'LETTER_ROM = tuple(ord("A") + ((s + 1) % 8) for s in range(SQUARES))')
    run = gamechip("play", "--budget", "256", "--level", "1", "--sim", "icarus", "--record", str(tmp_path / "g.txt"),
                   env={"GAMECHIP_RTL_ROOT": str(wrong_letter)})
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "RuntimeError" not in run.stderr, run.stderr[-3000:]
    assert "MISMATCH in the processor on icarus" in run.stderr
    assert "processor answered" in run.stderr and "golden processor" in run.stderr and "position:" in run.stderr
    assert f"RTL under test: {wrong_letter / 'rtl'}" in run.stderr
    assert not (tmp_path / "g.txt").exists()


# --- defect 10: values --------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    (["search", "--budget", "inf"], "cycles must be a whole number"),
    (["search", "--budget", "nan"], "cycles must be a whole number"),
    (["bench", "--scale", "nan"], "must be a number more than 0"),
    (["bench", "--scale", "inf"], "must be a number more than 0"),
    (["bench", "--scale", "0"], "must be a number more than 0"),
    (["bench", "--scale", "-1"], "must be a number more than 0"),
    (["tournament", "--budget", "1k", "--solve-empties", "32"], "--solve-empties: must be 0..31, got 32"),
    (["play", "--budget", "1k", "--solve-empties", "4", "--contexts", "2"], "the two-context processor does not solve"),
    (["play", "--budget", "1k", "--solve-empties", "4", "--sim", "icarus"],
     "the converted processor (--sim) solves at 14 empties"),
    (["tournament", "--budget", "1k", "--solve-empties", "4", "--sim", "icarus", "--mode", "engine"],
     "their processor does not solve"),
    (["nboard", "--budget", "1k", "--solve-empties", "4", "--sim", "icarus"], "nboard --sim does not solve"),
])
def test_values_out_of_range_are_one_clear_line(args, expected):
    one_clear_line(gamechip(*args), expected)


def test_a_board_text_starting_with_empty_squares_is_a_value_not_an_option():
    board = "-" * 27 + "OX------XO" + "-" * 27 + " X"
    run = gamechip("show", "--board", board, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["legal"] == ["D3", "C4", "F5", "E6"]
    one_clear_line(gamechip("show", "--board", "-" * 10), "board text")


# --- defect 11: what make fuzz covers -------------------------------------------------------

def test_fuzz_says_which_designs_it_does_not_fuzz_and_how_they_are_checked():
    from tb.blocks import BLOCKS, CHECKED_ELSEWHERE
    from rtl.designs import PORTS

    # every design is either a fuzzable block's or checked elsewhere: none is silently left out
    covered = {d for block in BLOCKS.values() for d in block.designs} | set(CHECKED_ELSEWHERE)
    assert set(PORTS) <= covered, set(PORTS) - covered
    for name in CHECKED_ELSEWHERE:
        one_clear_line(gamechip("fuzz", "--blocks", name), f"{name} is not driven by random positions")


# In make test-full: a fuzz of every block (a build of each on Icarus). make test keeps the refusals
# above and the fuzz of one block (tests/test_cli.py).
@pytest.mark.full
def test_a_fuzz_of_every_block_names_the_designs_it_leaves_to_other_checks():
    run = gamechip("fuzz", "--count", "1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "not fuzzed here: search (" in run.stderr and "uart (" in run.stderr and "processor (" in run.stderr


# --- the same kind of defect elsewhere: other settings ------------------------------------

@pytest.mark.parametrize("setting, expected", [
    ({"GAMECHIP_BUILD": "/proc/x"}, "GAMECHIP_BUILD=/proc/x: cannot write there"),
    ({"GAMECHIP_SEED": "abc"}, "GAMECHIP_SEED=abc: must be a whole number"),
    ({"GAMECHIP_CORPUS": "EMPTY"}, "holds no case files"),
])
def test_unusable_settings_stop_the_regression_and_the_commands_in_one_line(setting, expected, tmp_path):
    setting = {k: str(tmp_path) if v == "EMPTY" else v for k, v in setting.items()}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tb/test_corpus.py"], cwd=ROOT,
                         capture_output=True, text=True, env={**os.environ, **setting})
    assert run.returncode != 0 and expected in run.stdout + run.stderr, run.stdout[-2000:] + run.stderr[-2000:]
    if "GAMECHIP_CORPUS" in setting:
        one_clear_line(gamechip("corpus", "list", env={"GAMECHIP_CORPUS": "/nonexistent"}), "does not exist")
    elif "GAMECHIP_BUILD" in setting:
        one_clear_line(gamechip("fuzz", "--blocks", "move_checker", "--count", "10", env=setting), expected)


# --- a wrong option: the command's own usage, one spelling ------------------------------------

@pytest.mark.parametrize("args, usage, expected", [
    (["fuzz", "--sims", "icarus"], "usage: gamechip fuzz ", "gamechip fuzz: error: unrecognized arguments: --sims icarus"),
    (["fuzz", "--block", "move_checker"], "usage: gamechip fuzz ", "unrecognized arguments: --block move_checker"),
    (["fuzz", "--cou", "5"], "usage: gamechip fuzz ", "unrecognized arguments: --cou 5"),  # no abbreviation
    (["campaign", "--workers", "2", "--out", "x"], "usage: gamechip campaign ", "unrecognized arguments: --workers 2"),
    (["chess", "perft", "--depth", "1", "--bogus"], "usage: gamechip chess perft ",
     "gamechip chess perft: error: unrecognized arguments: --bogus"),
])
def test_a_wrong_option_gets_the_commands_own_usage(args, usage, expected):
    run = gamechip(*args)
    one_clear_line(run, expected)
    assert usage in run.stderr and "usage: gamechip [-h]" not in run.stderr, run.stderr


def test_an_unknown_block_of_bench_lists_every_name_bench_takes():
    one_clear_line(gamechip("bench", "--blocks", "alu", "--sims", "icarus"),
                   "unknown block 'alu': choose one of move_checker, disc_flipper, stable_discs, evaluator, "
                   "pattern_evaluator, node_order, openings, chess_movegen, chess_repetition, search, processor, all")


def test_a_reader_that_closes_stdout_early_gets_no_traceback_and_status_141():
    """``gamechip show | head -0``: the closed pipe ends the command quietly, as SIGPIPE would in a shell."""
    process = subprocess.Popen([sys.executable, "-m", "gamechip", "show"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# --- the pattern evaluator's options (docs/pattern-evaluator.md, docs/games.md) ----------------

@pytest.mark.parametrize("args, expected", [
    (["play", "--budget", "1k", "--evaluator", "pattern", "--contexts", "2"], "built for one context"),
    (["play", "--budget", "1k", "--evaluator", "pattern", "--port", "/dev/null"], "leave out --evaluator"),
    (["tournament", "--budget", "1k", "--evaluator", "pattern", "--sim", "icarus", "--mode", "engine"],
     "leave out --mode engine"),
    (["tournament", "--budget", "1k", "--evaluator", "pattern", "--contexts", "2"], "built for one context"),
    (["nboard", "--budget", "1k", "--evaluator", "pattern", "--contexts", "2"], "built for one context"),
    (["play", "--budget", "1k", "--evaluator", "patterns"], "invalid choice"),
])
def test_a_pattern_evaluator_combination_it_cannot_build_is_one_line(args, expected):
    one_clear_line(gamechip(*args), expected)
