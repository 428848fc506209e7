"""``make bench``: how fast each block is checked on each simulator, beside the golden model.

For every block and simulator it runs the fuzz test on the same seeded positions and reads the
timings the simulator side recorded (tb/sim/batch.py ``Tally``):

* sim path: writing the stimulus file, simulating, reading the responses;
* golden: the golden model computing the expected values for the same cases;
* end to end: the whole fuzz loop (stimulus, simulation, golden model, comparison).

The move checker and the flipper on Verilator run the fast loop (tb/sim/fastfuzz.py): the golden
side in a separate PyPy process. For them it also prints the CPU seconds per case of each side
(the simulator's process, the golden worker): what the loop costs each core, whatever else the
machine runs, while wall-clock rates depend on the load, which every row shows (1-minute load
average before and after the row, on a machine with ``os.cpu_count()`` cores).

``--save FILE`` keeps the rows (gamechip/measure/bench_record.py), with the search engine alone
on each simulator, and the cocotb and simulator versions they ran under; ``--compare OLD NEW``
sets two saved benches' Verilator rows side by side (``make bench``: cocotb 1.9.2 with Debian's
Verilator against the main line).

Numbers are printed, never asserted: the targets are shown beside them.
"""

import io
import logging
import os
import sys
from contextlib import contextmanager
from xml.etree.ElementTree import ParseError

from gamechip.measure.bench_record import SEARCH_ALONE, failure_reason
from tb.host.runner import run_design

COUNTS = {"verilator": 200_000, "icarus": 10_000, "ghdl": 5_000}
# Blocks whose positions cost far more (a chess position is ~50 generator requests): their own counts.
BLOCK_COUNTS = {"chess_movegen": {"verilator": 2_000, "icarus": 60, "ghdl": 40},
                "chess_repetition": {"verilator": 500, "icarus": 20, "ghdl": 15}}
TARGET_RATE = 100_000  # cases/s end to end on Verilator for the move checker and the flipper
TARGET_RATIO = 0.5  # no block's sim path below half the golden model's own rate
SEED = 2010


