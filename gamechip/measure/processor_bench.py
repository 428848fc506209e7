"""``make bench`` for the whole processor (SPEC §8) on Verilator: simulated cycles per second with
every check of the processor bench on, beside the search engine's checked rate on the same
searches.

* Processor: tb/test_processor.py ``throughput``, one game as black against the reference program
  at level LEVEL, BUDGET cycles a move, stopped after REPLIES replies: the whole processor under
  the HDL clock, the referee's bytes over its UART pins, every reply, status output and node
  signature compared with the golden processor (its own process, PyPy when installed). Cycles
  are simulated time over the clock period, book moves and UART frames included.
* Engine: every search of that game again on the search engine alone under its node scoreboard
  (tb/test_search.py ``from_file``, every node event logged and compared by the golden process),
  as gamechip.measure.search_bench measures it.

Wall-clock rates depend on what else the machine runs: the 1-minute load average is printed.
Numbers are printed, never asserted.
"""

import os

from gamechip.measure.search_bench import checked_run, say
from golden.board import parse_board
from rtl.designs import PROCESSOR_DEPTH_LIMIT

SIM = "verilator"
BUDGET = 1_000_000
LEVEL = 2
REPLIES = 10
TARGET_RATIO = 2.0   # the engine's checked rate over the processor's, at most


def processor_rate(budget=BUDGET, replies=REPLIES, level=LEVEL):
    """The processor's checked game (``throughput``): its ACTUAL_FILE record and the load."""
    from tb.host.processor_bench import run_processor_bench

    say(f"processor on {SIM}: one game at {budget:,} cycles a move, the first {replies} replies, every check on")
    load_before = os.getloadavg()[0]
    outcome = run_processor_bench(SIM, ["throughput"], tag="bench", echo=True, optimised=True,
                                  env={"GAMECHIP_PROC_BUDGET": str(budget), "GAMECHIP_PROC_LEVEL": str(level),
                                       "GAMECHIP_PROC_MAX_REPLIES": str(replies)})
    if not outcome.passed or not outcome.actual:
        raise RuntimeError(outcome.result.get("failure") or
                           f"the processor's throughput game failed; log {outcome.sim_dir / 'gamechip.log'}")
    return dict(outcome.actual, load=(load_before, os.getloadavg()[0]))


def run_processor_throughput(sims, scale=1.0):
    """The processor's section of ``make bench`` (Verilator only); 0, or 1 after a failure."""
    from tb.checks.search import SearchCase

    print()
    if SIM not in sims:
        print(f"processor: measured on {SIM} only (not among the simulators chosen)")
        return 0
    replies = max(3, round(REPLIES * scale))
    try:
        game = processor_rate(replies=replies)
        cases = [SearchCase(parse_board(text), PROCESSOR_DEPTH_LIMIT, BUDGET, f"processor game search #{i}")
                 for i, text in enumerate(game["searched_positions"])]
        say(f"search engine on {SIM}: the game's {len(cases)} searches, every node checked")
        load_before = os.getloadavg()[0]
        engine = checked_run(SIM, cases) if cases else None
        engine_load = (load_before, os.getloadavg()[0])
    except RuntimeError as error:
        print(f"bench stopped: {error}")
        return 1
    rate = game["cycles"] / game["seconds"]
    print(f"processor on {SIM}, one game against reference level {LEVEL}, {BUDGET:,} cycles a move, "
          f"{game['replies']} replies ({len(cases)} searched), every reply, status and node signature checked")
    print(f"{'':<10} {'cycles':>12} {'checked: cycles/s':>18} {'per CPU-s of the simulator':>27} {'load':>9}")
    print(f"{'processor':<10} {game['cycles']:>12,} {rate:>18,.0f} {game['cycles'] / game['cpu_seconds']:>27,.0f} "
          f"{'{:.1f}-{:.1f}'.format(*game['load']):>9}")
    if engine is None:
        print("no search in the game: no engine rate to compare with")
        return 0
    print(f"{'engine':<10} {engine['cycles']:>12,} {engine['wall']:>18,.0f} {engine['cpu']:>27,.0f} "
          f"{'{:.1f}-{:.1f}'.format(*engine_load):>9}")
    ratio = engine["wall"] / rate
    print(f"the engine's checked rate over the processor's: {ratio:.2f} (target <= {TARGET_RATIO}: "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}); the engine: the same searches on the search engine "
          f"alone under its node scoreboard")
    return 0
