"""The search engine and the processor built with the pattern evaluator (rtl/designs.py
``search_pattern``, ``processor_pattern``; docs/pattern-evaluator.md): the golden twin's latency and
terms, and the designs' benches.

The benches are the engine's and the processor's own (tb/test_search.py, tb/test_processor.py): with
these designs their golden side searches with the committed weight file (tb.blocks.design_evaluator),
every node of every search checked. A design's conversion (the engine and 30 ROMs of weights, about
a minute of CPU) and Verilator build (minutes) cost far more than its checks (seconds): the benches
run in the full tier only (make test-full), the golden twin's tests in the default tier.
"""

from dataclasses import replace

import pytest

from gamechip.coverage.model import Merged, design_coverage
from golden.board import parse_board, start_position
from golden.evaluator import T_ADAPTIVE, T_DONE_CYCLE, T_FIXED, T_STABLE_OPP, T_STABLE_OWN, T_STAGE
from golden.patterns import PATTERN_DONE_CYCLE, default_weights, pattern_value
from golden.search import LEAF, TERMINAL, search, search_events
from tb.checks.coverage_benches import PatternSearchCoverage
from tb.checks.search_cases import directed_cases, finished, pattern_directed_cases, solve_directed_cases
from tb.host import runner
from tb.host.processor_bench import run_processor_bench
from tb.host.search_bench import PATTERN_DESIGN, run_search_bench
from tests.test_mutants import mutant_root, mutant_tag

PROCESSOR_PATTERN = "processor_pattern"
PLANTED_SIM = "icarus"   # the planted bugs' simulator: see test_a_planted_pattern_bug_is_caught_at_its_node


# ---------------------------------------------------------------- the golden twin


def leaves_and_terminals(position, depth, pattern):
    """(node, terms) of every leaf and terminal node of the golden search of ``position``."""
    found = []

    def on_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        if kind in (LEAF, TERMINAL):
            found.append((own, opp, kind, terms, value, generated, cycle))

    search_events(position, depth, on_node=on_node, pattern=pattern)
    return found


def test_a_pattern_leaf_answers_in_the_pattern_evaluators_cycle_with_its_value_and_stage():
    """Every leaf's answer comes PATTERN_DONE_CYCLE + 1 cycles after the cycle that generated it
    (docs/spec.md §13: done in cycle 1 after the start edge), with the pattern value, the pattern
    evaluator's stage and no stable-disc count or seed value in its terms."""
    weights = default_weights()
    position = parse_board("---------------------------OX------XO--------------------------- X")
    nodes = leaves_and_terminals(position, 4, weights)
    assert nodes
    for own, opp, kind, terms, value, generated, cycle in nodes:
        assert cycle == generated + 1 + PATTERN_DONE_CYCLE
        assert terms[T_DONE_CYCLE] == PATTERN_DONE_CYCLE
        assert value == max(-255, pattern_value(own, opp, weights, kind == TERMINAL))
        assert terms[T_STAGE] == weights.stage(bin(own | opp).count("1"))
        assert (terms[T_STABLE_OWN], terms[T_STABLE_OPP], terms[T_FIXED], terms[T_ADAPTIVE]) == (0, 0, 0, 0)


def test_the_seed_schedule_is_unchanged_without_the_pattern_evaluator():
    """The seed's engine keeps its leaf latency (the stable-disc iterations): a leaf answers in the
    generating cycle + 1 + its done cycle, which is 0 on most boards."""
    nodes = leaves_and_terminals(start_position(), 4, None)
    assert all(cycle == generated + 1 + terms[T_DONE_CYCLE] for *_, terms, _, generated, cycle in nodes)
    assert any(terms[T_DONE_CYCLE] == 0 for *_, terms, _, _, _ in nodes)


