"""README.md's shell examples run, and README.md stays a newcomer's page.

Every fenced ```` ```console ```` block of README.md is executed, as python-chess runs its README
as a doctest: a line starting with ``$ `` is a command, and the lines after it, up to the next
command, are what it prints (stdout and stderr together). The commands of a block run in order
(a block may plant a bug, fuzz it and replay what the fuzz run found), by bash, with this
interpreter's ``gamechip`` first on PATH, from a scratch folder that looks like the project's
root (its entries linked there) with a ``build/`` of its own (``GAMECHIP_BUILD``): relative paths
such as ``tb/cases/…`` and ``build/planted/…`` work as they do for a reader, and nothing lands in
the project. All blocks share that scratch folder, so a simulator build is made once.

An excerpt is the whole output, line by line: ``...`` or ``…`` within a line stands for any text
(timings, digests, paths), and a line that is only ``...`` (or ``…``) stands for any number of
lines, so an excerpt says where it leaves lines out. Runs of spaces count as one space, so
columns may shift. A command exits with status 0 unless it ends with a comment ``# exit status
N``. Each must be quick (golden-only commands, tiny Icarus runs and campaigns): a console block
is part of the regression. Examples that are not run go in ```` ```sh ```` (commands) or
```` ```text ```` (output) blocks.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 250
PLACEHOLDERS = ("...", "…")
EXIT_STATUS = re.compile(r"^(?P<command>.*?)\s*#\s*exit status (?P<status>\d+)$")
COMMAND_TIMEOUT_S = 180
# entries of the project's root that the scratch folder does not link: what the commands write
NOT_LINKED = ("build", "runs", ".git")


def readme_text():
    return README.read_text(encoding="utf-8")


def fenced_blocks(text, language):
    """The bodies (lists of lines) of the fenced code blocks opened with ```language."""
    blocks, body = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if body is None:
            if stripped == f"```{language}":
                body = []
        elif stripped.startswith("```"):
            blocks.append(body)
            body = None
        else:
            body.append(line)
    return blocks


def console_examples(text):
    """(command, exit status, excerpt lines) for every ``$ `` line of the console blocks, in order."""
    return [example for block in console_blocks(text) for example in block]


def console_blocks(text):
    """The console blocks of ``text``, each a list of (command, exit status, excerpt lines)."""
    blocks = []
    for body in fenced_blocks(text, "console"):
        examples = []
        for line in body:
            if line.startswith("$ "):
                command = line[2:].strip()
                status = EXIT_STATUS.match(command)
                examples.append((status["command"], int(status["status"])) if status else (command, 0))
                examples[-1] += ([],)
            elif examples:
                examples[-1][2].append(line)
        for _, _, excerpt in examples:
            while excerpt and not excerpt[-1].strip():
                excerpt.pop()
        blocks.append(examples)
    return blocks


def without_code_blocks(text):
    """The prose of a Markdown text: every fenced block left out."""
    return re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.S | re.M)


def squeezed(line):
    return " ".join(line.split())


def is_gap(line):
    return squeezed(line) in PLACEHOLDERS


def excerpt_line_pattern(line):
    parts = re.split("|".join(re.escape(p) for p in PLACEHOLDERS), squeezed(line))
    return re.compile(".*".join(re.escape(part) for part in parts))


def first_line_not_found(excerpt, output):
    """The first excerpt line that the output does not have where the excerpt puts it (the lines
    before it matched, a gap line standing for any number of lines), '(end of the excerpt)' when
    the output goes on after an excerpt that does not end in a gap, or None: a match.

    The lines between gaps must match consecutive output lines; each such run is placed at its
    first match after the previous one (the first run at the top unless a gap leads, the last
    at the bottom unless a gap ends the excerpt)."""
    actual = [squeezed(line) for line in output.splitlines()]
    while actual and not actual[-1]:
        actual.pop()
    runs, run = [], []
    for line in excerpt:
        if is_gap(line):
            runs.append(run)
            run = []
        else:
            run.append((line, excerpt_line_pattern(line)))
    runs.append(run)   # runs[0] is anchored at the top, runs[-1] at the bottom; an empty one is a gap's edge

    def missed(run, at):   # the first line of ``run`` that actual[at:] does not have, or None
        for offset, (line, pattern) in enumerate(run):
            if at + offset >= len(actual) or not pattern.fullmatch(actual[at + offset]):
                return offset, line
        return None

    position = 0
    for number, run in enumerate(runs):
        last = number == len(runs) - 1
        if number == 0 or (last and run):
            at = position if number == 0 else len(actual) - len(run)
            miss = missed(run, at) if at >= position else (0, run[0][0])
            if miss is None and number == 0 and last and at + len(run) != len(actual):
                return "(end of the excerpt)"
            if miss is not None:
                if last and number > 0:   # the best place for a clearer message: where most of it matches
                    tries = [missed(run, start) for start in range(position, len(actual) + 1)]
                    miss = max(tries, key=lambda m: m[0])
                return miss[1]
            position = at + len(run)
            continue
        starts = [start for start in range(position, len(actual) - len(run) + 1) if missed(run, start) is None]
        if not starts:
            tries = [missed(run, start) for start in range(position, len(actual) + 1)]
            return max(tries, key=lambda m: m[0])[1]
        position = starts[0] + len(run)
    return None


