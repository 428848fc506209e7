"""``gamechip mutate``: the regression's mutation score on every block.

Mutants are generated from the sources of ``rtl/`` by rewriting the code inside the bodies of
``@always_comb``, ``@always_seq`` and ``@always`` generators (the logic MyHDL converts):
operator swaps (``+ -``, ``& | ^``, ``<< >>``, ``and or``), comparison boundaries and
negations, integer constants +1/-1 (not in slices: those are widths), dropping ``not``/``~``/
unary minus, negating an ``if`` condition, and stuck-at-0 of a ``.next`` assignment. Every
mutant has a stable id: file, line, column, operator and a digest of the file, so verdicts
survive edits elsewhere.

All mutants live in one *schemata* copy of ``rtl/``: each mutated statement becomes
``if MUTSEL == k: <mutant k> elif ...: else: <original>`` (a mutated ``if`` condition becomes
``(MUTSEL == k and C_k) or ... or (MUTSEL not in ks and C)``), ``MUTSEL`` a module-level
Signal that the converted Verilog reads from the simulator's ``+MUTSEL=k`` plusarg (tb.runner).
So a design is converted and built once, and every mutant is one run of the block's regression
bench with its plusarg: ``MUTSEL=0`` must pass first (else the design's mutants are errors), a
mutant dies at its first mismatch, and the test that killed it says whether the directed set
or only the random positions see it.

Results go to ``OUT/journal.jsonl`` (one line per mutant, appended as they finish; ``--resume``
skips the mutants already there) and ``OUT/mutants.json`` (the catalogue: id, file, line,
operator, original and mutated source). ``gamechip report OUT`` and ``--json`` give the score,
killed / (killed + survivors not proved equivalent or waived), per block, file, function and
operator, and every survivor with its diff and the command that replays it.

After the run: ``--add-to-corpus`` keeps a survivor's SAT counterexample as a corpus case
(gamechip/mutant_corpus.py); ``--prove-killed N`` puts killed mutants through the miter and
byte-identical ones through their bench, and a killed mutant that is equivalent is reported as a
bench bug (exit status 3). ``--cluster`` runs the mutants as Dask tasks (run_shard); ``--elab``
adds elaboration-time mutants (gamechip/mutate_elab.py).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import logging
import os
import queue
import re
import shutil
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from gamechip.mutate_elab import KIND as ELAB, SUFFIX as ELAB_SUFFIX
from gamechip.mutate_netlist import KIND as NETLIST, SUFFIX

MUTSEL = "MUTSEL"
MUTSEL_BITS = 16
GENERATOR_DECORATORS = ("always_comb", "always_seq", "always")
# files of rtl/ that hold no converted logic (the converter, the design table, lint waivers)
NOT_LOGIC = {"convert.py", "designs.py", "lint.py", "elaboration.py", "__init__.py"}

BINOP_SWAPS = {ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.BitAnd: (ast.BitOr, ast.BitXor),
               ast.BitOr: (ast.BitAnd, ast.BitXor), ast.BitXor: (ast.BitOr, ast.BitAnd),
               ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,)}
COMPARE_SWAPS = {ast.Lt: (ast.LtE,), ast.LtE: (ast.Lt,), ast.Gt: (ast.GtE,), ast.GtE: (ast.Gt,),
                 ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,)}
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
           ast.RShift: ">>", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
           ast.And: "and", ast.Or: "or", ast.Not: "not", ast.Invert: "~", ast.USub: "-"}


@dataclass
class Mutant:
    id: str            # file:line:column:operator:file-digest
    number: int        # its MUTSEL value in the schemata build (1...)
    file: str          # relative to the rtl root's parent, e.g. rtl/move_checker.py
    line: int
    column: int
    operator: str
    function: str      # the generator (and its block): decide_legal in legal_cell
    original: str      # the statement (or condition) as written
    mutated: str       # the same with the mutation
    kind: str = "source"   # "netlist": a Yosys mutation of the converted design (gamechip/mutate_netlist.py)
    spec: str = ""     # a netlist mutant's Yosys mutate command (without -ctrl)

    def to_dict(self):
        return asdict(self)


def _decorator_name(node):
    target = node.func if isinstance(node, ast.Call) else node
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None


def _is_generator(function):
    return any(_decorator_name(d) in GENERATOR_DECORATORS for d in function.decorator_list)


def _sites(tree, skip_slices=True):
    """(path, node) of every expression node under ``tree``; ``path`` addresses the node from
    ``tree`` as (field, index or None) steps. Slice bounds (widths) are left out."""
    out = []

    def walk(node, path):
        out.append((path, node))
        for name, value in ast.iter_fields(node):
            if skip_slices and isinstance(node, ast.Slice):
                continue
            if isinstance(value, ast.AST):
                walk(value, path + ((name, None),))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        walk(item, path + ((name, i),))

    walk(tree, ())
    return out


def _replace(tree, path, new):
    """A copy of ``tree`` with the node at ``path`` replaced by ``new``."""
    tree = copy.deepcopy(tree)
    if not path:
        return new
    parent = tree
    for name, index in path[:-1]:
        parent = getattr(parent, name) if index is None else getattr(parent, name)[index]
    name, index = path[-1]
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new
    return tree


def _at(tree, path):
    node = tree
    for name, index in path:
        node = getattr(node, name) if index is None else getattr(node, name)[index]
    return node


def _in_range_call(path, root):
    """True when the node at ``path`` sits inside a call (``range(8)``, ``intbv(0)[8:]``...):
    elaboration-time arguments, not logic."""
    node = root
    for name, index in path:
        if isinstance(node, ast.Call) and name == "args":
            return True
        node = getattr(node, name) if index is None else getattr(node, name)[index]
    return False


def expression_mutations(expression):
    """(path, operator name, replacement node) of every mutation inside ``expression``."""
    out = []
    for path, node in _sites(expression):
        if _in_range_call(path, expression):
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
            for swap in BINOP_SWAPS[type(node.op)]:
                out.append((path, f"{SYMBOLS[type(node.op)]} -> {SYMBOLS[swap]}",
                            ast.BinOp(left=copy.deepcopy(node.left), op=swap(), right=copy.deepcopy(node.right))))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE_SWAPS:
            for swap in COMPARE_SWAPS[type(node.ops[0])]:
                out.append((path, f"{SYMBOLS[type(node.ops[0])]} -> {SYMBOLS[swap]}",
                            ast.Compare(left=copy.deepcopy(node.left), ops=[swap()],
                                        comparators=copy.deepcopy(node.comparators))))
        elif isinstance(node, ast.BoolOp):
            swap = ast.Or if isinstance(node.op, ast.And) else ast.And
            out.append((path, f"{SYMBOLS[type(node.op)]} -> {SYMBOLS[swap]}",
                        ast.BoolOp(op=swap(), values=copy.deepcopy(node.values))))
        elif isinstance(node, ast.UnaryOp) and type(node.op) in (ast.Not, ast.Invert, ast.USub):
            out.append((path, f"drop {SYMBOLS[type(node.op)]}", copy.deepcopy(node.operand)))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((path, "constant + 1", ast.Constant(node.value + 1)))
            if node.value > 0:
                out.append((path, "constant - 1", ast.Constant(node.value - 1)))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            out.append((path, "flip constant", ast.Constant(not node.value)))
    return out


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


def _position_of(node, source):
    """Line and column naming a mutation of ``node``: a binary operator's own symbol (the
    operators of ``a | b | c`` are nested nodes that all start at ``a``)."""
    if not isinstance(node, ast.BinOp):
        return node.lineno, node.col_offset
    lines = source.splitlines()
    line, column = node.left.end_lineno, node.left.end_col_offset
    while line <= len(lines):
        text = lines[line - 1]
        while column < len(text) and text[column] in " \t)\\":
            column += 1
        if column < len(text) and not text[column] == "#":
            return line, column
        line, column = line + 1, 0
    return node.lineno, node.col_offset


class _Schemata(ast.NodeTransformer):
    """Rewrites one module: every mutation of every generator body behind MUTSEL."""

    def __init__(self, relative, source, digest, first_number):
        self.relative, self.source, self.digest = relative, source, digest
        self.number = first_number
        self.mutants = []
        self.block = self.function = None

    def _position(self, node):
        return _position_of(node, self.source)

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
        if _is_generator(node):
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
            mutated.value = _replace(value, path, replacement)
            variants.append((self._new(_at(value, path), operator, statement, mutated), mutated))
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
            mutated = _replace(test, path, replacement)
            mutant = self._new(_at(test, path), operator, test, mutated)
            numbers.append(mutant.number)
            terms.append(ast.BoolOp(op=ast.And(), values=[_selector(mutant.number), _boolean(mutated)]))
        terms.append(ast.BoolOp(op=ast.And(), values=_not_selected(numbers) + [_boolean(copy.deepcopy(test))]))
        statement.test = ast.BoolOp(op=ast.Or(), values=terms)
        return statement


def rtl_files(rtl_root):
    package = Path(rtl_root) / "rtl"
    return sorted(p for p in package.rglob("*.py") if p.name not in NOT_LOGIC and not p.name.startswith("_"))


def file_digest(source):
    """The digest of one version of an rtl file, as a mutant id names it."""
    return hashlib.sha256(source.encode()).hexdigest()[:8]


def build_schemata(rtl_root, out_root):
    """Write the schemata copy of ``rtl_root``'s rtl package under ``out_root``; the mutants."""
    rtl_root, out_root = Path(rtl_root), Path(out_root)
    if (out_root / "rtl").exists():
        shutil.rmtree(out_root / "rtl")
    shutil.copytree(rtl_root / "rtl", out_root / "rtl", ignore=shutil.ignore_patterns("__pycache__"))
    (out_root / "rtl" / "_mutsel.py").write_text(
        '"""The mutant selector of a schemata build (gamechip/mutate.py): 0 is the original design."""\n\n'
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


# --------------------------------------------------------------------------- running them

JOURNAL = "journal.jsonl"
IDENTICAL = "its converted Verilog is the original's, byte for byte"
CATALOGUE = "mutants.json"
WAIVERS = Path(__file__).resolve().parent.parent / "tb" / "mutation_waivers.json"
STREAMED = "evaluator_axi"   # mutated through its streamed searches (tb/test_evaluator_axi.py)
INTERLEAVED = "search_c2"   # the engine with two contexts (rtl/contexts.py), its per-cycle monitor
# the sequential blocks with benches of their own (the design is the block's name); the search
# bench runs at its "small" scale per mutant (its regression scale, "large", takes 90 s a run),
# the interleaved engine's at its regression scale ("tiny": every cycle passes through Python)
OWN_BENCHES = ("search", INTERLEAVED, "uart", "processor", STREAMED)
SEARCH_SCALE = "small"
# --quick (the regression's sample): every bench at its smallest size, to prove the machinery
QUICK_SEARCH_SCALE, QUICK_COUNT = "tiny", 256
VERDICTS = ("killed", "survived", "error", "invalid")   # invalid: an --elab copy that does not convert
# Mutants per cluster task: each task on a fresh worker pays for a build and the original's run,
# and a shard is the unit --resume loses when a worker dies.
SHARD_SIZE = 32


class MutateError(Exception):
    """Bad input (unknown block, unwritable folder, a folder of another run): one line, exit 2."""


def mutation_blocks():
    """Block name -> its 8x8 design: the batch-harness blocks and the streamed peripheral."""
    from tb.blocks import BLOCKS

    blocks = {name: block.designs[0] for name, block in BLOCKS.items()}
    blocks.update({name: name for name in OWN_BENCHES})
    return blocks


def run_mutant(block, design, sim, root, number, tag, seed=1, quick=False, group=None):
    """Run ``block``'s regression bench on mutant ``number`` (0: the original) of the schemata
    build at ``root``; (verdict, the test that failed or None, first line of its failure).
    ``group``: instead, the environment of a group run (_judge_group), which judges its mutants
    inside the bench and passes."""
    from tb import runner
    from tb.batch import FIRST_FAILURE_ENDS_RUN
    from tb.blocks import BLOCKS

    plusargs = [] if group else [f"+{MUTSEL}={number}"]
    group = group or {}
    os.environ[FIRST_FAILURE_ENDS_RUN] = "1"   # every bench run of this process (the simulators inherit it)
    if block == STREAMED:
        from tb.test_evaluator_axi import run_stream
        outcome = run_stream(sim, rtl_root=root, tag=tag, plusargs=plusargs)
    elif block == "search":
        from tb.test_search import run_search_bench
        outcome = run_search_bench(sim, ["directed", "random_play", "endgame"],
                                   QUICK_SEARCH_SCALE if quick else SEARCH_SCALE, seed, tag=tag,
                                   rtl_root=root, plusargs=plusargs)
    elif block == INTERLEAVED:
        from tb.test_search import run_search_bench
        outcome = run_search_bench(sim, ["directed", "random_play", "endgame"], "tiny", seed, tag=tag,
                                   rtl_root=root, plusargs=plusargs, monitor="python", design=INTERLEAVED)
    elif block == "uart":
        from tb.test_uart import run_uart
        outcome = run_uart(sim, tag=tag, rtl_root=root, seed=seed, plusargs=plusargs)
    elif block == "processor":
        from tb.test_processor import MUTATION_PLAN, run_processor_bench
        tests, env = MUTATION_PLAN[sim]
        outcome = run_processor_bench(sim, tests, {**env, "GAMECHIP_SEED": str(seed), **group}, tag=tag,
                                      rtl_root=root, plusargs=plusargs)
    else:
        spec = BLOCKS[block]
        count = min(spec.counts[sim], QUICK_COUNT) if quick else spec.counts[sim]
        env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_COUNT": str(count), **group}
        outcome = runner.run_design(design, sim, spec.module, list(spec.tests), env=env, rtl_root=root, quiet=True,
                                    quick_build=spec.quick_build, tag=tag, plusargs=plusargs)
    if group:
        return outcome
    _SIMULATION.seconds = outcome.run_seconds
    failures = outcome.result.get("failures") or {}
    if outcome.passed:
        # the processor's bench asserts every reply and records no count
        if not outcome.result.get("checked") and block != "processor":
            return "error", None, "the bench passed without checking anything"
        return "survived", None, ""
    if failures:
        test, message = next(iter(failures.items()))
        return "killed", test, message.splitlines()[0] if message else ""
    if not outcome.simulator_ran:
        errors = [line.strip() for line in (outcome.log or "").splitlines() if "error" in line.lower()]
        return "error", None, f"{NOT_BUILT}: {(errors or ['no simulator output'])[0]}"[:400]
    failed = _FAILED_TEST.search(outcome.log or "")
    if failed:   # a bench that reports by assertion (the processor's), or a run the mutant hung or crashed
        lines = [line.strip() for line in (outcome.log or "").splitlines()
                 if "MISMATCH" in line or "AssertionError" in line or "Error" in line]
        return "killed", failed.group(1), (lines[0] if lines else "the test failed")[:300]
    return "error", None, (outcome.log or "the simulation failed before running a test")[-400:]


NOT_BUILT = "the design did not build"   # run_mutant's message when no simulator ever started
# run_mutant's last run in this thread: its simulation's seconds, the build left out (_baseline)
_SIMULATION = threading.local()
_FAILED_TEST = re.compile(r"Failed: [\w.]+::(\w+)")


def append_entry(path, entry):
    with open(path, "a") as out:
        out.write(json.dumps(entry) + "\n")
        out.flush()
        os.fsync(out.fileno())


def read_journal(path):
    """(block, id) -> last entry (a mutant of a shared file is one per block that holds it);
    lines that are not entries (a torn last line) are skipped."""
    entries = {}
    if not Path(path).exists():
        return entries
    for line in Path(path).read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("block"), str) \
                and entry.get("verdict") in VERDICTS + ("baseline", "baseline-failed"):
            entries[entry["block"], entry["id"]] = entry
    return entries


