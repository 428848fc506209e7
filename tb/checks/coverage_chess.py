"""Functional coverage sampling of the chess chip's blocks (tb/testplans/chess_*.toml), as
tb.checks.coverage_samplers samples the Othello blocks: a checked case and the golden model's
expected replies -> hits of ``point:bin``. Kept apart because it needs python-chess, which the
Othello golden worker does not load."""

import chess

from golden.chess.encoding import word_move
from golden.chess.movegen import DONE, ILLEGAL, MOVE, victim
from tb.checks.chess_case import IDLE

PIECES = {chess.PAWN: "P", chess.KNIGHT: "N", chess.BISHOP: "B", chess.ROOK: "R", chess.QUEEN: "Q", chess.KING: "K"}
VICTIMS = {0: "none", **PIECES}
STATUS = {MOVE: "move", DONE: "done", ILLEGAL: "illegal"}
# (wing, right's rook square, squares that must be empty, squares the king must not be attacked on), white's
CASTLING = (("kingside", chess.H1, (chess.F1, chess.G1), (chess.E1, chess.F1, chess.G1), chess.G1),
            ("queenside", chess.A1, (chess.B1, chess.C1, chess.D1), (chess.E1, chess.D1, chess.C1), chess.C1))


def castling_states(board, listed):
    """[(colour/wing, state)] for the side to move: allowed (the move is listed), blocked (a square
    between king and rook occupied), through_check (a king square attacked), for every wing whose
    right the side holds with king and rook at home."""
    colour = "white" if board.turn == chess.WHITE else "black"
    flip = 0 if board.turn == chess.WHITE else 56
    out = []
    for wing, rook, between, king_path, target in CASTLING:
        if not board.castling_rights & chess.BB_SQUARES[rook + flip]:
            continue
        if board.piece_at(chess.E1 + flip) != chess.Piece(chess.KING, board.turn) or \
                board.piece_at(rook + flip) != chess.Piece(chess.ROOK, board.turn):
            continue
        if chess.Move(chess.E1 + flip, target + flip) in listed:
            state = "allowed"
        elif any(board.piece_at(s + flip) for s in between):
            state = "blocked"
        elif any(board.is_attacked_by(not board.turn, s + flip) for s in king_path):
            state = "through_check"
        else:
            state = "missing"   # not listed though nothing forbids it: a hole the plan does not name
        out.append((f"{colour}/{wing}", state))
    return out


def sample_chess_movegen(case, expected, hits, size):
    board = case.board
    mode = "captures" if case.mode else "all"
    keys = [f"start:{mode}/{STATUS[expected[0][0]]}"]
    if len(expected) > 1 and expected[-1][0] == DONE and case.kind == "walk":
        keys.append(f"list_end:{mode}")
    listed = set()
    for status, word in expected:
        if status != MOVE:
            continue
        move = word_move(word)
        listed.add(move)
        attacker = PIECES.get(board.piece_type_at(move.from_square))
        value, _ = victim(board, move)
        if attacker is None:
            continue
        keys.append(f"attacker_victim:{attacker}/{VICTIMS[value]}")
        if board.is_en_passant(move):
            keys.append(f"en_passant:{'white' if board.turn == chess.WHITE else 'black'}")
        if move.promotion:
            keys.append(f"promotion:{PIECES[move.promotion]}/{'capture' if value else 'quiet'}")
    if case.kind == "walk" and not case.mode and expected[0][0] != ILLEGAL:
        keys += [f"castling:{where}/{state}" for where, state in castling_states(board, listed)]
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


def sample_chess_repetition(case, expected, hits, size):
    keys, previous, previous_k = [], None, None
    for command, k, (rep, rep_dist, near, _, _, dbg_d) in zip(case.moves, case.dbg, expected):
        if command == IDLE:   # no command: what the detector keeps across it
            keys.append(f"idle_after:{previous}")
            keys += [f"idle_kept:{name}" for name, shown in (("rep", rep), ("near", near)) if shown]
            if k != previous_k and dbg_d != 63:
                keys.append("idle_kept:debug_d_new_k")
            previous, previous_k = "idle", k
            continue
        kind = "init" if command == "init" else "pop" if command == "pop" else "push"
        previous, previous_k = kind, k
        keys.append(f"command:{kind}")
        if rep:
            keys.append(f"rep_distance:{rep_dist}")
        if near:
            keys.append("near:seen")
        keys.append(f"debug_d:{'outside_window' if dbg_d == 63 else 'zero' if dbg_d == 0 else 'nonzero'}")
    for key in keys:
        hits[key] = hits.get(key, 0) + 1
