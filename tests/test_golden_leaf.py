"""Tests of the golden model's leaf blocks: evaluator (docs/spec.md §4), node
ordering (section 5) and the openings table (section 6).

Each result is recomputed by a different route from the module under test:
square-by-square loops and golden/slow.py for the evaluator terms, literal
weight tables written out here for the evaluation formulas, a dict built
from every prefix for the book. Random inputs come from fixed seeds and
failure messages carry the board text or the move record.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest

from golden.board import (
    START,
    BoardError,
    Position,
    format_game_record,
    parse_board,
    parse_game_record,
    parse_square,
    popcount,
    square_name,
    squares_of,
)
from golden.evaluator import (
    CORNERS,
    DEFAULT,
    HEAVY,
    STAGES,
    X_SQUARES,
    Evaluation,
    Weights,
    evaluate,
    saturate,
)
from golden.openings import (
    DEFAULT_PATH,
    Opening,
    OpeningsError,
    book_lines,
    book_move,
    contest_lines,
    load_openings,
)
from golden.ordering import STATIC_ORDER, move_order, next_move, ordered_moves
from golden.othello import game_over, legal_moves, play
from golden.positions import random_occupancy, random_played
from golden.slow import slow_legal_moves, slow_stable
from golden.symmetry import MIRRORS, SYMMETRIES, transform_moves, transform_position

N_RANDOM = 2000  # of each kind


@lru_cache(maxsize=None)
def random_positions() -> tuple[Position, ...]:
    rng = random.Random(4242)
    occupancy = tuple(random_occupancy(rng) for _ in range(N_RANDOM))
    played = tuple(random_played(random.Random(4243), N_RANDOM))
    return occupancy + played


def sq(name: str) -> int:
    return parse_square(name)


def grid(rows: list[str], side: str = "X") -> Position:
    """Board from 8 strings written rank 8 first (as drawn), A..H left to right."""
    assert len(rows) == 8 and all(len(r) == 8 for r in rows)
    text = "".join(reversed(rows)) + " " + side
    return parse_board(text)


# --------------------------------------------------------------------------
# Evaluator: independent recomputation

# Written out here from docs/spec.md §4 and the documented Table I powers of
# two (High x8, Moderate x4, Low x1, 0), not read from golden.evaluator.
FIXED_WEIGHTS = {
    "default": {"corners": 4, "xsquares": -2, "mobility": 2, "stable": 1, "terminal": 1},
    "heavy": {"corners": 4, "xsquares": -2, "mobility": 8, "stable": 4, "terminal": 8},
}
ADAPTIVE_WEIGHTS = {
    "early": {"mobility": 8, "stable": 1, "corners": 4, "discs": 1},
    "lower_mid": {"mobility": 8, "stable": 4, "corners": 8, "discs": 1},
    "upper_mid": {"mobility": 4, "stable": 8, "corners": 8, "discs": 4},
    "endgame": {"mobility": 0, "stable": 0, "corners": 0, "discs": 8},
}
CONFIGS = {"default": DEFAULT, "heavy": HEAVY}
CORNER_NAMES = ("A1", "H1", "A8", "H8")
X_NAMES = ("B2", "G2", "B7", "G7")


def clamp9(value: int) -> int:
    if value > 255:
        return 255
    if value < -256:
        return -256
    return value


def stage_name(discs: int) -> str:
    if discs <= 20:
        return "early"
    if discs <= 36:
        return "lower_mid"
    if discs <= 53:
        return "upper_mid"
    return "endgame"


def colour_at(pos: Position, square: int) -> str:
    if pos.black >> square & 1:
        return "X"
    if pos.white >> square & 1:
        return "O"
    return "-"


def reference_terms(pos: Position) -> dict:
    """Every term by square loops and golden/slow.py, as (own, opp)."""
    me = pos.side
    you = "O" if me == "X" else "X"
    cells = [colour_at(pos, s) for s in range(64)]

    def count(names, who):
        return sum(1 for n in names if cells[parse_square(n)] == who)

    own_moves = slow_legal_moves(pos)
    opp_moves = slow_legal_moves(pos.swap_side())
    return {
        "corners": (count(CORNER_NAMES, me), count(CORNER_NAMES, you)),
        "xsquares": (count(X_NAMES, me), count(X_NAMES, you)),
        "mobility": (len(own_moves), len(opp_moves)),
        "stable": (
            len(slow_stable(pos, white=me == "O")),
            len(slow_stable(pos, white=me == "X")),
        ),
        "discs": (cells.count(me), cells.count(you)),
        "terminal": not own_moves and not opp_moves,
    }


def reference_values(terms: dict, config: str) -> tuple[int, int]:
    """(fixed_raw, adaptive_raw) from the terms by the written-out tables."""
    fixed_w = FIXED_WEIGHTS[config]

    def diff(key):
        own, opp = terms[key]
        return own - opp

    if terms["terminal"]:
        value = fixed_w["terminal"] * diff("discs")
        return value, value
    fixed = sum(fixed_w[k] * diff(k) for k in ("corners", "xsquares", "mobility", "stable"))
    stage = stage_name(sum(terms["discs"]))
    adaptive = sum(w * diff(k) for k, w in ADAPTIVE_WEIGHTS[stage].items())
    return fixed, adaptive


def check_evaluation(pos: Position, config: str, terms: dict | None = None) -> Evaluation:
    """Evaluate with ``config`` and compare every field with the reference."""
    terms = terms or reference_terms(pos)
    ev = evaluate(pos, CONFIGS[config])
    where = f"board {pos.text()} ({config})"
    for key in ("corners", "xsquares", "mobility", "stable", "discs"):
        assert getattr(ev, key) == terms[key], f"{key}: {getattr(ev, key)} != {terms[key]}; {where}"
    assert ev.terminal == terms["terminal"], where
    assert STAGES[ev.stage] == stage_name(sum(terms["discs"])), where
    fixed, adaptive = reference_values(terms, config)
    assert (ev.fixed_raw, ev.adaptive_raw) == (fixed, adaptive), where
    assert (ev.fixed, ev.adaptive) == (clamp9(fixed), clamp9(adaptive)), where
    return ev


def test_evaluator_random_positions_vs_reference():
    seen_terminal = seen_stable = 0
    stages = set()
    for pos in random_positions():
        terms = reference_terms(pos)
        for config in CONFIGS:
            check_evaluation(pos, config, terms)
        seen_terminal += terms["terminal"]
        seen_stable += sum(terms["stable"]) > 0
        stages.add(stage_name(sum(terms["discs"])))
    # The sample must exercise every branch it is meant to.
    assert seen_terminal > 10 and seen_stable > 100, (seen_terminal, seen_stable)
    assert stages == set(STAGES)


def test_evaluator_start_position():
    ev = check_evaluation(START, "default")
    assert ev.to_dict() == {
        "corners": [0, 0],
        "xsquares": [0, 0],
        "mobility": [4, 4],
        "stable": [0, 0],
        "discs": [2, 2],
        "stage": "early",
        "fixed": 0,
        "adaptive": 0,
        "terminal": False,
    }
    assert ev.done_cycle == 0


def test_evaluator_to_dict_is_json():
    for pos in random_positions()[:200]:
        ev = evaluate(pos)
        d = ev.to_dict()
        assert json.loads(json.dumps(d)) == d
        assert set(d) == {"corners", "xsquares", "mobility", "stable", "discs", "stage", "fixed", "adaptive",
                          "terminal"}
        assert d["stage"] in STAGES and isinstance(d["terminal"], bool)
        for key in ("corners", "xsquares", "mobility", "stable", "discs"):
            assert d[key] == list(getattr(ev, key))


def test_evaluator_constants():
    assert tuple(map(square_name, CORNERS)) == CORNER_NAMES
    assert tuple(map(square_name, X_SQUARES)) == X_NAMES
    assert STAGES == ("early", "lower_mid", "upper_mid", "endgame")
    assert (DEFAULT.corner, DEFAULT.xsquare, DEFAULT.mobility, DEFAULT.stable, DEFAULT.terminal) == (4, -2, 2, 1, 1)
    assert DEFAULT.stage_limits == (20, 36, 53)
    assert DEFAULT.adaptive_shifts == (
        (3, 0, 2, 0),
        (3, 2, 3, 0),
        (2, 3, 3, 2),
        (None, None, None, 3),
    )
    assert (HEAVY.mobility, HEAVY.stable, HEAVY.terminal) == (8, 4, 8)
    assert HEAVY.adaptive_shifts == DEFAULT.adaptive_shifts
    assert hash(DEFAULT) != hash(HEAVY)  # usable as a cache / design key


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"corner": 4.0}, "weight corner must be an int"),
        ({"terminal": True}, "weight terminal must be an int"),
        ({"stage_limits": (20, 20, 53)}, "stage_limits must be 3 increasing"),
        ({"stage_limits": (20, 36)}, "stage_limits must be 3 increasing"),
        ({"adaptive_shifts": ((3, 0, 2, 0),) * 3}, "adaptive_shifts must be a 4x4"),
        ({"adaptive_shifts": ((3, 0, 2, -1),) * 4}, "adaptive shift for discs in stage early"),
        ({"adaptive_shifts": ((3, 0, 2, 0),) * 3 + ((None, None, 2.0, 3),)}, "corners in stage endgame"),
    ],
)
def test_weights_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Weights(**kwargs)


def test_evaluator_rejects_other_sizes():
    from golden.board import start_position

    with pytest.raises(BoardError, match="8x8"):
        evaluate(start_position(6))


def test_saturate():
    assert [saturate(v) for v in (-1000, -257, -256, -255, 0, 254, 255, 256, 1000)] == [
        -256, -256, -256, -255, 0, 254, 255, 255, 255,
    ]


# A heavily one-sided but unfinished board: own (X) fills ranks 1..6 (48
# discs, every one stable), O fills rank 7, rank 8 empty. X has the 8 moves
# on rank 8, O has none.
ONE_SIDED = [
    "--------",
    "OOOOOOOO",
    "XXXXXXXX",
    "XXXXXXXX",
    "XXXXXXXX",
    "XXXXXXXX",
    "XXXXXXXX",
    "XXXXXXXX",
]


def test_saturation_constructed_boards():
    pos = grid(ONE_SIDED, "X")
    ev = check_evaluation(pos, "heavy")
    assert not ev.terminal
    assert ev.mobility == (8, 0) and ev.stable == (48, 0) and ev.corners == (2, 0) and ev.xsquares == (2, 2)
    assert ev.discs == (48, 8) and STAGES[ev.stage] == "endgame"
    # 4*2 - 2*0 + 8*8 + 4*48 = 264 ; adaptive (endgame) 8 * 40 = 320
    assert (ev.fixed_raw, ev.fixed) == (264, 255)
    assert (ev.adaptive_raw, ev.adaptive) == (320, 255)
    # The other side to move: every difference changes sign.
    ev = check_evaluation(pos.swap_side(), "heavy")
    assert not ev.terminal and ev.mobility == (0, 8)
    assert (ev.fixed_raw, ev.fixed) == (-264, -256)
    assert (ev.adaptive_raw, ev.adaptive) == (-320, -256)
    # With the default weights the fixed value fits: 8 - 0 + 16 + 48 = 72.
    ev = check_evaluation(pos, "default")
    assert (ev.fixed_raw, ev.fixed) == (72, 72) and ev.adaptive == 255


def test_saturation_exact_limits():
    """Raw values at the limits pass through; one step beyond is clamped.

    Endgame adaptive = 8 * disc difference, so build unfinished boards with
    ranks 1..7 full (plus 0..2 discs on rank 8): the first k squares (index
    order) for one colour, the rest for the other, either side to move.
    """
    by_raw = {}
    for extra in (0, 1, 2):
        squares = list(range(56)) + [63, 62][:extra]
        for k in range(len(squares) + 1):
            a = sum(1 << s for s in squares[:k])
            b = sum(1 << s for s in squares[k:])
            for pos in (Position(a, b, False), Position(b, a, True)):
                ev = evaluate(pos)
                if not ev.terminal:
                    by_raw.setdefault(ev.adaptive_raw, pos)
    for raw, clamped in ((248, 248), (256, 255), (264, 255), (-248, -248), (-256, -256), (-264, -256)):
        assert raw in by_raw, raw
        ev = check_evaluation(by_raw[raw], "default")
        assert STAGES[ev.stage] == "endgame"
        assert (ev.adaptive_raw, ev.adaptive) == (raw, clamped), by_raw[raw].text()


def test_saturation_found_in_random_play():
    """Played positions reach the clamp on both ends too (adaptive, endgame)."""
    hits = {"adaptive+": 0, "adaptive-": 0}
    for pos in random_positions()[N_RANDOM:]:
        ev = evaluate(pos)
        if ev.adaptive_raw > 255:
            hits["adaptive+"] += 1
            assert ev.adaptive == 255
        if ev.adaptive_raw < -256:
            hits["adaptive-"] += 1
            assert ev.adaptive == -256
    assert all(hits.values()), hits


@pytest.mark.parametrize("symmetry", SYMMETRIES + MIRRORS)
def test_heavy_fixed_saturates_under_symmetry(symmetry):
    """The one-sided board in every orientation: the same terms, both clamps."""
    pos = transform_position(symmetry, grid(ONE_SIDED, "X"))
    for side, raw, clamped in ((pos, 264, 255), (pos.swap_side(), -264, -256)):
        ev = check_evaluation(side, "heavy")
        assert not ev.terminal
        assert (ev.fixed_raw, ev.fixed) == (raw, clamped), side.text()


def test_terminal_positions():
    rng = random.Random(5)
    # Full boards: disc difference, times the terminal weight, saturated.
    for _ in range(200):
        black = rng.getrandbits(64)
        pos = Position(black, ~black & (2**64 - 1), rng.random() < 0.5)
        assert game_over(pos)
        for config in CONFIGS:
            ev = check_evaluation(pos, config)
            d = ev.discs[0] - ev.discs[1]
            assert ev.terminal and ev.fixed_raw == ev.adaptive_raw == FIXED_WEIGHTS[config]["terminal"] * d
            assert STAGES[ev.stage] == "endgame"
    # One colour wiped out (9-move game) and the all-black board.
    wiped = START
    for m in parse_game_record("e6f4e3f6g5d6e7f5c5"):
        wiped = play(wiped, m)
    assert popcount(wiped.white) == 0 and game_over(wiped) and wiped.side == "O"
    ev = check_evaluation(wiped, "default")
    assert ev.terminal and (ev.fixed, ev.adaptive) == (-13, -13) and ev.discs == (0, 13)
    ev = check_evaluation(wiped.swap_side(), "heavy")
    assert (ev.fixed_raw, ev.fixed) == (104, 104)
    full = Position(2**64 - 1, 0, False)
    ev = check_evaluation(full, "heavy")
    assert (ev.fixed_raw, ev.fixed, ev.adaptive) == (512, 255, 255)
    ev = check_evaluation(full.swap_side(), "heavy")
    assert (ev.fixed_raw, ev.fixed, ev.adaptive) == (-512, -256, -256)
    ev = check_evaluation(full.swap_side(), "default")
    assert (ev.fixed, ev.adaptive) == (-64, -64)
    # Neither side can move on a board with empty squares (not a full board).
    blocked = grid(["XXXXXXX-"] + ["XXXXXXXX"] * 7, "O")
    ev = check_evaluation(blocked, "default")
    assert ev.terminal and ev.fixed == -63


@pytest.mark.parametrize(
    "discs, expected",
    [
        (0, "early"), (4, "early"), (20, "early"),
        (21, "lower_mid"), (36, "lower_mid"),
        (37, "upper_mid"), (53, "upper_mid"),
        (54, "endgame"), (63, "endgame"), (64, "endgame"),
    ],
)
def test_stage_boundaries(discs, expected):
    assert stage_name(discs) == expected
    rng = random.Random(discs)
    for _ in range(20):
        squares = rng.sample(range(64), discs)
        black = white = 0
        for s in squares:
            if rng.random() < 0.5:
                black |= 1 << s
            else:
                white |= 1 << s
        pos = Position(black, white, rng.random() < 0.5)
        ev = check_evaluation(pos, "default")
        assert STAGES[ev.stage] == expected, pos.text()


def test_stage_limits_are_parameters():
    w = Weights(stage_limits=(10, 20, 30))
    assert [w.stage(n) for n in (10, 11, 20, 21, 30, 31)] == [0, 1, 1, 2, 2, 3]


def test_done_cycle_hand_checked():
    # No corner for either colour: both evaluators answer at once.
    assert evaluate(START).done_cycle == 0
    # Corners and full edges only: the border is combinational, no inner disc.
    edges = grid(["XXXXXXXX", "X------X", "X------X", "X--OX--X", "X--XO--X", "X------X", "X------X", "XXXXXXXX"])
    assert evaluate(edges).done_cycle == 0
    # Ranks 1-2 full of X: B2/G2 (next to A2/H2) stable after update 1,
    # C2/F2 after 2, D2/E2 after 3; update 4 changes nothing -> done_cycle 3.
    two_ranks = grid(["--------"] * 5 + ["---O----", "XXXXXXXX", "XXXXXXXX"])
    ev = evaluate(two_ranks)
    assert ev.stable == (16, 0) and ev.done_cycle == 3
    # The same from the other side to move (max of the two evaluators).
    assert evaluate(two_ranks.swap_side()).done_cycle == 3
    # O's chain is the longer one: O fills ranks 7-8 (done after 3 updates;
    # O's D6 never becomes stable: C6 and E6 are empty); X has A1 and D3.
    o_side = grid(["OOOOOOOO", "OOOOOOOO", "---O----", "--------", "--------", "---X----", "--------", "X-------"])
    ev = evaluate(o_side)
    assert ev.stable == (1, 16) and ev.done_cycle == 3
    # A single inner disc at B2 next to a full own rank 1 and file A: 1 update.
    b2 = grid(["X-------"] * 6 + ["XX-O----", "XXXXXXXX"])
    ev = evaluate(b2)
    assert ev.done_cycle == 1 and ev.stable[0] == popcount(b2.black)


def reference_done_cycle(own: int) -> int:
    """Hardware cycle count by square loops: border squares combinational
    (their value is the final one), inner flip-flops start at 0 and update
    together once per cycle; count the updates that changed a flip-flop."""
    final = slow_stable(Position(own, 0, False), white=False)
    border = {s for s in range(64) if s % 8 in (0, 7) or s // 8 in (0, 7)}
    stable_border = final & border
    ff: set[int] = set()
    changes = 0
    while True:
        nxt = set()
        for s in range(64):
            if s in border or not own >> s & 1:
                continue
            r, c = divmod(s, 8)
            ok = True
            for (dr1, dc1), (dr2, dc2) in (((0, -1), (0, 1)), ((-1, 0), (1, 0)), ((-1, 1), (1, -1)), ((-1, -1), (1, 1))):
                n1 = (r + dr1) * 8 + c + dc1
                n2 = (r + dr2) * 8 + c + dc2
                if not ({n1, n2} & (stable_border | ff)):
                    ok = False
                    break
            if ok:
                nxt.add(s)
        if nxt == ff:
            return changes
        ff = nxt
        changes += 1


def test_done_cycle_vs_reference():
    positions = random_positions()
    # Dense single-colour boards have long flip-flop chains; add some.
    rng = random.Random(9)
    dense = []
    for _ in range(150):
        own = sum(1 << s for s in range(64) if rng.random() < 0.85)
        dense.append(Position(own, ~own & (2**64 - 1) & sum(1 << s for s in range(64) if rng.random() < 0.5), False))
    longest = 0
    for pos in positions[:300] + positions[N_RANDOM:N_RANDOM + 300] + tuple(dense):
        expected = max(reference_done_cycle(pos.own), reference_done_cycle(pos.opp))
        got = evaluate(pos).done_cycle
        assert got == expected, pos.text()
        longest = max(longest, got)
    assert longest >= 4, longest


# --------------------------------------------------------------------------
# Node ordering


def test_static_order():
    assert sorted(STATIC_ORDER) == list(range(64))
    assert [square_name(s) for s in STATIC_ORDER[:4]] == ["A1", "H1", "A8", "H8"]
    assert [square_name(s) for s in STATIC_ORDER[-4:]] == ["B2", "G2", "B7", "G7"]
    middle = STATIC_ORDER[4:-4]
    assert list(middle) == sorted(middle) and len(middle) == 56
    assert move_order() == STATIC_ORDER
    for pv in range(64):
        order = move_order(pv)
        assert order[0] == pv and sorted(order) == list(range(64))
        assert tuple(s for s in order[1:]) == tuple(s for s in STATIC_ORDER if s != pv)


def walk(legal: int, pv=None) -> list[int]:
    out, last = [], None
    for _ in range(65):
        last = next_move(legal, last, pv)
        if last is None:
            return out
        out.append(last)
    raise AssertionError("next_move walk did not terminate")


def test_next_move_walk_random_vectors():
    rng = random.Random(11)
    vectors = [0, 1, 1 << 63, 2**64 - 1] + [1 << s for s in range(64)]
    vectors += [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(500)]
    vectors += [legal_moves(p.own, p.opp) for p in random_positions()[N_RANDOM:N_RANDOM + 500]]
    for legal in vectors:
        for pv in (None, rng.randrange(64), *(squares_of(legal)[:1])):
            visited = walk(legal, pv)
            assert sorted(visited) == squares_of(legal), hex(legal)
            assert len(set(visited)) == len(visited)
            order = move_order(pv)
            assert visited == sorted(visited, key=order.index)
            assert ordered_moves(legal, pv) == visited
            if pv is not None and legal >> pv & 1:
                assert visited[0] == pv
            if pv is not None and not legal >> pv & 1:
                assert pv not in visited


def test_next_move_edge_vectors():
    assert next_move(0) is None and ordered_moves(0) == []
    assert next_move(0, pv=5) is None and next_move(0, last=5, pv=5) is None
    full = 2**64 - 1
    assert ordered_moves(full) == list(STATIC_ORDER)
    assert ordered_moves(full, pv=sq("D3")) == [sq("D3")] + [s for s in STATIC_ORDER if s != sq("D3")]
    assert next_move(full, last=STATIC_ORDER[-1]) is None
    assert next_move(full, last=sq("G7"), pv=sq("G7")) == sq("A1")
    b2 = 1 << sq("B2")
    assert ordered_moves(b2) == [sq("B2")] and next_move(b2, last=sq("B2")) is None
    assert next_move(b2, last=sq("H8")) == sq("B2")
    assert next_move(b2, last=sq("G7")) is None  # G7 comes after B2


def test_next_move_last_not_legal():
    legal = (1 << sq("A1")) | (1 << sq("C3")) | (1 << sq("F6")) | (1 << sq("B7"))
    assert ordered_moves(legal) == [sq("A1"), sq("C3"), sq("F6"), sq("B7")]
    assert next_move(legal, last=sq("H1")) == sq("C3")   # H1 not legal, after A1
    assert next_move(legal, last=sq("D4")) == sq("F6")
    assert next_move(legal, last=sq("H8")) == sq("C3")   # corners come first
    assert next_move(legal, last=sq("G2")) == sq("B7")   # X-square, not legal
    assert next_move(legal, last=sq("G7")) is None
    # With a pv that is not legal: pv is first in the order but skipped.
    assert next_move(legal, pv=sq("E5")) == sq("A1")
    assert next_move(legal, last=sq("E5"), pv=sq("E5")) == sq("A1")
    # pv legal: first, and not repeated after its static slot.
    assert ordered_moves(legal, pv=sq("F6")) == [sq("F6"), sq("A1"), sq("C3"), sq("B7")]
    assert next_move(legal, last=sq("C3"), pv=sq("F6")) == sq("B7")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: next_move(-1), "legal-move vector"),
        (lambda: next_move(1 << 64), "legal-move vector"),
        (lambda: next_move(1, last=64), "last must be a square"),
        (lambda: next_move(1, pv=-1), "pv must be a square"),
        (lambda: move_order(True), "pv must be a square"),
    ],
)
def test_ordering_bad_input(call, message):
    with pytest.raises(BoardError, match=message):
        call()


# --------------------------------------------------------------------------
# Openings table


@lru_cache(maxsize=None)
def openings() -> tuple[Opening, ...]:
    return tuple(load_openings())


def replay(moves) -> Position:
    """Replay from the start; passes are not allowed."""
    pos = START
    for k, m in enumerate(moves):
        assert legal_moves(pos.own, pos.opp), f"pass needed before move {k + 1} of {format_game_record(moves)}"
        pos = play(pos, m)
    return pos


def test_openings_file():
    ops = openings()
    assert DEFAULT_PATH.name == "openings.tsv" and DEFAULT_PATH.parent.name == "golden"
    contest = contest_lines(ops)
    assert len(contest) == 51
    assert [o for o in ops if o.contest] == contest
    assert all(isinstance(o.moves, tuple) and o.moves for o in ops)
    assert {o.list for o in ops} == {"classic", "extra"}
    assert len({o.moves for o in ops}) == len(ops), "duplicate lines"
    for o in ops:
        replay(o.moves)
    # Header claim: contest = classic lines that are no prefix of another classic line, plus Spencer.
    classic = [o.moves for o in ops if o.list == "classic"]
    leaves = {m for m in classic if not any(t != m and t[: len(m)] == m for t in classic)}
    assert {o.moves for o in contest} == leaves | {o.moves for o in ops if o.name == "Spencer"}
    assert ops[0].name == "Perpendicular" and ops[0].record == "f5d6"


def test_book_lines_expansion():
    table = book_lines()
    contest = contest_lines(openings())
    assert len(table) <= 204 and len(table) == len(set(table))
    assert len(table) == 204  # no contest line is the image of another
    assert table == book_lines(openings()) == book_lines(list(openings()))
    # Table order: each contest line, then its images in SYMMETRIES order.
    expected = []
    for o in contest:
        for name in SYMMETRIES:
            image = tuple(transform_moves(name, o.moves))
            if image not in expected:
                expected.append(image)
    assert table == expected
    assert table[0] == contest[0].moves
    for line in table:
        replay(line)
        for name in SYMMETRIES:
            assert tuple(transform_moves(name, line)) in set(table), format_game_record(line)
    # The four first moves of black are all in the book.
    assert {line[0] for line in table} == {sq("F5"), sq("E6"), sq("D3"), sq("C4")}


def test_book_lines_drop_duplicates():
    # A line given twice and a line that is an image of another: no repeats.
    f5d6 = Opening("a", tuple(parse_game_record("f5d6")), True, "x")
    e6f4 = Opening("b", tuple(transform_moves("diag_a1h8", f5d6.moves)), True, "x")
    table = book_lines([f5d6, f5d6, e6f4, Opening("c", (sq("F5"),), False, "x")])
    assert len(table) == 4 and len(set(table)) == 4
    assert table[0] == f5d6.moves


def first_continuations(table) -> dict:
    """Every proper prefix of every line -> next move of the first line having it."""
    out: dict[tuple, int] = {}
    for line in table:
        for n in range(len(line)):
            out.setdefault(tuple(line[:n]), line[n])
    return out


def test_book_move_every_prefix():
    table = book_lines()
    first = first_continuations(table)
    for prefix, move in first.items():
        got = book_move(prefix)
        assert got == move, format_game_record(prefix)
        assert book_move(list(prefix), table) == move
        assert any(line[: len(prefix)] == prefix and line[len(prefix)] == got for line in table)
        replay(prefix + (got,))
    # Complete lines are not proper prefixes of themselves: no move unless
    # another line extends them (none does).
    for line in table:
        assert book_move(line) is None, format_game_record(line)
    assert book_move(()) == table[0][0] == sq("F5")
    assert book_move((sq("F5"),)) == sq("D6")  # first line: Aubrey / Tanaka


def test_book_move_named_examples():
    # Black opens d3 (the diag_a8h1 image of f5): White's book reply is the
    # image of d6 in the first line's d3-image.
    d3 = (sq("D3"),)
    assert book_move(d3) == transform_moves("diag_a8h1", [sq("F5"), sq("D6")])[1]
    # An opening from the middle of the file: Parallel (f5f4) is a whole
    # line, so after f5f4 there is no book move.
    assert book_move(parse_game_record("f5f4")) is None
    # Buffalo prefix: the first line with f5f6e6d6c3 is Hokuriku Buffalo.
    assert book_move(parse_game_record("f5f6e6d6c3")) == sq("D3")


def test_book_out_of_book_stays_out():
    rng = random.Random(31)
    table = book_lines()
    left = 0
    for _ in range(300):
        pos, moves, out = START, [], False
        for _ in range(24):
            legal = legal_moves(pos.own, pos.opp)
            if not legal:
                break
            suggestion = book_move(moves, table)
            if out:
                assert suggestion is None, format_game_record(moves)
            elif suggestion is None:
                out = True
                left += 1
            if suggestion is not None:
                assert legal >> suggestion & 1, format_game_record(moves)
            # Follow the book most of the time, deviate randomly otherwise.
            if suggestion is not None and rng.random() < 0.7:
                move = suggestion
            else:
                move = rng.choice(squares_of(legal))
            moves.append(move)
            pos = play(pos, move)
    assert left > 250


@pytest.mark.parametrize(
    "body, message",
    [
        ("name\tmoves\tcontest\tlist\nA\tf5d6\t1\n", r"line 2: expected 4 tab-separated columns .* got 3"),
        ("# comment\nname\tmoves\tcontest\tlist\nA\tf5d6\t1\tclassic\tmore\n", r"line 3: expected 4 .* got 5"),
        ("name\tmoves\tcontest\tlist\nA f5d6 1 classic\n", r"line 2: expected 4 tab-separated columns"),
        ("name\tmoves\tcontest\tlist\nA\tf5d6\t1\tc\nB\tf5z9\t1\tc\n", r"line 3: opening 'B': game record move 2: bad square 'z9'"),
        ("name\tmoves\tcontest\tlist\nA\tf5d\t1\tc\n", r"line 2: opening 'A': game record .* odd length"),
        ("name\tmoves\tcontest\tlist\nA\tf5d6\tyes\tc\n", r"line 2: opening 'A': contest must be 0 or 1, got 'yes'"),
        ("name\tmoves\tcontest\tlist\n\tf5d6\t1\tc\n", r"line 2: empty opening name"),
        ("name\tmoves\tcontest\tlist\nA\t\t1\tc\n", r"line 2: opening 'A' has no moves"),
        ("name\tmoves\tcontest\tlist\nA\tf5d6\t1\t\n", r"line 2: opening 'A': empty list column"),
        (
            "#c\n#c\nname\tmoves\tcontest\tlist\nA\tf5d6\t1\tc\nBad\tf5d6c3a1\t1\tc\n",
            r"line 5: opening 'Bad' \(f5d6c3a1\): move 4 \(A1\) is illegal for O: it flips nothing",
        ),
        (
            "name\tmoves\tcontest\tlist\nBad\tf5f5\t0\tc\n",
            r"line 2: .*move 2 \(F5\) is illegal for O: the square is occupied",
        ),
        (
            "name\tmoves\tcontest\tlist\nBad\td3c4\t0\tc\n",
            r"line 2: opening 'Bad' \(d3c4\): move 2 \(C4\) is illegal for O: it flips nothing",
        ),
        (
            "name\tmoves\tcontest\tlist\nOver\te6f4e3f6g5d6e7f5c5d3\t0\tc\n",
            r"line 2: .*move 10 \(D3\) cannot be played: the game is over after 9 moves",
        ),
        ("A\tf5d6\t1\tc\n", r"line 1: expected the header line"),
        ("# only comments\n", r"no header line"),
    ],
)
def test_malformed_openings(tmp_path, body, message):
    path = tmp_path / "bad.tsv"
    path.write_text(body)
    with pytest.raises(OpeningsError, match=message) as info:
        load_openings(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_openings_missing_file(tmp_path):
    with pytest.raises(OpeningsError, match="cannot read"):
        load_openings(tmp_path / "nope.tsv")


def test_openings_blank_lines_and_crlf(tmp_path):
    path = tmp_path / "ok.tsv"
    path.write_bytes(b"# c\r\n\r\nname\tmoves\tcontest\tlist\r\nA\tf5d6\t1\tc\r\n\r\nB\tf5f4\t0\tc\r\n")
    ops = load_openings(path)
    assert ops == [Opening("A", (sq("F5"), sq("D6")), True, "c"), Opening("B", (sq("F5"), sq("F4")), False, "c")]
    assert book_lines(ops)[0] == (sq("F5"), sq("D6")) and len(book_lines(ops)) == 4
