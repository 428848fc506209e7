"""``gamechip parallel``: the host search over P engines (golden/host/parallel_search.py, docs/spec.md §12) on
seeded midgame positions, measured as the parallel-minimax seed measured its MPI search:
speed-up, efficiency, search overhead and load balance against P, in simulated engine cycles.

The engines' searches run as tasks of a Dask distributed cluster (a LocalCluster by default,
``--cluster tcp://HOST:PORT`` for an existing scheduler): the golden engine (the engine's
twin, with its exact cycle model) computes every subtree the host hands out; each result is
cached, so the same subtree is computed once for every P and scheme. With ``--sim S`` every
subtree any scheme searched is then run again on the simulated engine under the node-by-node
scoreboard (one simulation per position, spread over the cluster): the table's cycles and
nodes are the engine's own, checked, not only its twin's.
"""

import csv
import io
import json
import os
import random
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from golden.board import popcount
from golden.othello import game_over, legal_moves
from golden.host.parallel_search import (HOST_CYCLES, Job, engine_run_from_answer, golden_engine_run, parallel_search,
                                         sequential)
from golden.positions import random_game_positions
from tb.checks.search import ROOT, golden_python

# The seed's measured speed-ups (parallel-minimax seed, section V: depths 10-12, fox and geese
# moves timed apart at depth 11), (processes, speed-up, what).
SEED_POINTS = [(32, 2.66, "depth 10"), (42, 4.0, "depth 10"), (54, 4.0, "depth 10"),
               (32, 3.0, "depth 11 fox"), (42, 3.0, "depth 11 fox"), (54, 3.0, "depth 11 fox"),
               (32, 2.0, "depth 11 geese"), (42, 3.0, "depth 11 geese"), (54, 3.0, "depth 11 geese"),
               (32, 2.2, "depth 12"), (42, 2.2, "depth 12"), (54, 4.4, "depth 12")]
# Published anchors for bound-sharing searches (P, speed-up, what).
ANCHORS = [(4, 3.0, "PVS"), (8, 4.1, "PVS"), (4, 3.7, "DTS"), (8, 6.6, "DTS")]
DEFAULT_DEPTH = 9     # the sequential search of a seeded midgame takes 10^6 engine cycles or more
# Host plies per scheme: the parallel-minimax seed split its tree at ply 2; YBW gains from a third host ply (more,
# smaller subtrees behind each eldest brother), the parallel-minimax seed's scheme loses (every split ply is a
# ply of pruning lost: 6x the sequential nodes at 2 plies, 17x at 3, depth 8).
DEFAULT_SPLIT = {"seed": 2, "ybw": 3}


