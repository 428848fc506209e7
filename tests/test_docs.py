"""The documentation site builds: ``make docs``'s Sphinx build of docs/, warnings as errors.

A broken cross-reference, a page left out of every toctree, a toctree naming a missing page or a
golden docstring autodoc cannot parse fails the regression here, with Sphinx's own warning lines.
"""

import importlib.util
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
