"""`gamechip formal` (gamechip/formal/): the SymbiYosys proofs hold on the project's RTL, each
fails on its planted bug with a counterexample that becomes a case file the bench replays and
sees fail, the synthesised netlist is proved equivalent to the converted RTL, and the area
table's evidence column reads the summaries.

The default regression runs the move checker's proof and its planted bug (caught, replayed)
and the quick checks; the other proofs, planted bugs (the counterexamples without a bench case
replayed in simulation: failing on the planted copy, passing on the RTL) and equivalences (the
sequential ones proved by induction over the register correspondence) run in `make test-full`
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
    stable = equivalence.check("stable_discs", ROOT, tmp_path)
    assert stable["status"] == "not attempted" and "adder trees" in stable["method"], stable


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
    else:   # the counterexample replayed in simulation: fails on the planted copy, passes on the RTL
        assert entry["trace_replay"] and entry["replay_ok"], entry
        assert "as the proof did" in entry["replay_planted"] and entry["replay_rtl"].startswith("passes"), entry


@pytest.mark.full
@pytest.mark.parametrize("design", ["move_checker", "node_order"])
def test_the_netlist_is_equivalent_to_the_rtl(design, tmp_path):
    assert equivalence.check(design, ROOT, tmp_path)["status"] == "proved"


HARNESS = """module formal_tiny (input clk, input rst, input [3:0] a);
  reg first = 1'b1;
  always @(posedge clk) first <= 1'b0;
  always @* begin
    if (first) assume (rst);
    if (!rst) begin
      small: assert (a < 4'd9);
      if (a[0]) odd_and_even: assert ((a & 4'd1) == 4'd1
                                      && (a | 4'd1) == a);
    end
  end
endmodule
"""


def test_the_replay_form_of_a_harness_turns_assertions_into_flags():
    from gamechip.formal.replay import simulation_harness

    text, assertions, assumptions = simulation_harness(HARNESS)
    assert assertions == ["small", "odd_and_even"] and assumptions == ["assumption_broken_0"]
    assert "assert" not in text and "assume" not in text
    assert "reg failed_small = 1'b0;" in text and "reg assumption_broken_0 = 1'b0;" in text
    # cleared at the top of their block, set where the statement was, guards kept
    block = text[text.index("always @* begin"):]
    assert block.index("failed_small = 1'b0;") < block.index("if (first)")
    assert "if (first) if (!(rst)) assumption_broken_0 = 1'b1;" in text
    assert "small = 1'b1;" in text and "if (a[0]) if (!((a & 4'd1) == 4'd1" in text
    assert text.count("begin") == text.count("end") - text.count("endmodule")


def test_every_harness_has_a_replay_form_naming_all_its_assertions():
    from gamechip.formal.proofs import assertion_names
    from gamechip.formal.replay import simulation_harness

    for proof in PROOFS.values():
        harness = proof.harness.read_text()
        _, assertions, _ = simulation_harness(harness)
        assert assertions == assertion_names(harness), proof.design


def test_the_replay_form_refuses_what_it_cannot_translate():
    from gamechip.formal.replay import ReplayError, simulation_harness

    with pytest.raises(ReplayError, match=r"\$past"):
        simulation_harness(HARNESS.replace("a < 4'd9", "a < $past(a)"))
    with pytest.raises(ReplayError, match="has no name"):
        simulation_harness(HARNESS.replace("small: assert", "assert"))


def test_the_replay_monitor_reads_the_flags_up_to_the_last_step():
    from gamechip.formal.replay import last_step, monitor_verilog

    text = monitor_verilog(["small"], ["assumption_broken_0"], 4)
    assert "if (testbench.cycle <= 4) begin" in text
    assert 'if (testbench.UUT.failed_small) $display("FORMAL-REPLAY assertion small fails at step %0d"' in text
    assert "testbench.UUT.assumption_broken_0" in text and "FORMAL-REPLAY end at step" in text
    assert last_step("    // state 0\n    // state 1\n    if (cycle == 0) begin\n    // state 2\n") == 2


def test_a_replay_folder_that_is_not_one_is_one_line_and_status_2(tmp_path):
    done = gamechip("formal", "--replay-trace", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "is not a replay folder" in done.stderr and "Traceback" not in done.stderr


SYNTHESIS_LOG = """2.12.6. Executing FSM_RECODE pass (re-assigning FSM state encoding).
Recoding FSM `$fsm$\\uart_rx0_state$649' from module `\\uart' using `auto' encoding:
  mapping auto encoding to `one-hot` for this FSM.
  000 -> ----1
  100 -> ---1-
  011 -> 1----

2.12.7. Executing FSM_INFO pass (dumping all available information on FSM cells).
"""


def test_the_fsm_recoding_is_read_from_the_synthesis_log():
    assert equivalence.fsm_encodings(SYNTHESIS_LOG) == (".fsm uart uart_rx0_state\n.map 000 ----1\n"
                                                         ".map 100 ---1-\n.map 011 1----\n")
    assert equivalence.fsm_encodings("no recoding here") == ""


def test_netlist_wires_with_undriven_bits_are_left_unpaired_but_never_ports():
    gate = ("module m(clk, q, v);\n  input clk;\n  output [1:0] q;\n  output [2:0] v;\n  wire [3:0] w;\n"
            "  assign w = { a, 2'hx, b };\n  assign v = { 1'hx, a, b };\n  assign q = { a, b };\nendmodule\n")
    assert equivalence.lost_bits(gate) == ["w"]


COUNTER = """module counter (clk, rst, q);
input clk;
input rst;
output [2:0] q;
reg [2:0] q;
always @(posedge clk) begin
    if (rst) q <= 3'd0;
    else q <= q + 3'd1;
end
endmodule
"""


@pytest.mark.full
def test_the_induction_proves_an_equal_netlist_and_refuses_a_different_one(tmp_path):
    same = equivalence.induction("counter", COUNTER, COUNTER.replace("q + 3'd1", "3'd1 + q"), "", tmp_path / "same")
    assert (same["step"], same["base"], same["pairs"]) == ("holds", "holds", 3), same
    # a netlist that resets elsewhere, or counts differently: from equal registers the next cycle differs
    reset = equivalence.induction("counter", COUNTER, COUNTER.replace("q <= 3'd0", "q <= 3'd5"), "", tmp_path / "reset")
    assert (reset["step"], reset["base"], reset["unproven"]) == ("fails", None, ["q"]), reset
    step = equivalence.induction("counter", COUNTER, COUNTER.replace("q + 3'd1", "q + 3'd3"), "", tmp_path / "step")
    assert step["step"] == "fails" and step["unproven"] == ["q"], step


# The opening book's check (its ten block RAMs flattened from the cell model) takes about ten
# minutes: extended. The stable discs' induction step does not finish in half an hour (its
# 64-bit popcount, built differently by synthesis, keeps none of its intermediate names to pair):
# no test expects it proved.
@pytest.mark.full
@pytest.mark.parametrize("design", ["uart", pytest.param("openings", marks=pytest.mark.extended)])
def test_the_sequential_netlist_is_proved_equivalent(design, tmp_path):
    result = equivalence.check(design, ROOT, tmp_path)
    assert result["status"] == "proved", result
    assert "paired by name" in result["method"] and result["pairs"] > 0
