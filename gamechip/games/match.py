"""``gamechip match``: NBoard engines against each other, as cutechess-cli and fastchess do for
chess engines (docs/nboard.md).

Every pair of engines plays every opening twice, once with each colour (``games`` cuts that
short); each game runs two fresh engine processes, told the game so far with ``set game`` before
each ``go``, in ``jobs`` games at once. A game's record is written when it ends
(``DIR/<black>-vs-<white>-opening<N>.ggf``, GGF), the results after every game
(``DIR/results.json``, whole or not at all), so a match stopped by Ctrl-C resumes from its
records. An engine that crashes, answers nothing within the move limit, or answers an illegal
move loses that game: the reason is the record's game comment (``GC``), the result
``+64:r``/``-64:r`` (the winner's sign, ``:r`` for a game lost by forfeit); the match goes on.

The results: per pair wins, losses and draws, the score, the Elo difference with its 95 %
interval (normal approximation over the games' scores), and with ``sprt`` the sequential
probability ratio test of the first pair (alpha = beta = 0.05, the normal approximation over the
games' scores and one more win and loss), which stops the match when it accepts one of its
hypotheses.
"""

import json
import math
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from golden.board import BoardError, parse_game_record, popcount
from golden.contest.balanced_openings import OPENINGS_FILE
from golden.contest.ggf import GgfError, GgfMove, apply_move, forfeit_result, format_ggf, parse_ggf, result_text
from golden.othello import game_over, legal_moves, play, pass_move
from golden.board import start_position

DEFAULT_DEPTH = 8
DEFAULT_MOVE_SECONDS = 60.0
START_SECONDS = 60.0   # an engine's start (nboard 2, set depth, ping) may take this long
QUIT_SECONDS = 0.5     # after quit, an engine still running is killed (with its process group)
SPRT_ALPHA = SPRT_BETA = 0.05
INTERVAL_TAIL = 0.025   # each tail of the two-sided 95 % interval of the Elo difference
EXIT_BROKEN_ENGINE = 3


class MatchError(Exception):
    """Bad match input (openings file) or an engine that does not start: one line."""


@dataclass(frozen=True)
class Engine:
    name: str
    command: str


class EngineFailed(Exception):
    """An engine crashed, timed out or answered garbage: ``reason`` says which."""