def verdict_entry(mutant_id, number, verdict, test, message, seconds, **more):
    """A judged mutant's journal entry (its ``block`` among ``more``, where the caller knows it)."""
    return {"id": mutant_id, **({"block": more.pop("block")} if "block" in more else {}), "number": number,
            "verdict": verdict, "test": test, "message": message[:500], "seconds": round(seconds, 2), **more}


def _unproved_survivor(entry):
    # prove_survivors marks a survivor it proves ``equivalent``, as summarise reads it
    return entry["verdict"] == "survived" and not entry.get("equivalent")


def load_waivers(path=WAIVERS):
    """id -> reason of the reviewed waivers (a mutant that is equivalent for a reason no
    check here proves); a waiver names one version of the file (the id's digest)."""
    if not Path(path).exists():
        return {}
    data = json.loads(Path(path).read_text())
    return {key: value for key, value in data.items() if isinstance(value, str) and value.strip()}


def source_mutants(relative, source):
    """The source mutants of one version of one rtl file (as build_schemata numbers them
    from 1, with its ids)."""
    rewriter = _Schemata(relative, source, file_digest(source), 0)
    rewriter.visit(ast.parse(source))
    return rewriter.mutants


def _carry_key(mutant):
    # what a mutant is, wherever its file's lines moved: its generator, operator and text
    return (mutant.function, mutant.operator, mutant.original, mutant.mutated)


