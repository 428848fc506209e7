"""Games along the processor's opening book (docs/spec.md §6 and §8), for its bench's code coverage.

The processor plays the book move (golden.openings.book_move: the next move of the first line in
table order that extends the game) while the game so far is a proper prefix of a book line and
nobody passed. So a game reaches a prefix of the book only when every move the processor made on
the way is the book's move there: at the processor's turn one child of a prefix is reached, at
the opponent's turn every child is. :func:`reachable_prefixes` walks that tree for each colour of
the processor; :func:`book_games` gives one game per leaf of it (the opponent's moves along a
whole book line, the processor's replies expected to be the book's), so that the games together
reach every prefix either colour can reach, and scan every child the openings block
(rtl/openings.py) can scan. :func:`unread_trie_items` gives the trie's ROM items no game can read
(explained in tb/coverage_unhit.toml with the check ``unreachable_book_item`` of
gamechip/coverage/unhit.py).

The trie's node of a prefix is rtl.openings ``book_trie``'s numbering (breadth first, children
in order of first appearance in the table), the first child of a prefix being the book's move
there (the first line in table order that extends it names both).
Imports golden (the book and its rule) and rtl.openings (only its trie's numbering).
"""

from functools import lru_cache

from golden.board import start_position
from golden.openings import book_lines, book_move
from golden.othello import legal_moves, play

COLOURS = ("black", "white")


def mover_is_processor(ply, colour):
    """Whether the processor moves at ``ply`` (0: black's first move) of a pass-free game."""
    return ply % 2 == (0 if colour == "black" else 1)


def children(prefix, lines):
    """The moves that extend ``prefix`` towards some line, in order of first appearance in the table."""
    found = []
    for line in lines:
        if len(line) > len(prefix) and tuple(line[:len(prefix)]) == prefix and line[len(prefix)] not in found:
            found.append(line[len(prefix)])
    return found


def reachable_prefixes(colour, lines=None):
    """The book's prefixes a game reaches with the processor playing ``colour``: from the empty
    game, at the processor's turn the book's move, at the opponent's every move towards a line."""
    lines = book_lines() if lines is None else lines
    reached, frontier = [()], [()]
    while frontier:
        prefix = frontier.pop()
        if mover_is_processor(len(prefix), colour):
            move = book_move(prefix, lines)
            nexts = [] if move is None else [move]
        else:
            nexts = children(prefix, lines)
        for move in nexts:
            reached.append(prefix + (move,))
            frontier.append(prefix + (move,))
    return reached


def book_games(colour, lines=None):
    """The games that together reach every prefix :func:`reachable_prefixes` gives: one per leaf
    of that tree (a whole book line), in table order of the leaves."""
    lines = book_lines() if lines is None else lines
    reached = set(reachable_prefixes(colour, lines))
    leaves = {p for p in reached if not any(len(q) == len(p) + 1 and q[:len(p)] == p for q in reached)}
    ordered = []
    for line in lines:
        line = tuple(line)
        if line in leaves and line not in ordered:
            ordered.append(line)
    return ordered


def processor_replies(game, colour):
    """The replies the processor makes in ``game`` (a book line): its moves on the line, and its
    answer (out of book) when the opponent played the line's last move; and the referee's messages
    that ask for them."""
    own = sum(mover_is_processor(ply, colour) for ply in range(len(game)))
    return own + (not mover_is_processor(len(game) - 1, colour))


def legality_problem(game):
    """None when ``game`` is a legal pass-free sequence from the start, else why not (golden rules)."""
    position = start_position()
    for ply, move in enumerate(game):
        if not legal_moves(position.own, position.opp) >> move & 1:
            return f"ply {ply}: move {move} is not legal"
        position = play(position, move)
    return None


class BookLineOpponent:
    """The referee's Player that plays the opponent's moves of one book line (then the first legal
    move); the processor is expected to play the others (each checked against the golden
    processor by the bench, and here against the line)."""

    def __init__(self, game):
        self.game, self.name = tuple(game), "book line " + " ".join(map(str, game))

    def reset(self, color):
        pass

    def move(self, position):
        ply = bin(position.black | position.white).count("1") - 4   # no pass in the book
        if ply < len(self.game):
            return self.game[ply]
        moves = legal_moves(position.own, position.opp)
        return (moves & -moves).bit_length() - 1 if moves else None

    def info(self):
        return {}


def scanned_children(lines=None):
    """(prefix, child prefix) pairs whose child the openings block's scan reads: every child of a
    prefix reached where the opponent moves, the first child of one reached where the processor
    moves (its book move is the first child: the scan stops there)."""
    lines = book_lines() if lines is None else lines
    pairs = set()
    for colour in COLOURS:
        for prefix in reachable_prefixes(colour, lines):
            kids = children(prefix, lines)
            if mover_is_processor(len(prefix), colour):
                kids = kids[:1]
            pairs.update((prefix, prefix + (move,)) for move in kids)
    return pairs


@lru_cache(maxsize=1)
def unread_trie_items():
    """{"node": nodes, "cursor": nodes}: the trie nodes (rtl.openings book_trie numbering) that the
    openings block's ``node`` register never holds in a game under docs/spec.md §8 (no prefix either
    colour reaches), and those its ``cursor`` never holds (no scan reads them)."""
    from rtl.openings import book_trie

    trie = book_trie()
    index = {prefix: node for node, prefix in enumerate(trie.prefixes)}
    lines = book_lines()
    reached = {index[p] for colour in COLOURS for p in reachable_prefixes(colour, lines)}
    scanned = {index[child] for _, child in scanned_children(lines)} | {0}   # the cursor resets to 0
    every = set(range(len(trie)))
    return {"node": every - reached, "cursor": every - scanned}
