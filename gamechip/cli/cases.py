"""Commands that find, replay, shrink and keep failing cases: fuzz, replay, shrink, corpus."""

import json
import sys
import time
from pathlib import Path

from gamechip.cli.arguments import block_list, natural, positive, simulator_list
from gamechip.cli.common import UsageError, announce_rtl, blocks_named, case_rtl, check_sim, read_case, write_case


def shrink_saved_case(case_file):
    """Shrink the failing case in ``case_file`` in place, keeping the case as found beside it as
    ``<name>.orig.json``; return the case file to replay. Whatever goes wrong while shrinking,
    the case as found stays where it is and the reason is printed."""
    import shutil

    from tb.host.casefile import CaseFileError, read_case_file, write_case_file
    from tb.host.shrink import ShrinkError, shrink_record

    print("shrinking the case (each round: one simulation of every smaller candidate) ...", file=sys.stderr)
    try:
        record, case = read_case_file(case_file)
        shrunk = shrink_record(record, case)
    except (CaseFileError, ShrinkError) as error:
        print(f"not shrunk: {error}; keeping the case as found", file=sys.stderr)
        return case_file
    except Exception as error:  # a bug in the shrinker must not cost the failure it was given
        print(f"not shrunk: the shrinker failed ({error!r}); keeping the case as found", file=sys.stderr)
        return case_file
    if not shrunk.smaller:
        print(f"not shrunk: no {shrunk.unit} can be removed without losing the failure", file=sys.stderr)
        return case_file
    case_file = Path(case_file)
    original = case_file.with_name(case_file.name.removesuffix(".json") + ".orig.json")
    shutil.copyfile(case_file, original)
    write_case_file(case_file, shrunk.record)
    print(f"\n{shrunk.message}\n{shrunk.summary()}\nshrunk case:   {case_file}\ncase as found: {original}",
          file=sys.stderr)
    return case_file


def _report_failure(outcome, design, sim, shrink=False):
    from tb.host.runner import replay_case

    message = outcome.result.get("failure")
    if not message:
        print(outcome.log_excerpt(4000), file=sys.stderr)
        print(f"{design} on {sim}: the simulation failed before comparing anything; "
              f"full log: {outcome.sim_dir / 'gamechip.log'}", file=sys.stderr)
        return
    print(message, file=sys.stderr)
    case_file = shrink_saved_case(outcome.failure_case) if shrink else outcome.failure_case
    print("recording the waveform of this case ...", file=sys.stderr)
    _, waves = replay_case(case_file)
    print(f"waveform: {waves}" if waves.exists() else f"waveform: replay did not write {waves}", file=sys.stderr)


def fuzz_arguments(parser):
    parser.add_argument("--blocks", nargs="+", metavar="BLOCK", default=["all"],
                        help=f"one or more of {block_list()}, or all (the default)")
    parser.add_argument("--sim", default="icarus", help=f"one of {simulator_list()} (default icarus)")
    parser.add_argument("--count", type=positive, default=10000, help="positions per block (default 10000)")
    parser.add_argument("--seed", type=natural, default=1, help="same seed, same positions (default 1)")
    parser.add_argument("--no-shrink", action="store_true", help="keep a failing case as found, do not shrink it")
    parser.add_argument("--until-covered", action="store_true",
                        help="sample the block's test plan (tb/testplans/): run its directed and aimed cases, then "
                             "random positions until every bin is hit (--count is the cap); list the holes left "
                             "and exit 1 while any remain")


def _coverage_targets(blocks):
    """{design: bins to hit} of each block's fuzzed design (--until-covered); a block without a
    test plan is a usage error."""
    from gamechip.coverage.plan import PlanError, design_plans, load_waivers
    from gamechip.coverage.model import target_bins

    try:
        plans, waivers = design_plans(), load_waivers()
    except PlanError as error:
        raise UsageError(str(error))
    missing = [b.name for b in blocks if b.designs[0] not in plans]
    if missing:
        raise UsageError(f"--until-covered: no test plan for {', '.join(missing)} "
                         f"(plans: {', '.join(sorted({p.block for p in plans.values()}))})")
    return {b.designs[0]: target_bins(b.designs[0], plans, waivers) for b in blocks}


