"""``gamechip openings``: the balanced opening set chosen by a judge (docs/nboard.md, "The
opening set"); the candidates, the choice and the file's text are golden.contest.balanced_openings'.

The judge is an NBoard engine: by default the project's own, the golden search with the pattern
evaluator (``python -m golden.contest.pattern_judge --depth D``, run on the golden interpreter,
PyPy when installed), or any engine command (``--judge "CMD"``, the form ``gamechip match
--engine`` takes: e.g. the Zebra adapter at a level). One engine process judges every class:
``set game`` of the class's game, ``go``, and the EVAL of its ``=== MOVE/EVAL/TIME`` answer is
the class's value from the side to move.

Every value is appended to a values file as it comes (``--values``, default one file per judge
and number of moves under runs/openings/), which a later run of the same judge reads back: a judge
that crashes, hangs past ``--time`` or answers garbage stops the command with one line and exit
status 3, and the same command resumes where it stopped. The openings are written only when every
class is judged, whole or not at all.
"""

import hashlib
import os
import shlex
import sys
import time
from pathlib import Path

from golden.board import parse_game_record
from golden.contest.balanced_openings import nearest_zero, opening_classes, openings_text
from golden.contest.ggf import format_ggf
from golden.contest.pattern_judge import judge_name
from gamechip.games.match import START_SECONDS, Engine, EngineFailed, EngineProcess

EXIT_BROKEN_JUDGE = 3
DEFAULT_MOVE_SECONDS = 60.0
PROGRESS_SECONDS = 5.0   # a progress line at most this often
VALUES_DIR = Path("runs/openings")


class JudgeFailed(Exception):
    """The judge crashed, answered nothing in time, or answered garbage: one line."""


def default_judge_command(depth):
    """The project's own judge: the golden pattern search on the golden interpreter."""
    from tb.checks.search import golden_python

    return f"{shlex.quote(golden_python())} -m golden.contest.pattern_judge --depth {depth}"


class NBoardJudge:
    """One NBoard engine process that values positions: ``value(moves)`` the EVAL of its ``go``
    for the game ``moves`` from the standard start."""

    def __init__(self, command, depth, move_seconds, log_path, environment=None):
        self.move_seconds = move_seconds
        log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.process = EngineProcess(Engine("judge", command), log_path, environment)
        except EngineFailed as error:
            raise JudgeFailed(str(error))
        try:
            self.process.send("nboard 2")
            self.process.send(f"set depth {depth}")
            self.process.send("ping 1")
            self.process.expect("pong", START_SECONDS, "nboard 2 and ping 1")
        except EngineFailed as error:
            self.close()
            raise JudgeFailed(str(error))

    def value(self, moves):
        try:
            self.process.send(f"set game {format_ggf(moves)}")
            self.process.send("go")
            line = self.process.expect("===", self.move_seconds, "go")
        except EngineFailed as error:
            raise JudgeFailed(str(error))
        evaluation = line[3:].strip().partition("/")[2].partition("/")[0].strip()
        try:
            value = float(evaluation)
        except ValueError:
            raise JudgeFailed(f"judge answered {line!r}: no number for EVAL (=== MOVE/EVAL/TIME)")
        if value != value or value in (float("inf"), float("-inf")):
            raise JudgeFailed(f"judge answered {line!r}: EVAL is no finite number")
        return value

    def close(self):
        self.process.close()


class ValuesOfAnotherJudge(Exception):
    """A values file made by another judge or for another number of moves: one line."""


def values_path(judge, plies):
    """The default values file of ``judge`` (its name) at ``plies`` moves."""
    digest = hashlib.sha256(f"{judge}\n{plies}".encode()).hexdigest()[:12]
    return VALUES_DIR / f"values-{plies}-{digest}.txt"


