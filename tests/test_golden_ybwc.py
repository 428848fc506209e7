"""Young Brothers Wait on K engines x C contexts (golden/ybwc.py, docs/k-engines.md) against
independent references: plain negamax without pruning (golden.search.minimax) for every completed
iteration's value and the chosen move's own value; the clock rules of the contract on every job
list (each clock serves one worker, no two jobs at once on a worker, starts and results in the
worker's own clocks, engine budgets); every job's board replayed from its path; null windows; the
node sum; the table's bound; window closings that abandon running jobs; and small budgets answering the deepest completed iteration of the unlimited
search. With one split ply the scheduler is the root split (golden/root_split.py), job for job."""

import functools

import pytest

from golden.board import BoardError, parse_board
from golden.othello import legal_moves, play
from golden.positions import sampled_midgames
from golden.root_split import DISPATCH_LATENCY, done_clock, root_split
from golden.search import MINUS_INFINITY, PLUS_INFINITY, minimax
from golden.ybwc import ELDEST, NULL, RESEARCH, ROOT, ybwc_search

MIDGAMES = sampled_midgames(47, 8, 14, 44)
LATE = sampled_midgames(48, 4, 52, 61)      # passes and finished games below the root
DESIGNS = ((1, 1), (2, 1), (3, 1), (2, 2), (4, 2))


@functools.lru_cache(maxsize=None)
def negamax(text, depth):
    return minimax(parse_board(text), depth)


def move_value(pos, move, depth):
    return -negamax(play(pos, move).text(), depth - 1)


def board_at(pos, path):
    for move in path:
        pos = play(pos, move)
    return pos


def slot(worker, clock, workers):
    return clock + (worker - clock) % workers


