"""The chess golden model (golden/chess/) against python-chess and the published perft counts."""

import random

import chess
import pytest

from golden.chess.encoding import (ChessInputError, board_word, chip_inputs, code_piece, codes_of, format_fen,
                                   move_word, parse_fen, parse_moves, piece_code, square_name, word_move)
from golden.chess.movegen import (DONE, ILLEGAL, MOVE, PERFT_POSITIONS, first_reply, is_illegal, legal_perft,
                                  next_reply, order_key, ordered_moves, perft, victim, walk)
from golden.chess.positions import (illegal_children, random_game, random_placement, random_positions,
                                   repetition_cycle, repetition_walk)
from golden.chess.repetition import DEPTH, NEAR_DEPTH, Outputs, RepetitionModel, transposition_distance


def positions(count, seed=1):
    return [board for _, board in random_positions(random.Random(seed), count)]


# ---------------------------------------------------------------- encoding

def test_piece_codes_are_python_chess_types_with_the_colour_in_bit_3():
    assert piece_code(chess.Piece(chess.PAWN, chess.WHITE)) == 1
    assert piece_code(chess.Piece(chess.KING, chess.BLACK)) == 14
    assert piece_code(None) == 0
    for code in (7, 8, 15):
        with pytest.raises(ValueError):
            code_piece(code)
    assert all(piece_code(code_piece(c)) == c for c in list(range(1, 7)) + list(range(9, 15)))


def test_board_word_of_the_start_position():
    word = board_word(chess.Board())
    codes = codes_of(word)
    assert codes[0] == 4 and codes[4] == 6 and codes[8] == 1 and codes[63] == 12 and codes[60] == 14
    assert codes[16:48] == [0] * 32
    assert square_name(0) == "a1" and square_name(63) == "h8"


def test_chip_inputs_and_move_words():
    board = parse_fen("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")
    inputs = chip_inputs(board)
    assert (inputs.wtm, inputs.castle, inputs.ep_valid, inputs.ep_file) == (1, 15, 1, 3)
    for move in (chess.Move.from_uci("e5d6"), chess.Move.from_uci("a7a8n"), chess.Move.from_uci("e1g1")):
        assert word_move(move_word(move)) == move
    assert move_word(chess.Move.from_uci("a7a8q")) == 48 | (56 << 6) | (5 << 12)


def test_fen_out_keeps_the_ep_square_after_every_double_step():
    board = chess.Board()
    board.push_uci("e2e4")
    assert format_fen(board).split()[3] == "e3"
    assert parse_fen(format_fen(board)).ep_square == chess.E3


@pytest.mark.parametrize("fen", ["nonsense", "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"])
def test_bad_fen_is_one_line(fen):
    with pytest.raises(ChessInputError) as error:
        parse_fen(fen)
    assert "\n" not in str(error.value)


def test_bad_and_illegal_moves_are_named():
    with pytest.raises(ChessInputError, match="bad move 'e9e4'"):
        parse_moves(chess.Board(), "e2e4 e9e4")
    with pytest.raises(ChessInputError, match="illegal move 'e2e5' \\(ply 1\\)"):
        parse_moves(chess.Board(), "e2e5")


# ---------------------------------------------------------------- order, next, captures, ILLEGAL

def test_ordered_moves_are_the_pseudo_legal_set_with_unique_keys():
    """python-chess's pseudo-legal moves but the captures of the enemy king (never a victim,
    docs/spec-chess.md §5), which exist only in an ILLEGAL position."""
    illegal = 0
    for board in positions(300) + [child for parent in positions(20, seed=3) for child in illegal_children(parent)][:200]:
        moves = ordered_moves(board)
        king_captures = {m for m in board.generate_pseudo_legal_moves() if m.to_square == board.king(not board.turn)}
        assert bool(king_captures) == is_illegal(board), board.fen()
        illegal += bool(king_captures)
        assert set(moves) == set(board.generate_pseudo_legal_moves()) - king_captures
        keys = [order_key(board, m) for m in moves]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert illegal >= 10   # the ILLEGAL positions' lists are checked too


def test_captures_only_is_the_prefix_with_a_victim():
    for board in positions(300, seed=2):
        everything, captures = ordered_moves(board), ordered_moves(board, captures_only=True)
        assert captures == everything[:len(captures)]
        assert all(board.is_capture(m) for m in captures)
        assert not any(board.is_capture(m) for m in everything[len(captures):])


