"""``gamechip tournament --games-per-engine 2``: the tournament's games two at a time on one
simulation of the engine with two interleaved contexts (``search_c2``), one game on each context.

Each game's host side (the referee, the reference player, the processor's opening book, passes and
game history: golden.processor.GoldenProcessor but its search) runs in Python; every search the
golden processor would run goes to the game's context of the engine, every node checked against
the game's own golden search, and the engine's answer is the move played, which must be the golden
processor's (tb/sim/paired_games.py). The games are paired in the tournament's order (level 1 black
and white, then level 2, ...; an odd one out plays alone), each pair one simulation in a
subprocess of its own, ``jobs`` pairs at once, each in a build slot of its own. The games are the
dicts every tournament records, so the tables are the same, and so are the games: the golden
tournament's, game for game.

The budget is the processor's: N cycles a move of its engine. On ``search_c2`` a context's cycle is
two clocks, so each game gets N cycles of its own context a move (2N clocks), the same searches
as the one-context engine's N clocks.
"""

import json
import queue
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from gamechip.games.play import COLORS, TournamentProgress, finished_games
from gamechip.processes import clear_stop, run_killable, stop_all

PAIRED = "paired"   # the tournament mode (gamechip.games.play.describe, write_tables)
GAMES_PER_ENGINE_CHOICES = (1, 2)   # one game a simulation, or one on each context of search_c2


def check_games_per_engine(value, sim=None, contexts=1, mode="processor", cluster=None):
    """``--games-per-engine`` as a number, 1 or 2; ValueError with one line for any other value,
    or when 2 is given without --sim, with --contexts 2, --mode engine or --cluster."""
    try:
        games = int(value)
    except (TypeError, ValueError):
        games = None
    if games not in GAMES_PER_ENGINE_CHOICES:
        raise ValueError(f"--games-per-engine is 1 (one game a simulation) or 2 (two games on the two contexts of "
                         f"search_c2), got '{value}'")
    if games == 2:
        if not sim:
            raise ValueError("--games-per-engine 2 needs --sim: it plays the games on the simulated engine")
        if contexts != 1:
            raise ValueError("--games-per-engine 2 plays the one-context processor's games, a context each: "
                             "use --contexts 1")
        if mode != "processor":
            raise ValueError("--games-per-engine 2 plays the games on the engine itself: leave out --mode engine")
        if cluster:
            raise ValueError("--games-per-engine 2 plays on this machine: leave out --cluster")
    return games


def play_pair_killable(pair, budget, sim, slots, token):
    """One pair in a subprocess (``python -m gamechip.games.paired_games``) in a build slot of this
    tournament (from the queue ``slots``), killed with its simulator by gamechip.processes.stop_all;
    its game dicts, or RuntimeError with the reason."""
    slot = slots.get()
    try:
        with tempfile.TemporaryDirectory(prefix="gamechip-pair-") as work:
            result, log_path = Path(work) / "pair.json", Path(work) / "pair.log"
            spec = {"games": pair, "budget": budget, "sim": sim, "tag": f"tournament-s{slot}"}
            with open(log_path, "wb") as log:
                returncode, _, interrupted = run_killable(
                    [sys.executable, "-m", "gamechip.games.paired_games", json.dumps(spec), str(result)], token, None,
                    log)
            if interrupted:
                raise RuntimeError("stopped: the tournament was interrupted")
            record = json.loads(result.read_text()) if result.exists() else None
            if record is None:
                tail = log_path.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the paired games' process exited with status {returncode} and no result: {tail}")
    finally:
        slots.put(slot)
    if "error" in record:
        raise RuntimeError(record["error"])
    return [dict(game, pair_clocks=record["clocks"]) for game in record["games"]]


def run_paired_tournament(budget, levels, sim, jobs, out_dir, resume=False):
    """Every level x colour, two games a simulation of ``search_c2`` on ``sim``, ``jobs``
    simulations at once; the tables as gamechip.games.play.run_tournament writes them, rewritten after
    every pair (``resume`` keeps the games already in ``out_dir``). The exit status: 0, or 1
    when a game failed."""
    from tb.host.paired_games import pair_up

    kept = finished_games(out_dir) if resume else {}
    tasks = [(level, color) for level in levels for color in COLORS if (level, color) not in kept]
    pairs = pair_up(tasks)
    workers = max(1, min(jobs, len(pairs)))
    slots = queue.Queue()
    for slot in range(workers):
        slots.put(slot)
    progress = TournamentProgress(len(tasks), kept, budget, sim, out_dir, mode=PAIRED)
    print(f"tournament: {len(tasks)} games{f' ({len(kept)} kept from the last run)' if kept else ''} in "
          f"{len(pairs)} simulations of two games, processor budget {budget:,} cycles per move (each game's "
          f"context's cycles), on {sim}, {workers} at once; results in {out_dir}", file=sys.stderr, flush=True)
    pool = ThreadPoolExecutor(workers)
    try:
        futures = {pool.submit(play_pair_killable, pair, budget, sim, slots, "paired"): pair for pair in pairs}
        for future in as_completed(futures):
            pair = futures[future]
            try:
                played = future.result()
            except Exception as error:  # a mismatch or a crash: both games of the pair failed; the others go on
                progress.failed(pair, error)
                continue
            progress.played(pair, played)
    except KeyboardInterrupt:
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        progress.interrupted()
        raise
    finally:
        pool.shutdown()
        clear_stop()
    return progress.finish()


def play_pair_main(spec_json, result_path):
    """``python -m gamechip.games.paired_games PAIR_JSON RESULT``: the pair of play_pair_killable, its games
    and clocks (or the reason it failed) as JSON in RESULT."""
    from gamechip.processes import die_with_parent
    from tb.host.paired_games import play_pair

    die_with_parent()
    spec = json.loads(spec_json)
    try:
        games, clocks = play_pair(spec["sim"], [tuple(game) for game in spec["games"]], spec["budget"], tag=spec["tag"])
        record = {"games": games, "clocks": clocks}
    except Exception as error:  # a mismatch or a crash: the reason goes back to the tournament
        record = {"error": str(error) or repr(error)}
    Path(result_path).write_text(json.dumps(record))


if __name__ == "__main__":
    play_pair_main(*sys.argv[1:])
