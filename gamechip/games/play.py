"""``gamechip play`` and ``gamechip tournament``: the processor against the contest's reference
software (docs/spec.md §8-§9), refereed, with every processor move checked against its golden model.

The processor is either the simulated RTL (``--sim``: the cocotb bench tb/test_processor.py
drives its UART pins and referees the game there, comparing each reply with
``golden.processor.GoldenProcessor``) or, without ``--sim``, that golden model itself. With
``contexts`` 2 it is the two-context processor (design ``processor_c2``, the root split of
docs/root-split.md); with ``evaluator`` pattern the processor with the pattern evaluator (design
``processor_pattern``, docs/pattern-evaluator.md; one context); with ``engines`` K >= 2 the processor
with K engines (designs ``processor_k2``, ``processor_k3``, docs/k-engines.md).
A game's result is a plain dict (the JSON the bench writes), so both paths print, record and
tabulate the same way.
"""

import csv
import io
import json
import multiprocessing
import os
import queue
import socket
import subprocess
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from gamechip.processes import connect_cluster, kill_process_group, run_killable, stop_cluster_tasks
from golden.board import draw, square_name
from golden.contest.games import claim_contradicted, golden_game, mover_name

COLORS = ("black", "white")
PROCESSOR_DESIGNS = {1: "processor", 2: "processor_c2"}   # contexts -> the design simulated


def print_move(processor_color, processor="processor", opponent=None):
    """An on_move callback drawing the board after every move, with who moved and why (the
    processor's side called ``processor``; the other side ``opponent``, by default the reference
    player). A board's move shows the seconds it took to reply (``reply_seconds`` in its info)."""
    def on_move(position, color, move, info):
        what = "passes" if move is None else f"plays {square_name(move)}"
        detail = ""
        if info.get("source") == "book":
            detail = " (opening book)"
        elif "cycles" in info:
            detail = f" (search: {info['cycles']:,} cycles, depth {info.get('depth')})"
        elif "nodes" in info:
            detail = f" (level {info.get('level')}: {info['nodes']:,} nodes)"
        if "reply_seconds" in info:
            detail += f", replied in {info['reply_seconds']:.2f} s"
        who = mover_name(color, processor_color)
        if processor != "processor" or opponent:
            side = "black" if color == "X" else "white"
            who = f"{processor if side == processor_color else opponent or 'reference'} ({side})"
        print(f"{who} {what}{detail}")
        print(draw(position))
        print(flush=True)
    return on_move


def default_record(level, processor_color, budget):
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"play-{stamp}-budget{budget}-level{level}-{processor_color}.txt"


