"""``gamechip campaign``: fuzzing at scale, in shards, with nothing lost.

The campaign plans its shards (gamechip/campaign/plan.py), runs them (gamechip/campaign/shards.py)
in a pool of local threads or on a Dask cluster (gamechip/campaign/pools.py), journals each as
it finishes, shows its progress and ends with a summary (gamechip/campaign/progress.py).

Nothing is lost: only this process writes ``OUT/journal.jsonl``, one JSON line per finished
shard (appended with one write, then fsync), after what the line points at is kept in ``OUT``
(gamechip/campaign/folder.py). ``--resume`` skips every shard the journal holds as pass or fail,
runs again those whose last line is an error or a timeout (``retry=False``: skips them too), and
skips a half-written last line and unreadable lines with a warning (gamechip/campaign/journal.py,
the reader ``gamechip report`` shares). The journal is only ever appended to: a shard's last
line is its status.
"""

import os
import queue
import shlex
import shutil
import sys
import time
from pathlib import Path

from gamechip.campaign.folder import keep_outputs, open_folder
from gamechip.campaign.coverage import CampaignCoverage
from gamechip.campaign.plan import PARAMETER_NAMES, UNTIL_COVERED, CampaignInputError, plan, plan_size_problem
from gamechip.campaign.pools import DaskPool, LocalPool
from gamechip.campaign.progress import Progress, duration, summary
from gamechip.campaign.shards import timestamp, tool_versions
from gamechip.coverage.plan import PlanError
from gamechip.processes import StopSignals, check_cluster_address, clear_stop
from tb.host.slots import MAX_SLOTS

RETRIED = ("error", "timeout")  # statuses --resume runs again: the shard said nothing about the RTL


def _parameters(blocks, sims, count, seed, shard_size, until_covered):
    parameters = dict(zip(PARAMETER_NAMES, ([b.name for b in blocks], list(sims), count, seed, shard_size)))
    return {**parameters, UNTIL_COVERED: True} if until_covered else parameters


def _resume_command(argv):
    words = ["gamechip", "campaign", *argv]
    if "--resume" not in words:
        words.append("--resume")
    return shlex.join(words)


def _check_values(blocks, sims, count, seed, shard_size, workers, timeout, resume, retry, cluster):
    """Values a command line cannot have checked alone; CampaignInputError for the first wrong one."""
    if not retry and not resume:
        raise CampaignInputError("--no-retry applies only with --resume (it keeps the shards journaled as error or "
                                 "timeout instead of running them again)")
    if cluster and workers:
        raise CampaignInputError("--jobs sets the local shards at once; with --cluster the cluster's workers run "
                                 "them: give one of the two")
    numbers = (("--count", count, 1), ("--shard-size", shard_size, 1), ("--seed", seed, 0))
    for name, value, least in numbers + ((("--jobs", workers, 1),) if workers is not None else ()):
        if not isinstance(value, int) or value < least:
            raise CampaignInputError(f"{name} must be a whole number of at least {least}, got {value!r}")
    if workers is not None and workers > MAX_SLOTS:
        raise CampaignInputError(f"--jobs {workers} is more than the {MAX_SLOTS} build slots a machine has")
    if not timeout > 0:  # also NaN
        raise CampaignInputError(f"--timeout must be more than 0 seconds, got {timeout}")
    if len({b.name for b in blocks}) != len(blocks) or len(set(sims)) != len(sims) or not blocks or not sims:
        raise CampaignInputError("give each block and each simulator once")
    problem = plan_size_problem(len(blocks), len(sims), count, shard_size)
    if problem:
        raise CampaignInputError(problem)


def _retry(done, retry):
    """Journaled shards to keep, and the keys of those to run again: a shard whose last line is
    an error or a timeout said nothing about the RTL (a crash, a dead machine, a slow build)."""
    again = {key for key, entry in done.items() if entry["status"] in RETRIED} if retry else set()
    return {key: entry for key, entry in done.items() if key not in again}, again


