"""What every mutation module shares: the Mutant record and its id, the digest of an rtl file
version that ids and waivers name, the kinds of mutant, the expression operators that source and
elaboration-time mutants apply, and the AST paths they are applied at.

A mutant's id is stable: its file, line, column, operator and the digest of the file's text
(``file_digest``), so a verdict survives edits elsewhere and a waiver pins one version of its file.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

MUTSEL = "MUTSEL"
MUTSEL_BITS = 16
GENERATOR_DECORATORS = ("always_comb", "always_seq", "always")
# files of rtl/ that hold no converted logic (the converter, the design table, lint waivers)
NOT_LOGIC = {"convert.py", "designs.py", "lint.py", "elaboration.py", "__init__.py"}
# files of rtl/ whose logic gamechip mutate leaves alone, each with its reason
NOT_MUTATED = {
    "board.py": "the board top's glue around the processor (reset synchroniser, input watch, LED drivers; "
                "the PLL is the FPGA's): the processor's own mutants are judged by its bench, and the glue by "
                "the board's bench (tb/test_board.py), which no mutant run drives",
    "root_split.py": "the two-context processor's root splitter: its bench (the processor bench on processor_c2, "
                     "every job against golden/root_split.py) is not yet a gamechip mutate row, so its mutants "
                     "are not judged and the mutation score does not cover it",
}

BINOP_SWAPS = {ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.BitAnd: (ast.BitOr, ast.BitXor),
               ast.BitOr: (ast.BitAnd, ast.BitXor), ast.BitXor: (ast.BitOr, ast.BitAnd),
               ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,)}
COMPARE_SWAPS = {ast.Lt: (ast.LtE,), ast.LtE: (ast.Lt,), ast.Gt: (ast.GtE,), ast.GtE: (ast.Gt,),
                 ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,)}
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
           ast.RShift: ">>", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
           ast.And: "and", ast.Or: "or", ast.Not: "not", ast.Invert: "~", ast.USub: "-"}

# The kinds of mutant; a block's netlist and elaboration-time mutants are rows of their own in a
# run's report, named by the block and a suffix ("move_checker:netlist").
SOURCE = "source"     # a rewrite of the converted logic of rtl/, in the schemata build (schemata.py)
ELAB = "elab"         # a rewrite of the Python that builds a design (elab.py)
ELAB_SUFFIX = ":elab"
NETLIST = "netlist"   # a Yosys mutation of the converted design (netlist.py)
NETLIST_SUFFIX = ":netlist"


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
    kind: str = SOURCE  # or ELAB, NETLIST
    spec: str = ""     # a netlist mutant's Yosys mutate command (without -ctrl)

    def to_dict(self):
        return asdict(self)


def _decorator_name(node):
    target = node.func if isinstance(node, ast.Call) else node
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None


def is_generator(function):
    """Whether ``function`` is an ``@always*`` generator: logic MyHDL converts."""
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


def replaced(tree, path, new):
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


def node_at(tree, path):
    """The node at ``path`` (as ``_sites`` addresses it) under ``tree``."""
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


def position_of(node, source):
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


class MutateError(Exception):
    """Bad input (unknown block, unwritable folder, a folder of another run): one line, exit 2."""


def rtl_files(rtl_root):
    package = Path(rtl_root) / "rtl"
    return sorted(p for p in package.rglob("*.py")
                  if p.name not in NOT_LOGIC and p.name not in NOT_MUTATED and not p.name.startswith("_"))


def file_digest(source):
    """The digest of one version of an rtl file, as a mutant id names it."""
    return hashlib.sha256(source.encode()).hexdigest()[:8]


def spread(mutants, limit):
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

