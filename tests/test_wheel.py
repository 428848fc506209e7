"""The project as an installable wheel: built from a copy of the source, installed into a fresh
venv, it carries every module and every data file the code reads at run time (the opening book,
the balanced openings of gamechip match, the regression corpus, the mutation waivers), and its
``gamechip`` command runs from there.

The fresh venv reaches the dependencies through a .pth file naming this interpreter's
site-packages; the editable install of the project in there stays inactive (a .pth file inside
a directory added by a .pth file is not processed), so ``gamechip`` is the installed one: this is the install with every extra (the regression's
venv has them all, scripts/setup.sh installs .[all]).

The core install (issue 48): the same wheel in a fresh venv that reaches only the core's
dependencies (pyproject.toml's dependencies and theirs, read from the wheel's metadata, linked
from this venv: no download, a few seconds) runs the golden model and the golden commands, and
refuses one command of each extra in one line naming its ``pip install``. A real install from
PyPI measures the sizes in docs/setup.md (its command there)."""

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from gamechip.installation import EXTRAS

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("golden", "rtl", "tb", "gamechip")
# what the wheel must carry: every module and every file the code reads at run time
SHIPPED = ("*.py", "*.json", "*.tsv", "*.toml", "*.lpf", "*.sv", "*.txt")


def _copy_source(target):
    """The top-level files and the packages, without caches: the build leaves this checkout alone."""
    target.mkdir()
    for path in ROOT.iterdir():
        if path.is_file():
            shutil.copy2(path, target / path.name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _can_build_here():
    """Whether this interpreter's setuptools can write a wheel by itself (built in since 70.1,
    through the 'wheel' package before): then the build needs no download."""
    return bool(importlib.util.find_spec("wheel")) or bool(importlib.util.find_spec("setuptools.command.bdist_wheel"))


def _shipped_files(folder):
    return {str(path.relative_to(folder)) for package in PACKAGES for pattern in SHIPPED
            for path in (folder / package).rglob(pattern) if "__pycache__" not in path.parts}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The project's wheel, built once from a copy of the source."""
    folder = tmp_path_factory.mktemp("wheel")
    source, wheels = folder / "source", folder / "wheels"
    _copy_source(source)
    isolation = ["--no-build-isolation"] if _can_build_here() else []
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", str(source),
                            "-w", str(wheels)], cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    (built,) = wheels.glob("gamechip-*.whl")
    return built


def _installed(wheel, env_dir, dependencies):
    """A fresh venv in ``env_dir`` with ``wheel`` alone, reaching the folder ``dependencies``
    through a .pth file; its site-packages and a runner of commands there."""
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dependencies.pth").write_text(f"{dependencies}\n")
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONPATH" and not key.startswith("GAMECHIP_")}

    def run(*command):
        command = [str(env_dir / "bin" / command[0]) if command[0] in ("python", "gamechip") else command[0],
                   *command[1:]]
        return subprocess.run(command, cwd=env_dir.parent, env=env, capture_output=True, text=True, timeout=120)
    return site, run


