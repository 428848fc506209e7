"""Coverage closure: the test plans and waivers as data, the samplers against the plans, closure
failing when the stimulus that covers a bin is removed, the report and its --json form, and
gamechip fuzz --until-covered."""

import json
import random

import pytest

from gamechip.coverage.closure import bench_nodeids, session_closure
from gamechip.coverage.model import Merged, design_coverage, read_hit_files
from gamechip.coverage.plan import PlanError, design_plans, load_plan, load_plans, load_waivers
from tb.checks.combinational import DiscFlipperCheck
from tb.checks.coverage_samplers import CHESS_SAMPLERS, SAMPLERS, CoverageRecorder
from tb.checks.directed import directed_positions, random_positions
from tests.test_cli import gamechip


def test_every_plan_loads_and_every_sampled_design_has_one():
    from tb.blocks import BENCH_SAMPLED_TESTS

    plans = design_plans()
    assert set(plans) == set(SAMPLERS) | set(CHESS_SAMPLERS) | set(BENCH_SAMPLED_TESTS), \
        "every planned design has a sampler (or a bench that samples it), and back"
    for design, plan in plans.items():
        bins = plan.bins(design)
        assert len(bins) == len(set(bins)), f"{design}: a bin named twice"
        for point in plan.points(design):
            assert point.description and point.tests and point.generators, f"{design}: {point.name}"


def test_every_waiver_names_a_planned_bin_and_argues_it():
    plans = design_plans()
    for design, waived in load_waivers().items():
        assert design in plans, design
        for name, reason in waived.items():
            assert name in plans[design].bins(design), f"{design}: waiver of {name}, not a bin of the plan"
            assert len(reason.split()) >= 10, f"{design} {name}: a reason is an argument, not a word"


def test_a_plan_with_an_unknown_parameter_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('block = "b"\nspec = "s"\n[designs.b]\nsize = 4\n[[points]]\nname = "p"\n'
                    'description = "d"\naxes = [{name = "run", range = [0, "max_run"]}]\n')
    with pytest.raises(PlanError, match="no design parameter 'max_run'"):
        load_plan(path).bins("b")
    assert load_plans(tmp_path)   # the file itself reads


def bench_hit_files(folder, design, check, cases_of_test, monkeypatch, sims=None):
    """Hit files as the regression's bench runs of ``design`` write them (one per sim and test)."""
    for nodeid in bench_nodeids(design):
        monkeypatch.setenv("PYTEST_CURRENT_TEST", f"{nodeid} (call)")
        sim = nodeid.split("[")[1].split("-")[0]
        for test, cases in cases_of_test.items():
            recorder = CoverageRecorder(design, sim, test, str(folder))
            recorder.sample(cases, [check.expected(case) for case in cases])
            recorder.save()
    return bench_nodeids(design)


def disc_flipper_n4_tests(without=None):
    """The regression's tests of disc_flipper_n4 on Icarus (directed, 300 of each random kind),
    the directed cases whose label holds ``without`` left out."""
    check = DiscFlipperCheck(4)
    directed = check.cases(directed_positions(4), exhaustive=True)
    tests = {"directed": [c for c in directed if not (without and without in c.label)]}
    for kind in ("occupancy", "played"):
        tests[f"random_{kind}"] = check.cases(random_positions(kind, random.Random(1), 300, 4), rng=random.Random(2))
    return check, tests


def test_closure_fails_when_the_stimulus_that_covers_a_bin_is_removed(tmp_path, monkeypatch):
    """The regression's closure (root conftest.py calls session_closure with the passed tests):
    closed with the directed set as it is; the aimed flip-total generator removed, the largest
    totals are holes and closure fails, naming them."""
    check, tests = disc_flipper_n4_tests()
    passed = bench_hit_files(tmp_path / "full", "disc_flipper_n4", check, tests, monkeypatch)
    closed = session_closure(str(tmp_path / "full"), passed)["disc_flipper_n4"]
    assert closed.closed, closed.problems()

    check, weakened = disc_flipper_n4_tests(without="flips by a move")
    passed = bench_hit_files(tmp_path / "weak", "disc_flipper_n4", check, weakened, monkeypatch)
    result = session_closure(str(tmp_path / "weak"), passed)["disc_flipper_n4"]
    assert not result.closed
    assert "disc_flipper_n4: hole total_flips:6 (neither hit nor waived)" in result.problems()
    # a design whose bench tests did not all pass is not judged
    assert session_closure(str(tmp_path / "weak"), passed[:-1]) == {}