def port_record(board_color, opponent, budget):
    """The default record of ``play --port``, naming both sides: ``opponent`` is 'level3' or
    'human-white' (the human's own colour), e.g. ``...-board-black-vs-human-white.txt``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"play-port-{stamp}-budget{budget}-board-{board_color}-vs-{opponent}.txt"


def write_record(game, path):
    """First line the moves, second line ``black N white M``, then the rest of the story; the
    game as GGF beside it (the same name, ``.ggf``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [game["record"], f"black {game['black']} white {game['white']}",
             f"processor: {game['processor_color']}, budget {game['budget']:,} clock cycles per move, "
             f"{contexts_text(game.get('contexts', 1))}, {game['simulator']}; reference level {game['level']}",
             f"mean search depth of the processor: {game['mean_depth']}"]
    path.write_text("\n".join(lines) + "\n\n" + game["results_text"])
    ggf_path(path).write_text(game_ggf(game) + "\n")
    return path


def ggf_path(path):
    """Where the GGF record of a game recorded at ``path`` goes."""
    return Path(path).with_suffix(".ggf")


def game_ggf(game, place="gamechip play"):
    """A tournament or play game dict (golden.contest.games.result_dict) as a GGF record."""
    processor = f"processor (budget {game['budget']})"
    reference = f"reference level {game['level']}"
    black, white = (processor, reference) if game["processor_color"] == "black" else (reference, processor)
    return plies_ggf([p["move"] for p in game["plies"]], black, white, game["reason"], game.get("invalid_by"),
                     game.get("detail", ""), place)


def plies_ggf(moves, black, white, reason=None, invalid_by=None, detail="", place="gamechip"):
    """GGF of a refereed game: ``moves`` as squares or names, None a pass; a game lost by an
    invalid move (``invalid_by`` 'X'/'O') is a forfeit, the reason in the game comment."""
    from golden.board import parse_square
    from golden.contest.ggf import forfeit_result, format_ggf

    squares = [parse_square(m) if isinstance(m, str) else m for m in moves]
    result = forfeit_result("O" if invalid_by == "X" else "X") if invalid_by else None
    comment = f"{reason} by {'black' if invalid_by == 'X' else 'white'}: {detail}" if invalid_by else reason or ""
    return format_ggf(squares, black, white, result=result, comment=comment, place=place,
                      date=time.strftime("%Y-%m-%d %H:%M:%S %Z"))


# --- tournament -------------------------------------------------------------------------------

_SLOT = None


def _start_worker(slots, pids):
    # Its own session: Ctrl-C at the terminal reaches the tournament alone, which then stops the
    # workers and their simulators itself and keeps the finished games.
    global _SLOT
    os.setsid()
    pids.put(os.getpid())
    _SLOT = slots.get()


def _stop_workers(pids):
    while True:
        try:
            pid = pids.get_nowait()
        except queue.Empty:
            return
        kill_process_group(pid)  # the worker and the simulator it runs


MODES = ("processor", "engine")


def contexts_text(contexts):
    return "one search context" if contexts == 1 else f"{contexts} contexts (root split)"


def check_contexts(contexts, sim=None):
    """The processor design for ``contexts`` (1 or 2); ValueError with one line when there is none,
    or when ``sim`` is given and the design is not registered in rtl/designs.py."""
    if contexts not in PROCESSOR_DESIGNS:
        raise ValueError(f"--contexts is 1 (one search context) or 2 (the root split over both), got '{contexts}'")
    design = PROCESSOR_DESIGNS[contexts]
    if sim:
        from rtl.designs import DESIGNS

        if design not in DESIGNS:
            raise ValueError(f"--contexts {contexts} --sim simulates design {design}, which rtl/designs.py does not "
                             f"register; without --sim the golden processor plays")
    return design


def check_engines(engines, contexts=1, sim=None):
    """The processor design for ``engines`` K (1: the one chosen by ``contexts``); ValueError with one
    line when K is not 1..MAX_ENGINES, comes with two contexts, or with ``sim`` has no registered
    design (tb.blocks PROCESSOR_SEARCH: processor_k2, processor_k3)."""
    from golden.root_split import MAX_ENGINES
    from tb.blocks import PROCESSOR_SEARCH

    if not isinstance(engines, int) or not 1 <= engines <= MAX_ENGINES:
        raise ValueError(f"--engines is 1..{MAX_ENGINES}, the processor's search engines, got '{engines}'")
    if engines == 1:
        return None
    if contexts != 1:
        raise ValueError(f"--engines {engines}: the K-engine processor has one context an engine; leave out --contexts 2")
    designs = {searched[1]: design for design, searched in PROCESSOR_SEARCH.items() if searched[0] == 1}
    if sim and engines not in designs:
        raise ValueError(f"--engines {engines} --sim: no processor with {engines} engines is converted (rtl/designs.py "
                         f"has {', '.join(str(k) for k in sorted(designs) if k > 1)}); without --sim the golden "
                         f"processor plays")
    return designs.get(engines)


def golden_game_fast(level, processor_color, budget, contexts=1, solve_empties=0, evaluator="seed", engines=1):
    """golden_game in a golden process (``python -m golden.contest.games``, PyPy when installed: at the
    seed's budgets its searches are the expensive part), else in this one."""
    from tb.checks.search import ROOT, golden_python

    python = golden_python()
    if python == sys.executable:
        return dict(golden_game(level, processor_color, budget, contexts=contexts, solve_empties=solve_empties,
                                evaluator=evaluator, engines=engines), contexts=contexts)
    run = subprocess.run([python, "-m", "golden.contest.games", str(level), processor_color, str(budget),
                          str(contexts), str(solve_empties), evaluator, str(engines)], cwd=ROOT,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    if run.returncode:
        raise RuntimeError(f"the golden game in {python} failed: {run.stderr[-2000:]}")
    return dict(json.loads(run.stdout), contexts=contexts)


def tournament_game(level, processor_color, budget, sim, mode="processor", tag=None, contexts=1, solve_empties=0,
                    evaluator="seed"):
    """One tournament game in a worker process (its own build slot, ``tag``, when simulated).

    ``mode`` "processor": the whole processor is simulated, over its UART pins
    (tb/test_processor.py). "engine": the golden processor plays the game (in a golden process),
    then every search of the game runs on the simulated search engine with every node checked
    (tb/test_search.py under the HDL clock): the seed's budgets in hours instead of weeks.
    ``contexts`` 2: the two-context processor (golden, or design ``processor_c2`` simulated).
    ``solve_empties``: the golden processor's endgame solve (a simulated processor has its design's).
    ``evaluator`` pattern: the processor with the pattern evaluator (golden, or ``processor_pattern``)."""
    tag = tag or f"tournament-s{_SLOT}"
    if sim is None:
        return golden_game_fast(level, processor_color, budget, contexts, solve_empties, evaluator)
    if mode == "engine":
        from rtl.designs import PROCESSOR_DEPTH_LIMIT
        from tb.host.search_bench import check_searches_on

        game = golden_game_fast(level, processor_color, budget)
        started = time.perf_counter()
        try:
            game["nodes_checked"] = check_searches_on(sim, game["searched_positions"], PROCESSOR_DEPTH_LIMIT, budget,
                                                      tag=tag, echo=True)
        except AssertionError as mismatch:
            raise RuntimeError(f"level {level}, processor {processor_color}: {mismatch}")
        game["simulator"] = f"{sim}: every search of the game on the search engine, every node checked"
        game["check_seconds"] = round(time.perf_counter() - started, 1)
        return game
    return simulated_game_of(sim, level, processor_color, budget, contexts, tag=tag, evaluator=evaluator)


def simulated_game_of(sim, level, processor_color, budget, contexts, evaluator="seed", engines=1, **options):
    """A simulated game of the processor design with ``contexts``, ``evaluator`` and ``engines``
    (tb.host.processor_bench)."""
    from tb.host.processor_bench import PATTERN_PROCESSOR, simulated_game

    if engines != 1:
        options["design"] = check_engines(engines, contexts, sim)
    elif contexts != 1:
        options["design"] = check_contexts(contexts, sim)
    elif evaluator == "pattern":
        options["design"] = PATTERN_PROCESSOR
    game = dict(simulated_game(sim, level, processor_color, budget, **options), contexts=contexts)
    if evaluator != "seed":   # as golden_game records it
        game["evaluator"] = evaluator
    if engines != 1:
        game["engines"] = engines
    return game


def cluster_game(level, processor_color, budget, sim, mode, token, contexts=1, solve_empties=0, evaluator="seed"):
    """One tournament game as a Dask task, on whichever worker runs it: in a subprocess of its
    own session (``python -m gamechip.games.play``), killed with its simulators when the tournament
    stops (gamechip.processes.stop_tokens(token)), in a build slot of that machine. The game,
    with the worker's host and RTL digest, or RuntimeError with the reason."""
    import tempfile

    from tb.host.runner import rtl_digest
    from tb.host.slots import slot_tag, take_slot

    spec = {"level": level, "processor_color": processor_color, "budget": budget, "sim": sim, "mode": mode,
            "contexts": contexts, "solve_empties": solve_empties, "evaluator": evaluator}
    with tempfile.TemporaryDirectory(prefix="gamechip-game-") as work:
        result, log_path = Path(work) / "game.json", Path(work) / "game.log"
        slot, lock = take_slot("search" if mode == "engine" else "processor", sim) if sim else (0, None)
        try:
            with open(log_path, "wb") as log:
                returncode, _, interrupted = run_killable(
                    [sys.executable, "-m", "gamechip.games.play",
                     json.dumps({**spec, "tag": f"tournament-{slot_tag(slot)}"}), str(result)], token, None, log,
                    pass_fds=(lock.fileno(),) if lock else ())
        finally:
            if lock:
                lock.close()
        if interrupted:
            raise RuntimeError("stopped: the tournament was interrupted")
        record = json.loads(result.read_text()) if result.exists() else None
        if record is None:
            tail = log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the game process on {socket.gethostname()} exited with status {returncode} and no "
                               f"result: {tail}")
    if "error" in record:
        raise RuntimeError(f"{record['error']} (on {socket.gethostname()})")
    return {**record["game"], "host": socket.gethostname(), "rtl_digest": rtl_digest()}


def _play_one(spec_json, result_path):
    """``python -m gamechip.games.play GAME_JSON RESULT``: the game of cluster_game, its outcome as JSON."""
    try:
        record = {"game": tournament_game(**json.loads(spec_json))}
    except Exception as error:  # a mismatch or a crash: the reason goes back to the tournament
        record = {"error": str(error) or repr(error)}
    Path(result_path).write_text(json.dumps(record))


def finished_games(out_dir):
    """The games an earlier run of the same tournament finished (its games.json), by (level,
    colour); failed ones are played again."""
    path = Path(out_dir) / "games.json"
    if not path.exists():
        return {}
    return {(g["level"], g["processor_color"]): g for g in json.loads(path.read_text()) if "error" not in g}


class _LocalGames:
    """The games in ``jobs`` worker processes of this machine."""

    def __init__(self, jobs):
        context = multiprocessing.get_context("spawn")
        slots, self.pids = context.Queue(), context.Queue()
        for slot in range(jobs):
            slots.put(slot)
        self.pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                                        initargs=(slots, self.pids))
        self.where = f"{jobs} workers"

    def submit(self, level, color, budget, sim, mode, contexts=1, solve_empties=0, evaluator="seed"):
        return self.pool.submit(tournament_game, level, color, budget, sim, mode, contexts=contexts,
                                solve_empties=solve_empties, evaluator=evaluator)

    def as_completed(self, futures):
        return as_completed(futures)

    def stop(self):
        _stop_workers(self.pids)
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pids = None

    def close(self):
        if self.pids is not None:  # not stopped: wait for the workers to exit
            self.pool.shutdown()


