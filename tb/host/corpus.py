"""The regression corpus: failing cases once found (usually shrunk), kept in ``tb/cases/`` and
replayed by the default regression forever after (``tb/test_corpus.py``), so a bug that was
fixed once cannot come back unnoticed. Every file is a case file (tb/host/casefile.py) plus ``why``:
which bug found it.

GAMECHIP_CORPUS points the corpus test and ``gamechip corpus`` at another folder.
"""

import hashlib
import json
import os
import re
from datetime import date
from pathlib import Path

from tb.host.casefile import read_case_file, write_case_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("GAMECHIP_CORPUS", ROOT / "tb" / "cases"))
SLUG_LENGTH = 48


class CorpusRegression(AssertionError):
    """A corpus case mismatches again; the message holds its board, expected and actual."""


def check_corpus_folder():
    """A GAMECHIP_CORPUS that is not a folder of case files would make the corpus test replay
    nothing and pass: refuse it (tb.host.runner.SettingError)."""
    from tb.host.runner import SettingError

    if "GAMECHIP_CORPUS" in os.environ and not corpus_files():
        problem = "not a folder" if not CORPUS.is_dir() else "holds no case files (*.json)"
        raise SettingError(f"GAMECHIP_CORPUS={CORPUS}: {problem}")


def corpus_files(folder=None):
    return sorted(Path(folder or CORPUS).glob("*.json"))


def _identity(record):
    """What makes two cases the same test: design, simulator and the case without its label."""
    case = dict(record["case"])
    case.pop("label", None)
    return json.dumps([record["design"], record["sim"], case], sort_keys=True)


def _slug(text):
    words = re.findall(r"[a-z0-9]+", text.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > SLUG_LENGTH:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug or "case"


def _size_tag(record, case):
    """'7discs', '3legal', '5plies': how big the case is, in the shrinker's terms."""
    from tb.host.shrink import ShrinkError, reduction_for

    try:
        reduction = reduction_for(record["block"], case)
    except ShrinkError:
        return ""
    return f"-{reduction.size(case)}{reduction.short}"


def corpus_name(record, case, why):
    """A file name that says what the case is about: design, the bug, its size, a content hash."""
    digest = hashlib.sha256(_identity(record).encode()).hexdigest()[:8]
    return f"{record['design']}-{record['sim']}-{_slug(why)}{_size_tag(record, case)}-{digest}.json"


def add(case_path, why, folder=None):
    """Copy case file ``case_path`` into the corpus with ``why``; return (path, added). A case
    already in the corpus (same design, simulator and case) is not added twice."""
    record, case = read_case_file(case_path)
    folder = Path(folder or CORPUS)
    for existing in corpus_files(folder):
        try:
            if _identity(json.loads(existing.read_text())) == _identity(record):
                return existing, False
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a malformed corpus file is the corpus test's to report
    entry = {**record, "why": why, "added": date.today().isoformat()}
    return write_case_file(folder / corpus_name(record, case, why), entry), True


def check_corpus_case(path, rtl_root=None):
    """Replay one corpus case on the simulator it names; raise CaseFileError when the file is
    unusable, CorpusRegression when the block disagrees with the golden model again."""
    from tb.host.runner import BUILD, exclusive_lock, run_case_record

    path = Path(path)
    record, _ = read_case_file(path)
    # One build directory per design and simulator for every corpus case (a build per case would
    # cost a compile each); the lock keeps parallel pytest workers out of each other's way.
    with exclusive_lock(BUILD / "sim" / f"corpus-{record['design']}-{record['sim']}.lock"):
        outcome = run_case_record(record, f"corpus-{path.name}", "corpus", rtl_root=rtl_root)
    if outcome.passed:
        return outcome
    head = f"corpus case {path.name} fails again on {record['sim']} (why it is in the corpus: " \
           f"{record.get('why', 'not recorded')})"
    report = outcome.result.get("failure") or f"no comparison was made; log:\n{outcome.log_excerpt(3000)}"
    raise CorpusRegression(f"{head}\n{report}\ncorpus file: {path}")

