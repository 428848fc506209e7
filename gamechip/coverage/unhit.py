"""Why a converted line that no test reaches is not a hole: the explanations of
tb/coverage_unhit.toml and the facts about the converted netlist (CHECKS) an explanation may
require (docs/code-coverage.md).

An explanation names a design, an always block and a line's text, and argues from docs/spec.md or the
MyHDL source why the lines it matches are not holes; a check makes sure it explains only the lines
where the fact it argues from holds. Most argue that the lines cannot be reached; the check
``hit_in_block_bench`` stands for lines of a block instance that its own bench reaches (BlockRuns).
"""

import fnmatch
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from gamechip.coverage.source_map import verilog_blocks

ROOT = Path(__file__).resolve().parents[2]
# Unhit lines and why they are not holes, argued from docs/spec.md (reviewed like tb/mutation_waivers.json)
EXPLANATIONS = ROOT / "tb" / "coverage_unhit.toml"


class CodeCoverageError(RuntimeError):
    """A coverage run could not be made or read: one message says what was expected and what was
    seen, and where the log is."""


CASE_ITEM = re.compile(r"^\s*(\d+|default)\s*:")
CASE_SUBJECT = re.compile(r"^\s*case\s*\((\w+)\)")
ASSIGNED = re.compile(r"^\s*(\w+)\s*=")
CONDITION = re.compile(r"^\s*(?:else\s+)?if\s*\(")
GUARD = re.compile(r"\((\w+) (>=|!=) (\d+)\)")
# The generators of the cell networks (rtl/cells.py, rtl/disc_flipper.py) whose outputs are
# bounded by what arrives: a run grows by one disc a cell (Table 1), a flip count falls by one (Table 2).
RUN_START, RUN_GROWS, COUNT_FALLS = ("_start_pattern",), ("_extend_pattern",), ("_originate_flips", "_relay_flips")


def pattern_bounds(verilog, blocks):
    """signal -> the largest value it can carry, for the signals of the cell networks: a
    line_start_cell's pattern is 0 or 1, a pattern_cell's at most one more than the largest arriving
    at it (docs/spec.md §2, Table 1: a run grows by one disc a cell), and a flip count one less than
    the largest pattern or count it comes from (Table 2: a count falls by one a hop). A signal whose
    chain leaves these networks gets no bound."""
    lines = verilog.splitlines()
    driven = {}   # signal -> (step, [the signals its cell's cases read])
    for label, first, last in blocks:
        body = lines[first - 1:last]
        outputs = {m[1] for m in map(ASSIGNED.match, body) if m}
        subjects = [m[1] for m in map(CASE_SUBJECT.match, body) if m]
        if len(outputs) != 1:
            continue
        if label.endswith(RUN_START):
            driven[outputs.pop()] = (1, [])
        elif label.endswith(RUN_GROWS) and len(subjects) == 1:
            driven[outputs.pop()] = (1, subjects)
        elif label.endswith(COUNT_FALLS) and subjects:
            driven[outputs.pop()] = (-1, subjects)
    bounds, visiting = {}, set()

    def bound(signal):
        if signal not in bounds:
            if signal not in driven or signal in visiting:
                return None
            visiting.add(signal)
            step, inputs = driven[signal]
            before = [bound(source) for source in inputs]
            visiting.discard(signal)
            bounds[signal] = 1 if not inputs else None if None in before else max(before) + step
        return bounds[signal]

    for signal in list(driven):
        bound(signal)
    return {signal: value for signal, value in bounds.items() if value is not None}


def enclosing(context, line, pattern):
    """The match of ``pattern`` on the nearest line before ``line`` in its always block, and that line."""
    block = context.source_map.block_at(line)
    if block is None:
        return None, None
    for number in range(line - 1, block[1] - 1, -1):
        found = pattern.match(context.lines[number - 1])
        if found:
            return found, number
    return None, None


def case_item(context, line):
    """(subject, value) of a case item line (value None for default), or None."""
    item = CASE_ITEM.match(context.lines[line - 1])
    subject, _ = enclosing(context, line, CASE_SUBJECT) if item else (None, None)
    if subject is None:
        return None
    return subject[1], None if item[1] == "default" else int(item[1])