def test_a_waived_bin_that_is_hit_fails_closure(tmp_path, monkeypatch):
    check, tests = disc_flipper_n4_tests()
    bench_hit_files(tmp_path, "disc_flipper_n4", check, tests, monkeypatch)
    merged = read_hit_files([tmp_path])["disc_flipper_n4"]
    waivers = {"disc_flipper_n4": {"total_flips:6": "pretend a move cannot flip six discs", **load_waivers()["disc_flipper_n4"]}}
    coverage = design_coverage("disc_flipper_n4", merged, waivers=waivers)
    assert not coverage.closed
    assert "disc_flipper_n4: waiver of total_flips:6: waived, but hit: the bin is reachable" in coverage.problems()


def test_coverage_report_and_json_from_hit_files(tmp_path, monkeypatch):
    check, tests = disc_flipper_n4_tests(without="flips by a move")
    bench_hit_files(tmp_path / "hits", "disc_flipper_n4", check, tests, monkeypatch)
    run = gamechip("coverage", "--hits", str(tmp_path / "hits"), "--blocks", "disc_flipper_n4", "--no-code",
                   "--json", "--out", str(tmp_path / "report"))
    assert run.returncode == 1, run.stderr[-2000:]
    entry = json.loads(run.stdout)["blocks"]["disc_flipper_n4"]
    plan_bins = design_plans()["disc_flipper_n4"].bins("disc_flipper_n4")
    assert entry["bins"] == len(plan_bins) and entry["waived"] == ["illegal:off_board"]
    assert "total_flips:6" in entry["holes"] and entry["hit"] == entry["bins"] - 1 - len(entry["holes"])
    assert entry["line"] is None and entry["code_coverage"] == "not collected (--no-code)"
    page = (tmp_path / "report" / "index.html").read_text()
    total_flips = page[page.index("<h4>total_flips</h4>"):]
    assert total_flips.index('<td class="hole">0</td>') < total_flips.index('<td class="hit">'), "holes first"
    assert (tmp_path / "report" / "coverage.yml").exists() and (tmp_path / "report" / "coverage.xml").exists()
    assert "OPEN: disc_flipper_n4" in run.stderr


