"""``gamechip bench``'s coverage cost: each block's fuzz run once without sampling and once with,
the ratio of the two measured rates. At a tiny scale on Icarus; the rates are printed, never
asserted."""

import json

from gamechip.measure.bench import coverage_cost, run_bench
from gamechip.measure.bench_record import BenchRecord
from tb.blocks import BLOCKS
from tb.checks.coverage_samplers import COVERAGE_OUT


def test_the_cost_rows_come_from_a_run_without_sampling_and_one_with(tmp_path, monkeypatch, capsys):
    asked = tmp_path / "asked-for-by-the-environment"
    monkeypatch.setenv(COVERAGE_OUT, str(asked))   # the run without sampling must not sample all the same
    record = BenchRecord(0.02)
    assert run_bench([BLOCKS["openings"]], ["icarus"], 0.02, record, coverage_sims=("icarus",)) == 0
    assert not asked.exists() or not list(asked.iterdir()), "the run without coverage sampled"
    [rates] = [row for row in record.rows if row["block"] == "openings"]
    [cost] = record.coverage_costs
    assert cost["block"] == "openings" and cost["sim"] == "icarus" and cost["loop"] == "in-process"
    assert cost["rate_off"] == rates["end_to_end_rate"], "the rate without is the bench's own row"
    assert cost["rate_on"] > 0 and cost["ratio"] == cost["rate_on"] / cost["rate_off"]
    assert cost["checked"] == rates["checked"] == 200 and cost["sampled"] == 200, "a short run samples every case"
    assert cost["sample_us"] > 0 and cost["sim_cpu_us_off"] > 0 and cost["sim_cpu_us_on"] > 0
    table = capsys.readouterr().out
    [line] = [line for line in table.splitlines() if line.startswith("openings") and "in-process" in line]
    assert f"{cost['ratio']:.2f}" in line.split() and f"{cost['rate_on']:,.0f}" in line.split()
    saved = tmp_path / "bench.json"
    record.save(saved)
    assert json.loads(saved.read_text())["coverage_cost"] == [cost]


def test_the_ratio_is_with_over_without():
    off = {"checked": 1000, "wall_seconds": 0.01, "sim_cpu_seconds": 0.008, "worker_cpu_seconds": 0.004,
           "load": (1.0, 1.2)}
    on = {"checked": 1000, "wall_seconds": 0.0125, "sim_cpu_seconds": 0.008, "worker_cpu_seconds": 0.007,
          "sampled": 100, "sample_seconds": 0.003, "load": (1.2, 1.3)}
    cost = coverage_cost("move_checker", "verilator", off, on)
    assert cost["rate_off"] == 100_000 and cost["rate_on"] == 80_000 and cost["ratio"] == 0.8
    assert cost["loop"] == "golden worker" and cost["worker_cpu_us_off"] == 4.0 and cost["worker_cpu_us_on"] == 7.0
    assert cost["sample_us"] == 3.0
