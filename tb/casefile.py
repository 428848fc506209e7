"""Case files: the JSON that tb/batch.py's ``save_failure`` writes for a failing case (block,
design, simulator, seed, case, expected, actual), read back by the shrinker, the corpus and the
CLI. Reading checks every field it needs, so a bad file is one line naming the file and what is
wrong, never a traceback from deep inside a simulation.
"""

import json
import os
from pathlib import Path

from golden.board import BoardError
from golden.chess.encoding import ChessInputError


class CaseFileError(Exception):
    """A missing or malformed case file; the message names the file."""


def read_case_file(path):
    """(record, Case) of the case file at ``path``; raise CaseFileError when it is unusable."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except OSError as error:
        raise CaseFileError(f"cannot read case file {path}: {error.strerror or error}")
    except (ValueError, UnicodeDecodeError) as error:
        raise CaseFileError(f"case file {path} is not JSON: {error}")
    return record, parse_case_record(record, f"case file {path}")


def parse_case_record(record, source):
    """The Case of case-file data ``record``; CaseFileError (starting with ``source``) when a
    field it needs is missing or wrong."""
    from tb.batch import Case
    from tb.blocks import DESIGN_BLOCK, unknown
    from tb.runner import SIMULATORS

    if not isinstance(record, dict):
        raise CaseFileError(f"{source} holds a JSON {type(record).__name__}, not a case object")
    for field in ("block", "design", "sim", "seed", "case"):
        if field not in record:
            raise CaseFileError(f"{source} has no '{field}' field")
    if record["design"] not in DESIGN_BLOCK:
        raise CaseFileError(f"{source}: {unknown('design', record['design'], list(DESIGN_BLOCK))}")
    if DESIGN_BLOCK[record["design"]].name != record["block"]:
        raise CaseFileError(f"{source}: design '{record['design']}' belongs to block "
                            f"'{DESIGN_BLOCK[record['design']].name}', not '{record['block']}'")
    if record["sim"] not in SIMULATORS:
        raise CaseFileError(f"{source}: {unknown('simulator', record['sim'], SIMULATORS)}")
    if not isinstance(record["seed"], int) or isinstance(record["seed"], bool):
        raise CaseFileError(f"{source}: seed must be a whole number, got {record['seed']!r}")
    try:
        return Case.from_dict(record["case"])
    except KeyError as error:
        raise CaseFileError(f"{source}: the case has no {error} field")
    except (BoardError, ChessInputError, TypeError, AttributeError) as error:
        raise CaseFileError(f"{source}: bad case: {error}")


def write_case_file(path, record):
    """Write ``record`` whole or not at all (a reader never sees half a case)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    os.replace(tmp, path)
    return path
