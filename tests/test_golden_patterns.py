"""The pattern evaluator's golden side (golden/patterns.py): instances, indexes, symmetry, the
weight file, and the value against golden/slow.py's grid walk."""

import random
import re
from functools import lru_cache

import pytest

from golden.board import parse_board, start_position
from golden.othello import legal_moves
from golden.patterns import INSTANCES, PATTERN_NAMES, PATTERNS, WEIGHT_MAX, WEIGHT_MIN, PatternWeights, \
    WeightFileError, board_symmetries, check_symmetric, default_weights, format_weights, instance_index, \
    parse_weights, pattern_evaluate, pattern_value, symmetric_indexes, symmetric_pairs, table_size
from golden.positions import random_game_positions, random_occupancy
from golden.slow import slow_pattern_value


def transformed(pos, perm):
    from golden.board import Position

    def image(bitboard):
        return sum(1 << perm[sq] for sq in range(64) if bitboard >> sq & 1)

    return Position(image(pos.black), image(pos.white), pos.white_to_move)


def positions(seed, games=6, occupancies=20):
    rng = random.Random(seed)
    out = [start_position()]
    for _ in range(games):
        out += random_game_positions(rng)
    out += [random_occupancy(rng) for _ in range(occupancies)]
    return out


@lru_cache(maxsize=None)
def random_symmetric_weights(seed, stage_limits=(20, 40)):
    """Random weights, equal on every pair of symmetric orderings (small enough that sums stay
    mostly inside the value range)."""
    rng = random.Random(seed)
    stages = []
    for _ in range(len(stage_limits) + 1):
        tables = []
        for name in PATTERN_NAMES:
            table = [rng.randint(WEIGHT_MIN, WEIGHT_MAX) // 8 for _ in range(table_size(name))]
            for index, other in symmetric_pairs(name):
                table[other] = table[index]
            tables.append(tuple(table))
        stages.append(tuple(tables))
    return PatternWeights(stage_limits, tuple(stages))


@pytest.fixture(scope="module")
def random_weights():
    return random_symmetric_weights(46)


def test_instances_are_the_pattern_images():
    assert len(board_symmetries()) == 8 and len(set(board_symmetries())) == 8
    counts = {name: sum(1 for inst in INSTANCES if inst.pattern == name) for name in PATTERN_NAMES}
    assert counts == {"edge": 4, "row2": 4, "row3": 4, "row4": 4, "diag8": 2, "diag7": 4, "diag6": 4,
                      "diag5": 4, "diag4": 4, "corner3x3": 4}
    for inst in INSTANCES:
        assert len(set(inst.squares)) == len(PATTERNS[inst.pattern])
    # every edge square lies in exactly two edge instances (the corners) or one
    edge_cover = [sum(sq in inst.squares for inst in INSTANCES if inst.pattern == "edge") for sq in range(64)]
    assert edge_cover[0] == edge_cover[63] == 2 and edge_cover[3] == 1 and edge_cover[27] == 0


def test_index_digits_by_hand():
    """A1 own, B1 opp, the rest of the first rank empty: the edge instance A1..H1 reads 1 + 2*3."""
    pos = parse_board("XO" + "-" * 62 + " X")
    edge = next(inst for inst in INSTANCES if inst.squares == PATTERNS["edge"])
    assert instance_index(edge, pos.own, pos.opp) == 1 + 2 * 3
    assert instance_index(edge, pos.opp, pos.own) == 2 + 1 * 3


def test_symmetric_instances_index_alike():
    """Under each of the 8 symmetries, the multiset of (pattern, index up to the pattern's own
    symmetries) of a position's instances is that of its image."""
    def signature(pos):
        return sorted((inst.pattern, min(symmetric_indexes(inst.pattern, instance_index(inst, pos.own, pos.opp))))
                      for inst in INSTANCES)

    for pos in positions(1, games=2, occupancies=10):
        expected = signature(pos)
        for perm in board_symmetries():
            assert signature(transformed(pos, perm)) == expected


def test_value_is_invariant_under_the_symmetries(random_weights):
    for weights in (random_weights, default_weights()):
        for pos in positions(2, games=2, occupancies=10):
            value = pattern_value(pos.own, pos.opp, weights)
            for perm in board_symmetries()[1:]:
                image = transformed(pos, perm)
                assert pattern_value(image.own, image.opp, weights) == value, (pos.text(), perm[:8])


def test_value_agrees_with_the_grid_walk(random_weights):
    """golden/slow.py walks each pattern on a grid of characters: the same value on game
    positions, random occupancies and finished boards, with random and with trained weights."""
    for weights in (random_weights, default_weights()):
        for pos in positions(3):
            assert pattern_evaluate(pos, weights).value == slow_pattern_value(pos, weights, PATTERN_NAMES), pos.text()


def test_evaluation_lists_every_instance(random_weights):
    pos = positions(4, games=1, occupancies=0)[20]
    evaluation = pattern_evaluate(pos, random_weights)
    assert len(evaluation.terms) == len(INSTANCES)
    assert evaluation.raw == sum(term.weight for term in evaluation.terms)
    assert evaluation.value == max(-256, min(255, evaluation.raw))
    finished = parse_board("X" * 30 + "-" * 34 + " O")    # white has no disc: nobody can move
    assert not legal_moves(finished.own, finished.opp) and not legal_moves(finished.opp, finished.own)
    assert pattern_evaluate(finished, random_weights).value == 4 * (0 - 30)


def test_the_committed_weight_file_is_symmetric_and_round_trips():
    weights = default_weights()
    assert check_symmetric(weights) == []
    assert any(line.startswith("command: ") for line in weights.provenance)
    assert any(line.startswith("corpus: sha256 ") for line in weights.provenance)
    assert parse_weights(format_weights(weights)) == weights


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("# gamechip-pattern-weights 1", "# something else"), "not a pattern weight file"),
    (lambda t: t.replace("# pattern-set: ", "# pattern-set: 0"), "made for pattern set"),
    (lambda t: re.sub(r"(table 0 edge\n)-?\d+", r"\g<1>999", t), "outside"),
    (lambda t: t.replace("table 1 diag4", "table 1 diag9"), "expected 'table STAGE PATTERN'"),
    (lambda t: t[:t.index("table 2 corner3x3")], "a table is missing"),
    (lambda t: t.replace("# weight-bits: 8", "# weight-bits: 9"), "weight-bits must be 8"),
])
def test_a_bad_weight_file_is_one_line(change, message):
    text = format_weights(random_symmetric_weights(7, stage_limits=(20, 40)))
    with pytest.raises(WeightFileError, match=message) as error:
        parse_weights(change(text))
    assert "\n" not in str(error.value)


def negamax_with_patterns(pos, depth, weights):
    """Plain negamax, no pruning, the pattern value at the leaves (the search's reference)."""
    from golden.othello import pass_move, play
    from golden.board import squares_of

    own_moves = legal_moves(pos.own, pos.opp)
    finished = not own_moves and not legal_moves(pos.opp, pos.own)
    if depth == 0 or finished:
        return max(-255, pattern_value(pos.own, pos.opp, weights, finished))
    if not own_moves:
        return -negamax_with_patterns(pass_move(pos), depth - 1, weights)
    return max(-negamax_with_patterns(play(pos, move), depth - 1, weights) for move in squares_of(own_moves))


@pytest.mark.parametrize("kernel", ["ints", pytest.param("words", marks=pytest.mark.full)])
def test_the_search_with_patterns_has_the_negamax_value(kernel, random_weights):
    from golden.search import search_events

    rng = random.Random(9)
    games = random_game_positions(rng)
    weights = random_weights if kernel == "ints" else default_weights()
    for pos in games[12::16] + [games[-2]]:
        result = search_events(pos, 3, kernel=kernel, pattern=weights)
        assert result.value == negamax_with_patterns(pos, 3, weights), pos.text()
