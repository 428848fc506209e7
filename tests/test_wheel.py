"""The project as an installable wheel: built from a copy of the source, installed into a fresh
venv, it carries every module and every data file the code reads at run time (the opening book,
the balanced openings of gamechip match, the regression corpus, the mutation waivers), and its
``gamechip`` command runs from there.

The fresh venv reaches the dependencies through a .pth file naming this interpreter's
site-packages; the editable install of the project in there stays inactive (a .pth file inside
a directory added by a .pth file is not processed), so ``gamechip`` is the installed one."""

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

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


def test_wheel_installs_and_runs(tmp_path):
    source, wheels = tmp_path / "source", tmp_path / "wheels"
    _copy_source(source)
    isolation = ["--no-build-isolation"] if _can_build_here() else []
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", str(source),
                            "-w", str(wheels)], cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = wheels.glob("gamechip-*.whl")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    missing = _shipped_files(ROOT) - _shipped_files(site)
    assert not missing, f"not in the wheel: {sorted(missing)}"

    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONPATH" and not key.startswith("GAMECHIP_")}

    def run(*command):
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    where = run(str(python), "-c", "import gamechip, golden, tb; print(gamechip.__file__, golden.__file__, tb.__file__)")
    assert where.returncode == 0, where.stderr
    assert all(Path(path).is_relative_to(site) for path in where.stdout.split()), where.stdout

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
