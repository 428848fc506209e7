"""The exit statuses of docs/exit-status.md held against the commands, so the page and the
behaviour cannot drift apart.

The test reads the page's table (a row per command, a column per status, ``–`` for a status the
command never ends with) and checks that its rows are the commands of ``gamechip``, that every
case below ends with the status it expects and that the table allows it, and that every cell of
the table is held by a test: a case here (in-process through gamechip.cli.main, no simulator), or
the test named in HELD_ELSEWHERE (which must exist), for a status only a simulation, a board or
a long run reaches. The cells no test reaches through the command yet are listed in NOT_HELD,
each with its reason: a new cell must join one of the three.

A seam case gives a command the answer a simulation, a server or a tool would have given (a
mismatch, a crash, a failed proof) and checks the command's own handling of it, without the run.
"""

import json
import re
from pathlib import Path

import pytest

from gamechip.campaign.journal import JOURNAL
from gamechip.campaign.plan import PARAMETERS, plan
from gamechip.cli import COMMANDS, main
from tb.blocks import BLOCKS

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "exit-status.md"
NEVER = "–"


def documented():
    """(statuses of the meaning table, {command: {status: cell text}} of the "By command" table,
    cells that are NEVER left out)."""
    text = PAGE.read_text()
    meanings = [int(n) for n in re.findall(r"^\| (\d+) \| ", text.split("## By command")[0], re.M)]
    table = text.split("## By command", 1)[1]
    header = re.search(r"^\| command \|(.*)\|$", table, re.M)
    columns = [int(cell) for cell in header.group(1).split("|")]
    rows = {}
    for command, cells in re.findall(r"^\| `([a-z-]+)` \|(.*)\|$", table, re.M):
        values = [cell.strip() for cell in cells.split("|")]
        assert len(values) == len(columns), f"row {command}: {len(values)} cells for {len(columns)} statuses"
        rows[command] = {status: value for status, value in zip(columns, values) if value != NEVER}
    return meanings, columns, rows


def test_the_table_has_a_row_for_every_command_and_a_column_for_every_status():
    meanings, columns, rows = documented()
    assert columns == meanings == [0, 1, 2, 3, 4, 5, 130]
    assert sorted(rows) == sorted(COMMANDS)
    assert all(rows[command].get(0) and rows[command].get(2) for command in rows), "every command passes and refuses"


# --- the cases: (argv, status) run here; "TMP" in an argument is this test's temporary folder ------

def campaign_folder(path, statuses, **extra):
    """A campaign folder whose journal holds every planned shard of stable_discs with ``statuses``."""
    parameters = {"blocks": ["stable_discs"], "sims": ["icarus"], "count": 400, "seed": 5, "shard_size": 200}
    path.mkdir(parents=True, exist_ok=True)
    shards = plan([BLOCKS["stable_discs"]], ["icarus"], 400, 5, 200)
    (path / PARAMETERS).write_text(json.dumps(parameters))
    (path / JOURNAL).write_text("".join(
        json.dumps({"key": shard.key, **shard.to_dict(), "status": status, "checked": 200 if status == "pass" else 1,
                    "seconds": 1.0, **extra}) + "\n" for shard, status in zip(shards, statuses)))
    return path


def mutation_folder(path, entry):
    """A mutation run's folder with one move_checker mutant journaled as ``entry``."""
    mutant = {"id": "rtl/move_checker.py:legal:invert:1:0123456789ab", "file": "rtl/move_checker.py",
              "function": "legal", "operator": "invert", "line": 10, "original": "a", "mutated": "b", "number": 1}
    path.mkdir(parents=True, exist_ok=True)
    (path / "mutants.json").write_text(json.dumps({"sim": "icarus", "rtl_digest": "x", "mutants": [mutant],
                                                   "blocks": {"move_checker": {"mutants": [mutant["id"]]}}}))
    (path / "journal.jsonl").write_text(json.dumps({"id": mutant["id"], "block": "move_checker", "number": 1,
                                                    "seconds": 1.0, **entry}) + "\n")
    return path


