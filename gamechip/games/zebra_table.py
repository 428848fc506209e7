"""``make zebra-table ZEBRA=...``: the processor against Zebra level by level, the seed's §4.1.4
table (docs/nboard.md). ``python -m gamechip.games.zebra_table --zebra Z [--levels 1-10]
[--budgets 3.2M] [--openings 4] [--jobs N] [--out runs/zebra-table]``.

For each budget and level, one ``gamechip match`` (gamechip/games/match.py) between ``gamechip
nboard --budget B`` (the golden processor, run by the golden interpreter: PyPy when installed)
and ``scripts/zebra-nboard --level L`` over the first openings of the shipped set, each with both
colours, into ``OUT/budget<B>-level<L>/`` (resumable, as every match). Then ``OUT/table.md``:
per budget and level the processor's wins, losses and draws, its mean disc difference and the
Elo difference, with the command, the machine and the date.
"""

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from gamechip.games.match import Engine, elo_text, pair_stats, read_openings, run_match

ROOT = Path(__file__).resolve().parents[2]
PROCESSOR = "gamechip"


def level_list(text):
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def engine_command(budget):
    from tb.checks.search import golden_python

    python = golden_python()
    env = f"env PYTHONPATH={shlex.quote(str(ROOT))} " if python != sys.executable else ""
    return f"{env}{shlex.quote(python)} -m gamechip nboard --budget {budget}"


def row(out, budget, level):
    """(won, lost, drawn, games, mean disc difference, Elo text) of the processor at ``level``."""
    path = out / f"budget{budget}-level{level}" / "results.json"
    if not path.exists():
        return None
    games = json.loads(path.read_text())["games"]
    stats = pair_stats(games, PROCESSOR, f"zebra{level}")
    differences = [(g["black_discs"] - g["white_discs"]) * (1 if g["black"] == PROCESSOR else -1) for g in games]
    mean = sum(differences) / len(differences) if differences else 0
    return stats["wins"], stats["losses"], stats["draws"], stats["games"], mean, elo_text(stats.get("elo", 0))


def write_table(out, budgets, levels, command):
    lines = ["# The processor against Zebra", "",
             f"Made by `{command}` on {platform.node()} ({os.cpu_count()} cores, {platform.processor() or 'cpu'}), "
             f"{time.strftime('%Y-%m-%d %H:%M %Z')}.", "",
             "| budget a move | Zebra level | won | lost | drawn | mean disc difference | Elo difference |",
             "|---|---|---|---|---|---|---|"]
    for budget in budgets:
        for level in levels:
            result = row(out, budget, level)
            if result:
                won, lost, drawn, games, mean, elo = result
                lines.append(f"| {budget:,} | {level} | {won} of {games} | {lost} | {drawn} | {mean:+.1f} | {elo} |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None):
    from gamechip.cli.arguments import cycles

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zebra", required=True, help="the zebra binary (coeffs2.bin beside it)")
    parser.add_argument("--levels", type=level_list, default=level_list("1-10"), help="e.g. 1-10 (default)")
    parser.add_argument("--budgets", nargs="+", type=cycles, default=[3_200_000], help="cycles a move (default 3.2M)")
    parser.add_argument("--openings", type=int, default=4, help="openings of the shipped set, each both colours")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="games at once")
    parser.add_argument("--time", type=float, default=600.0, help="seconds a move at most (default 600)")
    parser.add_argument("--out", default="runs/zebra-table", help="folder (default runs/zebra-table)")
    args = parser.parse_args(argv)
    if not os.access(args.zebra, os.X_OK):
        print(f"zebra-table: {args.zebra} is not an executable (build Zebra: docs/nboard.md)", file=sys.stderr)
        return 2
    out = Path(args.out)
    openings = read_openings()[:args.openings]
    adapter = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'scripts' / 'zebra-nboard'))}"
    for budget in args.budgets:
        for level in args.levels:
            engines = [Engine(PROCESSOR, engine_command(budget)),
                       Engine(f"zebra{level}", f"{adapter} --zebra {shlex.quote(os.path.abspath(args.zebra))} "
                                               f"--level {level}")]
            # set budget: the processor's depth limit back to 16 (the budget decides); Zebra ignores it
            status = run_match(engines, openings, out / f"budget{budget}-level{level}", jobs=args.jobs,
                               budget=budget, move_seconds=args.time)
            if status:
                return status
    write_table(out, args.budgets, args.levels, " ".join(["python -m gamechip.games.zebra_table",
                                                          *(argv if argv is not None else sys.argv[1:])]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
