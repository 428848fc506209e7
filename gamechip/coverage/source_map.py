"""Converted Verilog back to its MyHDL source: the labelled always blocks MyHDL writes, and the
generator function of rtl/ each one came from (docs/code-coverage.md, "From a converted line back to
the MyHDL source")."""

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

GENERATOR_DECORATORS = ("always_comb", "always_seq", "always", "instance")


@dataclass(frozen=True)
class Generator:
    """A MyHDL generator function (@always_comb, @always_seq, @always, @instance) in rtl/."""
    name: str
    block: str      # the function it is defined in: the @block whose instances MyHDL names it after
    file: str       # relative to the RTL root
    line: int
    last: int       # its last line

    @property
    def where(self):
        return f"{self.file}:{self.line}-{self.last}"


def _decorator_name(node):
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)


def _nested_functions(function):
    """The functions defined in ``function``'s own body (under its ifs and loops too, not inside
    another function)."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef):
            yield node
        elif not isinstance(node, (ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def rtl_generators(rtl_root):
    """name -> [Generator]: every generator function of the rtl package under ``rtl_root``."""
    table = {}
    for source in sorted((Path(rtl_root) / "rtl").rglob("*.py")):
        tree = ast.parse(source.read_text(), str(source))
        for outer in ast.walk(tree):
            if not isinstance(outer, ast.FunctionDef):
                continue
            for inner in _nested_functions(outer):
                if any(_decorator_name(d) in GENERATOR_DECORATORS for d in inner.decorator_list):
                    table.setdefault(inner.name, []).append(Generator(
                        inner.name, outer.name, source.relative_to(rtl_root).as_posix(), inner.lineno,
                        inner.end_lineno))
    return table


def generator_of(label, generators, design=None):
    """The MyHDL generator an always block's label names, or None. MyHDL labels a generator's block
    <instance path>_<function name>, each instance named <its @block function><index>: the function
    name is the label's longest suffix that names a generator, and the instance before it must be of
    the block that defines that generator. With no instance before it, the generator is one of the
    design's top block: of the generators of that name, the one whose @block names ``design`` (the
    design itself, or the design a variant such as search_c2 is built from), or the only one; the
    first when ``design`` is not given."""
    tokens = label.split("_")
    for start in range(len(tokens)):
        name = "_".join(tokens[start:])
        prefix = "_".join(tokens[:start])
        candidates = generators.get(name, ())
        if not prefix and candidates:
            top = [g for g in candidates if design and (design == g.block or design.startswith(g.block + "_"))]
            if top or len(candidates) == 1 or design is None:
                return (top or candidates)[0]
            continue
        for generator in candidates:
            if re.search(rf"(^|_){re.escape(generator.block)}\d+$", prefix):
                return generator
    return None


BLOCK_START = re.compile(r"^(always\b.*|initial)\s+begin\s*:\s*(\w+)")


def verilog_blocks(verilog):
    """[(label, first line, last line)] of the labelled always and initial blocks MyHDL writes: each
    starts at column 0 and ends at the first line that is "end" at column 0."""
    blocks, open_block = [], None
    for number, text in enumerate(verilog.splitlines(), 1):
        if open_block is None:
            found = BLOCK_START.match(text)
            if found:
                open_block = (found[2], number)
        elif text.rstrip() == "end":
            blocks.append((open_block[0], open_block[1], number))
            open_block = None
    return blocks


@dataclass
class SourceMap:
    """Converted line -> its always block and the MyHDL generator of that block."""
    blocks: list                                  # (label, first, last, Generator or None)
    by_line: dict = field(default_factory=dict)   # line -> index in blocks

    @classmethod
    def of(cls, verilog, generators, design=None):
        blocks = [(label, first, last, generator_of(label, generators, design))
                  for label, first, last in verilog_blocks(verilog)]
        source_map = cls(blocks)
        for index, (_, first, last, _) in enumerate(blocks):
            for line in range(first, last + 1):
                source_map.by_line[line] = index
        return source_map

    def block_at(self, line):
        index = self.by_line.get(line)
        return None if index is None else self.blocks[index]

    def describe(self, line):
        block = self.block_at(line)
        if block is None:
            return "outside any always block (declarations and assign statements MyHDL writes for wiring)"
        label, _, _, generator = block
        if generator is None:
            return f"always block {label} (no generator of rtl/ has its name)"
        return f"always block {label}: {generator.name}() of @block {generator.block} at {generator.where}"

    def tsv(self):
        rows = ["label\tfirst line\tlast line\tgenerator\tMyHDL source"]
        rows += [f"{label}\t{first}\t{last}\t{g.name if g else '-'}\t{g.where if g else '-'}"
                 for label, first, last, g in self.blocks]
        return "\n".join(rows) + "\n"
