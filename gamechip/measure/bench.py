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

Coverage's cost: on Verilator (``coverage_sims``) each block's fuzz run is made again at once with
functional coverage sampling on (``GAMECHIP_COVERAGE_OUT``, as ``gamechip coverage``, campaigns and the
regression run it; the first run has it off), and a second table gives both rates, their ratio,
the cases sampled, the CPU seconds the samplers themselves took per case checked (in the golden
thread of the in-process loop, in the golden worker of the fast loop) and the CPU microseconds per case of
each process with and without. Coverage may cost at most ``COVERAGE_BUDGET`` of the rate.

``--save FILE`` keeps the rows (gamechip/measure/bench_record.py), with the search engine alone
on each simulator, and the cocotb and simulator versions they ran under; ``--compare OLD NEW``
sets two saved benches' Verilator rows side by side (``make bench``: cocotb 1.9.2 with Debian's
Verilator against the main line).

Numbers are printed, never asserted: the targets are shown beside them.
"""

import io
import json
import logging
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from xml.etree.ElementTree import ParseError

from gamechip.measure.bench_record import SEARCH_ALONE, failure_reason
from tb.checks.coverage_samplers import COVERAGE_OUT, sampler_for
from tb.host.runner import run_design

COUNTS = {"verilator": 200_000, "icarus": 10_000, "ghdl": 5_000}
# Blocks whose positions cost far more (a chess position is ~50 generator requests): their own counts.
BLOCK_COUNTS = {"chess_movegen": {"verilator": 2_000, "icarus": 60, "ghdl": 40},
                "chess_repetition": {"verilator": 500, "icarus": 20, "ghdl": 15}}
TARGET_RATE = 100_000  # cases/s end to end on Verilator for the move checker and the flipper
TARGET_RATIO = 0.5  # no block's sim path below half the golden model's own rate
SEED = 2010
COVERAGE_SIMS = ("verilator",)  # where coverage's cost is measured: the simulator campaigns fuzz at scale on
COVERAGE_BUDGET = 0.2  # coverage may cost at most this share of the fuzz rate


def fuzz_env(count):
    return {"GAMECHIP_SEED": str(SEED), "GAMECHIP_COUNT": str(count)}


@contextmanager
def coverage_sampling(folder):
    """The runs inside sample into ``folder`` (None: they do not sample, whatever this process's
    environment said): set in this process's environment, which cocotb-test copies over a run's own."""
    saved = os.environ.get(COVERAGE_OUT)
    if folder:
        os.environ[COVERAGE_OUT] = str(folder)
    else:
        os.environ.pop(COVERAGE_OUT, None)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(COVERAGE_OUT, None)
        else:
            os.environ[COVERAGE_OUT] = saved


def hit_totals(folder):
    """(cases sampled, seconds the samplers took) over the hit files in ``folder``."""
    records = [json.loads(path.read_text()) for path in sorted(Path(folder).glob("*.json"))]
    return sum(r["sampled"] for r in records), sum(r.get("sample_seconds", 0.0) for r in records)


def with_coverage(block, sim, count):
    """The block's fuzz run again with sampling on: its tally (tb/sim/batch.py ``Tally``) with
    ``sampled``, ``sample_seconds`` and ``load`` added, or a string saying why there is none."""
    with tempfile.TemporaryDirectory(prefix="gamechip-bench-coverage-") as folder:
        load_before = os.getloadavg()[0]
        with coverage_sampling(folder), simulator_output() as output:
            try:
                outcome = run_design(block.designs[0], sim, block.module, ["fuzz"], tag="bench", quiet=True,
                                     env=fuzz_env(count))
            except ParseError:  # cocotb-test finds no results: the simulator ended before any test ran
                return "no cocotb test ran: " + failure_reason(output.getvalue())
        if not outcome.passed:
            return failure_reason(outcome.result.get("failure") or outcome.log_excerpt(4000))
        sampled, seconds = hit_totals(folder)
    if not sampled:
        return f"sampling on, but no hit file in {folder}: the run did not sample"
    return {**outcome.result["tests"]["fuzz"], "sampled": sampled, "sample_seconds": seconds,
            "load": (load_before, os.getloadavg()[0])}


def coverage_cost(name, sim, off, on):
    """One row of coverage's cost from the two measured runs' tallies (``off``: sampling off)."""
    rate_off, rate_on = off["checked"] / off["wall_seconds"], on["checked"] / on["wall_seconds"]
    fast = bool(off.get("worker_cpu_seconds"))
    row = {"block": name, "sim": sim, "loop": "golden worker" if fast else "in-process",
           "checked": on["checked"], "rate_off": rate_off, "rate_on": rate_on, "ratio": rate_on / rate_off,
           "sampled": on["sampled"], "sample_us": 1e6 * on["sample_seconds"] / on["checked"],
           "load_off": list(off["load"]), "load_on": list(on["load"])}
    for key, tally in (("off", off), ("on", on)):
        row[f"sim_cpu_us_{key}"] = 1e6 * tally["sim_cpu_seconds"] / tally["checked"] if tally.get("sim_cpu_seconds") else None
        row[f"worker_cpu_us_{key}"] = 1e6 * tally["worker_cpu_seconds"] / tally["checked"] if fast else None
    return row


def print_coverage_costs(costs):
    def us(value):
        return "-" if value is None else f"{value:.2f}"

    print(f"\ncoverage's cost: each block's fuzz run made again at once with sampling on ({COVERAGE_OUT}, as gamechip "
          f"coverage and campaigns run it); budget: at most {COVERAGE_BUDGET:.0%} of the rate")
    print(f"{'block':<17} {'sim':<10} {'sampler in':<14} {'cases':>9} {'off/s':>9} {'on/s':>9} {'on/off':>7} "
          f"{'sampled':>8} {'sampler CPU µs/case':>20} {'sim CPU µs/case':>16} {'worker CPU µs/case':>19} {'load':>9}  budget")
    for row in costs:
        if "failed" in row:
            print(f"{row['block']:<17} {row['sim']:<10} not measured: {row['failed']}")
            continue
        within = row["ratio"] >= 1 - COVERAGE_BUDGET
        load = "{:.1f}-{:.1f}".format(row["load_off"][0], row["load_on"][1])
        print(f"{row['block']:<17} {row['sim']:<10} {row['loop']:<14} {row['checked']:>9,} {row['rate_off']:>9,.0f} "
              f"{row['rate_on']:>9,.0f} {row['ratio']:>7.2f} {row['sampled']:>8,} {row['sample_us']:>20.2f} "
              f"{us(row['sim_cpu_us_off']) + ' / ' + us(row['sim_cpu_us_on']):>16} "
              f"{us(row['worker_cpu_us_off']) + ' / ' + us(row['worker_cpu_us_on']):>19} {load:>9}  "
              f"{'within' if within else 'OVER'}")
    print("on/off: the rate with sampling over the rate without (wall clock, so the load moves it); sampler CPU µs/case: "
          "the CPU time of the samplers themselves over every case checked; CPU µs/case: off / on, per process (the simulator's "
          "process holds the golden thread of the in-process loop; the fast loop's golden worker is a process of "
          "its own), the firmer numbers on a loaded machine.")


def run_bench(blocks, sims, scale=1.0, record=None, coverage_sims=COVERAGE_SIMS):
    """Fuzz every block on every simulator and print the rates; on ``coverage_sims`` each block's
    run again with coverage sampling on, and coverage's cost. With ``record`` (a BenchRecord)
    each row is kept there, and a block that fails is kept as a failed row and the bench goes on
    (exit status 1 at the end); without it the bench stops at the first failure."""
    rows, failed, costs = [], False, []
    for block in blocks:
        for sim in sims:
            count = max(1, int(BLOCK_COUNTS.get(block.name, COUNTS)[sim] * scale))
            print(f"bench: {block.name} on {sim}, {count:,} positions ...", file=sys.stderr, flush=True)
            load_before = os.getloadavg()[0]
            with simulator_output() as output, coverage_sampling(None):
                try:
                    outcome = run_design(block.designs[0], sim, block.module, ["fuzz"], tag="bench", echo=True,
                                         env=fuzz_env(count))
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
            if sim in coverage_sims and sampler_for(block.designs[0]) is not None:
                print(f"bench: {block.name} on {sim} again, sampling coverage ...", file=sys.stderr, flush=True)
                on = with_coverage(block, sim, count)
                if isinstance(on, str):   # it passed without sampling: sampling broke it
                    print(f"bench: {block.name} on {sim} failed with coverage sampling on: {on}", file=sys.stderr)
                    failed = True
                cost = ({"block": block.name, "sim": sim, "failed": on} if isinstance(on, str)
                        else coverage_cost(block.name, sim, rows[-1][2], on))
                costs.append(cost)
                if record is not None:
                    record.add_coverage_cost(cost)
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
    if costs:
        print_coverage_costs(costs)
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
