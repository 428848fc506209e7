"""``gamechip``: the one entry point. Every Makefile target calls a sub-command of it.

Bad input (board text, square names, block or simulator names, counts) ends in one line that
says what is wrong and what is valid, and exit status 2; a mismatch found by a simulation ends
in the failure report and exit status 1.
"""

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from golden.board import BoardError, START, draw, format_board, parse_board, parse_square, square_name, squares_of
from golden.othello import IllegalMove, flips, game_over, legal_moves, pass_move, perft, play
from golden.stable import stable_discs


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def _names(bits, size=8):
    return [square_name(s, size).lower() for s in squares_of(bits)]


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _natural(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _board(text):
    return START if text is None else parse_board(text)


# --- golden-model commands ---------------------------------------------------------------

def cmd_show(args):
    pos = _board(args.board)
    legal = legal_moves(pos.own, pos.opp)
    report = {
        "board": format_board(pos),
        "legal": _names(legal),
        "stable": [_names(stable_discs(pos.black)), _names(stable_discs(pos.white))],
    }
    if args.move is not None:
        move = parse_square(args.move)
        try:
            after = play(pos, move)
        except IllegalMove:
            legal_text = " ".join(report["legal"]) or "none (the side to move must pass)"
            raise UsageError(f"{square_name(move)} is not a legal move for {pos.side}; legal moves: {legal_text}")
        report["flipped"] = _names(flips(pos.own, pos.opp, move))
        report["board"] = format_board(after)
    if args.json:
        print(json.dumps(report))
        return 0
    print(draw(pos, highlight=legal))
    print(f"board:  {format_board(pos)}")
    if legal:
        print(f"legal moves for {pos.side} (*): {' '.join(report['legal'])}")
    else:
        print(f"{pos.side} has no legal move: " + ("game over" if game_over(pos) else "it must pass"))
    print(f"stable discs X: {' '.join(report['stable'][0]) or 'none'}")
    print(f"stable discs O: {' '.join(report['stable'][1]) or 'none'}")
    if args.move is not None:
        print(f"\n{pos.side} plays {square_name(move)}, flipping {' '.join(report['flipped'])}:")
        print(draw(after, highlight=flips(pos.own, pos.opp, move)))
        print(f"board:  {report['board']}")
    return 0


def cmd_perft(args):
    pos = _board(args.board)
    if args.depth < 6:
        print(perft(pos, args.depth))
        return 0
    # Deep counts take minutes in Python: count per root move ("divide") and show each.
    moves = squares_of(legal_moves(pos.own, pos.opp))
    if not moves:
        children = [] if game_over(pos) else [("pass", pass_move(pos))]
    else:
        children = [(square_name(m).lower(), play(pos, m)) for m in moves]
    if not children:
        print(1)
        return 0
    started, total = time.perf_counter(), 0
    for i, (name, child) in enumerate(children, 1):
        count = perft(child, args.depth - 1)
        total += count
        print(f"  {name}: {count:,}  ({i}/{len(children)}, {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    print(total)
    return 0


def _simulate_one(design, sim, case):
    """The simulated block's answer for one case: (report, matches golden)."""
    from tb.runner import ask

    _check_sim(sim)
    _announce_rtl()
    outcome = ask(design, sim, case)
    if outcome.actual is None:
        raise UsageError(f"{design} on {sim} gave no answer; log: {outcome.sim_dir / 'gamechip.log'}")
    return outcome.actual, outcome.passed


def cmd_eval(args):
    from golden.evaluator import DEFAULT, HEAVY, STAGES, evaluate
    from tb.batch import Case

    pos = _board(args.board)
    weights, design = (HEAVY, "evaluator_heavy") if args.weights == "heavy" else (DEFAULT, "evaluator")
    golden = evaluate(pos, weights).to_dict()
    keys = ("corners", "xsquares", "mobility", "stable", "discs", "stage", "terminal", "fixed", "adaptive")
    report = {key: golden[key] for key in keys if key in golden}
    sim = match = None
    if args.sim:
        sim_report, match = _simulate_one(design, args.sim, Case(pos, "gamechip eval"))
        sim = {key: sim_report[key] for key in report if key in sim_report}
        report["sim"] = dict(sim, match=match)
    if args.json:
        print(json.dumps(report))
        return 0 if match is not False else 1
    print(draw(pos))
    stage = STAGES.index(golden["stage"])
    shifts = weights.adaptive_shifts[stage]
    print(f"weights: {args.weights}; fixed: corner {weights.corner}, X-square {weights.xsquare}, mobility "
          f"{weights.mobility}, stable {weights.stable}, terminal {weights.terminal}")
    print(f"stage: {golden['stage']} (limits {weights.stage_limits}); adaptive weights (mobility, stability, "
          f"corners, discs): {', '.join('0' if s is None else str(1 << s) for s in shifts)}")
    header = f"{'term':<10} {'golden own':>10} {'opp':>5}" + (f"   {args.sim + ' own':>14} {'opp':>5}" if sim else "")
    print(header)
    for term in ("corners", "xsquares", "mobility", "stable", "discs"):
        row = f"{term:<10} {golden[term][0]:>10} {golden[term][1]:>5}"
        if sim:
            row += f"   {sim[term][0]:>14} {sim[term][1]:>5}" + ("" if sim[term] == golden[term] else "  <-- differs")
        print(row)
    for name in ("terminal", "fixed", "adaptive"):
        row = f"{name:<10} {golden[name]!s:>16}"
        if sim:
            row += f"   {sim[name]!s:>20}" + ("" if sim[name] == golden[name] else "  <-- differs")
        print(row)
    if sim:
        print("simulated block matches the golden model" if match else "MISMATCH between the block and the golden model")
    return 0 if match is not False else 1


def cmd_book(args):
    from golden.board import format_game_record, parse_game_record
    from golden.openings import book_move
    from tb.batch import Case

    moves = parse_game_record(args.moves or "")
    pos = START
    for move in moves:
        pos = play(pos, move)
    golden = book_move(tuple(moves))
    answer = "out of book" if golden is None else square_name(golden).lower()
    print(f"game: {format_game_record(moves) or '(start)'}")
    print(f"golden book: {answer}")
    if args.sim:
        sim_answers, match = _simulate_one("openings", args.sim, Case(pos, "gamechip book", moves=tuple(moves)))
        sim_answer = sim_answers[-1]
        print(f"{args.sim} ROM:  {'out of book' if sim_answer is None else sim_answer.lower()}"
              + ("" if match else "   <-- MISMATCH with the golden book"))
        return 0 if match else 1
    return 0


# --- simulation commands -----------------------------------------------------------------

def _blocks(names):
    from tb.blocks import BLOCKS, CHECKED_ELSEWHERE, unknown

    if not names or names == ["all"]:
        return list(BLOCKS.values())
    for name in names:
        if name in CHECKED_ELSEWHERE:
            raise UsageError(f"{name} is not driven by random positions; it is checked by {CHECKED_ELSEWHERE[name]}")
        if name not in BLOCKS:
            raise UsageError(unknown("block", name, list(BLOCKS) + ["all"]))
    return [BLOCKS[n] for n in names]


def _check_sim(sim):
    """Refuse an unknown or missing simulator, and GAMECHIP_* settings a simulation cannot use."""
    from tb.runner import SimulatorMissing, check_settings, check_simulator

    try:
        check_simulator(sim)
    except SimulatorMissing as missing:
        raise UsageError(str(missing))
    check_settings()


_announced = []


def _announce_rtl(root=None, note=None):
    """Say once which RTL this run tests (folder and digest): a run on the wrong RTL must be
    visible, never a quiet PASS about another design. Called when the work starts, after every
    input was checked (bad input stays one line)."""
    from tb.runner import describe_rtl

    line = describe_rtl(root)
    if line not in _announced:
        _announced.append(line)
        print(line + (f"; {note}" if note else ""), file=sys.stderr)


def _shrink_saved_case(case_file):
    """Shrink the failing case in ``case_file`` in place, keeping the case as found beside it as
    ``<name>.orig.json``; return the case file to replay. Whatever goes wrong while shrinking,
    the case as found stays where it is and the reason is printed."""
    import shutil
    from pathlib import Path

    from tb.casefile import CaseFileError, read_case_file, write_case_file
    from tb.shrink import ShrinkError, shrink_record

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
    from tb.runner import replay_case

    message = outcome.result.get("failure")
    if not message:
        print(outcome.log_excerpt(4000), file=sys.stderr)
        print(f"{design} on {sim}: the simulation failed before comparing anything; "
              f"full log: {outcome.sim_dir / 'gamechip.log'}", file=sys.stderr)
        return
    print(message, file=sys.stderr)
    case_file = _shrink_saved_case(outcome.failure_case) if shrink else outcome.failure_case
    print("recording the waveform of this case ...", file=sys.stderr)
    _, waves = replay_case(case_file)
    print(f"waveform: {waves}" if waves.exists() else f"waveform: replay did not write {waves}", file=sys.stderr)


def cmd_fuzz(args):
    from tb.runner import run_design

    _check_sim(args.sim)
    blocks = _blocks(args.block)
    _announce_rtl()
    print(f"fuzz: {', '.join(b.name for b in blocks)} on {args.sim}, {args.count:,} random positions per block "
          f"(a block may check more than one case per position), seed {args.seed}", file=sys.stderr)
    if args.block == ["all"]:
        from tb.blocks import CHECKED_ELSEWHERE

        print("fuzz: not fuzzed here: " + "; ".join(f"{name} ({how})" for name, how in CHECKED_ELSEWHERE.items()),
              file=sys.stderr)
    summary = []
    for block in blocks:
        design = block.designs[0]
        started = time.perf_counter()
        outcome = run_design(design, args.sim, block.module, ["fuzz"], echo=True, tag="fuzz",
                             env={"GAMECHIP_SEED": str(args.seed), "GAMECHIP_COUNT": str(args.count)})
        fuzz = outcome.result.get("tests", {}).get("fuzz", {})
        if not outcome.passed:
            _report_failure(outcome, design, args.sim, shrink=not args.no_shrink)
            print(f"FAIL {block.name} on {args.sim}, seed {args.seed}: reproduce with "
                  f"gamechip fuzz --block {block.name} --sim {args.sim} --count {args.count} --seed {args.seed}",
                  file=sys.stderr)
            return 1
        rate = fuzz["checked"] / fuzz["wall_seconds"] if fuzz.get("wall_seconds") else 0.0
        summary.append((block.name, fuzz.get("checked", 0), rate, time.perf_counter() - started))
    print(f"\n{'block':<14} {'sim':<10} {'positions':>10} {'cases':>10} {'cases/s':>11} {'run time':>9}  seed")
    for name, checked, rate, seconds in summary:
        print(f"{name:<14} {args.sim:<10} {args.count:>10,} {checked:>10,} {rate:>11,.0f} {seconds:>8.1f}s  {args.seed}")
    print(f"PASS: {sum(s[1] for s in summary):,} cases checked against the golden model, no mismatch (seed {args.seed})")
    return 0


def cmd_campaign(args):
    from gamechip.campaign import CampaignInputError, check_cluster_address, run
    from tb.runner import SIMULATORS, resolve_rtl_root

    blocks = list({block.name: block for block in _blocks(args.blocks)}.values())  # each once
    sims = list(SIMULATORS) if "all" in args.sims else list(dict.fromkeys(args.sims))
    for sim in sims:
        if args.cluster and sim not in SIMULATORS:  # the simulators must be on the workers, not here
            raise UsageError(f"unknown simulator '{sim}': choose one of {', '.join(SIMULATORS)}")
        if not args.cluster:
            _check_sim(sim)
    if not args.cluster:
        resolve_rtl_root()  # a bad GAMECHIP_RTL_ROOT is one line before the campaign folder is made
    again = ["--blocks", *(b.name for b in blocks), "--sims", *sims, "--count", str(args.count), "--seed",
             str(args.seed), "--shard-size", str(args.shard_size), "--out", args.out, "--timeout", f"{args.timeout:g}"]
    again += ["--cluster", args.cluster] if args.cluster else ["--workers", str(args.workers)] if args.workers else []
    again += (["--no-retry"] if args.no_retry else []) + (["--no-shrink"] if args.no_shrink else [])
    try:
        if args.cluster:
            check_cluster_address(args.cluster)
        return run(blocks, sims, args.count, args.seed, args.out, workers=args.workers, shard_size=args.shard_size,
                   resume=args.resume, timeout=args.timeout, cluster=args.cluster, argv=again,
                   retry=not args.no_retry, shrink=not args.no_shrink)
    except CampaignInputError as error:
        raise UsageError(str(error))


def _scale(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.5 or 4, got '{text}'")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number more than 0, got '{text}'")
    return value


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _print_replay_views(record, outcome, waves, stream):
    """Write the GTKWave save file, signal window and board pictures of a replayed case next to
    its waveform (gamechip/views.py) and print one line per file or per thing not written."""
    from gamechip.views import write_replay_views

    if outcome.failure_case.exists():  # failed again: the replay's own values match its waveform
        try:
            record = json.loads(outcome.failure_case.read_text())
        except (OSError, ValueError):
            pass
    else:
        print("note: the board pictures show the saved failure; the replay passed", file=stream)
    try:
        written, notes = write_replay_views(record, waves, outcome.sim_dir)
    except Exception as error:  # pictures are a help: never a traceback instead of the replay's verdict
        written, notes = [], [f"pictures not written: {type(error).__name__}: {error}"]
    for what, path in written:
        print(f"{what}: {path}", file=stream)
    for note in notes:
        print(f"note: {note}", file=stream)


def _cycles(text):
    """A cycle count: a whole number, or with a k / M suffix (3.2M = 3,200,000)."""
    scale = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    try:
        value = float(number) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of cycles such as 1024 or 3.2M, got '{text}'")
    if not math.isfinite(value) or value < 0 or value != int(value) or value >= 1 << 32:
        raise argparse.ArgumentTypeError(f"cycles must be a whole number 0..2**32-1, got '{text}'")
    return int(value)


def cmd_search(args):
    from golden.search import MAX_DEPTH, search_events
    from tb.test_search import SearchCase, replay_search_case

    pos = _board(args.board)
    if not 1 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be 1..{MAX_DEPTH}, got {args.depth}")
    if args.sim:
        _check_sim(args.sim)
    report = match = None
    if args.sim:
        _announce_rtl()
        case = SearchCase(pos, args.depth, args.budget, "gamechip search")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as saved:
            json.dump({"block": "search", "design": "search", "sim": args.sim, "seed": 0,
                       "case": case.to_dict()}, saved)
        try:
            # the golden process runs the golden search while the simulator runs the engine
            outcome, _ = replay_search_case(saved.name, waves=False, echo=not args.json, monitor=args.monitor)
        finally:
            os.unlink(saved.name)
        if not outcome.actual:
            raise RuntimeError(f"the {args.sim} run gave no answer; log: {outcome.sim_dir / 'gamechip.log'}")
        answer = outcome.actual["answer"] or {}
        match = outcome.passed and outcome.actual["trace_match"]
        report = dict(outcome.actual["golden"])
        report["sim"] = dict(answer, simulator=args.sim, trace_match=bool(match), monitor=args.monitor,
                             nodes_checked=outcome.actual["nodes_checked"],
                             cycles_per_node=round(answer.get("cycles", 0) / max(1, answer.get("nodes", 0)), 3))
        if not match:
            report["sim"]["failure"] = outcome.result.get("failure", "")
    else:
        report = search_events(pos, args.depth, args.budget).summary()
    report["cycles_per_node"] = round(report["cycles"] / max(1, report["nodes"]), 3)
    if args.json:
        print(json.dumps(report))
        return 0 if match is not False else 1
    print(draw(pos))
    limits = f"depth limit {args.depth}, budget {args.budget if args.budget is not None else 'none'}"
    print(f"search of {format_board(pos)}: {limits}")
    rows = [("golden", report)] + ([(args.sim, report["sim"])] if args.sim else [])
    print(f"{'':10} {'best':>5} {'value':>6} {'depth':>6} {'nodes':>10} {'cycles':>12} {'cycles/node':>12}")
    for name, r in rows:
        print(f"{name:10} {r.get('best', '?'):>5} {r.get('value', '?'):>6} {r.get('depth', '?'):>6} "
              f"{r.get('nodes', 0):>10,} {r.get('cycles', 0):>12,} {r.get('cycles_per_node', 0):>12}")
    if args.sim:
        if match:
            print(_agreement(outcome.actual["golden"], outcome.actual["nodes_checked"]))
        else:
            print(report["sim"]["failure"], file=sys.stderr)
            print("traces differ", file=sys.stderr)
    return 0 if match is not False else 1


def _agreement(golden, reports):
    """The line for a search whose ``reports`` node reports all matched (``golden``: the golden
    search's summary with its ``roots``): the engine reports the root of every iteration as well
    as the nodes it generates (the 'nodes' column), so the two counts differ; say how."""
    roots, total = golden["roots"], golden["nodes"]
    generated = reports - roots
    nodes = (f"the {total:,} generated nodes" if generated == total else
             f"{generated:,} of the {total:,} generated nodes (the budget ended before the rest reported)")
    return (f"traces match: all {reports:,} node reports agreed, in the same cycle: "
            f"the root of each of the {roots} iteration{'s' if roots != 1 else ''} and {nodes}")


def _replay_search(args, record, root):
    """A saved search-engine case: re-run the search with its node scoreboard."""
    from gamechip.search_views import write_search_views
    from tb.test_search import replay_search_case

    outcome, waves = replay_search_case(args.case, waves=args.waves, echo=True, rtl_root=root)
    where = f"; waveform: {waves}" if waves else " (add --waves for a waveform)"
    stream = sys.stdout if outcome.passed else sys.stderr
    if outcome.passed:
        print(f"the case no longer fails on {record['sim']}{where}")
    else:
        print(outcome.result.get("failure") or outcome.log_excerpt(4000), file=stream)
        print(f"still fails{where}", file=stream)
    if args.waves:
        try:
            fresh = json.loads(outcome.failure_case.read_text()) if outcome.failure_case.exists() else record
        except (OSError, ValueError):
            fresh = record
        try:
            written, notes = write_search_views(fresh, waves)
        except Exception as error:  # pictures are a help, never a traceback instead of the verdict
            written, notes = [], [f"pictures not written: {type(error).__name__}: {error}"]
        for what, path in written:
            print(f"{what}: {path}", file=stream)
        for note in notes:
            print(f"note: {note}", file=stream)
    return 0 if outcome.passed else 1


def _levels(text):
    """'1-7', '3', '1,3,5' -> [levels]."""
    levels = set()
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            levels.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"levels are 1..7 as '1-7', '3' or '1,3,5', got '{text}'")
    if not levels or not levels <= set(range(1, 8)):
        raise argparse.ArgumentTypeError(f"levels are 1..7, got '{text}'")
    return sorted(levels)


def _unwritable(folder):
    """Why results cannot be written into ``folder`` (made if missing), or None."""
    if folder.exists() and not folder.is_dir():
        return "exists and is not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        return f"cannot write there: {error.strerror or error}"
    return None


def _output_dir(path, option):
    """``path`` as a folder to write results into, made now: a bad one is one line before the
    work starts, not a traceback after hours of it."""
    from pathlib import Path

    problem = _unwritable(Path(path))
    if problem:
        raise UsageError(f"{option} {path}: {problem}")
    return Path(path)


def _output_file(path, option, default_name):
    """``path`` as a results file to write later, checked now (a folder gets ``default_name``
    inside it)."""
    from pathlib import Path

    target = Path(path)
    if target.is_dir() or str(path).endswith("/"):
        return _output_dir(target, option) / default_name
    problem = _unwritable(target.parent)
    if problem:
        raise UsageError(f"{option} {path}: its folder {target.parent}: {problem}")
    if target.exists() and not target.is_file():
        raise UsageError(f"{option} {path}: exists and is not a regular file")
    return target


def cmd_play(args):
    from gamechip.play import default_record, golden_game, print_move, write_record

    default = default_record(args.level, args.color, args.budget)
    record = _output_file(args.record or default, "--record", default.name)
    if args.check == "nodes" and not args.sim:
        raise UsageError("--check nodes needs --sim: it checks the simulated engine's nodes")
    if args.sim:
        from tb.test_processor import GameFailed, simulated_game

        _check_sim(args.sim)
        _announce_rtl()
        try:
            game = simulated_game(args.sim, args.level, args.color, args.budget, tag="play", echo=True,
                                  check_nodes=args.check == "nodes")
        except GameFailed as failure:
            print(failure, file=sys.stderr)
            print(f"FAIL: the game stopped at the first difference from the golden processor; nothing written "
                  f"to {record}", file=sys.stderr)
            return 1
    else:
        game = golden_game(args.level, args.color, args.budget, on_move=print_move(args.color))
    path = write_record(game, record)
    print(f"final score: black {game['black']} white {game['white']} "
          f"(processor {game['processor_discs']}, reference level {args.level} {game['reference_discs']}); "
          f"{game['reason']}")
    print(f"game record: {game['record']}")
    print(f"mean search depth of the processor: {game['mean_depth']}")
    print(f"record written to {path}")
    return 0


def cmd_tournament(args):
    from gamechip.campaign import CampaignInputError
    from gamechip.play import run_tournament
    from tb.runner import SIMULATORS

    out = _output_dir(args.out or f"runs/tournament-{time.strftime('%Y%m%d-%H%M%S')}-budget{args.budget}", "--out")
    if args.sim and args.cluster:  # the simulators must be on the workers, not here
        if args.sim not in SIMULATORS:
            raise UsageError(f"unknown simulator '{args.sim}': choose one of {', '.join(SIMULATORS)}")
    elif args.sim:
        _check_sim(args.sim)
        _announce_rtl()
    if args.mode == "engine" and not args.sim:
        raise UsageError("--mode engine needs --sim (it simulates every search of every game)")
    if args.cluster and args.jobs is not None:
        raise UsageError("--jobs sets the local worker processes; with --cluster the cluster's workers play the games")
    try:
        return run_tournament(args.budget, args.levels, args.sim, args.jobs or os.cpu_count() or 1, out,
                              mode=args.mode, resume=args.resume, cluster=args.cluster)
    except CampaignInputError as error:
        raise UsageError(str(error))


def _case_rtl(record):
    """The RTL root a saved case replays on (the one it failed on), announced with a note when
    GAMECHIP_RTL_ROOT overrides it or the RTL has changed since."""
    from tb.runner import replay_rtl_root

    root, note = replay_rtl_root(record)
    _announce_rtl(root, note)
    return root


def _engine_counts(text):
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"engine counts are whole numbers such as 1,2,4,8, got '{text}'")
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"engine counts must be at least 1, got '{text}'")
    return sorted(set(counts))


