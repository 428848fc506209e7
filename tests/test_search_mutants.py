"""The search bench must catch a broken engine at the first diverging node: each mutant is a
copy of rtl/ with one deliberate bug in rtl/search.py, run through the search bench's directed
searches on GHDL (the quickest simulator to build this design). The failure must name the node
by its path from the root, with expected and actual values and the cycle.
"""

import pytest

from golden.board import popcount
from golden.search import INNER, TERMINAL, search
from tb.checks.search_cases import solve_cases, solve_directed_cases
from tb.host.planted import PLANTED_BUGS, copy_with_edits, edits_of
from tb.host.search_bench import run_search_bench
from tests.test_mutants import mutant_root, mutant_tag

MUTANTS = {
    "cut-off test off by one (< instead of <=)": (
        "search.py",
        "and leaf_raw <= alpha_parent_late",
        "and leaf_raw < alpha_parent_late"),
    "a pass is played as a move": (
        "search.py",
        "        spawn_pass.next = own_legal_late == 0\n",
        "        spawn_pass.next = 0\n"),
    "the PV move is not tried first at the root": (
        "search.py",
        "            pv_valid.next = iteration > 1 and not answer_pass\n",
        "            pv_valid.next = 0\n"),
    "a push overwrites stack level 0 instead of its own level": (
        "search.py",
        "            stack_black[int(slot)].next = board_black_late\n",
        "            stack_black[0].next = board_black_late\n"),
    "a leaf cut-off does not record its killer move": (
        "search.py",
        "                        killer_valid.next[int(level_late)] = 1\n",
        "                        killer_valid.next[int(level_late)] = 0\n"),
    "the root window's alpha is forgotten after iteration 1": (
        "search.py",
        "                        alpha_cur.next = alpha_root_late\n",
        "                        alpha_cur.next = MINUS_INFINITY\n"),
    "the trace port is not quiet outside its events": (
        "search.py",
        "        event_stable_own.next = 0\n        event_stable_opp.next = 0\n        event_value.next = 0\n",
        "        event_stable_own.next = 1\n        event_stable_opp.next = 0\n        event_value.next = 0\n"),
    "a child's value never cuts the root off (the root's beta ignored)": (
        "search.py",
        "up_cut.next = level_late >= 1 and",
        "up_cut.next = level_late >= 2 and"),
}


# The default regression runs one of them (about 20 s: a conversion and a GHDL run), make
# test-full a second, `make mutants` all.
IN_DEFAULT_REGRESSION = ("cut-off test off by one (< instead of <=)",)
IN_FULL_REGRESSION = ("a leaf cut-off does not record its killer move",)


def regression_mark(name):
    return () if name in IN_DEFAULT_REGRESSION else pytest.mark.full if name in IN_FULL_REGRESSION \
        else pytest.mark.extended


@pytest.mark.parametrize("name", [pytest.param(name, marks=regression_mark(name)) for name in MUTANTS])
def test_search_mutant_is_caught(name, tmp_path):
    file, *edits = MUTANTS[name]
    outcome = run_search_bench("ghdl", ["directed"], "tiny", tag=mutant_tag(name),
                               rtl_root=mutant_root(tmp_path, file, *edits))
    assert not outcome.passed, f"mutant '{name}' passed every directed search: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "SEARCH MISMATCH" in message and "cycle:" in message, (
        f"mutant '{name}' failed without a named node:\n{outcome.log[-3000:]}")
    what = next(line for line in message.splitlines() if line.startswith("what:"))
    node = next((line for line in message.splitlines() if line.startswith("node:")), "node: (answer)")
    print(f"{name}: {what} | {node}")


# The solve mode's planted bugs (tb/host/planted.py, design search), run through the bench's solves
# (tiny: finished games, passes at the root and at the last empty square, abandoned solves, WLD
# outcomes, endgames of 4 empties with passes and early ends, both scorings). Each must stop the bench
# at the first node of those solves where the bug shows, which the golden search's traces name
# (SOLVE_BUG_NODES: what the node must be). About 25 s each (a conversion and an Icarus run): make
# test-full.
SOLVE_TESTS = ["solve_directed", "solve"]


def disc_counts(node):
    """(own, opp) discs of a trace node, for its side to move."""
    pos = node.position
    return popcount(pos.own), popcount(pos.opp)


def ended_with_empties(node):
    return node.kind == TERMINAL and sum(disc_counts(node)) < 64


def no_move_at_the_last_empty(node):
    return node.kind == INNER and node.legal == 0 and sum(disc_counts(node)) == 63


SOLVE_BUG_NODES = {
    "a solve's winner scoring gives the empty squares to the loser":
        lambda case, node: case.solve == "winner" and ended_with_empties(node) and len(set(disc_counts(node))) == 2,
    "a solve's winner scoring leaves out the empty squares":
        lambda case, node: case.solve == "winner" and ended_with_empties(node) and disc_counts(node)[0] > disc_counts(node)[1],
    "a solve's final count swaps own and opp":
        lambda case, node: case.solve == "plain" and node.kind == TERMINAL and len(set(disc_counts(node))) == 2,
    "in a solve, a side without a move at the last empty square ends the game":
        lambda case, node: no_move_at_the_last_empty(node),
    "in a solve, a side without a move ends the game instead of passing":
        lambda case, node: node.kind == INNER and node.legal == 0,
}


