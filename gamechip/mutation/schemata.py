"""Source mutants and their schemata build.

Mutants are made from the sources of ``rtl/`` by rewriting the code inside the bodies of
``@always_comb``, ``@always_seq`` and ``@always`` generators (the logic MyHDL converts), with the
operators of model.expression_mutations, plus negating an ``if`` condition and stuck-at-0 of a
``.next`` assignment.

All mutants live in one *schemata* copy of ``rtl/``: each mutated statement becomes
``if MUTSEL == k: <mutant k> elif ...: else: <original>`` (a mutated ``if`` condition becomes
``(MUTSEL == k and C_k) or ... or (MUTSEL not in ks and C)``), ``MUTSEL`` a module-level
Signal that the converted Verilog reads from the simulator's ``+MUTSEL=k`` plusarg
(tb.host.runner). The converted Verilog of a design then says which mutants it holds
(mutants_in_verilog) and which of them convert to the original's text (identical_mutants).
"""

from __future__ import annotations

import ast
import copy
import re
import shutil
from collections import Counter
from pathlib import Path

from gamechip.mutation.model import (MUTSEL, MUTSEL_BITS, Mutant, expression_mutations, file_digest, is_generator,
                                     node_at, position_of, replaced, rtl_files)


def _is_next_assignment(statement):
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target = statement.targets[0]
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and target.attr == "next"


def _boolean(expression):
    """``bool(expression)``: MyHDL's logical operators take booleans only (an ``if`` takes any)."""
    return ast.Call(func=ast.Name("bool", ast.Load()), args=[expression], keywords=[])


def _selector(number):
    return ast.Compare(left=ast.Name(MUTSEL, ast.Load()), ops=[ast.Eq()], comparators=[ast.Constant(number)])


def _not_selected(numbers):
    return [ast.Compare(left=ast.Name(MUTSEL, ast.Load()), ops=[ast.NotEq()], comparators=[ast.Constant(n)])
            for n in numbers]




