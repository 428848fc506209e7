"""A campaign's functional coverage: every shard samples its block's test plan (tb/testplans/)
while it fuzzes, and the campaign merges the hits of its journaled shards, across simulators and
seeds, per block (its fuzzed design).

A shard samples into a folder of its own (``COVERAGE_OUT``, tb.checks.coverage_samplers), on
whichever machine runs it; its hit records travel back in its outcome, like a failing case, and
the campaign keeps them as ``OUT/coverage/<block>-<sim>-seed<N>-<test>.json`` before it journals
the shard (gamechip/campaign/folder.py ``keep_outputs``), the journal line naming them (``coverage``, paths relative to OUT). Only the files a
journal line names are merged: a shard run again after a crash, or a file left by a campaign
killed before its line was written, is never counted twice.

A shard that did not pass leaves its block's coverage incomplete: a failing shard stops at its
first mismatch (the positions after it are never run, and the chunk holding it is not sampled),
an error or a timeout samples nothing. The coverage lines then say so and name the shard, and
list the bins not hit as "not hit so far", never as the holes of a finished campaign; with
nothing sampled at all they list no bins.

``--until-covered`` stops a campaign once every bin of each of its blocks is hit or waived: the
shards of a covered block that have not started are not run, and their absence is no failure.
"""

import json
from pathlib import Path

from gamechip.coverage.model import Merged, design_coverage, target_bins
from gamechip.coverage.plan import design_plans, load_waivers

FOLDER = "coverage"


def hit_records(folder):
    """The hit records (dicts) of the files in ``folder``: what a shard's run sampled."""
    records = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and {"design", "sim", "test", "hits"} <= set(record):
            records.append(record)
    return records


class CampaignCoverage:
    """The merged coverage of a campaign's blocks, one design each (the design a shard fuzzes)."""

    def __init__(self, designs, plans=None, waivers=None):
        self.plans = design_plans() if plans is None else plans
        self.waivers = load_waivers() if waivers is None else waivers
        self.designs = [d for d in designs if d in self.plans]   # a block without a plan has no coverage
        self.merged = {design: Merged(design) for design in self.designs}
        self.targets = {design: set(target_bins(design, self.plans, self.waivers)) for design in self.designs}
        self.unreadable = []   # files a journal line names that cannot be read
        self.stopped = {design: [] for design in self.designs}  # design -> journal lines of shards that did not pass

    def add_entry(self, entry, out):
        """Merge the hit files journal line ``entry`` names (missing or damaged ones are listed)."""
        if entry.get("status") != "pass" and entry.get("design") in self.stopped:
            self.stopped[entry["design"]].append(entry)
        for name in entry.get("coverage") or ():
            path = Path(out) / name
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError) as error:
                self.unreadable.append(f"{path}: {getattr(error, 'strerror', None) or error}")
                continue
            if isinstance(record, dict) and record.get("design") in self.merged:
                self.merged[record["design"]].add(record)

    def covered(self, design):
        """Every bin of ``design``'s plan hit or waived."""
        hits = self.merged[design].hits
        return all(hits.get(b) for b in self.targets[design])

    def design_coverages(self):
        return [design_coverage(d, self.merged[d], self.plans, self.waivers) for d in self.designs]

    def incomplete(self, design):
        """Why ``design``'s coverage is incomplete (its shards that did not pass, the first named),
        or None when every journaled shard of it passed."""
        stopped = self.stopped.get(design)
        if not stopped:
            return None
        first = stopped[0]
        return (f"{len(stopped)} shard{'s' if len(stopped) > 1 else ''} did not pass (first: {first['key']}, "
                f"{first['status']}): a failing shard stops at its first mismatch, an error or a timeout samples "
                "nothing")

    def lines(self, holes_shown=12):
        """The campaign summary's coverage lines: per design bins, hit, waived, holes, cases
        sampled, and the holes' names (the first ``holes_shown``); for a design with shards that
        did not pass, why its coverage is incomplete, and its open bins as not hit so far."""
        lines = []
        for coverage in self.design_coverages():
            incomplete = self.incomplete(coverage.design)
            summary = coverage.summary() if coverage.runs else None
            if not summary or not summary["sampled"]:
                lines.append(f"coverage of {coverage.design}: " + (
                    f"nothing sampled, so no bin is listed as a hole: {incomplete}" if incomplete
                    else "no journaled shard of it sampled coverage"))
                continue
            holes = coverage.holes
            lines.append(f"coverage of {coverage.design}: {summary['bins']} bins, {summary['hit']} hit, "
                         f"{len(summary['waived'])} waived, {len(holes)} {'not hit so far' if incomplete else 'holes'} "
                         f"({summary['sampled']:,} of {summary['cases']:,} cases sampled)" + ("" if holes else ": covered"))
            if incomplete:
                lines.append(f"  incomplete: {incomplete}")
            if holes:
                shown = ", ".join(holes[:holes_shown])
                lines.append(f"  {'not hit so far' if incomplete else 'holes'}: {shown}"
                             + (f", and {len(holes) - holes_shown} more" if len(holes) > holes_shown else ""))
            lines += [f"  {problem}" for problem in coverage.problems() if "hole" not in problem]
        lines += [f"coverage: warning: cannot read {name}" for name in self.unreadable]
        return lines


def campaign_coverage(blocks, entries, out):
    """The CampaignCoverage of ``blocks`` (tb.blocks Block or names) from the journal lines ``entries``."""
    from tb.blocks import BLOCKS

    designs = [(BLOCKS[b] if isinstance(b, str) else b).designs[0] for b in blocks]
    coverage = CampaignCoverage(designs)
    for entry in entries.values():
        coverage.add_entry(entry, out)
    return coverage


def not_needed(shards, entries, coverage, until_covered):
    """Keys of the planned shards not journaled that an ``--until-covered`` campaign did not need:
    their block was covered (none without ``until_covered``)."""
    if not until_covered:
        return set()
    covered = {design for design in coverage.designs if coverage.covered(design)}
    return {s.key for s in shards if s.key not in entries and s.design in covered}

