"""The repetition detector's golden model (docs/spec-chess.md §6), computed from whole boards.

The chip keeps only moves (from, to, piece code, irrev) in a 32-entry buffer and updates the
displaced-piece counts D_k incrementally; this model keeps the board of every ply instead and
counts D_k square by square, so it shares nothing with the chip's bookkeeping. It is itself
checked against python-chess (``transposition_distance``: the ply distance of the same
``_transposition_key``, the test behind ``is_repetition``).
"""

from dataclasses import dataclass

import chess

from golden.chess.encoding import board_word, codes_of

DEPTH = 32  # buffer entries
NEAR_DEPTH = 31  # the farthest odd k a near-repetition candidate may come from
OUTSIDE = 63  # rd_dbg_d outside the window


@dataclass(frozen=True)
class Entry:
    from_square: int
    to_square: int
    piece: int  # 4-bit code of the moving piece
    irrev: int  # board.is_irreversible(move) before the push


@dataclass(frozen=True)
class Outputs:
    """What the detector shows after a command (rd_dbg_d for the rd_dbg_k asked)."""

    rep: int
    rep_dist: int
    near: int
    near_from: int
    near_to: int
    dbg_d: int


def entry_of(board, move):
    """The buffer entry of ``move`` played from ``board`` (before the push)."""
    piece = board.piece_at(move.from_square)
    code = piece.piece_type | (0 if piece.color == chess.WHITE else 8)
    return Entry(move.from_square, move.to_square, code, int(board.is_irreversible(move)))


class RepetitionModel:
    """init / push / pop as the chip's commands; ``outputs(k)`` what it then shows."""

    def __init__(self, board):
        self.init(board)

    def init(self, board):
        self.wtm = int(board.turn == chess.WHITE)
        self.now = codes_of(board_word(board))
        self.entries, self.before = [], []  # entry i and the board before it
        self.count = 0  # entries still stored (at most DEPTH; overwritten ones are lost)

    def push(self, board, move):
        """Play ``move`` from ``board`` (a python-chess Board holding the current position)."""
        self.entries.append(entry_of(board, move))
        self.before.append(self.now)
        after = board.copy(stack=False)
        after.push(move)
        self.now = codes_of(board_word(after))
        self.count = min(self.count + 1, DEPTH)
        self.wtm ^= 1

    def pop(self, board=None):
        """Drop the newest entry: the game goes back a ply, so the position now is the one
        before it and the side to move changes. With nothing stored (the game goes back past
        the init, or to entries overwritten by later pushes) the buffer stays empty: nothing is
        shown until the next push, whose D_k and near candidates are then about that earlier
        position. ``board`` is the position after the pop (python-chess); it is needed only
        when the model never saw that position (a pop past the init)."""
        self.wtm ^= 1
        if self.count:
            self.count -= 1
        if self.before:
            self.entries.pop()
            self.now = self.before.pop()
        elif board is None:
            raise ValueError("a pop past the init needs the board after it: the model never saw that position")
        else:
            self.now = codes_of(board_word(board))

    def window(self):
        """k = 1, 2, ... over the stored entries, stopping before the newest irreversible one."""
        ks = []
        for k in range(1, self.count + 1):
            if self.entries[-k].irrev:
                break
            ks.append(k)
        return ks

    def then(self, k):
        return self.before[-k]

    def displaced(self, k):
        """D_k: squares holding a piece now whose code differs in P(n-k)."""
        then = self.then(k)
        return sum(1 for q in range(64) if self.now[q] and self.now[q] != then[q])

    def near_candidates(self):
        """Every odd k <= 31 of the window with one displaced piece of the side to move, as
        (k, its square now, its square then), nearest first."""
        out = []
        for k in self.window():
            if k % 2 == 0 or k > NEAR_DEPTH or self.displaced(k) != 1:
                continue
            then = self.then(k)
            now_square = next(q for q in range(64) if self.now[q] and self.now[q] != then[q])
            then_square = next(q for q in range(64) if then[q] and self.now[q] != then[q])
            black = bool(self.now[now_square] & 8)
            if black != (not self.wtm):
                continue
            out.append((k, now_square, then_square))
        return out

    def outputs(self, dbg_k=0):
        window = self.window()
        rep_dist = next((k for k in window if k % 2 == 0 and self.displaced(k) == 0), 0)
        near = self.near_candidates()
        _, near_from, near_to = near[0] if near else (0, 0, 0)
        dbg = self.displaced(dbg_k) if dbg_k in window else OUTSIDE
        return Outputs(int(rep_dist > 0), rep_dist, int(bool(near)), near_from, near_to, dbg)


def transposition_distance(board, limit):
    """The least k <= ``limit`` such that the position k plies back (no irreversible move in
    between) has the same python-chess ``_transposition_key``; 0 if none. The oracle."""
    probe = board.copy()
    key = probe._transposition_key()
    for k in range(1, min(limit, len(probe.move_stack)) + 1):
        move = probe.pop()
        if probe.is_irreversible(move):
            return 0
        if probe._transposition_key() == key:
            return k
    return 0