def wrong_published_score(path):
    """An OBF file with FFO #5 and a wrong published score for its best move (+30; the exact one is +32)."""
    from golden.ffo import ffo_problems

    path.mkdir(parents=True, exist_ok=True)
    (path / "wrong.obf").write_text(f"{ffo_problems()[5].position.text()}; G8:+30;\n")
    return path


def hit_file(path):
    """A hit file of move_checker that hits one bin: every other bin is open."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "move_checker.json").write_text(json.dumps({"design": "move_checker", "sim": "icarus", "test": "fuzz",
                                                        "cases": 1, "sampled": 1, "hits": {}}))
    return path


# a killed mutant proved equivalent to the original: a bench bug
BENCH_BUG = {"verdict": "killed", "test": "directed", "message": "m",
             "proof": {"verdict": "equivalent", "detail": "proved"}}
CAMPAIGN = ["--blocks", "stable_discs", "--sims", "icarus", "--count", "400", "--seed", "5", "--shard-size", "200",
            "--resume", "--out"]
# (argv, status, set-up of the folder TMP/x named by the argv, or None)
CASES = [
    (["show"], 0, None),
    (["show", "--board", "XO"], 2, None),
    (["show", "--move", "a1"], 2, None),  # not legal at the start
    (["perft", "--depth", "1"], 0, None),
    (["perft", "--depth", "-1"], 2, None),
    (["eval", "--board", "X" * 64 + " Z"], 2, None),
    (["eval"], 0, None),
    (["book", "--moves", "f5d6"], 0, None),
    (["book", "--moves", "z9"], 2, None),
    (["search", "--depth", "1"], 0, None),
    (["search", "--depth", "0"], 2, None),
    (["solve", "--ffo", "5"], 0, None),
    (["solve", "--ffo", "0"], 2, None),
    (["solve", "--obf", "TMP/x/wrong.obf"], 1, lambda p: wrong_published_score(p)),
    (["chess", "moves"], 0, None),
    (["chess", "moves", "--fen", "not a fen"], 2, None),
    (["fuzz", "--blocks", "alu"], 2, None),
    (["campaign", "--blocks", "alu", "--out", "TMP/x"], 2, None),
    (["campaign", *CAMPAIGN, "TMP/x"], 0, lambda p: campaign_folder(p, ["pass", "pass"])),
    (["campaign", *CAMPAIGN, "TMP/x"], 1, lambda p: campaign_folder(p, ["pass", "fail"], message="MISMATCH")),
    (["report", "TMP/x"], 0, lambda p: campaign_folder(p, ["pass", "pass"])),
    (["report", "TMP/x"], 1, lambda p: campaign_folder(p, ["pass", "fail"], message="MISMATCH")),
    (["report", "TMP/x"], 1, lambda p: campaign_folder(p, ["pass"])),  # INCOMPLETE
    (["report", "TMP/x"], 1, lambda p: mutation_folder(p, {"verdict": "error", "test": None, "message": "no result"})),
    (["report", "TMP/x"], 3, lambda p: mutation_folder(p, BENCH_BUG)),
    (["report", "TMP/x"], 2, None),  # no such folder
    (["replay", "TMP/x/missing.json"], 2, None),
    (["shrink", "TMP/x/missing.json"], 2, None),
    (["corpus", "add", "TMP/x/missing.json", "--why", " "], 2, None),
    (["play", "--budget", "1000", "--level", "9"], 2, None),
    (["play", "--budget", "1000", "--human"], 2, None),  # --human needs --port
    (["play", "--budget", "1000", "--engines", "0"], 2, None),
    (["play", "--budget", "1000", "--engines", "2", "--contexts", "2"], 2, None),
    (["play", "--budget", "1000", "--engines", "4", "--sim", "verilator"], 2, None),   # no processor_k4 converted
    (["tournament", "--budget", "1000", "--levels", "9"], 2, None),
    (["serve", "--sim", "icarus", "--listen", "nowhere"], 2, None),
    (["nboard", "--budget", "2k", "--timeout", "5"], 2, None),   # --timeout needs --port
    (["nboard", "--budget", "2k", "--engines", "2", "--sim", "verilator"], 2, None),
    (["match", "--engine", "a=x", "--out", "TMP/x"], 2, None),   # two engines at least
    (["openings", "--plies", "11"], 2, None),
    (["play", "--budget", "1000", "--port", "loop://", "--human", "white", "--color", "white"], 2, None),
    (["parallel", "--schemes", "nope"], 2, None),
    (["codesign", "--depth", "0"], 2, None),
    (["gatelevel", "--designs", "nope"], 2, None),
    (["formal", "--designs", "nope"], 2, None),
    (["area", "--designs", "nope"], 2, None),
    (["convert", "--designs", "nope", "--out", "TMP/x"], 2, None),
    (["bench", "--compare", "TMP/x/old.json", "TMP/x/new.json"], 2, None),
    (["coverage", "--hits", "TMP/x", "--no-code", "--out", "TMP/out"], 1, hit_file),
    (["coverage", "--hits", "TMP/x/missing", "--no-code", "--out", "TMP/out"], 2, None),
    (["mutate", "--blocks", "nope", "--out", "TMP/x"], 2, None),
    (["carry-waivers", "--check"], 0, None),
    (["carry-waivers", "--no-such-option"], 2, None),
    (["bitstream", "--board", "nope"], 2, None),
]


def run_case(argv, tmp_path):
    argv = [arg.replace("TMP", str(tmp_path)) for arg in argv] if tmp_path else argv
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's own refusals and --help
        return stop.code


@pytest.mark.parametrize("argv, status, setup", CASES, ids=[f"{' '.join(a)}->{s}" for a, s, _ in CASES])
def test_a_command_ends_with_the_status_the_table_gives_it(argv, status, setup, tmp_path, capsys):
    if setup:
        setup(tmp_path / "x")
    _, _, rows = documented()
    assert status in rows[argv[0]], f"docs/exit-status.md gives {argv[0]} no status {status}"
    actual = run_case(argv, tmp_path)
    err = capsys.readouterr().err
    assert actual == status, f"gamechip {' '.join(argv)}: status {actual}, expected {status}\n{err}"
    assert "Traceback" not in err, err
    if status == 2:
        assert len(err.strip().splitlines()) == 1 or err.startswith("usage:"), err
        # a misspelt option in the case would pass as a 2 without reaching the check the case is about
        if "--no-such-option" not in argv:
            assert "unrecognized arguments" not in err and "the following arguments are required" not in err, err


def evaluator_that_differs(design, sim, case):
    from golden.board import START
    from golden.evaluator import DEFAULT, evaluate

    answer = evaluate(START, DEFAULT).to_dict()
    return {**answer, "discs": (63, 1)}, False


def serve_error(*args, **kwargs):
    from gamechip.games.serve import ServeError

    raise ServeError("the server's simulation stopped")


def codesign_mismatch(*args, **kwargs):
    from gamechip.measure.codesign import Mismatch

    raise Mismatch("depth 2: NegaScout 4, plain alpha-beta 6")


def search_that_differs(path, waves=False, echo=False, monitor=None):
    from types import SimpleNamespace

    from golden.board import START
    from golden.search import search_events

    golden = search_events(START, 1, None).summary()
    answer = {**{key: golden[key] for key in ("best", "depth", "nodes", "cycles")}, "value": golden["value"] + 1}
    return SimpleNamespace(passed=False, result={"failure": "node 2 differs"}, sim_dir=Path("."),
                           actual={"answer": answer, "trace_match": False, "golden": golden, "nodes_checked": 2}), None


def shrink_error(*args, **kwargs):
    from tb.host.shrink import ShrinkError

    raise ShrinkError("the case passes on icarus: nothing to shrink")


def bitstream_error(*args, **kwargs):
    from gamechip.bitstream import BitstreamError

    raise BitstreamError("a clock is not met: see timing.txt")


def formal_summary(status):
    """gamechip.formal.session.run_designs as it answers when move_checker's one property ends ``status``."""
    prop = {"name": "legal_iff_run", "status": status, "engine": "smtbmc", "seconds": 1.0, "depth": 1}
    return lambda designs, out, root, **options: {"move_checker": {"properties": [prop]}}


