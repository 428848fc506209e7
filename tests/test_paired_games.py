"""``gamechip tournament --games-per-engine 2``: the tournament's games two at a time on the two
contexts of ``search_c2`` (gamechip/games/paired_games.py, tb/host/paired_games.py, tb/sim/paired_games.py).

The default tier checks the options, the pairing and the move check without a simulator; the full
tier plays a pair of games on Verilator and compares them with the golden tournament's, game for
game, and plays one on an engine with a planted bug, which must fail naming the game and the move.
"""

import json
import re

import pytest

from gamechip.cli import main
from gamechip.games.paired_games import check_games_per_engine, run_paired_tournament
from golden.board import start_position
from golden.contest.games import golden_game
from golden.search import search_events
from tb.host.paired_games import PairFailed, pair_up, play_pair
from tb.sim.paired_games import EngineProcessor, MoveMismatch

BUDGET = 256
# what a paired game records beyond the golden game's dict, and what differs by nature: where and
# how long it was played
PAIRED_ONLY = {"simulator", "seconds", "host", "rtl_digest", "nodes_checked", "engine_context", "engine_cycles",
               "clocks", "pair_clocks"}


@pytest.mark.parametrize("args, expected", [
    (["--games-per-engine", "3", "--sim", "verilator"], "--games-per-engine is 1 (one game a simulation) or 2"),
    (["--games-per-engine", "two"], "got 'two'"),
    (["--games-per-engine", "2"], "--games-per-engine 2 needs --sim"),
    (["--games-per-engine", "2", "--sim", "verilator", "--contexts", "2"], "use --contexts 1"),
    (["--games-per-engine", "2", "--sim", "verilator", "--mode", "engine"], "leave out --mode engine"),
    (["--games-per-engine", "2", "--sim", "verilator", "--cluster", "tcp://localhost:8786"], "leave out --cluster"),
])
def test_bad_games_per_engine_is_one_line_and_exit_status_2(args, expected, capsys, tmp_path):
    status = main(["tournament", "--budget", "256", "--levels", "1", "--out", str(tmp_path / "t"), *args])
    err = capsys.readouterr().err
    assert status == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "t").exists()


def test_games_per_engine_values():
    assert check_games_per_engine("1") == 1
    assert check_games_per_engine("2", sim="verilator") == 2


def test_games_are_paired_in_the_tournament_order_the_odd_one_alone():
    tasks = [(level, color) for level in (1, 2, 3) for color in ("black", "white")]
    assert pair_up(tasks) == [tasks[0:2], tasks[2:4], tasks[4:6]]
    assert pair_up(tasks[:3]) == [tasks[0:2], [tasks[2]]]
    assert pair_up([]) == []
    with pytest.raises(ValueError, match="a pair is 1 or 2 games, got 3"):
        play_pair("verilator", tasks[:3], BUDGET)


class FakeGame:
    """A game whose engine answers every search with ``answer(golden summary)``."""

    name = "game 1 (reference level 1, processor black, context 0)"

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def ask(self, case, golden_cycles):
        golden = search_events(case.position, case.depth, case.budget)
        self.asked.append((case, golden_cycles))
        return self.answer(golden.summary())


ROOT = start_position()   # searched, not played from the book: each test sets ``passed`` (the book is off)


def test_the_engines_answer_is_played_when_it_is_the_golden_processors():
    processor = EngineProcessor(FakeGame(lambda golden: golden), BUDGET, 16)
    processor.reset("X")
    processor.passed = True   # out of the book: every move is a search
    golden = search_events(ROOT, 16, BUDGET)
    assert processor.move(ROOT) == golden.best
    assert processor.info() == {"source": "search", "depth": golden.depth, "nodes": golden.nodes,
                                "cycles": golden.cycles, "value": golden.value, "solved": None}
    (case, cycles), = processor.game.asked
    assert (case.position, case.depth, case.budget, cycles) == (ROOT, 16, BUDGET, golden.cycles)


def test_a_different_answer_names_the_game_move_position_expected_and_actual():
    processor = EngineProcessor(FakeGame(lambda golden: dict(golden, best="A1")), BUDGET, 16)
    processor.reset("X")
    processor.passed = True
    with pytest.raises(MoveMismatch) as failure:
        processor.move(ROOT)
    message = str(failure.value)
    assert message.startswith("game 1 (reference level 1, processor black, context 0), budget 256, processor move 1:")
    assert "the engine answered {'best': 'A1'" in message and "the golden processor {'best': " in message
    assert f"position: {ROOT.text()}" in message


def same_game(paired, golden):
    """The fields of a paired game that differ from the golden game's (the reference player's
    thinking seconds left out)."""
    def timeless(game):
        plies = [dict(p, info={k: v for k, v in p["info"].items() if k != "seconds"}) for p in game["plies"]]
        text = re.sub(r" seconds=[0-9.e-]+", "", game["results_text"])
        return {**{k: v for k, v in game.items() if k not in PAIRED_ONLY}, "plies": plies, "results_text": text}
    mine, theirs = timeless(paired), timeless(dict(golden, contexts=1))
    return sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))


@pytest.mark.full
def test_a_pair_on_verilator_is_the_golden_tournament_game_for_game(tmp_path):
    assert run_paired_tournament(BUDGET, [1], "verilator", 1, tmp_path) == 0
    games = json.loads((tmp_path / "games.json").read_text())
    assert sorted((g["level"], g["processor_color"]) for g in games) == [(1, "black"), (1, "white")]
    for game in games:
        assert same_game(game, golden_game(1, game["processor_color"], BUDGET)) == [], game["processor_color"]
        searches = [p["info"] for p in game["plies"] if p["info"].get("source") == "search"]
        assert len(searches) == len(game["searched_positions"]) > 10
        # every node of every search reported and checked (plus each iteration's root), in the cycles searched
        assert game["nodes_checked"] > sum(info["nodes"] for info in searches) > 1000
        assert game["engine_cycles"] == sum(info["cycles"] for info in searches)
    assert {g["engine_context"] for g in games} == {0, 1}
    assert "search_c2 simulated on verilator" in (tmp_path / "tournament.md").read_text()


@pytest.mark.full
def test_a_planted_bug_in_the_engine_stops_the_pair_at_a_named_node(tmp_path):
    from tests.test_mutants import mutant_root, mutant_tag
    from tests.test_search_mutants import MUTANTS

    name = "cut-off test off by one (< instead of <=)"
    with pytest.raises(PairFailed) as failure:
        play_pair("verilator", [(1, "black"), (1, "white")], BUDGET, tag=mutant_tag(name),
                  rtl_root=mutant_root(tmp_path, *MUTANTS[name]))
    message = str(failure.value)
    assert message.startswith("MISMATCH in the paired games on verilator (level 1 processor black, level 1 "
                              "processor white; budget 256): SEARCH MISMATCH in search_c2"), message
    assert re.search(r"case: +game \d \(reference level 1, processor (black|white), context \d\), processor move \d+ "
                     r"\(search \d+ of the game\)", message), message
    for line in ("root:", "what:", "cycle:", "expected:", "actual:"):
        assert f"\n{line}" in message, message