def test_a_finished_game_at_the_root_is_worth_four_times_its_disc_difference():
    """The root is a finished game: the pattern engine answers its terminal value, 4 x (own - opp),
    saturated to the 9-bit range and raised to the search's floor, in cycle 1 + PATTERN_DONE_CYCLE."""
    full = parse_board("X" * 40 + "O" * 24 + " O")    # white to move: 24 - 40 = -16 discs
    result = search(full, 3, pattern=default_weights())
    assert (result.best, result.value, result.cycles) == (None, -64, 2 + PATTERN_DONE_CYCLE)
    all_black = parse_board("X" * 64 + " O")
    assert search(all_black, 3, pattern=default_weights()).value == -255


# ---------------------------------------------------------------- the engine's test plan


def sampled_hits(cases):
    """search_pattern.toml's bins of the golden searches of ``cases`` with the committed weight
    file, as the search bench samples them (tb.checks.coverage_benches.PatternSearchCoverage)."""
    hits = {}
    for case in cases:
        case = replace(case, evaluator="pattern")
        coverage = PatternSearchCoverage({}, case)
        result = search_events(case.position, case.depth, case.budget, on_node=coverage.on_node, alpha=case.alpha,
                               beta=case.beta, solve=case.solve, pattern=case.pattern)
        for name, number in coverage.finish(result).items():
            hits[name] = hits.get(name, 0) + number
    return hits


def plan_coverage(hits):
    merged = Merged(PATTERN_DESIGN, hits)
    return design_coverage(PATTERN_DESIGN, merged)


def test_the_directed_searches_of_the_pattern_engine_close_its_plan():
    """The directed sets the full tier's Verilator bench of search_pattern runs (directed,
    solve_directed, pattern_directed: random searches left out, so closure does not hang on a seed)
    hit every bin of tb/testplans/search_pattern.toml and none it does not name; without the
    pattern's own directed set the terminal values at the ends stay holes, and that set saturates
    a leaf both ways on its own (whether the other sets do depends on the weight file)."""
    common = sampled_hits(directed_cases() + solve_directed_cases(1))
    aimed = sampled_hits(pattern_directed_cases(1, default_weights()))
    coverage = plan_coverage({name: common.get(name, 0) + aimed.get(name, 0) for name in {*common, *aimed}})
    assert coverage.closed, coverage.problems()
    open_without = plan_coverage(common)
    assert {"terminal_at_an_end:high", "terminal_at_an_end:floor"} <= set(open_without.holes)
    assert aimed.get("leaf_saturated:low") and aimed.get("leaf_saturated:high"), aimed


# ---------------------------------------------------------------- the designs' benches

# the engine's sets per simulator: (cocotb tests, scale of tb.checks.search_cases)
PATTERN_SEARCH_TESTS = {"verilator": (["directed", "random_play", "endgame", "solve_directed", "pattern_directed"], "small"),
                        "icarus": (["random_play", "pattern_directed"], "tiny"),
                        "ghdl": (["random_play", "pattern_directed"], "tiny")}


def failed(outcome, bench):
    return f"{bench} failed:\n{outcome.result.get('failure') or outcome.log_excerpt(4000)}"


@pytest.mark.full
@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search_pattern(sim):
    """The engine with the pattern evaluator: every node against the golden search with the
    committed weight file, and each answer."""
    tests, scale = PATTERN_SEARCH_TESTS[sim]
    outcome = run_search_bench(sim, tests, scale, design=PATTERN_DESIGN)
    assert outcome.passed, failed(outcome, f"the search bench on {PATTERN_DESIGN}, {sim}")
    assert outcome.result.get("checked", 0) > 0, "the search bench checked nothing"


# Whole refereed games (both colours) on Verilator, every reply, status and node signature against
# the golden processor with the pattern evaluator; the endgame solve's game besides.
PROCESSOR_PATTERN_TESTS = ["game_black", "game_white", "solve_endgame"]


@pytest.mark.full
def test_processor_pattern_plays_whole_games_on_verilator():
    outcome = run_processor_bench("verilator", PROCESSOR_PATTERN_TESTS, design=PROCESSOR_PATTERN)
    assert outcome.passed, failed(outcome, f"the processor bench on {PROCESSOR_PATTERN}, verilator")