def midgame_positions(count, seed, low=20, high=32):
    """``count`` positions from seeded random games, ``low``..``high`` discs, side to move can move."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = [p for p in random_game_positions(rng)
                if low <= popcount(p.black | p.white) <= high and legal_moves(p.own, p.opp) and not game_over(p)]
        if game:
            out.append(rng.choice(game))
    return out


class EngineServer:
    """This process's golden engine server (``python -m golden.host.parallel_search``) in the golden
    interpreter (PyPy when installed: the engine's twin runs 3-4x faster there), started on
    the first job and kept for the process's life; one job at a time."""

    def __init__(self, python):
        import subprocess

        self.process = subprocess.Popen([python, "-m", "golden.host.parallel_search"], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=ROOT))

    def run(self, board, depth, alpha, beta):
        self.process.stdin.write(json.dumps({"board": board, "depth": depth, "alpha": alpha, "beta": beta}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the golden engine server ({self.process.args[0]}) stopped with status "
                               f"{self.process.wait()}")
        return engine_run_from_answer(json.loads(answer))


_SERVER = {"server": None, "lock": threading.Lock()}


def engine_run(board, depth, alpha, beta):
    """One engine job as a Dask task: on this worker's golden engine server when the golden
    interpreter is another one (PyPy), else in this process."""
    python = golden_python()
    if python == sys.executable:
        return golden_engine_run(board, depth, alpha, beta)
    with _SERVER["lock"]:
        if _SERVER["server"] is None or _SERVER["server"].process.poll() is not None:
            _SERVER["server"] = EngineServer(python)
        return _SERVER["server"].run(board, depth, alpha, beta)


class Engines:
    """The engines' searches as Dask tasks: submitted as soon as the host knows them
    (``prefetch``), awaited when the simulated schedule needs their result (``run``)."""

    def __init__(self, client):
        self.client, self.futures, self.results = client, {}, {}

    def prefetch(self, job):
        if job not in self.futures and job not in self.results:
            self.futures[job] = self.client.submit(engine_run, job.board, job.depth, job.alpha, job.beta,
                                                   pure=False)

    def run(self, job):
        if job not in self.results:
            self.prefetch(job)
            self.results[job] = self.futures.pop(job).result()
        return self.results[job]

    def forget(self):
        """Drop the cache between positions (memory stays flat over a long run)."""
        for future in self.futures.values():
            future.cancel()
        self.futures, self.results = {}, {}


@dataclass
class Row:
    scheme: str
    engines: int
    cycles: int          # parallel simulated cycles, summed over the positions
    sequential: int      # sequential engine cycles, summed
    nodes: int
    sequential_nodes: int
    balance_sum: float   # over positions of busiest / mean engine
    values_match: bool
    dispatches: int
    cancelled: int
    one_engine: int = 0  # the same scheme's cycles on one engine (for the relative speed-up)
    positions: int = 0

    @property
    def balance(self):
        """Mean over the positions of busiest engine / mean engine."""
        return self.balance_sum / self.positions

    @property
    def speedup(self):
        return self.sequential / self.cycles

    @property
    def efficiency(self):
        return self.speedup / self.engines

    @property
    def relative(self):
        """Speed-up against the same scheme on one engine (the host's own gain left out)."""
        return self.one_engine / self.cycles if self.one_engine else None

    @property
    def overhead(self):
        return self.nodes / self.sequential_nodes - 1

    def to_dict(self):
        return {"scheme": self.scheme, "engines": self.engines, "cycles": self.cycles,
                "sequential_cycles": self.sequential, "speedup": round(self.speedup, 3),
                "efficiency": round(self.efficiency, 4), "nodes": self.nodes,
                "sequential_nodes": self.sequential_nodes, "overhead": round(self.overhead, 4),
                "balance": round(self.balance, 3), "values_match": self.values_match,
                "speedup_vs_one_engine": None if self.relative is None else round(self.relative, 3),
                "dispatches": self.dispatches, "cancelled": self.cancelled}


def measure(positions, depth, engine_counts, schemes, splits, client, progress=None, after_position=None):
    """Rows of the table and, per position, the jobs every scheme handed out (for --sim).
    ``splits``: host plies per scheme; ``after_position(rows, done)`` after each position (the
    results so far are written as they come)."""
    engines = Engines(client)
    rows = {(scheme, p): Row(scheme, p, 0, 0, 0, 0, 0.0, True, 0, 0) for scheme in schemes for p in engine_counts}
    searched = []
    started = time.perf_counter()
    for number, position in enumerate(positions, 1):
        seq = sequential(position, depth, engines.run)
        jobs = {Job(position.text(), depth, -256, 256)}

        def run(job):
            jobs.add(job)
            return engines.run(job)
        for scheme in schemes:
            for p in engine_counts:
                result = parallel_search(position, depth, p, scheme, splits[scheme], run, prefetch=engines.prefetch)
                if p == 1:
                    one_engine = result.cycles
                row = rows[(scheme, p)]
                row.cycles += result.cycles
                row.sequential += seq.cycles
                row.nodes += result.nodes
                row.sequential_nodes += seq.nodes
                row.balance_sum += result.balance
                row.positions += 1
                row.values_match &= result.value == seq.value
                row.dispatches += result.dispatches
                row.cancelled += result.cancelled
                if 1 in engine_counts:
                    row.one_engine += one_engine
        searched.append(sorted(jobs, key=lambda j: (j.depth, j.board, j.alpha, j.beta)))
        engines.forget()
        if after_position:
            after_position([rows[(scheme, p)] for scheme in schemes for p in engine_counts], number)
        if progress:
            elapsed = time.perf_counter() - started
            progress(f"parallel: position {number}/{len(positions)} ({seq.cycles:,} sequential cycles, "
                     f"{len(jobs)} subtrees); {elapsed:,.0f} s, ETA {elapsed / number * (len(positions) - number):,.0f} s")
    return [rows[(scheme, p)] for scheme in schemes for p in engine_counts], searched


def check_in_simulation(sim, searched, client, progress=None, sample=None):
    """Every subtree (and the sequential search) of every position on the simulated engine under
    the node scoreboard, one simulation per position as a cluster task; node reports checked.
    ``sample``: only that many subtrees per position, spread over its list, windowed ones first."""
    from tb.checks.search import SearchCase

    def cases(jobs, number):
        from golden.board import parse_board

        if sample is not None and len(jobs) > sample:
            narrow = [j for j in jobs if (j.alpha, j.beta) != (-256, 256)]
            jobs = (narrow[::max(1, len(narrow) // sample)] + jobs[::max(1, len(jobs) // sample)])[:sample]
        return [SearchCase(parse_board(j.board), j.depth, None, f"position {number}, subtree {i}", alpha=j.alpha,
                           beta=j.beta) for i, j in enumerate(jobs)]

    futures = [client.submit(_check_position, sim, cases(jobs, n), n, pure=False) for n, jobs in enumerate(searched, 1)]
    checked = 0
    for done, future in enumerate(futures, 1):
        checked += future.result()
        if progress:
            progress(f"parallel: simulated subtrees of {done}/{len(futures)} positions checked on {sim}, "
                     f"{checked:,} node reports")
    return checked


def _check_position(sim, cases, number):
    """A cluster task: one build per worker (its name in the build directory), reused."""
    from distributed import get_worker

    from tb.host.search_bench import check_search_cases

    return check_search_cases(sim, cases, f"parallel-{get_worker().name}")


def table(rows, depth, splits, positions, seconds):
    lines = [f"parallel search, depth {depth}, host plies {', '.join(f'{k} {v}' for k, v in splits.items())}, "
             f"{positions} positions, host {HOST_CYCLES} cycles per dispatch; time in simulated engine cycles "
             f"(wall clock {seconds:,.0f} s); speed-up against the sequential engine, and against the same scheme "
             f"on one engine",
             f"{'scheme':<6} {'P':>3} {'cycles':>13} {'speed-up':>9} {'vs P=1':>7} {'efficiency':>10} {'nodes':>12} "
             f"{'overhead':>9} {'balance':>8} {'values':>7}"]
    for r in rows:
        relative = f"{r.relative:>7.2f}" if r.relative is not None else f"{'-':>7}"
        lines.append(f"{r.scheme:<6} {r.engines:>3} {r.cycles:>13,} {r.speedup:>9.2f} {relative} {r.efficiency:>10.3f} "
                     f"{r.nodes:>12,} {r.overhead:>+9.1%} {r.balance:>8.2f} {'match' if r.values_match else 'DIFFER':>7}")
    lines.append(f"sequential: {rows[0].sequential:,} cycles, {rows[0].sequential_nodes:,} nodes; seed (MPI, no "
                 f"bounds shared): speed-up 2.2-4.4 at 32-54 processes; PVS 3.0 at 4, 4.1 at 8; DTS 3.7 at 4, 6.6 at 8")
    return "\n".join(lines)


def write_csv(rows, path):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0].to_dict()))
    writer.writeheader()
    writer.writerows(r.to_dict() for r in rows)
    Path(path).write_text(out.getvalue())


def plot(rows, path, depth):
    """Speed-up against P (log scale), one line per scheme, the ideal, the parallel-minimax seed's points and
    the published anchors, as SVG."""
    import math

    from gamechip.views.drawing import Canvas

    width, height, left, bottom, top, right = 640, 420, 60, 50, 30, 170
    most = max([r.engines for r in rows] + [64])
    ymax = max([r.speedup for r in rows] + [8])

    def x(p):
        return left + (width - left - right) * math.log2(p) / math.log2(most)

    def y(s):
        return height - bottom - (height - bottom - top) * s / ymax

    canvas = Canvas(width, height)
    canvas.line(left, height - bottom, width - right, height - bottom)
    canvas.line(left, top, left, height - bottom)
    p = 1
    while p <= most:
        canvas.line(x(p), height - bottom, x(p), height - bottom + 4)
        canvas.text(x(p), height - bottom + 18, p, size=11, anchor="middle")
        p *= 2
    for s in range(0, int(ymax) + 1, max(1, int(ymax) // 8)):
        canvas.text(left - 8, y(s) + 4, s, size=11, anchor="end")
        canvas.line(left, y(s), width - right, y(s), stroke="#e0e0e0")
    canvas.text((left + width - right) / 2, height - 12, "engines P", size=12, anchor="middle")
    canvas.text(14, top - 10, f"speed-up (depth {depth})", size=12)
    ideal = [(x(p), y(min(p, ymax))) for p in (1, 2, 4, 8, 16, 32, 64) if p <= most]
    canvas.polyline(ideal, stroke="#bbbbbb", width=1)
    colours = {"seed": "#d62728", "ybw": "#1f77b4"}
    legend = top
    for scheme in dict.fromkeys(r.scheme for r in rows):
        points = [(x(r.engines), y(r.speedup)) for r in rows if r.scheme == scheme]
        canvas.polyline(points, stroke=colours.get(scheme, "#000"), width=2)
        for px, py in points:
            canvas.circle(px, py, 3, fill=colours.get(scheme, "#000"))
        canvas.line(width - right + 10, legend, width - right + 30, legend, stroke=colours.get(scheme, "#000"), width=2)
        canvas.text(width - right + 36, legend + 4, f"{scheme} (this engine)", size=11)
        legend += 18
    for p, s, what in SEED_POINTS:
        canvas.rect(x(p) - 3, y(s) - 3, 6, 6, fill="#ff7f0e", title=f"seed, {what}: {s} at {p}")
    canvas.rect(width - right + 17, legend - 3, 6, 6, fill="#ff7f0e")
    canvas.text(width - right + 36, legend + 4, "seed (MPI, C)", size=11)
    legend += 18
    for p, s, what in ANCHORS:
        canvas.polygon([(x(p), y(s) - 4), (x(p) + 4, y(s) + 3), (x(p) - 4, y(s) + 3)], fill="#2ca02c",
                       stroke="#2ca02c", title=f"{what}: {s} at {p}")
    canvas.polygon([(width - right + 20, legend - 4), (width - right + 24, legend + 3), (width - right + 16, legend + 3)],
                   fill="#2ca02c", stroke="#2ca02c")
    canvas.text(width - right + 36, legend + 4, "PVS, DTS (published)", size=11)
    legend += 18
    canvas.line(width - right + 10, legend, width - right + 30, legend, stroke="#bbbbbb")
    canvas.text(width - right + 36, legend + 4, "ideal", size=11)
    Path(path).write_text(canvas.svg(f"speed-up against engines, depth {depth}"))


def cluster_client(address):
    """A Dask client: the scheduler at ``address``, or a LocalCluster of one worker per core."""
    from distributed import Client, LocalCluster

    if address:
        return Client(address, timeout="10s")
    cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster)


def run(positions, seed, depth, engine_counts, schemes, split, sim, cluster, out, as_json, sim_sample=None):
    say = (lambda text: print(text, file=sys.stderr, flush=True))
    chosen = midgame_positions(positions, seed)
    splits = {scheme: split or DEFAULT_SPLIT[scheme] for scheme in schemes}
    out = Path(out)

    def write(rows, done, seconds=None, checked=None):
        write_csv(rows, out / "parallel.csv")
        plot(rows, out / "parallel.svg", depth)
        report = {"rows": [r.to_dict() for r in rows], "depth": depth, "splits": splits, "positions": done,
                  "positions_asked": positions, "seed": seed, "host_cycles_per_dispatch": HOST_CYCLES,
                  "wall_seconds": None if seconds is None else round(seconds, 1), "simulator": sim,
                  "node_reports_checked": checked}
        (out / "parallel.json").write_text(json.dumps(report, indent=1))
        return report

    say(f"parallel: {positions} midgame positions (seed {seed}), depth {depth}, host plies "
        f"{', '.join(f'{k} {v}' for k, v in splits.items())}, engines "
        f"{','.join(map(str, engine_counts))}, schemes {' '.join(schemes)}; engines on "
        + (f"the Dask cluster at {cluster}" if cluster else "a local Dask cluster"))
    started = time.perf_counter()
    client = cluster_client(cluster)
    try:
        rows, searched = measure(chosen, depth, engine_counts, schemes, splits, client, say, write)
        checked = check_in_simulation(sim, searched, client, say, sim_sample) if sim else None
    finally:
        local = None if cluster else client.cluster
        client.close()
        if local is not None:
            local.close()
    seconds = time.perf_counter() - started
    report = write(rows, positions, seconds, checked)
    if as_json:
        print(json.dumps(report))
    else:
        print(table(rows, depth, splits, positions, seconds))
        if sim:
            what = (f"{sim_sample} subtrees per position" if sim_sample else
                    "every subtree searched by every scheme (and each sequential search)")
            print(f"{what} ran on {sim} under the node scoreboard: {checked:,} node reports agreed")
        print(f"table: {out / 'parallel.csv'}; plot: {out / 'parallel.svg'}")
    return 0 if all(r.values_match for r in rows) else 1
