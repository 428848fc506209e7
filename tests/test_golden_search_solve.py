"""The golden search's solve mode (golden/search.py, the cycle twin of the engine's solve mode,
docs/spec.md §7) against independent methods: the golden solver (golden/solve.py: another search,
with its own move generation order, last-empties steps and no cycle model) on random endgames with
passes and games that end with empty squares, and the FFO test's published scores (Edax's)."""

from dataclasses import replace

import pytest

from golden.board import BoardError, Position
from golden.ffo import ffo_problems
from golden.othello import legal_moves, play
from golden.ordering import STATIC_ORDER
from golden.search import INNER, SCORINGS, TERMINAL, SolveSchedule, search, search_events
from golden.solve import QUADRANT
from tb.checks.search import WLD_WINDOW, SearchCase, solver_disagreement
from tests.test_golden_solve import endgames


def solve_case(pos, scoring, wld, budget=None):
    alpha, beta = WLD_WINDOW if wld else (-256, 256)
    return SearchCase(pos, 1, budget, "test", exact=True, alpha=alpha, beta=beta, solve=scoring)


def test_solve_mode_agrees_with_the_golden_solver_on_endgames_with_passes_and_early_ends():
    """Value and best move (the best move must reach the value) of every solve, exact and WLD, in
    both scorings; the sample must hold passes inside the tree and games ended with empties."""
    passes = early_ends = 0
    for pos in endgames(46, 80, 7):
        for scoring in SCORINGS:
            for wld in (False, True):
                case = solve_case(pos, scoring, wld)
                result = search(pos, 1, alpha=case.alpha, beta=case.beta, solve=scoring)
                assert not result.aborted and result.depth == 1
                assert solver_disagreement(case, result) is None, (pos.text(), scoring, wld, result.summary())
                if wld and result.trace[0].kind != TERMINAL:   # a finished root answers its final count
                    assert result.value in (-1, 0, 1)
                if scoring == "plain" and not wld:
                    passes += any(n.ply and n.move is None for n in result.trace)
                    early_ends += any(n.kind == TERMINAL and n.position.empty for n in result.trace)
    assert passes >= 5 and early_ends >= 5, (passes, early_ends)


def test_a_solve_disagreement_is_reported():
    """The check the bench applies (tb.checks.search.solver_disagreement) fails a wrong value, and a
    best move that does not reach the value."""
    for pos in endgames(47, 40, 6):
        case = solve_case(pos, "plain", False)
        result = search(pos, 1, solve="plain")
        moves = [m for m in range(64) if legal_moves(pos.own, pos.opp) >> m & 1]
        worse = [m for m in moves if -search(play(pos, m), 1, solve="plain").value < result.value]
        if not worse:
            continue
        wrong_value = replace(result, value=result.value + 2)
        assert "differs from the golden solver" in solver_disagreement(case, wrong_value)["what"]
        wrong_best = replace(result, best=worse[0])
        assert solver_disagreement(case, wrong_best)["actual"]["value after best"] < result.value
        return
    pytest.fail("no position with a move worse than the best in the sample")


def test_ffo_20_by_the_solve_mode_and_published():
    problem = ffo_problems()[20]      # 6 empties
    result = search_events(problem.position, 1, solve="winner")
    assert (result.value, result.best) == (problem.score, problem.best_moves[0])
    assert solver_disagreement(solve_case(problem.position, "winner", False), result) is None


@pytest.mark.full
@pytest.mark.parametrize("number", [1, 5, 7, 20])
def test_ffo_by_the_solve_mode_agrees_with_the_published_score_and_best_moves(number):
    """FFO positions of 14 empties (about 0.1-0.7 M nodes each, seconds to a minute on CPython)."""
    problem = ffo_problems()[number]
    for wld in (False, True):
        alpha, beta = WLD_WINDOW if wld else (-256, 256)
        result = search_events(problem.position, 1, alpha=alpha, beta=beta, solve="winner")
        expected = problem.score if not wld else (problem.score > 0) - (problem.score < 0)
        assert result.value == expected
        best_scores = problem.move_scores[result.best]
        assert (best_scores == problem.score) if not wld else ((best_scores > 0) - (best_scores < 0) == expected)


