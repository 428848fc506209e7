"""One campaign shard: run it, and classify its outcome as a journal entry.

A shard (gamechip/campaign/plan.py) runs the block's ``fuzz`` bench in a subprocess of its own
process group (``python -m gamechip.campaign.shards worker``, started by
gamechip.processes.run_killable), so a shard that hangs past the timeout is killed with its
simulator, and a worker that dies takes its simulator with it. Concurrent shards never share a
build directory: each takes a free build *slot* (tb/host/slots.py: an exclusive lock file under
the build folder) and builds in ``<design>-<sim>-...-campaign-s<slot>``, so a slot reuses its
build for the next shard.

A failing case is shrunk inside its shard (tb/host/shrink.py), on the machine and in the build slot
that found it, before the shard reports: ``OUT/cases/<name>.json`` is the shrunk case and
``<name>.orig.json`` the case as found. The shard saves its result with the original case before
it starts shrinking and stops shrinking well before its timeout, so shrinking never loses a
failure: when it fails or is cut off (by the timeout or by Ctrl-C), the original case is kept and
the journal says why.

Every shard samples its block's functional coverage (tb.checks.coverage_samplers) into its own
work folder; the hit records go back in its outcome and the campaign keeps them
(gamechip/campaign/coverage.py). A shard marked ``directed`` (``--until-covered``) runs the
block's directed and aimed cases before its positions.
"""

import json
import logging
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from gamechip.campaign.coverage import hit_records
from gamechip.campaign.plan import Shard
from gamechip.processes import die_with_parent, run_killable
from tb.checks.coverage_samplers import COVERAGE_OUT
from tb.host.slots import slot_tag, take_slot

SHRINK_SHARE = 0.8  # of a shard's timeout, the point after which it starts no shrink round
LOG_TAIL = 20000  # characters of a failed shard's logs kept in OUT/logs/


def timestamp():
    """The time now, as a journal entry's ``started`` and ``ended`` give it."""
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


def _tail(path, limit=LOG_TAIL):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return text[-limit:]


def run_shard(shard, timeout, scratch=None, token=None, shrink=True):
    """Run one shard (a ``Shard.to_dict()``) and return its journal entry; ``shrink``: shrink
    a failing case before reporting it.

    Called in a thread of the campaign (local) or as a Dask task (cluster): it only needs this
    package, the simulators and a writable build folder on the machine it runs on. Never
    raises: whatever happens becomes the entry's status (pass, fail, error, timeout).
    """
    started, clock = timestamp(), time.monotonic()
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
                    [sys.executable, "-m", "gamechip.campaign.shards", "worker", json.dumps(shard), tag, str(result_path),
                     f"{shrink_until:.3f}"], token, timeout, log, pass_fds=(lock.fileno(),))
        finally:
            lock.close()
        entry.update(classify_outcome(shard, timeout, timed_out, interrupted, returncode, result_path, log_path))
    except Exception:
        entry.update(status="error", message=f"the shard could not be run:\n{traceback.format_exc()}", checked=0)
    finally:
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    entry["ended"] = timestamp()
    entry["seconds"] = round(time.monotonic() - clock, 3)
    return entry


def classify_outcome(shard, timeout, timed_out, interrupted, returncode, result_path, log_path):
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
           "sim_log": record.get("log"), "sim_dir": record.get("sim_dir"),
           "coverage_records": record.get("coverage") or None}
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


def _write_result(result_path, record):
    tmp = Path(result_path + ".tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, result_path)


def shrink_failure(record, tag, shrink_until):
    """``record`` with its case shrunk (and the original kept), or with the reason it was not.
    Shrinks in the shard's own build slot (no second build); keeps the fuzz run's log aside,
    since every shrink round writes the slot's gamechip.log again."""
    from tb.host.casefile import CaseFileError, parse_case_record
    from tb.host.shrink import ShrinkError, shrink_record

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
    """The shard subprocess: the block's fuzz bench through tb.host.runner, its outcome as JSON;
    then, when ``shrink_until`` (a time.time()) is set and a case failed, the shrunk case."""
    die_with_parent()
    shard = json.loads(shard_json)
    # The simulator's output as it comes, to the shard's log: what a crashed or hung shard
    # leaves behind (tb.host.runner writes gamechip.log only when the run ends).
    live = logging.StreamHandler(sys.stdout)
    live.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("cocotb").addHandler(live)
    try:
        from tb.host.runner import run_design

        hits = Path(result_path).with_name("coverage")
        os.environ[COVERAGE_OUT] = str(hits)  # here, not in env: cocotb-test copies this process's environment over it
        outcome = run_design(shard["design"], shard["sim"], shard["module"],
                             ["directed", "fuzz"] if shard.get("directed") else ["fuzz"], tag=tag, quiet=True,
                             env={"GAMECHIP_SEED": str(shard["seed"]), "GAMECHIP_COUNT": str(shard["count"])})
        os.environ.pop(COVERAGE_OUT)  # the shrinker's runs after it sample nothing
        case = json.loads(outcome.failure_case.read_text()) if outcome.failure_case.exists() else None
        record = {"passed": outcome.passed, "result": outcome.result, "case": case, "coverage": hit_records(hits),
                  "case_path": str(outcome.failure_case) if case else None,
                  "log": str(outcome.sim_dir / "gamechip.log"), "sim_dir": str(outcome.sim_dir),
                  "log_text": "" if outcome.passed else outcome.log_excerpt(LOG_TAIL)}
    except Exception:
        record = {"passed": False, "exception": traceback.format_exc()}
    _write_result(result_path, record)  # first the case as found: shrinking must never lose it
    if float(shrink_until) and record.get("case"):
        _write_result(result_path, shrink_failure(record, tag, float(shrink_until)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "worker":
        sys.exit(_worker(*sys.argv[2:]))
    sys.exit("usage: python -m gamechip.campaign.shards worker SHARD-JSON TAG RESULT-FILE [SHRINK-UNTIL] "
             "(run by gamechip campaign)")