class EngineProcess:
    """One engine process for one game: lines to its stdin, its stdout read by a thread; its
    stderr goes to ``log``; ``environment``: variables added to this process's for it."""

    def __init__(self, engine, log_path, environment=None):
        self.engine = engine
        self.log_path = log_path
        self.log = open(log_path, "w")
        try:
            self.process = subprocess.Popen(shlex.split(engine.command), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1,
                                            start_new_session=True,
                                            env={**os.environ, **environment} if environment else None)
        except OSError as error:
            self.log.close()
            raise EngineFailed(f"{engine.name} did not start: {error}")
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailed(self.crash_text())

    def expect(self, prefix, seconds, doing):
        """The first line starting with ``prefix`` within ``seconds``; EngineFailed otherwise."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineFailed(f"{self.engine.name} answered nothing to {doing} within {seconds:g} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EngineFailed(self.crash_text())
            if line.startswith(prefix):
                return line

    def crash_text(self):
        try:
            status = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            status = None
        self.log.flush()
        tail = [line for line in Path(self.log_path).read_text(errors="replace").splitlines() if line.strip()]
        said = f"; its last words: {tail[-1][:200]}" if tail else ""
        how = f"exit status {status}" if status is not None and status >= 0 else \
            f"signal {-status}" if status is not None else "closed its output"
        return f"{self.engine.name} crashed ({how}){said}"

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=QUIT_SECONDS)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self.log.close()


def read_openings(path=None):
    """The openings of ``path`` (default: the shipped balanced set): [(number, squares)];
    MatchError for a line that is not a legal opening."""
    path = Path(path) if path else OPENINGS_FILE
    try:
        text = path.read_text()
    except OSError as error:
        raise MatchError(f"cannot read the openings {path}: {error.strerror or error}")
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        moves_text = line.split("#", 1)[0].strip()
        if not moves_text:
            continue
        try:
            squares = parse_game_record(moves_text)
            position = start_position()
            for square in squares:
                position = apply_move(position, square)
        except (BoardError, GgfError) as error:
            raise MatchError(f"{path}:{number}: not an opening: {error}")
        openings.append((len(openings) + 1, squares))
    if not openings:
        raise MatchError(f"{path}: no opening in it (one line of moves each, such as f5d6c3)")
    return openings


def play_one(black, white, opening, limits, log_dir, running):
    """One game of ``black`` against ``white`` (Engines) from ``opening`` (squares): its record
    as a dict (ggf, winner 'black'/'white'/None, reason, discs)."""
    depth, budget, move_seconds = limits
    position, moves = start_position(), []
    for square in opening:
        moves.append(GgfMove(position.side, square))
        position = play(position, square)
    processes, failure = {}, None
    try:
        for color, engine in (("X", black), ("O", white)):
            try:
                process = EngineProcess(engine, log_dir / f"{black.name}-vs-{white.name}-{engine.name}.log")
            except EngineFailed as error:
                failure = (color, str(error))
                break
            processes[color] = process
            running.add(process)
            try:
                process.send("nboard 2")
                process.send(f"set depth {depth}")
                if budget is not None:
                    process.send(f"set budget {budget}")
                process.send("ping 1")
                process.expect("pong", START_SECONDS, "nboard 2 and ping 1")
            except EngineFailed as error:
                failure = (color, str(error))
                break
        while failure is None and not game_over(position):
            if not legal_moves(position.own, position.opp):
                moves.append(GgfMove(position.side, None))
                position = pass_move(position)
                continue
            process = processes[position.side]
            started = time.monotonic()
            try:
                process.send(f"set game {format_ggf(moves, black.name, white.name)}")
                process.send("go")
                line = process.expect("===", move_seconds, f"go (move {len(moves) + 1})")
            except EngineFailed as error:
                failure = (position.side, str(error))
                break
            seconds = time.monotonic() - started
            answer, mover = line[3:].strip(), position.side
            square_text, _, rest = answer.partition("/")
            evaluation = rest.partition("/")[0]
            try:
                square = None if square_text.upper() in ("PA", "PASS") else parse_game_record(square_text)[0]
                position = apply_move(position, square)
            except (BoardError, GgfError, IndexError) as error:
                failure = (position.side, f"{process.engine.name} answered an illegal move {answer!r}: {error}")
                break
            try:
                value = float(evaluation) if evaluation.strip() else None
            except ValueError:
                value = None
            moves.append(GgfMove(mover, square, value, round(seconds, 3)))
    finally:
        for process in processes.values():
            running.discard(process)
            process.close()
    return game_record(black, white, moves, position, failure)


def game_record(black, white, moves, position, failure):
    black_discs, white_discs = popcount(position.black), popcount(position.white)
    if failure:
        loser, reason = failure
        winner = "white" if loser == "X" else "black"
        result = forfeit_result("X" if winner == "black" else "O")
    else:
        reason = "end of game"
        winner = "black" if black_discs > white_discs else "white" if white_discs > black_discs else None
        result = result_text(black_discs, white_discs)
    ggf = format_ggf(moves, black.name, white.name, result=result, comment=reason,
                     date=time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    return {"black": black.name, "white": white.name, "winner": winner, "reason": reason,
            "black_discs": black_discs, "white_discs": white_discs, "result": result, "ggf": ggf}


def record_of(path):
    """A finished game read back from its GGF record (the match resumes from these)."""
    game = parse_ggf(path.read_text())
    result = game.tags.get("RE", "")
    score = result.split(":")[0]
    try:
        difference = float(score)
    except ValueError:
        raise MatchError(f"{path}: RE[{result}] is no result")
    final = game.final
    return {"black": game.black_name, "white": game.white_name,
            "winner": "black" if difference > 0 else "white" if difference < 0 else None,
            "reason": game.tags.get("GC", "end of game"), "black_discs": popcount(final.black),
            "white_discs": popcount(final.white), "result": result, "ggf": path.read_text().strip()}


def schedule(engines, openings, games):
    """[(game file stem, black, white, opening number, squares)] in play order: each pair, each
    opening with both colours, at most ``games`` a pair."""
    tasks = []
    for i, first in enumerate(engines):
        for second in engines[i + 1:]:
            pair = []
            for number, squares in openings:
                for black, white in ((first, second), (second, first)):
                    pair.append((f"{black.name}-vs-{white.name}-opening{number:03d}", black, white, number, squares))
            tasks += pair[:games] if games else pair
    return tasks


def elo(score):
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def pair_stats(records, first, second):
    """Wins, losses, draws of ``first`` against ``second``, its score, Elo and 95 % interval,
    and the games' per-game score variance."""
    scores = []
    for record in records:
        names = {record["black"], record["white"]}
        if names != {first, second}:
            continue
        winner = record["winner"] and record[record["winner"]]
        scores.append(1.0 if winner == first else 0.0 if winner == second else 0.5)
    count = len(scores)
    wins, losses = scores.count(1.0), scores.count(0.0)
    stats = {"first": first, "second": second, "games": count, "wins": wins, "losses": losses,
             "draws": count - wins - losses}
    if not count:
        return stats
    mean = sum(scores) / count
    variance = sum((s - mean) ** 2 for s in scores) / count
    margin = 1.96 * math.sqrt(variance / count)
    stats.update(score=round(mean, 4), variance=variance, elo=elo(mean),
                 elo_low=elo(max(0.0, mean - margin)), elo_high=elo(min(1.0, mean + margin)))
    if wins == count or losses == count:
        # every game won (lost): no spread, no finite estimate; the exact binomial (Clopper-Pearson)
        # 95 % interval of the score instead, [0.025^(1/n), 1] for n games of n won
        bound = elo(INTERVAL_TAIL ** (1 / count))
        if wins == count:
            stats.update(elo_low=bound, elo_high=math.inf)
        else:
            stats.update(elo_low=-math.inf, elo_high=-bound)
    return stats