def carry_waivers(waivers, old_source, new_source):
    """Waivers re-keyed from the files' old versions to their current ones.

    ``old_source(relative, digest)`` gives the text of the file version a waiver names (None
    when that version cannot be found); ``new_source(relative)`` the current text (None for a
    removed file). A waived mutant is carried when the current file has the same mutant (same
    generator, operator, statement and mutation) at the same rank among its equals: the
    statement the reason argues about is unchanged, though its line may have moved. Whether
    the reason still holds with the code around it changed is the reviewer's to check: the
    carried waivers are listed.

    A reason's references to lines of its own file ("line 454") follow the lines that did not
    change; one that points into changed lines is left as written and named in ``carried``.

    Returns (waivers, carried [(old id, new id, note)], stranded [(old id, why)]): a stranded
    waiver stays under its old id, so no reason is lost.
    """
    out, carried, stranded = {}, [], []
    versions = {}   # (relative, digest) -> {carry key with rank: mutant}, and the current file's
    lines = {}      # (relative, digest) -> {old line number: current line number} of unchanged lines

    def keyed(mutants):
        ranks, table = Counter(), {}
        for mutant in mutants:
            key = _carry_key(mutant)
            table[key + (ranks[key],)] = mutant
            ranks[key] += 1
        return table

    for waiver_id, reason in waivers.items():
        relative, line, column, operator, digest = waiver_id.rsplit(":", 4)
        current = new_source(relative)
        if current is None:
            stranded.append((waiver_id, f"{relative} is gone"))
            out[waiver_id] = reason
            continue
        if file_digest(current) == digest:
            out[waiver_id] = reason
            continue
        if (relative, digest) not in versions:
            text = old_source(relative, digest)
            versions[relative, digest] = None if text is None else keyed(source_mutants(relative, text))
            lines[relative, digest] = None if text is None else _moved_lines(text, current)
        if (relative, None) not in versions:
            versions[relative, None] = keyed(source_mutants(relative, current))
        old = versions[relative, digest]
        if old is None:
            stranded.append((waiver_id, f"no version of {relative} with digest {digest} in the history searched"))
            out[waiver_id] = reason
            continue
        key = next((k for k, m in old.items() if m.id == waiver_id), None)
        if key is None:
            stranded.append((waiver_id, f"{relative} at {digest} has no such mutant"))
            out[waiver_id] = reason
            continue
        match = versions[relative, None].get(key)
        if match is None:
            stranded.append((waiver_id, f"the waived statement changed: {old[key].original!r} "
                                        f"in {old[key].function} is not in the current {relative}"))
            out[waiver_id] = reason
            continue
        moved, unmapped = lines[relative, digest], []

        def follow(reference):
            number = int(reference.group(1))
            if number in moved:
                return f"line {moved[number]}"
            unmapped.append(number)
            return reference.group(0)

        out[match.id] = re.sub(r"\bline (\d+)\b", follow, reason)
        note = f"its reason names line {', '.join(map(str, unmapped))}, which changed: check it" if unmapped else ""
        carried.append((waiver_id, match.id, note))
    return out, carried, stranded


def _moved_lines(old, new):
    """{line number in ``old``: its number in ``new``} for the lines the edit left alone."""
    import difflib

    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {a + 1 + k: b + 1 + k for a, b, size in matcher.get_matching_blocks() for k in range(size)}


def netlist_blocks():
    """The blocks that take netlist mutants: those of the batch harness (tb/blocks.py)."""
    from tb.blocks import BLOCKS

    return list(BLOCKS)


