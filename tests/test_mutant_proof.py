"""gamechip.mutation.proof on small schemata fixtures (the real designs take seconds to minutes)."""

import pytest

from gamechip.mutation import proof as mutant_proof
from gamechip.mutation.proof import fix_selector, prove


# Schemata form as `gamechip mutate` converts it. Mutant 1 (xor for or) is equal to the
# original exactly when own & opp == 0; mutant 2 (and-not) differs on legal boards too.
CHECKER = """\
`timescale 1ns/10ps

module tiny_checker (
    own,
    opp,
    legal
);
input [3:0] own;
input [3:0] opp;
output [3:0] legal;
reg [3:0] legal;

reg [15:0] MUTSEL = 0;

initial if (!$value$plusargs("MUTSEL=%d", MUTSEL)) MUTSEL = 0;

always @(MUTSEL, own, opp) begin: tiny_checker_logic
    case (MUTSEL)
        'h1: begin
            legal = (own ^ opp);
        end
        'h2: begin
            legal = (own & (~opp));
        end
        default: begin
            legal = (own | opp);
        end
    endcase
end

endmodule
"""
CHECKER_PORTS = [("own", 4, "in"), ("opp", 4, "in"), ("legal", 4, "out")]
CHECKER_MODEL = {0: lambda own, opp: own | opp, 1: lambda own, opp: own ^ opp,
                 2: lambda own, opp: own & ~opp & 0xF}

# A counter with a synchronous active-high reset (as MyHDL converts it). Mutant 1 raises
# ``big`` at 3 instead of 4: from reset (cycle 1) the count reaches 3 at cycle 5 at the
# earliest. Mutant 2 negates the enable: visible at cycle 3.
COUNTER = """\
`timescale 1ns/10ps

module tiny_counter (
    clk,
    rst,
    en,
    count,
    big
);
input clk;
input rst;
input en;
output [3:0] count;
reg [3:0] count;
output big;
wire big;

reg [15:0] MUTSEL = 0;

initial if (!$value$plusargs("MUTSEL=%d", MUTSEL)) MUTSEL = 0;

assign big = ((MUTSEL == 1) ? (count >= 3) : (count >= 4));

always @(posedge clk) begin: tiny_counter_step
    if (rst == 1) begin
        count <= 0;
    end
    else begin
        if ((((MUTSEL == 2) && ((!en) != 0)) || ((MUTSEL != 2) && (en != 0)))) begin
            count <= (count + 1);
        end
    end
end

endmodule
"""
COUNTER_PORTS = [("clk", 1, "in"), ("rst", 1, "in"), ("en", 1, "in"), ("count", 4, "out"),
                 ("big", 1, "out")]


def test_fix_selector_makes_the_selector_a_constant_and_renames():
    text = fix_selector(CHECKER, 7, "tiny_checker", "gate")
    assert "$value$plusargs" not in text
    assert "reg [15:0] MUTSEL" not in text
    assert "wire [15:0] MUTSEL = 16'd7;" in text
    assert "module gate (" in text and "tiny_checker (" not in text
    assert "tiny_checker_logic" in text     # block labels keep their names


def test_fix_selector_refuses_text_without_a_selector():
    with pytest.raises(ValueError):
        fix_selector("module m(a); input a; endmodule\n", 1, "m", "gold")


def test_constraint_follows_the_board_ports():
    assert mutant_proof.constraint_expr(CHECKER_PORTS, "legal_board") == "((own & opp) == 0)"
    flipper = [("black", 64, "in"), ("white", 64, "in"), ("new_black", 64, "out")]
    assert mutant_proof.constraint_expr(flipper, "legal_board") == "((black & white) == 0)"
    assert mutant_proof.constraint_expr(COUNTER_PORTS, "legal_board") == "1'b1"
    assert mutant_proof.constraint_expr(CHECKER_PORTS, "none") == "1'b1"


def test_original_against_itself_is_equivalent():
    assert prove(CHECKER, "tiny_checker", 0, CHECKER_PORTS).verdict == "equivalent"


def test_mutant_equivalent_only_on_legal_boards():
    legal = prove(CHECKER, "tiny_checker", 1, CHECKER_PORTS)
    assert legal.verdict == "equivalent", legal.detail
    free = prove(CHECKER, "tiny_checker", 1, CHECKER_PORTS, constraint="none")
    assert free.verdict == "counterexample"
    own, opp = free.inputs["own"], free.inputs["opp"]
    assert own & opp                                   # only an illegal board tells them apart
    assert CHECKER_MODEL[0](own, opp) != CHECKER_MODEL[1](own, opp)


def test_real_difference_gives_a_legal_counterexample():
    outcome = prove(CHECKER, "tiny_checker", 2, CHECKER_PORTS)
    assert outcome.verdict == "counterexample"
    own, opp = outcome.inputs["own"], outcome.inputs["opp"]
    assert own & opp == 0
    assert CHECKER_MODEL[0](own, opp) != CHECKER_MODEL[2](own, opp)


