"""Elaboration-time mutants (``gamechip mutate --elab``): the Python that builds a design rather
than the logic MyHDL converts. The same operators as the source mutants (model.expression_mutations),
applied to the assignments and returns of the functions that are not ``@always*`` generators
(the ``@block`` bodies and their helpers: loop bounds, masks, pattern tables, widths) and to
module-level constants, in the files a design is built from.

Such a mutant changes the design's structure, so no schemata build can hold it: each is a copy
of ``rtl/`` with the one expression rewritten in place (the rest of the file byte for byte),
converted on its own (one conversion each) and judged by the block's bench on that copy. A copy
that does not elaborate or convert (an index out of range, a width MyHDL refuses, an
elaboration that does not end within CONVERT_TIMEOUT), or converts to HDL that the simulator
does not compile (an empty table's case statement), is *not a mutant*: no design exists to
judge. A copy whose converted Verilog is the original's, byte for byte, is equivalent without a
run. Rows ``<block>:elab`` (kind ``elab``) in the report.
"""

from __future__ import annotations

import ast
import re
import shutil
import time
from pathlib import Path

from gamechip.mutation import benches
from gamechip.mutation.model import (ELAB, NOT_LOGIC, MutateError, Mutant, expression_mutations, file_digest,
                                     is_generator, node_at, position_of)

CONVERT_TIMEOUT = 300   # seconds of elaboration and conversion; beyond it, not a mutant
_IMPORT = re.compile(r"^\s*from\s+rtl\.([\w.]+)\s+import|^\s*import\s+rtl\.([\w.]+)", re.M)


def design_files(rtl_root, design):
    """The rtl/ files (relative to ``rtl_root``) that ``design`` is built from: the file that
    defines it and, transitively, the rtl modules they import."""
    rtl_root = Path(rtl_root)
    package = rtl_root / "rtl"
    start = next((p for p in sorted(package.rglob("*.py"))
                  if re.search(rf"^def {re.escape(design)}\(", p.read_text(), re.M)), None)
    if start is None:
        return []
    seen, todo = set(), [start]
    while todo:
        path = todo.pop()
        if path in seen or not path.exists():
            continue
        seen.add(path)
        for match in _IMPORT.finditer(path.read_text()):
            module = (match.group(1) or match.group(2)).replace(".", "/")
            todo += [package / f"{module}.py", package / module / "__init__.py"]
    return sorted(p.relative_to(rtl_root).as_posix() for p in seen
                  if p.name not in NOT_LOGIC and not p.name.startswith("_"))


def _elaboration_statements(tree):
    """(statement, function name) of every assignment and return outside ``@always*`` bodies:
    module-level constants and the statements of every other function, at any depth."""
    out = []

    def walk(statements, function):
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not is_generator(statement):
                    walk(statement.body, statement.name)
            elif isinstance(statement, ast.ClassDef):
                walk(statement.body, function)
            elif isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(statement, field, []) or [], function)
                for handler in getattr(statement, "handlers", []) or []:
                    walk(handler.body, function)
            elif isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)) \
                    and statement.value is not None:
                out.append((statement, function or "<module>"))

    walk(tree.body, None)
    return out


def _offset(lines, line, column):
    """Character offset of (1-based line, 0-based UTF-8 byte column) in the joined ``lines``."""
    before = sum(len(text) for text in lines[:line - 1])
    return before + len(lines[line - 1].encode()[:column].decode())


