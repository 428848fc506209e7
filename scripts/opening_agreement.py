#!/usr/bin/env python3
"""How balanced opening files are by a referee judge (docs/nboard.md, "The opening set").

    python scripts/opening_agreement.py --referee "CMD" FILE [FILE ...]

The referee is an NBoard engine command, as ``gamechip openings --judge`` takes it (e.g. the Zebra
adapter at a level): each opening of each file is valued by the EVAL of the referee's ``go``
(from the side to move), and a line a file gives the referee's values: lowest, highest, mean
absolute value, and how many lie beyond +-4 and +-7. ``--values FILE`` writes every opening's
value too (``record value`` a line, one block a file).
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamechip.games.match import read_openings  # noqa: E402
from gamechip.games.openings import JudgeFailed, NBoardJudge  # noqa: E402
from golden.board import format_game_record  # noqa: E402


def summary(values):
    return (f"{len(values)} openings, referee's values {min(values):+.2f} .. {max(values):+.2f}, mean |value| "
            f"{sum(abs(v) for v in values) / len(values):.2f}, {sum(abs(v) > 4 for v in values)} beyond +-4, "
            f"{sum(abs(v) > 7 for v in values)} beyond +-7")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--referee", required=True, help="an NBoard engine's command line")
    parser.add_argument("--depth", type=int, default=6, help="told to the referee with set depth (default 6)")
    parser.add_argument("--values", help="also write every opening's value here")
    parser.add_argument("files", nargs="+", help="opening files (one opening a line)")
    args = parser.parse_args()
    log = Path("runs/openings/referee.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        judge = NBoardJudge(args.referee, args.depth, 600.0, log)
        try:
            for name in args.files:
                values = []
                for _, moves in read_openings(name):
                    values.append(judge.value(moves))
                    written.append(f"{name} {format_game_record(moves)} {values[-1]:+.2f}")
                print(f"{name}: {summary(values)}", flush=True)
        finally:
            judge.close()
    except JudgeFailed as error:
        print(f"opening_agreement: {error}", file=sys.stderr)
        return 3
    if args.values:
        Path(args.values).write_text("\n".join(written) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