def run(blocks, sim, out, resume=False, limit=None, workers=1, seed=1, rtl_root=None, progress=None,
        quick=False, prove=True, netlist=None, source=True, prove_killed=0, cluster=None, shard_size=SHARD_SIZE,
        elab=False, recheck_waivers=False, waivers=None, retry_survivors=False):
    """Generate, build and run the mutants of ``blocks`` on ``sim`` into ``out``; the summary.

    ``limit``: at most this many source mutants per block (spread over its files and operators);
    ``quick``: every bench at its smallest size (a smoke run of the machinery, not a score);
    ``prove``: then a SAT miter of every survivor against the original (prove_survivors);
    ``netlist``: also a sample of this many Yosys netlist mutants per block (mutate_netlist),
    judged by the same bench, their rows ``<block>:netlist``; ``source``: False, those alone;
    ``prove_killed``: also this many killed mutants per row through the miter, and every
    byte-identical mutant through its bench, so that a bench bug (a killed mutant that is
    equivalent to the original) can show at all (summarise's ``bench_bugs``); ``cluster``: the
    address of a Dask scheduler whose workers run the mutants, ``shard_size`` of them a task
    (run_shard), the journal written here as the shards finish; ``elab``: also the block's
    elaboration-time mutants (gamechip/mutate_elab.py), one conversion each, rows ``<block>:elab``;
    ``recheck_waivers``: also simulate the mutants waived in tb/mutation_waivers.json (``waivers``), which
    are otherwise left unrun: their id pins the file's text, and the reviewed reason says no input
    tells them apart, so a run could only confirm them or show the review wrong (a bench bug);
    ``retry_survivors``: with ``resume``, judge again every survivor not proved equivalent (after
    new bench cases: a mutant's id pins its RTL file, not the bench that judged it)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from tb import runner
    from tb.slots import slot_tag, take_slot

    say = progress or (lambda text: print(f"mutate: {text}", file=sys.stderr, flush=True))
    out = Path(out)
    known = mutation_blocks()
    for block in blocks:
        if block not in known:
            raise MutateError(f"unknown block '{block}': choose from {', '.join(known)}")
    if netlist is not None and netlist < 1:
        raise MutateError(f"--netlist must be at least 1, got {netlist}")
    if cluster and elab:
        raise MutateError("--elab runs here only, not with --cluster: each mutant is a copy of this machine's rtl/")
    if cluster and netlist:
        raise MutateError("--netlist runs here only, not with --cluster: its netlists are files of this machine")
    if cluster:   # a wrong address is told at once, not after minutes of conversion
        _connect(cluster).close()
    if netlist:
        others = [b for b in blocks if b not in netlist_blocks()]
        if others and not source:
            raise MutateError(f"no netlist mutants for {', '.join(others)} (their own benches, not the batch "
                              f"harness): choose from {', '.join(netlist_blocks())}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise MutateError(f"--out {out}: cannot write there: {error.strerror or error}")
    journal = out / JOURNAL
    if journal.exists() and not resume:
        raise MutateError(f"--out {out} holds a mutation run already: add --resume to go on with it, or choose "
                          f"another folder")
    rtl_root = Path(rtl_root or runner.ROOT)
    waivers = load_waivers() if waivers is None else waivers
    unrun = set() if recheck_waivers else set(waivers)
    schemata_root = out / "schemata"
    mutants = build_schemata(rtl_root, schemata_root) if source else []
    # a resumed run takes every mutant up again that ended in an error (a crash, a killed run)
    done = {key: entry for key, entry in read_journal(journal).items() if entry["verdict"] != "error"
            and not (retry_survivors and _unproved_survivor(entry))} if resume else {}
    started = time.monotonic()
    catalogue = {"sim": sim, "quick": quick, "rtl_root": str(rtl_root), "rtl_digest": runner.rtl_digest(rtl_root),
                 "mutants": [m.to_dict() for m in mutants], "blocks": {}}
    if resume and (out / CATALOGUE).exists():
        try:
            before = json.loads((out / CATALOGUE).read_text())
        except ValueError as error:
            raise MutateError(f"--out {out}: {CATALOGUE} is damaged ({error}): choose another folder")
        if (before.get("sim"), before.get("quick", False)) != (sim, quick):
            raise MutateError(f"--out {out} was run with --sim {before.get('sim')}"
                              f"{' --quick' if before.get('quick') else ''}: resume it the same way")
        running = set(blocks if source else []) | {b + SUFFIX for b in blocks if netlist and b in netlist_blocks()} \
            | {b + ELAB_SUFFIX for b in blocks if elab}
        if before.get("rtl_digest") == catalogue["rtl_digest"]:   # the other rows of the run stay in its report
            catalogue["blocks"] = {b: spec for b, spec in before.get("blocks", {}).items() if b not in running}
            kept = {i for spec in catalogue["blocks"].values() for i in spec["mutants"]}
            known_ids = {m["id"] for m in catalogue["mutants"]}
            catalogue["mutants"] += [m for m in before.get("mutants", []) if m["id"] in kept and m["id"] not in known_ids]
    # a mutant is judged by the most focused bench that sees it: the block whose design holds the
    # fewest mutants (move_checker's cells there, not in the evaluator's run), among all the blocks
    # of its system, so that a narrowed run judges the same mutants by the same benches
    systems = {block.startswith("chess_") for block in blocks}
    judges = sorted(set(blocks) | {b for b in known if b.startswith("chess_") in systems})
    def held(block):
        try:
            sources = runner.hdl_dir(known[block], schemata_root)
        except runner.ConversionFailed as error:
            raise MutateError(f"the schemata build of {known[block]} does not convert: {str(error).splitlines()[0]}")
        text = (sources / f"{known[block]}.v").read_text()
        return mutants_in_verilog(text), identical_mutants(text)

    plan = []   # (row, block, design, mutants, root): the row of the report, the bench's block
    if source:
        say(f"converting the schemata build of {len(judges)} designs")
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:   # each conversion is a process of its own
            inside, identical = {}, {}
            for block, (numbers, same) in zip(judges, pool.map(held, judges)):
                inside[block], identical[block] = numbers, same
        owner = {}
        for block in sorted(judges, key=lambda b: (len(inside[b]), b)):
            for number in inside[block]:
                owner.setdefault(number, block)
        for block in blocks:
            design = known[block]
            chosen = [m for m in mutants if owner.get(m.number) == block]
            if limit:
                chosen = _spread(chosen, limit)
            catalogue["blocks"][block] = {"design": design, "mutants": [m.id for m in chosen]}
            plan.append((block, block, design, chosen, schemata_root))
            for mutant in chosen:   # equivalent without a simulation
                if mutant.number in identical[block] and (block, mutant.id) not in done:
                    entry = {"id": mutant.id, "block": block, "number": mutant.number, "verdict": "survived",
                             "test": None, "message": "", "seconds": 0, "equivalent": True,
                             "proof": {"verdict": "equivalent", "seconds": 0, "detail": IDENTICAL}}
                    append_entry(journal, entry)
                    done[block, mutant.id] = entry
            say(f"{block}: {len(chosen)} mutants to run on {design} ({len(inside[block])} in its converted Verilog, "
                f"the others judged by a smaller block's bench)")
    if netlist:
        plan += _netlist_plan([b for b in blocks if b in netlist_blocks()], known, netlist, seed, rtl_root, out,
                              catalogue, say)
    elab_texts, elab_verilog = {}, {}
    if elab:
        plan += _elab_plan(blocks, known, rtl_root, limit, catalogue, elab_texts, elab_verilog, say)
    (out / CATALOGUE).write_text(json.dumps(catalogue, indent=1))

    baseline_seconds = {}

    def one(row, block, design, root, mutant):
        if mutant and mutant.kind == ELAB:
            from gamechip import mutate_elab
            return (row, mutant, *mutate_elab.judge(mutant, elab_texts[mutant.id], block, design, sim, rtl_root,
                                                    out / "elab" / block, seed, quick, baseline_seconds.get(row, 0),
                                                    elab_verilog[design]))
        number = mutant.number if mutant else 0
        return (row, mutant, *_judge(block, design, sim, root, number, seed, quick, baseline_seconds.get(row, 0)))

    def one_group(row, block, design, root, group):
        if group[0].kind == ELAB:   # _groups leaves them one by one: each a copy of rtl/ of its own
            return [one(row, block, design, root, group[0])]
        by_number = {m.number: m for m in group}
        return [(row, by_number[number], *verdict) for number, *verdict
                in _judge_numbers(block, design, sim, root, list(by_number), seed, quick, baseline_seconds.get(row, 0))]

    # the runner switches the cocotb logger's propagation per run: with runs in threads that
    # would leak simulator logs to the console, so it stays off for the whole run
    logging.getLogger("cocotb").propagate = False
    to_run = [(row, block, design, [m for m in chosen if m.id not in unrun], root)
              for row, block, design, chosen, root in plan]
    skipped = sum(len(chosen) for *_, chosen, _ in plan) - sum(len(chosen) for *_, chosen, _ in to_run)
    if skipped:
        say(f"{skipped} waived mutants left unrun (tb/mutation_waivers.json; --recheck-waivers runs them)")
    total = sum(len(chosen) for _, _, _, chosen, _ in to_run)
    finished = sum(1 for row, _, _, chosen, _ in to_run for m in chosen if (row, m.id) in done)
    if cluster:
        _run_on_cluster(cluster, to_run, done, journal, catalogue["rtl_digest"], sim, seed, quick, shard_size,
                        prove_killed, say)
    rows = []   # (row, block, design, root, todo, identical_todo), the longest first
    for row, block, design, chosen, root in [] if cluster else to_run:
        todo = [m for m in chosen if (row, m.id) not in done]
        # byte-identical mutants run too under prove_killed: the bench must pass them
        identical_todo = [m for m in chosen if prove_killed and m.kind != ELAB
                          and _byte_identical(done.get((row, m.id))) and "simulated" not in done[row, m.id]]
        if todo or identical_todo:
            rows.append((row, block, design, root, todo, identical_todo))
    rows.sort(key=lambda r: -(len(r[4]) + len(r[5])) * ROW_WEIGHT.get(r[1], 1 if _groupable(r[1]) else ALONE_WEIGHT))
    # Rows run side by side, each on one worker, so that each design is built in one build slot
    # (a Verilator build of a schemata design takes minutes); with fewer rows than workers a
    # row's tasks share the rest.
    lanes = max(1, max(1, workers) // max(1, len(rows)))
    messages = queue.Queue()

    def row_work(row, block, design, root, todo, identical_todo):
        try:
            # a netlist row's baseline is its netlist with mutsel 0: named by the netlist root's digest
            baseline_id = f"{row}:baseline:{catalogue['rtl_digest'] if root == schemata_root else runner.rtl_digest(root)}"
            if done.get((row, baseline_id), {}).get("verdict") != "baseline":
                verdict, test, message, seconds, run_seconds = _baseline(block, design, sim, root, seed, quick)
                entry = {"id": baseline_id, "block": row, "verdict": "baseline" if verdict == "survived"
                         else "baseline-failed", "test": test, "message": message, "seconds": round(seconds, 2)}
                if verdict == "survived":   # its simulation alone: the time a mutant's run is measured against
                    entry["run_seconds"] = round(run_seconds, 2)
                messages.put(("baseline", (row, entry, todo)))
                if entry["verdict"] != "baseline":
                    return
                baseline_seconds[row] = entry["run_seconds"]
            else:
                previous = done[row, baseline_id]
                baseline_seconds[row] = previous.get("run_seconds", previous.get("seconds", 0))
            tasks = [(one_group, group) for group in _groups(block, todo, lanes)]
            tasks += [(lambda *task: [one(*task)], m) for m in identical_todo]
            with ThreadPoolExecutor(max_workers=lanes) as pool:
                futures = [pool.submit(function, row, block, design, root, item) for function, item in tasks]
                for future in as_completed(futures):
                    for result in future.result():
                        messages.put(("result", (result, result[1] in identical_todo)))
        finally:
            messages.put(("row done", row))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(row_work, *r) for r in rows]
        running = len(futures)
        while running:
            kind, payload = messages.get()
            if kind == "row done":
                running -= 1
            elif kind == "baseline":
                row, entry, todo = payload
                append_entry(journal, entry)
                if entry["verdict"] != "baseline":
                    say(f"{row}: the original design (MUTSEL=0) fails its bench: {entry['message']}; its mutants "
                        f"are errors")
                    for mutant in todo:   # the byte-identical ones keep their verdict
                        append_entry(journal, {"id": mutant.id, "block": row, "number": mutant.number,
                                               "verdict": "error", "message": "MUTSEL=0 failed", "seconds": 0})
                else:
                    say(f"{row}: MUTSEL=0 passes ({entry['seconds']:.1f} s with the build, {entry['run_seconds']:.1f} s "
                        f"of it simulating)")
            else:
                (block_, mutant, verdict, test, message, seconds), identical = payload
                if identical:
                    append_entry(journal, {**done[block_, mutant.id], "simulated": {
                        "verdict": verdict, "test": test, "message": message[:500], "seconds": round(seconds, 2)}})
                    say(f"{block_} #{mutant.number} (byte-identical) through its bench: {verdict}"
                        f"{f' by {test}: BENCH BUG' if verdict == 'killed' else ''}")
                    continue
                entry = verdict_entry(mutant.id, mutant.number, verdict, test, message, seconds, block=block_)
                if verdict == "identical":   # an --elab copy that converts to the original's Verilog
                    entry.update(verdict="survived", equivalent=True,
                                 proof={"verdict": "equivalent", "seconds": 0, "detail": IDENTICAL})
                append_entry(journal, entry)
                finished += 1
                elapsed = time.monotonic() - started
                say(f"{finished}/{total} {block_} #{mutant.number} {mutant.operator} at {mutant.file}:{mutant.line}: "
                    f"{verdict}{f' by {test}' if test else ''} ({seconds:.1f} s; {elapsed / 60:.1f} min)")
        for future in futures:
            future.result()   # a row that raised
    from gamechip.mutant_corpus import corpus_kills
    corpus_kills(out, to_run, sim, say)   # before the miter: a survivor the corpus kills needs no proof
    if prove or prove_killed:
        prove_survivors(out, to_run, schemata_root, workers, say, survivors=prove, killed_sample=prove_killed)
    return summarise(out, waivers)


# A row whose mutants run one by one (each a simulator start) weighs this many grouped ones
# when the longest rows are started first.
ALONE_WEIGHT = 5
ROW_WEIGHT = {"processor": 20}   # whole games: a survivor costs a minute or more

# Mutants of a batch-harness block judged in one run of its bench: a group pays one simulator
# start and one golden model for all of them; its size bounds what a crash or hang costs again.
GROUP_SIZE = 32


def _groupable(block):
    """Whether ``block``'s bench judges a group of mutants in one run: the batch-harness blocks
    (tb.batch check_group) and the processor (each_mutant per test)."""
    from tb.blocks import BLOCKS

    return block in BLOCKS or block == "processor"


def _groups(block, mutants, workers):
    """``mutants`` of a row as the tasks that judge them: groups of a batch-harness block's
    source or netlist mutants (spread so that every worker gets one), one by one otherwise."""
    if not _groupable(block) or any(m.kind == ELAB for m in mutants):
        return [[m] for m in mutants]
    size = max(1, min(GROUP_SIZE, -(-len(mutants) // max(1, workers))))
    return [mutants[first:first + size] for first in range(0, len(mutants), size)]


def _judge_numbers(block, design, sim, root, numbers, seed, quick, baseline_seconds):
    """Mutants ``numbers`` of ``block`` judged: as a group where its bench can, else one by one;
    [(number, verdict, test, message, seconds)]."""
    if _groupable(block) and len(numbers) > 1:
        return _judge_group(block, design, sim, root, numbers, seed, quick, baseline_seconds)
    return [(number, *_judge(block, design, sim, root, number, seed, quick, baseline_seconds)) for number in numbers]


def _judge_group(block, design, sim, root, numbers, seed, quick, baseline_seconds):
    """A group of a batch-harness block's mutants judged in one run of its bench (tb.batch
    check_group: each chunk's golden values made once, one simulator start for all of them);
    [(number, verdict, test, message, seconds)]. The run is watched as a mutant's is, with the
    limit of all of them together; a mutant it left unjudged (the run crashed or hung on it, or
    was killed) is judged alone afterwards (_judge), so a bad mutant costs only itself."""
    import tempfile

    from tb.batch import MUTANT_GROUP, MUTANT_VERDICTS
    from tb.slots import slot_tag, take_slot

    slot, lock = take_slot(design, sim)
    limit = max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline_seconds) * len(numbers)
    watchdog = _Watchdog(f"/{design}-{sim}-", slot_tag(slot), limit)
    try:
        with tempfile.TemporaryDirectory(prefix="gamechip-mutants-") as folder:
            verdicts = Path(folder) / "verdicts.json"
            outcome = run_mutant(block, design, sim, root, 0, slot_tag(slot), seed, quick, group={
                MUTANT_GROUP: ",".join(str(n) for n in numbers), MUTANT_VERDICTS: str(verdicts)})
            state = json.loads(verdicts.read_text()) if verdicts.exists() else {"killed": {}, "seconds": {}}
    finally:
        watchdog.cancel()
        lock.close()
    complete = outcome.passed and not watchdog.fired and (outcome.result.get("checked") or block == "processor")
    results, alone = [], []
    for number in numbers:
        seconds = state["seconds"].get(str(number), 0.0)
        killed = state["killed"].get(str(number))
        if killed:
            results.append((number, "killed", killed["test"], killed["message"], seconds))
        elif complete:
            results.append((number, "survived", None, "", seconds))
        else:
            alone.append(number)
    for number in alone:
        verdict, test, message, seconds = _judge(block, design, sim, root, number, seed, quick, baseline_seconds)
        results.append((number, verdict, test, message, seconds))
    return results


def _judge(block, design, sim, root, number, seed, quick, baseline_seconds, limited=None):
    """One run of ``block``'s bench on mutant ``number`` (0: the original) of the build at
    ``root``, in a build slot of this machine, under the watchdog (a mutant may take
    TIMEOUT_FACTOR times ``baseline_seconds``; ``limited``: whether the run is a mutant's, by
    default when ``number`` is not 0); (verdict, test, message, seconds)."""
    from tb.slots import slot_tag, take_slot

    slot, lock = take_slot(design, sim)
    limited = bool(number) if limited is None else limited
    limit = max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline_seconds) if limited else None
    watchdog = _Watchdog(f"/{design}-{sim}-", slot_tag(slot), limit)
    try:
        clock = time.monotonic()
        verdict, test, message = run_mutant(block, design, sim, root, number, slot_tag(slot), seed, quick)
        if watchdog.fired:   # the mutant hung its bench: a failure the bench would show by never ending
            verdict, test, message = "killed", "timeout", f"no end within {limit:.0f} s (the original: " \
                                                          f"{baseline_seconds:.0f} s)"
        return verdict, test, message, time.monotonic() - clock
    finally:
        watchdog.cancel()
        lock.close()


def _baseline(block, design, sim, root, seed, quick):
    """The original (mutant 0) through ``block``'s bench once, as _judge runs it: (verdict, test,
    message, seconds with the build, seconds of its simulation alone). The second is what a
    mutant's run is measured against; it is the run's own simulation (the build left out), not
    a second run of the original (which cost a whole bench run per row: a minute for the search
    engine's schemata build on Icarus)."""
    _SIMULATION.seconds = None
    verdict, test, message, seconds = _judge(block, design, sim, root, 0, seed, quick, 0)
    simulated = _SIMULATION.seconds
    return verdict, test, message, seconds, seconds if simulated is None else simulated


# --------------------------------------------------------------------------- on a Dask cluster

_WORKER_BASELINES = {}   # on a worker: (block, sim, rtl digest, quick, seed) -> the original's entry


def _worker_schemata(root, digest):
    """This machine's schemata build of ``root`` (digest ``digest``), built once under a lock:
    the same RTL makes the same mutants with the same numbers and ids as the client's."""
    from tb import runner

    folder = runner.BUILD / "mutate-schemata" / digest
    with runner._locked(runner.BUILD / "mutate-schemata" / f"{digest}.lock"):
        if not (folder / ".done").exists():
            build_schemata(root, folder)
            (folder / ".done").write_text("ok\n")
    return folder


def run_shard(shard):
    """A Dask task of ``gamechip mutate --cluster``: the mutants of ``shard`` (block, design, sim,
    seed, quick, rtl_digest, mutants: [{id, number}]) through the block's bench on this worker,
    after the original (once per worker process). Returns {host, baseline (when run here now),
    entries}; never raises: a failure becomes error entries, which --resume takes up again."""
    import socket

    from tb import runner

    host = socket.gethostname()
    block, design, sim = shard["block"], shard["design"], shard["sim"]

    def errors(message, baseline=None):
        return {"host": host, "baseline": baseline, "entries": [
            {"id": m["id"], "number": m["number"], "verdict": "error", "message": message, "seconds": 0}
            for m in shard["mutants"]]}

    try:
        root = runner.resolve_rtl_root()
        digest = runner.rtl_digest(root)
        if digest != shard["rtl_digest"]:
            return errors(f"the RTL on {host} ({root}, digest {digest}) is not the client's "
                          f"(digest {shard['rtl_digest']})")
        logging.getLogger("cocotb").propagate = False
        schemata = _worker_schemata(root, digest)
        key = (block, sim, digest, shard["quick"], shard["seed"])
        fresh = key not in _WORKER_BASELINES
        if fresh:
            verdict, test, message, seconds, run_seconds = _baseline(block, design, sim, schemata, shard["seed"],
                                                                     shard["quick"])
            baseline = {"verdict": "baseline" if verdict == "survived" else "baseline-failed", "test": test,
                        "message": message, "seconds": round(seconds, 2)}
            if verdict != "survived":
                return errors(f"MUTSEL=0 failed on {host}", baseline)
            baseline["run_seconds"] = round(run_seconds, 2)
            _WORKER_BASELINES[key] = baseline
        baseline = _WORKER_BASELINES[key]
        judged = {number: verdict for number, *verdict in _judge_numbers(
            block, design, sim, schemata, [mutant["number"] for mutant in shard["mutants"]], shard["seed"],
            shard["quick"], baseline["run_seconds"])}
        entries = []
        for mutant in shard["mutants"]:
            verdict, test, message, seconds = judged[mutant["number"]]
            entries.append(verdict_entry(mutant["id"], mutant["number"], verdict, test, message, seconds))
        return {"host": host, "baseline": baseline if fresh else None, "entries": entries}
    except Exception as error:   # noqa: BLE001 -- a task that raised would lose the shard's verdicts
        return errors(f"{type(error).__name__} on {host}: {error}"[:500])


def _connect(address):
    """A Dask client of the scheduler at ``address``; MutateError when it cannot be one."""
    from gamechip.campaign import CampaignInputError, connect_cluster

    try:
        return connect_cluster(address)[0]
    except CampaignInputError as error:
        raise MutateError(str(error))


def _run_on_cluster(address, plan, done, journal, rtl_digest, sim, seed, quick, shard_size, prove_killed, say):
    """The plan's mutants not judged yet, ``shard_size`` a task, on the Dask scheduler at
    ``address``; every entry journaled here as its shard returns."""
    from distributed import as_completed

    shards = []
    for row, block, design, chosen, _ in plan:
        todo = [m for m in chosen if (row, m.id) not in done or (
            prove_killed and _byte_identical(done[row, m.id]) and "simulated" not in done[row, m.id])]
        for first in range(0, len(todo), shard_size):
            part = todo[first:first + shard_size]
            shards.append((row, {"block": block, "design": design, "sim": sim, "seed": seed, "quick": quick,
                                 "rtl_digest": rtl_digest,
                                 "mutants": [{"id": m.id, "number": m.number} for m in part]}))
    if not shards:
        return
    client = _connect(address)
    threads = client.nthreads()
    say(f"Dask cluster {address} ({len(threads)} workers, {sum(threads.values())} threads): "
        f"{sum(len(shard['mutants']) for _, shard in shards)} mutants in {len(shards)} shards")
    run_id = hashlib.sha256(f"{journal}{time.time()}".encode()).hexdigest()[:10]
    futures = {client.submit(run_shard, shard, pure=False, key=f"gamechip-mutate-{row}-{n}-{run_id}"): (row, shard)
               for n, (row, shard) in enumerate(shards)}
    finished = 0
    try:
        for future in as_completed(futures):
            row, shard = futures[future]
            try:
                result = future.result()
            except Exception as error:   # noqa: BLE001 -- a worker lost: its mutants are retaken by --resume
                result = {"host": "?", "baseline": None, "entries": [
                    {"id": m["id"], "number": m["number"], "verdict": "error", "seconds": 0,
                     "message": f"the cluster lost the shard: {type(error).__name__}: {error}"[:500]}
                    for m in shard["mutants"]]}
            if result["baseline"]:
                append_entry(journal, {"id": f"{row}:baseline:{rtl_digest}", "block": row, **result["baseline"],
                                       "host": result["host"]})
            for entry in result["entries"]:
                before = done.get((row, entry["id"]))
                if _byte_identical(before):   # run for --prove-killed: the verdict stays, the run beside it
                    append_entry(journal, {**before, "simulated": {key: entry[key] for key in
                                                                   ("verdict", "test", "message", "seconds") if key in entry}})
                    continue
                append_entry(journal, {**entry, "block": row, "host": result["host"]})
            finished += 1
            verdicts = Counter(entry["verdict"] for entry in result["entries"])
            say(f"shard {finished}/{len(shards)} ({row}, {len(shard['mutants'])} mutants on {result['host']}): "
                + ", ".join(f"{n} {verdict}" for verdict, n in sorted(verdicts.items())))
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise
    finally:
        client.close()


def _elab_plan(blocks, known, rtl_root, limit, catalogue, texts, verilog, say):
    """The rows ``<block>:elab``: the elaboration-time mutants of the files each block's design
    is built from (at most ``limit``, spread), their mutated file texts into ``texts`` and the
    original converted Verilog of each design into ``verilog``."""
    from gamechip.mutate_elab import design_files, elab_mutants
    from tb import runner

    plan = []
    for block in blocks:
        design = known[block]
        try:
            verilog[design] = (runner.hdl_dir(design, rtl_root) / f"{design}.v").read_text()
        except runner.ConversionFailed as error:
            raise MutateError(f"{design} does not convert: {str(error).splitlines()[0]}")
        found = elab_mutants(rtl_root, design_files(rtl_root, design))
        chosen = [m for m, _ in found]
        if limit:
            chosen = _spread(chosen, limit)
        texts.update({m.id: text for m, text in found if m in chosen})
        row = block + ELAB_SUFFIX
        known_ids = {m["id"] for m in catalogue["mutants"]}
        catalogue["mutants"] += [m.to_dict() for m in chosen if m.id not in known_ids]
        catalogue["blocks"][row] = {"design": design, "kind": ELAB, "block": block, "mutants": [m.id for m in chosen]}
        plan.append((row, block, design, chosen, rtl_root))
        say(f"{row}: {len(chosen)} of {len(found)} elaboration-time mutants of {design}'s files, one conversion each")
    return plan


def _netlist_plan(blocks, known, count, seed, rtl_root, out, catalogue, say):
    """Sample ``count`` netlist mutants of each block's design, build them into one netlist per
    design and the netlist root ``out/netlist``; the plan's rows (catalogue updated)."""
    from gamechip.mutate_netlist import NetlistError, build, make_root, sample
    from tb import runner

    plan, netlists = [], {}
    root = out / "netlist"
    for block in blocks:
        design = known[block]
        clock = time.monotonic()
        try:
            original = runner.hdl_dir(design, rtl_root) / f"{design}.v"
            chosen = sample(design, original, count, seed, root / "work" / design)
            netlists[design] = build(design, chosen, root / "work" / design)
        except runner.ConversionFailed as error:
            raise MutateError(f"{design} does not convert: {str(error).splitlines()[0]}")
        except NetlistError as error:
            raise MutateError(f"netlist mutants of {design}: {error}")
        (root / "work" / design / "original.v").write_text(original.read_text())
        row = block + SUFFIX
        catalogue["mutants"] += [m.to_dict() for m in chosen]
        catalogue["blocks"][row] = {"design": design, "kind": NETLIST, "block": block, "root": str(root),
                                    "mutants": [m.id for m in chosen]}
        plan.append((row, block, design, chosen, root))
        say(f"{row}: {len(chosen)} netlist mutants of {design} sampled by Yosys mutate -list {count} -seed {seed} "
            f"and built into one netlist ({time.monotonic() - clock:.1f} s)")
    make_root(rtl_root, root, netlists)
    return plan


# A mutant's run may take TIMEOUT_FACTOR times its original's (its simulation alone, the build left out), at least
# MIN_TIMEOUT seconds; then its simulator is killed and the mutant counts as killed by "timeout".
TIMEOUT_FACTOR, MIN_TIMEOUT = 3, 60


class _Watchdog:
    """Kills the simulator processes of one build slot (their command line names the slot's build
    directory) once ``limit`` seconds have passed; None: no limit."""

    def __init__(self, design_part, slot_part, limit):
        import threading

        self.fired = False
        self.design_part, self.slot_part = design_part, slot_part
        self.timer = threading.Timer(limit, self._fire) if limit else None
        if self.timer:
            self.timer.daemon = True
            self.timer.start()

    def _fire(self):
        import signal

        self.fired = True
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if self.design_part in command and self.slot_part in command:
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except OSError:
                    pass

    def cancel(self):
        if self.timer:
            self.timer.cancel()


# Bounded checks of sequential designs: cycles from reset, enough for the block's whole answer
# (a UART frame is 10 bits of UART_DIVISOR cycles each; the others answer within tens of cycles).
PROOF_DEPTH = {"uart": 120, "stable_discs": 40, "openings": 24, "evaluator": 40}
PROOF_TIMEOUT = 300   # seconds of SAT per survivor; beyond it the survivor stays a survivor


def _byte_identical(entry):
    return bool(entry) and (entry.get("proof") or {}).get("detail") == IDENTICAL


def _elab_verilog(out, row, mutant):
    """Where mutate_elab.judge keeps an --elab mutant's converted Verilog."""
    return Path(out) / "elab" / row.removesuffix(ELAB_SUFFIX) / f"{mutant.number}.v"


def prove_survivors(out, plan, schemata_root, workers, say, survivors=True, killed_sample=0):
    """Every survivor of the run not judged yet: Yosys SAT miter of it against the original
    (gamechip/mutant_proof.py). Proved equivalent (combinational: under legal boards; sequential:
    bounded from reset) -> equivalent; a counterexample is kept beside the survivor.
    ``killed_sample``: also up to this many killed mutants of each row not proved yet (spread over
    files and operators); one proved equivalent is a bench bug (summarise), a counterexample
    confirms the kill. ``survivors`` False: those alone."""
    from concurrent.futures import ThreadPoolExecutor

    from gamechip.mutant_proof import prove, prove_versions
    from rtl.designs import PORTS
    from tb import runner

    journal = out / JOURNAL
    entries = read_journal(journal)
    todo = []
    for block, _, design, chosen, root in plan:
        sequential = any(name == "clk" for name, _, _ in PORTS[design])
        if sequential and design not in PROOF_DEPTH:
            continue   # the engine, the processor, the peripheral: too large for a SAT miter here
        depth = PROOF_DEPTH.get(design) if sequential else None
        # an --elab mutant is proved from its own conversion, kept when it was judged
        chosen = [m for m in chosen if m.kind != ELAB or _elab_verilog(out, block, m).exists()]
        for mutant in chosen:
            entry = entries.get((block, mutant.id))
            if survivors and entry and entry["verdict"] == "survived" and "proof" not in entry:
                todo.append((block, design, mutant, entry, depth, root))
        killed = [m for m in chosen if entries.get((block, m.id), {}).get("verdict") == "killed"]
        proved = sum(1 for m in killed if "proof" in entries[block, m.id])
        for mutant in _spread([m for m in killed if "proof" not in entries[block, m.id]],
                              max(0, killed_sample - proved)):
            todo.append((block, design, mutant, entries[block, mutant.id], depth, root))
    if not todo:
        return
    say(f"proving {len(todo)} mutants against the original design (Yosys SAT miter)")

    # A netlist survivor is proved against its netlist with mutsel 0 (the two share all but the
    # mutated cone: 2-3 times faster) once the netlist with mutsel 0 is proved equivalent to the
    # converted design under the same constraint; else against the converted design itself.
    from gamechip.mutant_proof import prove_netlist
    from gamechip.mutate_netlist import CTRL_BITS, netlist_module

    unmutated = {}
    for block, design, mutant, entry, depth, root in todo:
        if mutant.kind == NETLIST and design not in unmutated:
            work = Path(root) / "work" / design
            proof = prove_netlist((work / "original.v").read_text(), (work / "netlist.v").read_text(), design,
                                  netlist_module(design), 0, CTRL_BITS, PORTS[design], seq_depth=depth,
                                  timeout=PROOF_TIMEOUT)
            unmutated[design] = proof.verdict == "equivalent"
            say(f"{design}'s netlist with mutsel 0 against the converted design: {proof.verdict}"
                f"{': ' + proof.detail if proof.detail else ''} ({proof.seconds:.0f} s)"
                + ("" if unmutated[design] else "; its survivors are proved against the converted design"))

    def one(item):
        block, design, mutant, entry, depth, root = item
        if mutant.kind == ELAB:   # the original's conversion against the mutant copy's
            original = (runner.hdl_dir(design, root) / f"{design}.v").read_text()
            return item, prove_versions(original, _elab_verilog(out, block, mutant).read_text(), design, PORTS[design],
                                        seq_depth=depth, timeout=PROOF_TIMEOUT)
        if mutant.kind == NETLIST:   # the converted design against the netlist with mutsel fixed
            work = Path(root) / "work" / design
            original = None if unmutated[design] else (work / "original.v").read_text()
            proof = prove_netlist(original, (work / "netlist.v").read_text(), design, netlist_module(design),
                                  mutant.number, CTRL_BITS, PORTS[design], seq_depth=depth, timeout=PROOF_TIMEOUT)
            if unmutated[design]:
                proof.detail = "; ".join(filter(None, [proof.detail, "against the netlist with mutsel 0, itself "
                                                                     "proved equivalent to the converted design"]))
            return item, proof
        verilog = (runner.hdl_dir(design, schemata_root) / f"{design}.v").read_text()
        return item, prove(verilog, design, mutant.number, PORTS[design], seq_depth=depth, timeout=PROOF_TIMEOUT)

    # a proof takes up to a core and half a gigabyte: one per worker
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for done, ((block, design, mutant, entry, depth, _), proof) in enumerate(pool.map(one, todo), 1):
            record = {"verdict": proof.verdict, "detail": proof.detail, "seconds": proof.seconds}
            if proof.inputs is not None:
                record["inputs"] = proof.inputs
            if depth:
                record["bounded_cycles"] = depth
            if entry["verdict"] == "killed":   # equivalent and killed: the bench rejects a correct design
                append_entry(journal, {**entry, "proof": record})
            else:
                append_entry(journal, {**entry, "proof": record, "equivalent": proof.verdict == "equivalent"})
            say(f"proof {done}/{len(todo)} {block} #{mutant.number} {mutant.operator} at {mutant.file}:{mutant.line}: "
                f"{proof.verdict}{' within %d cycles' % depth if depth and proof.verdict == 'equivalent' else ''}"
                f"{': ' + proof.detail if proof.detail and proof.verdict != 'equivalent' else ''} ({proof.seconds:.0f} s)")


def _spread(mutants, limit):
    """At most ``limit`` of ``mutants``, taken round-robin over (file, operator) so a sample
    covers every file and operator before it repeats one."""
    groups = {}
    for mutant in mutants:
        groups.setdefault((mutant.file, mutant.operator), []).append(mutant)
    chosen, queues = [], list(groups.values())
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda m: m.number)


