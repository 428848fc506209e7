"""``gamechip``: the one entry point. Every Makefile target calls a sub-command of it.

Bad input (board text, square names, block or simulator names, counts) ends in one line that
says what is wrong and what is valid, and exit status 2; a mismatch found by a simulation ends
in the failure report and exit status 1.
"""

import argparse
import json
import sys
import time

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
    from tb.blocks import BLOCKS, unknown

    if not names or names == ["all"]:
        return list(BLOCKS.values())
    for name in names:
        if name not in BLOCKS:
            raise UsageError(unknown("block", name, list(BLOCKS) + ["all"]))
    return [BLOCKS[n] for n in names]


def _check_sim(sim):
    from tb.runner import SimulatorMissing, check_simulator

    try:
        check_simulator(sim)
    except SimulatorMissing as missing:
        raise UsageError(str(missing))


def _report_failure(outcome, design, sim):
    from tb.runner import replay_case

    message = outcome.result.get("failure")
    if not message:
        print(outcome.log[-4000:], file=sys.stderr)
        print(f"{design} on {sim}: the simulation failed before comparing anything; "
              f"full log: {outcome.sim_dir / 'gamechip.log'}", file=sys.stderr)
        return
    print(message, file=sys.stderr)
    print("recording the waveform of this case ...", file=sys.stderr)
    _, waves = replay_case(outcome.failure_case)
    print(f"waveform: {waves}" if waves.exists() else f"waveform: replay did not write {waves}", file=sys.stderr)


def cmd_fuzz(args):
    from tb.runner import run_design

    _check_sim(args.sim)
    blocks = _blocks(args.block)
    print(f"fuzz: {', '.join(b.name for b in blocks)} on {args.sim}, {args.count:,} positions each, seed {args.seed}",
          file=sys.stderr)
    summary = []
    for block in blocks:
        design = block.designs[0]
        started = time.perf_counter()
        outcome = run_design(design, args.sim, block.module, ["fuzz"], echo=True, tag="fuzz",
                             env={"GAMECHIP_SEED": str(args.seed), "GAMECHIP_COUNT": str(args.count)})
        fuzz = outcome.result.get("tests", {}).get("fuzz", {})
        if not outcome.passed:
            _report_failure(outcome, design, args.sim)
            print(f"FAIL {block.name} on {args.sim}, seed {args.seed}: reproduce with "
                  f"gamechip fuzz --block {block.name} --sim {args.sim} --count {args.count} --seed {args.seed}",
                  file=sys.stderr)
            return 1
        rate = fuzz["checked"] / fuzz["wall_seconds"] if fuzz.get("wall_seconds") else 0.0
        summary.append((block.name, fuzz.get("checked", 0), rate, time.perf_counter() - started))
    print(f"\n{'block':<14} {'sim':<10} {'checked':>10} {'checked/s':>11} {'run time':>9}  seed")
    for name, checked, rate, seconds in summary:
        print(f"{name:<14} {args.sim:<10} {checked:>10,} {rate:>11,.0f} {seconds:>8.1f}s  {args.seed}")
    print(f"PASS: {sum(s[1] for s in summary):,} cases checked against the golden model, no mismatch (seed {args.seed})")
    return 0


def cmd_campaign(args):
    from gamechip.campaign import CampaignInputError, check_cluster_address, run
    from tb.runner import SIMULATORS

    blocks = _blocks(args.blocks)
    sims = list(SIMULATORS) if args.sims == ["all"] else list(dict.fromkeys(args.sims))
    for sim in sims:
        if args.cluster and sim not in SIMULATORS:  # the simulators must be on the workers, not here
            raise UsageError(f"unknown simulator '{sim}': choose one of {', '.join(SIMULATORS)}")
        if not args.cluster:
            _check_sim(sim)
    again = ["--blocks", *(b.name for b in blocks), "--sims", *sims, "--count", str(args.count), "--seed",
             str(args.seed), "--shard-size", str(args.shard_size), "--out", args.out, "--timeout", f"{args.timeout:g}"]
    again += ["--cluster", args.cluster] if args.cluster else ["--workers", str(args.workers)] if args.workers else []
    try:
        if args.cluster:
            check_cluster_address(args.cluster)
        return run(blocks, sims, args.count, args.seed, args.out, workers=args.workers, shard_size=args.shard_size,
                   resume=args.resume, timeout=args.timeout, cluster=args.cluster, argv=again)
    except CampaignInputError as error:
        raise UsageError(str(error))


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def cmd_replay(args):
    from tb.runner import replay_case

    try:
        record = json.load(open(args.case))
        record["block"], record["design"], record["sim"], record["case"]["board"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"cannot read case file {args.case}: {error}")
    _check_sim(record["sim"])
    outcome, waves = replay_case(args.case, waves=args.waves, echo=True)
    where = f"; waveform: {waves}" if waves else " (add --waves for a waveform)"
    if outcome.passed:
        print(f"the case no longer fails on {record['sim']}{where}")
        return 0
    print(outcome.result.get("failure") or outcome.log[-4000:], file=sys.stderr)
    print(f"still fails{where}", file=sys.stderr)
    return 1


def cmd_convert(args):
    from rtl.convert import convert

    try:
        paths = convert(args.out, designs=args.design or None)
    except ValueError as error:
        raise UsageError(str(error))
    print(f"wrote {len(paths)} files to {args.out}")
    return 0


def cmd_bench(args):
    from gamechip.bench import run_bench

    for sim in args.sim:
        _check_sim(sim)
    return run_bench(_blocks(args.block), args.sim, args.scale)


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
    campaign.add_argument("--resume", action="store_true", help="finish the campaign in --out: skip journaled shards")
    campaign.add_argument("--timeout", type=_seconds, default=900.0,
                          help="seconds one shard may take, build included, before it is killed (default 900)")
    campaign.add_argument("--cluster", metavar="tcp://HOST:PORT",
                          help="run the shards on this Dask distributed scheduler's workers instead")
    campaign.set_defaults(run=cmd_campaign)

    replay = sub.add_parser("replay", help="re-run one saved failing case, with its waveform")
    replay.add_argument("case", help="case file (JSON) named in a failure report")
    replay.add_argument("--waves", action="store_true", help="record the waveform of the case")
    replay.set_defaults(run=cmd_replay)

    convert = sub.add_parser("convert", help="write Verilog and VHDL of every block")
    convert.add_argument("--out", default="build/hdl-out", help="output folder (default build/hdl-out)")
    convert.add_argument("--design", nargs="+", help="only these designs")
    convert.set_defaults(run=cmd_convert)

    bench = sub.add_parser("bench", help="throughput of each block per simulator against the golden model alone")
    bench.add_argument("--block", nargs="+", default=["all"])
    bench.add_argument("--sim", nargs="+", default=list(SIMULATORS))
    bench.add_argument("--scale", type=float, default=1.0, help="multiply the number of positions")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (BoardError, UsageError) as error:
        print(f"gamechip {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gamechip {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
