"""The co-design host and the peripheral's bus model (docs/spec.md §10, golden/host/peripheral.py and
golden/host/negascout.py): NegaScout against plain minimax, both transfer models making the identical
search with every value from the bus model, the bus model's register map and refusals, and the
rebuild of eq. 4-7 against a square-by-square check."""

import random

import pytest

from golden.board import Position, start_position
from golden.host.peripheral import (CHANGE_BASE, COMMIT_WHITE, MAX_DEPTH, OKAY, RESULT, SLVERR, STATUS, Bus, BusModel,
                             ChangeboardTransfer, StandardTransfer, changeboard, changeboard_address, rebuild_check)
from golden.evaluator import evaluate
from golden.host.negascout import NegaScout, choose_move
from golden.othello import legal_moves, pass_move, play
from golden.positions import random_game_positions
from golden.search import minimax, search


def positions(count, seed):
    rng, out = random.Random(seed), []
    while len(out) < count:
        out.append(rng.choice(random_game_positions(rng)))
    return out


POSITIONS = positions(50, 2010)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_negascout_root_value_equals_plain_minimax_on_50_positions(depth):
    for position in POSITIONS:
        assert NegaScout().search(position, depth)[0] == minimax(position, depth, adaptive=True), position.text()


@pytest.mark.parametrize("depth", [4, pytest.param(5, marks=pytest.mark.extended),
                                   pytest.param(6, marks=pytest.mark.extended)])
def test_negascout_root_value_equals_plain_alpha_beta_on_50_positions(depth):
    """Deeper, plain alpha-beta (golden/search.py, itself checked against minimax) is the reference."""
    for position in POSITIONS:
        assert NegaScout().search(position, depth)[0] == search(position, depth, adaptive=True).value, position.text()


def run_on_bus(transfer_class, position, depth):
    transfer = transfer_class(Bus())
    searcher = NegaScout(transfer.evaluate, keep_trace=True)
    transfer.new_search()
    return searcher.search(position, depth), searcher.stats.trace, transfer.counts


@pytest.mark.parametrize("depth", [2, 4])
def test_both_transfer_models_make_the_identical_search_with_the_golden_values(depth):
    writes = {"standard": 0, "changeboard": 0}
    for position in POSITIONS[:12]:
        golden = NegaScout(keep_trace=True)
        expected = golden.search(position, depth)
        standard, standard_trace, standard_counts = run_on_bus(StandardTransfer, position, depth)
        changes, changes_trace, changes_counts = run_on_bus(ChangeboardTransfer, position, depth)
        assert standard == changes == expected, position.text()
        assert standard_trace == changes_trace == golden.stats.trace
        assert standard_counts.calls == changes_counts.calls == len(golden.stats.trace)
        assert standard_counts.writes == 4 * standard_counts.calls and standard_counts.reads == standard_counts.calls
        writes["standard"] += standard_counts.writes
        writes["changeboard"] += changes_counts.writes
    if depth >= 4:   # over the 12 searches (a single small search can reach 0.61: see golden/host/peripheral.py)
        assert writes["changeboard"] <= 0.6 * writes["standard"], writes


def test_a_self_play_game_counts_both_models_and_the_changeboard_writes_half():
    """The co-design seed's workload in small: a game of the host against itself at depth 3 (book, corner
    killer, NegaScout), each model on its own bus model, every value read checked by the search."""
    totals = {}
    for transfer_class in (StandardTransfer, ChangeboardTransfer):
        transfer = transfer_class(Bus())
        position, moves = start_position(), []
        while legal_moves(position.own, position.opp) or legal_moves(position.opp, position.own):
            move, how, _ = choose_move(position, moves, 3, transfer.evaluate, transfer.new_search)
            if move is None:
                position = pass_move(position)
                continue
            moves.append(move)
            position = play(position, move)
        totals[transfer.name] = (transfer.counts, tuple(moves))
    (standard, game), (changes, same_game) = totals["standard"], totals["changeboard"]
    assert game == same_game and standard.calls == changes.calls > 1000
    assert 0.45 <= changes.writes / standard.writes <= 0.6, (changes, standard)
    assert max(changes.depth_differences) >= 2


def test_bus_model_register_map_and_refusals():
    bus = BusModel()
    assert bus.read(RESULT) == (0, SLVERR)                    # nothing committed yet
    assert bus.write(changeboard_address(False, 0, False), 1) == OKAY
    assert bus.write(changeboard_address(False, 0, True), 0) == SLVERR and bus.boards == []
    assert bus.read(STATUS)[0] >> 12 == 2
    start = start_position()
    for address, word in ((0, start.black & 0xFFFFFFFF), (4, start.black >> 32), (8, start.white & 0xFFFFFFFF)):
        assert bus.write(address, word) == OKAY
    assert bus.write(0x00C, start.white >> 32) == OKAY and bus.boards == [(start.black, start.white, False)]
    data, response = bus.read(RESULT)
    assert response == OKAY and data >> 31 and (data & 0xFFFF) == evaluate(start).adaptive & 0xFFFF
    stored = list(bus.boards)
    for address in (0x030, 0x0FC, 0x200, 0x002):
        assert bus.write(address, 5) == SLVERR and bus.boards == stored
        assert bus.read(address)[1] == SLVERR
    assert bus.read(0x000) == (0, SLVERR)                     # the board window is write-only
    # k = 1 points above the root (only depth 0 is stored)
    assert bus.write(changeboard_address(False, 1, False), 1) == OKAY
    assert bus.write(changeboard_address(False, 1, True), 0) == SLVERR and bus.boards == stored
    # a high word whose low word went to another k is refused
    assert bus.write(changeboard_address(False, 0, False), 1) == OKAY
    assert bus.write(changeboard_address(True, 0, True), 0) == SLVERR and bus.boards == stored
    assert bus.read(STATUS)[0] & 0x100


