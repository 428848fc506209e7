"""``OUT/journal.jsonl``: a campaign's results, one JSON line per finished shard.

Only the campaign's main process writes it, and only ever appends (one write, then fsync), so a
shard run again after an error or a timeout has a second line, and a shard's last line is its
status. It is read by gamechip.jsonlines, the reader of every journal, for ``campaign --resume``
and ``gamechip report`` alike: a half-written last line (the campaign was killed while writing
it) and any line that is not a shard's entry are skipped with a warning naming them, never a
reason to give up the rest of the campaign.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from gamechip import jsonlines

JOURNAL = "journal.jsonl"
STATUSES = ("pass", "fail", "error", "timeout")
REQUIRED = ("key", "block", "sim", "status")  # text, status one of STATUSES
# Fields that a reader computes with: a hand-edited or damaged line with another type is skipped
# (None: not known, as a campaign writes it for e.g. timings of a shard that never simulated).
TYPED = {"seed": int, "count": int, "checked": int, "seconds": (int, float), "timings": dict, "tools": dict,
         "message": str, "log": str, "case": str, "original_case": str, "started": str, "ended": str}


def entry_problem(entry):
    """Why ``entry`` (a decoded line) is not a shard's journal entry, or None when it is."""
    if not isinstance(entry, dict):
        return f"a JSON {type(entry).__name__}, not an object"
    missing = [name for name in REQUIRED if not isinstance(entry.get(name), str)]
    if missing:
        return f"no {', '.join(missing)}"
    if entry["status"] not in STATUSES:
        return f"unknown status '{entry['status']}' (expected one of {', '.join(STATUSES)})"
    wrong = [name for name, kind in TYPED.items()
             if entry.get(name) is not None and (not isinstance(entry[name], kind) or isinstance(entry[name], bool))]
    if wrong:
        return f"{', '.join(wrong)} of the wrong type"
    return None


@dataclass
class Contents:
    latest: dict = field(default_factory=dict)  # shard key -> its last line: its status
    history: dict = field(default_factory=dict)  # shard key -> all its lines, oldest first
    skipped: list = field(default_factory=list)  # (line number, why) of lines that are not entries
    torn: int = 0  # bytes of a half-written last line, 0 when the journal ends with a whole line

    def skipped_text(self):
        """'line 3 (not JSON: ...), line 7 (no status)'."""
        return jsonlines.skipped_text(self.skipped)


def read(path):
    """The journal at ``path`` (missing: empty); raises OSError when it cannot be read."""
    lines = jsonlines.read(path, entry_problem)
    contents = Contents(skipped=lines.skipped, torn=lines.torn)
    for _, entry in lines.entries:
        contents.latest[entry["key"]] = entry
        contents.history.setdefault(entry["key"], []).append(entry)
    return contents


def attempt_text(entry):
    """One journal line in a shard's history: 'timeout at 2024-05-01 10:00:01 (no result after
    900 s: killed with its simulator)'."""
    when = (entry.get("ended") or entry.get("started") or "")[:19].replace("T", " ") or "an unknown time"
    message = (entry.get("message") or "").strip()
    why = f" ({message.splitlines()[-1]})" if message and entry["status"] in ("error", "timeout") else ""
    return f"{entry['status']} at {when}{why}"


def history_text(lines):
    """A shard's lines, oldest first: 'error at ... (...), then pass at ...'."""
    return ", then ".join(attempt_text(entry) for entry in lines)


class Journal:
    """The journal a campaign appends to."""

    def __init__(self, path):
        self.path = Path(path)
        self.warnings = []
        self.history = {}  # shard key -> its lines, oldest first (what load read, then what was appended)

    def load(self):
        """The journaled entries by key, each shard's last line. A half-written last line is cut
        off, so its shard runs again and the next line starts clean; unreadable lines are kept
        (the journal is never rewritten) and skipped with a warning."""
        contents = read(self.path)
        if contents.torn:
            self.warnings.append(f"dropped a half-written last line of {self.path} ({contents.torn} bytes); "
                                 "its shard runs again")
            with open(self.path, "r+b") as journal:
                journal.truncate(self.path.stat().st_size - contents.torn)
                journal.flush()
                os.fsync(journal.fileno())
        if contents.skipped:
            self.warnings.append(f"skipped {len(contents.skipped)} unreadable line{'s' if len(contents.skipped) > 1 else ''}"
                                 f" of {self.path}: {contents.skipped_text()}; a shard with no other line runs again")
        self.history = contents.history
        return contents.latest

    def append(self, entry):
        jsonlines.append(self.path, entry, sort_keys=True)
        self.history.setdefault(entry["key"], []).append(entry)
