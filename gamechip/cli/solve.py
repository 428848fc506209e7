"""The solve command: exact endgames (win/loss/draw or the exact disc difference) by the golden
solver (golden/solve.py), each position's result checked against its published score when it has
one (the FFO test, an OBF file with move scores); with --sim also by the search engine's solve mode
on a simulator, every node checked against the golden search (docs/scoreboard.md)."""

import json
import os
import subprocess
import sys
import time

from gamechip.cli.arguments import simulator_list
from gamechip.cli.common import UsageError
from golden.board import BoardError, format_board

SCORING_HELP = ("plain: empty squares not counted, the processor's final value; winner: the empty squares of a "
                "game that ends early go to the winner, as the FFO test, Edax and Zebra score "
                "(default: plain for --board; winner for --ffo and --obf, the scoring of their published scores)")
# the configurations --compare-orderings measures: (ordering, last empties solved by counting flips,
# fewest empties at which a "+parity" ordering counts replies, NegaScout with the reply orderings)
COMPARED = (("none", 2, None, True), ("static", 2, None, True), ("parity", 2, None, True),
            ("fastest", 2, None, True), ("mobility", 2, None, True),
            ("fastest+parity", 2, 6, True), ("mobility+parity", 2, 4, True), ("mobility+parity", 2, 6, True),
            ("mobility+parity", 2, 8, True), ("mobility+parity", 2, 10, True), ("mobility+parity", 2, 6, False),
            ("mobility+parity", 1, 6, True), ("mobility+parity", 0, 6, True))
PROGRESS_AFTER = 5   # seconds a position is solved before each root move searched is reported
DEFAULT_COMPARED = ("mobility+parity", 2, 6, True)


def solve_arguments(parser):
    from golden.solve import DEFAULT_ORDERING, ORDERINGS

    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--board", help="board text (64 squares X/O/- from A1, a space, the side to move), a GGF "
                                        "game (its final position) or an OBF line, or a file holding one")
    source.add_argument("--obf", metavar="FILE", help="an OBF file (Edax's problem format), one position a line; "
                                                      "move scores on a line are checked")
    source.add_argument("--ffo", metavar="RANGE", help="FFO endgame test positions, e.g. 1-19, 40 or 1-3,5 (#1-#79, "
                                                      "golden/ffo.obf), each checked against its published score")
    parser.add_argument("--wld", action="store_true", help="win/loss/draw only: score -1, 0 or 1")
    parser.add_argument("--scoring", choices=("plain", "winner"), help=SCORING_HELP)
    parser.add_argument("--ordering", choices=ORDERINGS, default=DEFAULT_ORDERING,
                        help=f"move ordering of the solver (docs/solve.md; default {DEFAULT_ORDERING})")
    parser.add_argument("--last", type=int, choices=(0, 1, 2), default=2,
                        help="the last 0, 1 or 2 empties solved by counting flips instead of visiting nodes "
                             "(default 2)")
    parser.add_argument("--compare-orderings", action="store_true",
                        help="solve every position with each ordering and last-empties step and print the table "
                             "of node counts (docs/solve.md)")
    parser.add_argument("--sim", help=f"also solve with the search engine's solve mode on this simulator "
                                      f"({simulator_list()}), every node checked against the golden search, the "
                                      "engine's score and best move against the golden solver's and the published "
                                      "ones; its own move ordering (docs/solve.md), no budget")
    parser.add_argument("--json", action="store_true", help="one JSON object per position instead of the table")


