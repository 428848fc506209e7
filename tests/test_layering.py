"""The packages depend one way: golden <- rtl <- tb <- gamechip, with no import cycle anywhere,
no bench module imported by anything, and no private name taken from another module. Each
module's imports, those inside functions included, are read with ``ast`` (nothing is imported),
so a newcomer can read each folder knowing only the ones below it. golden/ also stays pure
Python: the standard library and pure-Python oracles only."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("golden", "rtl", "tb", "gamechip")  # each may import only the ones before it
CHECKED = LAYERS + ("tests",)                  # folders whose imports the rules below read
MAX_LINES = 700                                # per file in tb/ and gamechip/
# Upward imports being removed elsewhere; an entry that no longer occurs fails the test, so it
# is deleted as soon as the import is.
KNOWN_UPWARD = set()   # none: keep it that way


def run_at_import(tree):
    """The nodes of ``tree`` that run when its module is imported: none inside a function."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        pending += [child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]


def imported_modules(source, module, at_import=False):
    """Every module ``source`` (the text of dotted ``module``) imports, anywhere in it, with
    relative imports resolved. With ``at_import``, only the imports its import runs, and for
    ``from X import y`` also ``X.y`` (which may be a module)."""
    found = []
    tree = ast.parse(source)
    for node in run_at_import(tree) if at_import else ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = module.split(".")[:-node.level]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module
            found.append(base)
            if not node.module or at_import:  # from . import x: x may be a module
                found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def project_modules(folders=LAYERS):
    for layer in folders:
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


# Pure-Python packages the golden side may use: python-chess is the chess chip's oracle (docs/spec-chess.md).
PURE_PYTHON_ORACLES = {"chess"}


def test_golden_uses_the_standard_library_and_pure_python_oracles_only():
    allowed = set(sys.stdlib_module_names) | {"golden", "__pypy__"} | PURE_PYTHON_ORACLES   # PyPy's own builtins
    outside = sorted((file, name) for file, module, source in project_modules() if file.startswith("golden/")
                     for name in imported_modules(source, module) if name.split(".")[0] not in allowed)
    assert not outside, f"golden/ must stay pure Python: {outside}"
    import chess

    compiled = [f.name for f in Path(chess.__file__).parent.rglob("*") if f.suffix in (".so", ".pyd")]
    assert not compiled, f"python-chess must stay pure Python, it ships {compiled}"


def module_names():
    """Every importable module of the project, packages under their own dotted name."""
    names = set()
    for _, module, _ in project_modules(CHECKED):
        names.add(module[: -len(".__init__")] if module.endswith(".__init__") else module)
    return names


def import_edges():
    """module -> the project modules it imports (a ``from package import name`` counts as an import
    of ``package.name`` when that is a module, else of ``package``)."""
    names = module_names()
    edges = {}
    for _, module, source in project_modules(CHECKED):
        own = module[: -len(".__init__")] if module.endswith(".__init__") else module
        # relative imports resolve against the package: __init__ modules are their own package
        found = imported_modules(source, module)
        edges[own] = {name for name in found if name in names and name != own}
    return edges


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    found = cycles(import_edges())
    assert not found, "import cycles (imports inside functions count):\n" + "\n".join(
        "  " + " -> ".join(component) for component in found)


def is_bench(name):
    return name.startswith("tb.test_")


def test_nothing_imports_a_bench():
    """Benches are cocotb test modules that cocotb loads by name: shared code lives in tb/sim,
    tb/checks or tb/host, never in a bench another module has to import."""
    found = sorted((module, name) for module, imported in import_edges().items()
                   for name in imported if is_bench(name) and name != module)
    assert not found, "imports of bench modules:\n" + "\n".join(f"  {m} imports {n}" for m, n in found)


def private_imports(source, module, names):
    """(imported module, private name) for every private name ``source`` takes from another project
    module: ``from x import _y`` and ``x._y`` on a name bound to a project module."""
    found = []
    bound = {}   # local name -> project module it is bound to
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = imported_modules(ast.unparse(node), module)[0] if node.level else node.module
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in names:
                    bound[alias.asname or alias.name] = full
                elif base in names and alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((base, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in names:
                    bound[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or alias.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            chain, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                target = ".".join([bound[value.id]] + list(reversed(chain[1:])))
                if target in names and target != module:
                    found.append((target, node.attr))
    return found


def test_no_private_name_is_imported_from_another_module():
    names = module_names()
    found = sorted({(file, f"{target}.{name}") for file, module, source in project_modules(CHECKED)
                    for target, name in private_imports(source, module, names)})
    assert not found, "private names used from another module (make them public):\n" + "\n".join(
        f"  {file} uses {name}" for file, name in found)


def test_files_stay_readable():
    long = sorted((file, len(source.splitlines())) for file, _, source in project_modules(("tb", "gamechip"))
                  if len(source.splitlines()) > MAX_LINES)
    assert not long, f"files over {MAX_LINES} lines in tb/ or gamechip/: {long}"


def test_the_reader_sees_lazy_and_relative_imports():
    source = ("import os\nfrom golden.board import START\n"
              "def later():\n    from gamechip.campaign import run\n    import rtl.designs\n"
              "class Bench:\n    def method(self):\n        from ..gamechip import report\n        from . import runner\n")
    assert sorted(imported_modules(source, "tb.example")) == sorted(
        ["os", "golden.board", "gamechip.campaign", "rtl.designs", "gamechip", "tb", "tb.runner"])


def test_the_rules_see_what_they_forbid():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    names = {"tb.host.runner", "tb.host", "gamechip.games.play"}
    source = ("from tb.host.runner import _secret, public\n"
              "from tb.host import runner\n"
              "def f():\n    return runner._hidden() + runner.__name__\n")
    assert sorted(private_imports(source, "gamechip.games.play", names)) == [
        ("tb.host.runner", "_hidden"), ("tb.host.runner", "_secret")]
