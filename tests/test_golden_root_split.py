"""The golden root splitter (golden/root_split.py, docs/root-split.md) and the golden search's
single-iteration mode, against independent references: plain negamax without pruning
(golden.search.minimax) for every completed iteration's value and best move, the contract's
clock and job rules checked on the job list, and the budget's outcome predicted from the
unlimited search's job list."""

import pytest

from golden.board import parse_board
from golden.othello import game_over, legal_moves, play
from golden.positions import sampled_midgames
from golden.root_split import DISPATCH_LATENCY, DONE_LATENCY, INFINITY_CODE, NULL, PV, RESEARCH, ROOT, root_split
from golden.search import minimax, search, search_events
from golden.signature import SignatureFold

positions = sampled_midgames


MIDGAMES = positions(35, 12, 14, 44)
LATE = positions(36, 8, 52, 61)     # passes and finished games below the root


def squares(bitboard):
    return [s for s in range(64) if bitboard >> s & 1]


def move_value(pos, move, depth):
    """The root move's exact negamax value at ``depth``, without pruning."""
    return -minimax(play(pos, move), depth - 1)


def check_jobs(pos, result, budget=None):
    """The contract's rules on a job list: clocks, contexts, windows, kinds, orders, node sum."""
    jobs = result.jobs
    assert jobs and jobs[0].kind == ROOT and jobs[0].chosen == 0 and jobs[0].context == 0
    for job in jobs:
        assert job.chosen % 2 == job.start % 2 == job.context == job.done % 2, job.describe()
        assert job.start == job.chosen + DISPATCH_LATENCY, job.describe()
        assert job.done == job.start + DONE_LATENCY + 2 * job.cycles, job.describe()
        assert job.budget == (None if budget is None else max(0, budget - job.start) >> 1)
        if job.kind == NULL:
            assert job.beta - job.alpha == 1 and job.beta == -job.root_alpha, job.describe()
        elif job.kind == RESEARCH:
            assert job.alpha == INFINITY_CODE and job.beta == -job.root_alpha, job.describe()
        else:
            assert (job.alpha, job.beta) == (INFINITY_CODE, INFINITY_CODE), job.describe()
        if job.kind != ROOT:
            assert job.board == play(pos, job.move).text() and job.depth == job.iteration - 1
    for context in (0, 1):
        mine = [job for job in jobs if job.context == context]
        for earlier, later in zip(mine, mine[1:]):
            assert later.chosen > earlier.done, f"jobs overlap on context {context}: {earlier.describe()}; " \
                                               f"{later.describe()}"
    assert result.nodes == sum(job.nodes + (job.kind != ROOT) for job in jobs)
    last = max(job.done for job in jobs)
    assert result.cycles == last + 1 if budget is None else result.cycles >= last + 1


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_iteration_has_the_negamax_value_and_a_best_move(depth):
    for pos in MIDGAMES[:8] + LATE[:6]:
        result = root_split(pos, depth)
        assert [i[0] for i in result.iterations] == list(range(1, depth + 1))
        for d, best, value, _, _ in result.iterations:
            expected = minimax(pos, d)
            assert value == expected, f"{pos.text()} iteration {d}: {value} != negamax {expected}"
            assert move_value(pos, best, d) == expected, f"{pos.text()} iteration {d}: best move's value"
        assert (result.best, result.value, result.depth) == result.iterations[-1][1:3] + (depth,)
        check_jobs(pos, result)


def test_depth_4_against_negamax():
    for pos in MIDGAMES[:2] + LATE[:2]:
        result = root_split(pos, 4)
        assert result.value == minimax(pos, 4) == move_value(pos, result.best, 4)


def test_every_root_move_once_per_iteration_plus_re_searches():
    research_jobs = 0
    for pos in MIDGAMES[:5] + LATE[:5]:
        result = root_split(pos, 4)
        check_jobs(pos, result)
        moves = squares(legal_moves(pos.own, pos.opp))
        previous_best = None
        for d, best, value, _, _ in result.iterations:
            jobs = [job for job in result.jobs if job.iteration == d]
            if d == 1:
                assert [job.kind for job in jobs] == [ROOT]
            else:
                first = [job for job in jobs if job.kind in (PV, NULL)]
                assert sorted(job.move for job in first) == moves
                assert first[0].kind == PV and first[0].move == previous_best and jobs[0] is first[0]
                assert sum(job.kind == PV for job in jobs) == 1
                failed_high = {job.move for job in first if job.kind == NULL and -job.value > job.root_alpha}
                researched = [job.move for job in jobs if job.kind == RESEARCH]
                research_jobs += len(researched)
                assert sorted(researched) == sorted(failed_high)
                for job in first if d <= 3 else ():
                    if job.kind == NULL:   # fail-high exactly when the move beats alpha (negamax)
                        assert (-job.value > job.root_alpha) == (move_value(pos, job.move, d) > job.root_alpha)
            previous_best = best
    assert research_jobs, "no move failed high: the sample does not exercise re-searches"


