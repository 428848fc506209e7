"""``gamechip codesign``: the co-design seed's measurements (docs/spec.md §10) on the same searches for
both transfer models: hardware calls, bus writes and reads, bus cycles, the depth-difference
histogram, and the communication time under a documented cost model.

Workloads: ``--game`` plays the co-design seed's workload, one game of the host against itself (book,
corner killer, NegaScout at depth d), once for every depth d = 1..D; ``--positions N`` searches
N seeded midgame positions at every depth 1..D. Every search runs three times: on the golden
evaluator (its evaluation trace is the reference), and through each transfer model on its own
bus model (golden/host/peripheral.py); the three traces must be identical, and every NegaScout root
value must equal the plain alpha-beta search's (golden/search.py) at the same depth.

Cost model: a write costs WRITE_CYCLES bus cycles and a read READ_CYCLES; communication time
is counted in write-equivalents, bus cycles / WRITE_CYCLES plus a fixed cost F per hardware
call (the host's driver work). The co-design seed's Table II cut (communication 5.02 s -> 4.04 s, -19.5 %)
fixes F from the measured counts; the table also gives the cut at F = 6.3 and at F = 0 (bus
cycles alone).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from golden.board import start_position
from golden.host.peripheral import (READ_CYCLES, SEED_COMMUNICATION_CUT, WRITE_CYCLES, Bus, ChangeboardTransfer, Counts,
                             StandardTransfer)
from golden.host.negascout import NegaScout, choose_move, golden_backend
from golden.othello import game_over, legal_moves, pass_move, play
from golden.positions import random_game_positions
from golden.search import search

MODELS = ("standard", "changeboard")
SEED_FIXED_COST = 6.3
WORST_MIN_CALLS = 100   # the worst single-search write ratio is taken over searches this large (a search of a
                        # few calls is dominated by the root's whole-board transfer)


class Mismatch(Exception):
    """The transfer models or the plain search disagree: a failure of the host or the model."""


def midgames(count, seed):
    rng, out = random.Random(seed), []
    while len(out) < count:
        game = [p for p in random_game_positions(rng) if 20 <= bin(p.black | p.white).count("1") <= 40
                and legal_moves(p.own, p.opp)]
        if game:
            out.append(rng.choice(game))
    return out


class Measurement:
    """Counts per depth and model over every search made at that depth."""

    def __init__(self, stream=None):
        self.stream = stream      # a tb.sim.axi_stream.StreamWriter recording every transaction, or None
        self.counts = {}          # (depth, model) -> Counts
        self.searches = {}        # depth -> searches
        self.identical = True
        self.values_match = True
        self.worst_write_ratio = {}   # depth -> highest changeboard/standard writes of one search

    def add(self, depth, model, counts):
        total = self.counts.setdefault((depth, model), Counts())
        total.calls += counts.calls
        total.writes += counts.writes
        total.reads += counts.reads
        total.boards += counts.boards
        for k, n in counts.depth_differences.items():
            total.depth_differences[k] = total.depth_differences.get(k, 0) + n

    def bus(self, model, depth, position):
        """The golden bus of one search's transfer model; with a stream, one that records."""
        if self.stream is None:
            return Bus()
        return self.stream.bus(f"{model} model, depth-{depth} search of {position.text()}")

    def search_both(self, position, depth, moves_so_far=None):
        """One search on the golden evaluator and through each model; the move (or None)."""
        transfers = {"standard": StandardTransfer(self.bus("standard", depth, position)),
                     "changeboard": ChangeboardTransfer(self.bus("changeboard", depth, position))}
        results, traces = {}, {}
        for name, backend in (("golden", golden_backend), *((m, t.evaluate) for m, t in transfers.items())):
            if name in transfers:
                transfers[name].new_search()
            if moves_so_far is None:
                searcher = NegaScout(backend, keep_trace=True)
                results[name], traces[name] = searcher.search(position, depth), searcher.stats.trace
            else:
                move, how, searcher = choose_move(position, moves_so_far, depth, backend,
                                                  transfers[name].new_search if name in transfers else None, True)
                results[name] = (how, move)
                traces[name] = searcher.stats.trace if searcher else []
        if not (traces["golden"] == traces["standard"] == traces["changeboard"]
                and results["golden"] == results["standard"] == results["changeboard"]):
            self.identical = False
            raise Mismatch(f"depth {depth}, board {position.text()}: the transfer models made different searches "
                           f"(results {results})")
        value = results["golden"][0] if moves_so_far is None else (
            int(results["golden"][0].split()[1]) if results["golden"][0].startswith("negascout") else None)
        if value is not None:
            plain = search(position, depth, adaptive=True).value
            if value != plain:
                self.values_match = False
                raise Mismatch(f"depth {depth}, board {position.text()}: NegaScout {value}, plain alpha-beta {plain}")
        for name, transfer in transfers.items():
            self.add(depth, name, transfer.counts)
        if transfers["standard"].counts.calls >= WORST_MIN_CALLS:
            ratio = transfers["changeboard"].counts.writes / transfers["standard"].counts.writes
            self.worst_write_ratio[depth] = max(self.worst_write_ratio.get(depth, 0), ratio)
        self.searches[depth] = self.searches.get(depth, 0) + (1 if traces["golden"] else 0)
        return results["golden"][1]


