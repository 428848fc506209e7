"""The searches aimed at the search engine's unreached lines (tb.checks.aimed_search, and the split
full boards of tb.checks.aimed): each makes what it is made for, judged by oracles of its own (a
square-by-square walk of docs/spec.md §2 Table 1, golden.othello, golden.search's values and node counts)."""

from golden.board import parse_board, popcount
from golden.othello import legal_moves
from golden.search import INNER, TERMINAL, search, solve
from tb.checks.aimed import split_board_positions
from tb.checks.aimed_search import (CUT_AT_15, CUT_AT_15_WINDOW, cut_at_15_cases, cut_offs, full_board_cases,
                                    two_level_return_plies)
from tb.checks.search_cases import NARROW_ENDGAME, directed_cases

STEPS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def on_board(row, col):
    return 0 <= row < 8 and 0 <= col < 8


def pattern(cap, run, row, col, dr, dc):
    """docs/spec.md §2 Table 1 at (row, col) for the flow (dr, dc): 1 on a ``cap`` disc, k + 1 after a cap
    disc and k contiguous ``run`` discs ending here, else 0 (walking back against the flow)."""
    if cap >> (8 * row + col) & 1:
        return 1
    length = 0
    while on_board(row, col) and run >> (8 * row + col) & 1:
        length, row, col = length + 1, row - dr, col - dc
    return length + 1 if length and on_board(row, col) and cap >> (8 * row + col) & 1 else 0


def test_split_full_boards_bring_every_run_to_every_pattern_cell_of_both_checkers():
    """Every (square, direction whose next square is on the board, run length) that a cell can see
    (a cap disc on the board behind the run) is seen on some split board for a cap of the side to
    move and for a cap of its opponent: the two move checkers of the node and of the evaluator."""
    boards = split_board_positions(8)
    assert len(boards) == 56 and len({label for label, _ in boards}) == 56
    seen = set()
    for label, p in boards:
        assert p.black | p.white == (1 << 64) - 1 and not p.black & p.white, label
        assert not legal_moves(p.own, p.opp) and not legal_moves(p.opp, p.own), label
        for role, cap, run in (("own", p.own, p.opp), ("opp", p.opp, p.own)):
            for square in range(64):
                row, col = divmod(square, 8)
                for dr, dc in STEPS:
                    if on_board(row + dr, col + dc):
                        seen.add((role, square, dr, dc, pattern(cap, run, row, col, dr, dc)))
    needed = {(role, square, dr, dc, k) for role in ("own", "opp") for square in range(64) for dr, dc in STEPS
              for k in range(2, 8)
              if on_board(square // 8 + dr, square % 8 + dc)
              and on_board(square // 8 - (k - 1) * dr, square % 8 - (k - 1) * dc)}
    assert len(needed) == 2 * 1036
    assert needed - seen == set()


def test_full_board_cases_are_finished_games_at_the_root():
    for case in full_board_cases():
        result = search(case.position, case.depth)
        assert case.exact and result.trace[0].kind == TERMINAL and len(result.trace) == 1, case.label
        assert result.value == solve(case.position), case.label


def test_cut_offs_rebuilds_the_golden_search():
    """The rebuilt alpha-beta gives each completed iteration's value as golden.search does, and an
    inner node it does not count as cut off has had every move searched."""
    cases = [c for c in directed_cases() if c.budget is None][:12] + cut_at_15_cases()
    for case in cases:
        result = search(case.position, case.depth, alpha=case.alpha, beta=case.beta)
        for depth, _, value, _ in result.iterations:
            if result.trace[0].kind != INNER:
                continue
            rebuilt, cuts = cut_offs(result.trace, depth, case.alpha, case.beta)
            assert rebuilt == value, (case.label, depth)
            cut_parents = {parent.path for parent, _ in cuts}
            nodes = [n for n in result.trace if n.iteration == depth]
            for node in nodes:
                if node.kind == INNER and node.path not in cut_parents:
                    searched = sum(1 for n in nodes if n.ply == node.ply + 1 and n.path[:-1] == node.path)
                    assert searched == (popcount(node.legal) or 1), (case.label, node.path_text())


def test_the_cut_at_15_search_returns_two_levels_from_level_15():
    """Iteration 16 of the aimed search has a node at ply 15 whose value cuts its parent off; the
    regression's deepest search (the narrow endgame) has none."""
    case, = cut_at_15_cases()
    assert case.position == parse_board(CUT_AT_15) and (case.alpha, case.beta) == CUT_AT_15_WINDOW
    assert case.depth == 16 and case.budget is None
    result = search(case.position, 16, alpha=case.alpha, beta=case.beta)
    assert result.depth == 16 and result.nodes == 3088 and result.cycles == 5200
    assert 15 in two_level_return_plies(result.trace, 16, case.alpha, case.beta)
    narrow = search(parse_board(NARROW_ENDGAME), 16)
    assert 15 not in two_level_return_plies(narrow.trace, 16, -256, 256)
