"""The K-engine processor's golden scheduler (golden/root_split.py with ``engines=K``,
docs/k-engines.md) against independent references: plain negamax without pruning
(golden.search.minimax) for every completed iteration's value and a best move that reaches it,
the one-engine processor's search (golden.search.search) for the answer, the contract's clock
rules on the job list, and the bound each job starts with replayed from the results taken before
its start clock."""

import functools

import pytest

from golden.board import BoardError, parse_board, start_position
from golden.othello import play
from golden.positions import sampled_midgames
from golden.processor import GoldenProcessor
from golden.root_split import (DISPATCH_LATENCY, INFINITY_CODE, MAX_ENGINES, NULL, PV, RESEARCH, ROOT, done_clock,
                               root_split)
from golden.search import minimax, search

MIDGAMES = sampled_midgames(47, 8, 14, 44)
LATE = sampled_midgames(48, 4, 52, 61)      # passes and finished games below the root
ENGINE_COUNTS = (1, 2, 3, 4)


@functools.lru_cache(maxsize=None)
def negamax(text, depth):
    return minimax(parse_board(text), depth)


def move_value(pos, move, depth):
    """The root move's exact negamax value at ``depth``, without pruning."""
    return -negamax(play(pos, move).text(), depth - 1)


def slot(worker, clock, workers):
    return clock + (worker - clock) % workers


def check_schedule(pos, result, engines, budget=None):
    """The contract's clock rules: each clock serves worker k mod K; starts and results in the
    worker's own clocks; no two jobs at once on an engine; windows from the alpha that the results
    taken before the start clock make; the node sum."""
    jobs = result.jobs
    assert jobs and jobs[0].kind == ROOT and jobs[0].chosen == 0 and jobs[0].engine == 0
    events = {}
    for job in jobs:
        assert job.context == 0 and 0 <= job.engine < engines, job.describe()
        assert job.chosen % engines == job.start % engines == job.done % engines == job.engine, job.describe()
        assert job.start == slot(job.engine, job.chosen + DISPATCH_LATENCY, engines), job.describe()
        assert job.done == slot(job.engine, done_clock(job.start, job.cycles, 1), engines), job.describe()
        assert job.budget == (None if budget is None else max(0, budget - job.start)), job.describe()
        for clock in (job.chosen, job.start, job.done):
            assert events.setdefault(clock, job) is job, \
                f"two events in clock {clock}: {events[clock].describe()}; {job.describe()}"
    for engine in range(engines):
        mine = [job for job in jobs if job.engine == engine]
        for earlier, later in zip(mine, mine[1:]):
            assert later.chosen > earlier.done, f"jobs overlap on engine {engine}: {earlier.describe()}; " \
                                               f"{later.describe()}"
    for job in jobs:       # the bound each job sees: the root's alpha from the results taken before it
        if job.kind == ROOT:
            continue
        alpha = None
        for taken in sorted((j for j in jobs if j.iteration == job.iteration and j.done < job.start
                             and j.depth_reported == j.depth),
                            key=lambda j: j.done):
            value = -taken.value
            if taken.kind == PV or taken.kind == RESEARCH and value > alpha:
                alpha = value
        assert job.root_alpha == alpha, job.describe()
        if job.kind == NULL:
            assert (job.alpha, job.beta) == (-alpha - 1, -alpha), job.describe()
        elif job.kind == RESEARCH:
            assert (job.alpha, job.beta) == (INFINITY_CODE, -alpha), job.describe()
        else:
            assert (job.alpha, job.beta) == (INFINITY_CODE, INFINITY_CODE), job.describe()
        assert job.board == play(pos, job.move).text() and job.depth == job.iteration - 1
    assert result.nodes == sum(job.nodes + (job.kind != ROOT) for job in jobs)


@pytest.mark.parametrize("engines", ENGINE_COUNTS)
def test_every_iteration_has_the_negamax_value_and_a_best_move(engines):
    for pos in MIDGAMES + LATE:
        result = root_split(pos, 3, engines=engines, contexts=1)
        assert [i[0] for i in result.iterations] == [1, 2, 3]
        for d, best, value, _, _ in result.iterations:
            expected = negamax(pos.text(), d)
            assert value == expected, f"{pos.text()} K={engines} iteration {d}: {value} != negamax {expected}"
            assert move_value(pos, best, d) == expected, f"{pos.text()} K={engines} iteration {d}: best move"
        check_schedule(pos, result, engines)


@pytest.mark.parametrize("engines", ENGINE_COUNTS)
def test_the_one_engine_processors_answer_at_depth_4(engines):
    """Value as the one-context processor's search (and negamax); the move the same with one engine,
    a move of that value with more (results taken in another order can break a tie otherwise)."""
    for pos in MIDGAMES[:3] + LATE[:1]:
        result = root_split(pos, 4, engines=engines, contexts=1)
        one = search(pos, 4)
        assert result.value == one.value == negamax(pos.text(), 4), pos.text()
        assert move_value(pos, result.best, 4) == one.value, pos.text()
        if engines == 1:
            assert result.best == one.best, pos.text()
        check_schedule(pos, result, engines)


def test_every_engine_takes_a_job_and_the_split_gains_clocks():
    for pos in MIDGAMES[:3]:
        clocks = {}
        for engines in (1, 4):
            result = root_split(pos, 4, engines=engines, contexts=1, signatures=False)
            clocks[engines] = result.cycles
            assert {job.engine for job in result.jobs} == set(range(engines)), pos.text()
        assert clocks[4] < clocks[1], f"{pos.text()}: four engines took {clocks[4]} clocks, one {clocks[1]}"


@pytest.mark.parametrize("engines", (2, 4))
def test_small_budgets_answer_the_deepest_completed_iteration(engines):
    for pos in MIDGAMES[:2] + LATE[:1]:
        unlimited = root_split(pos, 4, engines=engines, contexts=1, signatures=False)
        last = unlimited.cycles
        for budget in sorted({0, 5, 60, 300, last // 3, last // 2, last - 3, last + 20}):
            result = root_split(pos, 4, budget, engines=engines, contexts=1, signatures=False)
            assert result.aborted == (result.depth < 4)
            assert 1 <= result.depth <= 4 and result.iterations == unlimited.iterations[:result.depth]
            assert (result.best, result.value) == unlimited.iterations[result.depth - 1][1:3]
            assert all(job.start < budget for job in result.jobs if job.iteration >= 2), budget
            check_schedule(pos, result, engines, budget)
        assert root_split(pos, 4, last, engines=engines, contexts=1).depth == 4


def test_the_golden_processor_with_k_engines_plays_the_split():
    """Out of book (an empty book), the processor's move is the K-engine split's; the jobs are kept."""
    pos = start_position(8)
    player = GoldenProcessor(budget=None, depth_limit=3, lines=[], engines=3)
    assert player.move(pos) == root_split(pos, 3, engines=3, contexts=1).best
    assert player.info()["source"] == "search"
    assert {job["engine"] for job in player.info()["jobs"]} == {0, 1, 2}


def test_an_engine_count_out_of_range_is_refused():
    for engines in (0, MAX_ENGINES + 1):
        with pytest.raises(BoardError, match="engines"):
            root_split(MIDGAMES[0], 2, engines=engines, contexts=1)
    with pytest.raises(ValueError, match="engines"):
        GoldenProcessor(budget=None, engines=2, contexts=2)
