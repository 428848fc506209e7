"""The balanced opening set that ``gamechip match`` plays by default (openings_balanced.txt beside
this module), as data: the candidates, the choice, the file's text. ``gamechip openings``
(gamechip/games/openings.py) makes the set with a judge (docs/nboard.md, "The opening set").

The candidates are the games of PLIES moves from the standard start (no pass occurs that early),
told apart up to the four symmetries of the start position (golden.symmetry): one class a
position, the first game of the class in lexical order standing for it. A judge values each
class's position from its side to move; the COUNT classes whose value is nearest 0 are kept
(ties broken by the game's text), so that neither side starts ahead by the judge's measure. A
match plays each opening with both colours, which cancels what imbalance is left.
"""

from __future__ import annotations

from pathlib import Path

from golden.board import format_game_record, start_position, squares_of
from golden.othello import legal_moves, play
from golden.symmetry import SYMMETRIES, transform_position

OPENINGS_FILE = Path(__file__).with_name("openings_balanced.txt")
DEFAULT_PLIES = 6
DEFAULT_COUNT = 48


def games_of(plies):
    """Every game of ``plies`` moves from the start, as (moves, position)."""
    games = [([], start_position())]
    for _ in range(plies):
        games = [(moves + [square], play(position, square)) for moves, position in games
                 for square in squares_of(legal_moves(position.own, position.opp))]
    return games


def canonical(position):
    """The same key for every position equal to ``position`` under the start's symmetries."""
    return min((p.black, p.white, p.white_to_move) for p in (transform_position(s, position) for s in SYMMETRIES))


def opening_classes(plies):
    """One game for each class of positions ``plies`` moves from the start, the lexically first
    game of its class: [(record, position)] in lexical order."""
    seen, classes = set(), []
    for moves, position in sorted(games_of(plies), key=lambda game: format_game_record(game[0])):
        key = canonical(position)
        if key not in seen:
            seen.add(key)
            classes.append((format_game_record(moves), position))
    return classes


def nearest_zero(judged, count):
    """The ``count`` (record, value) of ``judged`` whose value is nearest 0, ties broken by the
    record, in that order."""
    return sorted(judged, key=lambda item: (abs(item[1]), item[0]))[:count]


def value_text(value):
    """A judge's value as the file writes it: at most two decimals, with its sign."""
    return f"{value:+.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value):+d}"


def openings_text(chosen, plies, classes, judge, command):
    """The opening file: a header naming the judge and the command that made it, then one
    opening a line, its moves and, after '#', the judge's value from the side to move."""
    values = [value for _, value in chosen]
    header = [f"# gamechip's balanced openings: {len(chosen)} games of {plies} moves from the start, one from each",
              f"# of the {len(classes)} classes of positions equal under the start position's symmetries whose",
              "# judge's value (from the side to move) is nearest 0.",
              f"# Judge: {judge}",
              f"# Made by: {command}",
              f"# Values from {value_text(min(values))} to {value_text(max(values))}." if values else "# No value.",
              "# One opening a line: its moves; after '#', the judge's value."]
    return "\n".join(header + [f"{record}  # {value_text(value)}" for record, value in chosen]) + "\n"