def cmd_parallel(args):
    from gamechip.parallel import run
    from golden.parallel import SCHEMES
    from golden.search import MAX_DEPTH

    for scheme in args.scheme:
        if scheme not in SCHEMES:
            raise UsageError(f"unknown scheme '{scheme}': choose one of {', '.join(SCHEMES)}")
    if not 2 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be 2..{MAX_DEPTH}, got {args.depth}")
    if args.split is not None and not 1 <= args.split < args.depth:
        raise UsageError(f"--split must be 1..depth-1 ({args.depth - 1}), got {args.split}")
    if args.split is None and args.depth <= 3:
        raise UsageError(f"--depth {args.depth} needs --split 1..{args.depth - 1} (the default host plies are 2 and 3)")
    out = _output_dir(args.out or f"runs/parallel-{time.strftime('%Y%m%d-%H%M%S')}", "--out")
    if args.sim:
        _check_sim(args.sim)
        _announce_rtl()
    if args.cluster:
        from gamechip.campaign import CampaignInputError, check_cluster_address
        try:
            check_cluster_address(args.cluster)
        except CampaignInputError as error:
            raise UsageError(str(error))
    if args.sim_sample is not None and not args.sim:
        raise UsageError("--sim-sample needs --sim")
    return run(args.positions, args.seed, args.depth, args.engines, list(dict.fromkeys(args.scheme)), args.split,
               args.sim, args.cluster, out, args.json, args.sim_sample)