def test_bounded_check_from_reset():
    within = prove(COUNTER, "tiny_counter", 1, COUNTER_PORTS, seq_depth=4)
    assert within.verdict == "equivalent", within.detail
    beyond = prove(COUNTER, "tiny_counter", 1, COUNTER_PORTS, seq_depth=5)
    assert beyond.verdict == "counterexample"
    assert beyond.detail == "outputs differ in cycle 5"
    steps = beyond.inputs
    assert len(steps) == 5 and steps[0]["rst"] == 1
    # the only way to 3 by cycle 5: counting in cycles 2, 3 and 4 without a reset
    assert all(step["en"] == 1 and step["rst"] == 0 for step in steps[1:4])


def test_bounded_check_sees_an_early_difference():
    assert prove(COUNTER, "tiny_counter", 2, COUNTER_PORTS, seq_depth=2).verdict == "equivalent"
    outcome = prove(COUNTER, "tiny_counter", 2, COUNTER_PORTS, seq_depth=3)
    assert outcome.verdict == "counterexample"
    assert outcome.inputs[0]["rst"] == 1 and outcome.inputs[1] == {"rst": 0, "en": 1}
    assert prove(COUNTER, "tiny_counter", 0, COUNTER_PORTS, seq_depth=6).verdict == "equivalent"


def test_a_broken_mutant_is_unknown_not_an_exception():
    broken = CHECKER.replace("legal = (own ^ opp);", "legal = (own ^ );")
    outcome = prove(broken, "tiny_checker", 1, CHECKER_PORTS)
    assert outcome.verdict == "unknown" and "ERROR" in outcome.detail


def test_text_without_selector_is_unknown():
    outcome = prove("module tiny_checker(own); input own; endmodule\n", "tiny_checker", 1,
                    CHECKER_PORTS)
    assert outcome.verdict == "unknown" and "MUTSEL" in outcome.detail


def test_command_line(tmp_path, capsys, monkeypatch):
    import rtl.designs
    monkeypatch.setitem(rtl.designs.PORTS, "tiny_checker", CHECKER_PORTS)
    source = tmp_path / "tiny_checker.v"
    source.write_text(CHECKER)
    assert mutant_proof.main([str(source), "tiny_checker", "2"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("tiny_checker mutant 2: counterexample") and "own=0x" in line


# A case-statement ROM (as MyHDL converts a tuple of ints): Yosys would make it a memory,
# which sat cannot model. Mutant 1 reads 0 for every entry.
ROM_ENTRIES = [(5 * i + 3) % 16 for i in range(16)]
ROM = """\
module tiny_rom (
    index,
    value
);
input [3:0] index;
output [3:0] value;
reg [3:0] value;

reg [15:0] MUTSEL = 0;

initial if (!$value$plusargs("MUTSEL=%d", MUTSEL)) MUTSEL = 0;

always @(MUTSEL, index) begin: tiny_rom_read
    if ((MUTSEL == 1)) begin
        value = 0;
    end
    else begin
        case (index)
""" + "".join(f"            {i}: value = {v};\n" for i, v in enumerate(ROM_ENTRIES)) + """\
        endcase
    end
end

endmodule
"""


def test_rom_designs_are_proved():
    ports = [("index", 4, "in"), ("value", 4, "out")]
    assert prove(ROM, "tiny_rom", 0, ports).verdict == "equivalent"
    outcome = prove(ROM, "tiny_rom", 1, ports)
    assert outcome.verdict == "counterexample" and ROM_ENTRIES[outcome.inputs["index"]] != 0


def _plain_checker(expression):
    """tiny_checker converted without a selector (as an --elab mutant's copy is)."""
    return ("module tiny_checker (\n    own,\n    opp,\n    legal\n);\ninput [3:0] own;\ninput [3:0] opp;\n"
            "output [3:0] legal;\nwire [3:0] legal;\n\n"
            f"assign legal = {expression};\n\nendmodule\n")


def test_two_conversions_of_a_design_are_proved_equivalent_on_legal_boards_or_told_apart():
    from gamechip.mutation.proof import prove_versions

    original = _plain_checker("(own | opp)")
    same = prove_versions(original, _plain_checker("(own ^ opp)"), "tiny_checker", CHECKER_PORTS)
    assert same.verdict == "equivalent", same
    differs = prove_versions(original, _plain_checker("(own & (~opp))"), "tiny_checker", CHECKER_PORTS)
    assert differs.verdict == "counterexample", differs
    own, opp = differs.inputs["own"], differs.inputs["opp"]
    assert own & opp == 0 and CHECKER_MODEL[0](own, opp) != CHECKER_MODEL[2](own, opp)
    wrong = prove_versions(original, original.replace("tiny_checker", "other"), "tiny_checker", CHECKER_PORTS)
    assert wrong.verdict == "unknown" and "expected the one module tiny_checker" in wrong.detail