def test_next_from_every_move_is_its_successor_in_the_list():
    for board in positions(150, seed=3):
        if is_illegal(board):
            continue
        for captures_only in (False, True):
            moves = ordered_moves(board, captures_only)
            for index, move in enumerate(moves):
                status, successor = next_reply(board, move, captures_only)
                if index + 1 < len(moves):
                    assert (status, successor) == (MOVE, moves[index + 1])
                else:
                    assert (status, successor) == (DONE, None)


def test_next_after_a_quiet_move_in_captures_mode_is_done():
    board = chess.Board()
    assert next_reply(board, chess.Move.from_uci("e2e4"), captures_only=True) == (DONE, None)


def test_walk_is_the_ordered_list_then_done():
    board = chess.Board()
    replies = walk(board)
    assert [word for _, word in replies[:-1]] == [move_word(m) for m in ordered_moves(board)]
    assert replies[-1] == (DONE, 0)


def test_order_follows_victim_then_attacker():
    # two attackers of the d5 queen: the pawn first, then the knight; the rook on a8 after the queen
    board = parse_fen("r3k3/8/8/3q4/4P3/2N5/8/4K3 w - - 0 1")
    first = ordered_moves(board)[:2]
    assert [m.uci() for m in first] == ["e4d5", "c3d5"]
    assert victim(board, first[0]) == (5, chess.D5)


def test_en_passant_victim_is_the_captured_pawn():
    board = parse_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    ep = chess.Move.from_uci("e5d6")
    assert victim(board, ep) == (1, chess.D5)
    assert ordered_moves(board)[0] == ep


def test_promotions_come_in_a_row_q_r_b_n():
    board = parse_fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    # the capture first, then the quiet moves by target square: the king's, then a8 (square 56)
    assert [m.uci() for m in ordered_moves(board)] == ["a7b8q", "a7b8r", "a7b8b", "a7b8n",
                                                       "e1d1", "e1f1", "e1d2", "e1e2", "e1f2",
                                                       "a7a8q", "a7a8r", "a7a8b", "a7a8n"]


def test_castling_through_an_attacked_square_is_not_generated():
    board = parse_fen("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1")  # f2 rook attacks f1
    uci = {m.uci() for m in ordered_moves(board)}
    assert "e1c1" in uci and "e1g1" not in uci


def test_illegal_is_python_chess_leaving_the_king_attacked():
    for board in positions(200, seed=4):
        if is_illegal(board):
            assert first_reply(board) == (ILLEGAL, None)
            continue
        for move in board.generate_pseudo_legal_moves():
            board.push(move)
            illegal = is_illegal(board)
            board.pop()
            assert illegal == (not board.is_legal(move)), (format_fen(board), move)


def test_illegal_children_exist_and_reply_illegal():
    board = parse_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    children = illegal_children(board)
    assert children and all(first_reply(child)[0] == ILLEGAL for child in children)


def test_random_positions_are_valid_or_an_illegal_child():
    for board in positions(400, seed=5):
        assert board.is_valid() or is_illegal(board)
    placements = [random_placement(random.Random(seed)) for seed in range(50)]
    assert all(board.is_valid() for board in placements)
    assert any(board.castling_rights for board in placements)
    assert random_game(random.Random(1), 10).move_stack == []  # the stack is dropped, the position kept


# ---------------------------------------------------------------- perft

@pytest.mark.parametrize("name", PERFT_POSITIONS)
def test_perft_through_the_ordered_generator_equals_the_published_counts(name):
    fen, counts = PERFT_POSITIONS[name]
    board = chess.Board(fen)
    assert [perft(board, depth) for depth in (1, 2, 3)] == list(counts[:3])


@pytest.mark.extended
@pytest.mark.parametrize("name", PERFT_POSITIONS)
def test_perft_depth_4(name):
    fen, counts = PERFT_POSITIONS[name]
    assert perft(chess.Board(fen), 4) == counts[3]


def test_perft_equals_python_chess_on_random_positions():
    for board in positions(60, seed=6):
        if not is_illegal(board):
            assert perft(board, 2) == legal_perft(board, 2), format_fen(board)


# ---------------------------------------------------------------- repetition detector

def walk_model(seed, commands, start=None):
    """Yield (board, model) after every command of a seeded repetition walk."""
    rng = random.Random(seed)
    board = start or random_game(rng, rng.randrange(0, 30))
    model = RepetitionModel(board)
    for command, move in repetition_walk(rng, board, commands):
        if command == "push":
            model.push(board, move)
            board.push(move)
        else:
            board.pop()
            model.pop()
        yield board, model