def cmd_codesign(args):
    from gamechip.codesign import Mismatch, run

    if args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    if args.positions is not None and args.positions < 0:
        raise UsageError(f"--positions must be 0 or more, got {args.positions}")
    if args.game and args.positions is not None:
        raise UsageError("choose --game or --positions N, not both")
    mode = "positions" if args.positions is not None else "game"
    try:
        stream_dir = _output_dir(args.out or os.path.join("build", "codesign"), "--out") if args.sim else None
        return run(mode, args.positions or 0, args.depth, args.seed, args.json, sim=args.sim, stream_dir=stream_dir)
    except Mismatch as error:
        print(f"gamechip codesign: MISMATCH: {error}", file=sys.stderr)
        return 1


def cmd_area(args):
    from gamechip.area import DEFAULT_FAMILIES, FAMILIES, AreaError, run
    from rtl.designs import PORTS

    designs = args.designs or list(PORTS)
    for design in designs:
        if design not in PORTS:
            raise UsageError(f"unknown design '{design}': choose from {', '.join(PORTS)}")
    families = args.families or list(DEFAULT_FAMILIES)
    for family in families:
        if family not in FAMILIES:
            raise UsageError(f"unknown family '{family}': choose from {', '.join(FAMILIES)}")
    out = _output_dir(args.out or "runs/area", "--out")
    _announce_rtl()
    try:
        return run(list(dict.fromkeys(designs)), list(dict.fromkeys(families)), out, args.json,
                   place=not args.no_place)
    except AreaError as error:
        raise UsageError(f"area: {error}")