def mutation_run_with_a_bench_bug(blocks, sim, out, **options):
    """gamechip.mutation.mutate.run as it answers for a run whose one killed mutant was proved
    equivalent to the original (the run's folder written as such a run leaves it)."""
    from gamechip.mutation.report import summarise

    return summarise(mutation_folder(Path(out), BENCH_BUG))


CORPUS_CASE = next(path for path in sorted((ROOT / "tb" / "cases").glob("disc_flipper-icarus-*.json")))
STRANDED = ("gamechip.mutation.waivers", "carry_waivers",
            lambda waivers, versions, source: (waivers, [], [("rtl/move_checker.py:f:op:1:0123456789ab", "changed")]))


# The command's own handling of what a simulation, a server, the shrinker, a bench, the waivers'
# history or the FPGA tools answered, that answer given in place of the run (module, attribute,
# replacement): (argv, status, seam)
SEAM_CASES = [
    (["eval", "--sim", "icarus"], 1, ("gamechip.cli.board", "simulate_one", evaluator_that_differs)),
    (["book", "--sim", "icarus"], 1, ("gamechip.cli.board", "simulate_one", lambda *a: (["D3"], False))),
    (["chess", "moves", "--sim", "icarus"], 1,
     ("gamechip.cli.chess", "simulate_one", lambda *a: ([("MOVE", "e2e4"), ("DONE", None)], False))),
    (["serve", "--sim", "icarus", "--listen", "127.0.0.1:0", "--games", "1"], 0,
     ("gamechip.games.serve", "serve", lambda *a, **k: 0)),
    (["serve", "--sim", "icarus", "--listen", "127.0.0.1:0"], 1, ("gamechip.games.serve", "serve", serve_error)),
    (["codesign", "--depth", "2", "--positions", "1"], 1, ("gamechip.measure.codesign", "run", codesign_mismatch)),
    (["search", "--depth", "1", "--sim", "icarus"], 1,
     ("tb.host.search_bench", "replay_search_case", search_that_differs)),
    (["shrink", str(CORPUS_CASE), "--out", "TMP/shrunk.json"], 1, ("tb.host.shrink", "shrink_record", shrink_error)),
    (["bench", "--blocks", "move_checker", "--sims", "icarus", "--rates-only"], 1,
     ("gamechip.measure.bench", "run_bench", lambda *a, **k: 1)),
    (["carry-waivers", "--check"], 1, STRANDED),
    (["bitstream", "--board", "ulx3s", "--out", "TMP/b"], 0, ("gamechip.bitstream", "build", lambda *a, **k: None)),
    (["bitstream", "--board", "ulx3s", "--out", "TMP/b"], 1, ("gamechip.bitstream", "build", bitstream_error)),
    (["mutate", "--blocks", "move_checker", "--sim", "icarus", "--out", "TMP/m"], 3,
     ("gamechip.mutation.mutate", "run", mutation_run_with_a_bench_bug)),
    (["formal", "--designs", "move_checker", "--out", "TMP/f"], 0,
     ("gamechip.formal.session", "run_designs", formal_summary("proved"))),
    (["formal", "--designs", "move_checker", "--out", "TMP/f"], 1,
     ("gamechip.formal.session", "run_designs", formal_summary("failed"))),
]


