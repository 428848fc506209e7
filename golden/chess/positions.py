"""Seeded random chess positions and walks for the benches and the fuzzer.

* random games: uniformly random legal moves from the start position, any ply;
* random placements: kings, then a random number of other pieces on random squares, random
  side to move, castling rights wherever king and rook stand at home (sometimes dropped), an
  e.p. square wherever a double step could just have happened (sometimes) - kept only when
  python-chess's ``is_valid()`` accepts the position;
* illegal positions: the child of a pseudo-legal move that leaves its own king attacked;
* repetition walks: pushes biased towards reversible moves and moves back, with pops.
"""

import chess

from golden.chess.encoding import format_fen
from golden.chess.movegen import is_illegal

PLACEMENT_TYPES = (chess.PAWN,) * 6 + (chess.KNIGHT, chess.BISHOP, chess.ROOK) * 2 + (chess.QUEEN,)


def random_game(rng, plies=None):
    """The position after ``plies`` random legal moves from the start (a random count up to 120
    when None; a finished game stops early)."""
    board = chess.Board()
    plies = rng.randrange(0, 121) if plies is None else plies
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board.copy(stack=False)


def random_placement(rng):
    """A random valid position (see the module text)."""
    while True:
        board = chess.Board(None)
        squares = list(range(64))
        rng.shuffle(squares)
        if rng.random() < 0.3:  # kings (and maybe rooks) at home: castling becomes possible
            home = [(chess.E1, chess.KING, chess.WHITE), (chess.E8, chess.KING, chess.BLACK)]
            home += [(s, chess.ROOK, c) for s, c in ((chess.A1, chess.WHITE), (chess.H1, chess.WHITE),
                                                     (chess.A8, chess.BLACK), (chess.H8, chess.BLACK))
                     if rng.random() < 0.7]
        else:
            home = [(squares[0], chess.KING, chess.WHITE), (squares[1], chess.KING, chess.BLACK)]
        for square, kind, color in home:
            board.set_piece_at(square, chess.Piece(kind, color))
        free = [s for s in squares if board.piece_at(s) is None]
        for square in free[:rng.randrange(0, 24)]:
            kind = rng.choice(PLACEMENT_TYPES)
            if kind == chess.PAWN and chess.square_rank(square) in (0, 7):
                continue
            board.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        board.castling_rights = chess.BB_CORNERS
        board.castling_rights = board.clean_castling_rights()
        if rng.random() < 0.3:
            board.castling_rights &= rng.choice([chess.BB_RANK_1, chess.BB_A1 | chess.BB_H8, 0])
        ep_candidates = [s for s in chess.SQUARES if _ep_possible(board, s)]
        if ep_candidates and rng.random() < 0.6:
            board.ep_square = rng.choice(ep_candidates)
        if board.is_valid():
            return board


def _ep_possible(board, square):
    """A double step of the side not to move could just have passed over ``square``."""
    rank = 5 if board.turn == chess.WHITE else 2
    if chess.square_rank(square) != rank or board.piece_at(square) is not None:
        return False
    step = -8 if board.turn == chess.WHITE else 8
    pawn = board.piece_at(square + step)
    return (pawn == chess.Piece(chess.PAWN, not board.turn)
            and board.piece_at(square - step) is None)


def illegal_children(board):
    """The children of ``board``'s pseudo-legal moves that leave the mover's king attacked."""
    out = []
    for move in board.generate_pseudo_legal_moves():
        board.push(move)
        if is_illegal(board):
            out.append(board.copy(stack=False))
        board.pop()
    return out


def random_positions(rng, count):
    """``count`` (label, Board): random games and random placements alternately, one in eight
    an illegal child (when the position has one)."""
    out = []
    while len(out) < count:
        index = len(out)
        if index % 2 == 0:
            board, label = random_game(rng), f"random game #{index}"
        else:
            board, label = random_placement(rng), f"random placement #{index}"
        if index % 8 == 7:
            children = illegal_children(board)
            if children:
                board, label = rng.choice(children), label + " then an illegal move"
        out.append((f"{label}: {format_fen(board)}", board))
    return out


def repetition_walk(rng, board, commands):
    """``commands`` detector commands from ``board``: [('push', Move) | ('pop', None)], pops
    only while an entry is stored (a detector pop with an empty buffer leaves it empty; the
    directed cases cover it, and the walk stays in step with its board). Pushes favour moving a piece back where it came from
    two plies earlier and other reversible moves, so repetitions and near-repetitions occur."""
    board = board.copy()
    stored, out = 0, []
    for _ in range(commands):
        moves = list(board.legal_moves)
        if stored and (not moves or rng.random() < 0.15):
            board.pop()
            stored -= 1
            out.append(("pop", None))
            continue
        if not moves:
            break
        back = []
        if len(board.move_stack) >= 2:
            earlier = board.move_stack[-2]
            back = [m for m in moves if m.from_square == earlier.to_square and m.to_square == earlier.from_square]
        reversible = [m for m in moves if not board.is_irreversible(m)]
        roll = rng.random()
        move = (rng.choice(back) if back and roll < 0.45 else
                rng.choice(reversible) if reversible and roll < 0.9 else rng.choice(moves))
        board.push(move)
        stored = min(stored + 1, 32)
        out.append(("push", move))
    return out


# A rook walking a cycle of distinct squares on the a- and b-files (c-file pawns shield the
# black king's ranks) while the black king shuffles on the h-file: the start position comes back
# after exactly 2 * len(cycle) plies and never earlier. 16 rook moves: 32 plies; 17: 34.
REPETITION_START = "8/2P5/2P4k/2P5/2P5/2P5/2P5/R3K3 w - - 0 1"
ROOK_CYCLES = {
    32: "a1 a2 a3 a4 a5 a6 a7 a8 b8 b7 b6 b5 b4 b3 b2 b1 a1",
    34: "a1 a2 a3 a4 a5 a6 a7 a8 b8 b7 b6 b5 b4 b3 b2 b1 c1 a1",
}
KING_SHUFFLES = {32: "h6 h5 " * 8 + "h6", 34: "h6 h5 g6 " + "h6 h5 " * 7 + "h6"}


def repetition_cycle(plies):
    """(start Board, [Move]): the start position comes back after exactly ``plies`` (32 or 34)."""
    board = chess.Board(REPETITION_START)
    rook, king = ROOK_CYCLES[plies].split(), KING_SHUFFLES[plies].split()
    moves = []
    for index in range(len(rook) - 1):
        for path in (rook, king):
            moves.append(chess.Move.from_uci(path[index] + path[index + 1]))
    return board, moves