def _git_file_versions(repo, limit=300):
    """old_source for carry_waivers: the version of a file with the digest asked, found in the
    last ``limit`` commits of ``repo`` that touched the file."""
    import subprocess

    from gamechip.mutate import file_digest

    cache = {}

    def old_source(path, digest):
        if path not in cache:
            cache[path] = {}
            log = subprocess.run(["git", "-C", str(repo), "log", f"-{limit}", "--format=%H", "--", path],
                                 capture_output=True, text=True)
            for commit in log.stdout.split():
                shown = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                                       capture_output=True, text=True)
                if shown.returncode == 0:
                    cache[path].setdefault(file_digest(shown.stdout), shown.stdout)
        return cache[path].get(digest)

    return old_source


def cmd_carry_waivers(args):
    import json
    import subprocess

    from gamechip.mutate import WAIVERS, carry_waivers, load_waivers

    repo = WAIVERS.parent.parent
    inside = subprocess.run(["git", "-C", str(repo), "rev-parse", "--is-inside-work-tree"], capture_output=True, text=True)
    if inside.returncode != 0:
        raise UsageError(f"{repo} is not a git checkout: the waived files' old versions come from its history")
    waivers = load_waivers()

    def new_source(relative):
        path = repo / relative
        return path.read_text() if path.exists() else None

    carried_waivers, carried, stranded = carry_waivers(waivers, _git_file_versions(repo), new_source)
    for old, new, note in carried:
        print(f"carried  {old} -> {new}" + (f" ({note})" if note else ""))
    for old, why in stranded:
        print(f"STRANDED {old}: {why}")
    if carried and not args.check:
        WAIVERS.write_text(json.dumps(carried_waivers, indent=2) + "\n")
    verb = "would carry" if args.check else "carried"
    print(f"{len(waivers)} waivers: {len(waivers) - len(carried) - len(stranded)} current, {verb} {len(carried)}, "
          f"{len(stranded)} stranded" + ("" if args.check or not carried else f" ({WAIVERS} rewritten: review "
                                          "the carried reasons against the changed code)"))
    return 1 if stranded or (args.check and carried) else 0


def cmd_replay(args):
    from tb.runner import replay_case

    record, _ = _read_case(args.case)
    _check_sim(record["sim"])
    root = _case_rtl(record)
    if record["block"] == "search":
        return _replay_search(args, record, root)
    outcome, waves = replay_case(args.case, waves=args.waves, echo=True, rtl_root=root)
    where = f"; waveform: {waves}" if waves else " (add --waves for a waveform)"
    if outcome.passed:
        print(f"the case no longer fails on {record['sim']}{where}")
        if args.waves:
            _print_replay_views(record, outcome, waves, sys.stdout)
        return 0
    print(outcome.result.get("failure") or outcome.log_excerpt(4000), file=sys.stderr)
    print(f"still fails{where}", file=sys.stderr)
    if args.waves:
        _print_replay_views(record, outcome, waves, sys.stderr)
    return 1


def cmd_mutate(args):
    from gamechip.mutate import MutateError, mutation_blocks, print_summary, run, summarise

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.cluster and args.workers is not None:
        raise UsageError("--workers sets the local runs at once; with --cluster the cluster's workers run the mutants")
    if args.shard_size is not None and not args.cluster:
        raise UsageError("--shard-size goes with --cluster (the mutants of one cluster task)")
    if args.shard_size is not None and args.shard_size < 1:
        raise UsageError(f"--shard-size must be at least 1, got {args.shard_size}")
    if args.netlist is not None and args.netlist < 1:
        raise UsageError(f"--netlist must be at least 1, got {args.netlist}")
    if args.prove_killed is not None and args.prove_killed < 1:
        raise UsageError(f"--prove-killed must be at least 1, got {args.prove_killed}")
    if args.elab_only:
        args.elab = True
    if args.replay and args.add_to_corpus is not None:
        raise UsageError("--replay and --add-to-corpus are two different actions on a run: give one")
    if args.netlist_only and args.netlist is None:
        raise UsageError("--netlist-only needs --netlist N")
    if args.why is not None and args.add_to_corpus is None:
        raise UsageError("--why goes with --add-to-corpus")
    if args.retry_survivors and not args.resume:
        raise UsageError("--retry-survivors goes with --resume (the survivors of an earlier run judged again)")
    try:
        if args.replay:
            return _mutate_replay(args.out, args.replay, args.blocks[0] if args.blocks else None)
        if args.add_to_corpus is not None:
            return _mutate_add_to_corpus(args.out, args.add_to_corpus, args.why)
        blocks = args.blocks or list(mutation_blocks())
        from gamechip.mutate import SHARD_SIZE
        # with --cluster the local cores still convert the designs and run the miters
        workers = args.workers or max(1, os.cpu_count() or 1)
        result = run(blocks, args.sim, args.out, resume=args.resume, limit=args.limit, workers=workers,
                     cluster=args.cluster, shard_size=args.shard_size or SHARD_SIZE,
                     seed=args.seed, quick=args.quick, prove=not args.no_prove, netlist=args.netlist,
                     source=not (args.netlist_only or args.elab_only), prove_killed=args.prove_killed or 0,
                     elab=args.elab, recheck_waivers=args.recheck_waivers,
                     retry_survivors=args.retry_survivors)
    except MutateError as error:
        raise UsageError(str(error))
    print_summary(result, args.json, args.out)
    return mutation_exit_status(result)


# gamechip mutate / report on a mutation run: 0 scored, 1 mutants that could not be judged
# (errors), 2 bad input, 3 a bench bug (a killed mutant equivalent to the original), which wins
BENCH_BUG_STATUS = 3


def mutation_exit_status(result):
    return BENCH_BUG_STATUS if result["bench_bugs"] else 1 if result["errors"] else 0