def test_rep_dist_is_python_chess_transposition_distance_within_the_buffer():
    found = 0
    for seed in range(24):
        for board, model in walk_model(seed, 300):
            outputs = model.outputs()
            assert outputs.rep_dist == transposition_distance(board, model.count), (seed, format_fen(board))
            found += outputs.rep
            if len(board.move_stack) == model.count:  # nothing lost yet: is_repetition agrees exactly
                assert board.is_repetition(2) == (transposition_distance(board, 10**6) > 0)
    assert found > 300  # the walks do repeat


def test_near_candidates_are_the_reversible_moves_that_repeat():
    seen = 0
    for seed in range(12):
        for board, model in walk_model(seed + 100, 120):
            limit = min(model.count + 1, DEPTH)
            repeating = set()
            for move in board.generate_pseudo_legal_moves():
                if board.is_irreversible(move):
                    continue
                board.push(move)
                if transposition_distance(board, limit):
                    repeating.add((move.from_square, move.to_square))
                board.pop()
            pseudo = {(m.from_square, m.to_square) for m in board.generate_pseudo_legal_moves()}
            candidates = {(f, t) for _, f, t in model.near_candidates()}
            assert candidates & pseudo == repeating, (seed, format_fen(board))
            seen += bool(repeating)
            outputs = model.outputs()
            near = model.near_candidates()
            assert outputs.near == int(bool(near))
            assert all(k % 2 == 1 and k <= NEAR_DEPTH for k, _, _ in near)
    assert seen > 100


def test_window_and_debug_output():
    board = chess.Board()
    model = RepetitionModel(board)
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
        move = chess.Move.from_uci(uci)
        model.push(board, move)
        board.push(move)
    assert model.outputs().rep_dist == 4
    assert [model.outputs(k).dbg_d for k in range(6)] == [63, 1, 2, 1, 0, 63]
    move = chess.Move.from_uci("e2e4")  # irreversible: the window is empty
    model.push(board, move)
    board.push(move)
    assert model.window() == [] and model.outputs(1).dbg_d == 63
    model.pop()
    assert model.outputs().rep_dist == 4


def test_triangulation_is_not_a_repetition():
    # the white king walks a triangle: the same board comes back after 3 plies, black to move
    board = parse_fen("4k3/8/8/8/8/8/8/K7 w - - 0 1")
    model = RepetitionModel(board)
    for uci in ("a1a2", "e8d8", "a2b1", "d8e8", "b1a1"):
        move = chess.Move.from_uci(uci)
        model.push(board, move)
        board.push(move)
    assert model.displaced(5) == 0  # the start board again, black to move: odd k
    assert model.outputs().rep == 0 and not board.is_repetition(2)


@pytest.mark.parametrize("plies, expected", [(32, 32), (34, 0)])
def test_repetition_32_back_is_found_and_34_back_is_not(plies, expected):
    board, moves = repetition_cycle(plies)
    model = RepetitionModel(board)
    for ply, move in enumerate(moves, start=1):
        assert board.is_legal(move), (ply, move)
        model.push(board, move)
        board.push(move)
        if ply < plies:
            assert transposition_distance(board, 10**6) == 0 and model.outputs().rep == 0
    assert transposition_distance(board, 10**6) == plies and board.is_repetition(2)
    assert model.outputs().rep_dist == expected


def test_a_pop_with_nothing_stored_goes_back_a_ply():
    """Past the init, or back to entries overwritten by later pushes: the buffer stays empty
    (nothing shown), but the position now and the side to move are those of the game, so the
    pushes after it count D_k from there and offer the near candidates of the right side."""
    board = chess.Board()
    board.push(chess.Move.from_uci("g1f3"))
    model = RepetitionModel(board)  # init one ply into the game
    board.pop()
    model.pop(board)
    assert model.count == 0 and model.outputs(1) == Outputs(0, 0, 0, 0, 0, 63)
    knights = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")]
    for move in knights[:3]:
        model.push(board, move)
        board.push(move)
    assert model.outputs(1).dbg_d == 1 and model.near_candidates() == [(3, 45, 62)]  # black's knight, black to move
    with pytest.raises(ValueError):
        RepetitionModel(board).pop()  # past the init without the board: unknown
    board = chess.Board()
    model = RepetitionModel(board)
    for move in knights * 9:  # 36 pushes: 4 entries overwritten
        model.push(board, move)
        board.push(move)
    for _ in range(36):
        board.pop()
        model.pop()  # the model still holds every position it saw
        assert model.now == codes_of(board_word(board)) and model.wtm == int(board.turn == chess.WHITE)
    assert model.count == 0 and model.outputs(2).dbg_d == 63