# One whole refereed game as black on GHDL (the VHDL of the 30 ROMs and the pattern leaf), every
# reply, status and node signature checked: about 17,500 cycles, some 6.5 minutes of GHDL on the
# project's loaded 2-core machine (docs/pattern-evaluator.md).
@pytest.mark.full
def test_processor_pattern_plays_a_game_on_ghdl():
    outcome = run_processor_bench("ghdl", ["game_black"], design=PROCESSOR_PATTERN)
    assert outcome.passed, failed(outcome, f"the processor bench on {PROCESSOR_PATTERN}, ghdl")


# ---------------------------------------------------------------- planted bugs, caught at a named node

# Bugs planted in a copy of rtl/ (file, text, replacement), each run through the search bench of
# search_pattern (make test-full: a conversion and a build each). PLANTED_BUG_NODES says where the
# bench must stop: the first node of its searches, in its order, where the bug shows (found in the
# golden traces), and the field of the node report that differs there (``terms`` holds the stage).
PLANTED = {
    "the pattern evaluator's stage boundary off by one (a board at a stage limit takes the next stage)": (
        "pattern_evaluator.py", "    @always_comb\n    def inner_link():\n        if discs <= limit:",
        "    @always_comb\n    def inner_link():\n        if discs < limit:"),
    "a finished board at a leaf takes the pattern value (pattern_leaf's terminal multiplexer stuck)": (
        "pattern_leaf.py", "        if terminal:\n            value.next = terminal_value",
        "        if 0:\n            value.next = terminal_value"),
}
PLANTED_TESTS = {   # bug -> the bench's cocotb test that must catch it, and where
    "the pattern evaluator's stage boundary off by one (a board at a stage limit takes the next stage)":
        ("pattern_directed", lambda weights, node: node.kind == LEAF and
         bin(node.position.black | node.position.white).count("1") == weights.stage_limits[0], "terms"),
    "a finished board at a leaf takes the pattern value (pattern_leaf's terminal multiplexer stuck)":
        ("directed", lambda weights, node: node.kind == LEAF and finished(node), "value"),
}
CASE_SETS = {"pattern_directed": lambda weights: pattern_directed_cases(1, weights), "directed": lambda _: directed_cases()}


def first_node_of(test, shows, weights):
    """(case, trace index) of the first node of ``test``'s searches where ``shows`` holds."""
    for case in CASE_SETS[test](weights):
        trace = search(case.position, case.depth, case.budget, alpha=case.alpha, beta=case.beta,
                       pattern=weights).trace
        for index, node in enumerate(trace):
            if shows(weights, node):
                return case, index
    raise AssertionError(f"no search of {test} reaches the node: the bench cannot catch the bug")


@pytest.mark.full
@pytest.mark.parametrize("name", list(PLANTED))
def test_a_planted_pattern_bug_is_caught_at_its_node(name, tmp_path):
    file, *edits = PLANTED[name]
    test, shows, field = PLANTED_TESTS[name]
    case, index = first_node_of(test, shows, default_weights())
    outcome = run_search_bench(PLANTED_SIM, [test], "tiny", tag=mutant_tag(name), design=PATTERN_DESIGN,
                               rtl_root=mutant_root(tmp_path, file, *edits))
    assert not outcome.passed, f"planted bug '{name}' passed {test}: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "SEARCH MISMATCH" in message, f"'{name}' failed without a named node:\n{outcome.log_excerpt(3000)}"
    lines = dict(line.split(":", 1) for line in message.splitlines() if ":" in line and not line.startswith(" "))
    assert lines["case"].strip() == case.label, message
    assert lines["node"].strip().startswith(f"#{index} of the trace"), message
    assert field in lines["differs"], message
    print(f"{name}: {lines['case'].strip()} | node {lines['node'].strip()} | differs: {lines['differs'].strip()}")
