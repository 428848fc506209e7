"""``gamechip mutate``'s machinery, so that it cannot rot: the schemata build of rtl/ (stable
ids, every design still converts, the mutants each design holds), one mutant of a block of each
kind of bench run on Icarus (--quick; the Verilator path on the move checker), the journal and
--resume, the report, the watchdog, and bad input answered in one line."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.mutation.benches import judge, judge_group, mutation_blocks
from gamechip.mutation.schemata import build_schemata, mutants_in_verilog
from tb.blocks import full_regression
from tb.host import runner
ROOT = Path(__file__).resolve().parent.parent
ID = re.compile(r"^rtl/[\w/]+\.py:\d+:\d+:[^:]+:[0-9a-f]{8}$")
# one block per kind of bench, on Icarus: a combinational batch bench, the start/done benches
# (stable discs; the ROM walk), node ordering, the UART's own bench and the search engine's. The
# flipper and the evaluator run the same paths as the move checker and stable discs; the
# processor's bench plays whole games (minutes a mutant: the sample only converts its schemata)
# and the peripheral's streams are Verilator's: make mutate runs them all. make test samples a
# batch bench and an own bench; make test-full every kind.
SAMPLED = ["move_checker", "stable_discs", "openings", "node_order", "uart", "search"] if full_regression() else \
    ["move_checker", "uart"]
# A plain run converts the schemata of every design of the blocks' system (each mutant judged by
# the most focused bench that holds it: about 90 CPU-s here, most of it the engines' and the
# processors'); make test's sample chooses its mutants with --mentioning (a statement of each
# block: the move checker's capture test, the receiver's bit counter), which judges them by the
# named blocks' benches alone and runs the same journal, resume, report and replay. make
# test-full runs the plain one.
SAMPLE_CHOICE = [] if full_regression() else ["--mentioning", "capture_mask", "bit_index"]
# Every mutate run converts the schemata of each design of its system (a mutant is judged by the
# most focused bench that sees it), and conversions are shared by content. The largest designs'
# conversions (the chess move generator, the search engines, the processor) are make test-full's;
# make test converts every other design's here.
CONVERTED_IN_FULL_ONLY = ("chess_movegen", "search", "search_c2", "search_pattern", "processor")


def gamechip(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout)


@pytest.fixture(scope="module")
def schemata(tmp_path_factory):
    out = tmp_path_factory.mktemp("schemata")
    return out, build_schemata(ROOT, out)


def test_mutant_ids_are_unique_stable_and_name_file_line_column_operator_digest(schemata, tmp_path):
    _, mutants = schemata
    ids = [m.id for m in mutants]
    assert len(ids) > 1000 and len(set(ids)) == len(ids)
    assert all(ID.match(i) for i in ids), [i for i in ids if not ID.match(i)][:3]
    assert [m.number for m in mutants] == list(range(1, len(mutants) + 1))   # 0 is the original design
    assert [m.id for m in build_schemata(ROOT, tmp_path)] == ids


@pytest.mark.parametrize("block", [pytest.param(block, marks=pytest.mark.full) if block in CONVERTED_IN_FULL_ONLY
                                   else block for block in mutation_blocks()])
def test_every_design_converts_with_its_mutants_and_holds_those_of_its_files(schemata, block):
    out, mutants = schemata
    by_number = {m.number: m for m in mutants}
    design = mutation_blocks()[block]
    verilog = (runner.hdl_dir(design, out) / f"{design}.v").read_text()
    inside = mutants_in_verilog(verilog)
    assert inside and inside <= set(by_number), block
    assert '$value$plusargs("MUTSEL=%d"' in verilog   # one build, every mutant chosen at run time
    own_file = {"chess_movegen": "rtl/chess/movegen.py", "chess_repetition": "rtl/chess/repetition.py",
                "search_c2": "rtl/contexts.py", "search_pattern": "rtl/pattern_leaf.py"}.get(block, f"rtl/{design}.py")
    assert any(by_number[n].file == own_file for n in inside), block


@pytest.mark.full
def test_a_group_of_mutants_is_judged_in_one_run_as_each_is_alone(schemata):
    """tb.sim.batch check_group: one run of the flipper's bench judges a killed mutant and an
    equivalent one (``arriving >= 2`` as ``>= 1``: both branches send 0, proved by the miter)
    exactly as their runs alone do."""
    out, mutants = schemata
    at = {(m.file, m.function, m.operator): m.number for m in mutants}
    origin = "originate_flips in flip_origin_cell"
    killed, equivalent = at["rtl/disc_flipper.py", origin, "negate condition"], at["rtl/disc_flipper.py", origin, "constant - 1"]
    group = {number: (verdict, test) for number, verdict, test, _, _
             in judge_group("disc_flipper", "disc_flipper", "icarus", out, [killed, equivalent], 1, True, 60)}
    alone = {number: judge("disc_flipper", "disc_flipper", "icarus", out, number, 1, True, 60)[:2]
             for number in (killed, equivalent)}
    assert group == alone == {killed: ("killed", "directed"), equivalent: ("survived", None)}


def test_the_case_labels_of_an_if_chain_on_the_selector_count_as_its_mutants():
    text = ("always @(MUTSEL, a) begin\n    case (MUTSEL)\n        'h7: begin\n            case (a)\n"
            "                'h1: x = 1;\n            endcase\n        end\n        'h9: x = 2;\n    endcase\n"
            "    if (((MUTSEL == 12) && y) || ((MUTSEL != 12) && z)) begin end\nend\n")
    assert mutants_in_verilog(text) == {7, 9, 12}


def test_one_mutant_of_each_kind_of_bench_is_run_killed_resumed_and_reported(tmp_path):
    out = tmp_path / "mutate"
    run = gamechip("mutate", "--blocks", *SAMPLED, "--sim", "icarus", "--quick", "--limit", "1", "--jobs", "2",
                   "--out", str(out), "--json", *SAMPLE_CHOICE)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert set(result["blocks"]) == set(SAMPLED)
    for block, row in result["blocks"].items():
        assert row["mutants"] == 1 and row["errors"] == 0 and row["pending"] == 0, (block, row)
        assert row["killed"] + row["survived"] + row["equivalent"] + row["waived"] == 1, (block, row)
    # the sample's mutants are all killed; a survivor here is a gap in a bench: see its replay line
    assert sum(row["killed"] for row in result["blocks"].values()) == len(SAMPLED), run.stdout
    journal = (out / "journal.jsonl").read_text().splitlines()
    assert sum('"baseline"' in line for line in journal) == len(SAMPLED)   # MUTSEL=0 passed first, per block

    again = gamechip("mutate", "--blocks", *SAMPLED, "--sim", "icarus", "--quick", "--limit", "1", "--out", str(out),
                     "--resume", "--json", *SAMPLE_CHOICE)
    other = gamechip("mutate", "--blocks", *SAMPLED, "--sim", "icarus", "--out", str(out), "--resume", *SAMPLE_CHOICE)
    assert other.returncode == 2 and "resume it the same way" in other.stderr, other.stderr
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["blocks"] == result["blocks"]
    assert (out / "journal.jsonl").read_text().splitlines() == journal   # nothing ran twice

    report = gamechip("report", str(out))
    assert report.returncode == 0 and "| move_checker | 1 | 1 |" in report.stdout, report.stdout
    assert (out / "report.md").exists()

    # a replay judges the mutant again with today's bench and journals the verdict
    first = next(json.loads(line) for line in journal if '"killed"' in line)
    replay = gamechip("mutate", "--out", str(out), "--blocks", first["block"], "--replay", first["id"])
    assert replay.returncode == 0 and "killed by" in replay.stdout, replay.stdout + replay.stderr[-2000:]
    last = json.loads((out / "journal.jsonl").read_text().splitlines()[-1])
    assert (last["id"], last["verdict"], last["replayed"]) == (first["id"], "killed", True)


@pytest.mark.full
def test_the_verilator_path_kills_move_checker_mutants(tmp_path):
    """The plusarg on Verilator (the peripheral's streamed mutants run there in make mutate only:
    its schemata build takes minutes). In make test-full: a Verilator build of the schemata; make
    test keeps the same plusarg on Icarus (the sampled blocks above)."""
    run = gamechip("mutate", "--blocks", "move_checker", "--quick", "--limit", "2", "--jobs", "1",
                   "--out", str(tmp_path), "--json")
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout)["blocks"]["move_checker"]["killed"] == 2


@pytest.mark.parametrize("args, message", [
    (["--blocks", "nonesuch"], "unknown block 'nonesuch'"),
    (["--limit", "0"], "--limit must be at least 1"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--retry-survivors"], "--retry-survivors goes with --resume"),
    (["--mentioning", "solv", "--netlist", "2", "--netlist-only"], "--mentioning chooses source mutants"),
    (["--mentioning", " "], "--mentioning takes texts that are not blank"),
])
def test_bad_arguments_are_one_line_and_exit_status_2(tmp_path, args, message):
    run = gamechip("mutate", "--out", str(tmp_path / "x"), *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_mentioning_keeps_the_mutants_whose_statement_names_a_text(schemata):
    """--mentioning (the solve mode's mutants of rtl/search.py, docs/mutation.md): every mutant
    whose statement contains a text, and no other."""
    from gamechip.mutation.mutate import mentioning_mutants

    _, mutants = schemata
    chosen = mentioning_mutants(mutants, ("final_value", "overflow"))
    assert chosen and all("final_value" in m.original or "overflow" in m.original for m in chosen)
    assert {m.id for m in chosen} == {m.id for m in mutants if "final_value" in m.original or "overflow" in m.original}
    assert {m.function.split(" in ")[0] for m in chosen} >= {"final_count", "stack_overflow"}
    by_file = mentioning_mutants(mutants, ("rtl/pattern_leaf.py",))
    assert by_file and {m.id for m in by_file} == {m.id for m in mutants if m.file == "rtl/pattern_leaf.py"}


def test_a_run_folder_is_not_overwritten_without_resume_and_replay_needs_a_run(tmp_path):
    (tmp_path / "journal.jsonl").write_text("")
    run = gamechip("mutate", "--blocks", "move_checker", "--out", str(tmp_path))
    assert run.returncode == 2 and "--resume" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    replay = gamechip("mutate", "--out", str(tmp_path / "none"), "--replay", "rtl/x.py:1:1:op:00000000")
    assert replay.returncode == 2 and "not a mutation run folder" in replay.stderr


def test_the_watchdog_kills_only_the_simulator_of_its_slot_and_says_so():
    import time

    from gamechip.mutation.benches import Watchdog

    sleeper = "import time; time.sleep(60)"
    mine = subprocess.Popen([sys.executable, "-c", sleeper, "build/sim/xdesign-icarus-cocotb1-campaign-s7-abc/sim"])
    other = subprocess.Popen([sys.executable, "-c", sleeper, "build/sim/xdesign-icarus-cocotb1-campaign-s6-abc/sim"])
    try:
        watchdog = Watchdog("/xdesign-icarus-", "campaign-s7", 0.5)
        assert mine.wait(timeout=20) != 0 and watchdog.fired
        time.sleep(0.5)
        assert other.poll() is None
    finally:
        for process in (mine, other):
            process.kill()
            process.wait()


def test_a_mutant_whose_converted_verilog_is_the_originals_is_equivalent_without_a_run():
    from gamechip.mutation.schemata import identical_mutants

    verilog = """\
always @(posedge clk) begin: a
    case (MUTSEL)
        'h1: begin
            bresp <= 0;
        end
        'h2: begin
            bresp <= 2;
        end
        default: begin
            bresp <= 0;
        end
    endcase
    if ((MUTSEL == 3)) begin
        rresp <= 0;
    end
    else begin
        rresp <= 0;
    end
    if ((MUTSEL == 4)) begin
        state <= 1;
    end
    else begin
        state <= 0;
    end
    if ((MUTSEL == 5)) begin
        x <= 0;
    end
    else begin
        x <= 0;
    end
end
always @(posedge clk) begin: b
    if ((MUTSEL == 5)) begin
        y <= 0;
    end
    else begin
        y <= 1;
    end
    if ((((MUTSEL == 6) && (a > b)) || ((MUTSEL != 6) && (a >= b)))) begin
        z <= 1;
    end
end
"""
    # 1 and 3 are the original in every place; 2 and 4 differ; 5 is the original in block a only
    assert identical_mutants(verilog) == {1, 3}


@pytest.mark.full
def test_waived_mutants_are_left_unrun_and_one_killed_is_a_bench_bug(schemata, tmp_path):
    """A waiver pins one version of its file and says why no input tells the mutant apart: the
    run leaves it unrun and counts it waived; if a run (--recheck-waivers) kills it, the review or
    the bench is wrong, and that is reported as a bench bug (exit status 3)."""
    from gamechip.mutation.journal import JOURNAL
    from gamechip.mutation.mutate import run
    from gamechip.mutation.report import summarise

    _, mutants = schemata
    waivers = {m.id: "a reason" for m in mutants}
    result = run(["move_checker"], "icarus", tmp_path, limit=2, quick=True, prove=False, workers=2,
                 waivers=waivers)
    row = result["blocks"]["move_checker"]
    assert (row["mutants"], row["waived"], row["pending"]) == (2, 2, 0), row
    assert not (tmp_path / JOURNAL).exists() or not (tmp_path / JOURNAL).read_text()   # nothing ran, not even MUTSEL=0
    assert all(not w["simulated"] for w in result["waived"]) and not result["bench_bugs"]

    killed = result["waived"][0]["id"]
    (tmp_path / JOURNAL).write_text(json.dumps({"id": killed, "block": "move_checker", "verdict": "killed",
                                                "test": "directed", "message": "flip mismatch", "seconds": 1}) + "\n")
    result = summarise(tmp_path, waivers)
    assert [bug["id"] for bug in result["bench_bugs"]] == [killed], result["bench_bugs"]
    assert "waived as equivalent" in result["bench_bugs"][0]["evidence"]
    assert summarise(tmp_path, {})["blocks"]["move_checker"]["pending"] == 1   # a withdrawn waiver: to run again

    # after new bench cases, --retry-survivors judges the survivors again, and only them
    survivor = result["waived"][1]["id"] if result["waived"][0]["id"] == killed else result["waived"][0]["id"]
    with open(tmp_path / JOURNAL, "a") as journal:
        journal.write(json.dumps({"id": survivor, "block": "move_checker", "verdict": "survived", "test": None,
                                  "message": "", "seconds": 1}) + "\n")
    result = run(["move_checker"], "icarus", tmp_path, resume=True, retry_survivors=True, limit=2, quick=True,
                 prove=False, workers=1, waivers={})
    entries = [json.loads(line) for line in (tmp_path / JOURNAL).read_text().splitlines()]
    assert [e["id"] for e in entries if e["id"] in (killed, survivor)] == [killed, survivor, survivor]
    assert result["blocks"]["move_checker"]["killed"] == 2, result["blocks"]


MOVED = '''from myhdl import always_comb, block


@block
def cell(a, b, y):
    @always_comb
    def logic():
        y.next = a & b
    return logic
'''


def test_a_waiver_is_carried_to_an_edited_file_while_its_statement_is_unchanged():
    from gamechip.mutation.schemata import source_mutants
    from gamechip.mutation.waivers import carry_waivers

    old = source_mutants("rtl/x.py", MOVED)
    waived = next(m for m in old if "&" in m.operator)
    versions = {old[0].id.rsplit(":", 1)[1]: MOVED}
    moved = MOVED.replace("@block\n", "# a comment that moves every line down\n\n@block\n")
    carried, moves, stranded = carry_waivers({waived.id: "because"}, lambda rel, digest: versions.get(digest),
                                             lambda rel: moved)
    (old_id, new_id, note), = moves
    new = next(m for m in source_mutants("rtl/x.py", moved) if m.id == new_id)
    assert old_id == waived.id and new.line == waived.line + 2 and new.operator == waived.operator
    assert carried == {new_id: "because"} and not stranded
    # the waived statement itself changed: the waiver stays under its old id, named
    rewritten = MOVED.replace("a & b", "a & ~b")
    kept, moves, stranded = carry_waivers({waived.id: "because"}, lambda rel, digest: versions.get(digest),
                                          lambda rel: rewritten)
    assert kept == {waived.id: "because"} and not moves and stranded[0][0] == waived.id
    assert "changed" in stranded[0][1]
    # the version the waiver names is nowhere in the history
    _, _, stranded = carry_waivers({waived.id: "because"}, lambda rel, digest: None, lambda rel: moved)
    assert "no version" in stranded[0][1]


def test_every_waiver_names_the_current_version_of_its_file():
    """An RTL edit changes its file's mutant ids; the waivers of that file must be carried
    (``gamechip carry-waivers``, then a review of the carried reasons), or the next make mutate
    counts them as survivors."""
    from gamechip.mutation.model import file_digest
    from gamechip.mutation.waivers import load_waivers

    stale = sorted({key.rsplit(":", 4)[0] for key in load_waivers()
                    if key.rsplit(":", 1)[1] != file_digest((ROOT / key.rsplit(":", 4)[0]).read_text())})
    assert not stale, f"waivers of an older version of {', '.join(stale)}: run gamechip carry-waivers"
