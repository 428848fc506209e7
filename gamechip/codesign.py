"""``gamechip codesign``: the co-design seed's measurements (SPEC §10) on the same searches for
both transfer models: hardware calls, bus writes and reads, bus cycles, the depth-difference
histogram, and the communication time under a documented cost model.

Workloads: ``--game`` plays the seed's workload, one game of the host against itself (book,
corner killer, NegaScout at depth d), once for every depth d = 1..D; ``--positions N`` searches
N seeded midgame positions at every depth 1..D. Every search runs three times: on the golden
evaluator (its evaluation trace is the reference), and through each transfer model on its own
bus model (golden/codesign.py); the three traces must be identical, and every NegaScout root
value must equal the plain alpha-beta search's (golden/search.py) at the same depth.

Cost model: a write costs WRITE_CYCLES bus cycles and a read READ_CYCLES; communication time
is counted in write-equivalents, bus cycles / WRITE_CYCLES plus a fixed cost F per hardware
call (the host's driver work). The seed's Table II cut (communication 5.02 s -> 4.04 s, -19.5 %)
fixes F from the measured counts; the table also gives the cut at F = 6.3 and at F = 0 (bus
cycles alone).
"""

from __future__ import annotations

import json
import random
import sys
import time

from golden.board import start_position
from golden.codesign import (READ_CYCLES, SEED_COMMUNICATION_CUT, WRITE_CYCLES, Bus, ChangeboardTransfer, Counts,
                             StandardTransfer)
from golden.negascout import NegaScout, choose_move, golden_backend
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

    def __init__(self):
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

    def search_both(self, position, depth, moves_so_far=None):
        """One search on the golden evaluator and through each model; the move (or None)."""
        transfers = {"standard": StandardTransfer(Bus()), "changeboard": ChangeboardTransfer(Bus())}
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


def run(mode, count, depth, seed, as_json, progress=None):
    say = progress or (lambda text: print(f"codesign: {text}", file=sys.stderr, flush=True))
    measurement = Measurement()
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
    result = {"mode": mode, "depth": depth, "seed": seed, "identical_search": measurement.identical,
              "value_match": measurement.values_match, "checked": 0, "mismatches": 0, "sim": None,
              "models": {m: totals[m].to_dict() for m in MODELS}, "rows": rows,
              "cost_model": {"write_cycles": WRITE_CYCLES, "read_cycles": READ_CYCLES,
                             "seed_fixed_cost": SEED_FIXED_COST, "seed_cut": SEED_COMMUNICATION_CUT}}
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"co-design, {'self-play game' if mode == 'game' else f'{count} midgame positions (seed {seed})'} at "
          f"depths 1-{depth}; searches identical on both models and the golden evaluator: {measurement.identical}; "
          f"NegaScout values equal plain alpha-beta: {measurement.values_match}")
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
    hist = totals["changeboard"].depth_differences
    print(f"depth differences k of the changeboards (all depths): "
          f"{', '.join(f'k={k}: {n:,}' for k, n in sorted(hist.items()))}")
    print(f"cost model: write {WRITE_CYCLES} bus cycles, read {READ_CYCLES}; communication = bus cycles / "
          f"{WRITE_CYCLES} + F per call (write-equivalents). Seed: -50 % board writes, -19.5 % communication at "
          f"depth 8 (Table II: 26.9 % vs 31.1 % of the time)")
    return 0
