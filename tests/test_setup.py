"""A copied or moved checkout runs its own code: scripts/setup.sh re-points a .venv made in
another folder (its console scripts and its editable install), and ``gamechip`` refuses in one
line to run from a venv that still names another folder.

The copy's .venv is made cheaply: bin/ and the project's own install files are copied (they name
the venv's folder), every other entry of site-packages is a symbolic link to this checkout's
(path-independent; a real copy is about 800 MB with the YoWASP wheels)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("golden", "rtl", "tb", "gamechip")
MARKER = "copied checkout's own gamechip"


def _copy_checkout(target):
    """The checkout's top-level files, scripts/ and packages, without caches; the copy's command
    line says MARKER in its --help (its first docstring line)."""
    target.mkdir()
    for path in ROOT.iterdir():
        if path.is_file():
            shutil.copy2(path, target / path.name)
    for folder in ("scripts", *PACKAGES):
        shutil.copytree(ROOT / folder, target / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    cli = target / "gamechip" / "cli" / "__init__.py"
    text = cli.read_text()
    cli.write_text(text.replace('"""', f'"""{MARKER}: ', 1))


def _own_install_file(name):
    """The files of the project's own (editable) install in site-packages, which name the checkout."""
    return name.startswith(("__editable__", "gamechip-")) or name == "__pycache__"


def _copy_venv(source, target):
    """The venv ``source`` as a copy would carry it (only what names its folder copied)."""
    target.mkdir()
    for name in ("pyvenv.cfg", ".gamechip-stamp"):
        shutil.copy2(source / name, target / name)
    shutil.copytree(source / "bin", target / "bin", symlinks=True)
    for name in ("include", "share", "lib64"):
        if (source / name).exists() or (source / name).is_symlink():
            os.symlink(os.readlink(source / name) if (source / name).is_symlink() else source / name, target / name)
    (site,) = (source / "lib").glob("python3*/site-packages")
    copy_site = target / site.relative_to(source)
    copy_site.mkdir(parents=True)
    for entry in site.iterdir():
        if _own_install_file(entry.name):
            if entry.is_dir():
                if entry.name != "__pycache__":
                    shutil.copytree(entry, copy_site / entry.name)
            else:
                shutil.copy2(entry, copy_site / entry.name)
        else:
            os.symlink(entry, copy_site / entry.name)


def _copied_checkout(tmp_path, name="copy"):
    venv = Path(sys.prefix)
    assert (venv / "pyvenv.cfg").is_file() and venv.parent == ROOT, f"run this test from {ROOT}/.venv, not {venv}"
    copy = tmp_path / name
    _copy_checkout(copy)
    _copy_venv(venv, copy / ".venv")
    return copy


def _env():
    return {**{key: value for key, value in os.environ.items() if key != "PYTHONPATH" and not key.startswith("GAMECHIP_")},
            "GAMECHIP_NO_APT": "1"}


def _run(folder, *command):
    return subprocess.run(command, cwd=folder, env=_env(), capture_output=True, text=True, timeout=300)


def _interpreter(script):
    """The Python a console script runs: its first line names it, or for a path too long or with
    a space (as pip writes it) the exec line of a /bin/sh header."""
    lines = script.read_text().splitlines()
    return lines[1].split('"')[1] if lines[0] == "#!/bin/sh" else lines[0].removeprefix("#!")


def test_setup_repoints_a_copied_venv(tmp_path):
    # a long folder name with a space: the scripts' first lines cannot name the copy's Python
    copy = _copied_checkout(tmp_path, "copied checkout " + "x" * 80)
    setup = _run(copy, "scripts/setup.sh")
    assert setup.returncode == 0, setup.stdout + setup.stderr

    where = _run(copy, str(copy / ".venv" / "bin" / "python"), "-c",
                 "import gamechip, golden, tb; print(gamechip.__file__, golden.__file__, tb.__file__, sep='\\n')")
    assert where.returncode == 0, where.stderr
    assert all(Path(path).is_relative_to(copy) for path in where.stdout.splitlines()), where.stdout
    assert "re-pointing it to" in setup.stderr, setup.stderr

    for script in ("gamechip", "pip", "pytest"):
        assert _interpreter(copy / ".venv" / "bin" / script) == str(copy / ".venv" / "bin" / "python"), script
    help_run = _run(copy, str(copy / ".venv" / "bin" / "gamechip"), "--help")
    assert help_run.returncode == 0 and MARKER in help_run.stdout, help_run.stdout + help_run.stderr
    show = _run(copy, str(copy / ".venv" / "bin" / "gamechip"), "show")
    assert show.returncode == 0 and "legal" in show.stdout, show.stdout + show.stderr

    again = _run(copy, "scripts/setup.sh")   # nothing left to re-point
    assert again.returncode == 0 and "re-pointing" not in again.stderr, again.stderr


def test_gamechip_refuses_a_venv_made_for_another_folder(tmp_path):
    copy = _copied_checkout(tmp_path)
    show = _run(copy, str(copy / ".venv" / "bin" / "gamechip"), "show")
    assert show.returncode == 2, show.stdout + show.stderr
    (line,) = show.stderr.splitlines()
    assert "another folder's venv" in line and f"run make setup in {copy}" in line, line
    assert show.stdout == ""
    # its Python is the copy's, its editable install still maps the packages to this checkout (run
    # from another folder: python -m puts the current folder first on the module path)
    module = _run(tmp_path, str(copy / ".venv" / "bin" / "python"), "-m", "gamechip", "show")
    assert module.returncode == 2, module.stdout + module.stderr
    (line,) = module.stderr.splitlines()
    assert f"runs the gamechip of {ROOT}, not of {copy}" in line and f"run make setup in {copy}" in line, line
