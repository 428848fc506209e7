"""``gamechip campaign``: fuzzing at scale, in shards, with nothing lost.

The work (blocks x simulators x positions) is cut into *shards*: one block (its first, 8x8
design), one simulator, ``shard_size`` positions from one seed (seed K, K+1, ... in order, the
same seeds on every simulator, so two simulators see the same positions). Each shard runs the
block's ``fuzz`` bench in a subprocess of its own process group, so a shard that hangs past the
timeout is killed with its simulator, and a worker that dies takes its simulator with it.

Where the shards run: threads of this process each launching one shard subprocess at a time
(local, default one per core), or the tasks of a Dask distributed cluster (``--cluster``), which
call the same ``run_shard`` on the workers' machines. Concurrent shards never share a build
directory: each takes a free build *slot* (tb/slots.py: an exclusive lock file under the build
folder) and builds in ``<design>-<sim>-...-campaign-s<slot>``, so a slot reuses its build for the
next shard.

Nothing is lost: only the main process writes ``OUT/journal.jsonl``, one JSON line per finished
shard (appended with one write, then fsync); a failing case is copied to ``OUT/cases/`` before
its line is written, and the logs of failed, crashed and timed-out shards to ``OUT/logs/``.
``--resume`` skips every shard the journal holds as pass or fail, runs again those whose last
line is an error or a timeout (``retry=False``: skips them too), and skips a half-written last
line and unreadable lines with a warning (gamechip/journal.py, the reader ``gamechip report``
shares). The journal is only ever appended to: a shard's last line is its status.

A failing case is shrunk inside its shard (tb/shrink.py), on the machine and in the build slot
that found it, before the shard reports: ``OUT/cases/<name>.json`` is the shrunk case and
``<name>.orig.json`` the case as found. The shard saves its result with the original case before
it starts shrinking and stops shrinking well before its timeout, so shrinking never loses a
failure: when it fails or is cut off (by the timeout or by Ctrl-C), the original case is kept and
the journal says why.
"""

import json
import logging
import os
import platform
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from gamechip.journal import JOURNAL, STATUSES, Journal, history_text
from tb.slots import MAX_SLOTS, slot_tag, take_slot

ROOT = Path(__file__).resolve().parent.parent
PARAMETERS = "campaign.json"
RETRIED = ("error", "timeout")  # statuses --resume runs again: the shard said nothing about the RTL
SHRINK_SHARE = 0.8  # of a shard's timeout, the point after which it starts no shrink round
LOG_TAIL = 20000  # characters of a failed shard's logs kept in OUT/logs/


class CampaignInputError(Exception):
    """Bad input (parameters, output folder): the CLI prints it as one line, exit status 2."""


@dataclass(frozen=True)
class Shard:
    block: str
    design: str
    module: str  # the cocotb bench
    sim: str
    seed: int
    count: int  # positions
    index: int  # position of the shard in its block x simulator series

    @property
    def key(self):
        return f"{self.block}/{self.sim}/seed{self.seed}/n{self.count}"

    @property
    def slug(self):
        return f"{self.block}-{self.sim}-seed{self.seed}"

    def to_dict(self):
        return asdict(self)


def plan(blocks, sims, count, seed, shard_size):
    """Every shard of a campaign, interleaved (first shards of every block and simulator
    first), so an interrupted campaign has covered all of them a little."""
    series = []
    for block in blocks:
        for sim in sims:
            series.append([Shard(block.name, block.designs[0], block.module, sim, seed + i,
                                 min(shard_size, count - first), i)
                           for i, first in enumerate(range(0, count, shard_size))])
    ordered = []
    for i in range(max(map(len, series), default=0)):
        ordered += [run[i] for run in series if i < len(run)]
    return ordered


MAX_SHARDS = 100_000  # more is a slip of --count or --shard-size, and a plan that would fill memory
PARAMETER_NAMES = ("blocks", "sims", "count", "seed", "shard_size")