def sprt(stats, elo0, elo1):
    """(log-likelihood ratio, lower bound, upper bound, verdict or None) of the normal
    approximation: H0 elo0 against H1 elo1 for the first engine of ``stats``."""
    lower, upper = math.log(SPRT_BETA / (1 - SPRT_ALPHA)), math.log((1 - SPRT_BETA) / SPRT_ALPHA)
    games = stats.get("games", 0)
    if not games:
        return 0.0, lower, upper, None
    # the games' scores and one more win and loss: a prior that keeps a short run of equal results
    # (no spread at all) from deciding at once
    total = stats["score"] * games + 1
    squares = stats["variance"] * games + games * stats["score"] ** 2 + 1   # sum of the scores' squares
    games += 2
    score = total / games
    variance = squares / games - score ** 2
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    llr = games * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)
    verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else None
    return llr, lower, upper, verdict


def elo_text(value):
    return "+inf" if value == math.inf else "-inf" if value == -math.inf else f"{round(value) + 0:+d}"


def elo_summary(stats):
    """The Elo difference of ``stats`` (pair_stats) as a reader takes it: ``+191 (95 % interval
    -126 .. +inf)``; a pair with every game won or lost has no finite estimate, so its 95 % bound
    is given instead: ``> -72 (all 4 games won: no finite estimate; 95 % lower bound)``."""
    games = stats["games"]
    if stats["wins"] == games:
        return f"> {elo_text(stats['elo_low'])} (all {games} games won: no finite estimate; 95 % lower bound)"
    if stats["losses"] == games:
        return f"< {elo_text(stats['elo_high'])} (all {games} games lost: no finite estimate; 95 % upper bound)"
    return f"{elo_text(stats['elo'])} (95 % interval {elo_text(stats['elo_low'])} .. {elo_text(stats['elo_high'])})"


def table(records, engines, sprt_bounds=None):
    lines = []
    for i, first in enumerate(engines):
        for second in engines[i + 1:]:
            stats = pair_stats(records, first.name, second.name)
            if not stats["games"]:
                continue
            lines.append(f"Score of {first.name} vs {second.name}: {stats['wins']} - {stats['losses']} - "
                         f"{stats['draws']}  [{stats['score']:.3f}] {stats['games']}")
            lines.append(f"Elo difference: {elo_summary(stats)}")
            if sprt_bounds and i == 0 and second is engines[1]:
                llr, lower, upper, verdict = sprt(stats, *sprt_bounds)
                lines.append(f"SPRT ({sprt_bounds[0]:g}, {sprt_bounds[1]:g}): LLR {llr:.2f} ({lower:.2f}, {upper:.2f})"
                             f"{': ' + verdict if verdict else ''}")
    return lines


def write_results(out, records, engines, settings, sprt_bounds):
    pairs = [pair_stats(records, a.name, b.name) for i, a in enumerate(engines) for b in engines[i + 1:]]
    for stats in pairs:
        for key in ("elo", "elo_low", "elo_high"):
            if key in stats and math.isinf(stats[key]):
                stats[key] = elo_text(stats[key])
    data = {"settings": settings, "pairs": pairs, "games": [{k: v for k, v in r.items() if k != "ggf"} | {
        "record": r["file"]} for r in records]}
    if sprt_bounds and pairs:
        llr, lower, upper, verdict = sprt(pair_stats(records, engines[0].name, engines[1].name), *sprt_bounds)
        data["sprt"] = {"elo0": sprt_bounds[0], "elo1": sprt_bounds[1], "llr": round(llr, 4),
                        "bounds": [round(lower, 4), round(upper, 4)], "verdict": verdict}
    path = out / "results.json"
    path.with_name("results.json.tmp").write_text(json.dumps(data, indent=1))
    os.replace(path.with_name("results.json.tmp"), path)


def probe(engine, log_dir):
    """Start ``engine`` once and ask it ``ping``: MatchError with the reason when it does not
    answer (a match of an engine that cannot start would only forfeit)."""
    try:
        process = EngineProcess(engine, log_dir / f"probe-{engine.name}.log")
    except EngineFailed as error:
        raise MatchError(str(error))
    try:
        process.send("nboard 2")
        process.send("ping 1")
        process.expect("pong", START_SECONDS, "nboard 2 and ping 1")
    except EngineFailed as error:
        raise MatchError(f"{error} (command: {engine.command})")
    finally:
        process.close()


