"""The case of the chess benches: a position (FEN) and what the block is asked about it.

Othello cases (``tb.sim.batch.Case``) hold a disc position; a chess case holds a FEN, so both share
the case-file format (``to_dict`` / ``from_dict``, a ``label``) and ``tb.sim.batch.Case.from_dict``
hands a record with a ``fen`` field to this class.
"""

from dataclasses import dataclass

import chess

from golden.chess.encoding import format_fen, parse_fen_any
from golden.chess.movegen import ordered_moves


# A step that sends no request: the harness runs its whole cycle budget. In a move generator case no
# reply may come in it and busy stays low; in a repetition detector case no command is given, and the
# outputs must still show what the last command left.
IDLE = "idle"


@dataclass(frozen=True)
class ChessCase:
    fen: str
    label: str
    kind: str = "walk"  # walk: start, then next after every move of the golden list; entry: start, then
    # next after the listed moves (any order; IDLE: a step without any request); repetition: detector commands
    mode: int = 0  # 1: captures only
    moves: tuple = ()  # entry: the last_mv of each next (UCI); repetition: "init", a UCI move (push), "pop" or IDLE
    dbg: tuple = ()  # repetition: rd_dbg_k of each command

    @property
    def board(self):
        return parse_fen_any(self.fen)

    def to_dict(self):
        return {"fen": self.fen, "label": self.label, "kind": self.kind, "mode": self.mode,
                "moves": list(self.moves), "dbg": list(self.dbg)}

    @classmethod
    def from_dict(cls, record):
        case = cls(record["fen"], record["label"], record.get("kind", "walk"), int(record.get("mode", 0)),
                   tuple(record.get("moves", ())), tuple(record.get("dbg", ())))
        case.board  # a bad FEN fails here, where the case file is read
        return case

    def describe(self):
        board = self.board
        lines = [f"case:     {self.label}", f"board:    {self.fen}"]
        if self.kind != "repetition":
            lines.append(f"mode:     {'captures only' if self.mode else 'all moves'}; {self.kind}")
        if self.moves and self.kind != "walk":
            lines.append(f"moves:    {' '.join(self.moves)}")
        lines += ["          " + row for row in str(board).splitlines()]
        return lines


def uci(move):
    return move.uci() if move is not None else None


def move_of(uci_text):
    return chess.Move.from_uci(uci_text)


# The move generator's cases (tb/test_chess_movegen.py); the shrinker and the CLI make them too.

def walk_case(board, label, mode=0, fen=None):
    """Start, then next after every move of the golden list (in order). For an ILLEGAL position
    too: its start replies ILLEGAL, its nexts walk the list, the enemy king never a victim
    (docs/spec-chess.md §4, §5: ILLEGAL on start only). ``fen``: the board's FEN when the caller has it."""
    moves = tuple(m.uci() for m in ordered_moves(board, mode))
    return ChessCase(fen or format_fen(board), label, "walk", mode, moves)


def entry_case(board, label, rng, mode=0):
    """Start, then next after moves of the list in random order (the block keeps no list)."""
    moves = [m.uci() for m in ordered_moves(board, mode)]
    rng.shuffle(moves)
    return ChessCase(format_fen(board), label + " (random entry points)", "entry", mode,
                     tuple(moves[:rng.randrange(0, len(moves) + 1)]))


def start_case(board, label, fen=None):
    return ChessCase(fen or format_fen(board), label, "start")


def repetition_outputs(case):
    """The repetition detector's outputs (rep, rep_dist, near, near_from, near_to, rd_dbg_d) after
    each command of a repetition ``case``, from the golden model (golden/chess/repetition.py): an
    idle step changes nothing and is answered at its own rd_dbg_k."""
    from golden.chess.repetition import RepetitionModel

    board, model, out = case.board, None, []
    for command, dbg in zip(case.moves, case.dbg):
        if command == "init":
            model = RepetitionModel(board)
        elif command == "pop":
            board.pop()
            model.pop(board)
        elif command != IDLE:
            move = chess.Move.from_uci(command)
            model.push(board, move)
            board.push(move)
        o = model.outputs(dbg)
        out.append((o.rep, o.rep_dist, o.near, o.near_from, o.near_to, o.dbg_d))
    return out