# --------------------------------------------------------------------------- the score

def summarise(out, waivers=None):
    """The run's result object: per block, file, function and operator the counts and score,
    and every survivor with its diff and replay command."""
    out = Path(out)
    try:
        catalogue = json.loads((out / CATALOGUE).read_text())
    except (OSError, ValueError) as error:
        raise MutateError(f"{out} is not a mutation run folder ({CATALOGUE}: {error})")
    entries = read_journal(out / JOURNAL)
    waivers = load_waivers() if waivers is None else waivers
    by_id = {m["id"]: m for m in catalogue["mutants"]}
    result = {"sim": catalogue["sim"], "rtl_root": catalogue.get("rtl_root"), "quick": catalogue.get("quick", False), "rtl_digest": catalogue["rtl_digest"], "blocks": {}, "files": {},
              "functions": {}, "operators": {}, "lines": {}, "digests": {}, "survivors": [], "equivalent": [], "waived": [], "errors": [], "pending": 0, "bench_bugs": [],
              "killed_by": {"directed": 0, "random": 0, "other": 0, "timeout": 0}, "killed_by_test": {}}

    def count(table, key, verdict):
        row = table.setdefault(key, {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "waived": 0,
                                     "errors": 0, "pending": 0})
        row["mutants"] += 1
        row[verdict] += 1

    for block, spec in catalogue["blocks"].items():
        result["blocks"].setdefault(block, {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "waived": 0,
                                            "errors": 0, "pending": 0, "not_mutants": 0,
                                            "kind": spec.get("kind", "source")})
        for mutant_id in spec["mutants"]:
            mutant, entry = by_id[mutant_id], entries.get((block, mutant_id))
            verdict = entry["verdict"] if entry else "waived" if mutant_id in waivers else "pending"
            if verdict == "invalid":   # an --elab copy that does not elaborate: no design, no mutant
                result["blocks"][block]["not_mutants"] += 1
                continue
            if verdict == "survived" and entry.get("equivalent"):
                verdict = "equivalent"
            elif verdict == "survived" and mutant_id in waivers:
                verdict = "waived"
            key = {"killed": "killed", "survived": "survived", "equivalent": "equivalent", "waived": "waived",
                   "error": "errors", "pending": "pending"}[verdict]
            for table, name in ((result["blocks"], block), (result["files"], mutant["file"]),
                                (result["functions"], f"{mutant['file']}: {mutant['function']}"),
                                (result["operators"], mutant["operator"])):
                if table is result["blocks"]:
                    row = table[name]
                    row["mutants"] += 1
                    row[key] += 1
                else:
                    count(table, name, key)
            result["digests"][mutant["file"]] = mutant_id.rsplit(":", 1)[1]
            line = result["lines"].setdefault(mutant["file"], {}).setdefault(mutant["line"], {})
            line[key] = line.get(key, 0) + 1
            if verdict == "killed":
                test = entry.get("test") or "?"
                result["killed_by"][_kind_of_test(test)] += 1
                tests = result["killed_by_test"].setdefault(block, {})
                tests[test] = tests.get(test, 0) + 1
            if verdict == "survived":
                result["survivors"].append({**mutant, "block": block, "replay": replay_command(out, block, mutant),
                                            "proof": entry.get("proof")})
            if verdict == "equivalent":
                result["equivalent"].append({**mutant, "block": block, "proof": entry.get("proof")})
            if verdict == "waived":
                result["waived"].append({**mutant, "block": block, "reason": waivers[mutant_id],
                                         "simulated": entry is not None})
            if verdict == "error":
                result["errors"].append({**mutant, "block": block, "message": entry.get("message", "")})
            if verdict == "pending":
                result["pending"] += 1
            bug = _bench_bug(entry, waivers.get(mutant_id))
            if bug:
                result["bench_bugs"].append({**mutant, "block": block, **bug})
    for table in ("blocks", "files", "functions", "operators"):
        for row in result[table].values():
            judged = row["killed"] + row["survived"]
            row["score"] = round(row["killed"] / judged, 4) if judged else None
    return result