def _coverage_env(design, targets, folder):
    """The run's settings for --until-covered: sampling into ``folder``, the targets, and the golden
    model in the bench's process (where the sampler runs; the fast path's worker has none)."""
    import os
    import shutil

    from tb.checks.coverage_samplers import COVERAGE_OUT, COVERAGE_TARGETS
    from tb.sim.fastfuzz import GOLDEN_PYTHON

    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    target_file = Path(folder) / "targets.json"
    target_file.write_text(json.dumps(targets))
    # absolute: the simulator reads them in a working folder of its own
    return {COVERAGE_OUT: str((Path(folder) / "hits").resolve()), COVERAGE_TARGETS: str(target_file.resolve()),
            GOLDEN_PYTHON: "inprocess"}


def _coverage_verdict(design, folder):
    """The design's coverage from the run's hit files: (summary line, holes)."""
    from gamechip.coverage.model import design_coverage, read_hit_files

    coverage = design_coverage(design, read_hit_files([Path(folder) / "hits"]).get(design))
    summary = coverage.summary()
    line = (f"coverage of {design}: {summary['hit']}/{summary['bins']} bins hit, {len(summary['waived'])} waived, "
            f"{len(coverage.holes)} holes ({summary['sampled']:,} cases sampled)")
    return line, coverage.problems()


def run_fuzz(args):
    from tb.host.runner import run_design

    check_sim(args.sim)
    blocks = blocks_named(args.blocks)
    announce_rtl()
    print(f"fuzz: {', '.join(b.name for b in blocks)} on {args.sim}, {args.count:,} random positions per block "
          f"(a block may check more than one case per position), seed {args.seed}", file=sys.stderr)
    if args.blocks == ["all"]:
        from tb.blocks import CHECKED_ELSEWHERE

        print("fuzz: not fuzzed here: " + "; ".join(f"{name} ({how})" for name, how in CHECKED_ELSEWHERE.items()),
              file=sys.stderr)
    targets = _coverage_targets(blocks) if args.until_covered else {}
    summary, open_bins = [], []
    for block in blocks:
        design = block.designs[0]
        started = time.perf_counter()
        env = {"GAMECHIP_SEED": str(args.seed), "GAMECHIP_COUNT": str(args.count)}
        tests = ["fuzz"]
        if args.until_covered:
            from tb.host.runner import BUILD

            folder = BUILD / "coverage" / f"fuzz-{design}-{args.sim}"
            env.update(_coverage_env(design, targets[design], folder))
            tests = ["directed", "fuzz"]
        outcome = run_design(design, args.sim, block.module, tests, echo=True, tag="fuzz", env=env)
        fuzz = outcome.result.get("tests", {}).get("fuzz", {})
        if not outcome.passed:
            _report_failure(outcome, design, args.sim, shrink=not args.no_shrink)
            print(f"FAIL {block.name} on {args.sim}, seed {args.seed}: reproduce with "
                  f"gamechip fuzz --blocks {block.name} --sim {args.sim} --count {args.count} --seed {args.seed}",
                  file=sys.stderr)
            return 1
        rate = fuzz["checked"] / fuzz["wall_seconds"] if fuzz.get("wall_seconds") else 0.0
        summary.append((block.name, fuzz.get("checked", 0), rate, time.perf_counter() - started))
        if args.until_covered:
            line, holes = _coverage_verdict(design, folder)
            directed = outcome.result.get("tests", {}).get("directed", {}).get("checked", 0)
            print(f"{line}; cases checked: {directed:,} directed and aimed, {fuzz.get('checked', 0):,} random",
                  file=sys.stderr)
            for hole in holes:
                print(f"  {hole}", file=sys.stderr)
            open_bins += holes
    print(f"\n{'block':<14} {'sim':<10} {'positions':>10} {'cases':>10} {'cases/s':>11} {'run time':>9}  seed")
    for name, checked, rate, seconds in summary:
        print(f"{name:<14} {args.sim:<10} {args.count:>10,} {checked:>10,} {rate:>11,.0f} {seconds:>8.1f}s  {args.seed}")
    print(f"PASS: {sum(s[1] for s in summary):,} cases checked against the golden model, no mismatch (seed {args.seed})")
    if open_bins:
        print(f"NOT COVERED: {len(open_bins)} bins open after {args.count:,} positions (listed above); "
              f"a larger --count, or a generator aimed at them (docs/coverage.md)")
        return 1
    return 0


def _without_replay_hint(report):
    """A failure report without its last line's advice to replay the case with a waveform: what
    a replay with --waves prints after it has just done so."""
    from tb.sim.results import REPLAY_HINT

    return "\n".join(line for line in report.splitlines() if not line.startswith(REPLAY_HINT))


