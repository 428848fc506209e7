"""The documentation site builds, and the specification it holds is the one the tree cites.

``make docs``'s Sphinx build of docs/, warnings as errors: a broken cross-reference, a page left out
of every toctree, a toctree naming a missing page or a golden docstring autodoc cannot parse fails
the regression here, with Sphinx's own warning lines.

The project's specification is docs/spec.md (the chess chip: docs/spec-chess.md), sections
``§0``..``§12`` (``§1``..``§6``) under stable labels ``(spec-N)=`` (``(spec-chess-N)=``). Code,
help texts, test plans and docs cite it by section; every cited section must exist, and nothing
in the repository may cite a specification or a paper kept outside it.
"""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def sphinx_build_command(out: Path, doctrees: Path) -> list[str]:
    """The build ``make docs`` runs, into ``out`` (HTML) and ``doctrees`` (Sphinx's cache)."""
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
            "-d", str(doctrees), str(DOCS), str(out)]


def test_the_documentation_site_builds_without_a_warning(tmp_path):
    for module in ("sphinx", "myst_parser"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed in {sys.prefix}: run make setup", pytrace=False)
    out = tmp_path / "html"
    run = subprocess.run(sphinx_build_command(out, tmp_path / "doctrees"), cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"sphinx-build failed (exit status {run.returncode}):\n{run.stdout}{run.stderr}"
    assert (out / "index.html").is_file()
    assert (out / "api" / "golden.html").is_file()


# A reference to something outside the repository: the specification files and source papers the
# project once cited from a shared directory, or any path on the machine the project was built on.
OUTSIDE = re.compile(r"\bSPEC(?:-chess)?\b|\.\./shared\b|\bshared/(?:seeds|data)\b|\bseeds/\w+\.txt\b|/work/")
SPEC_PAGES = {"spec.md": "spec", "spec-chess.md": "spec-chess"}
SECTION = r"(?:§|\\u00a7)"
# "docs/spec.md §7", "docs/spec.md §0-§3", "docs/spec.md §4, §7 and §10" (\u00a7 in JSON text).
CITATION = re.compile(r"docs/(spec(?:-chess)?)\.md((?:(?:\s|,|and|-|–)*" + SECTION + r"\d+)*)")
# A MyST link to a section: [spec §8](#spec-8), [spec-chess §2–§5](#spec-chess-2).
SECTION_LINK = re.compile(r"\[([^\]]*)\]\(#(spec(?:-chess)?)-(\d+)\)")


def tracked_text_files():
    """(path, text) of every file git tracks, binary ones left out."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, names.decode().split("\0")):
        data = (ROOT / name).read_bytes() if (ROOT / name).is_file() else b""
        if b"\0" not in data:
            yield name, data.decode("utf-8", errors="replace")


def spec_sections(page):
    """The section numbers of docs/<page>: each label ``(prefix-N)=`` above a heading ``## §N ...``."""
    prefix = SPEC_PAGES[page]
    assert (DOCS / page).is_file(), f"docs/{page} is missing: the tree cites it"
    text = (DOCS / page).read_text(encoding="utf-8")
    pairs = re.findall(r"^\(" + prefix + r"-(\d+)\)=\n## §(\d+) ", text, flags=re.M)
    labels = re.findall(r"^\(" + prefix + r"-(\d+)\)=", text, flags=re.M)
    assert len(pairs) == len(labels), f"docs/{page}: a label ({prefix}-N)= not directly above its heading ## §N"
    for label, heading in pairs:
        assert label == heading, f"docs/{page}: label ({prefix}-{label})= above the heading of §{heading}"
    return {int(n) for n, _ in pairs}


def test_the_specification_pages_number_their_sections_without_gaps():
    assert spec_sections("spec.md") == set(range(14)), "docs/spec.md must hold §0..§13"
    assert spec_sections("spec-chess.md") == set(range(1, 7)), "docs/spec-chess.md must hold §1..§6"


def test_no_tracked_file_cites_a_specification_or_paper_outside_the_repository():
    this_file = Path(__file__).resolve().relative_to(ROOT).as_posix()
    found = [f"{name}:{text.count(chr(10), 0, hit.start()) + 1}: {hit.group()!r}"
             for name, text in tracked_text_files() if name != this_file
             for hit in OUTSIDE.finditer(text)]
    assert not found, ("references to files outside the repository (cite docs/spec.md §N, "
                       "docs/spec-chess.md §N or docs/sources.md instead):\n" + "\n".join(found))


def test_every_cited_section_of_the_specification_exists():
    sections = {prefix: spec_sections(page) for page, prefix in SPEC_PAGES.items()}
    cited, wrong = 0, []
    for name, text in tracked_text_files():
        for hit in CITATION.finditer(text):
            for number in re.findall(SECTION + r"(\d+)", hit.group(2)):
                cited += 1
                if int(number) not in sections[hit.group(1)]:
                    wrong.append(f"{name}: docs/{hit.group(1)}.md §{number}")
        if name.startswith("docs/") and name.endswith(".md"):
            for link in SECTION_LINK.finditer(text):
                text_numbers = re.findall(r"§(\d+)", link.group(1))
                if int(link.group(3)) not in sections[link.group(2)] or \
                        (text_numbers and text_numbers[0] != link.group(3)):
                    wrong.append(f"{name}: [{link.group(1)}](#{link.group(2)}-{link.group(3)})")
    assert cited > 100, f"only {cited} citations of docs/spec.md / docs/spec-chess.md found: is the pattern stale?"
    assert not wrong, "citations of sections that do not exist (or links to the wrong one):\n" + "\n".join(wrong)


def add_a_block_section() -> str:
    text = (DOCS / "layout.md").read_text()
    return text[text.index("### Add a block"):text.index("### Debug a fuzz failure")]


def test_add_a_block_names_every_file_the_regression_requires_of_a_block():
    """The steps table names the test plan and its sampler, which the regression refuses a block without."""
    section = add_a_block_section()
    for required in ("tb/testplans/<block>.toml", "tb/checks/coverage_samplers.py", "SAMPLERS",
                     "tb/blocks.py", "rtl/designs.py", "tb/test_<block>.py", "docs/testplans/<block>.md"):
        assert required in section, f"docs/layout.md's 'Add a block' does not name {required}"


def test_the_worked_example_names_files_and_definitions_that_exist():
    """Every path of the worked example exists and every name written as a call is defined in the tree."""
    example = add_a_block_section().split("#### A worked example")[1]
    paths = re.findall(r"`((?:golden|rtl|tb|tests|docs)/[^`<>]+?\.(?:py|toml|md|json))`", example)
    assert paths, "the worked example names no file"
    for path in paths:
        matches = list(ROOT.glob(path.replace("…", "*")))
        assert matches, f"docs/layout.md's worked example names {path}, which does not exist"
    names = set(re.findall(r"`([A-Za-z_]\w*)\(", example)) | set(re.findall(r"`(\w*(?:Check|_ports))`", example))
    assert names, "the worked example names no definition"
    source = "\n".join(p.read_text() for package in ("golden", "rtl", "tb")
                       for p in (ROOT / package).rglob("*.py"))
    for name in sorted(names):
        assert re.search(rf"^\s*(?:def|class) {name}\b", source, re.M), \
            f"docs/layout.md's worked example names {name}, which nothing in golden/, rtl/ or tb/ defines"