def _mutate_replay(out, mutant_id, block=None):
    """One mutant of a finished run again, with waves: its verdict and where the waveform is. A
    source or netlist mutant's new verdict goes into the run's journal (the report counts it)."""
    from gamechip.mutate import CATALOGUE, JOURNAL, MutateError, append_entry, read_journal, run_mutant, verdict_entry

    try:
        catalogue = json.loads((Path(out) / CATALOGUE).read_text())
    except (OSError, ValueError) as error:
        raise MutateError(f"{out} is not a mutation run folder ({CATALOGUE}: {error})")
    mutant = next((m for m in catalogue["mutants"] if m["id"] == mutant_id), None)
    if mutant is None:
        raise MutateError(f"no mutant '{mutant_id}' in {out}")
    holders = [b for b, spec in catalogue["blocks"].items() if mutant_id in spec["mutants"]]
    if block not in holders:
        if block is not None or not holders:
            raise MutateError(f"mutant '{mutant_id}' is not among the mutants of {block or 'any block'} in {out}")
        block = holders[0]
    spec = catalogue["blocks"][block]
    design = spec["design"]
    print(f"mutant {mutant_id} ({block}): {mutant['original']}  ->  {mutant['mutated']}")
    if mutant.get("kind") == "elab":
        return _mutate_replay_elab(out, catalogue, mutant, spec)
    # a netlist row (block:netlist) runs its block's bench on the netlist root
    clock = time.monotonic()
    verdict, test, message = run_mutant(spec.get("block", block), design, catalogue["sim"],
                                        Path(spec.get("root") or Path(out) / "schemata"), mutant["number"],
                                        "mutate-replay", quick=catalogue.get("quick", False))
    print(f"{verdict}{f' by {test}' if test else ''}: {message}")
    if verdict in ("killed", "survived"):   # the mutant as the run built it, judged by today's bench
        before = read_journal(Path(out) / JOURNAL).get((block, mutant_id), {})
        append_entry(Path(out) / JOURNAL, verdict_entry(
            mutant_id, mutant["number"], verdict, test, message, time.monotonic() - clock, block=block,
            replayed=True, **{k: before[k] for k in ("proof", "equivalent") if k in before}))
        print(f"journaled in {Path(out) / JOURNAL} (gamechip report {out} counts it)")
    return 0


def _mutate_replay_elab(out, catalogue, mutant, spec):
    """An --elab mutant again: its copy of rtl/ made, converted and run through the bench."""
    from gamechip.mutate import MutateError
    from gamechip.mutate_elab import design_files, elab_mutants, judge
    from tb import runner

    root = Path(catalogue["rtl_root"])
    design = spec["design"]
    found = {m.id: (m, text) for m, text in elab_mutants(root, design_files(root, design))}
    if mutant["id"] not in found:
        raise MutateError(f"mutant '{mutant['id']}' is not in {root}/rtl any more (its file changed since the run)")
    again, text = found[mutant["id"]]
    original = (runner.hdl_dir(design, root) / f"{design}.v").read_text()
    verdict, test, message, _ = judge(again, text, spec["block"], design, catalogue["sim"], root,
                                      Path(out) / "elab-replay", 1, catalogue.get("quick", False), 0, original)
    print(f"{verdict}{f' by {test}' if test else ''}: {message}")
    return 0


def _mutate_add_to_corpus(out, ids, why):
    """Survivors' counterexamples replayed and kept in the corpus: 0 when every one that has a
    bench case form was added (or was there already), 1 when one was refused."""
    from gamechip.mutant_corpus import add_to_corpus

    outcomes = add_to_corpus(out, ids or None, why, say=lambda text: print(f"mutate: {text}", file=sys.stderr))
    if not outcomes:
        print(f"no survivor of {out} has a SAT counterexample: nothing to add")
    for outcome in outcomes:
        print(f"{outcome.status}: {outcome.mutant_id} ({outcome.block}): {outcome.detail}"
              + (f"\n  corpus case: {outcome.path}" if outcome.path else ""))
    if any(o.status in ("added", "present") for o in outcomes):
        print(f"the journal of {out} now records those mutants killed by their corpus case; "
              f"tb/test_corpus.py replays the cases in every regression")
    return 1 if any(o.status == "refused" for o in outcomes) else 0


def cmd_report(args):
    from gamechip.report import ReportError, write_report

    if (Path(args.dir) / "mutants.json").exists():
        from gamechip.mutate import MutateError, print_summary, summarise
        try:
            result = summarise(args.dir)
            print_summary(result, False, args.dir)
        except MutateError as error:
            raise UsageError(str(error))
        return BENCH_BUG_STATUS if result["bench_bugs"] else 0
    try:
        path, campaign = write_report(args.dir)
    except ReportError as error:
        raise UsageError(str(error))
    for warning in campaign.warnings:
        print(f"gamechip report: warning: {warning}", file=sys.stderr)
    word, line = campaign.verdict()
    print(f"{word}: {line}\nreport: {path}")
    return 0


def _read_case(path):
    from tb.casefile import CaseFileError, read_case_file

    try:
        return read_case_file(path)
    except CaseFileError as error:
        raise UsageError(str(error))


def _write_case(path, record):
    from tb.casefile import write_case_file

    try:
        return write_case_file(path, record)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}")


def cmd_shrink(args):
    from pathlib import Path

    from tb.shrink import ShrinkError, shrink_record

    record, case = _read_case(args.case)
    _check_sim(record["sim"])
    root = _case_rtl(record)
    out = Path(args.out) if args.out else Path(args.case).with_name(Path(args.case).name.removesuffix(".json")
                                                                     + ".shrunk.json")
    print(f"shrink: {record['block']} ({record['design']}) on {record['sim']}, case {case.label}", file=sys.stderr)
    try:
        shrunk = shrink_record(record, case, rtl_root=root)
    except ShrinkError as error:
        print(f"gamechip shrink: {error}", file=sys.stderr)
        return 1
    _write_case(out, shrunk.record)
    print(shrunk.message)
    print(f"{shrunk.summary()}\nshrunk case: {out}")
    print(f"keep it in the regression corpus: gamechip corpus add {out} --why 'WHICH BUG FOUND IT'")
    return 0


def cmd_corpus_add(args):
    from tb import corpus

    if not args.why.strip():
        raise UsageError("--why must say which bug found the case")
    _read_case(args.case)  # bad input is one line, before anything is copied
    try:
        path, added = corpus.add(args.case, args.why.strip())
    except OSError as error:
        raise UsageError(f"cannot write to the corpus {corpus.CORPUS}: {error.strerror or error}")
    if not added:
        print(f"already in the corpus as {path}")
        return 0
    print(f"added {path}\nreplayed by make test as tb/test_corpus.py::test_corpus_case[{path.name}]")
    return 0


def cmd_corpus_list(args):
    from tb import corpus
    from tb.casefile import CaseFileError, read_case_file

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


def cmd_convert(args):
    from rtl.convert import convert

    _output_dir(args.out, "--out")
    try:
        paths = convert(args.out, designs=args.design or None)
    except ValueError as error:
        raise UsageError(str(error))
    print(f"wrote {len(paths)} files to {args.out}")
    return 0


def cmd_bench(args):
    from gamechip.bench import run_bench

    from gamechip.search_bench import run_search_bench

    for sim in args.sim:
        _check_sim(sim)
    names = args.block or ["all"]
    with_search = "all" in names or "search" in names
    others = [name for name in names if name != "search"]
    blocks = _blocks(others) if others else []
    _announce_rtl()
    status = run_bench(blocks, args.sim, args.scale) if blocks else 0
    if status == 0 and with_search:
        status = run_search_bench(args.sim, args.scale)
    return status


# --- chess ---------------------------------------------------------------------------------

def _chess_board(text):
    from golden.chess.encoding import ChessInputError, parse_fen

    try:
        return parse_fen(text)
    except ChessInputError as error:
        raise UsageError(str(error))


def _print_json(value):
    print(json.dumps(value))


def cmd_chess_moves(args):
    from golden.chess.movegen import ILLEGAL, first_reply, ordered_moves
    from tb.test_chess_movegen import walk_case

    board = _chess_board(args.fen)
    mode = int(args.captures)
    illegal = first_reply(board, mode)[0] == ILLEGAL
    golden = [] if illegal else [m.uci() for m in ordered_moves(board, mode)]
    report = {"moves": golden}
    matched = True
    if args.sim:
        actual, matched = _simulate_one("chess_movegen", args.sim, walk_case(board, "gamechip chess moves", mode))
        simulated = [move for status, move in actual if status == "MOVE"]
        statuses = [status for status, _ in actual]
        report["sim"] = {"moves": simulated, "end": statuses[-1] if statuses else None}
        report["differ"] = [{"index": i, "expected": want, "actual": got}
                            for i, (want, got) in enumerate(zip(golden + ["DONE"], simulated + [statuses[-1]]))
                            if want != got] if not matched else []
    if args.json:
        _print_json(report)
    else:
        print(board)
        kind = "captures" if mode else "moves"
        print("ILLEGAL: the side to move attacks the enemy king" if illegal else
              f"{len(golden)} {kind} in the chip's order: {' '.join(golden) or '(none)'}")
        if args.sim:
            print(f"{args.sim}: {' '.join(report['sim']['moves']) or '(none)'} then {report['sim']['end']}"
                  + ("" if matched else "   <-- MISMATCH"))
            for d in report["differ"]:
                print(f"  differs at move {d['index']}: expected {d['expected']}, actual {d['actual']}")
    return 0 if matched else 1