def run_bench(blocks, sims, scale=1.0, record=None):
    """Fuzz every block on every simulator and print the rates. With ``record`` (a BenchRecord)
    each row is kept there, and a block that fails is kept as a failed row and the bench goes on
    (exit status 1 at the end); without it the bench stops at the first failure."""
    rows, failed = [], False
    for block in blocks:
        for sim in sims:
            count = max(1, int(BLOCK_COUNTS.get(block.name, COUNTS)[sim] * scale))
            print(f"bench: {block.name} on {sim}, {count:,} positions ...", file=sys.stderr, flush=True)
            load_before = os.getloadavg()[0]
            with simulator_output() as output:
                try:
                    outcome = run_design(block.designs[0], sim, block.module, ["fuzz"], tag="bench", echo=True,
                                         env={"GAMECHIP_SEED": str(SEED), "GAMECHIP_COUNT": str(count)})
                except ParseError:  # cocotb-test finds no results: the simulator ended before any test ran
                    if record is None:
                        raise
                    reason = "no cocotb test ran: " + failure_reason(output.getvalue())
                    print(f"bench: {block.name} failed on {sim}: {reason}; kept as a failed row, going on",
                          file=sys.stderr)
                    record.add_failure(block.name, sim, reason)
                    failed = True
                    continue
            if not outcome.passed:
                message = outcome.result.get("failure") or outcome.log_excerpt(4000)
                print(message, file=sys.stderr)
                if record is None:
                    print(f"bench stopped: {block.name} failed on {sim} (log {outcome.sim_dir / 'gamechip.log'})",
                          file=sys.stderr)
                    return 1
                print(f"bench: {block.name} failed on {sim} (log {outcome.sim_dir / 'gamechip.log'}); "
                      f"kept as a failed row, going on", file=sys.stderr)
                record.add_failure(block.name, sim, failure_reason(message))
                failed = True
                continue
            load = (load_before, os.getloadavg()[0])
            rows.append((block.name, sim, {**outcome.result["tests"]["fuzz"], "load": load}))
            if record is not None:
                record.add_rates(block.name, sim, outcome.result["tests"]["fuzz"], load)
    if not rows:
        return int(failed)
    print()
    print(f"{'block':<17} {'sim':<10} {'cases':>9} {'sim path/s':>11} {'golden/s':>10} {'ratio':>6} "
          f"{'end-to-end/s':>13} {'load':>9}  targets")
    for name, sim, t in rows:
        sim_rate = t["checked"] / t["sim_seconds"]
        golden_rate = t["checked"] / t["golden_seconds"]
        ratio = sim_rate / golden_rate
        notes = []
        if sim == "verilator":  # the targets are set for Verilator; Icarus and GHDL interpret
            notes.append(f"ratio {'>=' if ratio >= TARGET_RATIO else 'BELOW'} {TARGET_RATIO}")
            if name in ("move_checker", "disc_flipper"):
                end_to_end = t["checked"] / t["wall_seconds"]
                notes.append(f"end to end {'>=' if end_to_end >= TARGET_RATE else 'BELOW'} {TARGET_RATE:,}/s")
        load = "{:.1f}-{:.1f}".format(*t["load"])
        print(f"{name:<17} {sim:<10} {t['checked']:>9,} {sim_rate:>11,.0f} {golden_rate:>10,.0f} {ratio:>6.2f} "
              f"{t['checked'] / t['wall_seconds']:>13,.0f} {load:>9}  {', '.join(notes)}")
    fast_rows = [(name, sim, t) for name, sim, t in rows if t.get("worker_cpu_seconds")]
    if fast_rows:
        print("\nfast fuzz loop, golden side in a separate process (tb/sim/fastfuzz.py): CPU microseconds per case")
        print("(golden/s above: the worker's expected values alone, golden.words under PyPy; its ratio compares the "
              "simulator with that)")
        print(f"{'block':<17} {'sim':<10} {'simulator':>10} {'golden':>8} {'golden wall':>12}  "
              f"(wall: the golden worker's own, chunk making only)")
        for name, sim, t in fast_rows:
            per_case = 1e6 / t["checked"]
            print(f"{name:<17} {sim:<10} {t['sim_cpu_seconds'] * per_case:>10.2f} {t['worker_cpu_seconds'] * per_case:>8.2f} "
                  f"{t['worker_seconds'] * per_case:>12.2f}")
    unit_rows = [(name, sim, t) for name, sim, t in rows if t.get("units") and t["units"] != t["checked"]]
    if unit_rows:
        print(f"\n{'block':<17} {'sim':<10} {'checked':>16} {'sim path/s':>11} {'golden alone/s':>15} {'end-to-end/s':>13}")
        for name, sim, t in unit_rows:
            unit = {"chess_movegen": "moves", "chess_repetition": "commands"}.get(name, "units")
            print(f"{name:<17} {sim:<10} {t['units']:>10,} {unit:<5} {t['units'] / t['sim_seconds']:>11,.0f} "
                  f"{t['units'] / t['golden_seconds']:>15,.0f} {t['units'] / t['wall_seconds']:>13,.0f}")
        print("chess: a move is one generator reply (start or next) checked; golden alone is python-chess ordering "
              "the pseudo-legal moves and answering the same requests.")
    print(f"\ncases: positions, times two colours for stable_discs; one simulator process per row (and its golden "
          f"worker on the fast path); build time excluded; load: 1-minute load average before-after the row, "
          f"{os.cpu_count()} cores.")
    return int(failed)


@contextmanager
def simulator_output():
    """The simulator's output that cocotb-test relays during the block, as a StringIO: the reason
    a run that raised before its log was written ended."""
    output = io.StringIO()
    handler = logging.StreamHandler(output)
    logger = logging.getLogger("cocotb")
    logger.addHandler(handler)
    try:
        yield output
    finally:
        logger.removeHandler(handler)


def search_alone(sims, record=None):
    """The search engine alone on each of ``sims`` (search_bench ``free_run_rate``: the searches
    and budget of the search bench's engine-alone column), printed and kept in ``record`` if
    given; a simulator it fails on is kept as a failed row. Returns the exit status: 1 if any failed."""
    from gamechip.measure.search_bench import FREE_RUN, free_run_rate, midgame_positions

    failed = False
    for sim in sims:
        count, budget = FREE_RUN[sim]
        load_before = os.getloadavg()[0]
        with simulator_output() as output:
            try:
                rate = free_run_rate(sim, midgame_positions(), count, budget)
                problem = None
            except RuntimeError as error:
                problem = str(error)
            except ParseError:  # cocotb-test finds no results: the simulator ended before any test ran
                problem = "no cocotb test ran: " + failure_reason(output.getvalue())
        if problem is not None:
            print(f"bench: the search engine alone failed on {sim}: {problem}", file=sys.stderr)
            if record is not None:
                record.add_failure(SEARCH_ALONE, sim, failure_reason(problem))
            failed = True
            continue
        if record is not None:
            record.add_search_alone(sim, rate, (load_before, os.getloadavg()[0]))
        print(f"search engine alone on {sim}: {rate['wall']:,.0f} simulated cycles/s (wall), {rate['cpu']:,.0f} per "
              f"simulator CPU-second; {count} search(es) of {budget:,} cycles")
    return int(failed)
