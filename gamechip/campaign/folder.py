"""A campaign's output folder ``OUT``: checked and prepared before any shard runs, and what a
journal line points at kept in it.

Nothing is lost: only the main process writes ``OUT/journal.jsonl`` (gamechip/campaign/journal.py),
one JSON line per finished shard; a failing case is copied to ``OUT/cases/`` before its line is
written, and the logs of failed, crashed and timed-out shards to ``OUT/logs/``, and the coverage each shard
sampled to ``OUT/coverage/`` (gamechip/campaign/coverage.py). ``OUT/campaign.json``
holds the campaign's parameters, so ``--resume`` finishes the same campaign.
"""

import json
import os

from gamechip.campaign.coverage import FOLDER as COVERAGE_FOLDER
from gamechip.campaign.journal import JOURNAL, Journal
from gamechip.campaign.plan import PARAMETERS, CampaignInputError, parameters_problem


def open_folder(out, parameters, resume):
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
        write_atomic(stored, json.dumps(parameters, indent=2) + "\n")
        os.close(os.open(journal.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))  # writable before any work
    except OSError as error:
        raise CampaignInputError(f"cannot use the campaign folder {out}: {error.filename or out}: "
                                 f"{error.strerror or error}")
    return journal, done


def write_atomic(path, text):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def keep_outputs(entry, out):
    """Move what the journal line points at into OUT (case file, coverage hits, logs); return the line."""
    entry = dict(entry)
    record, log_text = entry.pop("case_record", None), entry.pop("log_text", None)
    original = entry.pop("original_case_record", None)
    name = f"{entry['block']}-{entry['sim']}-seed{entry['seed']}"
    if original:  # first: a campaign killed between the two writes still has the case as found
        entry["original_case"] = str(_keep_case(out, f"{name}.orig.json", original, entry))
    if record:
        entry["case"] = str(_keep_case(out, f"{name}.json", record, entry))
    records = entry.pop("coverage_records", None)
    if records and entry["status"] in ("pass", "fail"):  # what a shard that ran to its verdict sampled
        entry["coverage"] = keep_records(out, name, records)
    if log_text and entry["status"] != "pass":
        log = unused_path(out / "logs" / f"{entry['block']}-{entry['sim']}-seed{entry['seed']}.log")
        log.parent.mkdir(exist_ok=True)
        write_atomic(log, log_text)
        entry["log"] = str(log)
    return entry


def keep_records(out, name, records):
    """Write each hit record a shard sampled into OUT/coverage/ (``name``: the shard's
    <block>-<sim>-seed<N>); return their paths relative to OUT, for its journal line."""
    folder = out / COVERAGE_FOLDER
    folder.mkdir(exist_ok=True)
    kept = []
    for record in records:
        path = unused_path(folder / f"{name}-{record['test']}.json")
        write_atomic(path, json.dumps(record) + "\n")
        kept.append(path.relative_to(out).as_posix())
    return kept


def unused_path(path):
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
    write_atomic(case, json.dumps(record, indent=2) + "\n")
    return case
