"""The chess chip's encodings (docs/spec-chess.md §1, §4), one place for every user.

* square ``s = 8*rank + file`` (a1 = 0, h8 = 63), as python-chess;
* piece code, 4 bits: bit 3 the colour (1 = black), bits 2..0 the type (python-chess
  ``piece_type``: 1 P .. 6 K, 0 empty);
* the board word: nibble s holds square s's code;
* the move word ``mv[15:0]``: [5:0] from, [11:6] to, [14:12] promotion type (0 none).

FEN in is python-chess's parser plus ``is_valid()``; FEN out keeps the e.p. square after every
double step (``en_passant="fen"``), the convention of every test here.
"""

from dataclasses import dataclass

import chess


class ChessInputError(ValueError):
    """A FEN, move or move sequence that cannot be used; the message is one line for the user."""


BLACK_BIT = 8
CASTLE_BITS = ((chess.BB_H1, 0), (chess.BB_A1, 1), (chess.BB_H8, 2), (chess.BB_A8, 3))  # K Q k q


def square_name(square):
    return chess.SQUARE_NAMES[square]


def piece_code(piece):
    """4-bit code of a python-chess Piece (or None: 0)."""
    if piece is None:
        return 0
    return piece.piece_type | (0 if piece.color == chess.WHITE else BLACK_BIT)


def code_piece(code):
    """The python-chess Piece of a 4-bit code (None for 0); ValueError for the invalid codes."""
    kind = code & 7
    if kind == 0 and code == 0:
        return None
    if not 1 <= kind <= 6:
        raise ValueError(f"invalid piece code {code}")
    return chess.Piece(kind, chess.BLACK if code & BLACK_BIT else chess.WHITE)


def board_word(board):
    """The 256-bit board word of a python-chess Board."""
    word = 0
    for square, piece in board.piece_map().items():
        word |= piece_code(piece) << (4 * square)
    return word


def codes_of(word):
    """The 64 piece codes of a board word."""
    return [(word >> (4 * square)) & 15 for square in range(64)]


def castle_bits(board):
    """castle[3:0]: K, Q, k, q from bit 0 up, straight from the board's castling rights."""
    return sum(1 << bit for mask, bit in CASTLE_BITS if board.castling_rights & mask)


@dataclass(frozen=True)
class ChipInputs:
    """What the move generator samples on ``start``."""

    board: int
    wtm: int
    castle: int
    ep_valid: int
    ep_file: int


def chip_inputs(board):
    ep = board.ep_square
    return ChipInputs(board_word(board), int(board.turn == chess.WHITE), castle_bits(board),
                      int(ep is not None), 0 if ep is None else chess.square_file(ep))


def move_word(move):
    """mv[15:0] of a python-chess Move."""
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def word_move(word):
    """The python-chess Move of a move word."""
    promotion = (word >> 12) & 7
    return chess.Move(word & 63, (word >> 6) & 63, promotion or None)


# What each of python-chess's position checks (chess.Status) found, in words
STATUS_WORDS = {
    chess.STATUS_NO_WHITE_KING: "no white king",
    chess.STATUS_NO_BLACK_KING: "no black king",
    chess.STATUS_TOO_MANY_KINGS: "more than one king of a colour",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "more than 8 white pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "more than 8 black pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "a pawn on the first or the last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "more than 16 white pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "more than 16 black pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "castling rights without the king and rook on their squares",
    chess.STATUS_INVALID_EP_SQUARE: "an en passant square no double step can have made",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_EMPTY: "an empty board",
    chess.STATUS_TOO_MANY_CHECKERS: "more than two pieces give check",
    chess.STATUS_IMPOSSIBLE_CHECK: "a check no last move can have given",
}


def status_words(status):
    """The problems a python-chess ``board.status()`` names, in words: 'no white king, no black king'."""
    found = [words for flag, words in STATUS_WORDS.items() if status & flag]
    rest = status & ~sum(STATUS_WORDS)
    return ", ".join(found + ([f"python-chess status {rest:#x}"] if rest else []))


def parse_fen(text):
    """A python-chess Board from FEN text; ChessInputError (one line) when it is not a valid
    position. python-chess keeps the FEN's e.p. square as given."""
    try:
        board = chess.Board(text)
    except ValueError as error:
        raise ChessInputError(f"bad FEN '{text}': {error}") from None
    if not board.is_valid():
        raise ChessInputError(f"bad FEN '{text}': not a valid position: {status_words(board.status())}")
    return board


def parse_fen_any(text):
    """A python-chess Board from FEN text without the validity check: the benches' ILLEGAL
    positions (the side to move attacks the enemy king) are not valid positions."""
    try:
        return chess.Board(text)
    except ValueError as error:
        raise ChessInputError(f"bad FEN '{text}': {error}") from None


def format_fen(board):
    """FEN text keeping the e.p. square after every double step."""
    return board.fen(en_passant="fen")


def parse_moves(board, text):
    """The moves of ``text`` ("e2e4 e7e5 ...", UCI) played from ``board``, as a list of Moves;
    ChessInputError names the first bad or illegal one."""
    moves, replay = [], board.copy(stack=False)
    for ply, token in enumerate(text.split(), start=1):
        try:
            move = chess.Move.from_uci(token)
        except ValueError:
            raise ChessInputError(f"bad move '{token}' (ply {ply}): not UCI like e2e4 or e7e8q") from None
        if not replay.is_legal(move):
            raise ChessInputError(f"illegal move '{token}' (ply {ply}) in {format_fen(replay)}")
        replay.push(move)
        moves.append(move)
    return moves