def test_wheel_installs_and_runs(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    site, run = _installed(wheel, env_dir, sysconfig.get_paths()["purelib"])
    python = env_dir / "bin" / "python"

    missing = _shipped_files(ROOT) - _shipped_files(site)
    assert not missing, f"not in the wheel: {sorted(missing)}"

    where = run(str(python), "-c", "import gamechip, golden, tb; print(gamechip.__file__, golden.__file__, tb.__file__)")
    assert where.returncode == 0, where.stderr
    assert all(Path(path).is_relative_to(site) for path in where.stdout.split()), where.stdout

    extras = run(str(python), "-c", "from gamechip.installation import EXTRAS, missing_modules; "
                                    "print(sum((missing_modules(extra) for extra in EXTRAS), []))")
    assert extras.returncode == 0 and extras.stdout == "[]\n", extras.stdout + extras.stderr   # [all]

    gamechip = str(env_dir / "bin" / "gamechip")
    help_run = run(gamechip, "--help")
    assert help_run.returncode == 0 and "usage: gamechip" in help_run.stdout, help_run.stderr
    book = run(gamechip, "book", "--moves", "f5d6c3")  # the opening book, golden/openings.tsv
    assert book.returncode == 0, book.stderr
    assert book.stdout == "game: f5d6c3\ngolden book: D3\n"  # the tiger
    corpus = run(gamechip, "corpus", "list")  # the regression corpus, tb/cases/
    assert corpus.returncode == 0, corpus.stderr
    cases = sorted(path.name for path in (ROOT / "tb" / "cases").glob("*.json"))
    assert corpus.stdout.splitlines()[-1] == f"{len(cases)} cases in {site / 'tb' / 'cases'}", corpus.stdout


def _core_distributions(wheel):
    """The distributions of the wheel's core requirements and theirs, as this venv has them."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    pending = [Requirement(line.split(":", 1)[1].strip()) for line in metadata.splitlines()
               if line.startswith("Requires-Dist:")]
    found = {}
    while pending:
        requirement = pending.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
            continue   # an extra's, or another platform's
        name = requirement.name.lower().replace("_", "-")
        if name not in found:
            found[name] = importlib.metadata.distribution(name)
            pending += [Requirement(r) for r in found[name].requires or []]
    return found


# one command of each extra that has a command (docs and train have none): refused in one line
REFUSED = {"fpga": ["area"], "coverage": ["coverage"], "cluster": ["parallel"],
           "board": ["play", "--port", "socket://127.0.0.1:9", "--budget", "1k"]}


def _runs_as_the_core(site, run):
    """The core install in ``site``: no optional package, the golden model and the golden commands
    run, every parser builds, and one command of each extra is refused in one line."""
    optional = sorted(module for modules in EXTRAS.values() for module in modules)
    importable = run("python", "-c", f"import importlib.util; print([m for m in {optional} if importlib.util.find_spec(m)])")
    assert importable.returncode == 0 and importable.stdout == "[]\n", importable.stdout + importable.stderr
    golden = run("python", "-c", "import golden.board, golden.search, gamechip; print(golden.board.__file__)")
    assert golden.returncode == 0 and Path(golden.stdout.strip()).is_relative_to(site), golden.stdout + golden.stderr

    show = run("gamechip", "show")
    assert show.returncode == 0 and "legal" in show.stdout, show.stdout + show.stderr
    search = run("gamechip", "search", "--depth", "4")
    assert search.returncode == 0 and "golden" in search.stdout, search.stdout + search.stderr
    parsers = run("python", "-c", "from gamechip.cli import COMMANDS, build_parser\n"
                                  "print(all(name in build_parser().format_help() for name in COMMANDS))\n"
                                  "for name in COMMANDS: build_parser(name)")
    assert parsers.returncode == 0 and parsers.stdout == "True\n", parsers.stdout + parsers.stderr
    for extra, argv in REFUSED.items():
        refused = run("gamechip", *argv)
        assert refused.returncode == 2 and refused.stdout == "", (argv, refused.stdout + refused.stderr)
        (line,) = refused.stderr.splitlines()
        assert line.startswith(f"gamechip {argv[0]}: error: ") and line.endswith(f'pip install "gamechip[{extra}]"'), line


def test_core_wheel_runs_without_extras(wheel, tmp_path):
    core = tmp_path / "core"   # the core's dependencies, linked from this venv's site-packages
    core.mkdir()
    here = Path(sysconfig.get_paths()["purelib"])
    for distribution in _core_distributions(wheel).values():
        for top in {file.parts[0] for file in distribution.files if file.parts[0] != ".."}:
            if (here / top).exists() and not (core / top).exists():
                (core / top).symlink_to(here / top)
    site, run = _installed(wheel, tmp_path / "venv", core)
    _runs_as_the_core(site, run)


@pytest.mark.full
def test_core_wheel_from_the_index(wheel, tmp_path):
    """The core as pip resolves it from the package index (about 35 s and 170 MB, the network)."""
    env_dir = tmp_path / "venv"
    site, run = _installed(wheel, env_dir, tmp_path / "nothing")   # the wheel alone, then its core's dependencies
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install",
                              "-q", str(wheel)], capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stdout + install.stderr
    _runs_as_the_core(site, run)