def fixed_cost_for(standard: Counts, changes: Counts, cut=SEED_COMMUNICATION_CUT):
    """F (write-equivalents per call) at which the changeboard model's communication is ``cut``
    below the standard model's; None when no F >= 0 gives it."""
    ws, wc = standard.bus_cycles / WRITE_CYCLES, changes.bus_cycles / WRITE_CYCLES
    if not standard.calls:
        return None
    f = ((1 - cut) * ws - wc) / (cut * standard.calls)   # from wc + f*C = (1 - cut) * (ws + f*C)
    return f if f >= 0 else None


def cut_at(standard: Counts, changes: Counts, per_call: float) -> float:
    return 1 - changes.communication(per_call) / standard.communication(per_call)


def say(text):
    print(f"codesign: {text}", file=sys.stderr, flush=True)


def measure(mode, count, depth, seed, stream_path=None):
    """The golden measurement: every search of the workload on the golden evaluator and through
    both transfer models on their bus models; the result object (``rows``, ``models``...).
    ``stream_path``: also record every transaction of both models there (tb/sim/axi_stream.py)."""
    stream = None
    if stream_path:
        from tb.sim.axi_stream import StreamWriter
        stream = StreamWriter(stream_path)
    try:
        return _measure(mode, count, depth, seed, Measurement(stream))
    finally:
        if stream:
            stream.close()


def _measure(mode, count, depth, seed, measurement):
    started = time.perf_counter()
    for d in range(1, depth + 1):
        if mode == "game":
            position, moves, plies = start_position(), [], 0
            while not game_over(position):
                if not legal_moves(position.own, position.opp):
                    position = pass_move(position)
                    continue
                move = measurement.search_both(position, d, moves)
                moves.append(move)
                position = play(position, move)
                plies += 1
            say(f"depth {d}: self-play game of {plies} moves, {measurement.searches.get(d, 0)} searches; "
                f"{time.perf_counter() - started:,.0f} s")
        else:
            for number, position in enumerate(midgames(count, seed), 1):
                measurement.search_both(position, d)
            say(f"depth {d}: {count} positions; {time.perf_counter() - started:,.0f} s")
    rows = []
    for d in range(1, depth + 1):
        standard, changes = measurement.counts.get((d, "standard"), Counts()), measurement.counts.get((d, "changeboard"), Counts())
        rows.append({"depth": d, "searches": measurement.searches.get(d, 0),
                     "standard": standard.to_dict(), "changeboard": changes.to_dict(),
                     "write_ratio": changes.writes / standard.writes if standard.writes else None,
                     "worst_search_write_ratio": measurement.worst_write_ratio.get(d),
                     "cycle_ratio": changes.bus_cycles / standard.bus_cycles if standard.bus_cycles else None,
                     "fixed_cost_for_seed_cut": fixed_cost_for(standard, changes),
                     "cut_at_seed_fixed_cost": cut_at(standard, changes, SEED_FIXED_COST) if standard.calls else None,
                     "cut_bus_cycles_only": cut_at(standard, changes, 0) if standard.calls else None})
    totals = {model: Counts() for model in MODELS}
    for (d, model), counts in measurement.counts.items():
        t = totals[model]
        t.calls, t.writes, t.reads, t.boards = t.calls + counts.calls, t.writes + counts.writes, \
            t.reads + counts.reads, t.boards + counts.boards
        for k, n in counts.depth_differences.items():
            t.depth_differences[k] = t.depth_differences.get(k, 0) + n
    return {"mode": mode, "count": count, "depth": depth, "seed": seed, "identical_search": measurement.identical,
            "value_match": measurement.values_match, "checked": 0, "mismatches": 0, "sim": None,
            "transactions": measurement.stream.transactions if measurement.stream else None,
            "golden_seconds": round(time.perf_counter() - started, 1),
            "models": {m: totals[m].to_dict() for m in MODELS}, "rows": rows,
            "cost_model": {"write_cycles": WRITE_CYCLES, "read_cycles": READ_CYCLES,
                           "seed_fixed_cost": SEED_FIXED_COST, "seed_cut": SEED_COMMUNICATION_CUT}}


