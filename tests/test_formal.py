"""`gamechip formal` (gamechip/formal/): the SymbiYosys proofs hold on the project's RTL, each
fails on its planted bug with a counterexample that becomes a case file the bench replays and
sees fail, the synthesised netlist is proved equivalent to the converted RTL, and the area
table's evidence column reads the summaries.

The default regression runs the move checker's proof and its planted bug (caught, replayed)
and the quick checks; the other proofs, planted bugs and equivalences run in `make test-full`
and `make formal`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.formal import equivalence
from gamechip.formal.proofs import PROOFS, planted_root, run
from gamechip.formal.reference import module, stability_rule, walk
from gamechip.formal.session import planted_bug
from gamechip.measure.area import evidence
from tb.host.runner import ROOT


def gamechip(*args):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_the_reference_walks_stop_at_the_edge():
    assert walk(0, (0, 1), 8) == [1, 2, 3, 4, 5, 6, 7]
    assert walk(7, (0, 1), 8) == []            # H1 eastwards: off the board at once, no wrap to A2
    assert walk(9, (-1, -1), 8) == [0]
    assert walk(5, (1, -1), 4) == [8]          # B2 north-west on 4x4: A3, then off the board
    text = module(4)
    assert "module othello_reference_n4" in text and text.count("assign legal[") == 16
    assert stability_rule(8).count("assign next[") == 64


TINY = """module tiny (
    clk,
    q
);
input clk;
output [3:0] q;
wire [3:0] q;
reg signed [8:0] alpha;
reg [5:0] table [0:4-1];
wire [7:0] legal;
assign legal = clk ? 8'd3 : 8'd5;
assign q = legal[3:0];
endmodule
"""


def test_probes_and_cuts_become_ports_of_the_proofs_copy():
    from gamechip.formal.proofs import expose_probes

    text = expose_probes(TINY, "tiny", ("alpha", "table"), cuts=("legal",))
    assert text.startswith("module tiny (\n    probe_alpha,\n    probe_table,\n    cut_legal,\n    clk,")
    assert "output signed [8:0] probe_alpha;\nassign probe_alpha = alpha;" in text
    assert "output [23:0] probe_table;\nassign probe_table = {table[3], table[2], table[1], table[0]};" in text
    assert "assign legal = cut_legal;" in text and "clk ? 8'd3" not in text
    assert "input [7:0] cut_legal;" in text
    assert text.rstrip().endswith("endmodule") and text.count("endmodule") == 1


def test_a_probe_or_cut_that_is_not_there_is_refused():
    from gamechip.formal.proofs import expose_probes

    with pytest.raises(ValueError, match="no_such_register: no such register or wire in module tiny"):
        expose_probes(TINY, "tiny", ("no_such_register",))
    with pytest.raises(ValueError, match="cut alpha: module tiny does not drive it by exactly one assign"):
        expose_probes(TINY, "tiny", (), cuts=("alpha",))


def test_induction_keeps_roms_as_logic():
    from gamechip.formal.proofs import sby_config

    search = sby_config(PROOFS["search"], ["search.v", "search.sv"])
    assert "mode prove" in search and "proc -norom\nprep -top formal_search\nflatten\nopt_clean" in search
    assert "proc -norom" not in sby_config(PROOFS["uart"], ["uart.v", "uart.sv"])


def test_bad_design_name_is_one_line_and_status_2():
    done = gamechip("formal", "--designs", "no_such_design")
    assert done.returncode == 2, done.stderr
    assert "unknown design 'no_such_design'" in done.stderr and "Traceback" not in done.stderr


def test_a_planted_bug_that_no_longer_applies_is_refused(tmp_path):
    from gamechip.formal.proofs import PlantedBug

    with pytest.raises(ValueError, match="no longer applies"):
        planted_root(ROOT, PlantedBug("nothing", "move_checker.py", "text that is not there", "x"), tmp_path)


def test_move_checker_planted_bug_fails_with_a_trace_and_a_replayable_case(tmp_path):
    entry = planted_bug(PROOFS["move_checker"], ROOT, tmp_path, replay=True)
    assert entry["status"] == "caught", entry
    assert entry["caught_by"] == ["legal_iff_run"]
    assert Path(entry["trace"]).read_text().startswith("$version")
    record = json.loads(Path(entry["case"]).read_text())
    assert record["design"] == "move_checker" and record["rtl_root"] == entry["rtl_root"]
    assert record["expected"] != record["actual"]
    assert entry["replay"] == "failed as expected", entry


def test_the_move_checker_proof_holds_for_every_board(tmp_path):
    outcome = run(PROOFS["move_checker"], ROOT, tmp_path / "move_checker")
    assert outcome.status == "proved", outcome
    assert outcome.properties == [{"name": "legal_iff_run", "status": "proved"}]


@pytest.mark.full
def test_disc_flipper_n4_netlist_is_equivalent_to_its_rtl(tmp_path):
    result = equivalence.check("disc_flipper_n4", ROOT, tmp_path)
    assert result["status"] == "proved", result
    assert equivalence.check("search", ROOT, tmp_path)["status"] == "not attempted"


def test_the_area_evidence_column_reads_both_summaries(tmp_path):
    (tmp_path / "gatelevel").mkdir()
    (tmp_path / "formal").mkdir()
    (tmp_path / "gatelevel" / "summary.json").write_text(json.dumps(
        {"uart": {"family": "ice40", "sims": {"icarus": "passed", "verilator": "passed"}, "when": "x"},
         "search": {"family": "ice40", "sims": {"icarus": "failed"}, "when": "x"}}))
    (tmp_path / "formal" / "summary.json").write_text(json.dumps(
        {"uart": {"properties": [], "equivalence": {"status": "bounded", "depth": 12, "method": "m", "seconds": 1}},
         "move_checker": {"properties": [{"name": "a", "status": "proved", "depth": 1, "engine": "e", "seconds": 1}],
                          "equivalence": {"status": "proved", "method": "m", "seconds": 1}}}))
    assert evidence("uart", tmp_path) == ("simulated at gate level (ice40: icarus, verilator); "
                                          "equivalent for 12 cycles from reset")
    assert evidence("search (no trace)", tmp_path) == "gate-level simulation FAILED on icarus"
    assert evidence("move_checker", tmp_path) == "proved equivalent; formal properties proved"
    assert evidence("openings", tmp_path) == "RTL simulation only"


# The stable-discs proof (k-induction with the disc flipper in the problem) takes a quarter of
# an hour: it stays in make formal and out of make test-full (the extended mark), whose time
# must stay bounded. The proofs by k-induction must end proved, the bmc ones bounded.
@pytest.mark.full
@pytest.mark.parametrize("design", ["disc_flipper", pytest.param("stable_discs", marks=pytest.mark.extended),
                                    "uart", "evaluator_axi", "search"])
def test_the_proof_holds_on_the_rtl(design, tmp_path):
    proof = PROOFS[design]
    outcome = run(proof, ROOT, tmp_path / design)
    expected = "proved" if proof.mode == "prove" or not proof.sequential else "bounded"
    assert outcome.status == expected, outcome
    assert all(p["status"] == expected for p in outcome.properties), outcome.properties


@pytest.mark.full
@pytest.mark.parametrize("design", ["disc_flipper", "stable_discs", "uart", "evaluator_axi", "search"])
def test_the_planted_bug_is_caught(design, tmp_path):
    entry = planted_bug(PROOFS[design], ROOT, tmp_path, replay=True)
    assert entry["status"] == "caught" and entry["trace"], entry
    if design in ("disc_flipper", "stable_discs"):   # the blocks with a batch bench: a case, replayed
        assert entry["case"] and entry["replay"] == "failed as expected", entry


@pytest.mark.full
@pytest.mark.parametrize("design", ["move_checker", "node_order"])
def test_the_netlist_is_equivalent_to_the_rtl(design, tmp_path):
    assert equivalence.check(design, ROOT, tmp_path)["status"] == "proved"