def _bench_bug(entry, waiver=None):
    """{test, message, evidence} when the bench rejected a mutant that is equivalent to the
    original: killed and proved equivalent by the miter, byte-identical to the original and
    killed when run (--prove-killed), or killed though reviewed as equivalent (``waiver``, its
    reason: the review or the bench is wrong). Else None."""
    if not entry:
        return None
    if entry["verdict"] == "killed" and waiver:
        return {"test": entry.get("test"), "message": entry.get("message", ""),
                "evidence": f"waived as equivalent in tb/mutation_waivers.json: {waiver}"}
    proof = entry.get("proof") or {}
    if entry["verdict"] == "killed" and proof.get("verdict") == "equivalent":
        bound = f", bounded: {proof['bounded_cycles']} cycles from reset" if proof.get("bounded_cycles") else ""
        return {"test": entry.get("test"), "message": entry.get("message", ""),
                "evidence": f"proved equivalent by the SAT miter ({proof.get('detail') or 'proved'}{bound})"}
    simulated = entry.get("simulated") or {}
    if _byte_identical(entry) and simulated.get("verdict") == "killed":
        return {"test": simulated.get("test"), "message": simulated.get("message", ""), "evidence": IDENTICAL}
    return None


def _kind_of_test(test):
    """directed (hand-picked positions and sequences), random (seeded random vectors), or other
    (whole games and recorded searches: the processor's and the peripheral's benches). A corpus
    case (``corpus:<file>``, a survivor's counterexample kept by --add-to-corpus) is directed:
    one hand-kept case, whatever words its file name holds."""
    if test == "timeout":
        return "timeout"
    if test.startswith(CORPUS_TEST):
        return "directed"
    if "random" in test or "fuzz" in test:
        return "random"
    if test.startswith("directed") or test in DIRECTED_TESTS:
        return "directed"
    return "other"


