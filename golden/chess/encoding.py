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


def parse_fen(text):
    """A python-chess Board from FEN text; ChessInputError (one line) when it is not a valid
    position. python-chess keeps the FEN's e.p. square as given."""
    try:
        board = chess.Board(text)
    except ValueError as error:
        raise ChessInputError(f"bad FEN '{text}': {error}") from None
    if not board.is_valid():
        raise ChessInputError(f"bad FEN '{text}': not a valid position ({board.status()!r})")
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
