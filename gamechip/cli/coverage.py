"""``gamechip coverage``: run the benches with functional coverage sampling on (or merge hit files
already written: the regression's, a campaign's), check every bin of every plan (hit, waived, or a
hole), collect Verilator's code coverage, and write runs/coverage/index.html and coverage.json.

Exit status: 0 when every design is closed (every bin hit or waived, no stale waiver) and every
run passed; 1 when a hole remains or a run failed; 2 for bad input."""

import json
import shutil
import sys
from pathlib import Path

from gamechip.cli.arguments import simulator_list
from gamechip.cli.common import UsageError, output_dir
from gamechip.installation import require


def coverage_arguments(parser):
    from gamechip.coverage.plan import PLAN_DIR, WAIVERS_FILE
    from gamechip.coverage.runs import BENCH_CODE_TESTS

    planned = ", ".join(sorted(path.stem for path in PLAN_DIR.glob("*.toml") if path != WAIVERS_FILE))
    parser.add_argument("--blocks", nargs="+", metavar="BLOCK", default=["all"],
                        help=f"one or more of the blocks with a test plan (tb/testplans/: {planned}) or their "
                             f"designs, the designs whose code coverage alone is collected "
                             f"({', '.join(BENCH_CODE_TESTS)}), or all (the default)")
    parser.add_argument("--sims", nargs="+", metavar="SIM",
                        help=f"simulators to run the benches on, one or more of {simulator_list()} "
                             "(default: every one)")
    parser.add_argument("--out", default="runs/coverage", help="report folder (default runs/coverage)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    parser.add_argument("--hits", nargs="+", metavar="DIR",
                        help="merge the hit files under these folders instead of running the benches "
                             "(the regression's build/coverage/<session>, a campaign's folder)")
    parser.add_argument("--no-code", action="store_true", help="skip Verilator's code coverage")


def selected_designs(names, plans):
    """The designs ``names`` (blocks or designs of the plans, or all) select, in plan order; the
    designs without a plan whose code coverage alone is collected (code_only_designs) pass."""
    from gamechip.coverage.runs import BENCH_CODE_TESTS

    if not names or names == ["all"]:
        return list(plans)
    designs = []
    for name in names:
        if name in BENCH_CODE_TESTS:
            continue
        matching = [d for d, plan in plans.items() if d == name or plan.block == name]
        if not matching:
            blocks = sorted({plan.block for plan in plans.values()})
            raise UsageError(f"no test plan for '{name}': choose one of {', '.join(blocks)}, a design of theirs, "
                             f"{', '.join(BENCH_CODE_TESTS)} (code coverage only), or all")
        designs += [d for d in matching if d not in designs]
    return designs


def code_only_designs(names):
    """The designs without a test plan whose code coverage ``names`` asks for (all: every one)."""
    from gamechip.coverage.runs import BENCH_CODE_TESTS

    return [d for d in BENCH_CODE_TESTS if not names or names == ["all"] or d in names]


def collect_code_coverage(blocks, out_dir, progress, collected=None):
    """code_coverage's answer, or a line saying why there is none."""
    try:
        from gamechip.coverage.code import code_coverage
    except ImportError as error:
        return f"not collected (gamechip.coverage.code: {error})"
    try:
        return code_coverage(blocks, out_dir, progress=progress, collected=collected)
    except ImportError as error:
        return f"not collected ({error})"
    except Exception as error:   # the functional report must not be lost to a code coverage tool failing
        return f"not collected ({type(error).__name__}: {error})"


def run_coverage(args):
    require("coverage", "this command")
    from gamechip.coverage.model import design_coverage, export_cocotb_coverage, read_hit_files
    from gamechip.coverage.plan import PlanError, design_plans, load_waivers
    from gamechip.coverage.report import coverage_json, write_html

    try:
        plans, waivers = design_plans(), load_waivers()
    except PlanError as error:
        raise UsageError(str(error))
    designs = selected_designs(args.blocks, plans)
    code_only = [] if args.no_code else code_only_designs(args.blocks)
    out = output_dir(args.out, "--out")

    def progress(line):
        print(line, file=sys.stderr, flush=True)

    runs = []
    if args.hits:
        missing = [h for h in args.hits if not Path(h).exists()]
        if missing:
            raise UsageError(f"--hits {missing[0]}: no such file or folder")
        sources = args.hits
    else:
        from gamechip.cli.arguments import simulators
        from gamechip.cli.common import announce_rtl, check_sim
        from gamechip.coverage.runs import run_designs

        sims = args.sims or list(simulators())
        for sim in sims:
            check_sim(sim)
        announce_rtl()
        hits_dir = out / "hits"
        shutil.rmtree(hits_dir, ignore_errors=True)
        runs = run_designs(designs, sims, hits_dir, progress, code_out=None if args.no_code else out)
        sources = [hits_dir]
    merged = read_hit_files(sources)
    coverages = [design_coverage(d, merged.get(d), plans, waivers) for d in designs]
    blocks = list(dict.fromkeys(c.block for c in coverages))
    # the code coverage data the Verilator runs of the designs with benches of their own wrote
    collected = {design: (passed, note) for design, sim, passed, note in runs if sim == "verilator"}
    code = ("not collected (--no-code)" if args.no_code
            else collect_code_coverage(blocks + code_only, out, progress, collected))
    index = write_html(out / "index.html", coverages, code, runs, code_only)
    summary = coverage_json(coverages, code, code_only)
    (out / "coverage.json").write_text(json.dumps(summary, indent=2))
    exported = export_cocotb_coverage(coverages, out)
    if args.json:
        print(json.dumps(summary, indent=2))
    for coverage in coverages:
        entry = summary["blocks"][coverage.design]
        state = "closed" if coverage.closed else f"{len(coverage.holes)} holes"
        progress(f"{coverage.design:<18} bins {entry['bins']:>4}  hit {entry['hit']:>4}  "
                 f"waived {len(entry['waived']):>2}  {state}")
        for line in coverage.problems():
            progress(f"  {line}")
    for design in code_only:
        entry = summary["blocks"][design]
        progress(f"{design:<18} code coverage only: line {entry['line']}, branch {entry['branch']}, toggle "
                 f"{entry['toggle']}, {len(entry['unexplained'] or [])} unexplained lines")
    progress(f"report: {index}" + (f"; cocotb-coverage export: {exported[0]}, {exported[1]}" if exported else ""))
    failed = [r for r in runs if not r[2]]
    if failed:
        progress(f"FAIL: {len(failed)} run(s) failed: " + ", ".join(f"{d} on {s}" for d, s, _, _ in failed))
    open_designs = [c.design for c in coverages if not c.closed]
    if open_designs:
        progress(f"OPEN: {', '.join(open_designs)} (holes listed above)")
    return 1 if failed or open_designs else 0


COMMANDS = {"coverage": (coverage_arguments, run_coverage)}