def plan_size_problem(blocks, sims, count, shard_size):
    """Why a plan of this size is refused, or None."""
    shards = blocks * sims * -(-count // shard_size)
    if shards > MAX_SHARDS:
        return (f"{count:,} positions in shards of {shard_size:,} on {blocks * sims} block x simulator pairs make "
                f"{shards:,} shards, more than {MAX_SHARDS:,}: raise --shard-size")
    return None


def parameters_problem(parameters):
    """Why ``parameters`` (what campaign.json holds) are not a campaign's, or None."""
    from tb.blocks import BLOCKS
    from tb.runner import SIMULATORS

    if not isinstance(parameters, dict):
        return f"a JSON {type(parameters).__name__}, not an object"
    missing = [name for name in PARAMETER_NAMES if name not in parameters]
    if missing:
        return f"no {', '.join(missing)}"
    for name, known in (("blocks", BLOCKS), ("sims", SIMULATORS)):
        names = parameters[name]
        if not (isinstance(names, list) and names and all(isinstance(n, str) and n in known for n in names)):
            return f"{name} {names!r} is not a list of {', '.join(known)}"
    for name, least in (("count", 1), ("seed", 0), ("shard_size", 1)):
        value = parameters[name]
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            return f"{name} {value!r} is not a whole number of at least {least}"
    return plan_size_problem(len(parameters["blocks"]), len(parameters["sims"]), parameters["count"],
                             parameters["shard_size"])


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _first_line(command):
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (run.stdout.strip() or run.stderr.strip()).splitlines()
    return lines[0].strip() if lines else None


@lru_cache(maxsize=None)
def tool_versions():
    """The simulators and cocotb of the machine running the shards (None: not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        cocotb = version("cocotb")
    except PackageNotFoundError:
        cocotb = None
    return {"iverilog": _first_line(["iverilog", "-V"]), "verilator": _first_line(["verilator", "--version"]),
            "ghdl": _first_line(["ghdl", "--version"]), "cocotb": cocotb, "python": platform.python_version()}


# --- one shard: launched by run_shard (main process or Dask worker), run by _worker -------------

_LIVE = {}  # shard subprocess -> its task token, for the shards running in this process
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()  # a local campaign is stopping: kill every shard
_STOPPED = set()  # tokens of cluster tasks whose campaign stopped: kill those shards


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the shard is the leader of its own group
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def stop_all():
    """Kill every running shard subprocess of this process, with its simulator."""
    _STOPPING.set()
    with _LIVE_LOCK:
        running = list(_LIVE)
    for proc in running:
        _kill_group(proc)


def stop_tokens(tokens):
    """On a Dask worker (``Client.run``): kill the shards of a stopped campaign, and any of
    them that has not started yet as soon as it starts."""
    with _LIVE_LOCK:
        _STOPPED.update(tokens)
        running = [proc for proc, token in _LIVE.items() if token in _STOPPED]
    for proc in running:
        _kill_group(proc)
    return len(running)


def _stopped(token):
    return _STOPPING.is_set() or token in _STOPPED


def _tail(path, limit=LOG_TAIL):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return text[-limit:]


def run_killable(args, token, timeout, log, pass_fds=()):
    """Run ``args`` (a Python module of this package, from ROOT) in its own session, output to
    the open file ``log``, killed with its children on ``timeout`` or when its campaign stops
    (stop_all here, stop_tokens(token) on a Dask worker). (returncode, timed_out, interrupted)."""
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(args, cwd=ROOT, env={**os.environ, "PYTHONPATH": pythonpath}, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, pass_fds=pass_fds)
    with _LIVE_LOCK:
        _LIVE[proc] = token
    try:
        if _stopped(token):
            _kill_group(proc)
        proc.wait(timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        timed_out = True
    finally:
        with _LIVE_LOCK:
            _LIVE.pop(proc, None)
    interrupted = _stopped(token) and not timed_out and proc.returncode == -signal.SIGKILL
    return proc.returncode, timed_out, interrupted


def run_shard(shard, timeout, scratch=None, token=None, shrink=True):
    """Run one shard (a ``Shard.to_dict()``) and return its journal entry; ``shrink``: shrink
    a failing case before reporting it.

    Called in a thread of the campaign (local) or as a Dask task (cluster): it only needs this
    package, the simulators and a writable build folder on the machine it runs on. Never
    raises: whatever happens becomes the entry's status (pass, fail, error, timeout).
    """
    started, clock = _now(), time.monotonic()
    entry = {"key": Shard(**shard).key, **shard, "host": socket.gethostname(), "started": started,
             "tools": tool_versions(), "rtl_root": os.environ.get("GAMECHIP_RTL_ROOT")}
    workdir = None
    try:
        slot, lock = take_slot(shard["design"], shard["sim"])
        try:
            tag = slot_tag(slot)
            entry["tag"] = tag
            if scratch:
                Path(scratch).mkdir(parents=True, exist_ok=True)
            workdir = Path(tempfile.mkdtemp(prefix=f"{Shard(**shard).slug}-", dir=scratch))
            result_path, log_path = workdir / "result.json", workdir / "worker.log"
            shrink_until = time.time() + SHRINK_SHARE * timeout if shrink else 0
            with open(log_path, "wb") as log:
                returncode, timed_out, interrupted = run_killable(
                    [sys.executable, "-m", "gamechip.campaign", "worker", json.dumps(shard), tag, str(result_path),
                     f"{shrink_until:.3f}"], token, timeout, log, pass_fds=(lock.fileno(),))
        finally:
            lock.close()
        entry.update(_classify(shard, timeout, timed_out, interrupted, returncode, result_path, log_path))
    except Exception:
        entry.update(status="error", message=f"the shard could not be run:\n{traceback.format_exc()}", checked=0)
    finally:
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    entry["ended"] = _now()
    entry["seconds"] = round(time.monotonic() - clock, 3)
    return entry


def _classify(shard, timeout, timed_out, interrupted, returncode, result_path, log_path):
    """The journal entry's outcome fields. ``interrupted``: killed because the campaign stopped
    (Ctrl-C): status 'interrupted', not journaled, so it runs again on resume, unless it had
    found a failure already."""
    worker_log = _tail(log_path)
    record = json.loads(result_path.read_text()) if result_path.exists() else None
    killer = f"the {timeout:g} s timeout" if timed_out else "the interrupt" if interrupted else None
    cut_off = killer and record is not None and bool((record.get("result") or {}).get("failure"))
    if cut_off:  # the failure was saved before shrinking began: report it, shrunk or not
        if not (record.get("shrink") or record.get("shrink_error")):
            record = {**record, "shrink_error": f"shrinking was cut off by {killer}; the case is kept as found"}
    elif timed_out:
        return {"status": "timeout", "checked": 0, "message": f"no result after {timeout:g} s: killed with its simulator",
                "log_text": worker_log}
    elif interrupted:
        return {"status": "interrupted", "checked": 0}
    if record is None or "exception" in record:
        why = record["exception"] if record else f"the shard process exited with status {returncode} and no result"
        return {"status": "error", "checked": 0, "message": why, "log_text": worker_log}
    result = record.get("result") or {}
    out = {"checked": result.get("checked", 0), "timings": result.get("tests", {}).get("fuzz"),
           "sim_log": record.get("log"), "sim_dir": record.get("sim_dir")}
    if record["passed"] and out["checked"] >= shard["count"]:  # every position makes one case or more
        return {**out, "status": "pass"}
    if record["passed"]:
        return {**out, "status": "error", "message": f"the run passed after checking {out['checked']:,} cases for "
                                                      f"{shard['count']:,} positions: some were never compared",
                "log_text": record.get("log_text") or worker_log}
    if result.get("failure"):
        return {**out, "status": "fail", "message": result["failure"], "case_record": record.get("case"),
                "original_case_record": record.get("original_case"), "case_source": record.get("case_path"),
                **{key: record[key] for key in ("shrink", "shrink_error") if record.get(key)}}
    return {**out, "status": "error", "message": "the simulation failed before comparing anything (simulator crash?)",
            "log_text": record.get("log_text") or worker_log}


def _watch_parent():
    """Die with the launcher: a campaign killed with ``kill -9`` leaves no simulator behind."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def _write_result(result_path, record):
    tmp = Path(result_path + ".tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, result_path)


def _shrink_failure(record, tag, shrink_until):
    """``record`` with its case shrunk (and the original kept), or with the reason it was not.
    Shrinks in the shard's own build slot (no second build); keeps the fuzz run's log aside,
    since every shrink round writes the slot's gamechip.log again."""
    from tb.casefile import CaseFileError, parse_case_record
    from tb.shrink import ShrinkError, shrink_record

    fuzz_log = Path(record["log"]).with_name("gamechip-fuzz.log")
    try:
        shutil.copyfile(record["log"], fuzz_log)
        record = {**record, "log": str(fuzz_log)}
    except OSError:
        pass
    try:
        case = parse_case_record(record["case"], "the failing case")
        shrunk = shrink_record(record["case"], case, tag=tag, progress=lambda line: print(line, flush=True),
                               deadline=shrink_until)
    except (CaseFileError, ShrinkError) as error:
        return {**record, "shrink_error": f"not shrunk: {error}"}
    except Exception:
        return {**record, "shrink_error": f"not shrunk: the shrinker failed:\n{traceback.format_exc()}"}
    if not shrunk.smaller:
        return {**record, "shrink": f"not shrunk: no {shrunk.unit} can be removed without losing the failure"}
    return {**record, "case": shrunk.record, "original_case": record["case"], "shrink": shrunk.summary()}


def _worker(shard_json, tag, result_path, shrink_until="0"):
    """The shard subprocess: the block's fuzz bench through tb.runner, its outcome as JSON;
    then, when ``shrink_until`` (a time.time()) is set and a case failed, the shrunk case."""
    _watch_parent()
    shard = json.loads(shard_json)
    # The simulator's output as it comes, to the shard's log: what a crashed or hung shard
    # leaves behind (tb.runner writes gamechip.log only when the run ends).
    live = logging.StreamHandler(sys.stdout)
    live.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("cocotb").addHandler(live)
    try:
        from tb.runner import run_design

        outcome = run_design(shard["design"], shard["sim"], shard["module"], ["fuzz"], tag=tag, quiet=True,
                             env={"GAMECHIP_SEED": str(shard["seed"]), "GAMECHIP_COUNT": str(shard["count"])})
        case = json.loads(outcome.failure_case.read_text()) if outcome.failure_case.exists() else None
        record = {"passed": outcome.passed, "result": outcome.result, "case": case,
                  "case_path": str(outcome.failure_case) if case else None,
                  "log": str(outcome.sim_dir / "gamechip.log"), "sim_dir": str(outcome.sim_dir),
                  "log_text": "" if outcome.passed else outcome.log_excerpt(LOG_TAIL)}
    except Exception:
        record = {"passed": False, "exception": traceback.format_exc()}
    _write_result(result_path, record)  # first the case as found: shrinking must never lose it
    if float(shrink_until) and record.get("case"):
        _write_result(result_path, _shrink_failure(record, tag, float(shrink_until)))
    return 0


def _write_atomic(path, text):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def _keep(entry, out):
    """Move what the journal line points at into OUT (case file, logs); return the line."""
    entry = dict(entry)
    record, log_text = entry.pop("case_record", None), entry.pop("log_text", None)
    original = entry.pop("original_case_record", None)
    name = f"{entry['block']}-{entry['sim']}-seed{entry['seed']}"
    if original:  # first: a campaign killed between the two writes still has the case as found
        entry["original_case"] = str(_keep_case(out, f"{name}.orig.json", original, entry))
    if record:
        entry["case"] = str(_keep_case(out, f"{name}.json", record, entry))
    if log_text and entry["status"] != "pass":
        log = _unused(out / "logs" / f"{entry['block']}-{entry['sim']}-seed{entry['seed']}.log")
        log.parent.mkdir(exist_ok=True)
        _write_atomic(log, log_text)
        entry["log"] = str(log)
    return entry


def _unused(path):
    """``path``, or ``<stem>.2<suffix>``, ``.3``, ... when taken: a shard retried after an error
    keeps the log of every attempt, each named by its own journal line."""
    number = 1
    candidate = path
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.stem}.{number}{path.suffix}")
    return candidate


def _keep_case(out, name, record, entry):
    record = {**record, "tools": entry.get("tools"),
              "campaign": {"key": entry["key"], "count": entry["count"], "host": entry.get("host"),
                           "rtl_root": entry.get("rtl_root")}}
    case = out / "cases" / name
    case.parent.mkdir(exist_ok=True)
    _write_atomic(case, json.dumps(record, indent=2) + "\n")
    return case


# --- where shards run ------------------------------------------------------------------------

class LocalPool:
    def __init__(self, workers, timeout, scratch, shrink=True):
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shard")
        self.timeout, self.scratch, self.shrink = timeout, scratch, shrink
        self.where = f"{workers} local worker{'s' if workers != 1 else ''}"
        self.stopping = "killing the running shards"

    def submit(self, shard):
        return self.executor.submit(run_shard, shard.to_dict(), self.timeout, str(self.scratch), None, self.shrink)

    def stop(self):
        self.executor.shutdown(wait=False, cancel_futures=True)
        stop_all()
        self.executor.shutdown(wait=True)  # the killed shards return at once

    def close(self):
        self.executor.shutdown(wait=True)


CLUSTER_ADDRESS = re.compile(r"^tcp://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.\-_]+):(\d{1,5})$")


def check_cluster_address(address):
    match = CLUSTER_ADDRESS.match(address)
    if not match or not 0 < int(match.group(2)) < 65536:
        raise CampaignInputError(f"bad cluster address '{address}': expected tcp://HOST:PORT, "
                                 "the address of a Dask distributed scheduler")


def connect_cluster(address):
    """A Dask client of the scheduler at ``address`` and one line saying what it has; raises
    CampaignInputError (one line for the user) when the address is bad or nobody answers."""
    check_cluster_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise CampaignInputError("--cluster needs the Python package 'distributed' (pip install distributed)")
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise CampaignInputError(f"cannot reach the Dask scheduler at {address}: {error}")
    threads = client.nthreads()
    return client, f"Dask cluster {address} ({len(threads)} workers, {sum(threads.values())} threads)"


def stop_cluster_tasks(client, futures, what):
    """Cancel ``futures`` and kill, on every worker, the subprocesses (run_killable) of those
    already running; a failure to reach the workers is one line on stderr."""
    for future in futures:
        future.cancel()
    try:
        client.run(stop_tokens, [future.key for future in futures])
    except Exception as error:
        print(f"{what}: could not stop the tasks running on the cluster: {error}", file=sys.stderr)


class DaskPool:
    """The same shards as tasks of a Dask distributed scheduler (``run_shard`` on the workers)."""

    def __init__(self, address, timeout, shrink=True):
        self.client, self.where = connect_cluster(address)
        self.timeout, self.shrink = timeout, shrink
        self.stopping = "cancelling the shards on the cluster, killing the running ones"
        self.futures = []
        self.campaign = uuid.uuid4().hex[:12]

    def submit(self, shard):
        key = f"gamechip-{shard.slug}-{self.campaign}"
        future = self.client.submit(run_shard, shard.to_dict(), self.timeout, None, key, self.shrink, pure=False,
                                    key=key)
        self.futures.append(future)  # a Dask future nobody holds is forgotten by the scheduler
        return future

    def stop(self):
        stop_cluster_tasks(self.client, self.futures, "campaign")

    def close(self):
        self.client.close()


# --- progress and summary ----------------------------------------------------------------------

def _duration(seconds):
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Progress:
    """One live line on a terminal; one plain line per finished shard otherwise."""

    def __init__(self, shards, done, stream=sys.stderr):
        self.total, self.done = len(shards), len(done)
        self.remaining_positions = sum(s.count for s in shards if s.key not in done)
        self.positions = self.checked = 0
        self.counts = {status: sum(e["status"] == status for e in done.values()) for status in STATUSES}
        self.started = time.monotonic()
        self.stream = stream
        self.tty = stream.isatty()
        self.last_draw = 0.0

    def line(self):
        elapsed = time.monotonic() - self.started
        rate = self.checked / elapsed if elapsed else 0.0
        position_rate = self.positions / elapsed if elapsed else 0.0
        eta = _duration(self.remaining_positions / position_rate) if position_rate else "?"
        return (f"{self.done}/{self.total} shards, {self.checked:,} cases checked, {rate:,.0f} cases/s, "
                f"{self.counts['fail']} failures, {self.counts['error']} errors, {self.counts['timeout']} timeouts, "
                f"ETA {eta if self.done < self.total else '0s'}")

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


def _replay_command(entry):
    prefix = f"GAMECHIP_RTL_ROOT={shlex.quote(entry['rtl_root'])} " if entry.get("rtl_root") else ""
    return f"{prefix}gamechip replay {shlex.quote(entry['case'])} --waves"


def summary(shards, entries, history=None, out=sys.stdout):
    """The table per block x simulator, every failure, error and timeout, and every shard run
    more than once with each attempt (``history``: key -> journal lines); True when clean."""
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
        count = {status: sum(e["status"] == status for e in done) for status in STATUSES}
        print(f"{block:<14} {sim:<10} {len(done):>3}/{planned[(block, sim)]:<4} {checked:>11,} "
              f"{checked / wall if wall else 0:>9,.0f} {count['fail']:>9} {count['error']:>7} {count['timeout']:>9}",
              file=out)
    print("(cases/s: the rate of one worker while simulating, builds excluded)", file=out)
    bad = [entries[s.key] for s in shards if s.key in entries and entries[s.key]["status"] != "pass"]
    for entry in bad:
        head = f"{entry['status'].upper()} {entry['block']} on {entry['sim']}, seed {entry['seed']} ({entry['count']:,} positions)"
        if entry["status"] == "fail":
            label = next((line for line in entry.get("message", "").splitlines() if line.startswith("case:")), "")
            print(f"\n{head}: {label.removeprefix('case:').strip()}", file=out)
            if entry.get("case"):
                print(f"  case file: {entry['case']}\n  replay:    {_replay_command(entry)}", file=out)
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
    missing = sum(s.key not in entries for s in shards)
    total = sum(e.get("checked", 0) for e in entries.values())
    if bad or missing:
        counts = {status: sum(e["status"] == status for e in bad) for status in STATUSES}
        print(f"\nFAIL: {counts['fail']} failures, {counts['error']} errors, {counts['timeout']} timeouts"
              + (f", {missing} shards not run" if missing else "") + f"; {total:,} cases checked", file=out)
        return False
    print(f"\nPASS: {total:,} cases checked against the golden model in {len(shards)} shards, no mismatch", file=out)
    return True


# --- the campaign --------------------------------------------------------------------------

def _parameters(blocks, sims, count, seed, shard_size):
    return dict(zip(PARAMETER_NAMES, ([b.name for b in blocks], list(sims), count, seed, shard_size)))


def _resume_command(argv):
    words = ["gamechip", "campaign", *argv]
    if "--resume" not in words:
        words.append("--resume")
    return shlex.join(words)


def _open_out(out, parameters, resume):
    """Check and prepare the output folder before any shard runs (every problem one
    CampaignInputError); return the journal and what it already holds."""
    if out.exists() and not out.is_dir():
        raise CampaignInputError(f"--out {out} is a file, not a folder: choose a folder for the campaign")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CampaignInputError(f"cannot create the campaign folder {out}: {error.strerror or error}")
    journal = Journal(out / JOURNAL)
    stored = out / PARAMETERS
    if journal.path.exists() and not journal.path.is_file():
        raise CampaignInputError(f"{journal.path} is not a file: not a campaign folder, choose another --out")
    if not resume:
        if journal.path.exists() and journal.path.stat().st_size > 0:
            raise CampaignInputError(f"{journal.path} already holds a campaign: add --resume to finish it, "
                                     "or choose another --out")
    elif stored.exists():
        try:
            previous = json.loads(stored.read_text())
            problem = parameters_problem(previous)
        except (OSError, ValueError) as error:
            problem = str(error)
        if problem:
            raise CampaignInputError(f"{stored} is damaged ({problem}): restore it, or delete it to resume with "
                                     "the parameters given here")
        if previous != parameters:
            differs = ", ".join(f"{k} {previous.get(k)!r} (now {v!r})" for k, v in parameters.items()
                                if previous.get(k) != v)
            raise CampaignInputError(f"{out} holds another campaign ({differs}): resume it with its own "
                                     "parameters, or choose another --out")
    try:
        done = journal.load() if resume else {}
        _write_atomic(stored, json.dumps(parameters, indent=2) + "\n")
        os.close(os.open(journal.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))  # writable before any work
    except OSError as error:
        raise CampaignInputError(f"cannot use the campaign folder {out}: {error.filename or out}: "
                                 f"{error.strerror or error}")
    return journal, done


def _check_values(blocks, sims, count, seed, shard_size, workers, timeout, resume, retry, cluster):
    """Values a command line cannot have checked alone; CampaignInputError for the first wrong one."""
    if not retry and not resume:
        raise CampaignInputError("--no-retry applies only with --resume (it keeps the shards journaled as error or "
                                 "timeout instead of running them again)")
    if cluster and workers:
        raise CampaignInputError("--workers sets the local shards at once; with --cluster the cluster's workers run "
                                 "them: give one of the two")
    numbers = (("--count", count, 1), ("--shard-size", shard_size, 1), ("--seed", seed, 0))
    for name, value, least in numbers + ((("--workers", workers, 1),) if workers is not None else ()):
        if not isinstance(value, int) or value < least:
            raise CampaignInputError(f"{name} must be a whole number of at least {least}, got {value!r}")
    if workers is not None and workers > MAX_SLOTS:
        raise CampaignInputError(f"--workers {workers} is more than the {MAX_SLOTS} build slots a machine has")
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
        cluster=None, argv=(), retry=True, shrink=True):
    """Run (or finish) a campaign; return the exit status: 0 clean, 1 any failure, error or
    timeout (or the folder refused a write, which stops the campaign), 130 interrupted.
    ``retry``: on resume, run shards journaled as error or timeout again; ``shrink``: shrink
    failing cases. Raises CampaignInputError on bad input, before any shard runs."""
    if not str(out).strip():
        raise CampaignInputError("--out is empty: name the campaign folder")
    out = Path(out).resolve()
    _check_values(blocks, sims, count, seed, shard_size, workers, timeout, resume, retry, cluster)
    if cluster:
        check_cluster_address(cluster)
    shards = plan(blocks, sims, count, seed, shard_size)
    journal, done = _open_out(out, _parameters(blocks, sims, count, seed, shard_size), resume)
    for warning in journal.warnings:
        print(f"campaign: warning: {warning}", file=sys.stderr)
    planned = {s.key for s in shards}
    outside = sorted(key for key in done if key not in planned)
    if outside:
        print(f"campaign: warning: {len(outside)} journaled shard{'s are' if len(outside) > 1 else ' is'} not in this "
              f"plan and left out (first: {outside[0]}): were the parameters changed?", file=sys.stderr)
    done = {key: entry for key, entry in done.items() if key in planned}
    done, retried = _retry(done, retry)
    todo = [s for s in shards if s.key not in done]
    pool = DaskPool(cluster, timeout, shrink) if cluster else LocalPool(workers or os.cpu_count() or 1, timeout,
                                                                        out / ".running", shrink)
    print(f"campaign: {', '.join(b.name for b in blocks)} on {', '.join(sims)}: {count:,} random positions per block "
          f"and simulator (a block may check more than one case per position) from seed {seed}, {len(shards)} shards of up to {shard_size:,}" + (f", {len(done)} already journaled" if done else "")
          + (f", {len(retried)} to retry (error or timeout last time)" if retried else "")
          + f"; {pool.where}; journal {journal.path}", file=sys.stderr)
    if not cluster:  # on a cluster, each worker tests its own GAMECHIP_RTL_ROOT
        from tb.runner import describe_rtl

        print(f"campaign: {describe_rtl()}", file=sys.stderr)
        print("campaign: tools: " + "; ".join(v if name in ("iverilog", "verilator", "ghdl") else f"{name} {v}"
                                            for name, v in tool_versions().items() if v), file=sys.stderr)
    progress = Progress(shards, done)
    finished = queue.Queue()
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
                     "message": f"the worker running this shard was lost: {error!r}", "ended": _now()}
        if entry["status"] == "interrupted":
            return
        try:
            entry = _keep(entry, out)
            journal.append(entry)
        except OSError as error:
            raise _CannotWrite(f"{error.filename or journal.path}: {error.strerror or error}") from error
        entries[shard.key] = entry
        progress.shard_done(entry)

    def drain(stopping=False):
        """Journal the shards that have finished; False when the folder refuses the writes."""
        while True:
            try:
                shard, future = finished.get_nowait()
            except queue.Empty:
                return True
            try:
                journal_entry(shard, future, stopping)
            except _CannotWrite as error:
                print(f"campaign: cannot write {error}", file=sys.stderr)
                return False

    running = {}
    previous_sigint = signal.getsignal(signal.SIGINT)
    previous_sigterm = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        try:
            for shard in todo:
                future = pool.submit(shard)
                running[id(future)] = (shard, future)
                future.add_done_callback(lambda f, s=shard: finished.put((s, f)))
            while running:
                try:
                    shard, future = finished.get(timeout=1.0)
                except queue.Empty:
                    progress.draw()
                    continue
                running.pop(id(future), None)
                journal_entry(shard, future)
        except (KeyboardInterrupt, _CannotWrite) as stop:
            progress.close()
            writable = not isinstance(stop, _CannotWrite)
            print(("" if writable else f"campaign: cannot write {stop}\n") + f"campaign: stopping: {pool.stopping} ...",
                  file=sys.stderr)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            writable = writable and drain()  # shards that finished before the stop are journaled, not lost
            pool.stop()
            writable = writable and drain(stopping=True)  # and those that finished while it stopped the rest
            pool.close()
            print(f"campaign: {'interrupted' if isinstance(stop, KeyboardInterrupt) else 'stopped'}: {len(entries)} of "
                  f"{len(shards)} shards are journaled in {journal.path}; "
                  + ("" if writable else "once its folder can be written again, ")
                  + f"finish the campaign with:\n  {_resume_command(argv)}", file=sys.stderr)
            return 130 if isinstance(stop, KeyboardInterrupt) else 1
        finally:
            signal.signal(signal.SIGTERM, previous_sigterm)
            signal.signal(signal.SIGINT, previous_sigint)
        pool.close()
    finally:
        _STOPPING.clear()
        shutil.rmtree(out / ".running", ignore_errors=True)
    progress.close()
    print(f"campaign: done in {_duration(time.monotonic() - progress.started)}"
          + (f"; {len(retried)} shard{'s' if len(retried) != 1 else ''} retried" if retried else "") + f"; journal {journal.path}", file=sys.stderr)
    return 0 if summary(shards, entries, journal.history) else 1


class _CannotWrite(Exception):
    """The campaign folder refused a journal line, case or log: stop, keep what is journaled."""


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "worker":
        sys.exit(_worker(*sys.argv[2:]))
    sys.exit("usage: python -m gamechip.campaign worker SHARD-JSON TAG RESULT-FILE [SHRINK-UNTIL] "
             "(run by gamechip campaign)")