CORPUS_TEST = "corpus:"   # the test of a mutant killed by a corpus case: corpus:<its file name>
# the benches' tests of hand-picked cases whose names do not say "directed"
DIRECTED_TESTS = {"every_byte_both_ways", "rx_back_to_back", "rx_baud_mismatch", "rx_framing_error", "rx_glitch",
                  "rx_stuck_low_and_break", "referee_codes", "processor_pass", "register_map", "endgame"}


def replay_command(out, block, mutant):
    return f"gamechip mutate --out {out} --blocks {block} --replay '{mutant['id']}'"


def format_report(result, out=None):
    """The report as Markdown: the score table, killed-by, survivors with their diffs."""
    quick = ", --quick: benches at their smallest size, not a score" if result.get("quick") else ""
    lines = [f"# Mutation score ({result['sim']}, RTL digest {result['rtl_digest']}{quick})", "",
             "Score = killed / (killed + survivors); equivalent and waived survivors are left out of it."
             + (" Rows `<block>:netlist` are Yosys netlist mutants of the converted design (`--netlist N`), "
                "the others source mutants of rtl/." if any(row.get("kind") == NETLIST
                                                            for row in result["blocks"].values()) else "")
             + (" Rows `<block>:elab` are elaboration-time mutants (`--elab`), a copy of rtl/ converted for each; "
                f"{sum(row.get('not_mutants', 0) for row in result['blocks'].values())} copies that did not elaborate "
                "or convert are not mutants and are left out of every count." if any(
                    row.get("kind") == ELAB for row in result["blocks"].values()) else ""), "",
             *_bench_bug_lines(result),
             "| block | mutants | killed | survived | proved equivalent | waived | errors | pending | score |",
             "|---|---|---|---|---|---|---|---|---|"]
    for block, row in result["blocks"].items():
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(f"| {block} | {row['mutants']} | {row['killed']} | {row['survived']} | {row['equivalent']} | "
                     f"{row['waived']} | {row['errors']} | {row['pending']} | {score} |")
    killed = result["killed_by"]
    lines += ["", f"Killed first by a directed test: {killed['directed']}; by random vectors: {killed['random']} "
              f"(a block whose mutants die only there has a gap in its directed set); by whole games and recorded "
              f"searches: {killed['other']}; by a hang (timeout): {killed['timeout']}.", "", "| block | killed by (test: mutants) |", "|---|---|"]
    for block, tests in result["killed_by_test"].items():
        lines.append(f"| {block} | " + ", ".join(f"{test}: {n}" for test, n in sorted(tests.items(), key=lambda x: -x[1]))
                     + " |")
    lines += ["", "## By operator", "", "| operator | mutants | killed | survived | score |", "|---|---|---|---|---|"]
    for operator, row in sorted(result["operators"].items()):
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(f"| {operator} | {row['mutants']} | {row['killed']} | {row['survived']} | {score} |")
    lines += ["", f"## Survivors ({len(result['survivors'])})", ""]
    for survivor in result["survivors"]:
        lines += [f"- `{survivor['id']}` ({survivor['block']}, {survivor['function']})",
                  f"  - `- {survivor['original']}`", f"  - `+ {survivor['mutated']}`",
                  f"  - replay: `{survivor['replay']}`"]
        lines += _proof_lines(survivor.get("proof"))
        if (survivor.get("proof") or {}).get("verdict") == "counterexample" and out is not None:
            lines.append(f"  - keep the counterexample as a corpus case: `gamechip mutate --out {out} --add-to-corpus "
                         f"'{survivor['id']}'`")
    if result["equivalent"]:
        lines += ["", f"## Proved equivalent ({len(result['equivalent'])})", "",
                  "Yosys SAT miter against the original: combinational blocks on every legal board (no square "
                  "both black and white), sequential ones bounded from reset.", ""]
        for mutant in result["equivalent"]:
            proof = mutant.get("proof") or {}
            bound = f", bounded: {proof['bounded_cycles']} cycles" if proof.get("bounded_cycles") else ""
            lines.append(f"- `{mutant['id']}` ({mutant['block']}): `{mutant['original']}` -> `{mutant['mutated']}` "
                         f"({proof.get('seconds', 0):.0f} s{bound})")
    if result["waived"]:
        lines += ["", f"## Waived ({len(result['waived'])}, reviewed in tb/mutation_waivers.json)", ""]
        lines += [f"- `{w['id']}` ({w['block']}): `{w['original']}` -> `{w['mutated']}`: {w['reason']}"
                  f"{'' if w.get('simulated', True) else ' (not run: --recheck-waivers runs it)'}"
                  for w in result["waived"]]
    if result["errors"]:
        lines += ["", f"## Errors ({len(result['errors'])})", ""]
        lines += [f"- `{e['id']}`: {e['message'][:200]}" for e in result["errors"]]
    return "\n".join(lines) + "\n"


