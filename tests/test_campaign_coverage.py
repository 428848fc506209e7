"""A campaign's functional coverage: each shard samples its block's plan, the campaign merges the
hit files its journal names (across simulators and seeds), its summary and report show bins, hits
and the holes by name, and --until-covered stops a block's shards once its plan is covered.

The merging and verdicts are checked on hit files made here (pure Python); two small campaigns of
the opening book on Icarus check the whole path, shard to report."""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from gamechip.campaign.coverage import CampaignCoverage, campaign_coverage, not_needed
from gamechip.campaign.plan import plan
from gamechip.campaign.progress import summary
from gamechip.coverage.model import target_bins
from gamechip.coverage.plan import design_plans
from tb.blocks import BLOCKS
from tb.checks.coverage_samplers import COVERAGE_OUT

ROOT = Path(__file__).resolve().parent.parent
DESIGN = "openings"


def hit_file(out, name, bins, sim="icarus", cases=10):
    """A hit file under OUT/coverage/ as a shard's run writes it; its path relative to OUT."""
    path = Path(out) / "coverage" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"design": DESIGN, "sim": sim, "test": "fuzz", "cases": cases, "sampled": cases,
                                "hits": {b: 1 for b in bins}}))
    return path.relative_to(out).as_posix()


def entries_for(shards, coverage_of):
    """Journal lines (pass) for ``shards``, each naming the hit files ``coverage_of[index]``."""
    return {s.key: {"key": s.key, "block": s.block, "sim": s.sim, "seed": s.seed, "count": s.count, "status": "pass",
                    "checked": s.count, "coverage": coverage_of.get(i, [])} for i, s in enumerate(shards)}


def test_hits_merge_over_simulators_and_seeds_and_only_journaled_files_count(tmp_path):
    bins = target_bins(DESIGN)
    half = len(bins) // 2
    shards = plan([BLOCKS[DESIGN]], ["icarus", "verilator"], 400, 1, 200)   # 4 shards
    named = {0: [hit_file(tmp_path, "a.json", bins[:half])],
             1: [hit_file(tmp_path, "b.json", bins[half:-1], sim="verilator")]}
    hit_file(tmp_path, "left-by-a-killed-campaign.json", bins[-1:])   # no journal line names it
    entries = entries_for(shards[:2], named)
    coverage = campaign_coverage([DESIGN], entries, tmp_path)
    assert coverage.designs == [DESIGN] and not coverage.covered(DESIGN)
    [design] = coverage.design_coverages()
    assert design.holes == [bins[-1]], "the bin only the unjournaled file holds stays a hole"
    assert {r[0] for r in design.runs} == {"icarus", "verilator"} and design.summary()["cases"] == 20
    lines = coverage.lines()
    assert lines[0].startswith(f"coverage of {DESIGN}: {len(design.bins)} bins, {len(bins) - 1} hit, ")
    assert "1 holes" in lines[0] and lines[1] == f"  holes: {bins[-1]}"
    # the plan's bins, the holes and the verdicts are the plan's own: an independent count
    assert len(design.bins) == len(design_plans()[DESIGN].bins(DESIGN))

    entries[shards[1].key]["coverage"].append(hit_file(tmp_path, "c.json", bins[-1:]))
    entries[shards[1].key]["coverage"].append("coverage/gone.json")
    coverage = campaign_coverage([DESIGN], entries, tmp_path)
    assert coverage.covered(DESIGN) and coverage.lines()[0].endswith(": covered")
    assert any("cannot read" in line and "gone.json" in line for line in coverage.lines())