def first_node_of_bug(name, seed=1):
    """(case, index in its trace, node): the first node of the bench's solves where the bug
    ``name`` shows, in the order the bench runs them."""
    cases = solve_directed_cases(seed) + solve_cases(seed, "tiny")
    for case in cases:
        trace = search(case.position, case.depth, case.budget, alpha=case.alpha, beta=case.beta,
                       solve=case.solve).trace
        for index, node in enumerate(trace):
            if SOLVE_BUG_NODES[name](case, node):
                return case, index, node
    raise AssertionError(f"no solve of the bench shows '{name}': the bench cannot catch it")


def test_every_solve_bug_is_planted_and_shows_in_the_directed_solves():
    assert set(SOLVE_BUG_NODES) == {name for name, bug in PLANTED_BUGS.items() if bug[0] == "search"}
    directed = {case.label for case in solve_directed_cases(1)}
    for name in SOLVE_BUG_NODES:   # whatever the seed's random endgames hold
        assert first_node_of_bug(name)[0].label in directed, name


@pytest.mark.full
@pytest.mark.parametrize("name", list(SOLVE_BUG_NODES))
def test_solve_bug_is_caught_at_its_node(name, tmp_path):
    case, index, node = first_node_of_bug(name)
    _, file, edits = edits_of(name)
    outcome = run_search_bench("icarus", SOLVE_TESTS, "tiny", tag=mutant_tag(name),
                               rtl_root=copy_with_edits(tmp_path / "mutant", file, edits))
    assert not outcome.passed, f"planted bug '{name}' passed every solve: the bench cannot see it"
    message = outcome.result.get("failure", "")
    lines = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in message.splitlines() if ":" in line}
    assert "SEARCH MISMATCH" in message and "cycle" in lines, f"'{name}' failed without a named node:\n{message}"
    named = f"#{index} of the trace, iteration 1, path from the root: {node.path_text()}"
    assert (lines.get("case"), lines.get("node")) == (case.label, named), (
        f"'{name}' was caught elsewhere than at its node ({case.label}, {named}):\n{message}")
    print(f"{name}: {lines['what']} | {case.label} | node {named}")


# The solve ordering's mutants (the last-one step, parity), through the bench's random solves on
# GHDL: each must stop the bench at a named node. About 20 s each: make test-full.
ORDERING_MUTANTS = {
    "the last-one step returns the full board's value unnegated (a wrong final count)": (
        "search.py",
        "difference(opp_after_double, board_squares, last_child_value)",
        "difference(board_squares, opp_after_double, last_child_value)"),
    "the last-one step plays the parent's move again instead of the other empty square": (
        "search.py",
        "child_last_square.next = empty_index_xor ^ chosen_late",
        "child_last_square.next = empty_index_xor"),
    "the last-one step's child value cuts off only above the parent's beta": (
        "search.py",
        "last_cut.next = alpha_grand_late != MINUS_INFINITY and last_child_value >= beta_parent",
        "last_cut.next = alpha_grand_late != MINUS_INFINITY and last_child_value > beta_parent"),
    "parity ordering plays the even quadrants first": (
        "node_order.py",
        "        bits[0] = count_0[0] or not enable",
        "        bits[0] = not count_0[0] or not enable"),
}


@pytest.mark.full
@pytest.mark.parametrize("name", list(ORDERING_MUTANTS))
def test_solve_ordering_mutant_is_caught_at_a_named_node(name, tmp_path):
    file, *edits = ORDERING_MUTANTS[name]
    outcome = run_search_bench("ghdl", ["solve"], "tiny", tag=mutant_tag(name),
                               rtl_root=mutant_root(tmp_path, file, *edits))
    assert not outcome.passed, f"mutant '{name}' passed every solve: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "SEARCH MISMATCH" in message and "cycle:" in message and "node:" in message, (
        f"mutant '{name}' failed without a named node:\n{outcome.log[-3000:]}")
    print(f"{name}: " + " | ".join(line for line in message.splitlines() if line.startswith(("case:", "what:", "node:"))))


def test_both_monitors_name_the_same_node_in_the_same_words(tmp_path):
    """The HDL clock's event log and the per-cycle Python monitor feed one scoreboard: a broken
    engine's report is the same, word for word (but for the paths of the case files)."""
    name = IN_DEFAULT_REGRESSION[0]
    root = mutant_root(tmp_path, *MUTANTS[name])
    reports = {}
    for monitor in ("hdl", "python"):
        outcome = run_search_bench("ghdl", ["directed"], "tiny", tag=mutant_tag(name), rtl_root=root,
                                   monitor=monitor)
        assert not outcome.passed
        reports[monitor] = [line for line in outcome.result.get("failure", "").splitlines()
                            if not line.startswith(("case file:", "replay it"))]
    assert reports["hdl"] and any(line.startswith("node:") for line in reports["hdl"]), reports["hdl"]
    assert reports["hdl"] == reports["python"]