def guards(context, line, subject):
    """[(operator, constant)] that the condition line ``line`` puts on ``subject``."""
    return [(op, int(k)) for name, op, k in GUARD.findall(context.lines[line - 1]) if name == subject]


def case_item_beyond_run_length(context, line):
    """Whether ``line`` is a case item (or default) of a cell network whose value is larger than any
    pattern or flip count that can arrive there (pattern_bounds)."""
    item = case_item(context, line)
    largest = None if item is None else context.pattern_bounds.get(item[0])
    if largest is None:
        return False
    if item[1] is not None:
        return item[1] > largest
    listed = listed_items(context, line)
    return min(set(range(len(listed) + 1)) - listed) > largest


def case_item_excluded_by_guard(context, line):
    """Whether ``line`` is a case item whose value the condition around its case rules out: the
    item 0 under ``(x != 0)``, an item below k under ``(x >= k)``."""
    item = case_item(context, line)
    if item is None or item[1] is None:
        return False
    _, case_line = enclosing(context, line, CASE_SUBJECT)
    _, condition = enclosing(context, case_line, CONDITION)
    if condition is None or "||" in context.lines[condition - 1]:   # only a conjunction's guards all hold
        return False
    return any((op == "!=" and item[1] == k) or (op == ">=" and item[1] < k)
               for op, k in guards(context, condition, item[0]))


def guard_beyond_run_length(context, line):
    """Whether ``line`` is a condition (or the case right under it) that a cell network's bound makes
    false: ``(x >= k)`` with x at most k - 1, ``(x != 0)`` with x always 0 (pattern_bounds)."""
    condition = line if CONDITION.match(context.lines[line - 1]) else None
    if condition is None and CASE_SUBJECT.match(context.lines[line - 1]):
        _, condition = enclosing(context, line, CONDITION)
    if condition is None or "||" in context.lines[condition - 1]:   # one false guard falsifies a conjunction only
        return False
    for name, op, k in GUARD.findall(context.lines[condition - 1]):
        largest = context.pattern_bounds.get(name)
        if largest is not None and ((op == ">=" and largest < int(k)) or (op == "!=" and largest == 0 == int(k))):
            return True
    return False


LOADED, GATE = r"^(\s*){register} <= (.*);$", re.compile(r"^\s*(?:else\s+)?if \(\(?(\w+)\)?\) begin$")


def rom_ones(context, subject, output):
    """The items of the ``case (subject)`` (a ROM) setting ``output`` non-zero, or None without one."""
    for number, text in enumerate(context.lines, 1):
        if (case := CASE_SUBJECT.match(text)) and case[1] == subject:
            items = {}
            for item_text in context.lines[number:]:
                if item_text.strip() == "endcase":
                    break
                found = re.match(rf"^\s*(\d+): {output} = (\d+);$", item_text)
                if found:
                    items[int(found[1])] = int(found[2])
            if items:
                return {value for value, bit in items.items() if bit}
    return None


def case_item_never_loaded(context, line):
    """Whether ``line`` is a case item whose register never holds its value: each assignment to the
    register is a constant or ``register <= data;`` right under ``if (gate)``, gate a ROM of data."""
    item = case_item(context, line)
    if item is None:
        return False
    if item[0] not in context.values_held:
        context.values_held[item[0]] = values_held(context, item[0])
    held = context.values_held[item[0]]
    if held is None:
        return False
    if item[1] is None:   # the default stands for every value no item lists
        return not (held - listed_items(context, line))
    return item[1] not in held


def listed_items(context, default_line):
    """The values the items of a case list before its ``default`` item at ``default_line``."""
    _, case_line = enclosing(context, default_line, CASE_SUBJECT)
    return {case_item(context, n)[1] for n in range(case_line + 1, default_line)
            if CASE_ITEM.match(context.lines[n - 1])} - {None}


