"""``gamechip bench --compare OLD NEW``: the Verilator rows of two saved benches side by side, and
one line (exit status 2) for a saved bench that cannot be read. Pure Python, no simulator."""

import json

import pytest

from gamechip.measure.bench_record import SEARCH_ALONE, comparison_lines, failure_reason, load_bench
from tests.test_cli import gamechip


def row(block, sim_rate, end_to_end, cocotb, version, sim="verilator", unit="cases"):
    return {"block": block, "sim": sim, "cocotb": cocotb, "sim_version": version, "unit": unit, "checked": 1000,
            "sim_rate": sim_rate, "golden_rate": 300_000.0, "end_to_end_rate": end_to_end, "load": [1.0, 1.5]}


OLD_VERILATOR = "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"
NEW_VERILATOR = "Verilator 5.048 2026-01-01"
OLD = {"cocotb": "1.9.2", "verilator": OLD_VERILATOR, "scale": 1.0, "rows": [
    row("move_checker", 100_000.0, 50_000.0, "1.9.2", OLD_VERILATOR),
    {"block": "evaluator", "sim": "verilator", "cocotb": "1.9.2", "sim_version": OLD_VERILATOR,
     "failed": "TypeError: Clock.__init__() got an unexpected keyword argument 'unit'"},
    row(SEARCH_ALONE, 400_000.0, None, "1.9.2", OLD_VERILATOR, unit="cycles"),
]}
NEW = {"cocotb": "2.1.0", "verilator": NEW_VERILATOR, "scale": 1.0, "rows": [
    row("move_checker", 150_000.0, 60_000.0, "2.1.0", NEW_VERILATOR),
    row("move_checker", 9_000.0, 8_000.0, "2.1.0", "Icarus Verilog version 11.0", sim="icarus"),
    row("evaluator", 80_000.0, 20_000.0, "2.1.0", NEW_VERILATOR),
    row("openings", 10_000.0, 5_000.0, "2.1.0", NEW_VERILATOR),
    row(SEARCH_ALONE, 1_000_000.0, None, "2.1.0", NEW_VERILATOR, unit="cycles"),
]}


def test_the_table_names_both_tools_and_gives_old_new_and_gain_per_verilator_block():
    lines = comparison_lines(OLD, NEW, "old.json", "new.json")
    text = "\n".join(lines)
    assert f"old: {OLD_VERILATOR} under cocotb 1.9.2 (old.json)" in text
    assert f"new: {NEW_VERILATOR} under cocotb 2.1.0 (new.json)" in text
    [checker] = [line for line in lines if line.startswith("move_checker")]
    assert checker.split()[1:8] == ["cases", "100,000", "150,000", "1.50x", "50,000", "60,000", "1.20x"]
    [search] = [line for line in lines if line.startswith(SEARCH_ALONE)]
    assert search.split()[3:10] == ["cycles", "400,000", "1,000,000", "2.50x", "-", "-", "-"]
    [evaluator] = [line for line in lines if line.startswith("evaluator")]
    assert "not run on cocotb 1.9.2: TypeError: Clock.__init__() got an unexpected keyword argument 'unit'" in evaluator
    [openings] = [line for line in lines if line.startswith("openings")]
    assert "not in old.json" in openings
    assert "9,000" not in text  # Icarus rows are not compared


def test_compare_prints_the_table(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(OLD))
    new.write_text(json.dumps(NEW))
    run = gamechip("bench", "--compare", str(old), str(new))
    assert run.returncode == 0, run.stderr[-2000:]
    assert "1.50x" in run.stdout and "not run on cocotb 1.9.2" in run.stdout


@pytest.mark.parametrize("content, expected", [
    (None, "no such file"),
    ("{not json", "not JSON"),
    ("[1, 2]", "not a saved bench"),
    ('{"rows": [{"block": "move_checker"}]}', "row 1 has no block and sim names"),
    ('{"rows": [{"block": "move_checker", "sim": "verilator", "sim_rate": "fast"}]}', "sim_rate is not a rate"),
    ('{"rows": [{"block": "move_checker", "sim": "verilator", "sim_rate": 0}]}', "sim_rate is not a rate"),
])
def test_a_missing_or_damaged_saved_bench_is_one_line_and_status_2(content, expected, tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(NEW))
    if content is not None:
        bad.write_text(content)
    with pytest.raises(ValueError, match=expected):
        load_bench(bad)
    run = gamechip("bench", "--compare", str(bad), str(good))
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0] and str(bad) in lines[0], run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_compare_with_save_is_refused(tmp_path):
    run = gamechip("bench", "--compare", "a.json", "b.json", "--save", str(tmp_path / "c.json"))
    assert run.returncode == 2 and "--compare runs no bench" in run.stderr


def test_a_failure_is_kept_as_its_error_line():
    log = "building ...\n  File \"x.py\", line 3\nTypeError: unexpected keyword 'unit'\nFAIL=1\n"
    assert failure_reason(log) == "TypeError: unexpected keyword 'unit'"
    assert failure_reason("") == "no message (see the simulator's log)"
    assert failure_reason("a\nlast line\n") == "last line"
