"""Functional coverage of each design against its plan: the runs' hit files merged, every bin
hit, waived or open, and the model exported through cocotb-coverage.

A hit file (tb.checks.coverage_samplers ``CoverageRecorder``) holds one test of one run: design,
simulator, test, cases checked, cases sampled, hits per bin. Merging adds hits per bin over any
number of files: tests, simulators, runs, campaign shards.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from gamechip.coverage.plan import design_plans, load_waivers


@dataclass
class Merged:
    """The hits of one design over many hit files."""
    design: str
    hits: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)   # (sim, test, cases, sampled) of every file merged

    def add(self, record):
        for name, count in record["hits"].items():
            self.hits[name] = self.hits.get(name, 0) + count
        self.runs.append((record["sim"], record["test"], record["cases"], record["sampled"]))


def read_hit_files(paths, accept=None):
    """{design: Merged} over the hit files ``paths`` (folders are searched for *.json); ``accept``,
    when given, picks the records to merge."""
    merged = {}
    for path in paths:
        path = Path(path)
        for file in sorted(path.rglob("*.json")) if path.is_dir() else [path]:
            try:
                record = json.loads(file.read_text())
            except (OSError, ValueError):
                continue
            if not isinstance(record, dict) or not {"design", "hits", "sim", "test"} <= set(record):
                continue
            if accept is not None and not accept(record):
                continue
            merged.setdefault(record["design"], Merged(record["design"])).add(record)
    return merged


@dataclass
class DesignCoverage:
    """One design's bins against its plan."""
    design: str
    block: str
    points: list          # the plan's points (gamechip.coverage.plan.Point)
    hits: dict            # bin -> hits (bins of the plan only)
    waived: dict          # bin -> reason (waivers of bins of the plan)
    unplanned: list       # sampled bins the plan does not name (a sampler and plan that disagree)
    stale_waivers: list   # waived bins that were hit (the waiver's argument is wrong) or are not in the plan
    runs: list
    spec: str = ""        # the plan's section of the specification, e.g. "docs/spec.md §2 Disc Flipper"

    @property
    def bins(self):
        return [f"{p.name}:{b}" for p in self.points for b in p.bins]

    @property
    def holes(self):
        return [b for b in self.bins if not self.hits.get(b) and b not in self.waived]

    @property
    def hit(self):
        return [b for b in self.bins if self.hits.get(b)]

    @property
    def closed(self):
        return not self.holes and not self.unplanned and not self.stale_waivers

    def problems(self):
        """Lines saying why the design is not closed (empty when it is)."""
        lines = [f"{self.design}: hole {b} (neither hit nor waived)" for b in self.holes]
        lines += [f"{self.design}: sampled bin {b} is not in the plan" for b in self.unplanned]
        lines += [f"{self.design}: waiver of {b}: {why}" for b, why in self.stale_waivers]
        return lines

    def summary(self):
        """The --json form of one design (code coverage added by the caller)."""
        return {"bins": len(self.bins), "hit": len(self.hit), "waived": sorted(self.waived),
                "holes": self.holes, "unplanned": self.unplanned,
                "cases": sum(r[2] for r in self.runs), "sampled": sum(r[3] for r in self.runs)}


def design_coverage(design, merged=None, plans=None, waivers=None):
    plans = design_plans() if plans is None else plans
    waivers = load_waivers() if waivers is None else waivers
    plan = plans[design]
    points = plan.points(design)
    bins = {f"{p.name}:{b}" for p in points for b in p.bins}
    sampled = merged.hits if merged else {}
    design_waivers = waivers.get(design, {})
    stale = [(b, "waived, but hit: the bin is reachable") for b in design_waivers if sampled.get(b)]
    stale += [(b, "waives a bin the plan does not name") for b in design_waivers if b not in bins]
    return DesignCoverage(design, plan.block, points, {b: n for b, n in sampled.items() if b in bins},
                          {b: why for b, why in design_waivers.items() if b in bins},
                          sorted(b for b in sampled if b not in bins), stale, merged.runs if merged else [],
                          plan.spec)


def target_bins(design, plans=None, waivers=None):
    """The bins of ``design`` a run must hit: its plan's, less the waived."""
    plans = design_plans() if plans is None else plans
    waived = (load_waivers() if waivers is None else waivers).get(design, {})
    return [b for b in plans[design].bins(design) if b not in waived]


def export_cocotb_coverage(coverages, out_dir):
    """The coverage as cocotb-coverage's model (a CoverPoint per point, a CoverCross per cross,
    under ``gamechip.<design>``), written with its exporters as coverage.xml and coverage.yml in
    ``out_dir``; files merged from such exports read back with cocotb_coverage.coverage.merge_coverage.
    Each bin is sampled once per hit, up to cocotb-coverage's ``at_least`` (1): the export carries
    which bins are covered and the coverage percentages; the hit counts are in the JSON.
    Returns the two paths, or None when cocotb-coverage is not installed."""
    try:
        from cocotb_coverage import coverage as cc
    except ImportError:
        return None
    for coverage in coverages:
        for point in coverage.points:
            name = f"gamechip.{coverage.design}.{point.name}"
            bins = [b for b in point.bins if f"{point.name}:{b}" not in coverage.waived]
            if name not in cc.coverage_db:
                sample = cc.CoverPoint(name, xf=lambda hit: hit, bins=bins)(lambda hit: None)
                for b in bins:
                    if coverage.hits.get(f"{point.name}:{b}"):
                        sample(b)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    xml, yml = out_dir / "coverage.xml", out_dir / "coverage.yml"
    cc.coverage_db.export_to_xml(str(xml))
    cc.coverage_db.export_to_yaml(str(yml))
    return xml, yml