def values_held(context, register):
    """The values ``register`` can hold by case_item_never_loaded's rule, or None."""
    held = set()
    loads = [(number, m) for number, text in enumerate(context.lines, 1)
             if (m := re.match(LOADED.format(register=re.escape(register)), text))]
    assigned_otherwise = re.compile(rf"^\s*{re.escape(register)}(\[.*\])? =|^\s*{re.escape(register)}\[.*\] <=")
    if not loads or any(assigned_otherwise.match(text) for text in context.lines):
        return None
    for number, load in loads:
        if load[2].isdigit():
            held.add(int(load[2]))
            continue
        if not re.fullmatch(r"\w+", load[2]):   # loaded from an expression: no bound
            return None
        parent = next((n for n in range(number - 1, 0, -1) if indent(context.lines[n - 1]) < len(load[1])), None)
        gate = GATE.match(context.lines[parent - 1]) if parent else None
        ones = rom_ones(context, load[2], gate[1]) if gate else None
        if ones is None:
            return None
        held |= ones
    return held


LAST_ITERATION_TEST = re.compile(r"^(?:else )?if \(\((\w*)iteration_late == \1limit_late\)\) begin$")


def indent(text):
    return len(text) - len(text.lstrip())


def enclosing_headers(context, line, first):
    """The lines that open the constructs around ``line`` (MyHDL indents what they hold), innermost
    first, back to the always block's first line ``first``."""
    level = indent(context.lines[line - 1])
    for number in range(line - 1, first - 1, -1):
        if indent(context.lines[number - 1]) < level:
            level = indent(context.lines[number - 1])
            yield number


def next_iteration_arm(context, line):
    """Whether ``line`` is the ``else`` of the search engine's test for its last iteration,
    ``if ((iteration_late == limit_late))`` (rtl/search.py control, at a root's return), or lies in
    that else arm: the arm that starts the next iteration."""
    block = context.source_map.block_at(line)
    if block is None:
        return False
    for number in [line, *enclosing_headers(context, line, block[1])]:
        text = context.lines[number - 1]
        if text.strip() != "else begin":
            continue
        test = next((n for n in range(number - 1, block[1] - 1, -1) if indent(context.lines[n - 1]) == indent(text)
                     and re.match(r"^\s*(else )?if \(", context.lines[n - 1])), None)
        if test is not None and LAST_ITERATION_TEST.match(context.lines[test - 1].strip()):
            return True
    return False


def corner_flip_detector(context, line):
    """Whether ``line`` lies in the flip detector (``flipped_cell``'s ``detect_flip``) of a corner
    square: rtl/disc_flipper.py makes one flipped cell a square in square order, so the detector's
    rank among its flipper's N*N flipped cells is its square (ranked_paths)."""
    block = context.source_map.block_at(line)
    if block is None or not block[0].endswith("_detect_flip"):
        return False
    path, generator = context.paths()[block[0]]
    if generator != "detect_flip" or not path or path[-1][0] != "flipped_cell":
        return False
    cells = sum(1 for other, name in context.paths().values()
                if name == "detect_flip" and other[:-1] == path[:-1] and other[-1][0] == "flipped_cell")
    size = math.isqrt(cells)
    return size * size == cells and path[-1][1] in {0, size - 1, cells - size, cells - 1}


def unreachable_book_item(context, line):
    """Whether ``line`` is an item of the openings trie's ROMs (rtl/openings.py, at its ``node`` and
    ``cursor``) that no game reads: tb.checks.book_games unread_trie_items (from the book and the
    golden rule); the default when every node it stands for is one (they hold only node numbers)."""
    item = case_item(context, line)
    kind = None if item is None else item[0].rpartition("_")[2]
    if kind not in ("node", "cursor"):
        return False
    from rtl.openings import book_trie
    from tb.checks.book_games import unread_trie_items

    unread = unread_trie_items()[kind]
    if item[1] is not None:
        return item[1] in unread
    return set(range(len(book_trie()))) - listed_items(context, line) <= unread


# Identifiers of the converted Verilog (not a based literal's digits such as 8'hff, nor a system
# task's name): the names hit_in_block_bench renames to compare two always blocks' logic.
NET_NAME = re.compile(r"(?<![\w'$])[A-Za-z_]\w*")
VERILOG_WORDS = {"always", "begin", "end", "if", "else", "case", "endcase", "default", "or", "posedge", "negedge",
                 "assign", "signed"}
# One instance of an always block's label: the @block function's name and MyHDL's number of its call.
INSTANCE = re.compile(r"([A-Za-z_][A-Za-z_]*?)(\d+)_")