@pytest.mark.parametrize("argv, status, seam", SEAM_CASES, ids=[f"{' '.join(a)}->{s}" for a, s, _ in SEAM_CASES])
def test_what_a_simulation_answered_decides_the_status(argv, status, seam, monkeypatch, capsys, tmp_path):
    import importlib

    module, name, replacement = seam
    monkeypatch.setattr(importlib.import_module(module), name, replacement)
    _, _, rows = documented()
    assert status in rows[argv[0]], f"docs/exit-status.md gives {argv[0]} no status {status}"
    actual = run_case(argv, tmp_path)
    err = capsys.readouterr().err
    assert actual == status and "Traceback" not in err, f"gamechip {' '.join(argv)}: status {actual}\n{err}"


def test_any_command_interrupted_is_one_line_and_status_130(monkeypatch, capsys):
    """gamechip.cli.main's rule for every command: Ctrl-C is 'interrupted' and 130."""
    import gamechip.cli.board as board

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setitem(board.COMMANDS, "perft", (board.perft_arguments, interrupted))
    assert main(["perft", "--depth", "1"]) == 130
    assert capsys.readouterr().err == "gamechip perft: interrupted\n"


def test_help_is_status_0(capsys):
    assert run_case(["report", "--help"], None) == 0


# Statuses that only a simulation, a board, a toolchain or a long run reaches: the test that holds
# each (tests/FILE.py::FUNCTION).
HELD_ELSEWHERE = {
    ("fuzz", 0): "test_cli.py::test_fuzz_passes_and_summarises",
    ("fuzz", 1): "test_cli.py::test_fuzz_reports_a_planted_bug_with_seed_board_values_and_waveform",
    ("fuzz", 130): "test_cli_robustness.py::test_ctrl_c_during_fuzz_is_one_line_and_status_130",
    ("campaign", 130): "test_campaign.py::test_signals_again_and_again_within_milliseconds_still_stop_cleanly",
    ("plant", 0): "test_plant.py::test_plant_lists_the_corpus_bugs_and_writes_one",
    ("plant", 2): "test_plant.py::test_bad_plant_input_is_one_line_and_status_2",
    ("replay", 0): "test_cli_robustness.py::test_replay_and_shrink_use_the_rtl_the_case_failed_on",
    ("replay", 1): "test_cli.py::test_replay_of_a_search_case_from_a_broken_engine_writes_waves_and_pictures",
    ("shrink", 0): "test_chess_repetition_idle.py::"
                   "test_a_detector_that_forgets_its_plies_when_idle_is_caught_shrunk_and_replayed",
    ("corpus", 0): "test_mutate_survivors.py::test_a_survivors_counterexample_is_replayed_and_kept_in_the_corpus",
    ("play", 0): "test_cli_robustness.py::test_play_record_into_a_folder_writes_a_file_there",
    ("play", 1): "test_cli_robustness.py::test_a_mismatch_in_a_simulated_game_names_the_position_and_both_moves",
    ("play", 3): "test_serve.py::test_play_port_board_that_breaks_the_protocol_gets_one_line_and_status_3",
    ("play", 130): "test_cli_robustness.py::test_ctrl_c_during_a_simulated_game_is_one_line_and_status_130",
    ("tournament", 0): "test_tournament.py::"
                       "test_a_tournament_on_a_dask_cluster_plays_the_local_games_and_stops_on_ctrl_c",
    ("tournament", 130): "test_cli_robustness.py::test_ctrl_c_during_a_tournament_keeps_the_finished_games",
    ("play", 4): "test_serve.py::test_play_port_to_a_busy_server_says_so_in_one_line_and_writes_no_record",
    ("play", 5): "test_serve.py::test_play_port_human_names_the_humans_colour_and_the_record_names_both_sides",
    ("serve", 130): "test_serve.py::test_serve_survives_bad_clients_and_plays_whole_games_checked",
    ("nboard", 0): "test_nboard.py::test_the_engine_process_answers_and_ends_cleanly_at_end_of_input",
    ("nboard", 1): "test_serve.py::test_nboard_port_stops_at_a_reply_that_differs",
    ("nboard", 3): "test_serve.py::test_nboard_port_stops_with_the_status_of_a_broken_or_busy_board",
    ("nboard", 4): "test_serve.py::test_nboard_port_stops_with_the_status_of_a_broken_or_busy_board",
    ("match", 0): "test_nboard.py::test_a_short_match_against_a_small_engine_writes_legal_records_and_resumes",
    ("match", 3): "test_nboard.py::test_match_with_an_illegal_opening_or_an_engine_that_cannot_start",
    ("match", 130): "test_nboard.py::test_ctrl_c_stops_a_match_keeping_its_finished_games_and_it_resumes",
    ("openings", 0): "test_openings.py::test_a_judge_chooses_the_openings_nearest_0_and_the_header_says_how",
    ("openings", 3): "test_openings.py::test_a_broken_judge_is_one_line_and_status_3_and_nothing_is_lost",
    ("parallel", 0): "test_parallel.py::"
                     "test_the_command_on_a_dask_cluster_with_subtrees_checked_on_the_simulated_engine",
    ("codesign", 0): "test_codesign.py::test_the_codesign_command_reports_both_models_and_refuses_bad_arguments",
    ("area", 0): "test_area.py::test_the_small_blocks_synthesise_with_the_pinned_yosys",
    ("bench", 0): "test_bench_compare.py::test_compare_prints_the_table",
    ("coverage", 0): "test_coverage.py::test_cocotb_coverage_export_merges",
    ("mutate", 0): "test_mutate.py::test_the_verilator_path_kills_move_checker_mutants",
    ("mutate", 1): "test_mutate_survivors.py::test_a_counterexample_the_mutant_passes_is_refused_and_not_added",
}