def match_settings(engines, depth, budget):
    """What makes two matches the same match (a folder resumes only its own): the engines and
    what they are told; the time limit, which they are not told, may change."""
    return {"engines": {e.name: e.command for e in engines}, "depth": depth or DEFAULT_DEPTH, "budget": budget}


def check_resume(out, settings):
    """MatchError when ``out`` holds the results of a match with other engines or limits."""
    path = Path(out) / "results.json"
    if not path.exists():
        return
    try:
        earlier = json.loads(path.read_text())["settings"]
    except (ValueError, KeyError, TypeError):
        raise MatchError(f"{path} is no match's results: give another --out")
    differs = [key for key in settings if earlier.get(key) != settings[key]]
    if differs:
        raise MatchError(f"{out} holds a match with other {', '.join(differs)}: resume it with the same settings, "
                         f"or give another --out")


def run_match(engines, openings, out, games=None, jobs=1, depth=None, budget=None, move_seconds=None,
              sprt_bounds=None):
    """Play the match into ``out``; the exit status (0, or 3 when an engine does not start)."""
    out = Path(out)
    (out / "logs").mkdir(parents=True, exist_ok=True)
    try:
        for engine in engines:
            probe(engine, out / "logs")
    except MatchError as error:
        print(f"gamechip match: {error}", file=sys.stderr)
        return EXIT_BROKEN_ENGINE
    limits = (depth or DEFAULT_DEPTH, budget, move_seconds or DEFAULT_MOVE_SECONDS)
    settings = {**match_settings(engines, depth, budget), "move_seconds": limits[2], "openings": len(openings),
                "jobs": jobs}
    tasks = schedule(engines, openings, games)
    records, todo = [], []
    for stem, black, white, number, squares in tasks:
        path = out / f"{stem}.ggf"
        if path.exists():
            records.append(dict(record_of(path), file=path.name, opening=number))
        else:
            todo.append((stem, black, white, number, squares))
    print(f"match: {len(tasks)} games ({len(records)} kept from the records in {out}), {len(engines)} engines, "
          f"{jobs} at once, depth {limits[0]}{f', budget {budget:,}' if budget is not None else ''}, "
          f"{limits[2]:g} s a move at most", file=sys.stderr, flush=True)
    running = set()
    stop = threading.Event()
    pool = ThreadPoolExecutor(max(1, jobs))
    started = time.monotonic()

    def play_task(task):
        if stop.is_set():
            return None
        stem, black, white, number, squares = task
        record = play_one(black, white, squares, limits, out / "logs", running)
        if stop.is_set():
            return None
        path = out / f"{stem}.ggf"
        path.with_name(path.name + ".tmp").write_text(record.pop("ggf") + "\n")
        os.replace(path.with_name(path.name + ".tmp"), path)
        return dict(record, file=path.name, opening=number)

    futures = {pool.submit(play_task, task): task for task in todo}
    done_count = 0
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                record = future.result()
                if record is None:
                    continue
                records.append(record)
                done_count += 1
                write_results(out, records, engines, settings, sprt_bounds)
                winner = record["winner"] and record[record["winner"]]
                print(f"[{done_count}/{len(todo)}] {record['black']} - {record['white']}, opening "
                      f"{record['opening']}: {record['black_discs']}-{record['white_discs']}, "
                      f"{winner + ' wins' if winner else 'draw'}"
                      f"{'' if record['reason'] == 'end of game' else ' (' + record['reason'] + ')'}; "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
                if sprt_bounds:
                    verdict = sprt_verdict(records, engines, sprt_bounds)
                    if verdict:
                        print(f"match: SPRT {verdict}: the match stops", file=sys.stderr, flush=True)
                        stop.set()
                        for other in pending:
                            other.cancel()
    except KeyboardInterrupt:
        stop.set()
        for future in futures:
            future.cancel()
        for process in list(running):
            process.close()
        pool.shutdown(wait=True, cancel_futures=True)
        write_results(out, records, engines, settings, sprt_bounds)
        print(f"match interrupted: {len(records)} games kept in {out}; run the same command with --out {out} to "
              f"resume", file=sys.stderr)
        raise
    pool.shutdown(wait=True)
    write_results(out, sorted(records, key=lambda r: r["file"]), engines, settings, sprt_bounds)
    print("\n".join(table(records, engines, sprt_bounds)))
    print(f"records: {out}/*.ggf; results: {out / 'results.json'}")
    return 0


def sprt_verdict(records, engines, bounds):
    return sprt(pair_stats(records, engines[0].name, engines[1].name), *bounds)[3]