class _Schemata(ast.NodeTransformer):
    """Rewrites one module: every mutation of every generator body behind MUTSEL."""

    def __init__(self, relative, source, digest, first_number):
        self.relative, self.source, self.digest = relative, source, digest
        self.number = first_number
        self.mutants = []
        self.block = self.function = None

    def _position(self, node):
        return position_of(node, self.source)

    def _new(self, node, operator, original_node, mutated_node):
        """``node``: where the mutation is (its line and column name the mutant)."""
        self.number += 1
        line, column = self._position(node)
        mutant = Mutant(id=f"{self.relative}:{line}:{column}:{operator}:{self.digest}",
                        number=self.number, file=self.relative, line=line, column=column,
                        operator=operator, function=f"{self.function} in {self.block}",
                        original=ast.unparse(original_node), mutated=ast.unparse(mutated_node))
        self.mutants.append(mutant)
        return mutant

    def visit_FunctionDef(self, node):
        if is_generator(node):
            outer, self.function = self.function, node.name
            node.body = self._top_statements(node.body)
            self.function = outer
            return node
        outer, self.block = self.block, node.name
        self.generic_visit(node)
        self.block = outer
        return node

    def _statements(self, statements):
        out = []
        for statement in statements:
            out.append(self._statement(statement))
        return out

    def _top_statements(self, statements):
        """A generator's body. MyHDL declares a local variable at its first assignment and
        refuses one that an ``if`` might leave unassigned, so a local's first assignment stays as
        it is, unconditional, and its mutants follow it as overrides (an ``if`` chain without
        ``else``)."""
        out, assigned = [], set()
        for statement in statements:
            target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                else None
            if isinstance(target, ast.Name) and target.id not in assigned:
                chain = self._simple(statement)
                out.append(statement)
                if chain is not statement:   # the chain's last else is the original: dropped
                    last = chain
                    while last.orelse and isinstance(last.orelse[0], ast.If):
                        last = last.orelse[0]
                    last.orelse = []
                    out.append(chain)
            else:
                out.append(self._statement(statement))
            assigned |= {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)
                         and isinstance(node.ctx, ast.Store)}
        return out

    def _statement(self, statement):
        if isinstance(statement, (ast.If, ast.While)):
            statement.body = self._statements(statement.body)
            statement.orelse = self._statements(statement.orelse)
            return self._condition(statement)
        if isinstance(statement, ast.For):
            statement.body = self._statements(statement.body)
            statement.orelse = self._statements(statement.orelse)
            return statement
        if isinstance(statement, (ast.Assign, ast.AugAssign)):
            return self._simple(statement)
        return statement

    def _simple(self, statement):
        variants = []
        value = statement.value
        for path, operator, replacement in expression_mutations(value):
            mutated = copy.deepcopy(statement)
            mutated.value = replaced(value, path, replacement)
            variants.append((self._new(node_at(value, path), operator, statement, mutated), mutated))
        if _is_next_assignment(statement) and not (isinstance(value, ast.Constant) and value.value in (0, False)) \
                and not isinstance(value, ast.Attribute):   # an enum state: 0 is not one of its values
            mutated = copy.deepcopy(statement)
            mutated.value = ast.Constant(0)
            target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
            variants.append((self._new(target, "stuck at 0", statement, mutated), mutated))
        if not variants:
            return statement
        chain = copy.deepcopy(statement)
        for mutant, mutated in reversed(variants):
            chain = ast.If(test=_selector(mutant.number), body=[mutated], orelse=[chain])
        return chain

    def _condition(self, statement):
        test = statement.test
        variants = [(path, operator, replacement) for path, operator, replacement in expression_mutations(test)]
        variants.append(((), "negate condition", ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(test))))
        terms, numbers = [], []
        for path, operator, replacement in variants:
            mutated = replaced(test, path, replacement)
            mutant = self._new(node_at(test, path), operator, test, mutated)
            numbers.append(mutant.number)
            terms.append(ast.BoolOp(op=ast.And(), values=[_selector(mutant.number), _boolean(mutated)]))
        terms.append(ast.BoolOp(op=ast.And(), values=_not_selected(numbers) + [_boolean(copy.deepcopy(test))]))
        statement.test = ast.BoolOp(op=ast.Or(), values=terms)
        return statement



def build_schemata(rtl_root, out_root):
    """Write the schemata copy of ``rtl_root``'s rtl package under ``out_root``; the mutants."""
    rtl_root, out_root = Path(rtl_root), Path(out_root)
    if (out_root / "rtl").exists():
        shutil.rmtree(out_root / "rtl")
    shutil.copytree(rtl_root / "rtl", out_root / "rtl", ignore=shutil.ignore_patterns("__pycache__"))
    (out_root / "rtl" / "_mutsel.py").write_text(
        '"""The mutant selector of a schemata build (gamechip/mutation/mutate.py): 0 is the original design."""\n\n'
        "from myhdl import Signal, intbv\n\n"
        f"{MUTSEL} = Signal(intbv(0)[{MUTSEL_BITS}:])\n")
    mutants = []
    for path in rtl_files(rtl_root):
        relative = path.relative_to(rtl_root).as_posix()
        source = path.read_text()
        tree = ast.parse(source)
        rewriter = _Schemata(relative, source, file_digest(source), len(mutants))
        tree = rewriter.visit(tree)
        if not rewriter.mutants:
            continue
        mutants += rewriter.mutants
        ast.fix_missing_locations(tree)
        body = tree.body
        position = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
        while position < len(body) and isinstance(body[position], ast.ImportFrom) and body[position].module == "__future__":
            position += 1
        body.insert(position, ast.ImportFrom(module="rtl._mutsel", names=[ast.alias(MUTSEL)], level=0))
        (out_root / path.relative_to(rtl_root)).write_text(ast.unparse(tree) + "\n")
    if len(mutants) >= 1 << MUTSEL_BITS:
        raise ValueError(f"{len(mutants)} mutants do not fit a {MUTSEL_BITS}-bit selector")
    return mutants



