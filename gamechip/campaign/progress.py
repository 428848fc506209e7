"""What a campaign shows: one live progress line while it runs, and the summary at the end
(the table per block x simulator, every failure, error and timeout with the command that
replays it, every shard run more than once)."""

import shlex
import sys
import time

from gamechip.campaign.coverage import not_needed
from gamechip.campaign.journal import STATUSES, history_text


def duration(seconds):
    """'42s', '3m05s', '2h07m'."""
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Progress:
    """One live line on a terminal; one plain line per finished shard otherwise."""

    def __init__(self, shards, done, stream=None):
        self.total, self.done = len(shards), len(done)
        self.remaining_positions = sum(s.count for s in shards if s.key not in done)
        self.positions = self.checked = 0
        self.skipped = 0  # shards not run: their block was covered (--until-covered)
        self.counts = {status: sum(e["status"] == status for e in done.values()) for status in STATUSES}
        self.started = time.monotonic()
        self.stream = stream or sys.stderr  # looked up now: a caller may have replaced sys.stderr since import
        self.tty = self.stream.isatty()
        self.last_draw = 0.0

    def line(self):
        elapsed = time.monotonic() - self.started
        rate = self.checked / elapsed if elapsed else 0.0
        position_rate = self.positions / elapsed if elapsed else 0.0
        eta = duration(self.remaining_positions / position_rate) if position_rate else "?"
        skipped = f" ({self.skipped} not needed)" if self.skipped else ""
        return (f"{self.done}/{self.total} shards{skipped}, {self.checked:,} cases checked, {rate:,.0f} cases/s, "
                f"{self.counts['fail']} failures, {self.counts['error']} errors, {self.counts['timeout']} timeouts, "
                f"ETA {eta if self.done + self.skipped < self.total else '0s'}")

    def skip(self, shards, why):
        """``shards`` will not run (``why``: one line, shown)."""
        self.skipped += len(shards)
        self.remaining_positions -= sum(s.count for s in shards)
        print(f"\r\x1b[Kcampaign: {why}" if self.tty else f"campaign: {why}", file=self.stream, flush=True)
        self.draw(force=True)

    def shard_done(self, entry):
        self.done += 1
        self.counts[entry["status"]] += 1
        self.checked += entry.get("checked", 0)
        self.positions += entry["count"]
        self.remaining_positions -= entry["count"]
        what = (f"{entry['status']:<7} {entry['block']} on {entry['sim']}, seed {entry['seed']}: "
                f"{entry.get('checked', 0):,} cases in {entry['seconds']:.1f} s")
        if self.tty:
            if entry["status"] != "pass":
                print(f"\r\x1b[K{what}", file=self.stream)
            self.draw(force=True)
        else:
            print(f"[{self.done}/{self.total}] {what}; {self.line()}", file=self.stream, flush=True)

    def draw(self, force=False):
        if self.tty and (force or time.monotonic() - self.last_draw >= 1):
            print(f"\rcampaign: {self.line()}", end="\x1b[K", file=self.stream, flush=True)
            self.last_draw = time.monotonic()

    def close(self):
        if self.tty:
            print(file=self.stream, flush=True)


def replay_command(entry):
    """The command that replays a journaled failure's case with its waveforms, on the RTL root it failed on."""
    prefix = f"GAMECHIP_RTL_ROOT={shlex.quote(entry['rtl_root'])} " if entry.get("rtl_root") else ""
    return f"{prefix}gamechip replay {shlex.quote(entry['case'])} --waves"


