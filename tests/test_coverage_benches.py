"""The coverage samplers of the benches that drive their designs outside the batch loop
(tb.checks.coverage_benches): the search's value folding and budget states against the golden
search's own values and cycle model, the AXI model's bins, the processor's noise kinds, and the
closure's view of these designs' bench tests."""

import random

from gamechip.coverage.closure import bench_nodeids, planned_bench
from gamechip.coverage.plan import design_plans
from golden.board import start_position
from golden.host.peripheral import RESULT, STATUS, BusModel, changeboard_address
from golden.search import INNER, LEAF, TERMINAL, search, search_events
from tb.checks.coverage_benches import SampledBusModel, SearchCoverage, context_bins, noise_kinds, plan_bins
from tb.checks.search import SearchCase
from tb.checks.search_cases import directed_cases, endgame_cases, random_cases


def observed(case):
    coverage = SearchCoverage({}, case)
    result = search_events(case.position, case.depth, case.budget, on_node=coverage.on_node, alpha=case.alpha,
                           beta=case.beta)
    return coverage, result, coverage.finish(result)


def test_the_folded_values_are_the_golden_search_s():
    """The sampler folds leaf values up the tree (cut-offs, alpha raises): the value it reaches at
    the root of each completed iteration is the golden search's."""
    for case in directed_cases() + random_cases(3, "tiny") + endgame_cases(3, "tiny"):
        coverage, result, _ = observed(case)
        assert coverage.root_values == [value for _, _, value, _ in result.iterations][:len(coverage.root_values)]
        if result.nodes:
            assert len(coverage.root_values) == len(result.iterations), case.label


def state_from_the_whole_trace(case, abort):
    """The engine's state in cycle ``abort`` from the unbudgeted trace of the stopped iteration: the
    node after the last one the budgeted search reported is a leaf or terminal node whose evaluation
    started before ``abort`` and answers at or after it (AWAIT), or anything else (EXPAND)."""
    budgeted = search(case.position, case.depth, case.budget)
    stopped = budgeted.depth + 1
    whole = [n for n in search(case.position, stopped).trace if n.iteration == stopped]
    reported = [n for n in budgeted.trace if n.iteration == stopped]
    if len(reported) >= len(whole):
        return "expand"
    following = whole[len(reported)]
    if following.kind == INNER:
        return "expand"
    started = following.generated + (1 if following.kind == TERMINAL else 0)
    if started < abort <= following.cycle:
        return "await_leaf" if following.kind == LEAF else "await_terminal"
    return "expand"


def test_the_budget_state_is_the_engine_s():
    """Budgets from 10 to 400 cycles (every 7th) on the start position and the directed budgets: the state
    the sampler plays on from the last node is the one the whole trace shows."""
    start = start_position()
    cases = [SearchCase(start, 6, budget, f"budget {budget}") for budget in range(10, 400, 7)]
    cases += [case for case in directed_cases() if case.budget is not None]
    states = set()
    for case in cases:
        _, result, hits = observed(case)
        if not result.aborted:
            continue
        (state,) = [name.split(":")[1] for name in hits if name.startswith("budget_expired_in_state:")]
        assert state == state_from_the_whole_trace(case, result.cycles), case.label
        states.add(state)
    assert states == {"expand", "await_leaf", "await_terminal"}


def test_deep_plies_share_a_bin_and_the_plan_names_every_bin():
    assert plan_bins({"leaf_at_ply:3": 2, "leaf_at_ply:12": 1, "leaf_at_ply:16": 4}) == \
        {"leaf_at_ply:3": 2, "leaf_at_ply:10-16": 5}
    bins = set(design_plans()["search"].bins("search"))
    for case in directed_cases():
        assert set(observed(case)[2]) <= bins, case.label


def test_context_bins():
    hits = {"inner_at_ply:0": 1, "cutoff_at_ply:3": 2, "root_window:fail_low": 1, "finished_game_at_root:seen": 1}
    assert context_bins(hits, 1, True, False) == {
        "in_context:1/inner": 1, "in_context:1/cutoff": 2, "in_context:1/root_fail_low": 1,
        "interleaving:1/started_while_the_other_searches": 1}
    assert set(context_bins(hits, 0, True, True)) <= set(design_plans()["search_c2"].bins("search_c2"))


def test_the_sampled_bus_model_answers_as_the_bus_model():
    rng = random.Random(5)
    hits = {}
    plain, sampled = BusModel(), SampledBusModel(hits)
    for address in (changeboard_address(False, 0, False), changeboard_address(False, 0, True), 0x00C,
                    changeboard_address(True, 0, False), changeboard_address(True, 0, True)):
        assert sampled.write(address, 0) == plain.write(address, 0)
    addresses = [0x000, 0x004, 0x008, 0x00C, 0x01C, RESULT, STATUS, 0x030, 0x002, 0x200] + \
        [changeboard_address(side, k, high) for side in (False, True) for k in range(16) for high in (False, True)]
    for _ in range(5000):
        address, data = rng.choice(addresses), rng.getrandbits(32) if rng.random() < 0.5 else 0
        if rng.random() < 0.6:
            assert sampled.write(address, data) == plain.write(address, data)
        else:
            assert sampled.read(address) == plain.read(address)
    bins = set(design_plans()["evaluator_axi"].bins("evaluator_axi"))
    assert set(hits) <= bins
    assert {"slverr:no_whole_board", "unmapped:unaligned", "changeboard_k:white/0", "path:child"} <= set(hits)


def test_noise_kinds():
    frame_error = -1
    tokens = [ord("c"), ord("4"), ord("Z"), ord("9"), 7, ord("A"), ord("1"), ord("V"), ord("V"), frame_error]
    assert noise_kinds(tokens, frame_error) == ["lower_case_move", "out_of_range_square", "random_byte",
                                                "illegal_move", "stray_pass", "framing_error"]


def test_closure_knows_the_bench_tests_of_these_designs():
    assert bench_nodeids("evaluator_axi") == ["tb/test_evaluator_axi.py::test_evaluator_axi[icarus]",
                                              "tb/test_evaluator_axi.py::test_evaluator_axi[ghdl]",
                                              "tb/test_evaluator_axi.py::test_evaluator_axi_streamed[verilator]"]
    assert "tb/test_search.py::test_search_interleaved[ghdl]" not in bench_nodeids("search_c2")
    assert "tb/test_search.py::test_search_interleaved[ghdl]" in bench_nodeids("search_c2", full=True)
    assert planned_bench("tb/test_uart.py::test_uart[icarus]")
    assert planned_bench("tb/test_processor.py::test_processor[verilator]")
    assert not planned_bench("tb/test_board.py::test_board[verilator]")