def _print_views(written, notes, waves, stream):
    """One line per file written or not, then the command that opens the waveform."""
    for what, path in written:
        print(f"{what}: {path}", file=stream)
    for note in notes:
        print(f"note: {note}", file=stream)
    save = next((path for what, path in written if what.startswith("GTKWave save file")), None)
    if save or (waves and Path(waves).exists()):
        print(f"open it: gtkwave {save or waves}", file=stream)


def _print_replay_views(record, outcome, waves, stream):
    """Write the GTKWave save file, signal window and board pictures of a replayed case next to
    its waveform (gamechip/views/replay.py) and print one line per file or per thing not written."""
    from gamechip.views.replay import write_replay_views

    if outcome.failure_case.exists():  # failed again: the replay's own values match its waveform
        try:
            record = json.loads(outcome.failure_case.read_text())
        except (OSError, ValueError):
            pass
    else:
        print("note: the board pictures show the saved failure; the replay passed", file=stream)
    try:
        written, notes = write_replay_views(record, waves, outcome.sim_dir, passed=outcome.passed)
    except Exception as error:  # pictures are a help: never a traceback instead of the replay's verdict
        written, notes = [], [f"pictures not written: {type(error).__name__}: {error}"]
    _print_views(written, notes, waves, stream)


def _replay_search(args, record, root):
    """A saved search-engine case: re-run the search with its node scoreboard."""
    from gamechip.views.search import write_search_views
    from tb.host.search_bench import replay_search_case

    outcome, waves = replay_search_case(args.case, waves=args.waves, echo=True, rtl_root=root)
    where = f"; waveform: {waves}" if waves else " (add --waves for a waveform)"
    stream = sys.stdout if outcome.passed else sys.stderr
    if outcome.passed:
        print(f"the case no longer fails on {record['sim']}{where}")
    else:
        print(_failure_report(outcome, args.waves), file=stream)
        print(f"still fails{where}", file=stream)
    if args.waves:
        try:
            fresh = json.loads(outcome.failure_case.read_text()) if outcome.failure_case.exists() else record
        except (OSError, ValueError):
            fresh = record
        try:
            written, notes = write_search_views(fresh, waves, passed=outcome.passed)
        except Exception as error:  # pictures are a help, never a traceback instead of the verdict
            written, notes = [], [f"pictures not written: {type(error).__name__}: {error}"]
        _print_views(written, notes, waves, stream)
    return 0 if outcome.passed else 1


def replay_game_record(args):
    """``gamechip replay GAME.ggf``: every move replayed by the rules and drawn, then the result
    (an OBF position is drawn); a record that is no legal game is a BoardError (one line, 2)."""
    from golden.board import draw, popcount
    from golden.contest.ggf import parse_any_board, parse_ggf_games

    if args.waves:
        raise UsageError("--waves replays a case file on a simulator: a game record has no waveform")
    try:
        text = Path(args.case).read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {args.case}: {error}")
    if args.case.lower().endswith(".obf"):
        for line in (line for line in text.splitlines() if line.split("%", 1)[0].strip()):
            print(draw(parse_any_board(line)))
        return 0
    for number, game in enumerate(parse_ggf_games(text), 1):
        print(f"game {number}: {game.black_name or 'black'} (black) - {game.white_name or 'white'} (white)"
              f"{', from ' + game.start.text() if not game.from_standard_start() else ''}")
        positions = game.positions()
        for index, (move, position) in enumerate(zip(game.moves, positions[1:]), 1):
            what = "passes" if move.square is None else f"plays {move.text}"
            print(f"{index}. {'black' if move.color == 'X' else 'white'} {what}")
            print(draw(position))
        final = positions[-1]
        result = game.tags.get("RE", "?")
        print(f"final: black {popcount(final.black)} white {popcount(final.white)}; RE[{result}]"
              f"{'; ' + game.tags['GC'] if game.tags.get('GC') else ''}")
    return 0


def _failure_report(outcome, waves):
    """What a replay that failed again prints first: the bench's report (less its advice to add
    --waves when the replay has them), else the end of the simulator's log."""
    report = outcome.result.get("failure")
    if not report:
        return outcome.log_excerpt(4000)
    return _without_replay_hint(report) if waves else report


def replay_arguments(parser):
    parser.add_argument("case", help="case file (JSON) named in a failure report; or a game record (.ggf: replayed "
                                     "by the rules, move by move) or a position (.obf)")
    parser.add_argument("--waves", action="store_true", help="record the waveform of the case")