BLOCKS = console_blocks(readme_text())
EXAMPLES = console_examples(readme_text())


def test_readme_has_the_quick_start_examples():
    commands = [command for command, _, _ in EXAMPLES]
    assert any(command.startswith("gamechip fuzz ") for command in commands), commands
    assert any(command.startswith("gamechip campaign ") for command in commands), commands
    assert any(command.startswith("gamechip plant ") for command in commands), commands
    assert any(command.startswith("gamechip replay ") and "--waves" in command for command in commands), commands
    assert all(excerpt for _, _, excerpt in EXAMPLES), "every console command shows an excerpt of its output"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder that looks like the project's root to a command, with a build folder of its own."""
    folder = tmp_path_factory.mktemp("readme")
    for entry in ROOT.iterdir():
        if entry.name not in NOT_LINKED:
            (folder / entry.name).symlink_to(entry)
    return folder


def block_marks(block):
    """The planted-bug walk-through (plant, fuzz, shrink, replay of a planted copy: about half this
    test's time) runs in make test-full; tests/test_plant.py and tests/test_cli.py hold the same steps
    in make test."""
    return [pytest.mark.full] if block[0][0].startswith("gamechip plant ") else []


@pytest.mark.parametrize("block", [pytest.param(block, marks=block_marks(block)) for block in BLOCKS],
                         ids=[block[0][0] for block in BLOCKS])
def test_readme_console_block(block, scratch):
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "GAMECHIP_BUILD": str(scratch / "build"), "PYTHONUNBUFFERED": "1"}
    for setting in ("GAMECHIP_RTL_ROOT", "GAMECHIP_CORPUS"):   # the README's commands run on the project's own
        env.pop(setting, None)
    for command, status, excerpt in block:
        run = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT_S)
        assert run.returncode == status, f"$ {command}\nexit status {run.returncode}, not {status}\n{run.stdout}"
        missing = first_line_not_found(excerpt, run.stdout)
        assert missing is None, (f"README's excerpt of `{command}` is not its output: the line\n  {missing}\n"
                                 f"is not where the excerpt puts it (lines left out need a '...' line) in:\n"
                                 f"{run.stdout}")


def test_the_excerpt_matcher_takes_placeholders_order_and_gaps():
    output = "RTL under test: /x/rtl (digest 0a1b, the project's own)\nother\nmove_checker   icarus   200  945  3.7s  1\n"
    assert first_line_not_found(["RTL under test: .../rtl (digest ..., the project's own)", "...",
                                 "move_checker icarus 200 ... 1"], output) is None
    assert first_line_not_found(["RTL under test: …/rtl (digest …)", "other", "…"], output) is None
    assert first_line_not_found(["...", "other", "..."], output) is None
    assert first_line_not_found(["move_checker icarus 200 ... 1", "other"], output) == "move_checker icarus 200 ... 1"
    assert first_line_not_found(["...", "move_checker icarus 200 ... 1", "other"], output) == "other"
    # lines left out without a gap line: the perft excerpt that showed 8200 alone
    perft = "  d3: 2,050  (1/4, 0.0 s)\n  c4: 2,050  (2/4, 0.0 s)\n8200\n"
    assert first_line_not_found(["8200"], perft) == "8200"
    assert first_line_not_found(["...", "8200"], perft) is None
    assert first_line_not_found(["d3: 2,050 ...", "...", "8200"], perft) is None
    assert first_line_not_found(["d3: 2,050 ..."], perft) == "(end of the excerpt)"
    assert first_line_not_found(["RTL under test...", "...", "move_checker icarus 201 ... 1", "..."],
                                output) == "move_checker icarus 201 ... 1"


def test_readme_is_at_most_250_lines():
    lines = readme_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; at most {MAX_LINES}: details go to docs/"


def test_readme_names_no_commit_hashes():
    hashes = re.findall(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", readme_text())
    assert not hashes, f"commit hashes or digests in README.md (history goes to CHANGELOG.md; use ... in excerpts): {hashes}"


def test_readme_has_no_before_and_now_tables():
    rows = [line for line in readme_text().splitlines()
            if line.lstrip().startswith("|") and re.search(r"\b(before|now)\b", line, re.I)]
    assert not rows, f"before/now tables in README.md (they go to CHANGELOG.md): {rows}"


def test_readme_has_no_issue_numbers_or_dated_runs():
    prose = without_code_blocks(readme_text())
    issues = re.findall(r"(?:#\d+|\bissues?\s+#?\d+)", prose, re.I)
    assert not issues, f"issue numbers in README.md: {issues}"
    dates = re.findall(r"\b\d{4}-\d{2}-\d{2}\b", prose)
    assert not dates, f"dated runs in README.md (they go to CHANGELOG.md): {dates}"