def run(blocks, sims, count, seed, out, workers=None, shard_size=2000, resume=False, timeout=900.0,
        cluster=None, argv=(), retry=True, shrink=True, until_covered=False):
    """Run (or finish) a campaign; return the exit status: 0 clean, 1 any failure, error or
    timeout (or the folder refused a write, which stops the campaign; or, ``until_covered``, a
    block left with holes), 130 interrupted.
    ``retry``: on resume, run shards journaled as error or timeout again; ``shrink``: shrink
    failing cases; ``until_covered``: each block's first shards run its directed and aimed cases,
    and a block's shards stop starting once every bin of its plan is hit or waived
    (gamechip/campaign/coverage.py). Raises CampaignInputError on bad input and ClusterError
    (gamechip.processes) when the cluster cannot be used, before any shard runs."""
    if not str(out).strip():
        raise CampaignInputError("--out is empty: name the campaign folder")
    out = Path(out).resolve()
    _check_values(blocks, sims, count, seed, shard_size, workers, timeout, resume, retry, cluster)
    if cluster:
        check_cluster_address(cluster)
    shards = plan(blocks, sims, count, seed, shard_size, until_covered)
    journal, done = open_folder(out, _parameters(blocks, sims, count, seed, shard_size, until_covered), resume)
    for warning in journal.warnings:
        print(f"campaign: warning: {warning}", file=sys.stderr)
    planned = {s.key for s in shards}
    outside = sorted(key for key in done if key not in planned)
    if outside:
        print(f"campaign: warning: {len(outside)} journaled shard{'s are' if len(outside) > 1 else ' is'} not in this "
              f"plan and left out (first: {outside[0]}): were the parameters changed?", file=sys.stderr)
    done = {key: entry for key, entry in done.items() if key in planned}
    done, retried = _retry(done, retry)
    try:
        coverage = CampaignCoverage([b.designs[0] for b in blocks])
    except PlanError as error:
        raise CampaignInputError(f"the test plans, which every shard samples, cannot be read: {error}")
    for entry in done.values():
        coverage.add_entry(entry, out)
    covered = {design for design in coverage.designs if until_covered and coverage.covered(design)}
    todo = [s for s in shards if s.key not in done and s.design not in covered]
    pool = DaskPool(cluster, timeout, shrink) if cluster else LocalPool(workers or os.cpu_count() or 1, timeout,
                                                                        out / ".running", shrink)
    print(f"campaign: {', '.join(b.name for b in blocks)} on {', '.join(sims)}: {count:,} random positions per block "
          f"and simulator (a block may check more than one case per position) from seed {seed}, {len(shards)} shards of up to {shard_size:,}" + (f", {len(done)} already journaled" if done else "")
          + (f", {len(retried)} to retry (error or timeout last time)" if retried else "")
          + (f"; until every bin of each block's plan is hit, {', '.join(sorted(covered))} already covered" if covered
             else "; until every bin of each block's plan is hit" if until_covered else "")
          + f"; {pool.where}; journal {journal.path}", file=sys.stderr)
    if not cluster:  # on a cluster, each worker tests its own GAMECHIP_RTL_ROOT
        from tb.host.runner import describe_rtl

        print(f"campaign: {describe_rtl()}", file=sys.stderr)
        print("campaign: tools: " + "; ".join(v if name in ("iverilog", "verilator", "ghdl") else f"{name} {v}"
                                            for name, v in tool_versions().items() if v), file=sys.stderr)
    progress = Progress(shards, done)
    if covered:
        progress.skip([s for s in shards if s.key not in done and s.design in covered],
                      f"{', '.join(sorted(covered))} covered already: their shards not journaled are not run")
    finished = queue.SimpleQueue()  # (shard, future) as each ends; None: a stop signal's wake-up
    entries = dict(done)

    def journal_entry(shard, future, stopping=False):
        if future.cancelled():
            return
        try:
            entry = future.result()
        except Exception as error:  # the task itself was lost (e.g. a Dask worker died)
            if stopping:
                return  # cancelled by the stop: runs again on resume
            entry = {"key": shard.key, **shard.to_dict(), "status": "error", "checked": 0, "seconds": 0.0,
                     "message": f"the worker running this shard was lost: {error!r}", "ended": timestamp()}
        if entry["status"] == "interrupted":
            return
        try:
            entry = keep_outputs(entry, out)
            journal.append(entry)
        except OSError as error:
            raise _CannotWrite(f"{error.filename or journal.path}: {error.strerror or error}") from error
        entries[shard.key] = entry
        progress.shard_done(entry)
        coverage.add_entry(entry, out)
        if until_covered and shard.design not in covered and coverage.covered(shard.design):
            covered.add(shard.design)
            stopped = [(other, future) for other, future in list(running.values())
                       if other.design == shard.design and future.cancel()]
            for _, future in stopped:
                running.pop(id(future), None)
            progress.skip([other for other, _ in stopped],
                          f"{shard.block} covered (every bin of its plan hit or waived): its {len(stopped)} shards "
                          f"not started are not run")

    def drain(stopping=False):
        """Journal the shards that have finished; False when the folder refuses the writes."""
        while True:
            try:
                item = finished.get_nowait()
            except queue.Empty:
                return True
            if item is None:
                continue
            shard, future = item
            try:
                journal_entry(shard, future, stopping)
            except _CannotWrite as error:
                print(f"campaign: cannot write {error}", file=sys.stderr)
                return False

    running = {}
    stop = StopSignals(lambda: finished.put(None))
    stop.install()
    try:
        stopped_by = None  # None, or why the campaign stops early: a signal or a folder that refuses writes
        try:
            for shard in todo:
                if stop.received:
                    break
                future = pool.submit(shard)
                running[id(future)] = (shard, future)
                future.add_done_callback(lambda f, s=shard: finished.put((s, f)))
            while running and not stop.received:
                try:
                    item = finished.get(timeout=1.0)
                except queue.Empty:
                    progress.draw()
                    continue
                if item is None:  # a stop signal's wake-up: the loop's condition ends it
                    continue
                shard, future = item
                running.pop(id(future), None)
                journal_entry(shard, future)
        except _CannotWrite as error:
            stopped_by = error
        if stop.received or stopped_by:
            progress.close()
            writable = stopped_by is None
            print(("" if writable else f"campaign: cannot write {stopped_by}\n")
                  + f"campaign: stopping: {pool.stopping} ...", file=sys.stderr)
            writable = writable and drain()  # shards that finished before the stop are journaled, not lost
            pool.stop()
            writable = writable and drain(stopping=True)  # and those that finished while it stopped the rest
            pool.close()
            print(f"campaign: {'stopped' if stopped_by else f'interrupted ({stop.received})'}: {len(entries)} of "
                  f"{len(shards)} shards are journaled in {journal.path}; "
                  + ("" if writable else "once its folder can be written again, ")
                  + f"finish the campaign with:\n  {_resume_command(argv)}", file=sys.stderr)
            return 1 if stopped_by else 130
        pool.close()
    finally:
        stop.uninstall()
        clear_stop()
        shutil.rmtree(out / ".running", ignore_errors=True)
    progress.close()
    print(f"campaign: done in {duration(time.monotonic() - progress.started)}"
          + (f"; {len(retried)} shard{'s' if len(retried) != 1 else ''} retried" if retried else "") + f"; journal {journal.path}", file=sys.stderr)
    return 0 if summary(shards, entries, journal.history, coverage=coverage, until_covered=until_covered) else 1


class _CannotWrite(Exception):
    """The campaign folder refused a journal line, case or log: stop, keep what is journaled."""
