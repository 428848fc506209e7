"""``make zebra-table ZEBRA=...``: the processor against Zebra level by level, the seed's §4.1.4
table (docs/nboard.md). ``python -m gamechip.games.zebra_table --zebra Z [--levels 1-10]
[--budgets 3.2M] [--wall-seconds 0.1] [--openings 4] [--jobs N] [--out runs/zebra-table]``.

Budgets: ``--budgets`` in cycles a move (the seed's 3.2 M and 32 M are its 0.1 s and 1 s at its
32 MHz), and ``--wall-seconds S``: equal wall time, S seconds at the processor's own placed clock
(gamechip.measure.processor_bench.placed_clocks: the one-context processor's ECP5 clock from the
last ``make area``, else the figure docs/area.md reports, 13.5 MHz), so 0.1 s is 1,350,000 cycles.

For each budget and level, one ``gamechip match`` (gamechip/games/match.py) between ``gamechip
nboard --budget B`` (the golden processor, on the golden interpreter: PyPy when installed) and
``scripts/zebra-nboard --level L`` over the first openings of the shipped set, each with both
colours, into ``OUT/budget<B>-level<L>/`` (resumable: the records there are kept). Progress on
stderr. Then ``OUT/table.md``: per budget and level the processor's wins, losses and draws, its
mean disc difference and the Elo difference, with the command, the machine and the date; the
cells not played yet are listed under the table.
"""

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from gamechip.games.match import Engine, elo_summary, pair_stats, read_openings, run_match

ROOT = Path(__file__).resolve().parents[2]
PROCESSOR = "gamechip"


def level_list(text):
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


# the seed's budgets: its 0.1 s and 1 s a move at its 32 MHz (processor seed §4.1.4, Table 5)
SEED_BUDGET_SECONDS = {3_200_000: 0.1, 32_000_000: 1.0}


def engine_command(budget):
    """``gamechip nboard`` at ``budget`` (it runs its golden search on PyPy when installed)."""
    return f"env PYTHONPATH={shlex.quote(str(ROOT))} {shlex.quote(sys.executable)} -m gamechip nboard --budget {budget}"


def wall_time_budgets(seconds_list):
    """[(budget, label)]: the processor's cycles in each of ``seconds_list`` at its own placed
    clock, and the clock's source line."""
    from gamechip.measure.processor_bench import ONE, placed_clocks

    mhz, source = placed_clocks()[ONE]
    return ([(round(seconds * mhz * 1e6), f"{seconds:g} s at the processor's {mhz:g} MHz") for seconds in seconds_list],
            f"the processor's clock: {mhz:g} MHz, {source}")


def cycle_budgets(budgets):
    """[(budget, label)] of budgets given in cycles (the seed's named as such)."""
    return [(budget, f"the seed's {SEED_BUDGET_SECONDS[budget]:g} s at 32 MHz" if budget in SEED_BUDGET_SECONDS
             else "cycles") for budget in budgets]


def cell_games(out, budget, level):
    """The finished games of the processor at ``budget`` against Zebra ``level`` (none yet: [])."""
    path = out / f"budget{budget}-level{level}" / "results.json"
    return json.loads(path.read_text())["games"] if path.exists() else []


def disc_differences(games):
    """The processor's discs minus Zebra's, game by game."""
    return [(g["black_discs"] - g["white_discs"]) * (1 if g["black"] == PROCESSOR else -1) for g in games]


