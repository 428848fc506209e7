"""Journals: append-only JSON-lines files, one entry (a JSON object) a line.

A writer appends each entry in one write and fsyncs it, and never rewrites a line, so a thing
judged again (a campaign's shard, a mutant) has a later line, and its last line is its state.
Every journal of the project is read here, so every reader accepts and skips the same lines: a
half-written last line (the writer was killed while writing it) and each line that is not an
entry are left out and named, never a reason to give up the rest.

The campaign's journal (gamechip/campaign/journal.py) and a mutation run's
(gamechip/mutation/journal.py) say what an entry of theirs is.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Lines:
    entries: list = field(default_factory=list)  # (line number, entry) of every entry, in file order
    skipped: list = field(default_factory=list)  # (line number, why) of lines that are not entries
    torn: int = 0  # bytes of a half-written last line, 0 when the file ends with a whole line


def skipped_text(skipped):
    """``skipped`` ([(line number, why)]) as 'line 3 (not JSON: ...), line 7 (no status)'."""
    return ", ".join(f"line {number} ({why})" for number, why in skipped)


def read(path, entry_problem=lambda entry: None):
    """The journal at ``path`` (missing: empty). ``entry_problem(decoded line)`` says why a line
    is not an entry, or None when it is. Raises OSError when the file cannot be read."""
    path = Path(path)
    lines = Lines()
    if not path.exists():
        return lines
    data = path.read_bytes()
    complete = data[:data.rfind(b"\n") + 1]
    lines.torn = len(data) - len(complete)
    for number, line in enumerate(complete.split(b"\n")[:-1], 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as error:
            lines.skipped.append((number, f"not JSON: {error}"))
            continue
        problem = entry_problem(entry)
        if problem:
            lines.skipped.append((number, problem))
            continue
        lines.entries.append((number, entry))
    return lines


def append(path, entry, sort_keys=False):
    """Append ``entry`` as one line of the journal at ``path`` (created when missing), in one
    write, and fsync it."""
    data = (json.dumps(entry, sort_keys=sort_keys) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
