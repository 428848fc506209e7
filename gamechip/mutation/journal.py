"""A mutation run's folder: ``OUT/mutants.json``, the catalogue (the run's settings, every
mutant with its id, file, line, operator, original and mutated source, and each row's mutants),
and ``OUT/journal.jsonl``, one line per judged mutant appended as it finishes (a journal as
gamechip.jsonlines writes and reads it: a mutant judged again has a later line, its last one
counts), with each row's run of the original design (``<row>:baseline:<digest>``).
"""

import json
from pathlib import Path

from gamechip import jsonlines
from gamechip.mutation.model import MutateError

JOURNAL = "journal.jsonl"
CATALOGUE = "mutants.json"
VERDICTS = ("killed", "survived", "error", "invalid")   # invalid: an --elab copy that does not convert
BASELINE_VERDICTS = ("baseline", "baseline-failed")       # a row's original design through its bench
# the proof detail of a mutant equivalent without a run (schemata.identical_mutants, an --elab copy)
IDENTICAL = "its converted Verilog is the original's, byte for byte"


def entry_problem(entry):
    """Why ``entry`` (a decoded line) is not a mutant's (or a baseline's) entry, or None."""
    if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("block"), str) \
            and entry.get("verdict") in VERDICTS + BASELINE_VERDICTS:
        return None
    return "not a mutant's entry"


def read_journal(path):
    """(block, id) -> last entry (a mutant of a shared file is one per block that holds it);
    lines that are not entries (a torn last line) are skipped."""
    return {(entry["block"], entry["id"]): entry for _, entry in jsonlines.read(path, entry_problem).entries}


def append_entry(path, entry):
    jsonlines.append(path, entry)


def verdict_entry(mutant_id, number, verdict, test, message, seconds, **more):
    """A judged mutant's journal entry (its ``block`` among ``more``, where the caller knows it)."""
    return {"id": mutant_id, **({"block": more.pop("block")} if "block" in more else {}), "number": number,
            "verdict": verdict, "test": test, "message": message[:500], "seconds": round(seconds, 2), **more}


def identical_entry(mutant, row):
    """The entry of a source mutant whose converted Verilog is the original's: equivalent, unrun."""
    return {"id": mutant.id, "block": row, "number": mutant.number, "verdict": "survived", "test": None,
            "message": "", "seconds": 0, "equivalent": True,
            "proof": {"verdict": "equivalent", "seconds": 0, "detail": IDENTICAL}}


def unproved_survivor(entry):
    """A survivor not proved equivalent (prove_survivors marks one it proves ``equivalent``)."""
    return entry["verdict"] == "survived" and not entry.get("equivalent")


def byte_identical(entry):
    """Whether the entry is of a mutant equivalent because it converts to the original's text."""
    return bool(entry) and (entry.get("proof") or {}).get("detail") == IDENTICAL


def read_catalogue(out):
    """The catalogue of the run in ``out``; MutateError when ``out`` is not a run's folder."""
    try:
        return json.loads((Path(out) / CATALOGUE).read_text())
    except (OSError, ValueError) as error:
        raise MutateError(f"{out} is not a mutation run folder ({CATALOGUE}: {error})")