def write_table(out, budgets, levels, command, notes=(), games_per_cell=None):
    """OUT/table.md from the results so far (``budgets``: [(budget, label)]): a row per cell
    played, a cell with fewer games than ``games_per_cell`` saying so, a row per budget over every
    level played (no Elo: the levels are different opponents), the cells not started listed."""
    lines = ["# The processor against Zebra", "",
             f"Made by `{command}` on {platform.node()} ({os.cpu_count()} cores, {cpu_model()}), "
             f"{time.strftime('%Y-%m-%d %H:%M %Z')}.", *[f"{note}." for note in notes], "",
             "| budget a move | Zebra level | won | lost | drawn | mean disc difference | Elo difference |",
             "|---|---|---|---|---|---|---|"]
    missing = []
    for budget, label in budgets:
        played = []
        for level in levels:
            games = cell_games(out, budget, level)
            if not games:
                missing.append(f"{budget:,} cycles against level {level}")
                continue
            played.append(level)
            stats = pair_stats(games, PROCESSOR, f"zebra{level}")
            differences = disc_differences(games)
            part = f" (of {games_per_cell} to play)" if games_per_cell and len(games) < games_per_cell else ""
            elo = elo_summary(stats) if "elo" in stats else ""
            lines.append(f"| {budget:,} ({label}) | {level} | {stats['wins']} of {stats['games']}{part} | "
                         f"{stats['losses']} | {stats['draws']} | {sum(differences) / len(differences):+.1f} | {elo} |")
        if len(played) > 1:
            cells = [(cell_games(out, budget, level), level) for level in played]
            totals = [pair_stats(games, PROCESSOR, f"zebra{level}") for games, level in cells]
            differences = [d for games, _ in cells for d in disc_differences(games)]
            won, lost, count = (sum(t[key] for t in totals) for key in ("wins", "losses", "games"))
            lines.append(f"| {budget:,} ({label}) | {', '.join(map(str, played))} | {won} of {count} | {lost} | "
                         f"{count - won - lost} | {sum(differences) / len(differences):+.1f} | |")
    if missing:
        lines += ["", f"Not played yet: {'; '.join(missing)}."]
    (out / "table.md").write_text("\n".join(lines) + "\n")


def cpu_model():
    """The CPU's model name (/proc/cpuinfo, as lscpu shows it), else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv=None):
    from gamechip.cli.arguments import cycles, seconds

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zebra", required=True, help="the zebra binary (coeffs2.bin beside it)")
    parser.add_argument("--levels", type=level_list, default=level_list("1-10"), help="e.g. 1-10 (default)")
    parser.add_argument("--budgets", nargs="*", type=cycles, default=[3_200_000],
                        help="cycles a move (default 3.2M, the seed's 0.1 s; 32M its 1 s)")
    parser.add_argument("--wall-seconds", nargs="*", type=seconds, default=[],
                        help="equal wall time: seconds a move at the processor's own placed clock (0.1: 1.35M cycles "
                             "at 13.5 MHz)")
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
    budgets, notes = cycle_budgets(args.budgets), []
    if args.wall_seconds:
        wall, clock = wall_time_budgets(args.wall_seconds)
        budgets, notes = budgets + wall, [clock]
    if not budgets:
        print("zebra-table: no budget: give --budgets or --wall-seconds", file=sys.stderr)
        return 2
    adapter = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'scripts' / 'zebra-nboard'))}"
    command = " ".join(["python -m gamechip.games.zebra_table", *(argv if argv is not None else sys.argv[1:])])
    cells = [(budget, label, level) for budget, label in budgets for level in args.levels]
    try:
        for number, (budget, label, level) in enumerate(cells, 1):
            print(f"zebra-table: cell {number} of {len(cells)}: {budget:,} cycles a move ({label}) against Zebra "
                  f"level {level}, {2 * len(openings)} games", file=sys.stderr, flush=True)
            engines = [Engine(PROCESSOR, engine_command(budget)),
                       Engine(f"zebra{level}", f"{adapter} --zebra {shlex.quote(os.path.abspath(args.zebra))} "
                                               f"--level {level}")]
            # set budget: the processor's depth limit back to 16 (the budget decides); Zebra ignores it
            status = run_match(engines, openings, out / f"budget{budget}-level{level}", jobs=args.jobs,
                               budget=budget, move_seconds=args.time)
            if status:
                return status
            write_table(out, budgets, args.levels, command, notes, 2 * len(openings))
    except KeyboardInterrupt:
        write_table(out, budgets, args.levels, command, notes, 2 * len(openings))
        print(f"zebra-table: interrupted; the finished games are kept: the same command resumes; table so far in "
              f"{out / 'table.md'}", file=sys.stderr)
        return 130
    print((out / "table.md").read_text(), end="")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