class _ClusterGames:
    """The games as tasks of a Dask distributed scheduler (cluster_game on its workers)."""

    def __init__(self, address):
        self.client, self.where = connect_cluster(address)
        self.futures = []
        self.tournament = uuid.uuid4().hex[:12]

    def submit(self, level, color, budget, sim, mode, contexts=1, solve_empties=0, evaluator="seed"):
        key = f"gamechip-game-{level}-{color}-{self.tournament}"
        future = self.client.submit(cluster_game, level, color, budget, sim, mode, key, contexts, solve_empties,
                                    evaluator, key=key, pure=False)
        self.futures.append(future)
        return future

    def as_completed(self, futures):
        from distributed import as_completed as completed

        return completed(list(futures))

    def stop(self):
        stop_cluster_tasks(self.client, self.futures, "tournament")

    def close(self):
        self.client.close()


class TournamentProgress:
    """The games of a tournament as they finish: each finished unit of work (one game, or the
    games of one simulation) goes into the tables, rewritten at once, so that an interrupted or
    crashed tournament keeps every game it finished, and a progress line goes to stderr. ``kept``:
    the games of an earlier run that this one resumes."""

    def __init__(self, total, kept, budget, sim, out_dir, mode="processor", contexts=1):
        from tb.host.runner import rtl_digest

        self.total, self.kept = total, kept
        self.games, self.failures, self.done = list(kept.values()), [], 0
        self.tables = dict(budget=budget, sim=sim, out_dir=out_dir, mode=mode, contexts=contexts)
        self.here, self.started = rtl_digest(), time.perf_counter()

    def played(self, units, games):
        """``games`` of the tasks ``units`` ([(level, colour)]) finished."""
        for game in games:
            game.setdefault("host", socket.gethostname())
            game.setdefault("rtl_digest", self.here)
            if game["rtl_digest"] != self.here:
                print(f"tournament: warning: level {game['level']} processor {game['processor_color']} was played on "
                      f"{game['host']} with RTL digest {game['rtl_digest']}, not this machine's {self.here}",
                      file=sys.stderr)
            self.games.append(game)
        self.report(units, ", ".join(f"{g['processor_discs']}-{g['reference_discs']}" for g in games))

    def failed(self, units, error):
        """The tasks ``units`` failed (a mismatch or a crash): the others go on."""
        self.failures += [{"level": level, "processor_color": color, "error": str(error)} for level, color in units]
        self.report(units, "FAILED")

    def report(self, units, outcome):
        self.done += len(units)
        write_tables(self.games, self.failures, quiet=True, **self.tables)
        elapsed = time.perf_counter() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        bar = "#" * self.done + "-" * (self.total - self.done)
        names = " and ".join(f"level {level} processor {color}" for level, color in units)
        print(f"[{bar}] {self.done}/{self.total} games, {names}: {outcome}; {elapsed:,.0f} s elapsed, "
              f"ETA {eta:,.0f} s", file=sys.stderr, flush=True)

    def interrupted(self):
        write_tables(self.games, self.failures, quiet=True, **self.tables)
        print(f"tournament interrupted after {len(self.games) + len(self.failures) - len(self.kept)} of {self.total} "
              f"games; the finished ones are in {Path(self.tables['out_dir']) / 'tournament.md'} and games.json",
              file=sys.stderr)

    def finish(self):
        return write_tables(self.games, self.failures, **self.tables)