def renamed(lines):
    """An always block's text with every net (and its label) renamed in order of first appearance:
    two blocks give the same text exactly when they are the same logic over renamed nets."""
    names = {}

    def rename(found):
        word = found[0]
        return word if word in VERILOG_WORDS else names.setdefault(word, f"n{len(names)}")

    return "\n".join(NET_NAME.sub(rename, line.strip()) for line in lines)


def instance_path(label):
    """((block function, call number), ...) of an always block's label, and its generator:
    ``search0_disc_flipper0_flip_cell5_relay_flips`` -> ((search, 0), (disc_flipper, 0), (flip_cell, 5)),
    ``relay_flips``."""
    path, at = [], 0
    while found := INSTANCE.match(label, at):
        path.append((found[1], int(found[2])))
        at = found.end()
    return tuple(path), label[at:]


def ranked_paths(labels):
    """{label: (path, generator)} with each call number replaced by its rank among the instances of
    the same function under the same parent. MyHDL numbers the calls of a @block function through
    the whole elaboration, so the same cell of a block has different numbers in the block's own
    design and in a design that holds a copy of it; its rank under its parent is the same."""
    parsed = {label: instance_path(label) for label in labels}
    numbers = {}
    for path, _ in parsed.values():
        for depth in range(len(path)):
            numbers.setdefault((path[:depth], path[depth][0]), set()).add(path[depth][1])
    ranks = {key: {number: rank for rank, number in enumerate(sorted(values))} for key, values in numbers.items()}
    return {label: (tuple((name, ranks[(path[:depth], name)][number]) for depth, (name, number) in enumerate(path)),
                    generator) for label, (path, generator) in parsed.items()}


@dataclass
class BenchBlock:
    """An always block of a batch block's converted design, and whether its bench reached each line."""
    function: str        # the block's @block function (the batch block's name)
    design: str
    lines: list          # its text
    first: int           # its first line in the design's converted Verilog
    reached: frozenset   # the design's converted lines that a hit point stands for


def fingerprint(blocks):
    """One value for a set of always blocks [(ranked path, generator, text lines)]: equal for two
    sets exactly when they hold the same places, generators and logic (renamed)."""
    return hash(tuple(sorted((path, generator, renamed(lines)) for path, generator, lines in blocks)))


class BlockRuns:
    """The always blocks of the batch blocks' own code-coverage runs, for hit_in_block_bench: ``runs``
    is a function giving [(block, design, converted Verilog, reached lines)] (the block named as its
    @block function), called the first time a check needs it."""

    def __init__(self, runs):
        self.runs, self.by_path, self.designs = runs, None, {}

    def load(self):
        self.by_path = {}
        for function, design, verilog, reached in self.runs():
            lines, blocks = verilog.splitlines(), verilog_blocks(verilog)
            ranked = ranked_paths([name for name, _, _ in blocks])
            self.designs[design] = fingerprint([(*ranked[name], lines[first - 1:last]) for name, first, last in blocks])
            for name, first, last in blocks:
                bench = BenchBlock(function, design, lines[first - 1:last], first, reached)
                self.by_path.setdefault(ranked[name], []).append(bench)

    def copies(self, context, path, generator):
        """The bench blocks of which the always block at ``path`` (ranked) with ``generator`` in
        ``context``'s design is a copy: the same generator at the same place in an instance of the
        bench block's function (the flipper's ``flip_cell5_relay_flips`` for the processor's
        ``search0_disc_flipper0_flip_cell5_relay_flips``), the instance being, always block by
        always block, the same logic as the bench block's design (so the same size and weights)."""
        if self.by_path is None:
            self.load()
        found = []
        for start in range(1, len(path) + 1):
            for bench in self.by_path.get((path[start:], generator), []):
                if bench.function == path[start - 1][0] and instance_fingerprint(context, path[:start]) == \
                        self.designs[bench.design]:
                    found.append(bench)
        return found


def instance_fingerprint(context, prefix):
    """fingerprint of the always blocks of ``context``'s design under the instance at ``prefix``
    (a ranked path), their paths taken from there."""
    if prefix not in context.instances:
        blocks = [(path[len(prefix):], generator, context.lines[first - 1:last])
                  for (name, first, last, _) in context.source_map.blocks
                  for path, generator in [context.paths()[name]] if path[:len(prefix)] == prefix]
        context.instances[prefix] = fingerprint(blocks)
    return context.instances[prefix]