def check_schedule(pos, result, engines, contexts, budget=None):
    """The contract's clock rules and bookkeeping on one search's job list."""
    workers = engines * contexts
    jobs = result.jobs
    assert jobs and jobs[0].kind == ROOT and jobs[0].chosen == 0 and jobs[0].worker == 0
    events = {}
    for job in jobs:
        what = job.describe()
        assert job.worker == job.engine * contexts + job.context and 0 <= job.worker < workers, what
        assert job.chosen % workers == job.start % workers == job.worker, what
        assert job.start == slot(job.worker, job.chosen + DISPATCH_LATENCY, workers), what
        end = job.abandoned if job.abandoned is not None else job.done
        if job.abandoned is None:
            assert job.done == slot(job.worker, done_clock(job.start, job.cycles, contexts), workers), what
            assert job.done % workers == job.worker, what
        else:
            assert job.start < job.abandoned < slot(job.worker, done_clock(job.start, job.cycles, contexts), workers)
        assert job.budget == (None if budget is None else max(0, budget - job.start) // contexts), what
        for clock in (job.chosen, job.start) + ((job.done,) if job.abandoned is None else ()):
            assert events.setdefault(clock, job) is job, f"two steps in clock {clock}: {events[clock].describe()}; {what}"
        assert board_at(pos, job.path).text() == job.board, what
        assert job.depth == job.iteration - len(job.path), what
        if job.kind == NULL:
            assert job.beta - job.alpha == 1, what
        if job.kind == ROOT:
            assert (job.alpha, job.beta) == (MINUS_INFINITY, PLUS_INFINITY), what
        job.end = end
    for worker in range(workers):
        mine = sorted((job for job in jobs if job.worker == worker), key=lambda job: job.chosen)
        for earlier, later in zip(mine, mine[1:]):
            assert later.chosen > earlier.end, f"jobs overlap on worker {worker}: {earlier.describe()}; " \
                                               f"{later.describe()}"
    assert result.nodes == sum(job.nodes + (job.kind != ROOT) for job in jobs) + result.split_points


def check_against_negamax(positions, depth, engines, contexts, split_plies, min_job_depth):
    """Every completed iteration's value is negamax's and its move reaches it; the schedule keeps
    the contract. Returns the number of jobs abandoned by a window that closed."""
    abandoned = 0
    for pos in positions:
        result = ybwc_search(pos, depth, engines=engines, contexts=contexts, split_plies=split_plies,
                             min_job_depth=min_job_depth)
        assert [i[0] for i in result.iterations] == list(range(1, depth + 1))
        for d, best, value, _, _ in result.iterations:
            expected = negamax(pos.text(), d)
            assert value == expected, f"{pos.text()} {engines}x{contexts} iteration {d}: {value} != negamax {expected}"
            assert move_value(pos, best, d) == expected, f"{pos.text()} {engines}x{contexts} iteration {d}: best move"
        check_schedule(pos, result, engines, contexts)
        assert all(peak <= engines * contexts for peak in result.peak_slots[1:])
        assert result.split_points > 0
        abandoned += result.abandoned_jobs
    return abandoned


@pytest.mark.parametrize("engines,contexts", DESIGNS)
def test_every_iteration_has_the_negamax_value_and_a_best_move(engines, contexts):
    """Split points on plies 0..2 down to jobs of depth 1: a depth-4 search is all split points."""
    abandoned = check_against_negamax(MIDGAMES[:4] + LATE[:2], 4, engines, contexts, 3, 1)
    if engines * contexts > 1:
        assert abandoned > 0, "no window closed on a running job: the test does not reach abandonment"


@pytest.mark.full
@pytest.mark.parametrize("engines,contexts", DESIGNS + ((4, 1), (8, 1)))
@pytest.mark.parametrize("split_plies,min_job_depth", ((2, 1), (3, 1), (3, 2)))
def test_every_iteration_has_the_negamax_value_at_depth_5(engines, contexts, split_plies, min_job_depth):
    check_against_negamax(MIDGAMES + LATE, 5, engines, contexts, split_plies, min_job_depth)


@pytest.mark.parametrize("engines,contexts", ((1, 1), (3, 1), (2, 2)))
def test_one_split_ply_is_the_root_split(engines, contexts):
    for pos in MIDGAMES[:4] + LATE[:2]:
        split = root_split(pos, 4, engines=engines, contexts=contexts)
        ybwc = ybwc_search(pos, 4, engines=engines, contexts=contexts, split_plies=1)
        assert (ybwc.best, ybwc.value, ybwc.nodes, ybwc.cycles, ybwc.signature) == \
               (split.best, split.value, split.nodes, split.cycles, split.signature), pos.text()
        assert [(j.start, j.done, j.engine, j.context, j.alpha, j.beta, j.value) for j in ybwc.jobs] == \
               [(j.start, j.done, j.engine, j.context, j.alpha, PLUS_INFINITY if j.beta == -256 else j.beta, j.value)
                for j in split.jobs], pos.text()


@pytest.mark.parametrize("engines,contexts", ((2, 1), (2, 2)))
def test_small_budgets_answer_the_deepest_completed_iteration(engines, contexts):
    for pos in MIDGAMES[:2] + LATE[:1]:
        unlimited = ybwc_search(pos, 4, engines=engines, contexts=contexts, split_plies=2, min_job_depth=1,
                                signatures=False)
        last = unlimited.cycles
        for budget in sorted({0, 5, 60, 300, last // 3, last // 2, last - 3, last + 20}):
            result = ybwc_search(pos, 4, budget, engines=engines, contexts=contexts, split_plies=2, min_job_depth=1,
                                 signatures=False)
            assert result.aborted == (result.depth < 4)
            assert 1 <= result.depth <= 4 and result.iterations == unlimited.iterations[:result.depth]
            assert (result.best, result.value) == unlimited.iterations[result.depth - 1][1:3]
            assert all(job.start < budget for job in result.jobs if job.iteration >= 2), budget
            check_schedule(pos, result, engines, contexts, budget)


def test_every_worker_takes_a_job_and_the_split_gains_clocks():
    for pos in MIDGAMES[:3]:
        one = ybwc_search(pos, 5, engines=1, contexts=1, split_plies=2, min_job_depth=2, signatures=False)
        four = ybwc_search(pos, 5, engines=4, contexts=1, split_plies=2, min_job_depth=2, signatures=False)
        assert {job.worker for job in four.jobs} == set(range(4)), pos.text()
        assert four.cycles < one.cycles, f"{pos.text()}: four engines took {four.cycles} clocks, one {one.cycles}"


def test_a_full_table_bank_hands_the_child_out_as_a_job():
    pos = MIDGAMES[0]
    small = ybwc_search(pos, 4, engines=4, contexts=1, split_plies=3, min_job_depth=1, capacity=1)
    assert all(peak <= 1 for peak in small.peak_slots)
    assert small.value == negamax(pos.text(), 4)
    def has_moves(job):
        board = parse_board(job.board)
        return legal_moves(board.own, board.opp) != 0

    assert any(job.kind != ROOT and len(job.path) < 3 and has_moves(job) for job in small.jobs)


def test_bad_parameters_are_refused():
    for kwargs in (dict(engines=0), dict(engines=17), dict(contexts=3), dict(split_plies=0),
                   dict(min_job_depth=0)):
        with pytest.raises(BoardError):
            ybwc_search(MIDGAMES[0], 2, **kwargs)