def cmd_chess_perft(args):
    from golden.chess.movegen import perft
    from tb.runner import run_design

    board = _chess_board(args.fen)
    nodes = perft(board.copy(), args.depth)
    report = {"nodes": nodes}
    matched = True
    if args.sim:
        _check_sim(args.sim)
        outcome = run_design("chess_movegen", args.sim, "tb.test_chess_movegen", ["perft_position"], tag="ask",
                             echo=not args.json, quiet=True,
                             env={"GAMECHIP_PERFT_FEN": board.fen(en_passant="fen"),
                                  "GAMECHIP_PERFT_DEPTH": str(args.depth)})
        simulated = (outcome.actual or {}).get("nodes")
        matched = outcome.passed and simulated == nodes
        report["sim"] = {"nodes": simulated}
        if not matched:
            report["differ"] = {"expected": nodes, "actual": simulated,
                                "failure": (outcome.result.get("failure") or "").splitlines()[:12]}
    if args.json:
        _print_json(report)
    else:
        print(nodes)
        if args.sim:
            print(f"{args.sim}: {report['sim']['nodes']}" + ("" if matched else "   <-- MISMATCH"))
            if not matched and outcome.result.get("failure"):
                print(outcome.result["failure"], file=sys.stderr)
    return 0 if matched else 1


def cmd_chess_repetition(args):
    from golden.chess.encoding import ChessInputError, format_fen, parse_moves, square_name
    from golden.chess.repetition import RepetitionModel
    from tb.chess_case import ChessCase

    board = _chess_board(args.fen)
    try:
        moves = parse_moves(board, args.moves)
    except ChessInputError as error:
        raise UsageError(str(error))
    model, replay, plies = RepetitionModel(board), board.copy(), []

    def entry(outputs):
        return {"rep": outputs["rep"], "rep_dist": outputs["rep_dist"], "near": outputs["near"],
                "near_from": square_name(outputs["near_from"]) if outputs["near"] == 1 else None,
                "near_to": square_name(outputs["near_to"]) if outputs["near"] == 1 else None}

    for move in moves:
        model.push(replay, move)
        replay.push(move)
        o = model.outputs()
        plies.append(entry({"rep": o.rep, "rep_dist": o.rep_dist, "near": o.near, "near_from": o.near_from,
                            "near_to": o.near_to}))
    report = {"plies": plies}
    matched = True
    if args.sim:
        case = ChessCase(format_fen(board), "gamechip chess repetition", "repetition", 0,
                         ("init",) + tuple(m.uci() for m in moves), (0,) * (len(moves) + 1))
        actual, matched = _simulate_one("chess_repetition", args.sim, case)
        simulated = [entry(values) if isinstance(values, dict) else {"error": str(values)} for values in actual[1:]]
        report["sim"] = {"plies": simulated}
        report["differ"] = [i for i, (a, b) in enumerate(zip(plies, simulated)) if a != b]
    if args.json:
        _print_json(report)
    else:
        for index, (move, ply) in enumerate(zip(moves, plies)):
            line = (f"{index + 1:3} {move.uci():6} rep={ply['rep']} rep_dist={ply['rep_dist']:2} near={ply['near']}"
                    + (f" ({ply['near_from']}->{ply['near_to']})" if ply["near"] else ""))
            if args.sim:
                line += "" if index not in report["differ"] else f"   <-- {args.sim}: {report['sim']['plies'][index]}"
            print(line)
        if args.sim:
            print(f"{args.sim}: " + ("every ply matches" if matched else f"{len(report['differ'])} plies differ"))
    return 0 if matched else 1


