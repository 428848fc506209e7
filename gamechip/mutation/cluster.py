"""``gamechip mutate --cluster``: the mutants as tasks of a Dask scheduler's workers.

Each task (run_shard) judges one shard of a row's mutants on its worker, which builds the
schemata copy of its own rtl/ once (the same RTL makes the same mutants with the same numbers
and ids) and runs the original once per worker process; the client journals every entry as its
shard returns, so ``--resume`` takes up whatever a lost worker left unjudged.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import time
from collections import Counter

from gamechip.mutation.benches import judge_numbers, run_baseline
from gamechip.mutation.journal import append_entry, byte_identical, verdict_entry
from gamechip.mutation.model import MutateError
from gamechip.mutation.schemata import build_schemata
from gamechip.processes import ClusterError, connect_cluster

# Mutants per cluster task: each task on a fresh worker pays for a build and the original's run,
# and a shard is the unit --resume loses when a worker dies.
SHARD_SIZE = 32


_WORKER_BASELINES = {}   # on a worker: (block, sim, rtl digest, quick, seed) -> the original's entry


def _worker_schemata(root, digest):
    """This machine's schemata build of ``root`` (digest ``digest``), built once under a lock:
    the same RTL makes the same mutants with the same numbers and ids as the client's."""
    from tb.host import runner
    folder = runner.BUILD / "mutate-schemata" / digest
    with runner.exclusive_lock(runner.BUILD / "mutate-schemata" / f"{digest}.lock"):
        if not (folder / ".done").exists():
            build_schemata(root, folder)
            (folder / ".done").write_text("ok\n")
    return folder


def run_shard(shard):
    """A Dask task of ``gamechip mutate --cluster``: the mutants of ``shard`` (block, design, sim,
    seed, quick, rtl_digest, mutants: [{id, number}]) through the block's bench on this worker,
    after the original (once per worker process). Returns {host, baseline (when run here now),
    entries}; never raises: a failure becomes error entries, which --resume takes up again."""
    from tb.host import runner
    host = socket.gethostname()
    block, design, sim = shard["block"], shard["design"], shard["sim"]

    def errors(message, baseline=None):
        return {"host": host, "baseline": baseline, "entries": [
            {"id": m["id"], "number": m["number"], "verdict": "error", "message": message, "seconds": 0}
            for m in shard["mutants"]]}

    try:
        root = runner.resolve_rtl_root()
        digest = runner.rtl_digest(root)
        if digest != shard["rtl_digest"]:
            return errors(f"the RTL on {host} ({root}, digest {digest}) is not the client's "
                          f"(digest {shard['rtl_digest']})")
        logging.getLogger("cocotb").propagate = False
        schemata = _worker_schemata(root, digest)
        key = (block, sim, digest, shard["quick"], shard["seed"])
        fresh = key not in _WORKER_BASELINES
        if fresh:
            verdict, test, message, seconds, run_seconds = run_baseline(block, design, sim, schemata, shard["seed"],
                                                                     shard["quick"])
            baseline = {"verdict": "baseline" if verdict == "survived" else "baseline-failed", "test": test,
                        "message": message, "seconds": round(seconds, 2)}
            if verdict != "survived":
                return errors(f"MUTSEL=0 failed on {host}", baseline)
            baseline["run_seconds"] = round(run_seconds, 2)
            _WORKER_BASELINES[key] = baseline
        baseline = _WORKER_BASELINES[key]
        judged = {number: verdict for number, *verdict in judge_numbers(
            block, design, sim, schemata, [mutant["number"] for mutant in shard["mutants"]], shard["seed"],
            shard["quick"], baseline["run_seconds"])}
        entries = []
        for mutant in shard["mutants"]:
            verdict, test, message, seconds = judged[mutant["number"]]
            entries.append(verdict_entry(mutant["id"], mutant["number"], verdict, test, message, seconds))
        return {"host": host, "baseline": baseline if fresh else None, "entries": entries}
    except Exception as error:   # noqa: BLE001 -- a task that raised would lose the shard's verdicts
        return errors(f"{type(error).__name__} on {host}: {error}"[:500])


def connect(address):
    """A Dask client of the scheduler at ``address``; MutateError when it cannot be one."""
    try:
        return connect_cluster(address)[0]
    except ClusterError as error:
        raise MutateError(str(error))


def run_on_cluster(address, plan, done, journal, rtl_digest, sim, seed, quick, shard_size, prove_killed, say):
    """The plan's mutants not judged yet, ``shard_size`` a task, on the Dask scheduler at
    ``address``; every entry journaled here as its shard returns."""
    from distributed import as_completed

    shards = []
    for row, block, design, chosen, _ in plan:
        todo = [m for m in chosen if (row, m.id) not in done or (
            prove_killed and byte_identical(done[row, m.id]) and "simulated" not in done[row, m.id])]
        for first in range(0, len(todo), shard_size):
            part = todo[first:first + shard_size]
            shards.append((row, {"block": block, "design": design, "sim": sim, "seed": seed, "quick": quick,
                                 "rtl_digest": rtl_digest,
                                 "mutants": [{"id": m.id, "number": m.number} for m in part]}))
    if not shards:
        return
    client = connect(address)
    threads = client.nthreads()
    say(f"Dask cluster {address} ({len(threads)} workers, {sum(threads.values())} threads): "
        f"{sum(len(shard['mutants']) for _, shard in shards)} mutants in {len(shards)} shards")
    run_id = hashlib.sha256(f"{journal}{time.time()}".encode()).hexdigest()[:10]
    futures = {client.submit(run_shard, shard, pure=False, key=f"gamechip-mutate-{row}-{n}-{run_id}"): (row, shard)
               for n, (row, shard) in enumerate(shards)}
    finished = 0
    try:
        for future in as_completed(futures):
            row, shard = futures[future]
            try:
                result = future.result()
            except Exception as error:   # noqa: BLE001 -- a worker lost: its mutants are retaken by --resume
                result = {"host": "?", "baseline": None, "entries": [
                    {"id": m["id"], "number": m["number"], "verdict": "error", "seconds": 0,
                     "message": f"the cluster lost the shard: {type(error).__name__}: {error}"[:500]}
                    for m in shard["mutants"]]}
            if result["baseline"]:
                append_entry(journal, {"id": f"{row}:baseline:{rtl_digest}", "block": row, **result["baseline"],
                                       "host": result["host"]})
            for entry in result["entries"]:
                before = done.get((row, entry["id"]))
                if byte_identical(before):   # run for --prove-killed: the verdict stays, the run beside it
                    append_entry(journal, {**before, "simulated": {key: entry[key] for key in
                                                                   ("verdict", "test", "message", "seconds") if key in entry}})
                    continue
                append_entry(journal, {**entry, "block": row, "host": result["host"]})
            finished += 1
            verdicts = Counter(entry["verdict"] for entry in result["entries"])
            say(f"shard {finished}/{len(shards)} ({row}, {len(shard['mutants'])} mutants on {result['host']}): "
                + ", ".join(f"{n} {verdict}" for verdict, n in sorted(verdicts.items())))
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise
    finally:
        client.close()