def problems_of(args):
    """[(name, ObfProblem)] the arguments ask for; BoardError/UsageError for bad input."""
    from gamechip.cli.arguments import board_or_start
    from golden.ffo import ObfProblem, ffo_problems, parse_ffo_range, read_obf

    if args.board is not None:
        return [("board", ObfProblem(board_or_start(args.board), {}))]
    if args.obf is not None:
        try:
            problems = read_obf(args.obf)
        except OSError as error:
            raise UsageError(f"--obf {args.obf}: {error.strerror or error}")
        except UnicodeDecodeError:
            raise UsageError(f"--obf {args.obf}: not a text file (an OBF file is lines of text)")
        if not problems:
            raise UsageError(f"--obf {args.obf}: no position in the file")
        return [(f"#{p.number}" if p.number else f"line {i}", p) for i, p in enumerate(problems, 1)]
    numbers = parse_ffo_range(args.ffo)
    problems = ffo_problems()
    return [(f"FFO #{n}", problems[n]) for n in numbers]


class GoldenSolver:
    """A golden process running ``python -m golden.solve`` (PyPy when installed), one request at a time."""

    def __init__(self):
        from tb.checks.search import ROOT, golden_python

        self.python = golden_python()
        self.process = subprocess.Popen([self.python, "-m", "golden.solve"], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=dict(os.environ, PYTHONPATH=ROOT))
        self.busy = False

    def solve(self, request, name=""):
        """The answer to ``request``; after PROGRESS_AFTER seconds, a line on stderr per root move
        searched (for position ``name``)."""
        self.busy = True
        started = time.monotonic()
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        while line.startswith('{"progress"'):
            done, total, best, nodes = json.loads(line)["progress"]
            if time.monotonic() - started > PROGRESS_AFTER:
                print(f"{name}: {done}/{total} root moves searched, best so far {best}, {nodes:,} nodes, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
            line = self.process.stdout.readline()
        self.busy = False
        if not line:
            self.process.wait()
            last = (self.process.stderr.read().strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"the golden solver ({self.python}) ended without answering: {last}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the golden solver refused {request['board']}: {answer['error']}")
        return answer

    def close(self):
        """End the process: at once when it is still solving (an interrupt), else once it has
        read the end of its input."""
        if self.busy:
            self.process.kill()
        try:
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()
            self.process.wait()


def run_solve(args):
    from gamechip.cli.common import announce_rtl, check_sim

    scoring = args.scoring or ("plain" if args.board is not None else "winner")
    if args.compare_orderings and args.json:
        raise UsageError("--compare-orderings prints a table: leave out --json")
    if args.compare_orderings and args.sim is not None:
        raise UsageError("--compare-orderings measures the golden solver's orderings: leave out --sim")
    if args.sim is not None:
        check_sim(args.sim)
    problems = problems_of(args)
    engine = None
    if args.sim is not None:
        announce_rtl()
        try:
            engine = engine_answers(args.sim, problems, args.wld, scoring, echo=True)   # progress on stderr
        except AssertionError as failure:   # a node, an answer or a solve differs: the scoreboard's report
            print(f"{failure}\ngamechip solve: FAIL: the engine's solve on {args.sim} differs (above)", file=sys.stderr)
            return 1
    solver = GoldenSolver()
    try:
        if args.compare_orderings:
            return compare_orderings(solver, problems, args.wld, scoring)
        return solve_all(solver, problems, args, scoring, engine)
    except RuntimeError as error:
        print(f"gamechip solve: FAIL: {error}", file=sys.stderr)
        return 1
    finally:
        solver.close()


def engine_answers(sim, problems, wld, scoring, echo):
    """The engine's solve of every position in one simulation on ``sim``, every node checked against
    the golden search's solve mode and each completed solve against the golden solver (the
    scoreboard, tb/checks/search.py): [answer] (best, value, depth, nodes, cycles, nodes_checked),
    or AssertionError with the failure report."""
    from golden.search import MINUS_INFINITY, PLUS_INFINITY
    from tb.checks.search import WLD_WINDOW, SearchCase
    from tb.host.search_bench import checked_answers

    alpha, beta = WLD_WINDOW if wld else (MINUS_INFINITY, PLUS_INFINITY)
    cases = [SearchCase(problem.position, 1, None, f"gamechip solve {name}", exact=True, alpha=alpha, beta=beta,
                        solve=scoring) for name, problem in problems]
    _, answers = checked_answers(sim, cases, "gamechip-solve", echo=echo, optimised=sim == "verilator")
    if len(answers) != len(cases):
        raise AssertionError(f"the {sim} run answered {len(answers)} of {len(cases)} positions")
    return answers


def engine_disagreement(name, answer, golden, wld):
    """A line naming how the engine's answer differs from the golden solver's, or None. (The
    scoreboard has checked it already; this says it again beside the table, and fails a solve the
    engine abandoned.) WLD compares signs: a finished game at the root answers its final count
    whatever the window (docs/spec.md §7)."""
    from golden.solve import sign

    if answer["depth"] == 0:
        return f"{name}: the engine abandoned the solve (its board stack would overflow)"
    if (sign(answer["value"]) if wld else answer["value"]) != golden["score"]:
        return f"{name}: the engine solved {answer['value']:+d}, best {answer['best']}; golden {golden['score']:+d}"
    return None


def solve_all(solver, problems, args, scoring, engine=None):
    """Solve and print every position; ``engine``: the engine's answers (:func:`engine_answers`) to
    print and check beside the golden solver's."""
    from golden.ffo import published_check

    mode = "WLD" if args.wld else "exact"
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print
    say(f"{mode} solve, {scoring} scoring, ordering {args.ordering}, last {args.last}, golden solver on "
        f"{solver.python}" + (f"; the engine's solve mode on {args.sim}, every node checked" if engine else ""))
    if not args.json:
        sim_columns = f" {'engine':>6} {'nodes':>11} {'cycles':>13} {'cycles/node':>11}" if engine else ""
        print(f"{'position':10} {'empties':>7} {'score':>6} {'best':>5} {'nodes':>13} {'seconds':>9} "
              f"{'nodes/s':>10}{sim_columns}  published")
    disagreements, total_nodes, total_seconds = [], 0, 0.0
    engine_nodes = engine_cycles = 0
    for number, (name, problem) in enumerate(problems, 1):
        if args.json and len(problems) > 1:
            say(f"[{number}/{len(problems)}] {name} ({bin(problem.position.empty).count('1')} empties) ...")
        answer = solver.solve({"board": format_board(problem.position), "wld": args.wld, "scoring": scoring,
                               "ordering": args.ordering, "last": args.last}, name)
        agrees, expected = published_check(problem, answer, args.wld, scoring)
        total_nodes += answer["nodes"]
        total_seconds += answer["seconds"]
        if agrees is False:
            disagreements.append(f"{name}: expected {expected}; solved {answer['score']:+d}, best {answer['best']}")
        record = {"position": name, "board": format_board(problem.position), "empties": answer["empties"],
                  "score": answer["score"], "best": answer["best"], "nodes": answer["nodes"],
                  "seconds": answer["seconds"], "wld": args.wld, "scoring": scoring,
                  "published": expected if agrees is not None else None, "agrees": agrees}
        sim_text = ""
        if engine:
            ours = engine[number - 1]
            cycles_per_node = round(ours["cycles"] / max(1, ours["nodes"]), 3)
            engine_nodes, engine_cycles = engine_nodes + ours["nodes"], engine_cycles + ours["cycles"]
            differs = engine_disagreement(name, ours, answer, args.wld)
            if differs is None and agrees is not None:
                engine_agrees, engine_expected = published_check(problem, {"score": ours["value"], "best": ours["best"]},
                                                                 args.wld, scoring)
                if engine_agrees is False:
                    differs = f"{name}: expected {engine_expected}; the engine solved {ours['value']:+d}, " \
                              f"best {ours['best']}"
            if differs:
                disagreements.append(differs)
            record.update(cycles=ours["cycles"], cycles_per_node=cycles_per_node,
                          engine={"simulator": args.sim, "score": ours["value"], "best": ours["best"],
                                  "nodes": ours["nodes"], "nodes_checked": ours["nodes_checked"],
                                  "solved": ours["depth"] == 1, "agrees": differs is None})
            sim_text = (f" {ours['value']:>+6d} {ours['nodes']:>11,} {ours['cycles']:>13,} {cycles_per_node:>11.3f}"
                        + ("" if differs is None else " DIFFERS"))
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            verdict = {True: "agrees", False: "DIFFERS", None: ""}[agrees]
            print(f"{name:10} {answer['empties']:>7} {answer['score']:>+6d} {answer['best']:>5} {answer['nodes']:>13,} "
                  f"{answer['seconds']:>9.2f} {answer['nodes'] / max(answer['seconds'], 1e-3):>10,.0f}{sim_text}  "
                  f"{expected if agrees is not None else ''} {verdict}".rstrip(), flush=True)
    say(f"{len(problems)} position{'s' if len(problems) != 1 else ''}: {total_nodes:,} nodes in {total_seconds:.2f} s "
        f"CPU, {total_nodes / max(total_seconds, 1e-3):,.0f} nodes/s")
    if engine:
        checked = sum(answer["nodes_checked"] for answer in engine)
        say(f"engine on {args.sim}: {engine_nodes:,} nodes, {engine_cycles:,} cycles, "
            f"{engine_cycles / max(1, engine_nodes):.3f} cycles/node; {checked:,} node reports checked")
    for line in disagreements:
        print(f"gamechip solve: FAIL: {line}", file=sys.stderr)
    return 1 if disagreements else 0


def compare_orderings(solver, problems, wld, scoring):
    """The node count of every position under each configuration of COMPARED, as a Markdown table
    (a row a configuration), with the children whose replies fastest-first counted; every result
    is checked against the published score as solve_all does."""
    from golden.ffo import published_check

    print(f"node counts, {'WLD' if wld else 'exact'} solve, {scoring} scoring, golden solver on {solver.python}",
          file=sys.stderr)
    rows, failures = [], []
    for ordering, last, fastest_min, negascout in COMPARED:
        name = (ordering + (f" (fastest-first at {fastest_min}+ empties)" if fastest_min else "")
                + ("" if negascout or ordering in ("none", "static", "parity") else ", alpha-beta without NegaScout")
                + f", last {last}")
        nodes, replies = [], 0
        for position, problem in problems:
            started = time.monotonic()
            request = {"board": format_board(problem.position), "wld": wld, "scoring": scoring, "ordering": ordering,
                       "last": last}
            if fastest_min:
                request["fastest_min"] = fastest_min
            request["negascout"] = negascout
            answer = solver.solve(request, position)
            agrees, expected = published_check(problem, answer, wld, scoring)
            if agrees is False:
                failures.append(f"{position} ({name}): expected {expected}; solved {answer['score']:+d}, "
                                f"best {answer['best']}")
            nodes.append(answer["nodes"])
            replies += answer["replies_counted"]
            print(f"{name}: {position} {answer['nodes']:,} nodes, {time.monotonic() - started:.1f} s", file=sys.stderr,
                  flush=True)
        rows.append((name, (ordering, last, fastest_min, negascout), nodes, replies))
    default = next(sum(nodes) for _, key, nodes, _ in rows if key == DEFAULT_COMPARED)
    print("| ordering, last empties counted | " + " | ".join(name for name, _ in problems)
          + " | total nodes | vs default | replies counted |")
    print("|---|" + "---:|" * (len(problems) + 3))
    for name, key, nodes, replies in rows:
        mark = " (default)" if key == DEFAULT_COMPARED else ""
        print(f"| {name}{mark} | " + " | ".join(f"{n:,}" for n in nodes)
              + f" | {sum(nodes):,} | {sum(nodes) / max(default, 1):.2f}x | {replies:,} |")
    for line in failures:
        print(f"gamechip solve: FAIL: {line}", file=sys.stderr)
    return 1 if failures else 0


COMMANDS = {
    "solve": (solve_arguments, run_solve),
}
