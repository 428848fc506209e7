"""A first strength measurement of the pattern evaluator, golden side: the golden search with
the pattern evaluator against the same search with the seed's (fixed-weight) evaluator, at
equal depth or equal cycle budget, over the balanced openings (golden/contest/
openings_balanced.txt), each opening with both colours; won, lost, drawn, disc difference and
the Elo difference with its 95 % interval (gamechip/games/match.py's statistics).

``python -m gamechip.train.strength [--depth D | --budget CYCLES] [--jobs N] [--out FILE]``
runs the games on ``jobs`` worker processes of the golden interpreter (PyPy when installed);
each worker is ``python -m gamechip.train.strength --worker ...`` and prints one JSON line a
game. Exit status: 0 done, 1 a worker failed, 2 bad input (one line), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from gamechip.processes import output_lines
from golden.board import format_game_record, popcount, start_position
from golden.othello import legal_moves, pass_move, play
from golden.search import search_events

PATTERN, SEED = "pattern", "seed"
DEFAULT_DEPTH = 4


def play_game(opening, black, white, depth, budget, weights, opponent_weights=None):
    """One game from ``opening`` (squares), ``black`` and ``white`` each PATTERN or SEED; the
    record as a dict (moves after the opening, discs, winner's evaluator or None). With
    ``opponent_weights`` the SEED side is the pattern evaluator with those weights instead."""
    pos = start_position()
    for square in opening:
        pos = play(pos, square)
    moves = []
    while True:
        if not legal_moves(pos.own, pos.opp):
            if not legal_moves(pos.opp, pos.own):
                break
            pos = pass_move(pos)
            continue
        side = white if pos.white_to_move else black
        move = search_events(pos, depth, budget, pattern=weights if side == PATTERN else opponent_weights).best
        moves.append(move)
        pos = play(pos, move)
    black_discs, white_discs = popcount(pos.black), popcount(pos.white)
    return {"opening": format_game_record(opening), "black": black, "white": white,
            "moves": format_game_record(moves), "black_discs": black_discs, "white_discs": white_discs,
            "winner": "black" if black_discs > white_discs else "white" if white_discs > black_discs else None}


def tasks(openings):
    """(opening number, squares, black, white) of every game: each opening, both colours."""
    return [(number, squares, black, white) for number, squares in openings
            for black, white in ((PATTERN, SEED), (SEED, PATTERN))]


def worker(args):
    from gamechip.games.match import read_openings
    from golden.patterns import read_weights

    weights = read_weights(args.weights)
    opponent = read_weights(args.opponent_weights) if args.opponent_weights else None
    games = tasks(read_openings(args.openings))
    for number in range(args.first, len(games), args.step):
        opening_number, squares, black, white = games[number]
        record = play_game(squares, black, white, args.depth, args.budget, weights, opponent)
        record.update(game=number, opening_number=opening_number)
        print(json.dumps(record), flush=True)
    return 0


def summary(records):
    """The pattern side's won/lost/drawn, disc difference and Elo, from gamechip.games.match."""
    from gamechip.games.match import pair_stats

    stats = pair_stats(records, PATTERN, SEED)
    discs = sum((r["black_discs"] - r["white_discs"]) * (1 if r["black"] == PATTERN else -1) for r in records)
    stats["disc_difference"] = discs
    stats["disc_difference_per_game"] = round(discs / max(1, len(records)), 2)
    return stats


def run(args):
    from gamechip.games.match import MatchError, elo_text, read_openings
    from gamechip.processes import ROOT
    from golden.patterns import read_weights
    from tb.checks.search import golden_python

    try:
        read_openings(args.openings)
        read_weights(args.weights)
        if args.opponent_weights:
            read_weights(args.opponent_weights)
    except (MatchError, ValueError) as error:
        print(f"python -m gamechip.train.strength: {error}", file=sys.stderr)
        return 2
    total = len(tasks(read_openings(args.openings)))
    python = golden_python()
    limit = ["--depth", str(args.depth)] + (["--budget", str(args.budget)] if args.budget is not None else [])
    common = limit + (["--openings", args.openings] if args.openings else []) + \
        (["--weights", args.weights] if args.weights else []) + \
        (["--opponent-weights", args.opponent_weights] if args.opponent_weights else [])
    started = time.monotonic()
    workers = [subprocess.Popen([python, "-m", "gamechip.train.strength", "--worker", "--first", str(job),
                                 "--step", str(args.jobs)] + common, stdout=subprocess.PIPE, text=True, cwd=ROOT,
                                env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
               for job in range(min(args.jobs, total))]
    records = []
    for line in output_lines(workers):
        records.append(json.loads(line))
        stats = summary(records)
        print(f"strength: {len(records)}/{total} games, pattern {stats['wins']} won {stats['losses']} lost "
              f"{stats['draws']} drawn, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    if any(process.wait() for process in workers) or len(records) != total:
        print(f"python -m gamechip.train.strength: a worker failed ({len(records)} of {total} games)", file=sys.stderr)
        return 1
    records.sort(key=lambda r: r["game"])
    stats = summary(records)
    limits = f"depth {args.depth}" + (f", budget {args.budget} cycles" if args.budget is not None else "")
    opponent = f"the pattern evaluator with {args.opponent_weights}" if args.opponent_weights else "the seed's"
    print(f"pattern evaluator ({args.weights or 'golden/pattern_weights.txt'}) against {opponent}, golden search, "
          f"{limits}, {total} games "
          f"({total // 2} openings, both colours)")
    print(f"won {stats['wins']}, lost {stats['losses']}, drawn {stats['draws']}; score {stats['score']:.3f}; "
          f"disc difference {stats['disc_difference']:+d} ({stats['disc_difference_per_game']:+.2f} a game)")
    print(f"Elo difference {elo_text(stats['elo'])} (95 % interval {elo_text(stats['elo_low'])} .. "
          f"{elo_text(stats['elo_high'])})")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"settings": {"depth": args.depth, "budget": args.budget,
                                                           "openings": args.openings or "balanced",
                                                           "weights": args.weights or "golden/pattern_weights.txt",
                                                           "opponent": args.opponent_weights or "seed"},
                                              "summary": {k: (elo_text(v) if k.startswith("elo") else v)
                                                          for k, v in stats.items()},
                                              "games": records}, indent=1))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gamechip.train.strength",
                                     description="The golden search with the pattern evaluator against the seed's "
                                                 "evaluator over the balanced openings, both colours.")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"depth limit of both searches, 1..16 (default {DEFAULT_DEPTH})")
    parser.add_argument("--budget", type=int, help="cycle budget of both searches (default: none)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--openings", help="openings file (default: golden/contest/openings_balanced.txt)")
    parser.add_argument("--weights", help="pattern weight file (default: golden/pattern_weights.txt)")
    parser.add_argument("--opponent-weights", help="play the 'seed' side with the pattern evaluator and this weight "
                                                   "file instead of the seed's evaluator (default: the seed's)")
    parser.add_argument("--out", help="a JSON file for the settings, the summary and every game (default: none)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--step", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= 16 or args.jobs < 1 or (args.budget is not None and args.budget < 0):
        parser.error("--depth must be 1..16, --jobs 1 or more, --budget 0 or more")
    try:
        return worker(args) if args.worker else run(args)
    except KeyboardInterrupt:
        print("python -m gamechip.train.strength: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
