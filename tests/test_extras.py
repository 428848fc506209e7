"""The extras of pyproject.toml: gamechip/installation.py names each extra's modules as
pyproject.toml declares them; building any command's parser imports no optional package; with
the optional packages missing, every command that needs one is refused in one line naming the
``pip install "gamechip[EXTRA]"`` (exit status 2) before any work, and the core commands run.
The real core install, from the wheel into a fresh venv, is tests/test_wheel.py's."""

import ast
import importlib
import importlib.metadata
import re
import sys
import tomllib

import pytest

from gamechip import cli
from gamechip.installation import EXTRAS, extra_of_module, missing_modules
from tests.test_layering import LAYERS, ROOT, imported_modules

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
OPTIONAL_MODULES = {module for modules in EXTRAS.values() for module in modules}


def requirement_name(requirement):
    return re.split(r"[=<>~!;\[ ]", requirement)[0].lower()


def test_the_extras_table_is_pyprojects():
    declared = PYPROJECT["optional-dependencies"]
    assert set(declared) == {*EXTRAS, "all"}
    for extra, modules in EXTRAS.items():
        assert sorted(requirement_name(r) for r in declared[extra]) == sorted(modules.values()), extra
    assert declared["all"] == [f"gamechip[{','.join(EXTRAS)}]"]
    core = {requirement_name(r) for r in PYPROJECT["dependencies"]}
    assert not core & {d for modules in EXTRAS.values() for d in modules.values()}, "an extra's package in the core"
    # each module comes from the distribution named beside it (this venv has every extra)
    providers = importlib.metadata.packages_distributions()
    for extra, modules in EXTRAS.items():
        for module, distribution in modules.items():
            assert distribution in [p.lower() for p in providers.get(module, [])], (extra, module, providers.get(module))


def test_the_regressions_venv_has_every_extra():
    """make setup installs .[all]: the regression runs every command with its extra (the [all] install)."""
    assert {extra: missing_modules(extra) for extra in EXTRAS} == {extra: [] for extra in EXTRAS}


def module_file(name):
    """The project file of dotted ``name`` (module or package), or None."""
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def parser_roots():
    """What building any command's parser imports: gamechip.cli and its command modules, and what
    each command's argument function imports."""
    roots = ["gamechip.cli"]
    for name, (module, _) in cli.COMMANDS.items():
        roots.append(f"gamechip.cli.{module}")
        add_arguments = importlib.import_module(f"gamechip.cli.{module}").COMMANDS[name][0]
        source = module_file(f"gamechip.cli.{module}").read_text()
        (function,) = [node for node in ast.walk(ast.parse(source))
                       if isinstance(node, ast.FunctionDef) and node.name == add_arguments.__name__]
        roots += imported_modules(ast.unparse(function), f"gamechip.cli.{module}")
    return roots


def optional_at_import(roots):
    """optional package -> the project module importing it, among the modules ``roots`` and
    everything their import imports."""
    pending, seen, optional = list(roots), set(), {}
    while pending:
        name = pending.pop()
        parts = name.split(".")
        if parts[0] not in LAYERS:
            if parts[0] in OPTIONAL_MODULES:
                optional.setdefault(parts[0], name)
            continue
        # a package's __init__ runs before its modules; a name that is no module is a package's attribute
        for end in range(1, len(parts) + 1):
            dotted = ".".join(parts[:end])
            path = module_file(dotted)
            if path is None or dotted in seen:
                continue
            seen.add(dotted)
            for found in imported_modules(path.read_text(), dotted + (".__init__" if path.name == "__init__.py" else ""),
                                          at_import=True):
                if found.split(".")[0] not in LAYERS and found.split(".")[0] in OPTIONAL_MODULES:
                    optional.setdefault(found.split(".")[0], dotted)
                else:
                    pending.append(found)
    return optional


def test_no_parser_imports_an_optional_package():
    """gamechip --help, and each command's own help and its refusal, need the core alone."""
    assert optional_at_import(["gamechip.games.port"]) == {"serial": "gamechip.games.port"}   # the check sees one
    found = optional_at_import(parser_roots())
    assert not found, "optional packages imported while a parser is built: " + ", ".join(
        f"{package} (by {module}, extra {extra_of_module(package)})" for package, module in sorted(found.items()))


@pytest.fixture
def core_only(monkeypatch):
    """The optional packages made unimportable, as in a core install (None in sys.modules)."""
    for module in [*OPTIONAL_MODULES, "dask"]:
        monkeypatch.setitem(sys.modules, module, None)


def refused(tmp_path):
    """(command line, the extra it needs): one per command or option that needs an extra."""
    out = str(tmp_path / "out")
    return [
        (["area", "--designs", "move_checker", "--out", out], "fpga"),
        (["gatelevel", "--designs", "move_checker", "--out", out], "fpga"),
        (["formal", "--designs", "move_checker", "--out", out], "fpga"),
        (["bitstream", "--board", "ulx3s", "--out", out], "fpga"),
        (["mutate", "--blocks", "move_checker", "--out", out, "--limit", "1"], "fpga"),
        (["mutate", "--blocks", "move_checker", "--out", out, "--no-prove", "--netlist", "1"], "fpga"),
        (["coverage", "--out", out], "coverage"),
        (["parallel", "--out", out], "cluster"),
        (["campaign", "--out", out, "--cluster", "tcp://127.0.0.1:9"], "cluster"),
        (["tournament", "--budget", "1k", "--cluster", "tcp://127.0.0.1:9"], "cluster"),
        (["mutate", "--out", out, "--cluster", "tcp://127.0.0.1:9"], "cluster"),
        (["play", "--port", "socket://127.0.0.1:9", "--budget", "1k"], "board"),
        (["nboard", "--port", "socket://127.0.0.1:9", "--budget", "1k"], "board"),
    ]


def test_a_command_without_its_extra_is_refused_in_one_line(core_only, tmp_path, capsys):
    for argv, extra in refused(tmp_path):
        assert cli.main(argv) == 2, argv
        captured = capsys.readouterr()
        (line,) = captured.err.splitlines()
        assert line.startswith(f"gamechip {argv[0]}: error: ") and f"needs the '{extra}' extra" in line, (argv, line)
        assert line.endswith(f'pip install "gamechip[{extra}]"'), (argv, line)
        assert captured.out == "" and not (tmp_path / "out").exists(), (argv, captured.out)


def test_the_core_commands_run_without_the_extras(core_only, capsys):
    help_text = cli.build_parser().format_help()
    assert all(name in help_text for name in cli.COMMANDS)
    for name in cli.COMMANDS:
        cli.build_parser(name)   # each command's own arguments and help
    assert cli.main(["search", "--depth", "4"]) == 0
    assert "golden" in capsys.readouterr().out


def test_an_unguarded_optional_import_is_one_line_too(core_only, monkeypatch, capsys):
    def needs_serial(args):
        import serial  # noqa: F401  (None in sys.modules: ModuleNotFoundError)

    from gamechip.cli import board

    monkeypatch.setitem(board.COMMANDS, "show", (board.COMMANDS["show"][0], needs_serial))
    assert cli.main(["show"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == 'gamechip show: error: serial is not installed: pip install "gamechip[board]"'

    def needs_something_else(args):
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    monkeypatch.setitem(board.COMMANDS, "show", (board.COMMANDS["show"][0], needs_something_else))
    with pytest.raises(ModuleNotFoundError):
        cli.main(["show"])