def run_tournament(budget, levels, sim, jobs, out_dir, mode="processor", resume=False, cluster=None, contexts=1,
                   solve_empties=0, evaluator="seed"):
    """Play every level x colour in ``jobs`` worker processes, or as the tasks of the Dask
    scheduler at ``cluster``. The tables are rewritten after every game, so an interrupted or
    crashed tournament keeps every game it finished; ``resume`` keeps the games already in
    ``out_dir`` and plays the others. Raises gamechip.processes.ClusterError when the cluster
    cannot be reached. ``contexts``: the processor's search contexts (1 or 2); ``solve_empties``: the
    golden processor's endgame solve; ``evaluator``: the processor's leaf evaluator, seed or pattern."""
    kept = finished_games(out_dir) if resume else {}
    tasks = [(level, color) for level in levels for color in COLORS if (level, color) not in kept]
    pool = _ClusterGames(cluster) if cluster else _LocalGames(max(1, min(jobs, len(tasks))))
    progress = TournamentProgress(len(tasks), kept, budget, sim, out_dir, mode, contexts)
    print(f"tournament: {len(tasks)} games{f' ({len(kept)} kept from the last run)' if kept else ''}, processor "
          f"budget {budget:,} clock cycles per move, {describe(sim, mode, contexts)}"
          f"{', the pattern evaluator' if evaluator == 'pattern' else ''}, {pool.where}; results in {out_dir}",
          file=sys.stderr, flush=True)
    try:
        futures = {pool.submit(level, color, budget, sim, mode, contexts, solve_empties, evaluator): (level, color)
                   for level, color in tasks}
        for future in pool.as_completed(futures):
            task = futures[future]
            try:
                game = future.result()
            except Exception as error:  # a mismatch or a crash: keep the others going
                progress.failed([task], error)
                continue
            progress.played([task], [game])
    except KeyboardInterrupt:
        pool.stop()
        progress.interrupted()
        raise
    finally:
        pool.close()
    return progress.finish()