def hit_in_block_bench(context, line):
    """Whether ``line`` lies in a copy of a batch block (BlockRuns.copies) whose own bench reached
    the line at the same place in the always block."""
    block = context.source_map.block_at(line)
    if block is None or context.block_runs is None:
        return False
    label, first, last = block[:3]
    return any(len(bench.lines) == last - first + 1 and bench.first + line - first in bench.reached
               for bench in context.block_runs.copies(context, *context.paths()[label]))


# Facts about the converted netlist an explanation may require besides its patterns: the name an
# entry's ``check`` gives -> a function (design context, line) -> whether the fact holds there.
CHECKS = {"beyond_run_length": case_item_beyond_run_length, "excluded_by_guard": case_item_excluded_by_guard,
          "guard_beyond_run_length": guard_beyond_run_length, "never_loaded": case_item_never_loaded,
          "unreachable_book_item": unreachable_book_item, "hit_in_block_bench": hit_in_block_bench,
          "next_iteration_arm": next_iteration_arm, "corner_flip_detector": corner_flip_detector}


@dataclass
class DesignContext:
    """What the checks read of one converted design."""
    lines: list
    source_map: "SourceMap"
    pattern_bounds: dict
    values_held: dict = field(default_factory=dict)   # register -> the values it can hold, or None (never_loaded)
    block_runs: object = None                         # BlockRuns of the batch blocks' runs (hit_in_block_bench)
    ranked_paths: dict = None                         # label -> its ranked instance path and generator (paths)
    instances: dict = field(default_factory=dict)     # ranked path of an instance -> its fingerprint (the same)

    def paths(self):
        """{label: (ranked instance path, generator)} of every always block (ranked_paths), made once."""
        if self.ranked_paths is None:
            self.ranked_paths = ranked_paths([name for name, _, _, _ in self.source_map.blocks])
        return self.ranked_paths


@dataclass(frozen=True)
class Explanation:
    """Why some unhit lines of a converted design cannot be reached (tb/coverage_unhit.toml)."""
    design: object   # a glob on the converted design's name (its file <design>.v), or a tuple of globs
    block: tuple     # globs on the always block's label (one must match)
    text: str        # a regular expression the stripped source line must match (search)
    reason: str      # the argument, from docs/spec.md
    check: str = ""  # a fact of CHECKS that must hold at the line too

    def names(self, design):
        """Whether the entry is about ``design`` (one of its design globs matches)."""
        globs = (self.design,) if isinstance(self.design, str) else self.design
        return any(fnmatch.fnmatchcase(design, glob) for glob in globs)

    def matches(self, design, label, line, context):
        return (self.names(design) and any(fnmatch.fnmatchcase(label or "", glob) for glob in self.block)
                and re.search(self.text, context.lines[line - 1].strip()) is not None
                and (not self.check or CHECKS[self.check](context, line)))


def load_explanations(path=EXPLANATIONS):
    """The explanations of the file; CodeCoverageError for an entry without a design, block, text or reason."""
    if not Path(path).exists():
        return []
    entries = tomllib.loads(Path(path).read_text()).get("unhit", [])
    explanations = []
    for number, entry in enumerate(entries, 1):
        missing = [key for key in ("design", "block", "text", "reason") if not str(entry.get(key, "")).strip()]
        if missing:
            raise CodeCoverageError(f"{path}: entry {number} has no {', '.join(missing)}: each needs design, "
                                    f"block, text and reason")
        check = entry.get("check", "")
        if check and check not in CHECKS:
            raise CodeCoverageError(f"{path}: entry {number} names the check '{check}': choose one of "
                                    f"{', '.join(CHECKS)}")
        try:
            re.compile(entry["text"])
        except re.error as error:
            raise CodeCoverageError(f"{path}: entry {number}: text is not a regular expression: {error}")
        globs = (entry["block"],) if isinstance(entry["block"], str) else tuple(entry["block"])
        designs = entry["design"] if isinstance(entry["design"], str) else tuple(entry["design"])
        explanations.append(Explanation(designs, globs, entry["text"], entry["reason"].strip(), check))
    return explanations