def test_the_schedule_of_a_solve():
    """A terminal node costs one cycle: its event is in the cycle after it is generated and its
    final count returns in that cycle, but the full board that a node's last empty square makes
    (the last-one step, below the root's children), whose event is in the cycle it is generated;
    no node is a leaf; the budget counts from cycle 0."""
    pos = next(p for p in endgames(48, 40, 6) if legal_moves(p.own, p.opp))
    result = search(pos, 1, solve="plain")
    kinds = {n.kind for n in result.trace}
    assert kinds <= {INNER, TERMINAL} and TERMINAL in kinds
    last_ones = 0
    for node in result.trace:
        if node.ply >= 2 and not node.position.empty and node.move is not None:
            assert node.kind == TERMINAL and node.cycle == node.generated
            last_ones += 1
        elif node.ply:
            assert node.cycle == node.generated + 1
    assert last_ones
    assert all(n.iteration == 1 for n in result.trace)
    cut = search(pos, 1, budget=result.cycles - 1, solve="plain")
    assert cut.aborted and cut.depth == 0 and cut.best is None and cut.value == 0 and cut.cycles == result.cycles - 1
    assert [n.to_dict() for n in cut.trace] == [n.to_dict() for n in result.trace if n.cycle < result.cycles - 1]


def test_a_solve_deeper_than_the_stack_is_abandoned_at_the_deepest_level():
    pos = next(p for p in endgames(49, 40, 6) if bin(p.empty).count("1") == 6 and legal_moves(p.own, p.opp))
    result = search(pos, 1, solve="plain", levels=4)
    assert result.aborted and result.depth == 0
    last = result.trace[-1]
    assert last.kind == INNER and last.ply == 3 and result.cycles == last.cycle
    assert all(n.ply <= 3 for n in result.trace)


def test_solve_arguments_are_checked():
    start = Position(0x810000000, 0x1008000000, False)
    with pytest.raises(BoardError, match="solve scoring must be one of plain, winner"):
        search(start, 1, solve="edax")
    with pytest.raises(BoardError, match="a solve runs alone"):
        search(start, 1, solve="plain", levels=1)


def test_the_midgame_search_is_unchanged_by_the_solve_mode():
    """Solve arguments given as their defaults leave a depth-limited search as it was."""
    pos = next(p for p in endgames(50, 10, 12) if legal_moves(p.own, p.opp))
    plain, solve_off = search(pos, 4), search(pos, 4, solve=None, levels=16)
    assert [n.to_dict() for n in plain.trace] == [n.to_dict() for n in solve_off.trace]
    assert plain.summary() == solve_off.summary()


def children_orders(trace):
    """{path of an inner node: the moves of its children in the order the trace generates them}."""
    orders = {}
    for node in trace:
        if node.ply:
            orders.setdefault(node.path[:-1], []).append(node.move)
    return orders


def test_parity_ordering_plays_the_odd_quadrants_first():
    """Without killers, the children of every node come in the static order, those in quadrants
    with an odd number of empty squares first (quadrants as golden/solve.py numbers them)."""
    checked = 0
    for pos in endgames(51, 12, 9):
        result = search(pos, 1, solve="winner")
        trace = search(pos, 1, solve="winner", schedule=SolveSchedule(killers=False, parity=True)).trace
        assert search_events(pos, 1, solve="winner", schedule=SolveSchedule(killers=False, parity=True)).value \
            == result.value
        parents = {n.path: n for n in trace if n.kind == INNER}
        for path, moves in children_orders(trace).items():
            parent = parents[path]
            if None in moves:
                continue
            odd = 0
            for square in range(64):
                if parent.position.empty >> square & 1:
                    odd ^= QUADRANT[square]
            rank = {square: (not QUADRANT[square] & odd, STATIC_ORDER.index(square)) for square in moves}
            assert moves == sorted(moves, key=rank.get)[:len(moves)], (parent.path_text(), moves)
            checked += len(moves) > 1 and any(rank[m][0] for m in moves) and not all(rank[m][0] for m in moves)
    assert checked > 20, checked


def test_the_last_one_step_changes_cycles_not_values():
    """The engine's schedule (parity, the last-one step) and the static order without the last-one
    step give the same values, in fewer cycles."""
    fewer = 0
    for pos in endgames(52, 12, 8):
        for scoring in SCORINGS:
            built = search_events(pos, 1, solve=scoring)
            static = search_events(pos, 1, solve=scoring, schedule=SolveSchedule())
            assert built.value == static.value, pos.text()
            fewer += built.cycles < static.cycles
    assert fewer > 12, fewer


def test_both_kernels_give_the_same_solve():
    """The words kernel (PyPy's, golden/words.py) and the ints kernel give the same nodes and cycles
    under the engine's schedule and the fastest-first model."""
    for pos in endgames(53, 6, 8):
        for schedule in (None, SolveSchedule(parity=True, last_one=True, fastest_from=6, recount=True)):
            extra = {} if schedule is None else {"schedule": schedule}
            runs = {kernel: [] for kernel in ("ints", "words")}
            for kernel, nodes in runs.items():
                result = search_events(pos, 1, solve="winner", kernel=kernel,
                                       on_node=lambda *node, keep=nodes.append: keep((node[1], list(node[2]), node[3],
                                                                                      node[4], node[7], node[9],
                                                                                      node[11])),
                                       **extra)
                nodes.append(result.summary())
            assert runs["ints"] == runs["words"], pos.text()