def read_values(path, judge, plies):
    """The values a run of the same judge and number of moves kept in ``path``: {record: value};
    a file of another judge is refused (ValuesOfAnotherJudge)."""
    if not path.exists():
        return {}
    text = path.read_text()
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()   # a line cut short when a run stopped (it may still read as a wrong number): judged again
    expected = f"# judge: {judge}; moves: {plies}"
    if not lines or lines[0] != expected:
        raise ValuesOfAnotherJudge(f"{path} holds the values of another judge "
                                   f"({lines[0][2:] if lines else 'empty'}): give another --values")
    values = {}
    for line in lines[1:]:
        record, _, value = line.partition(" ")
        try:
            values[record] = float(value)   # a record judged again after a cut line: the later value
        except ValueError:
            continue
    return values


def judge_classes(classes, judge_factory, path, judge, plies, progress=print):
    """{record: value} of every class, values kept in ``path`` reused, new ones appended there as
    they come. JudgeFailed names the class the judge failed on."""
    values = read_values(path, judge, plies)
    todo = [(record, position) for record, position in classes if record not in values]
    progress(f"openings: {len(classes)} classes of {plies} moves; {len(classes) - len(todo)} values kept in {path}, "
             f"{len(todo)} to judge by {judge}")
    if not todo:
        return values
    path.parent.mkdir(parents=True, exist_ok=True)
    kept_text = path.read_text() if path.exists() else ""
    engine = judge_factory()
    started = shown = time.monotonic()
    try:
        with open(path, "a") as kept:
            if not kept_text:
                kept.write(f"# judge: {judge}; moves: {plies}\n")
            elif not kept_text.endswith("\n"):
                kept.write("\n")   # a line cut short when a run stopped: the next value on a line of its own
            for number, (record, _) in enumerate(todo, 1):
                try:
                    value = engine.value(parse_game_record(record))
                except JudgeFailed as error:
                    raise JudgeFailed(f"{error} (class {number} of {len(todo)} to judge, {record})")
                values[record] = value
                kept.write(f"{record} {value:g}\n")
                kept.flush()
                if time.monotonic() - shown >= PROGRESS_SECONDS or number == len(todo):
                    shown = time.monotonic()
                    progress(f"openings: {number}/{len(todo)} judged, {shown - started:.0f} s")
    finally:
        engine.close()
    return values


def make_openings(plies, count, depth, judge_command, out, values_file, move_seconds, command_text,
                  progress=print):
    """Judge every class, write the ``count`` openings nearest 0 to ``out`` (a path, or None for
    stdout); the exit status (0, or 3 when the judge broke)."""
    if judge_command is None:
        judge, command, environment = judge_name(depth), default_judge_command(depth), {"PYTHONPATH": checkout_root()}
    else:
        judge, command, environment = f"the NBoard engine `{judge_command}`, told set depth {depth}", judge_command, {}
    classes = opening_classes(plies)
    path = Path(values_file) if values_file else values_path(judge, plies)
    log = path.with_suffix(".log")
    try:
        values = judge_classes(classes, lambda: NBoardJudge(command, depth, move_seconds, log, environment),
                               path, judge, plies, progress)
    except JudgeFailed as error:
        print(f"gamechip openings: {error}; the values judged so far are kept in {path} (the same command "
              f"resumes); the judge's stderr: {log}", file=sys.stderr)
        return EXIT_BROKEN_JUDGE
    chosen = nearest_zero([(record, values[record]) for record, _ in classes], count)
    text = openings_text(chosen, plies, classes, judge, command_text)
    if out is None:
        sys.stdout.write(text)
    else:
        out = Path(out)
        out.with_name(out.name + ".tmp").write_text(text)
        os.replace(out.with_name(out.name + ".tmp"), out)
        progress(f"openings: {len(chosen)} openings written to {out}")
    return 0


def checkout_root():
    """The folder holding golden/ and gamechip/, for the default judge's PYTHONPATH."""
    return str(Path(__file__).resolve().parent.parent.parent)
