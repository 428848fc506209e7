"""README.md's shell examples run, and README.md stays a newcomer's page.

Every fenced ```` ```console ```` block of README.md is executed, as python-chess runs its README
as a doctest: a line starting with ``$ `` is a command (run by bash from the project's root with
this interpreter's ``gamechip`` first on PATH and a fresh ``GAMECHIP_BUILD``), and the lines after
it, up to the next command, are an excerpt of what it prints (stdout and stderr together). The
excerpt's lines must appear in the output in the same order, other lines may come between them.
Placeholder: ``...`` in an excerpt line stands for any text (timings, digests, paths), and a line
that is only ``...`` marks left-out lines. Runs of spaces count as one space, so columns may
shift. Commands must exit with status 0, and each must be quick (golden-only commands and tiny
Icarus runs): a ```` ```console ```` block is part of the regression. Examples that are not run go
in ```` ```sh ```` (commands) or ```` ```text ```` (output) blocks.
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
PLACEHOLDER = "..."
COMMAND_TIMEOUT_S = 120


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
    """(command, excerpt lines) for every ``$ `` line of the console blocks, in order."""
    examples = []
    for block in fenced_blocks(text, "console"):
        for line in block:
            if line.startswith("$ "):
                examples.append((line[2:].strip(), []))
            elif examples and line.strip():
                examples[-1][1].append(line)
    return examples


def without_code_blocks(text):
    """The prose of a Markdown text: every fenced block left out."""
    return re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.S | re.M)


def squeezed(line):
    return " ".join(line.split())


def excerpt_line_pattern(line):
    parts = squeezed(line).split(PLACEHOLDER)
    return re.compile(".*".join(re.escape(part) for part in parts))


def first_line_not_found(excerpt, output):
    """The first excerpt line that does not match an output line after the previous match, or None."""
    actual = [squeezed(line) for line in output.splitlines()]
    position = 0
    for line in excerpt:
        if squeezed(line) == PLACEHOLDER:
            continue
        pattern = excerpt_line_pattern(line)
        while position < len(actual) and not pattern.fullmatch(actual[position]):
            position += 1
        if position == len(actual):
            return line
        position += 1
    return None


EXAMPLES = console_examples(readme_text())


def test_readme_has_the_quick_start_examples():
    commands = [command for command, _ in EXAMPLES]
    assert any(command.startswith("gamechip fuzz ") for command in commands), commands
    assert any(command.startswith("gamechip replay ") and "--waves" in command for command in commands), commands
    assert all(excerpt for _, excerpt in EXAMPLES), "every console command shows an excerpt of its output"


@pytest.mark.parametrize("command, excerpt", EXAMPLES, ids=[command for command, _ in EXAMPLES])
def test_readme_console_example(command, excerpt, tmp_path):
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "GAMECHIP_BUILD": str(tmp_path / "build"), "PYTHONUNBUFFERED": "1"}
    run = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT_S)
    assert run.returncode == 0, f"$ {command}\nexit status {run.returncode}\n{run.stdout}"
    missing = first_line_not_found(excerpt, run.stdout)
    assert missing is None, (f"README's excerpt of `{command}` is not in its output: the line\n"
                             f"  {missing}\nwas not found (in order) in:\n{run.stdout}")


def test_the_excerpt_matcher_takes_placeholders_and_order():
    output = "RTL under test: /x/rtl (digest 0a1b, the project's own)\nother\nmove_checker   icarus   200  945  3.7s  1\n"
    assert first_line_not_found(["RTL under test: .../rtl (digest ..., the project's own)", "...",
                                 "move_checker icarus 200 ... 1"], output) is None
    assert first_line_not_found(["move_checker icarus 200 ... 1", "other"], output) == "other"
    assert first_line_not_found(["RTL under test"], output) == "RTL under test"


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
