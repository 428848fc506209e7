"""The search bench must catch a broken engine at the first diverging node: each mutant is a
copy of rtl/ with one deliberate bug in rtl/search.py, run through the search bench's directed
searches on GHDL (the quickest simulator to build this design). The failure must name the node
by its path from the root, with expected and actual values and the cycle.
"""

import pytest

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


# Bugs of the solve mode (docs/spec.md §7), run through the bench's solve searches (tiny: a
# finished game and a pass at the root, abandoned solves, endgames of 4 empties with passes and
# early ends, both scorings): each must stop the bench at a named node. About 20 s each: make
# test-full.
SOLVE_MUTANTS = {
    "a solve's winner scoring leaves out the empty squares (a wrong final count)": (
        "search.py",
        "            if winner_scoring_late and own_discs > opp_discs:\n                final_value.next = won_final",
        "            if winner_scoring_late and own_discs > opp_discs:\n                final_value.next = plain_final"),
    "in a solve, a side without a move ends the game instead of passing": (
        "search.py",
        "            terminal_here.next = own_legal_late == 0 and opp_legal_late == 0",
        "            terminal_here.next = own_legal_late == 0 and (opp_legal_late == 0 or solving_late)"),
    "the last-one step returns the full board's value unnegated (a wrong final count)": (
        "search.py",
        "        if last_one:\n            leaf_raw.next = last_node_value",
        "        if last_one:\n            leaf_raw.next = last_child_value"),
    "parity ordering plays the even quadrants first": (
        "node_order.py",
        "        bits[0] = count_0[0] or not enable",
        "        bits[0] = not count_0[0] or not enable"),
}


@pytest.mark.full
@pytest.mark.parametrize("name", list(SOLVE_MUTANTS))
def test_solve_mutant_is_caught_at_a_named_node(name, tmp_path):
    file, *edits = SOLVE_MUTANTS[name]
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
