"""Tests of the golden model (golden/) against the square-by-square reference
(golden/slow.py), published perft counts and hand-worked examples.

Every random input comes from a fixed seed, and every failure message carries
the board text, so a failure can be reproduced with ``parse_board``.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from golden.board import (
    START,
    BoardError,
    Position,
    draw,
    format_board,
    format_game_record,
    parse_board,
    parse_game_record,
    parse_square,
    popcount,
    square_name,
    squares_of,
    start_position,
)
from golden.othello import (
    IllegalMove,
    flips,
    game_over,
    geometry,
    legal_moves,
    must_pass,
    pass_move,
    perft,
    play,
)
from golden.positions import random_game_positions, random_occupancy, random_played
from golden.slow import slow_flips, slow_legal_moves, slow_perft, slow_stable
from golden.stable import edge_stable, stable_discs, stable_iterations
from golden.symmetry import (
    MIRRORS,
    SYMMETRIES,
    transform_bitboard,
    transform_moves,
    transform_position,
    transform_square,
)

SIZES = (4, 6, 8)
# Random positions compared with slow.py, per (kind, size).
COUNTS = {8: 5000, 6: 500, 4: 500}


@lru_cache(maxsize=None)
def occupancy_positions(size: int) -> tuple[Position, ...]:
    rng = random.Random(1000 + size)
    return tuple(random_occupancy(rng, size) for _ in range(COUNTS[size]))


@lru_cache(maxsize=None)
def played_positions(size: int) -> tuple[Position, ...]:
    return tuple(random_played(random.Random(2000 + size), COUNTS[size], size))


def all_random_positions(size: int) -> tuple[Position, ...]:
    return occupancy_positions(size) + played_positions(size)


def bits(squares) -> int:
    return sum(1 << s for s in squares)


def names(bitboard: int, size: int = 8) -> str:
    return " ".join(square_name(s, size) for s in squares_of(bitboard)) or "(none)"


# --------------------------------------------------------------------------
# Board text, squares, game records


START_TEXT = "-" * 24 + "---OX---" + "---XO---" + "-" * 24 + " X"


def test_start_position_text():
    assert START.text() == START_TEXT
    assert parse_board(START_TEXT) == START
    assert START == start_position(8)
    # white D4 (27) and E5 (36), black D5 (35) and E4 (28), black to move
    assert (START.white, START.black, START.white_to_move) == (bits([27, 36]), bits([28, 35]), False)


@pytest.mark.parametrize("size", SIZES)
def test_start_position_generic(size):
    pos = start_position(size)
    lo, hi = size // 2 - 1, size // 2
    assert pos.white == bits([lo * size + lo, hi * size + hi]), pos.text()
    assert pos.black == bits([hi * size + lo, lo * size + hi]), pos.text()
    assert not pos.white_to_move and pos.side == "X"
    assert popcount(legal_moves(pos.own, pos.opp, size)) == 4, pos.text()


@pytest.mark.parametrize("size", SIZES)
def test_board_text_round_trip(size):
    for pos in all_random_positions(size)[:2000]:
        text = format_board(pos)
        assert text == pos.text() == str(pos)
        assert len(text) == size * size + 2 and text[-2] == " " and text[-1] == pos.side, text
        assert parse_board(text, size) == pos, text
        assert parse_board(f"  \n{text}\t\n", size) == pos, text


@pytest.mark.parametrize(
    "text, message",
    [
        (
            START_TEXT[:63] + " X",
            "board text has 63 squares, expected 64 followed by a space and the side to move (X or O)",
        ),
        ("-" + START_TEXT, "board text has 65 squares, expected 64"),
        (START_TEXT[:64], "board text has 64 squares but no side to move"),
        (START_TEXT[:64] + "X", "board text has 65 characters and no space"),
        ("", "board text has 0 characters and no space"),
        (START_TEXT[:10] + "Q" + START_TEXT[11:], "bad character 'Q' at C2: use X, O or -"),
        (START_TEXT[:63] + "x X", "bad character 'x' at H8: use X, O or -"),
        (START_TEXT[:27] + "." + START_TEXT[28:], "bad character '.' at D4"),
        (START_TEXT[:64] + " Z", "side to move must be X or O, got 'Z'"),
        (START_TEXT[:64] + " x", "side to move must be X or O, got 'x'"),
        (START_TEXT[:64] + " XO", "side to move must be X or O, got 'XO'"),
        (START_TEXT[:64] + "  X", "board text has 65 squares"),
    ],
)
def test_board_text_errors(text, message):
    with pytest.raises(BoardError) as err:
        parse_board(text)
    assert message in str(err.value), f"{text!r}: {err.value}"


def test_board_text_errors_other_sizes():
    with pytest.raises(BoardError, match="board text has 64 squares, expected 36"):
        parse_board(START_TEXT, 6)
    with pytest.raises(BoardError, match="bad character 'Q' at D4: use X, O or -"):
        parse_board("-" * 15 + "Q X", 4)
    with pytest.raises(BoardError, match="board size must be one of 4, 6, 8"):
        parse_board(START_TEXT, 7)
    with pytest.raises(BoardError, match="must be a string"):
        parse_board(None)


def test_position_validation():
    with pytest.raises(BoardError, match="square E4 is in both the black and the white bitboard"):
        Position(1 << 28, 1 << 28)
    with pytest.raises(BoardError, match="squares A1, H8 are in both"):
        Position(1 | 1 << 63, 1 | 1 << 63 | 1 << 5)
    with pytest.raises(BoardError, match=r"black bitboard must be an int in 0..2\*\*64-1"):
        Position(1 << 64, 0)
    with pytest.raises(BoardError, match=r"white bitboard must be an int in 0..2\*\*16-1"):
        Position(0, 1 << 16, size=4)
    with pytest.raises(BoardError, match="white bitboard"):
        Position(0, -1)
    with pytest.raises(BoardError, match="white_to_move must be a bool"):
        Position(0, 0, 1)
    with pytest.raises(BoardError, match="board size must be one of 4, 6, 8"):
        Position(0, 0, False, 5)
    assert issubclass(BoardError, ValueError) and issubclass(IllegalMove, BoardError)


def test_position_sides():
    pos = parse_board(START_TEXT[:64] + " O")
    assert (pos.side, pos.own, pos.opp) == ("O", pos.white, pos.black)
    assert (START.side, START.own, START.opp) == ("X", START.black, START.white)
    assert START.swap_side() == pos and pos.swap_side() == START
    assert Position.from_own_opp(pos.own, pos.opp, True) == pos
    assert Position.from_own_opp(START.own, START.opp, False) == START
    assert START.empty == ((1 << 64) - 1) ^ START.black ^ START.white


@pytest.mark.parametrize("size", SIZES)
def test_square_names_round_trip(size):
    seen = set()
    for sq in range(size * size):
        name = square_name(sq, size)
        assert name[0] == "ABCDEFGH"[sq % size] and name[1:] == str(sq // size + 1), name
        assert parse_square(name, size) == sq == parse_square(name.lower(), size), name
        seen.add(name)
    assert len(seen) == size * size


def test_square_names_fixed_points():
    assert parse_square("D3") == 19 and square_name(19) == "D3"
    assert [parse_square(n) for n in ("A1", "H1", "A8", "H8", "e4")] == [0, 7, 56, 63, 28]
    assert parse_square("D4", 4) == 15 and square_name(15, 4) == "D4"
    assert parse_square(" c2 ") == 10


@pytest.mark.parametrize(
    "text, size",
    [("I1", 8), ("A9", 8), ("A0", 8), ("", 8), ("D", 8), ("D33", 8), ("3D", 8), ("E5", 4), ("A5", 4),
     ("G1", 6), ("pass", 8), (19, 8)],
)
def test_bad_square_names(text, size):
    with pytest.raises(BoardError) as err:
        parse_square(text, size)
    last = "ABCDEFGH"[size - 1]
    assert f"use a file letter A..{last} followed by a rank 1..{size}" in str(err.value), str(err.value)


def test_bad_square_indices():
    for bad in (-1, 64, 1.5, None):
        with pytest.raises(BoardError, match=r"square index must be 0..63"):
            square_name(bad)
    with pytest.raises(BoardError, match=r"square index must be 0..15"):
        square_name(16, 4)


def test_game_records():
    assert parse_game_record("f5d6c3") == [37, 43, 18]
    assert parse_game_record(" F5D6c3\n") == [37, 43, 18]
    assert format_game_record([37, 43, 18]) == "f5d6c3"
    assert parse_game_record("") == [] and format_game_record([]) == ""
    assert parse_game_record("d4a1", 4) == [15, 0]
    with pytest.raises(BoardError, match="odd length 5"):
        parse_game_record("f5d6c")
    with pytest.raises(BoardError, match="game record move 2: bad square 'z9'"):
        parse_game_record("f5z9")
    for pos_size in SIZES:
        moves = list(range(pos_size * pos_size))
        assert parse_game_record(format_game_record(moves, pos_size), pos_size) == moves


def test_squares_of_and_popcount():
    assert squares_of(0) == [] and popcount(0) == 0
    assert squares_of(bits([63, 0, 19])) == [0, 19, 63]
    assert popcount((1 << 64) - 1) == 64


def test_draw():
    picture = draw(START, highlight=legal_moves(START.own, START.opp) | START.black, marks={0: "1"})
    lines = picture.splitlines()
    assert lines[0].split() == list("ABCDEFGH") and lines[-2].split() == list("ABCDEFGH"), picture
    assert lines[1].split()[0] == "8" and lines[8].split()[0] == "1", picture
    # rank 5 (second row below rank 6): D5 black highlighted, E5 white, F5 legal
    assert lines[4].split() == ["5", ".", ".", ".", "[X]", "O", "*", ".", ".", "5"], picture
    assert lines[8].split()[1] == "1", picture  # A1 mark
    assert "X (black) to move" in lines[-1] and "X 2, O 2" in lines[-1], picture
    small = draw(start_position(4))
    assert small.splitlines()[0].split() == list("ABCD"), small


# --------------------------------------------------------------------------
# Legal moves and flips against the slow reference


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", ["occupancy", "played"])
def test_legal_moves_and_flips_vs_slow(size, kind):
    positions = occupancy_positions(size) if kind == "occupancy" else played_positions(size)
    for pos in positions:
        own, opp = pos.own, pos.opp
        moves = legal_moves(own, opp, size)
        expected = slow_legal_moves(pos)
        assert moves == bits(expected), (
            f"{pos.text()}: legal {names(moves, size)}, slow says {names(bits(expected), size)}"
        )
        for sq in range(size * size):
            got = flips(own, opp, sq, size)
            # slow_legal_moves is exactly the set of squares whose slow_flips is
            # non-empty, so the slow reference for the others is "no flips".
            want = bits(slow_flips(pos, sq)) if sq in expected else 0
            assert got == want, (
                f"{pos.text()}: flips at {square_name(sq, size)} = {names(got, size)}, "
                f"slow says {names(want, size)}"
            )


def test_flips_bad_square():
    with pytest.raises(BoardError, match=r"move must be a square 0..63, got 64"):
        flips(START.own, START.opp, 64)
    with pytest.raises(BoardError, match=r"move must be a square 0..15, got -1"):
        flips(0, 0, -1, 4)


def test_flips_long_runs():
    # White plays A1 against 6-disc black runs on the first rank, the A file
    # and the long diagonal, each bracketed by a white corner disc; the runs
    # in every direction come from the 8 images under the board symmetries.
    run_rank = ["B1", "C1", "D1", "E1", "F1", "G1"]
    run_file = ["A2", "A3", "A4", "A5", "A6", "A7"]
    run_diag = ["B2", "C3", "D4", "E5", "F6", "G7"]
    black = bits(parse_square(s) for s in run_rank + run_file + run_diag)
    white = bits(parse_square(s) for s in ("H1", "A8", "H8"))
    pos = Position(black, white, True)
    for name in SYMMETRIES + MIRRORS:
        image = transform_position(name, pos)
        move = transform_square(name, 0)
        want = transform_bitboard(name, black)
        assert flips(image.own, image.opp, move) == want == bits(slow_flips(image, move)), f"{name}: {image.text()}"
        # Without the bracketing corners the runs reach the edge and flip nothing.
        open_ended = Position(image.black, 0, True)
        assert flips(open_ended.own, open_ended.opp, move) == 0, open_ended.text()


def test_play_and_illegal_moves():
    after = play(START, parse_square("F5"))
    assert after.text() == "-" * 24 + "---OX---" + "---XXX--" + "-" * 24 + " O"
    with pytest.raises(IllegalMove) as err:
        play(START, parse_square("D4"))
    assert "illegal move D4 for X: the square is occupied" in str(err.value) and START_TEXT in str(err.value)
    with pytest.raises(IllegalMove) as err:
        play(START, parse_square("A1"))
    assert "illegal move A1 for X: it flips nothing" in str(err.value) and START_TEXT in str(err.value)
    with pytest.raises(IllegalMove) as err:
        pass_move(START)
    assert "X may not pass: it has 4 legal moves (e.g. D3)" in str(err.value) and START_TEXT in str(err.value)


@pytest.mark.parametrize("size", SIZES)
def test_play_matches_slow(size):
    for pos in played_positions(size)[:300]:
        for move in squares_of(legal_moves(pos.own, pos.opp, size)):
            child = play(pos, move)
            changed = bits(slow_flips(pos, move)) | (1 << move)
            assert child.white_to_move != pos.white_to_move, pos.text()
            assert child.opp == pos.own | changed and child.own == pos.opp & ~changed, (
                f"{pos.text()} after {square_name(move, size)} gave {child.text()}"
            )


def test_pass_and_game_over():
    # X has no move, O has (C1): X must pass.
    pos = parse_board("OX" + "-" * 62 + " X")
    assert must_pass(pos) and not game_over(pos), pos.text()
    assert pass_move(pos) == pos.swap_side()
    # Full board: game over, passing is allowed (no legal move) and changes nothing else.
    full = parse_board("X" * 40 + "O" * 24 + " O")
    assert game_over(full) and not must_pass(full), full.text()
    assert pass_move(full) == full.swap_side()
    # Only one colour left on the board: game over with empties.
    lone = parse_board("X" * 10 + "-" * 54 + " O")
    assert game_over(lone) and game_over(lone.swap_side()), lone.text()
    assert not must_pass(START) and not game_over(START)


# --------------------------------------------------------------------------
# Perft


OEIS_A124004 = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1396, 6: 8200, 7: 55092, 8: 390216}


@pytest.mark.parametrize("depth, nodes", sorted(OEIS_A124004.items()))
def test_perft_start_published(depth, nodes):
    assert perft(START, depth) == nodes, f"perft({START.text()}, {depth})"


def test_perft_start_vs_slow():
    for depth in range(5):
        assert perft(START, depth) == slow_perft(START, depth), f"depth {depth}"


@pytest.mark.parametrize("size, max_depth", [(4, 9), (6, 5)])
def test_perft_small_boards_vs_slow(size, max_depth):
    pos = start_position(size)
    for depth in range(max_depth + 1):
        assert perft(pos, depth) == slow_perft(pos, depth), f"perft({pos.text()}, {depth}) size {size}"


def test_perft_pass_and_game_over_convention():
    # X must pass; O then has one move (C1), after which X has no disc left:
    # the game is over.
    pos = parse_board("OX" + "-" * 62 + " X")
    assert [perft(pos, d) for d in range(6)] == [1, 1, 1, 1, 1, 1], pos.text()
    assert [slow_perft(pos, d) for d in range(6)] == [1, 1, 1, 1, 1, 1], pos.text()
    # O to move has no move; X has C1, C2 and C3 (the pass is the one depth-1 node).
    pos = parse_board("XO------" + "XO------" + "-" * 48 + " O")
    assert legal_moves(pos.own, pos.opp) == 0, pos.text()
    assert legal_moves(pos.opp, pos.own) == bits(parse_square(s) for s in ("C1", "C2", "C3")), pos.text()
    assert perft(pos, 1) == 1 and perft(pos, 2) == 3 == slow_perft(pos, 2), pos.text()
    finished = parse_board("X" * 40 + "O" * 24 + " X")
    assert [perft(finished, d) for d in range(5)] == [1] * 5, finished.text()
    with pytest.raises(BoardError, match="depth must be >= 0"):
        perft(START, -1)


@lru_cache(maxsize=None)
def special_positions(size: int) -> dict[str, tuple[Position, ...]]:
    """Positions from random games: forced passes, finished games, late game."""
    rng = random.Random(3000 + size)
    found: dict[str, list[Position]] = {"pass": [], "over": [], "late": []}
    while min(len(v) for v in found.values()) < 20:
        game = random_game_positions(rng, size)
        found["over"].append(game[-1])
        found["pass"].extend(p for p in game if must_pass(p))
        # about 10 empty squares for 8x8, fewer on small boards
        found["late"].extend(p for p in game if popcount(p.empty) == size + 2)
    return {k: tuple(v[:20]) for k, v in found.items()}


@pytest.mark.parametrize("size", SIZES)
def test_perft_late_game_vs_slow(size):
    special = special_positions(size)
    for kind, depth in (("late", 4), ("pass", 4), ("over", 3)):
        for pos in special[kind]:
            assert perft(pos, depth) == slow_perft(pos, depth), f"{kind}: perft({pos.text()}, {depth})"
    for pos in special["over"]:
        assert game_over(pos) and perft(pos, 7) == 1, pos.text()
    for pos in special["pass"]:
        child = pos.swap_side()
        assert perft(pos, 3) == perft(child, 2), pos.text()


def test_perft_random_occupancy_vs_slow():
    # Random occupancy often leaves one side (or both) without moves.
    for pos in occupancy_positions(8)[:150]:
        assert perft(pos, 2) == slow_perft(pos, 2), f"perft({pos.text()}, 2)"


# --------------------------------------------------------------------------
# Stable discs


def check_stable(pos: Position) -> None:
    size = pos.size
    g = geometry(size)
    for white in (False, True):
        own = pos.white if white else pos.black
        colour = "O" if white else "X"
        expected = bits(slow_stable(pos, white))
        seq = stable_iterations(own, size)
        where = f"{pos.text()} colour {colour}"
        assert seq[-1] == stable_discs(own, size) == expected, (
            f"{where}: stable {names(seq[-1], size)}, slow says {names(expected, size)}"
        )
        assert seq[0] == edge_stable(own, size) == expected & g.border, (
            f"{where}: edge {names(seq[0], size)}, slow border part {names(expected & g.border, size)}"
        )
        assert len(seq) >= 1, where
        for before, after in zip(seq, seq[1:]):
            assert before & ~after == 0 and before != after, f"{where}: iterations {seq} not strictly growing"
        assert all(s & ~own == 0 for s in seq), f"{where}: a stable square is not an own disc"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", ["occupancy", "played"])
def test_stable_vs_slow(size, kind):
    positions = occupancy_positions(size) if kind == "occupancy" else played_positions(size)
    for pos in positions:
        check_stable(pos)


@pytest.mark.parametrize("size", SIZES)
def test_stable_dense_colours(size):
    # Random occupancy is sparse in stable discs; one-colour-heavy boards reach
    # deep into the inner squares and need many iterations.
    rng = random.Random(4000 + size)
    n2 = size * size
    for _ in range(300):
        density = rng.choice((0.7, 0.85, 0.95, 1.0))
        own = sum(1 << s for s in range(n2) if rng.random() < density)
        opp = sum(1 << s for s in range(n2) if not own >> s & 1 and rng.random() < 0.5)
        check_stable(Position(own, opp, False, size))


def test_stable_hand_examples():
    # 4x4 board full of black: the 12 border squares at once, the 4 inner
    # squares (each touching the border on all 4 axes) after one update.
    full4 = (1 << 16) - 1
    border4 = geometry(4).border
    assert stable_iterations(full4, 4) == [border4, full4]
    # 8x8 full: the fixed point is the whole board.
    assert stable_discs((1 << 64) - 1) == (1 << 64) - 1
    # No corner: nothing stable and no iteration at all.
    assert stable_iterations(bits(range(1, 7)) | bits(range(9, 55))) == [0]
    # First rank A1 B1 C1 . E1 . G1 H1: runs from the corners are stable, E1 is not.
    own = bits(parse_square(s) for s in ("A1", "B1", "C1", "E1", "G1", "H1", "A2", "A3", "B2"))
    assert edge_stable(own) == bits(parse_square(s) for s in ("A1", "B1", "C1", "G1", "H1", "A2", "A3"))
    # B2 then has a stable neighbour on every axis (A2/B1/A1/A3).
    assert stable_iterations(own) == [edge_stable(own), edge_stable(own) | 1 << parse_square("B2")]
    # Ranks 1 and 2 full: rank 2 becomes stable from both ends inwards, one
    # square per side per update (B2 G2, then C2 F2, then D2 E2).
    own = (1 << 16) - 1
    edge = bits(range(8)) | bits(parse_square(s) for s in ("A2", "H2"))
    layers = [["B2", "G2"], ["C2", "F2"], ["D2", "E2"]]
    expected = [edge]
    for layer in layers:
        expected.append(expected[-1] | bits(parse_square(s) for s in layer))
    assert stable_iterations(own) == expected


def test_stable_discs_never_flip():
    """docs/spec.md §3 property: a disc the rule calls stable never flips."""
    rng = random.Random(5000)
    positions = played_positions(8)[:400]
    for pos in positions:
        stable = {False: stable_discs(pos.black), True: stable_discs(pos.white)}
        if not stable[False] and not stable[True]:
            continue
        for _ in range(3):
            own, opp, white = pos.own, pos.opp, pos.white_to_move
            record = []
            while True:
                moves = legal_moves(own, opp)
                if moves:
                    move = rng.choice(squares_of(moves))
                    record.append(move)
                    flipped = flips(own, opp, move)
                    own, opp = opp & ~flipped, own | flipped | (1 << move)
                elif legal_moves(opp, own):
                    own, opp = opp, own
                else:
                    break
                white = not white
                black_now, white_now = (opp, own) if white else (own, opp)
                lost = (stable[False] & ~black_now) | (stable[True] & ~white_now)
                assert not lost, (
                    f"{pos.text()}: stable {names(lost)} flipped after {format_game_record(record)}"
                )


# --------------------------------------------------------------------------
# Symmetry


@pytest.mark.parametrize("size", SIZES)
def test_symmetries_fix_start_mirrors_do_not(size):
    start = start_position(size)
    for name in SYMMETRIES:
        assert transform_position(name, start) == start, f"{name} moves {start.text()}"
    for name in MIRRORS:
        image = transform_position(name, start)
        assert image != start and image.black == start.white, f"{name} on {start.text()} gave {image.text()}"


def test_named_symmetries():
    d3, f5, c4, e6 = (parse_square(s) for s in ("D3", "F5", "C4", "E6"))
    assert transform_moves("identity", [d3]) == [d3]
    assert transform_moves("rot180", [d3]) == [e6]
    assert transform_moves("diag_a1h8", [d3]) == [c4]
    assert transform_moves("diag_a8h1", [d3]) == [f5]
    assert transform_square("flip_files", 0) == 7 and transform_square("flip_ranks", 0) == 56
    assert transform_square("diag_a8h1", 0, 4) == 15 and transform_square("diag_a1h8", 1, 4) == 4
    with pytest.raises(BoardError) as err:
        transform_square("rot90", 0)
    assert "unknown symmetry 'rot90': use one of identity, rot180, diag_a1h8, diag_a8h1, flip_files, flip_ranks" in str(
        err.value
    )
    with pytest.raises(BoardError, match="square index must be 0..63"):
        transform_square("rot180", 64)
    with pytest.raises(BoardError, match="bitboard must be in"):
        transform_bitboard("rot180", 1 << 64)


@pytest.mark.parametrize("size", SIZES)
def test_symmetry_group_closure(size):
    n2 = size * size
    tables = {name: tuple(transform_square(name, sq, size) for sq in range(n2)) for name in SYMMETRIES}
    assert len(set(tables.values())) == 4
    for a in SYMMETRIES:
        assert sorted(tables[a]) == list(range(n2)), a
        for b in SYMMETRIES:
            composed = tuple(tables[a][tables[b][sq]] for sq in range(n2))
            assert composed in tables.values(), f"{a} after {b} is not in the group"
        assert tuple(tables[a][tables[a][sq]] for sq in range(n2)) == tuple(range(n2)), f"{a} is not an involution"


@pytest.mark.parametrize("size", SIZES)
def test_symmetry_transforms_games(size):
    rng = random.Random(6000 + size)
    for _ in range(20):
        game = random_game_positions(rng, size)
        for name in SYMMETRIES + MIRRORS:
            images = [transform_position(name, p) for p in game]
            if name in SYMMETRIES:
                assert images[0] == start_position(size)
            for before, after, img_before, img_after in zip(game, game[1:], images, images[1:]):
                if must_pass(before):
                    assert must_pass(img_before) and pass_move(img_before) == img_after, (
                        f"{name}: pass in {before.text()}"
                    )
                    continue
                placed = (after.black | after.white) & ~(before.black | before.white)
                move = squares_of(placed)[0]
                image_move = transform_square(name, move, size)
                assert play(img_before, image_move) == img_after, (
                    f"{name}: {square_name(move, size)} in {before.text()} maps to "
                    f"{square_name(image_move, size)} in {img_before.text()}"
                )
            assert game_over(images[-1]), images[-1].text()


@pytest.mark.parametrize("name", SYMMETRIES + MIRRORS)
def test_symmetry_preserves_rules(name):
    # All 8 board symmetries (mirrors included) commute with the rules; the
    # mirrors only fail to fix the start position.
    for pos in played_positions(8)[:300] + occupancy_positions(8)[:300]:
        image = transform_position(name, pos)
        for own, opp in ((pos.own, pos.opp), (pos.opp, pos.own)):
            t_own, t_opp = transform_bitboard(name, own), transform_bitboard(name, opp)
            assert transform_bitboard(name, legal_moves(own, opp)) == legal_moves(t_own, t_opp), f"{name}: {pos.text()}"
            assert transform_bitboard(name, stable_discs(own)) == stable_discs(t_own), f"{name}: {pos.text()}"
        assert perft(image, 2) == perft(pos, 2), f"{name}: {pos.text()}"


# --------------------------------------------------------------------------
# Random stimulus


@pytest.mark.parametrize("size", SIZES)
def test_random_games_are_legal_and_reproducible(size):
    rng = random.Random(7000 + size)
    for _ in range(30):
        state = rng.getstate()
        game = random_game_positions(rng, size)
        rng.setstate(state)
        assert random_game_positions(rng, size) == game
        assert game[0] == start_position(size) and game_over(game[-1]), game[-1].text()
        for before, after in zip(game, game[1:]):
            assert not game_over(before), before.text()
            if must_pass(before):
                assert after == pass_move(before), before.text()
            else:
                children = [play(before, m) for m in squares_of(legal_moves(before.own, before.opp, size))]
                assert after in children, f"{before.text()} -> {after.text()} is not a legal move"


def test_random_played_and_occupancy():
    a = random_played(random.Random(1), 150)
    assert len(a) == 150 and a == random_played(random.Random(1), 150)
    assert a[0] == START and a != random_played(random.Random(2), 150)
    assert sum(p == START for p in a) >= 2  # successive games
    occ = [random_occupancy(random.Random(s)) for s in range(200)]
    assert all(p.black & p.white == 0 for p in occ)
    counts = [popcount(p.black) for p in occ] + [popcount(p.white) for p in occ]
    assert 18 < sum(counts) / len(counts) < 24  # 64/3 each
    assert 60 < sum(p.white_to_move for p in occ) < 140
    assert random_occupancy(random.Random(3), 4).size == 4