_START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def build_parser():
    from tb.runner import SIMULATORS

    parser = argparse.ArgumentParser(prog="gamechip", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = sub.add_parser("show", help="draw a board: legal moves, stable discs, a move's flips")
    show.add_argument("--board", help="board text (64 of X/O/- from A1, space, side to move); default: start")
    show.add_argument("--move", help="a square such as D3: show what it flips and the board after it")
    show.add_argument("--json", action="store_true", help="print one JSON object instead")
    show.set_defaults(run=cmd_show)

    perft_cmd = sub.add_parser("perft", help="leaf count of the game tree (a pass is a ply, a finished game a leaf)")
    perft_cmd.add_argument("--depth", type=_natural, required=True)
    perft_cmd.add_argument("--board", help="board text; default: the start position")
    perft_cmd.set_defaults(run=cmd_perft)

    evaluation = sub.add_parser("eval", help="the evaluation of a board, term by term (golden, and a simulated block)")
    evaluation.add_argument("--board", help="board text; default: the start position")
    evaluation.add_argument("--sim", help=f"also ask the evaluator block on this simulator ({', '.join(SIMULATORS)})")
    evaluation.add_argument("--weights", choices=("default", "heavy"), default="default")
    evaluation.add_argument("--json", action="store_true", help="print one JSON object instead")
    evaluation.set_defaults(run=cmd_eval)

    book = sub.add_parser("book", help="the opening book's next move for a game so far")
    book.add_argument("--moves", default="", help="the game so far, e.g. f5d6c3 (default: no move yet)")
    book.add_argument("--sim", help=f"also ask the openings ROM block on this simulator ({', '.join(SIMULATORS)})")
    book.set_defaults(run=cmd_book)

    fuzz = sub.add_parser("fuzz", help="random positions through blocks on a simulator, against the golden model")
    fuzz.add_argument("--block", nargs="+", default=["all"], help="block names, or all (default)")
    fuzz.add_argument("--sim", default="icarus", help=f"one of {', '.join(SIMULATORS)} (default icarus)")
    fuzz.add_argument("--count", type=_positive, default=10000, help="positions per block (default 10000)")
    fuzz.add_argument("--seed", type=_natural, default=1, help="same seed, same positions (default 1)")
    fuzz.add_argument("--no-shrink", action="store_true", help="keep a failing case as found, do not shrink it")
    fuzz.set_defaults(run=cmd_fuzz)

    campaign = sub.add_parser("campaign", help="fuzz blocks x simulators in parallel shards: journaled, resumable, "
                                               "local or on a Dask cluster")
    campaign.add_argument("--blocks", nargs="+", default=["all"], help="block names, or all (default)")
    campaign.add_argument("--sims", nargs="+", default=["icarus"],
                          help=f"simulators: {', '.join(SIMULATORS)}, or all (default icarus)")
    campaign.add_argument("--count", type=_positive, default=10000, help="positions per block and simulator (default 10000)")
    campaign.add_argument("--seed", type=_natural, default=1, help="seed of the first shard; shard i uses seed+i (default 1)")
    campaign.add_argument("--out", required=True, help="campaign folder: journal.jsonl, cases/, logs/")
    campaign.add_argument("--workers", type=_positive, help="shards at once on this machine (default: one per core)")
    campaign.add_argument("--shard-size", type=_positive, default=2000, help="positions per shard (default 2000)")
    campaign.add_argument("--resume", action="store_true",
                          help="finish the campaign in --out: skip shards journaled as pass or fail, run those "
                               "journaled as error or timeout again")
    campaign.add_argument("--no-retry", action="store_true",
                          help="with --resume: skip shards journaled as error or timeout too")
    campaign.add_argument("--no-shrink", action="store_true", help="keep failing cases as found, do not shrink them")
    campaign.add_argument("--timeout", type=_seconds, default=900.0,
                          help="seconds one shard may take, build included, before it is killed (default 900)")
    campaign.add_argument("--cluster", metavar="tcp://HOST:PORT",
                          help="run the shards on this Dask distributed scheduler's workers instead")
    campaign.set_defaults(run=cmd_campaign)

    search_cmd = sub.add_parser("search", help="the tree search (SPEC 7): golden, and the engine on a simulator "
                                               "with every node checked")
    search_cmd.add_argument("--board", help="board text; default: the start position")
    search_cmd.add_argument("--depth", type=_positive, default=4, help="depth limit 1..16 (default 4)")
    search_cmd.add_argument("--budget", type=_cycles, help="cycle budget, e.g. 1024 or 3.2M (default: none)")
    search_cmd.add_argument("--sim", help=f"also run the engine on this simulator ({', '.join(SIMULATORS)})")
    search_cmd.add_argument("--json", action="store_true", help="print one JSON object instead")
    search_cmd.add_argument("--monitor", choices=("hdl", "python"), default="hdl",
                            help="with --sim: hdl (the default) clocks the engine in HDL and logs every node to a "
                                 "file checked by a golden process; python samples every cycle from Python (slow)")
    search_cmd.set_defaults(run=cmd_search)

    play_cmd = sub.add_parser("play", help="one game: the processor against the reference software, refereed")
    play_cmd.add_argument("--budget", type=_cycles, required=True, help="processor cycles per move, e.g. 1024 or 3.2M")
    play_cmd.add_argument("--level", type=int, choices=range(1, 8), default=1, help="reference level 1..7 (depth)")
    play_cmd.add_argument("--color", choices=("black", "white"), default="black", help="the processor's colour")
    play_cmd.add_argument("--sim", help=f"simulate the RTL processor on this simulator ({', '.join(SIMULATORS)}); "
                                        "default: its golden model")
    play_cmd.add_argument("--record", help="results file (default: a new file under runs/)")
    play_cmd.add_argument("--check", choices=("moves", "nodes"), default="moves",
                          help="moves: every processor move against the golden processor (default); "
                               "nodes: also every search node against the golden search")
    play_cmd.set_defaults(run=cmd_play)

    tournament = sub.add_parser("tournament", help="both colours against every reference level, in parallel; "
                                                   "tables like the seed's Tables 4-6")
    tournament.add_argument("--budget", type=_cycles, required=True, help="processor cycles per move")
    tournament.add_argument("--levels", type=_levels, default=list(range(1, 8)), help="e.g. 1-7 (default)")
    tournament.add_argument("--sim", help="simulate the RTL processor (default: its golden model)")
    tournament.add_argument("--jobs", type=_positive, help="worker processes on this machine (default: one per core)")
    tournament.add_argument("--cluster", metavar="tcp://HOST:PORT",
                            help="play the games as tasks of this Dask distributed scheduler instead: each worker "
                                 "plays in a build slot of its own machine with its own simulators and RTL (the "
                                 "tables name each game's host and RTL digest)")
    tournament.add_argument("--mode", choices=("processor", "engine"), default="processor",
                            help="with --sim: processor (the whole processor over its pins) or engine (games by the "
                                 "golden processor, every search on the simulated search engine, every node "
                                 "checked: the seed's 3.2M and 32M budgets in hours)")
    tournament.add_argument("--resume", action="store_true",
                            help="keep the games already finished in --out (its games.json), play the rest")
    tournament.add_argument("--out", help="folder for tournament.md, tournament.csv, games.json "
                                          "(default: a new folder under runs/)")
    tournament.set_defaults(run=cmd_tournament)

    from gamechip.parallel import DEFAULT_DEPTH

    parallel = sub.add_parser("parallel", help="the search split over P engines (SPEC 12): speed-up, efficiency, "
                                               "overhead and balance in simulated engine cycles, on a Dask cluster")
    parallel.add_argument("--positions", type=_positive, default=20, help="seeded midgame positions (default 20)")
    parallel.add_argument("--seed", type=_natural, default=1, help="seed of the positions (default 1)")
    parallel.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                          help=f"search depth (default {DEFAULT_DEPTH}: 10^6 engine cycles or more sequentially)")
    parallel.add_argument("--split", type=int, help="plies searched on the host (default: 2 for seed, as the seed "
                                                    "did, 3 for ybw)")
    parallel.add_argument("--engines", type=_engine_counts, default=[1, 2, 4, 8, 16, 32],
                          help="engine counts P (default 1,2,4,8,16,32)")
    parallel.add_argument("--scheme", nargs="+", default=["seed", "ybw"],
                          help="seed (split, full windows, nothing shared) and/or ybw (Young Brothers Wait, "
                               "PVS windows, bounds shared, cut-offs cancel)")
    parallel.add_argument("--sim", help=f"also run every subtree on the simulated engine under the node scoreboard "
                                        f"({', '.join(SIMULATORS)})")
    parallel.add_argument("--sim-sample", type=_positive, help="with --sim: only this many subtrees per position "
                                                                "(default: all)")
    parallel.add_argument("--cluster", metavar="tcp://HOST:PORT", help="an existing Dask scheduler (default: a "
                                                                       "local cluster, one worker per core)")
    parallel.add_argument("--out", help="folder for parallel.csv, parallel.svg, parallel.json (default: under runs/)")
    parallel.add_argument("--json", action="store_true", help="print one JSON object: {\"rows\": [...]}")
    parallel.set_defaults(run=cmd_parallel)

    codesign = sub.add_parser("codesign", help="the co-design seed's measurements (SPEC 10): NegaScout host, the "
                                               "evaluator on a bus, whole board against changeboard transfers")
    codesign.add_argument("--game", action="store_true", help="one self-play game at every depth 1..D (default)")
    codesign.add_argument("--positions", type=int, help="N seeded midgame positions at every depth 1..D instead")
    codesign.add_argument("--depth", type=int, required=True, help="deepest search depth D (the seed: 8)")
    codesign.add_argument("--seed", type=_natural, default=1, help="seed of the positions (default 1)")
    codesign.add_argument("--sim", choices=("verilator", "icarus"),
                          help="also stream every bus transaction of both models through the simulated peripheral "
                               "(HDL-clocked AXI4-Lite replay) and check every response against the golden bus model")
    codesign.add_argument("--out", help="folder of the recorded transaction stream with --sim "
                                                   "(default build/codesign)")
    codesign.add_argument("--json", action="store_true", help="print one JSON object")
    codesign.set_defaults(run=cmd_codesign)

    area = sub.add_parser("area", help="LUTs, flip-flops, block and distributed RAMs, logic levels and clock of every design "
                                       "(pinned Yosys; nextpnr place and route where a design fits)")
    area.add_argument("--designs", nargs="+", help="designs (default: all of rtl/designs.py)")
    area.add_argument("--families", nargs="+", help="xc7, ice40, ecp5 (default: xc7 ice40; ecp5 is added for "
                                                    "designs too large for the HX8K)")
    area.add_argument("--no-place", action="store_true", help="synthesis only (no place and route)")
    area.add_argument("--out", help="folder for area.md, area.csv, area.json (default runs/area)")
    area.add_argument("--json", action="store_true", help="print one JSON object: {\"rows\": [...]}")
    area.set_defaults(run=cmd_area)

    carry = sub.add_parser("carry-waivers",
                           help="re-key tb/mutation_waivers.json after an RTL edit: a waiver names one version of "
                                "its file, and is carried to the current one when the waived mutant is unchanged",
                           epilog="exit status: 0 every waiver names the current file; 1 stranded waivers (the "
                                  "waived statement changed: review it, they are kept under their old ids), or "
                                  "with --check waivers that would be carried; 2 not a git checkout")
    carry.add_argument("--check", action="store_true", help="say what would be carried; write nothing")
    carry.set_defaults(run=cmd_carry_waivers)

    replay = sub.add_parser("replay", help="re-run one saved failing case, with its waveform")
    replay.add_argument("case", help="case file (JSON) named in a failure report")
    replay.add_argument("--waves", action="store_true", help="record the waveform of the case")
    replay.set_defaults(run=cmd_replay)

    mutate = sub.add_parser("mutate", help="the regression's mutation score: every RTL block's source mutants in one "
                                           "schemata build per design, each run through its bench",
                            epilog="exit status: 0 scored; 1 mutants that could not be judged (errors), or a "
                                   "counterexample --add-to-corpus refused; 2 bad input; 3 a bench bug: a killed mutant "
                                   "that is equivalent to the original (gamechip report DIR exits 3 then too)")
    mutate.add_argument("--blocks", nargs="+", help="blocks to mutate (default: every block, Reversi and chess)")
    mutate.add_argument("--sim", default="verilator", choices=("verilator", "icarus"))
    mutate.add_argument("--out", required=True, help="results folder (journal.jsonl, mutants.json, report.md)")
    mutate.add_argument("--resume", action="store_true", help="go on with the run in --out, skipping finished mutants")
    mutate.add_argument("--limit", type=int, help="at most N mutants per block, spread over files and operators")
    mutate.add_argument("--netlist", type=int, metavar="N",
                        help="also N Yosys netlist mutants per block (as mcy samples them), all in one netlist per "
                             "design behind a mutsel input; report rows <block>:netlist")
    mutate.add_argument("--netlist-only", action="store_true", help="with --netlist: no source mutants")
    mutate.add_argument("--elab", action="store_true",
                        help="also elaboration-time mutants (the code that builds a design: loop bounds, masks, "
                             "tables), one conversion each; report rows <block>:elab")
    mutate.add_argument("--elab-only", action="store_true",
                        help="--elab without the source mutants (as --netlist-only for netlist mutants)")
    mutate.add_argument("--workers", type=int, help="parallel runs on this machine (default: one per core)")
    mutate.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="run the mutants on the workers of this Dask distributed scheduler (each builds the "
                             "schemata of its own RTL, which must be the same); the journal is kept here")
    mutate.add_argument("--shard-size", type=int, metavar="N",
                        help="with --cluster: mutants per cluster task (default 32)")
    mutate.add_argument("--no-prove", action="store_true",
                        help="leave survivors unproved (no Yosys SAT miter against the original)")
    mutate.add_argument("--prove-killed", type=int, metavar="N",
                        help="also N killed mutants per block through the SAT miter and every byte-identical mutant "
                             "through its bench: one equivalent yet killed is a bench bug (exit status 3)")
    mutate.add_argument("--retry-survivors", action="store_true",
                        help="with --resume: judge every survivor not proved equivalent again (after new bench "
                             "cases)")
    mutate.add_argument("--recheck-waivers", action="store_true",
                        help="also run the mutants waived in tb/mutation_waivers.json (left unrun otherwise); one "
                             "killed is a bench bug or a wrong waiver (exit status 3)")
    mutate.add_argument("--quick", action="store_true",
                        help="every bench at its smallest size: a smoke run of the machinery, not a score")
    mutate.add_argument("--seed", type=_natural, default=1, help="seed of the benches' random positions")
    mutate.add_argument("--replay", metavar="ID", help="run one mutant of --out again and say how it ends")
    mutate.add_argument("--add-to-corpus", nargs="*", metavar="ID",
                        help="of the finished run in --out: replay these survivors' SAT counterexamples (none named: "
                             "every one) on the original, which must pass, and on the mutant, which must fail, then "
                             "add each to the regression corpus and record the mutant killed by it")
    mutate.add_argument("--why", help="with --add-to-corpus: which gap the cases close (kept in the corpus file, "
                                      "before the mutant's own description)")
    mutate.add_argument("--json", action="store_true", help="print the per-block scores as one JSON object")
    mutate.set_defaults(run=cmd_mutate)

    report = sub.add_parser("report", help="one static HTML page (DIR/report.html) for a campaign folder: counts, "
                                           "tools, failures with board pictures and replay commands, logs")
    report.add_argument("dir", help="the campaign's --out folder (holds journal.jsonl)")
    report.set_defaults(run=cmd_report)

    shrink = sub.add_parser("shrink", help="the smallest case the RTL still gets wrong: remove discs (legal squares, "
                                           "plies) while the mismatch stays")
    shrink.add_argument("case", help="case file (JSON) named in a failure report")
    shrink.add_argument("--out", help="shrunk case file to write (default: CASE with .shrunk.json)")
    shrink.set_defaults(run=cmd_shrink)

    corpus = sub.add_parser("corpus", help="the regression corpus (tb/cases/): cases make test replays forever after")
    corpus_actions = corpus.add_subparsers(dest="action", required=True, metavar="ACTION")
    corpus_add = corpus_actions.add_parser("add", help="copy a (shrunk) case file into the corpus")
    corpus_add.add_argument("case", help="case file (JSON)")
    corpus_add.add_argument("--why", required=True, help="which bug found it (kept in the file and its name)")
    corpus_add.set_defaults(run=cmd_corpus_add)
    corpus_list = corpus_actions.add_parser("list", help="the corpus cases and why each is there")
    corpus_list.set_defaults(run=cmd_corpus_list)

    chess_cmd = sub.add_parser("chess", help="the chess chip's blocks: ordered moves, perft, repetitions "
                                             "(golden, and with --sim the simulated block)")
    chess_actions = chess_cmd.add_subparsers(dest="action", required=True, metavar="ACTION")
    chess_moves = chess_actions.add_parser("moves", help="the pseudo-legal moves in the generator's order")
    chess_moves.add_argument("--fen", default=_START_FEN, help="position (default: the start position)")
    chess_moves.add_argument("--captures", action="store_true", help="captures only (mode 1)")
    chess_moves.add_argument("--sim", help=f"also walk the simulated generator ({', '.join(SIMULATORS)})")
    chess_moves.add_argument("--json", action="store_true", help="print one JSON object instead")
    chess_moves.set_defaults(run=cmd_chess_moves)
    chess_perft = chess_actions.add_parser("perft", help="leaf count through the ordered generator")
    chess_perft.add_argument("--fen", default=_START_FEN, help="position (default: the start position)")
    chess_perft.add_argument("--depth", type=_natural, required=True)
    chess_perft.add_argument("--sim", help="also count through the simulated generator")
    chess_perft.add_argument("--json", action="store_true", help="print one JSON object instead")
    chess_perft.set_defaults(run=cmd_chess_perft)
    chess_rep = chess_actions.add_parser("repetition", help="the repetition detector after each move")
    chess_rep.add_argument("--fen", default=_START_FEN, help="position (default: the start position)")
    chess_rep.add_argument("--moves", required=True, help='UCI moves, e.g. "g1f3 g8f6 f3g1 f6g8"')
    chess_rep.add_argument("--sim", help="also run the simulated detector")
    chess_rep.add_argument("--json", action="store_true", help="print one JSON object instead")
    chess_rep.set_defaults(run=cmd_chess_repetition)

    convert = sub.add_parser("convert", help="write Verilog and VHDL of every block")
    convert.add_argument("--out", default="build/hdl-out", help="output folder (default build/hdl-out)")
    convert.add_argument("--design", nargs="+", help="only these designs")
    convert.set_defaults(run=cmd_convert)

    bench = sub.add_parser("bench", help="throughput of each block per simulator against the golden model alone")
    bench.add_argument("--block", nargs="+", default=["all"])
    bench.add_argument("--sim", nargs="+", default=list(SIMULATORS))
    bench.add_argument("--scale", type=_scale, default=1.0, help="multiply the number of positions (more than 0)")
    bench.set_defaults(run=cmd_bench)
    return parser


# Options whose values may start with '-' (a board text's first square is often empty), which
# argparse would otherwise take for an option of their own.
DASHED_VALUES = ("--board",)


def _join_dashed_values(argv):
    out = []
    for arg in argv:
        board_like = " " in arg.strip() or set(arg) <= set("-XOxo")
        if out and out[-1] in DASHED_VALUES and arg.startswith("-") and board_like:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(_join_dashed_values(sys.argv[1:] if argv is None else list(argv)))
    from tb.casefile import CaseFileError
    from tb.runner import ConversionFailed, SettingError

    try:
        return args.run(args)
    except (BoardError, UsageError, SettingError, CaseFileError) as error:
        print(f"gamechip {args.command}: error: {error}", file=sys.stderr)
        return 2
    except ConversionFailed as error:  # the RTL under test does not convert: a failure of that RTL
        print(f"gamechip {args.command}: FAIL: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"gamechip {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
