"""What several commands share once their arguments are parsed: the usage error, checks of
simulators, blocks, output paths and case files, the line that names the RTL under test, and
one case asked of a simulated block."""

import sys
import tempfile
from pathlib import Path


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def check_sim(sim):
    """Refuse an unknown or missing simulator, and GAMECHIP_* settings a simulation cannot use."""
    from tb.host.runner import SimulatorMissing, check_settings, check_simulator

    try:
        check_simulator(sim)
    except SimulatorMissing as missing:
        raise UsageError(str(missing))
    check_settings()


_announced = []


def announce_rtl(root=None, note=None):
    """Say once which RTL this run tests (folder and digest): a run on the wrong RTL must be
    visible, never a quiet PASS about another design. Called when the work starts, after every
    input was checked (bad input stays one line)."""
    from tb.host.runner import describe_rtl

    line = describe_rtl(root)
    if line not in _announced:
        _announced.append(line)
        print(line + (f"; {note}" if note else ""), file=sys.stderr)


def case_rtl(record):
    """The RTL root a saved case replays on (the one it failed on), announced with a note when
    GAMECHIP_RTL_ROOT overrides it or the RTL has changed since."""
    from tb.host.runner import replay_rtl_root

    root, note = replay_rtl_root(record)
    announce_rtl(root, note)
    return root


def blocks_named(names, also=()):
    """The blocks of tb/blocks.py that ``names`` (a --blocks list) asks for; all for none or 'all'.
    ``also``: the other names the command takes, which an unknown name's error lists too."""
    from tb.blocks import BLOCKS, CHECKED_ELSEWHERE, unknown

    if not names or names == ["all"]:
        return list(BLOCKS.values())
    for name in names:
        if name in CHECKED_ELSEWHERE:
            raise UsageError(f"{name} is not driven by random positions; it is checked by {CHECKED_ELSEWHERE[name]}")
        if name not in BLOCKS:
            raise UsageError(unknown("block", name, [*BLOCKS, *also, "all"]))
    return [BLOCKS[n] for n in names]


def simulate_one(design, sim, case):
    """The simulated block's answer for one case: (report, matches golden)."""
    from tb.host.runner import ask

    check_sim(sim)
    announce_rtl()
    outcome = ask(design, sim, case)
    if outcome.actual is None:
        raise UsageError(f"{design} on {sim} gave no answer; log: {outcome.sim_dir / 'gamechip.log'}")
    return outcome.actual, outcome.passed


def read_case(path):
    """The record and case of a saved case file; a damaged one is a usage error."""
    from tb.host.casefile import CaseFileError, read_case_file

    try:
        return read_case_file(path)
    except CaseFileError as error:
        raise UsageError(str(error))


def write_case(path, record):
    from tb.host.casefile import write_case_file

    try:
        return write_case_file(path, record)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}")


def _unwritable(folder):
    """Why results cannot be written into ``folder`` (made if missing), or None."""
    if folder.exists() and not folder.is_dir():
        return "exists and is not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        return f"cannot write there: {error.strerror or error}"
    return None


def output_dir(path, option):
    """``path`` as a folder to write results into, made now: a bad one is one line before the
    work starts, not a traceback after hours of it."""
    problem = _unwritable(Path(path))
    if problem:
        raise UsageError(f"{option} {path}: {problem}")
    return Path(path)


def output_file(path, option, default_name):
    """``path`` as a results file to write later, checked now (a folder gets ``default_name``
    inside it)."""
    target = Path(path)
    if target.is_dir() or str(path).endswith("/"):
        return output_dir(target, option) / default_name
    problem = _unwritable(target.parent)
    if problem:
        raise UsageError(f"{option} {path}: its folder {target.parent}: {problem}")
    if target.exists() and not target.is_file():
        raise UsageError(f"{option} {path}: exists and is not a regular file")
    return target