def source_mutants(relative, source):
    """The source mutants of one version of one rtl file (as build_schemata numbers them
    from 1, with its ids)."""
    rewriter = _Schemata(relative, source, file_digest(source), 0)
    rewriter.visit(ast.parse(source))
    return rewriter.mutants



_SELECTED = re.compile(rf"\b{MUTSEL}\s*[!=]=\s*(\d+)")
_CASE_OPEN = re.compile(r"\bcase[zx]?\s*\(")
_LABEL = re.compile(r"^\s*'h([0-9A-Fa-f]+)\s*:")


def mutants_in_verilog(text):
    """The MUTSEL values a converted design tests (its mutants; the others are not in it):
    ``MUTSEL == k`` terms, and the labels of MyHDL's ``case (MUTSEL)`` (an if/elif chain on it)."""
    numbers = {int(n) for n in _SELECTED.findall(text)}
    stack = []   # per open case: does it select on MUTSEL
    for line in text.splitlines():
        if stack and stack[-1] and len(stack) and _LABEL.match(line):
            numbers.add(int(_LABEL.match(line).group(1), 16))
        for _ in _CASE_OPEN.findall(line):
            stack.append(f"({MUTSEL})" in line.replace(" ", ""))
        for _ in re.findall(r"\bendcase\b", line):
            if stack:
                stack.pop()
    return numbers


_CASE_ON_MUTSEL = re.compile(rf"^(\s*)case \({MUTSEL}\)$")
_LABEL_BEGIN = re.compile(r"^\s*'h([0-9A-Fa-f]+): begin$")
_IF_ON_MUTSEL = re.compile(rf"^(\s*)(?:else )?if \(\({MUTSEL} == (\d+)\)\) begin$")


def _body(lines, start, indent):
    """The statements after ``lines[start]`` (a ``begin``) up to its ``end`` at ``indent``;
    (their text, the index of that end)."""
    body, at = [], start + 1
    while at < len(lines) and lines[at] != indent + "end":
        body.append(lines[at].strip())
        at += 1
    return body, at


def identical_mutants(text):
    """The statement mutants of a converted design whose every branch is the original's, byte for
    byte (``x.next = OKAY`` stuck at 0 where OKAY is 0): equivalent without a simulation. A
    statement mutant is a ``case (MUTSEL)`` label beside the original as ``default`` (or, alone,
    ``if (MUTSEL == k)`` with the original as its ``else``); a mutant counts only when each of its
    places in the design is such a branch and equals the original there."""
    lines = text.splitlines()
    same, differ = Counter(), set()
    for at, line in enumerate(lines):
        case = _CASE_ON_MUTSEL.match(line)
        if case:
            inner, bodies, original, scan = case.group(1) + "    ", {}, None, at + 1
            while scan < len(lines) and lines[scan] != case.group(1) + "endcase":
                label = _LABEL_BEGIN.match(lines[scan])
                if lines[scan].startswith(inner) and not lines[scan].startswith(inner + " ") and (
                        label or lines[scan].strip() == "default: begin"):
                    body, scan = _body(lines, scan, inner)
                    if label:
                        bodies[int(label.group(1), 16)] = body
                    else:
                        original = body
                scan += 1
            for number, body in bodies.items():
                if original is not None and body == original:
                    same[number] += 1
                else:
                    differ.add(number)
            continue
        single = _IF_ON_MUTSEL.match(line)
        if single:
            indent, number = single.group(1), int(single.group(2))
            body, end = _body(lines, at, indent)
            if end + 1 < len(lines) and lines[end + 1] == indent + "else begin" and _body(lines, end + 1, indent)[0] == body:
                same[number] += 1
            else:
                differ.add(number)
    places = Counter(int(n) for n in _SELECTED.findall(text))
    places.update(int(_LABEL.match(line).group(1), 16) for line in lines if _LABEL_BEGIN.match(line))
    return {number for number, count in same.items() if number not in differ and count == places[number]}