def test_cocotb_coverage_export_merges(tmp_path, monkeypatch):
    """The export is cocotb-coverage's own format: its merge_coverage reads two of them back."""
    import subprocess
    import sys

    check, tests = disc_flipper_n4_tests(without="flips by a move")
    bench_hit_files(tmp_path / "hits", "disc_flipper_n4", check, tests, monkeypatch)
    for out in ("a", "b"):   # one process each: cocotb-coverage's model is one database per process
        run = gamechip("coverage", "--hits", str(tmp_path / "hits"), "--blocks", "disc_flipper_n4", "--no-code",
                       "--out", str(tmp_path / out))
        assert run.returncode == 1
    script = ("import sys\nfrom cocotb_coverage.coverage import merge_coverage\n"
              "merge_coverage(print, sys.argv[1], sys.argv[2], sys.argv[3])\n")
    merged = tmp_path / "merged.yml"
    run = subprocess.run([sys.executable, "-c", script, str(merged), str(tmp_path / "a" / "coverage.yml"),
                          str(tmp_path / "b" / "coverage.yml")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "gamechip.disc_flipper_n4.total_flips" in merged.read_text()


@pytest.mark.parametrize("args, expected", [
    (["coverage", "--blocks", "nosuch"], "no test plan for 'nosuch'"),
    (["coverage", "--hits", "/nonexistent/hits"], "--hits /nonexistent/hits: no such file or folder"),
    (["coverage", "--hits", "tests", "--out", "/dev/null/report"], "--out /dev/null/report:"),
])
def test_bad_coverage_input_is_one_line(args, expected):
    run = gamechip(*args)
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    assert expected in run.stderr and "Traceback" not in run.stderr


def test_fuzz_until_covered_lists_the_holes_and_fails():
    """A weak stimulus (the directed set and 50 random positions) leaves bins of the move checker's
    plan open: they are listed and the exit status is 1."""
    run = gamechip("fuzz", "--blocks", "move_checker", "--count", "50", "--until-covered", "--sim", "icarus")
    assert run.returncode == 1, (run.returncode, run.stderr[-3000:])
    assert "coverage of move_checker:" in run.stderr and "move_checker: hole " in run.stderr
    assert "NOT COVERED:" in run.stdout and "PASS: 50 cases checked" in run.stdout


@pytest.mark.full
def test_fuzz_until_covered_closes_and_stops_early():
    run = gamechip("fuzz", "--blocks", "move_checker", "--count", "100000", "--until-covered", "--sim", "icarus")
    assert run.returncode == 0, run.stderr[-3000:]
    assert " 0 holes" in run.stderr and "NOT COVERED" not in run.stdout
    checked = int(run.stdout.split("PASS: ")[1].split(" cases")[0].replace(",", ""))
    assert checked < 100000, "the run stops once every bin is hit"


@pytest.mark.parametrize("kernel", ["words"])
def test_the_golden_worker_samples_what_the_bench_samples(kernel, tmp_path, monkeypatch):
    """The fast fuzz path's golden worker (tb.checks.golden_worker) samples its chunks as the
    bench's in-process loop does: the same cases sampled, the same hits, for either kernel."""
    import io

    from tb.checks.combinational import fuzz_chunks
    from tb.checks.coverage_samplers import COVERAGE_OUT
    from tb.checks.golden_worker import serve

    check, count = DiscFlipperCheck(8), 9000
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(COVERAGE_OUT, str(tmp_path / "worker"))
    monkeypatch.setenv("GAMECHIP_DESIGN", "disc_flipper")
    serve("disc_flipper", 8, 5, count, 8, kernel=kernel, acks=io.StringIO(""), out=io.StringIO())
    bench = CoverageRecorder("disc_flipper", "verilator", "fuzz", str(tmp_path / "bench"))
    for chunk in fuzz_chunks(check, 5, count):
        bench.sample(chunk, [check.expected(case) for case in chunk])
    worker = read_hit_files([tmp_path / "worker"])["disc_flipper"]
    assert worker.runs[0][2:] == (count, bench.sampled) and bench.sampled < count
    assert worker.hits == bench.hits


def test_the_samplers_name_only_bins_of_their_plans(monkeypatch):
    """Each Othello sampler over the directed set: every bin it counts is one its plan names."""
    from tb.checks.combinational import MoveCheckerCheck
    from tb.checks.coverage_samplers import sample_cases
    from tb.checks.evaluator import EvaluatorCheck
    from tb.checks.node_order import NodeOrderCheck
    from tb.checks.stable_discs import StableDiscsCheck

    monkeypatch.setenv("GAMECHIP_DESIGN", "evaluator_heavy")
    for design, check in (("move_checker", MoveCheckerCheck(8)), ("disc_flipper_n6", DiscFlipperCheck(6)),
                          ("stable_discs", StableDiscsCheck(8)), ("evaluator_heavy", EvaluatorCheck()),
                          ("node_order", NodeOrderCheck(8))):
        positions = directed_positions(check.size)
        cases = check.cases(positions if design != "node_order" else positions[:40], rng=random.Random(1))
        hits = sample_cases(design, cases, [check.expected(case) for case in cases])
        coverage = design_coverage(design, Merged(design, hits))
        assert coverage.unplanned == [] and coverage.hit, (design, coverage.unplanned)


def test_random_tests_sample_the_dense_prefix_then_one_case_in_sparse_every():
    from tb.checks.coverage_samplers import DENSE_CASES, SPARSE_EVERY

    recorder = CoverageRecorder("move_checker", "icarus", "random_played", "unused")
    seen = []
    recorder.sample_one = lambda case, expected, hits: seen.append(case)
    for first in range(0, 3 * DENSE_CASES + 77, 1000):
        chunk = list(range(first, min(first + 1000, 3 * DENSE_CASES + 77)))
        recorder.sample(chunk, chunk)
    assert seen == [i for i in range(3 * DENSE_CASES + 77) if i < DENSE_CASES or i % SPARSE_EVERY == 0]
    assert recorder.sampled == len(seen) and recorder.cases == 3 * DENSE_CASES + 77


def test_the_report_of_a_design_whose_code_coverage_is_not_collected_says_why(tmp_path):
    from gamechip.coverage.code import not_collected
    from gamechip.coverage.report import write_html

    coverage = design_coverage("uart", None, design_plans(), load_waivers())
    code = {"uart": not_collected("its Verilator run failed: 1 failed")}
    write_html(tmp_path / "index.html", [coverage], code)
    page = (tmp_path / "index.html").read_text()
    assert "Code coverage not collected: its Verilator run failed: 1 failed" in page
    assert "code not reached" not in page


def test_the_report_names_the_section_of_the_specification_each_plan_is_derived_from(tmp_path):
    from gamechip.coverage.report import write_html

    plans = design_plans()
    coverage = design_coverage("uart", None, plans, load_waivers())
    write_html(tmp_path / "index.html", [coverage], {})
    page = (tmp_path / "index.html").read_text()
    assert f"Plan derived from {plans['uart'].spec}</p>" in page
    assert plans["uart"].spec.startswith("docs/spec.md §8 ")


def test_a_design_without_a_plan_has_a_row_and_a_json_entry_of_code_coverage_alone(tmp_path):
    from gamechip.cli.coverage import code_only_designs, selected_designs
    from gamechip.coverage.report import coverage_json, write_html

    plans = design_plans()
    assert code_only_designs(["all"]) == ["processor_c2"] and code_only_designs(["uart"]) == []
    assert selected_designs(["processor_c2", "uart"], plans) == ["uart"]
    coverage = design_coverage("uart", None, plans, load_waivers())
    code = {"uart": {"line": 100.0, "toggle": 100.0, "branch": 100.0, "unexplained": []},
            "processor_c2": {"line": 47.5, "toggle": 73.0, "branch": 97.0, "html": "processor_c2/html/index.html",
                             "unexplained": ["processor_c2.v:10: x <= 1;  [always block control]"]}}
    entry = coverage_json([coverage], code, ["processor_c2"])["blocks"]["processor_c2"]
    assert (entry["bins"], entry["line"], entry["branch"], entry["toggle"]) == (0, 47.5, 97.0, 73.0)
    assert entry["unexplained"] == code["processor_c2"]["unexplained"]
    write_html(tmp_path / "index.html", [coverage], code, (), ["processor_c2"])
    page = (tmp_path / "index.html").read_text()
    assert 'href="#processor_c2"' in page and "code not reached: processor_c2.v:10: x &lt;= 1;" in page
    assert 'href="processor_c2/html/index.html"' in page


def test_deferred_dense_samples_are_the_same_cases_sampled_last():
    """The golden worker keeps a random test's dense prefix for after its last chunk: the same
    cases sampled as without deferring, the sparse ones as they come and the prefix at the end."""
    from tb.checks.coverage_samplers import DENSE_CASES, SPARSE_EVERY

    total = 3 * DENSE_CASES + 77
    recorder = CoverageRecorder("move_checker", "icarus", "fuzz", "unused")
    seen = []
    recorder.sample_one = lambda case, expected, hits: seen.append(case)
    for first in range(0, total, 1000):
        chunk = list(range(first, min(first + 1000, total)))
        recorder.sample(chunk, chunk, defer_dense=True)
    assert seen == [i for i in range(DENSE_CASES, total) if i % SPARSE_EVERY == 0]
    recorder.sample_deferred()
    assert seen[-DENSE_CASES:] == list(range(DENSE_CASES)) and recorder.deferred == []
    assert recorder.sampled == len(seen) and recorder.cases == total
