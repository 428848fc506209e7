"""Which solve ordering pays in the engine's cycles: FFO #1-#7 through the golden search's solve
mode (the engine's cycle twin) under each :class:`golden.search.SolveSchedule`, a Markdown table
of cycles a position, nodes, cycles a node and the ratio to the engine's schedule.

``python -m golden.solve_schedules [FIRST LAST]`` (``make solve-schedules``; PyPy when installed):
every solve's value and best move are checked against the published ones as it goes.
"""

from __future__ import annotations

import sys
import time

from golden.ffo import ffo_problems
from golden.search import ENGINE_SOLVE_SCHEDULE, SolveSchedule, search_events

STATIC_KILLERS = SolveSchedule()
SCHEDULES = (
    ("static order, killers (the engine before this schedule)", STATIC_KILLERS),
    ("static order, no killers", SolveSchedule(killers=False)),
    ("parity, killers", SolveSchedule(parity=True)),
    ("parity, no killers", SolveSchedule(killers=False, parity=True)),
    ("static order, killers, last one", SolveSchedule(last_one=True)),
    ("parity, killers, last one", SolveSchedule(parity=True, last_one=True)),
) + tuple(
    (f"parity, killers, last one; fastest-first at {empties}+ empties, counts kept",
     SolveSchedule(parity=True, last_one=True, fastest_from=empties)) for empties in (14, 12, 10, 8, 6)
) + tuple(
    (f"parity, killers, last one; fastest-first at {empties}+ empties, recounted before each child",
     SolveSchedule(parity=True, last_one=True, fastest_from=empties, recount=True)) for empties in (12, 10, 8, 6)
)


def measure(schedule: SolveSchedule, numbers) -> list:
    """(nodes, cycles) of each FFO position's exact solve (winner scoring) under ``schedule``;
    raises AssertionError naming the position when a value or best move is not the published."""
    problems = ffo_problems()
    rows = []
    for number in numbers:
        problem = problems[number]
        result = search_events(problem.position, 1, solve="winner", schedule=schedule)
        if result.value != problem.score or result.best not in problem.best_moves:
            raise AssertionError(f"FFO #{number} under {schedule}: expected {problem.score}, best "
                                 f"{problem.best_names()}; solved {result.value}, best {result.best_text}")
        rows.append((result.nodes, result.cycles))
    return rows


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    first, last = (int(args[0]), int(args[1])) if len(args) == 2 else (1, 7)
    numbers = range(first, last + 1)
    print("| schedule | " + " | ".join(f"FFO #{n}" for n in numbers)
          + " | nodes | cycles | cycles/node | cycles vs before |")
    print("|---|" + "---:|" * (len(numbers) + 4))
    baseline = None
    for name, schedule in SCHEDULES:
        started = time.process_time()
        rows = measure(schedule, numbers)
        nodes, cycles = sum(n for n, _ in rows), sum(c for _, c in rows)
        baseline = baseline or cycles
        built = " (built)" if schedule == ENGINE_SOLVE_SCHEDULE else ""
        print(f"| {name}{built} | " + " | ".join(f"{c:,}" for _, c in rows)
              + f" | {nodes:,} | {cycles:,} | {cycles / nodes:.3f} | {cycles / baseline:.2f}x |", flush=True)
        print(f"{name}: {time.process_time() - started:.1f} s CPU", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