def run_replay(args):
    from tb.host.runner import replay_case

    if args.case.lower().endswith((".ggf", ".obf")):
        return replay_game_record(args)
    record, _ = read_case(args.case)
    check_sim(record["sim"])
    root = case_rtl(record)
    if record["block"] == "search":
        return _replay_search(args, record, root)
    if record["block"] == "evaluator_axi":
        from tb.host.evaluator_axi_bench import replay_bus_case

        outcome, waves = replay_bus_case(args.case, waves=args.waves, echo=True, rtl_root=root)
    else:
        outcome, waves = replay_case(args.case, waves=args.waves, echo=True, rtl_root=root)
    where = f"; waveform: {waves}" if waves else " (add --waves for a waveform)"
    if outcome.passed:
        print(f"the case no longer fails on {record['sim']}{where}")
        if args.waves:
            _print_replay_views(record, outcome, waves, sys.stdout)
        return 0
    print(_failure_report(outcome, args.waves), file=sys.stderr)
    print(f"still fails{where}", file=sys.stderr)
    if args.waves:
        _print_replay_views(record, outcome, waves, sys.stderr)
    return 1


def shrink_arguments(parser):
    parser.add_argument("case", help="case file (JSON) named in a failure report")
    parser.add_argument("--out", help="shrunk case file to write (default: CASE with .shrunk.json)")


def run_shrink(args):
    from tb.host.shrink import ShrinkError, reduction_for, shrink_record

    record, case = read_case(args.case)
    try:
        reduction_for(record["block"], case)   # a block whose cases cannot be shrunk: one line, status 2
    except ShrinkError as error:
        raise UsageError(str(error))
    check_sim(record["sim"])
    root = case_rtl(record)
    out = Path(args.out) if args.out else Path(args.case).with_name(Path(args.case).name.removesuffix(".json")
                                                                     + ".shrunk.json")
    print(f"shrink: {record['block']} ({record['design']}) on {record['sim']}, case {case.label}", file=sys.stderr)
    try:
        shrunk = shrink_record(record, case, rtl_root=root)
    except ShrinkError as error:
        print(f"gamechip shrink: {error}", file=sys.stderr)
        return 1
    write_case(out, shrunk.record)
    print(shrunk.message)
    print(f"{shrunk.summary()}\nshrunk case: {out}")
    print(f"keep it in the regression corpus: gamechip corpus add {out} --why 'WHICH BUG FOUND IT'")
    return 0


def _run_corpus_add(args):
    from tb.host import corpus
    if not args.why.strip():
        raise UsageError("--why must say which bug found the case")
    record, _ = read_case(args.case)  # bad input is one line, before anything is copied
    if record["block"] == "evaluator_axi":
        raise UsageError("the corpus holds cases of the batch blocks and the search engine; an evaluator_axi case "
                         "is a test or a stream of bus transactions: keep its file and replay it with gamechip replay")
    try:
        path, added = corpus.add(args.case, args.why.strip())
    except OSError as error:
        raise UsageError(f"cannot write to the corpus {corpus.CORPUS}: {error.strerror or error}")
    if not added:
        print(f"already in the corpus as {path}")
        return 0
    print(f"added {path}\nreplayed by make test as tb/test_corpus.py::test_corpus_case[{path.name}]")
    return 0


def _run_corpus_list(args):
    import os

    from tb.host import corpus
    from tb.host.casefile import CaseFileError, read_case_file

    if not corpus.CORPUS.is_dir():
        raise UsageError(f"the corpus folder {corpus.CORPUS} does not exist"
                         + (" (GAMECHIP_CORPUS)" if "GAMECHIP_CORPUS" in os.environ else ""))
    files = corpus.corpus_files()
    for path in files:
        try:
            record, case = read_case_file(path)
        except CaseFileError as error:
            print(f"{path.name}: MALFORMED: {error}")
            continue
        print(f"{path.name}: {record['design']} on {record['sim']}: {record.get('why', '(no why)')}")
    print(f"{len(files)} cases in {corpus.CORPUS}")
    return 0


def corpus_arguments(parser):
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="copy a (shrunk) case file into the corpus")
    add.add_argument("case", help="case file (JSON)")
    add.add_argument("--why", required=True, help="which bug found it (kept in the file and its name)")
    add.set_defaults(run=_run_corpus_add)
    listing = actions.add_parser("list", help="the corpus cases and why each is there")
    listing.set_defaults(run=_run_corpus_list)


COMMANDS = {
    "fuzz": (fuzz_arguments, run_fuzz),
    "replay": (replay_arguments, run_replay),
    "shrink": (shrink_arguments, run_shrink),
    # each ACTION sets its own run
    "corpus": (corpus_arguments, None),
}