def describe(sim, mode, contexts=1):
    if contexts != 1:
        return f"{describe(sim, mode)}, {contexts_text(contexts)}"
    if sim is None:
        return "golden processor model"
    if mode == "paired":   # gamechip/games/paired_games.py
        return (f"two games a simulation, one on each context of the search engine search_c2 simulated on {sim}, "
                f"the budget in each context's cycles of two clocks, every node checked")
    if mode == "engine":
        return (f"games by the golden processor, every search of every game on the search engine simulated on "
                f"{sim} with every node checked")
    return f"simulated on {sim}"


def solve_claims_line(games):
    """The tournament's check of its solves (golden.contest.games solve_claim): the games whose
    processor solved a win or a draw, the games whose result contradicts that (must be 0)."""
    claimed = [g for g in games if g.get("solve_claim")]
    contradicted = [g for g in claimed if claim_contradicted(g)]
    solved = [(ply.get("info") or {}).get("solved") for g in games for ply in g.get("plies", [])]
    text = (f"Endgame solves: {len(claimed)} of {len(games)} games with a solved win or draw "
            f"({sum(g['solve_claim']['claim'] == 'win' for g in claimed)} wins, "
            f"{sum(g['solve_claim']['claim'] == 'draw' for g in claimed)} draws), "
            f"{len(contradicted)} contradicted by the result; {solved.count('exact') + solved.count('wld')} "
            f"processor moves played from a solve ({solved.count('exact')} exact, {solved.count('wld')} WLD)")
    return text + "".join(f"; CONTRADICTED: level {g['level']}, processor {g['processor_color']}, "
                          f"{g['solve_claim']['claim']} solved at ply {g['solve_claim']['ply'] + 1} "
                          f"({g['solve_claim']['move']}), result {g['processor_discs']}-{g['reference_discs']}"
                          for g in contradicted)