# Cells no test reaches through the command yet, and why: the integrator's list to close.
NOT_HELD = {
    ("tournament", 1): "a game that fails needs a broken processor played through the command; play's 1 is held",
    ("parallel", 1): "a root value that differs needs a broken engine; the command returns what "
                     "gamechip.measure.parallel.run says",
    ("gatelevel", 0): "a run on a synthesised netlist takes minutes; tests/test_gatelevel.py runs "
                      "gamechip.gatelevel's functions",
    ("gatelevel", 1): "as gatelevel 0; the command returns what gamechip.gatelevel.run says",
    ("convert", 0): "a conversion costs seconds; tests/test_rtl_convert.py converts every design through rtl.convert",
}


def test_every_status_in_the_table_is_held_by_a_test():
    _, _, rows = documented()
    here = {(argv[0], status) for argv, status, _ in CASES + SEAM_CASES}
    general = {(command, 130) for command, cells in rows.items() if cells.get(130) == "interrupted"}
    cells_named = set(HELD_ELSEWHERE) | set(NOT_HELD)
    assert not cells_named - {(c, n) for c, cells in rows.items() for n in cells}, \
        f"HELD_ELSEWHERE or NOT_HELD name cells the table no longer has: {cells_named}"
    missing, unknown = [], []
    for command, cells in rows.items():
        for status in cells:
            if (command, status) in here or (command, status) in general:
                continue
            test = HELD_ELSEWHERE.get((command, status))
            if test is None:
                missing.append((command, status))
                continue
            file, function = test.split("::")
            if f"def {function}(" not in (ROOT / "tests" / file).read_text():
                unknown.append(test)
    assert not unknown, f"HELD_ELSEWHERE names tests that do not exist: {unknown}"
    assert sorted(missing) == sorted(NOT_HELD), f"statuses no test holds, beyond NOT_HELD: {missing}"