def elab_mutants(rtl_root, files, first_number=1):
    """[(Mutant, mutated file text)] of every elaboration-time mutation in ``files``."""
    rtl_root = Path(rtl_root)
    out, number = [], first_number
    for relative in files:
        source = (rtl_root / relative).read_text()
        digest = file_digest(source)
        lines = source.splitlines(keepends=True)
        tree = ast.parse(source)
        for statement, function in _elaboration_statements(tree):
            value = statement.value
            for path, operator, replacement in expression_mutations(value):
                node = node_at(value, path)
                start = _offset(lines, node.lineno, node.col_offset)
                end = _offset(lines, node.end_lineno, node.end_col_offset)
                text = source[:start] + f"({ast.unparse(replacement)})" + source[end:]
                line, column = position_of(node, source)
                original = ast.get_source_segment(source, statement) or ast.unparse(statement)
                first = _offset(lines, statement.lineno, statement.col_offset)
                last = _offset(lines, statement.end_lineno, statement.end_col_offset) + len(text) - len(source)
                mutated_statement = text[first:last]
                out.append((Mutant(id=f"{ELAB}:{relative}:{line}:{column}:{operator}:{digest}", number=number,
                                   file=relative, line=line, column=column, operator=operator,
                                   function=f"{function} (elaboration)", original=" ".join(original.split())[:300],
                                   mutated=" ".join(mutated_statement.split())[:300], kind=ELAB), text))
                number += 1
    return out


def work_folder(out, block):
    """Where judge makes ``block``'s copies of rtl/ in the run folder ``out``."""
    return Path(out) / "elab" / block


def converted_verilog(work, mutant):
    """The converted Verilog of ``mutant`` that judge keeps under ``work`` (when it is not the
    original's)."""
    return Path(work) / f"{mutant.number}.v"


def judge(mutant, text, block, design, sim, rtl_root, work, seed, quick, baseline_seconds, original_verilog):
    """Convert the copy of ``rtl_root`` with ``mutant``'s file replaced by ``text`` and run the
    bench on it: (verdict, test, message, seconds); verdict "invalid" when it does not convert or build."""
    from tb.host import runner
    clock = time.monotonic()
    root = Path(work) / f"{mutant.number}"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(Path(rtl_root) / "rtl", root / "rtl", ignore=shutil.ignore_patterns("__pycache__"))
    (root / mutant.file).write_text(text)
    # the converter's command line names this copy: a hung elaboration is killed, not waited for
    watchdog = benches.Watchdog(str(root), "--design", CONVERT_TIMEOUT)
    try:
        verilog = (runner.hdl_dir(design, root) / f"{design}.v").read_text()
    except runner.ConversionFailed as error:
        fired = watchdog.fired
        shutil.rmtree(root, ignore_errors=True)
        reason = f"no end of elaboration within {CONVERT_TIMEOUT} s" if fired else str(error).splitlines()[0]
        return "invalid", None, reason[:500], time.monotonic() - clock
    finally:
        watchdog.cancel()
    if verilog == original_verilog:
        shutil.rmtree(root, ignore_errors=True)
        return "identical", None, "", time.monotonic() - clock
    converted_verilog(work, mutant).write_text(verilog)   # kept for a later look (or a miter)
    verdict, test, message, _ = benches.judge(block, design, sim, root, 0, seed, quick, baseline_seconds, limited=True)
    if verdict == "error" and message.startswith(benches.NOT_BUILT):
        verdict = "invalid"   # converted, but to HDL the simulator does not compile (e.g. a case with no items)
    shutil.rmtree(root, ignore_errors=True)
    return verdict, test, message, time.monotonic() - clock


def make_copy(rtl_root, design, mutant_id, work):
    """The copy of ``rtl_root`` holding --elab mutant ``mutant_id`` again (judge deletes its
    copies), under ``work``; MutateError when the file it names has changed since."""
    found = {m.id: (m, text) for m, text in elab_mutants(rtl_root, design_files(rtl_root, design))}
    if mutant_id not in found:
        raise MutateError(f"mutant '{mutant_id}' is not in {rtl_root}/rtl any more (its file changed since the run)")
    mutant, text = found[mutant_id]
    root = Path(work) / f"elab-{mutant.number}"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(Path(rtl_root) / "rtl", root / "rtl", ignore=shutil.ignore_patterns("__pycache__"))
    (root / mutant.file).write_text(text)
    return root