def test_each_job_gets_the_latest_reply_of_its_move_as_pv():
    for pos in MIDGAMES[:3] + LATE[:3]:
        result = root_split(pos, 4)
        for job in result.jobs:
            taken = [j for j in result.jobs if j.kind != ROOT and j.move == job.move and j.done < job.start
                     and j.depth_reported == j.depth]
            expected = max(taken, key=lambda j: j.done).best if taken else None
            assert job.kind == ROOT or job.root_pv == expected, job.describe()


def predicted_depth(pos, unlimited, budget):
    """The deepest iteration a search with ``budget`` completes, from the unlimited search's jobs:
    an iteration d >= 2 completes when every job of it starts before the budget and finishes within
    its engine budget (a job of depth 1, or on a finished game, never runs out)."""
    depth = 0
    for d, *_ in unlimited.iterations:
        for job in (j for j in unlimited.jobs if j.iteration == d):
            if d >= 2 and job.start >= budget:
                return depth
            aborts = job.depth >= 2 and not game_over(parse_board(job.board)) and job.cycles > (budget - job.start) >> 1
            if d >= 2 and aborts:
                return depth
        depth = d
    return depth


def test_small_budgets_answer_the_deepest_completed_iteration():
    for pos in MIDGAMES[:4] + LATE[:3]:
        unlimited = root_split(pos, 5)
        last = unlimited.cycles
        for budget in sorted({0, 1, 7, 40, 100, 400, 1000, last // 3, last // 2, last - 5, last, last + 50}):
            result = root_split(pos, 5, budget)
            depth = predicted_depth(pos, unlimited, budget)
            assert result.depth == depth, f"{pos.text()} budget {budget}: depth {result.depth}, predicted {depth}"
            assert (result.best, result.value) == unlimited.iterations[depth - 1][1:3]
            assert result.aborted == (depth < 5)
            check_jobs(pos, result, budget)
            assert all(job.start < budget for job in result.jobs if job.iteration >= 2)


def test_single_legal_move_pass_and_finished_game():
    # white to move, one legal move (H1 takes G1)
    one = parse_board("-----XO" + "-" * 57 + " O")
    assert squares(legal_moves(one.own, one.opp)) == [4]
    result = root_split(one, 3)
    assert result.best == 4 and [job.kind for job in result.jobs] == [ROOT, PV, PV]
    assert result.value == minimax(one, 3)
    check_jobs(one, result)
    passing = parse_board("OX" + "-" * 62 + " X")   # black to move: no legal move, white has C1
    assert not legal_moves(passing.own, passing.opp) and legal_moves(passing.opp, passing.own)
    finished = parse_board("X" * 64 + " O")
    for pos in (passing, finished):
        answer = root_split(pos, 5, 1000)
        assert (answer.best, answer.value, answer.depth, answer.nodes, answer.cycles, answer.jobs) == \
               (None, 0, 0, 0, 1, [])


def test_single_iteration_search():
    for pos in MIDGAMES[:6]:
        one = search(pos, 1)
        alone = search(pos, 1, single_iteration=True)
        assert alone.trace == one.trace and alone.summary() == one.summary()
        for depth in (2, 3):
            full = search(pos, depth)
            alone = search(pos, depth, single_iteration=True, root_pv=full.iterations[-2][1])
            assert alone.value == minimax(pos, depth) and alone.depth == depth
            assert {node.iteration for node in alone.trace} == {depth} and alone.trace[0].cycle == 0
            assert len(alone.iterations) == 1
            # the budget rule: abandoned at the first cycle >= budget
            for budget in (0, alone.cycles - 1, alone.cycles):
                cut = search(pos, depth, budget, single_iteration=True, root_pv=full.iterations[-2][1])
                assert cut.aborted == (alone.cycles > budget) and cut.depth == (0 if cut.aborted else depth)


def test_job_signature_is_the_processor_fold_of_its_search():
    pos = MIDGAMES[1]
    result = root_split(pos, 2)
    fold = SignatureFold()
    search_events(pos, 1, on_node=fold.on_node)
    assert result.jobs[0].signature == fold.signature != 0
    assert root_split(pos, 2, signatures=False).jobs[0].signature == 0
