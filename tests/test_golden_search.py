"""The golden search (golden/search.py) against independent methods: plain minimax without
pruning for the value, an exhaustive solver for endgames, and the search's own trace for the
cycle model and the budget rule."""

import random

import pytest

from golden.board import BoardError, popcount, start_position
from golden.evaluator import evaluate
from golden.othello import game_over, legal_moves, pass_move, play
from golden.positions import random_game_positions, sampled_midgames
from golden.search import INNER, LEAF, TERMINAL, minimax, search, solve


positions = sampled_midgames


MIDGAMES = positions(11, 40)
LATE = positions(12, 30, low=50, high=61)      # passes and finished games inside the horizon


def child(pos, move):
    return pass_move(pos) if move is None else play(pos, move)


@pytest.mark.parametrize("adaptive", [False, True])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_value_equals_plain_minimax(depth, adaptive):
    sample = MIDGAMES[:25] + LATE[:15] if depth < 3 else MIDGAMES[:8] + LATE[:6]
    for pos in sample:
        result = search(pos, depth, adaptive=adaptive)
        expected = minimax(pos, depth, adaptive=adaptive)
        assert result.value == expected, f"{pos.text()} depth {depth}: {result.value} != {expected}"
        # The answer is a best move: its subtree has the root's minimax value.
        assert -minimax(child(pos, result.best), depth - 1, adaptive=adaptive) == expected


def test_alpha_beta_at_depth_4_and_prunes():
    for pos in MIDGAMES[:3]:
        result = search(pos, 4)
        assert result.value == minimax(pos, 4)
        last = [n for n in result.trace if n.iteration == 4]
        assert len(last) - 1 < perft_nodes(pos, 4), "alpha-beta generated the whole tree"


def perft_nodes(pos, depth):
    """Nodes of the full tree below ``pos`` (passes are nodes, finished games are leaves)."""
    if depth == 0 or game_over(pos):
        return 0
    moves = legal_moves(pos.own, pos.opp)
    children = [pass_move(pos)] if not moves else [play(pos, m) for m in range(64) if moves >> m & 1]
    return sum(1 + perft_nodes(c, depth - 1) for c in children)


@pytest.mark.parametrize("empties", [2, 4, 6])
def test_endgame_searched_to_the_end_is_exact(empties):
    rng = random.Random(empties)
    found = 0
    while found < 4:
        for pos in random_game_positions(rng):
            if 64 - popcount(pos.black | pos.white) == empties and not game_over(pos):
                assert search(pos, min(16, 2 * empties)).value == solve(pos), pos.text()
                found += 1
                break


def test_solver_on_a_finished_board():
    full = start_position()
    pos = type(full)((1 << 40) - 1, ((1 << 64) - 1) ^ ((1 << 40) - 1), False)
    assert solve(pos) == 40 - 24


def test_a_budget_answers_the_deepest_completed_iteration():
    for pos in MIDGAMES[:4]:
        full = search(pos, 4)
        for depth, best, value, end in full.iterations[1:]:
            for budget in (end, end + 1):
                cut = search(pos, 4, budget=budget)
                completed = depth if budget > end else depth - 1
                reference = search(pos, completed)
                assert (cut.best, cut.value, cut.depth) == (reference.best, reference.value, completed)
                assert cut.aborted == (completed < 4)
                assert cut.cycles == (budget if cut.aborted else full.cycles)


def test_iteration_one_always_completes():
    result = search(MIDGAMES[0], 6, budget=0)
    assert result.depth == 1 and result.best is not None


def test_pv_of_each_iteration_is_tried_first():
    for pos in MIDGAMES[:10]:
        result = search(pos, 4)
        for depth, best, _, _ in result.iterations[:-1]:
            roots_children = [n for n in result.trace if n.iteration == depth + 1 and n.ply == 1]
            assert roots_children[0].move == best


def test_trace_cycle_model():
    for pos in MIDGAMES[:10] + LATE[:10]:
        result = search(pos, 3)
        cycles = [n.cycle for n in result.trace]
        assert cycles == sorted(cycles), "events out of order"
        assert len(set(cycles)) == len(cycles), "two events in one cycle"
        for node in result.trace:
            if node.kind == LEAF:
                assert node.cycle == node.generated + 1 + evaluate(node.position).done_cycle
            if node.kind == INNER and node.ply > 0:
                assert node.cycle == node.generated + 1
            if node.kind == TERMINAL:
                assert not legal_moves(node.position.own, node.position.opp)
        assert result.nodes == sum(1 for n in result.trace if n.ply > 0)
        assert result.cycles == result.iterations[-1][3] + 1


def test_passes_and_finished_games_appear_in_the_trace():
    kinds = set()
    for pos in LATE:
        for node in search(pos, 4).trace:
            if node.ply > 0 and node.move is None:
                kinds.add("pass")
            if node.kind == TERMINAL:
                kinds.add("terminal")
    assert kinds == {"pass", "terminal"}


def test_finished_game_at_the_root():
    pos = type(start_position())((1 << 63) - 1, 0, False)
    result = search(pos, 5)
    assert (result.best, result.value, result.depth, result.nodes) == (None, 63, 5, 0)


@pytest.mark.parametrize("depth, budget", [(0, None), (17, None), (3, -1), ("3", None)])
def test_bad_limits_are_refused(depth, budget):
    with pytest.raises(BoardError):
        search(start_position(), depth, budget)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_root_window_gives_the_fail_hard_value_of_plain_minimax(depth):
    """docs/spec.md §12's subtree searches: with the root window (a, b) the value is minimax clamped to
    it (a when every move fails low, b on a cut-off), and the best move is one whose minimax
    value reaches the clamped value (the first move tried when every move fails low)."""
    rng = random.Random(depth)
    for pos in MIDGAMES[:12] + LATE[:6]:
        exact = minimax(pos, depth)
        for alpha, beta in ((exact - 1, exact), (exact, exact + 1), (exact - 3, exact + 3), (exact + 1, exact + 6),
                            (exact - 6, exact - 1), (-256, exact), (exact, 256), *[sorted(rng.sample(range(-256, 257), 2))
                                                                              for _ in range(3)]):
            if not -256 <= alpha < beta <= 256:
                continue
            result = search(pos, depth, alpha=alpha, beta=beta)
            assert result.value == min(max(exact, alpha), beta), (pos.text(), depth, alpha, beta)
            if game_over(pos):
                continue
            children = {m: -minimax(child(pos, m), depth - 1) for m in
                        ([None] if not legal_moves(pos.own, pos.opp) else
                         [s for s in range(64) if legal_moves(pos.own, pos.opp) >> s & 1])}
            assert result.best in children
            if exact > alpha:
                assert min(children[result.best], beta) == result.value, (pos.text(), alpha, beta, result.best)


def test_a_bad_root_window_is_refused():
    for alpha, beta in ((0, 0), (5, 2), (-257, 0), (0, 257)):
        with pytest.raises(BoardError):
            search(start_position(), 2, alpha=alpha, beta=beta)