def test_changeboards_rebuild_every_board_of_random_games_with_backtracks_and_passes():
    rng = random.Random(7)
    for _ in range(20):
        game = random_game_positions(rng)
        bus = BusModel()
        root = game[0]
        for address, word in ((0, root.black & 0xFFFFFFFF), (4, root.black >> 32), (8, root.white & 0xFFFFFFFF)):
            bus.write(address, word)
        bus.write(COMMIT_WHITE if root.white_to_move else 0x00C, root.white >> 32)
        for depth in range(1, min(len(game), MAX_DEPTH + 1)):
            parent, child = game[depth - 1], game[depth]
            back = rng.randrange(0, min(3, depth))   # sometimes step back: rebuild from an ancestor kept in memory
            k = len(bus.boards) - 1 - (depth - 1)
            cb = changeboard(parent, child)
            assert rebuild_check(parent, child, parent.white_to_move)
            assert bus.write(changeboard_address(parent.white_to_move, k, False), cb & 0xFFFFFFFF) == OKAY
            assert bus.write(changeboard_address(parent.white_to_move, k, True), cb >> 32) == OKAY
            assert bus.boards[depth] == (child.black, child.white, child.white_to_move)
            assert bus.read(RESULT)[0] & 0xFFFF == evaluate(child).adaptive & 0xFFFF
            if back:   # replace this board by a sibling: k = 1 from the board just sent
                siblings = [play(parent, m) for m in range(64) if legal_moves(parent.own, parent.opp) >> m & 1]
                sibling = rng.choice(siblings) if siblings else pass_move(parent)
                cb = changeboard(parent, sibling)
                bus.write(changeboard_address(parent.white_to_move, 1, False), cb & 0xFFFFFFFF)
                assert bus.write(changeboard_address(parent.white_to_move, 1, True), cb >> 32) == OKAY
                assert bus.boards[depth] == (sibling.black, sibling.white, sibling.white_to_move)
                assert len(bus.boards) == depth + 1
                cb = changeboard(parent, child)
                bus.write(changeboard_address(parent.white_to_move, 1, False), cb & 0xFFFFFFFF)
                bus.write(changeboard_address(parent.white_to_move, 1, True), cb >> 32)
                assert bus.boards[depth] == (child.black, child.white, child.white_to_move)


def test_the_rebuild_check_is_independent_and_catches_the_wrong_colour():
    parent = start_position()
    child = play(parent, 19)   # d3 for black
    assert rebuild_check(parent, child, False) and not rebuild_check(parent, child, True)


def test_the_codesign_command_reports_both_models_and_refuses_bad_arguments():
    import json
    import subprocess
    import sys

    def gamechip(*args):
        return subprocess.run([sys.executable, "-m", "gamechip", "codesign", *args], capture_output=True, text=True,
                              timeout=600)

    done = gamechip("--positions", "3", "--depth", "3", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["identical_search"] is True and report["value_match"] is True
    standard, changes = report["models"]["standard"], report["models"]["changeboard"]
    assert standard["calls"] == changes["calls"] > 0 and standard["reads"] == changes["reads"] == standard["calls"]
    assert standard["writes"] == 4 * standard["calls"] and changes["writes"] < 0.7 * standard["writes"]
    assert changes["bus_cycles"] < standard["bus_cycles"] and len(report["rows"]) == 3
    assert "depth 3" in done.stderr   # progress
    for args, expected in ((["--depth", "0"], "--depth must be at least 1"),
                           (["--positions", "-2", "--depth", "2"], "--positions must be 0 or more"),
                           (["--game", "--positions", "2", "--depth", "2"], "not both")):
        done = gamechip(*args)
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr


# make test-full's: the peripheral's own bench checks every response on all three simulators in
# make test (tb/test_evaluator_axi.py); this is the command's path to it.
@pytest.mark.full
def test_the_codesign_command_checks_every_transaction_on_the_simulated_peripheral(tmp_path):
    """--sim: the searches of both models recorded, streamed through evaluator_axi on Verilator,
    every response checked; the counts equal the golden-only run's."""
    import json
    import subprocess
    import sys

    def gamechip(*args):
        return subprocess.run([sys.executable, "-m", "gamechip", "codesign", *args], capture_output=True, text=True,
                              timeout=900)

    golden = json.loads(gamechip("--positions", "1", "--depth", "3", "--json").stdout)
    done = gamechip("--positions", "1", "--depth", "3", "--sim", "verilator", "--out", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["sim"] == "verilator" and report["mismatches"] == 0
    assert report["models"] == golden["models"]
    models = report["models"].values()
    assert report["transactions"] == sum(m["writes"] + m["reads"] for m in models)
    assert report["checked"] > report["transactions"]   # every response, and every rebuilt board
    assert "transactions" in done.stderr   # progress
    bad = gamechip("--positions", "2", "--depth", "2", "--sim", "verilator", "--out", "/proc/no/such")
    assert bad.returncode == 2 and "--out" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
