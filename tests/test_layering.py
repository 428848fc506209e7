"""The packages depend one way: golden <- rtl <- tb <- gamechip. Each module's imports, those
inside functions included, are read with ``ast`` (nothing is imported), so a newcomer can read
each folder knowing only the ones below it. golden/ also stays pure Python: the standard
library only."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("golden", "rtl", "tb", "gamechip")  # each may import only the ones before it
# Upward imports being removed elsewhere; an entry that no longer occurs fails the test, so it
# is deleted as soon as the import is.
KNOWN_UPWARD = set()   # none: keep it that way


def imported_modules(source, module):
    """Every module ``source`` (the text of dotted ``module``) imports, anywhere in it, with
    relative imports resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".")[:-node.level]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module
            found.append(base)
            if not node.module:  # from . import x: x may be a module
                found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def project_modules():
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            relative = path.relative_to(ROOT)
            yield relative.as_posix(), ".".join(relative.with_suffix("").parts), path.read_text()


def upward_imports():
    """(file, imported module) for every import of a layer above the file's own."""
    found = set()
    for file, module, source in project_modules():
        rank = LAYERS.index(file.split("/")[0])
        for name in imported_modules(source, module):
            top = name.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > rank:
                found.add((file, name))
    return found


def test_imports_go_one_way():
    found = upward_imports()
    new = sorted(found - KNOWN_UPWARD)
    assert not new, "imports of a layer above (golden <- rtl <- tb <- gamechip):\n" + "\n".join(
        f"  {file} imports {name}" for file, name in new)
    stale = sorted(KNOWN_UPWARD - found)
    assert not stale, f"no longer imported, delete from KNOWN_UPWARD: {stale}"


# Pure-Python packages the golden side may use: python-chess is the chess chip's oracle (SPEC-chess).
PURE_PYTHON_ORACLES = {"chess"}


def test_golden_uses_the_standard_library_and_pure_python_oracles_only():
    allowed = set(sys.stdlib_module_names) | {"golden", "__pypy__"} | PURE_PYTHON_ORACLES   # PyPy's own builtins
    outside = sorted((file, name) for file, module, source in project_modules() if file.startswith("golden/")
                     for name in imported_modules(source, module) if name.split(".")[0] not in allowed)
    assert not outside, f"golden/ must stay pure Python: {outside}"
    import chess

    compiled = [f.name for f in Path(chess.__file__).parent.rglob("*") if f.suffix in (".so", ".pyd")]
    assert not compiled, f"python-chess must stay pure Python, it ships {compiled}"


def test_the_reader_sees_lazy_and_relative_imports():
    source = ("import os\nfrom golden.board import START\n"
              "def later():\n    from gamechip.campaign import run\n    import rtl.designs\n"
              "class Bench:\n    def method(self):\n        from ..gamechip import report\n        from . import runner\n")
    assert sorted(imported_modules(source, "tb.example")) == sorted(
        ["os", "golden.board", "gamechip.campaign", "rtl.designs", "gamechip", "tb", "tb.runner"])
