"""The balanced opening set that ``gamechip match`` plays by default (openings_balanced.txt beside
this module), and how it is made: ``python -m golden.contest.balanced_openings [PLIES COUNT DEPTH]``.

Every game of PLIES moves from the standard start (no pass occurs that early) is played out; the
positions are told apart up to the four symmetries of the start position (golden.symmetry), the
first game in lexical order standing for its class; each position is searched by the golden
search to DEPTH plies (the processor's evaluator, no budget), and the COUNT positions whose value
is nearest 0 are kept (ties broken by the game's text), so that neither side starts ahead by the
processor's own measure. A match plays each opening with both colours, which cancels what
imbalance is left. The file's header says with which arguments it was made.
"""

from __future__ import annotations

import sys
from pathlib import Path

from golden.board import format_game_record, start_position, squares_of
from golden.othello import legal_moves, play
from golden.search import search_events
from golden.symmetry import SYMMETRIES, transform_position

OPENINGS_FILE = Path(__file__).with_name("openings_balanced.txt")
DEFAULTS = (6, 48, 6)   # plies, openings, search depth


def games_of(plies):
    """Every game of ``plies`` moves from the start, as (moves, position)."""
    games = [([], start_position())]
    for _ in range(plies):
        games = [(moves + [square], play(position, square)) for moves, position in games
                 for square in squares_of(legal_moves(position.own, position.opp))]
    return games


def canonical(position):
    return min((p.black, p.white, p.white_to_move) for p in (transform_position(s, position) for s in SYMMETRIES))


def balanced_openings(plies, count, depth):
    """The ``count`` most balanced openings of ``plies`` moves: [(record, value)]."""
    seen, scored = set(), []
    for moves, position in sorted(games_of(plies), key=lambda game: format_game_record(game[0])):
        key = canonical(position)
        if key in seen:
            continue
        seen.add(key)
        value = search_events(position, depth).value
        scored.append((abs(value), format_game_record(moves), value))
    scored.sort()
    return [(record, value) for _, record, value in scored[:count]]


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    plies, count, depth = (int(a) for a in args) if len(args) == 3 else DEFAULTS
    lines = [f"# gamechip's balanced openings: {count} games of {plies} moves from the start, distinct up to the",
             "# start position's symmetries, those whose golden search value at depth "
             f"{depth} (the processor's evaluator,",
             "# from the side to move) is nearest 0. Made by: python -m golden.contest.balanced_openings "
             f"{plies} {count} {depth}",
             "# One opening a line: its moves; after '#', the value."]
    lines += [f"{record}  # {value:+d}" for record, value in balanced_openings(plies, count, depth)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