def _bench_bug_lines(result):
    """The report's loudest section: mutants the bench killed that equal the original."""
    bugs = result.get("bench_bugs") or []
    if not bugs:
        return []
    lines = [f"## BENCH BUGS ({len(bugs)}): killed mutants that are equivalent to the original", "",
             "The bench rejected a design that answers as the original does: the bench (or the golden model, "
             "or a watchdog) is wrong, not the mutant. `gamechip mutate` and `gamechip report` exit with status 3.",
             ""]
    for bug in bugs:
        lines += [f"- `{bug['id']}` ({bug['block']}, {bug['function']}): `{bug['original']}` -> `{bug['mutated']}`",
                  f"  - killed by `{bug['test']}`: {bug['message'][:300]}", f"  - yet {bug['evidence']}"]
    return lines + [""]


def _proof_lines(proof):
    """The survivor's SAT verdict: a counterexample as its inputs and, for a board, its picture."""
    if not proof:
        return []
    if proof["verdict"] != "counterexample":
        return [f"  - proof: {proof['verdict']}{': ' + proof['detail'] if proof.get('detail') else ''}"]
    inputs = proof.get("inputs") or {}
    steps = inputs if isinstance(inputs, list) else [inputs]
    lines = [f"  - counterexample (the mutant answers differently{', ' + proof['detail'] if proof.get('detail') else ''}): "
             + " | ".join(", ".join(f"{k}=0x{v:x}" for k, v in sorted(step.items())) for step in steps[:4])
             + (" ..." if len(steps) > 4 else "")]
    if not isinstance(inputs, list):
        board = _board(inputs)
        if board:
            lines += ["", "    ```", *("    " + row for row in board.splitlines()), "    ```"]
    return lines


def _board(inputs):
    from golden.board import BoardError, Position, draw

    for black, white in (("black", "white"), ("own", "opp")):
        if black in inputs and white in inputs:
            try:
                return draw(Position(inputs[black], inputs[white], bool(inputs.get("white_to_move", 0))),
                            highlight=1 << inputs["move"] if "move" in inputs else 0)
            except (BoardError, ValueError):
                return None
    return None


ANNOTATED = "annotated"


def write_annotated(result, out):
    """OUT/annotated/rtl/<file>.txt: the source with each line's verdicts in the margin
    (k = killed, S = survived, e = proved equivalent, w = waived, E = error, . = pending)."""
    marks = {"killed": "k", "survived": "S", "equivalent": "e", "waived": "w", "errors": "E", "pending": "."}
    written = []
    for name, lines in result["lines"].items():
        source = Path(result.get("rtl_root") or ".") / name
        try:
            text = source.read_text()
        except OSError:
            continue
        if file_digest(text) != result["digests"].get(name):
            continue   # edited since the run: its lines no longer match
        target = Path(out) / ANNOTATED / (name + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        rows = []
        for number, code in enumerate(text.splitlines(), 1):
            counts = lines.get(number, {})
            margin = " ".join(f"{n}{marks[k]}" for k, n in counts.items())
            rows.append(f"{margin:>14} {number:5} | {code}")
        target.write_text(f"# {name}: verdicts per line ({', '.join(f'{m} = {k}' for k, m in marks.items())})\n"
                          + "\n".join(rows) + "\n")
        written.append(target)
    return written


def print_summary(result, as_json, out):
    report = format_report(result, out)
    (Path(out) / "report.md").write_text(report)
    write_annotated(result, out)
    if as_json:
        print(json.dumps({"blocks": {name: {key: row[key] for key in ("kind", "mutants", "killed", "survived", "equivalent",
                                                                      "waived", "errors", "pending", "not_mutants",
                                                                      "score")}
                                     for name, row in result["blocks"].items()},
                          "killed_by": result["killed_by"], "survivors": [s["id"] for s in result["survivors"]],
                          "bench_bugs": [{key: bug[key] for key in ("id", "block", "test", "evidence")}
                                         for bug in result["bench_bugs"]]}))
        return
    table = report.split("## By operator")[0]
    print(table.rstrip())
    for bug in result["bench_bugs"]:
        print(f"BENCH BUG: {bug['id']} ({bug['block']}) killed by {bug['test']}, yet {bug['evidence']}",
              file=sys.stderr)
    for survivor in result["survivors"][:20]:
        print(f"survived: {survivor['file']}:{survivor['line']} {survivor['operator']}: "
              f"{survivor['original']}  ->  {survivor['mutated']}")
    if len(result["survivors"]) > 20:
        print(f"... {len(result['survivors']) - 20} more in {Path(out) / 'report.md'}")
    print(f"report: {Path(out) / 'report.md'}")
