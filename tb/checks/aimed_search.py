"""Searches aimed at lines of the search engine (rtl/search.py) that the regression's searches and
the aimed sets of tb.checks.search_cases leave unreached; the runs that collect code coverage add
them (tb/test_search.py CODE_COVERAGE_TESTS), every node checked against the golden search as in
every other search test.

* Full boards (tb.checks.aimed split_board_positions): a finished game at the root, evaluated at
  once. Their lines cross a boundary between the colours, so the move checkers of the node (the
  side to move's and its opponent's) and of the evaluator see every run that can reach each of
  their pattern cells, for either side; game positions rarely hold the opponent's longest runs.
* A return of two levels from level 15: a node at ply 15 whose value cuts its parent at ply 14
  off, so that the engine continues at ply 13 (rtl/search.py stack_addressing reads the stack two
  levels down). Only iteration 16 has nodes at ply 15, and its cut-offs there need a small tree that
  still branches at its last plies: CUT_AT_15, found by a random search over endgames.

``cut_offs`` rebuilds an iteration's alpha-beta from its trace (the tree the search explored, in
the order it explored it): the unit tests check with it that the aimed search makes that return.
"""

from golden.board import parse_board
from golden.search import INNER, LEAF
from tb.checks.aimed import split_board_positions
from tb.checks.search import SearchCase

# An endgame of 10 empties, black to move, searched to depth 16 with the null window (12, 13):
# 3,088 nodes in 5,200 cycles, and in iteration 16 a finished game at ply 15 (after a run of white
# passes) cuts its parent off. The cheapest such search one random search met (PyPy, ten minutes:
# endgames of 8 to 12 empties from random games, seed 3, the full window and null windows around
# the value); the full window takes 154,266 cycles.
CUT_AT_15 = "-OOOOOOOX-XOXXXOXXOXOXOOXOOOOOOO--XXXXO--OXXOXOXOOOOXOO--OO-XXO- X"
CUT_AT_15_WINDOW = (12, 13)


def full_board_cases():
    """A depth-1 search of every split full board (both sides to move): each root is the end of the
    game, so its value is the final disc difference (``exact``)."""
    return [SearchCase(position, 1, None, label, exact=True) for label, position in split_board_positions(8)]


def cut_at_15_cases():
    """The CUT_AT_15 search: depth 16, no budget, its null window."""
    alpha, beta = CUT_AT_15_WINDOW
    return [SearchCase(parse_board(CUT_AT_15), 16, None,
                       "aimed: a node at ply 15 cuts its parent off (two-level return from level 15)",
                       alpha=alpha, beta=beta)]


def cut_offs(trace, iteration, alpha, beta):
    """(value, [(parent, child)]) of iteration ``iteration`` of a search trace (golden.search
    TraceNode list) under the root window (alpha, beta): the root's fail-hard value and every child
    whose value cut its parent off, found by running alpha-beta again over the children the trace
    holds, in its order. The trace holds only the children searched, so a cut-off child is its
    parent's last one there."""
    nodes = [node for node in trace if node.iteration == iteration]
    children = {}
    for node in nodes[1:]:
        children.setdefault(node.path[:-1], []).append(node)
    cuts = []

    def visit(node, alpha, beta):
        if node.kind != INNER:
            return node.value
        below = children.get(node.path, [])
        for number, child in enumerate(below, 1):
            value = -visit(child, -beta, -alpha)
            if value >= beta:
                if number != len(below):
                    raise ValueError(f"the trace has children of {node.path_text()} after the one that cut it off")
                cuts.append((node, child))
                return beta
            alpha = max(alpha, value)
        return alpha

    return visit(nodes[0], alpha, beta), cuts


def two_level_return_plies(trace, iteration, alpha, beta):
    """The plies of the nodes (inner or terminal: not leaves) whose value cut their parent off in
    that iteration: from each, the engine returns two levels at once."""
    return sorted({child.ply for _, child in cut_offs(trace, iteration, alpha, beta)[1] if child.kind != LEAF})