def write_tables(games, failures, budget, sim, out_dir, quiet=False, mode="processor", contexts=1):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_key = {(g["level"], g["processor_color"]): g for g in games}
    levels = sorted({g["level"] for g in games} | {f["level"] for f in failures})

    def cell(level, color):
        game = by_key.get((level, color))
        if game is None:
            failed = any(f["level"] == level and f["processor_color"] == color for f in failures)
            return "failed" if failed else "not played", "", ""
        mark = " *" if game["reason"] != "end of game" else ""
        return (f"{game['processor_discs']}-{game['reference_discs']}{mark}",
                "{}+{}".format(*game["processor_moves"]), "{}+{}".format(*game["reference_moves"]))

    header = ("| level | HW black: score HW-SW | HW moves | SW moves | SW black: score HW-SW "
              "| HW moves | SW moves |")
    patterned = any(g.get("evaluator") == "pattern" for g in games)   # golden_game's record of the evaluator
    lines = [f"# Processor vs reference software, budget {budget:,} clock cycles per move "
             f"({describe(sim, mode, contexts)}{', the pattern evaluator' if patterned else ''})", "",
             "Moves are moves+passes of each side. HW = the processor, SW = the reference player.", "",
             header, "|---|---|---|---|---|---|---|"]
    rows = []
    for level in levels:
        black, white = cell(level, "black"), cell(level, "white")
        lines.append(f"| {level} | {' | '.join(black)} | {' | '.join(white)} |")
        rows.append([level, *black, *white])
    notes = [g for g in games if g["reason"] != "end of game"]
    if notes:
        lines += ["", *(f"* level {g['level']}, processor {g['processor_color']}: {g['reason']} "
                        f"({g['detail']})" for g in notes)]
    if failures:
        lines += ["", "Failed games:", *(f"- level {f['level']}, processor {f['processor_color']}: "
                                          f"{f['error'].splitlines()[0] if f['error'] else ''}" for f in failures)]
    hosts = sorted({g["host"] for g in games if g.get("host")})
    digests = sorted({g["rtl_digest"] for g in games if g.get("rtl_digest")})
    if hosts:
        lines += ["", f"Played on {', '.join(hosts)}; RTL digest {', '.join(digests)}"
                  + (" (games of different RTL versions: compare with care)" if len(digests) > 1 else "")]
    depths = [g["mean_depth"] for g in games if g["mean_depth"] is not None]
    if depths:
        lines += ["", f"Mean search depth of the processor: {sum(depths) / len(depths):.2f}"]
    lines += ["", solve_claims_line(games)]
    for game in games:   # each game's GGF record, written once
        ggf = out_dir / "games" / f"level{game['level']}-processor-{game['processor_color']}.ggf"
        if "plies" in game and not ggf.exists():
            ggf.parent.mkdir(exist_ok=True)
            ggf.write_text(game_ggf(game, "gamechip tournament") + "\n")
    markdown = out_dir / "tournament.md"
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(["level", "hw_black_score", "hw_black_hw_moves", "hw_black_sw_moves",
                     "sw_black_score", "sw_black_hw_moves", "sw_black_sw_moves"])
    writer.writerows(rows)
    # each file whole or not at all: an interrupt never leaves half a table
    for path, text in ((markdown, "\n".join(lines) + "\n"), (out_dir / "tournament.csv", table.getvalue()),
                       (out_dir / "games.json", json.dumps(games + failures, indent=1))):
        path.with_name(path.name + ".tmp").write_text(text)
        os.replace(path.with_name(path.name + ".tmp"), path)
    if not quiet:
        print("\n".join(lines))
        print(f"\ntables: {markdown}, {out_dir / 'tournament.csv'}; games: {out_dir / 'games.json'}")
    return 1 if failures or any(claim_contradicted(g) for g in games) else 0


if __name__ == "__main__":
    _play_one(*sys.argv[1:])
