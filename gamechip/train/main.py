"""``python -m gamechip.train`` (``make train-eval``): play the self-play corpus (or reuse the one
already at ``--corpus`` when it was made with the same settings), fit the pattern weights per
stage, print the error per stage on the held-back games, and write the weight file with the
command, seed and corpus digest in its header.

Exit status: 0 done; 1 a worker or the fit failed; 2 bad input (one line); 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from gamechip.cli.arguments import positive
from golden.patterns import DEFAULT_WEIGHT_FILE, PatternWeights, format_weights

DEFAULT_GAMES = 6000
DEFAULT_SEED = 1
DEFAULT_DEPTH = 4
DEFAULT_SOLVE_EMPTIES = 12
DEFAULT_STAGE_LIMITS = (23, 43)
DEFAULT_DAMPS = (2.0, 4.0, 8.0, 16.0, 32.0)
DEFAULT_BOOTSTRAP = 0      # discs a bootstrap bin (gamechip.train.fit.bootstrap_labels); 0: the games' results
DEFAULT_BLEND = 1.0        # the share of the next bin's value in a bootstrapped label (the rest: the result)
DEFAULT_BOOTSTRAP_DAMP = 4.0
TEST_EVERY = 10            # games numbered 9 mod 10 are held back: the test set; 8 mod 10 validate the damping
DEFAULT_CORPUS = "runs/train-eval/corpus.txt"


class UsageError(Exception):
    pass


def stage_limits(text):
    try:
        limits = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected disc counts separated by commas, e.g. 23,43; got {text!r}")
    if list(limits) != sorted(set(limits)) or not all(4 <= x < 64 for x in limits):
        raise argparse.ArgumentTypeError(f"stage limits must be increasing disc counts 4..63, got {text!r}")
    return limits


def damps(text):
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, e.g. 1,2,4; got {text!r}")
    if not all(v >= 0 for v in values):
        raise argparse.ArgumentTypeError(f"dampings must be 0 or more, got {text!r}")
    return values


def parser():
    p = argparse.ArgumentParser(prog="python -m gamechip.train",
                                description="Self-play corpus, least-squares fit and weight file of the pattern "
                                            "evaluator (docs/pattern-evaluator.md).")
    p.add_argument("--games", type=positive, default=DEFAULT_GAMES,
                   help=f"self-play games in the corpus (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the corpus seed (default {DEFAULT_SEED})")
    p.add_argument("--depth", type=positive, default=DEFAULT_DEPTH,
                   help=f"golden search depth of the self-play moves, 1..16 (default {DEFAULT_DEPTH})")
    p.add_argument("--solve-empties", type=positive, default=DEFAULT_SOLVE_EMPTIES,
                   help=f"perfect play (exact solves) from this many empty squares, 1..20 "
                        f"(default {DEFAULT_SOLVE_EMPTIES})")
    p.add_argument("--jobs", type=positive, help="self-play processes at once (default: one per core)")
    p.add_argument("--corpus", default=DEFAULT_CORPUS,
                   help=f"the corpus file, reused when it was made with the same settings (default {DEFAULT_CORPUS})")
    p.add_argument("--weights", default=str(DEFAULT_WEIGHT_FILE.relative_to(Path.cwd()))
                   if DEFAULT_WEIGHT_FILE.is_relative_to(Path.cwd()) else str(DEFAULT_WEIGHT_FILE),
                   help="the weight file to write (default golden/pattern_weights.txt)")
    p.add_argument("--stage-limits", type=stage_limits, default=DEFAULT_STAGE_LIMITS,
                   help=f"the largest disc count of every stage but the last (default "
                        f"{','.join(map(str, DEFAULT_STAGE_LIMITS))}: three stages)")
    p.add_argument("--damps", type=damps, default=DEFAULT_DAMPS,
                   help=f"LSQR's Tikhonov dampings to try; with more than one, each stage keeps the one with the "
                        f"least error on the validation games (default {','.join(map(str, DEFAULT_DAMPS))})")
    p.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, metavar="DISCS",
                   help="label each position by the fitted value of its game's position DISCS discs later, bins "
                        "of DISCS disc counts fitted from the end of the game (0: the game's result; default "
                        f"{DEFAULT_BOOTSTRAP})")
    p.add_argument("--blend", type=float, default=DEFAULT_BLEND,
                   help="with --bootstrap, the share of the later position's value in a label, 0..1, the rest "
                        f"the game's result (default {DEFAULT_BLEND:g})")
    p.add_argument("--bootstrap-damp", type=float, default=DEFAULT_BOOTSTRAP_DAMP,
                   help=f"LSQR's damping of the bootstrap bins' fits (default {DEFAULT_BOOTSTRAP_DAMP:g})")
    return p


def say(text):
    print(f"train-eval: {text}", file=sys.stderr, flush=True)


def build(args):
    from gamechip.train.corpus import HEADER_PREFIX, CorpusError, CorpusSettings, file_digest, game_lines, \
        game_positions, play_corpus, read_corpus
    from gamechip.train.fit import PatternSystem, bootstrap_labels, fit_weights

    if not 1 <= args.depth <= 16:
        raise UsageError(f"--depth must be 1..16, got {args.depth}")
    if not 1 <= args.solve_empties <= 20:
        raise UsageError(f"--solve-empties must be 1..20, got {args.solve_empties}")
    if not 0 <= args.bootstrap <= 30 or not 0 <= args.blend <= 1 or args.bootstrap_damp < 0:
        raise UsageError(f"--bootstrap must be 0..30, --blend 0..1 and --bootstrap-damp 0 or more; got "
                         f"{args.bootstrap}, {args.blend:g}, {args.bootstrap_damp:g}")
    settings = CorpusSettings(args.seed, args.games, args.depth, args.solve_empties)
    corpus = Path(args.corpus)
    header = corpus.read_text().split("\n", 1)[0] if corpus.is_file() else ""
    reuse = header == settings.header()
    played = None
    if not reuse and header.startswith(HEADER_PREFIX):
        try:
            old, _ = read_corpus(corpus)
        except CorpusError:
            old = None
        if old and (old.seed, old.depth, old.solve_empties) == (args.seed, args.depth, args.solve_empties) \
                and old.games < args.games:
            played = game_lines(corpus)
            say(f"extending the corpus {corpus}: its {old.games} games are this corpus's first")
    if reuse:
        say(f"reusing the corpus {corpus} ({settings.header()[2:]})")
        cpu = None
    else:
        from tb.checks.search import golden_python

        jobs = args.jobs or os.cpu_count() or 1
        corpus.parent.mkdir(parents=True, exist_ok=True)
        already = len(played or {})
        say(f"playing {args.games - already} games into {corpus} with {jobs} processes ({golden_python()})")
        started = time.monotonic()

        def progress(done, total):
            if done % 25 == 0 or done == total:
                elapsed = time.monotonic() - started
                rate = (done - already) / max(elapsed, 1e-9)
                say(f"{done}/{total} games, {elapsed:.0f} s, about {(total - done) / max(rate, 1e-9):.0f} s left")

        cpu = play_corpus(settings, corpus, jobs, golden_python(), progress, played)
        say(f"corpus played: {cpu:.0f} CPU seconds, {time.monotonic() - started:.0f} s")
    _, games = read_corpus(corpus)
    digest = file_digest(corpus)
    own, opp, labels, stages, train, validation = [], [], [], [], [], []
    exacts, discs, numbers, white = [], [], [], []
    weights_for_stage = PatternWeights(args.stage_limits, ())
    exact = 0
    for game, _, solve_ply, score, moves in games:
        for position in game_positions(game, solve_ply, score, moves):
            own.append(position.own)
            opp.append(position.opp)
            labels.append(position.label)
            discs.append(bin(position.own | position.opp).count("1"))
            stages.append(weights_for_stage.stage(discs[-1]))
            exacts.append(position.exact)
            numbers.append(game)
            white.append(position.white_to_move)
            train.append(game % TEST_EVERY != TEST_EVERY - 1)
            validation.append(game % TEST_EVERY == TEST_EVERY - 2)
            exact += position.exact
    say(f"{len(games)} games, {len(own)} positions ({exact} with exact labels), corpus sha256 {digest[:16]}")
    system = PatternSystem(own, opp)
    results = labels
    if args.bootstrap:
        labels = bootstrap_labels(system, results, exacts, discs, numbers, white, train, args.bootstrap, args.blend,
                                  args.bootstrap_damp, say)
    weights, fits = fit_weights(own, opp, labels, stages, train, args.stage_limits, args.damps, validation, say,
                                system, results)
    if len(args.damps) > 1:
        print("validation RMSE (discs) by damping: " + "; ".join(
            f"stage {fit.stage}: " + ", ".join(f"{d:g} {e:.3f}" for d, e in fit.validation_rmse.items())
            for fit in fits))
    print("stage  discs  damping  train positions  test positions  train RMSE  test RMSE  test RMSE of 0  "
          "LSQR iterations  test RMSE against results")
    low = 4
    for fit, high in zip(fits, list(args.stage_limits) + [64]):
        print(f"{fit.stage:5}  {low:2}-{high:<3} {fit.damp:7g} {fit.train_positions:16} {fit.test_positions:15} "
              f"{fit.train_rmse:11.2f} {fit.test_rmse:10.2f} {fit.test_rmse_zero:15.2f} {fit.lsqr_iterations:16} "
              f"{fit.test_rmse_results:26.2f}")
        low = high + 1
    command = ("python -m gamechip.train " + f"--games {args.games} --seed {args.seed} --depth {args.depth} "
               f"--solve-empties {args.solve_empties} --stage-limits {','.join(map(str, args.stage_limits))} "
               f"--damps {','.join(f'{d:g}' for d in args.damps)}"
               + (f" --bootstrap {args.bootstrap} --blend {args.blend:g} --bootstrap-damp {args.bootstrap_damp:g}"
                  if args.bootstrap else ""))
    if args.bootstrap:
        label_text = (f"labels: bootstrapped from the end of the game in bins of {args.bootstrap} discs: "
                      f"{args.blend:g} x the next bin's fitted value of the game's position {args.bootstrap} discs "
                      f"later + {1 - args.blend:g} x the game's final disc difference; exact (perfect play) from "
                      f"solve_empties on; the side to move's view")
    else:
        label_text = ("labels: final disc difference (plain) of the game, its end from solve_empties on by perfect "
                      "play; the side to move's view")
    provenance = (f"command: {command}",
                  f"corpus: sha256 {digest} ({settings.header()[2:]}; {len(own)} positions, {exact} exact)",
                  f"fit: LSQR per stage, damping per stage {' '.join(f'{fit.damp:g}' for fit in fits)} (chosen on "
                  f"the games numbered {TEST_EVERY - 2} mod {TEST_EVERY})",
                  f"test set: games numbered {TEST_EVERY - 1} mod {TEST_EVERY}, RMSE in discs per stage "
                  + " ".join(f"{fit.test_rmse:.2f}" for fit in fits)
                  + (" (against the labels; against the results " + " ".join(f"{fit.test_rmse_results:.2f}"
                                                                             for fit in fits) + ")"
                     if args.bootstrap else ""),
                  label_text)
    weights = PatternWeights(weights.stage_limits, weights.tables, provenance)
    Path(args.weights).write_text(format_weights(weights))
    say(f"wrote {args.weights}")
    return 0


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return build(args)
    except UsageError as error:
        print(f"python -m gamechip.train: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("python -m gamechip.train: interrupted", file=sys.stderr)
        return 130
    except Exception as error:   # a corpus that cannot be read, a worker that failed
        from gamechip.train.corpus import CorpusError

        if isinstance(error, CorpusError):
            print(f"python -m gamechip.train: {error}", file=sys.stderr)
            return 2
        raise