def summary(shards, entries, history=None, out=None, coverage=None, until_covered=False):
    """The table per block x simulator, every failure, error and timeout, every shard run more
    than once with each attempt (``history``: key -> journal lines), and the coverage of each
    block (``coverage``: gamechip/campaign/coverage.py CampaignCoverage); True when clean (and,
    ``until_covered``, every block covered; its shards not needed are no failure). ``out``: a
    stream, sys.stdout (as it is now) when None."""
    out = out or sys.stdout
    rows = {}
    for shard in shards:
        rows.setdefault((shard.block, shard.sim), [])
        if shard.key in entries:
            rows[(shard.block, shard.sim)].append(entries[shard.key])
    planned = {}
    for shard in shards:
        planned[(shard.block, shard.sim)] = planned.get((shard.block, shard.sim), 0) + 1
    print(f"\n{'block':<14} {'sim':<10} {'shards':>8} {'checked':>11} {'cases/s':>9} {'failures':>9} {'errors':>7} "
          f"{'timeouts':>9}", file=out)
    for (block, sim), done in rows.items():
        checked = sum(e.get("checked", 0) for e in done)
        wall = sum((e.get("timings") or {}).get("wall_seconds", 0) for e in done)
        fuzzed = sum((e.get("timings") or {}).get("checked", 0) for e in done)  # the fuzz test's (no directed set)
        count = {status: sum(e["status"] == status for e in done) for status in STATUSES}
        print(f"{block:<14} {sim:<10} {len(done):>3}/{planned[(block, sim)]:<4} {checked:>11,} "
              f"{fuzzed / wall if wall else 0:>9,.0f} {count['fail']:>9} {count['error']:>7} {count['timeout']:>9}",
              file=out)
    print("(cases/s: the rate of one worker while simulating, builds excluded)", file=out)
    bad = [entries[s.key] for s in shards if s.key in entries and entries[s.key]["status"] != "pass"]
    for entry in bad:
        head = f"{entry['status'].upper()} {entry['block']} on {entry['sim']}, seed {entry['seed']} ({entry['count']:,} positions)"
        if entry["status"] == "fail":
            label = next((line for line in entry.get("message", "").splitlines() if line.startswith("case:")), "")
            print(f"\n{head}: {label.removeprefix('case:').strip()}", file=out)
            if entry.get("case"):
                print(f"  case file: {entry['case']}\n  replay:    {replay_command(entry)}", file=out)
            if entry.get("shrink") or entry.get("shrink_error"):
                print(f"  shrink:    {(entry.get('shrink') or entry['shrink_error']).splitlines()[0]}", file=out)
            if entry.get("original_case"):
                print(f"  as found:  {entry['original_case']}", file=out)
        else:
            print(f"\n{head}: {entry.get('message', '').strip().splitlines()[-1] if entry.get('message') else ''}",
                  file=out)
        if entry.get("log"):
            print(f"  log:       {entry['log']}", file=out)
    for shard in shards:
        if len((history or {}).get(shard.key, ())) > 1:
            print(f"\nRETRIED {shard.block} on {shard.sim}, seed {shard.seed}: {history_text(history[shard.key])}",
                  file=out)
    if coverage is not None and coverage.designs:
        print("", file=out)
        for line in coverage.lines():
            print(line, file=out)
    unneeded = not_needed(shards, entries, coverage, until_covered) if coverage is not None else set()
    missing = sum(s.key not in entries and s.key not in unneeded for s in shards)
    total = sum(e.get("checked", 0) for e in entries.values())
    ran = len(shards) - len(unneeded)
    if bad or missing:
        counts = {status: sum(e["status"] == status for e in bad) for status in STATUSES}
        print(f"\nFAIL: {counts['fail']} failures, {counts['error']} errors, {counts['timeout']} timeouts"
              + (f", {missing} shards not run" if missing else "") + f"; {total:,} cases checked", file=out)
        return False
    print(f"\nPASS: {total:,} cases checked against the golden model in {ran} shards, no mismatch"
          + (f" ({len(unneeded)} shards not needed: their blocks were covered)" if unneeded else ""), file=out)
    if until_covered and coverage is not None:
        open_designs = [d for d in coverage.designs if not coverage.covered(d)]
        if open_designs:
            print(f"NOT COVERED: {', '.join(open_designs)} still {'have' if len(open_designs) > 1 else 'has'} holes "
                  f"after every shard (listed above); a larger --count, or a generator aimed at them "
                  f"(docs/coverage.md)", file=out)
            return False
    return True
