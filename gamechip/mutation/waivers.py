"""Reviewed waivers (tb/mutation_waivers.json): id -> why the mutant is equivalent, for the
survivors no check here proves. A waiver names one version of its file (the id's digest), so a
run leaves a waived mutant unrun only while its file is that version; carry_waivers re-keys the
waivers to the files' current versions where the waived statement is unchanged
(``gamechip carry-waivers``).
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from pathlib import Path

from gamechip.mutation.model import file_digest
from gamechip.mutation.schemata import source_mutants

WAIVERS = Path(__file__).resolve().parents[2] / "tb" / "mutation_waivers.json"


def load_waivers(path=WAIVERS):
    """id -> reason of the reviewed waivers (a mutant that is equivalent for a reason no
    check here proves); a waiver names one version of the file (the id's digest)."""
    if not Path(path).exists():
        return {}
    data = json.loads(Path(path).read_text())
    return {key: value for key, value in data.items() if isinstance(value, str) and value.strip()}



def _carry_key(mutant):
    """What a mutant is, wherever its file's lines moved: its generator, operator and text."""
    return (mutant.function, mutant.operator, mutant.original, mutant.mutated)


def carry_waivers(waivers, old_source, new_source):
    """Waivers re-keyed from the files' old versions to their current ones.

    ``old_source(relative, digest)`` gives the text of the file version a waiver names (None
    when that version cannot be found); ``new_source(relative)`` the current text (None for a
    removed file). A waived mutant is carried when the current file has the same mutant (same
    generator, operator, statement and mutation) at the same rank among its equals: the
    statement the reason argues about is unchanged, though its line may have moved. Whether
    the reason still holds with the code around it changed is the reviewer's to check: the
    carried waivers are listed.

    A reason's references to lines of its own file ("line 454") follow the lines that did not
    change; one that points into changed lines is left as written and named in ``carried``.

    Returns (waivers, carried [(old id, new id, note)], stranded [(old id, why)]): a stranded
    waiver stays under its old id, so no reason is lost.
    """
    out, carried, stranded = {}, [], []
    versions = {}   # (relative, digest) -> {carry key with rank: mutant}, and the current file's
    lines = {}      # (relative, digest) -> {old line number: current line number} of unchanged lines

    def keyed(mutants):
        ranks, table = Counter(), {}
        for mutant in mutants:
            key = _carry_key(mutant)
            table[key + (ranks[key],)] = mutant
            ranks[key] += 1
        return table

    for waiver_id, reason in waivers.items():
        relative, line, column, operator, digest = waiver_id.rsplit(":", 4)
        current = new_source(relative)
        if current is None:
            stranded.append((waiver_id, f"{relative} is gone"))
            out[waiver_id] = reason
            continue
        if file_digest(current) == digest:
            out[waiver_id] = reason
            continue
        if (relative, digest) not in versions:
            text = old_source(relative, digest)
            versions[relative, digest] = None if text is None else keyed(source_mutants(relative, text))
            lines[relative, digest] = None if text is None else _moved_lines(text, current)
        if (relative, None) not in versions:
            versions[relative, None] = keyed(source_mutants(relative, current))
        old = versions[relative, digest]
        if old is None:
            stranded.append((waiver_id, f"no version of {relative} with digest {digest} in the history searched"))
            out[waiver_id] = reason
            continue
        key = next((k for k, m in old.items() if m.id == waiver_id), None)
        if key is None:
            stranded.append((waiver_id, f"{relative} at {digest} has no such mutant"))
            out[waiver_id] = reason
            continue
        match = versions[relative, None].get(key)
        if match is None:
            stranded.append((waiver_id, f"the waived statement changed: {old[key].original!r} "
                                        f"in {old[key].function} is not in the current {relative}"))
            out[waiver_id] = reason
            continue
        moved, unmapped = lines[relative, digest], []

        def follow(reference):
            number = int(reference.group(1))
            if number in moved:
                return f"line {moved[number]}"
            unmapped.append(number)
            return reference.group(0)

        out[match.id] = re.sub(r"\bline (\d+)\b", follow, reason)
        note = f"its reason names line {', '.join(map(str, unmapped))}, which changed: check it" if unmapped else ""
        carried.append((waiver_id, match.id, note))
    return out, carried, stranded


def _moved_lines(old, new):
    """{line number in ``old``: its number in ``new``} for the lines the edit left alone."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {a + 1 + k: b + 1 + k for a, b, size in matcher.get_matching_blocks() for k in range(size)}