def measure_in_golden_process(mode, count, depth, seed, stream_path):
    """``measure`` in a golden process (PyPy when installed: tb.checks.search.golden_python), its
    progress on stderr as it goes."""
    import subprocess

    from tb.checks.search import ROOT, golden_python

    command = [golden_python(), "-m", "gamechip.measure.codesign", json.dumps([mode, count, depth, seed, str(stream_path)])]
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ROOT})
    if done.returncode:
        raise Mismatch(f"the golden measurement ({command[0]}) stopped with exit status {done.returncode}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "golden_mismatch" in result:
        raise Mismatch(result["golden_mismatch"])
    return result


def run(mode, count, depth, seed, as_json, sim=None, stream_dir=None):
    """``gamechip codesign``: the measurement, and with ``sim`` every transaction of both models
    streamed through the simulated peripheral and checked; returns the exit status."""
    if sim:
        from tb.host.evaluator_axi_bench import run_stream

        folder = Path(stream_dir or Path(tempfile.gettempdir()))
        folder.mkdir(parents=True, exist_ok=True)
        stream_path = folder / f"codesign-{mode}-d{depth}-seed{seed}.hex"
        say(f"golden measurement, recording every bus transaction of both models into {stream_path}")
        result = measure_in_golden_process(mode, count, depth, seed, stream_path)
        say(f"{result['transactions']:,} transactions recorded in {result['golden_seconds']:,.0f} s; "
            f"streaming them through evaluator_axi on {sim}")
        started = time.perf_counter()
        # the regression's stream build (tag "stream"): the same design, harness and build flags (a
        # stream file and the master's stalls are run-time settings); its lock keeps runs apart
        outcome = run_stream(sim, stream_path, echo=not as_json)
        tally = outcome.result.get("tests", {}).get("searches_streamed", {})
        result.update(sim=sim, checked=outcome.result.get("checked", 0), mismatches=0 if outcome.passed else 1,
                      sim_seconds=round(time.perf_counter() - started, 1), stream=str(stream_path))
        if not outcome.passed:
            result["failure"] = outcome.result.get("failure") or f"the simulation failed:\n{outcome.log_excerpt(3000)}"
        elif tally.get("units") != result["transactions"]:
            result.update(mismatches=1, failure=f"{tally.get('units')} of {result['transactions']} transactions "
                                                f"were checked")
    else:
        result = measure(mode, count, depth, seed)
    status = _print(result, as_json)
    if result.get("failure"):
        print(f"gamechip codesign: MISMATCH: {result['failure']}", file=sys.stderr)
        return 1
    return status


def _print(result, as_json):
    mode, count, depth, seed, rows = result["mode"], result["count"], result["depth"], result["seed"], result["rows"]
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"co-design, {'self-play game' if mode == 'game' else f'{count} midgame positions (seed {seed})'} at "
          f"depths 1-{depth}; searches identical on both models and the golden evaluator: "
          f"{result['identical_search']}; NegaScout values equal plain alpha-beta: {result['value_match']}")
    if result["sim"]:
        print(f"simulated peripheral on {result['sim']}: {result['transactions']:,} transactions of both models "
              f"streamed, {result['checked']:,} responses and rebuilt boards checked against the golden bus model, "
              f"{result['mismatches']} mismatches ({result['sim_seconds']:,.0f} s; golden {result['golden_seconds']:,.0f} s)")
    print(f"{'d':>2} {'searches':>8} {'calls':>9} {'writes std':>11} {'writes cb':>10} {'reads':>9} "
          f"{'cycles std':>11} {'cycles cb':>10} {'writes':>7} {'worst':>6} {'cycles':>7} {'F for -19.5%':>12} "
          f"{'cut F=6.3':>9} {'cut F=0':>8}")
    def ratio(x):
        return "-" if x is None else f"{x:.3f}"

    def percent(x):
        return "-" if x is None else f"{-100 * x:.1f}%"

    for r in rows:
        s, c, f = r["standard"], r["changeboard"], r["fixed_cost_for_seed_cut"]
        print(f"{r['depth']:>2} {r['searches']:>8,} {s['calls']:>9,} {s['writes']:>11,} {c['writes']:>10,} "
              f"{s['reads']:>9,} {s['bus_cycles']:>11,} {c['bus_cycles']:>10,} {ratio(r['write_ratio']):>7} "
              f"{ratio(r['worst_search_write_ratio']):>6} {ratio(r['cycle_ratio']):>7} "
              f"{'-' if f is None else f'{f:.2f}':>12} {percent(r['cut_at_seed_fixed_cost']):>9} "
              f"{percent(r['cut_bus_cycles_only']):>8}")
    hist = {int(k): n for k, n in result["models"]["changeboard"]["depth_differences"].items()}
    print(f"depth differences k of the changeboards (all depths): "
          f"{', '.join(f'k={k}: {n:,}' for k, n in sorted(hist.items()))}")
    print(f"cost model: write {WRITE_CYCLES} bus cycles, read {READ_CYCLES}; communication = bus cycles / "
          f"{WRITE_CYCLES} + F per call (write-equivalents). Seed: -50 % board writes, -19.5 % communication at "
          f"depth 8 (Table II: 26.9 % vs 31.1 % of the time)")
    return 0


if __name__ == "__main__":   # the golden process of --sim: python -m gamechip.measure.codesign '[mode, count, depth, seed, stream]'
    try:
        print(json.dumps(measure(*json.loads(sys.argv[1]))))
    except Mismatch as error:
        print(json.dumps({"golden_mismatch": str(error)}))
