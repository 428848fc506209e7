"""The move generator's golden model (docs/spec-chess.md §2-§5): python-chess's pseudo-legal moves in the
chip's order, the successor of any move (the ``next`` request), the captures-only prefix, the
ILLEGAL reply, and perft through the ordered generator.
"""

import bisect

import chess

from golden.chess.encoding import move_word

MOVE, DONE, ILLEGAL = 0, 1, 2
STATUS_NAMES = {MOVE: "MOVE", DONE: "DONE", ILLEGAL: "ILLEGAL"}
PROMOTION_RANK = {None: 0, chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}


def victim(board, move):
    """(V, vsq): the captured type (e.p. 1, a non-capture 0) and the victim square (for e.p. the
    captured pawn's square)."""
    if board.is_en_passant(move):
        return 1, move.to_square + (-8 if board.turn == chess.WHITE else 8)
    return board.piece_type_at(move.to_square) or 0, move.to_square


def order_key(board, move):
    """(-V, vsq, A, from, pr), ascending = the chip's order (docs/spec-chess.md §3)."""
    value, square = victim(board, move)
    return (-value, square, board.piece_type_at(move.from_square), move.from_square,
            PROMOTION_RANK[move.promotion])


def ordered_moves(board, captures_only=False):
    """Every pseudo-legal move in the chip's order; with ``captures_only`` the prefix with V > 0.
    The enemy king is never a victim (docs/spec-chess.md §5): a capture of it exists only in an ILLEGAL
    position, whose ``next`` replies walk the list without it (ILLEGAL comes on ``start`` only)."""
    moves = sorted((m for m in board.generate_pseudo_legal_moves() if board.piece_type_at(m.to_square) != chess.KING),
                   key=lambda m: order_key(board, m))
    if captures_only:
        moves = [m for m in moves if victim(board, m)[0] > 0]
    return moves


def is_illegal(board):
    """The side to move attacks the enemy king (the previous move left its king en prise)."""
    king = board.king(not board.turn)
    return king is not None and board.is_attacked_by(board.turn, king)


def first_reply(board, captures_only=False):
    """(status, move or None) of ``start``."""
    if is_illegal(board):
        return ILLEGAL, None
    moves = ordered_moves(board, captures_only)
    return (MOVE, moves[0]) if moves else (DONE, None)


def next_reply(board, last, captures_only=False, moves=None, keys=None):
    """(status, move or None) of ``next`` after ``last`` (any move of the list): the first move
    whose key is greater. ``moves`` and their ``keys``: the ordered list, when the caller has it."""
    moves = ordered_moves(board, captures_only) if moves is None else moves
    keys = [order_key(board, m) for m in moves] if keys is None else keys
    index = bisect.bisect_right(keys, order_key(board, last))
    return (MOVE, moves[index]) if index < len(moves) else (DONE, None)


def walk(board, captures_only=False):
    """The replies of ``start`` and then ``next`` fed each reply back, to the first non-MOVE:
    [(status, move word)] (0 for no move)."""
    status, move = first_reply(board, captures_only)
    replies = [(status, move_word(move) if move else 0)]
    while status == MOVE:
        status, move = next_reply(board, move, captures_only)
        replies.append((status, move_word(move) if move else 0))
    return replies


def perft(board, depth):
    """Leaf count through the ordered generator: an emitted move counts unless the child replies
    ILLEGAL (docs/spec-chess.md §5). Equals python-chess's legal perft."""
    if depth == 0:
        return 1
    nodes = 0
    for move in ordered_moves(board):
        board.push(move)
        if not is_illegal(board):
            nodes += 1 if depth == 1 else perft(board, depth - 1)
        board.pop()
    return nodes


def legal_perft(board, depth):
    """python-chess's own perft over its legal moves (the oracle)."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += legal_perft(board, depth - 1)
        board.pop()
    return nodes


# The six standard perft positions (chessprogramming.org "Perft Results") and their published
# leaf counts at depths 1-4.
PERFT_POSITIONS = {
    "start": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", (20, 400, 8902, 197281)),
    "kiwipete": ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 (48, 2039, 97862, 4085603)),
    "position3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", (14, 191, 2812, 43238)),
    "position4": ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                  (6, 264, 9467, 422333)),
    "position5": ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", (44, 1486, 62379, 2103487)),
    "position6": ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                  (46, 2079, 89890, 3894594)),
}