def test_until_covered_needs_no_more_shards_of_a_covered_block_and_fails_an_open_one(tmp_path):
    bins = target_bins(DESIGN)
    shards = plan([BLOCKS[DESIGN]], ["icarus"], 1000, 1, 200, until_covered=True)
    assert [s.directed for s in shards] == [True, False, False, False, False]
    closing = entries_for(shards[:2], {0: [hit_file(tmp_path, "a.json", bins)]})
    coverage = campaign_coverage([DESIGN], closing, tmp_path)
    assert not_needed(shards, closing, coverage, until_covered=False) == set()
    assert not_needed(shards, closing, coverage, until_covered=True) == {s.key for s in shards[2:]}
    text = StringIO()
    assert summary(shards, closing, {}, out=text, coverage=coverage, until_covered=True), text.getvalue()
    assert "3 shards not needed: their blocks were covered" in text.getvalue()
    text = StringIO()
    assert not summary(shards, closing, {}, out=text, coverage=coverage), "without --until-covered, unrun shards fail"
    assert "3 shards not run" in text.getvalue()

    every = entries_for(shards, {0: [hit_file(tmp_path, "b.json", bins[1:])]})
    coverage = campaign_coverage([DESIGN], every, tmp_path)
    text = StringIO()
    assert not summary(shards, every, {}, out=text, coverage=coverage, until_covered=True)
    assert f"holes: {bins[0]}" in text.getvalue() and f"NOT COVERED: {DESIGN} still has holes" in text.getvalue()


def test_a_block_without_a_plan_or_without_samples_says_so():
    assert CampaignCoverage(["no_such_design"]).lines() == []
    assert CampaignCoverage([DESIGN]).lines() == [f"coverage of {DESIGN}: no journaled shard of it sampled coverage"]


def campaign(build, *args, env=None):
    return subprocess.run([sys.executable, "-m", "gamechip", "campaign", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "GAMECHIP_BUILD": str(build), **(env or {})}, timeout=600)


def report(folder):
    return subprocess.run([sys.executable, "-m", "gamechip", "report", str(folder)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return tmp_path_factory.mktemp("campaign-coverage-build")


def test_a_campaign_samples_every_shard_and_its_summary_and_report_name_the_holes(build, tmp_path):
    out, elsewhere = tmp_path / "c", tmp_path / "asked-for-by-the-environment"
    run = campaign(build, "--blocks", DESIGN, "--sims", "icarus", "--count", "300", "--shard-size", "150",
                   "--jobs", "1", "--out", str(out), env={COVERAGE_OUT: str(elsewhere)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert not elsewhere.exists(), "a shard samples into its own folder, whatever the environment says"
    entries = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert len(entries) == 2 and all(len(e["coverage"]) == 1 and (out / e["coverage"][0]).is_file() for e in entries)
    coverage = campaign_coverage([DESIGN], {e["key"]: e for e in entries}, out)
    [design] = coverage.design_coverages()
    assert design.summary()["cases"] == 300 and design.hit and design.holes, "300 random games leave book moves open"
    assert f"coverage of {DESIGN}: " in run.stdout and f"holes: {design.holes[0]}" in run.stdout
    shown = report(out)
    assert shown.returncode == 0 and shown.stdout.startswith("PASS:"), shown.stdout + shown.stderr
    assert f"{len(design.holes)} holes" in shown.stdout
    page = (out / "report.html").read_text()
    assert "Functional coverage" in page and ", ".join(design.holes) in page


def test_until_covered_stops_the_campaign_once_the_plan_is_covered(build, tmp_path):
    out = tmp_path / "u"
    run = campaign(build, "--blocks", DESIGN, "--sims", "icarus", "--count", "3000", "--shard-size", "150",
                   "--jobs", "1", "--until-covered", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    entries = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert entries[0]["directed"] and entries[0]["checked"] > entries[0]["count"], "the first shard ran the directed set"
    assert len(entries) < 20 and f"{DESIGN} covered" in run.stderr
    assert f"{20 - len(entries)} shards not needed" in run.stdout and ": covered" in run.stdout
    assert json.loads((out / "campaign.json").read_text())["until_covered"] is True
    shown = report(out)
    assert shown.stdout.startswith("PASS:") and "not needed" in shown.stdout, shown.stdout + shown.stderr
    again = campaign(build, "--blocks", DESIGN, "--sims", "icarus", "--count", "3000", "--shard-size", "150",
                     "--until-covered", "--out", str(out), "--resume")
    assert again.returncode == 0 and "already covered" in again.stderr, again.stderr
    assert len((out / "journal.jsonl").read_text().splitlines()) == len(entries), "a covered block runs no more shards"
