"""The pure-Python side of the benches: cases, the ``BlockCheck`` interface and the checks of the
combinational blocks whose fuzz loop runs in a separate golden process (tb.sim.fastfuzz).

No cocotb here (nor anywhere this module imports): ``python -m tb.checks.golden_worker`` runs these
checks under PyPy, outside the simulator, while the benches (tb/test_*.py) use the same classes
inside it. Only golden/ and the standard library are imported.
"""

import os
import random
from dataclasses import dataclass
from typing import Optional

from golden.board import Position, format_board, parse_board, square_name, squares_of
from golden.othello import flips, legal_moves
from tb.checks.directed import mixed_positions

CHUNK = 8192   # cases per batch of the fuzz loop (at most tb.host.harness.MAX_BATCH); the positions
               # a seed gives depend on it: random games are cut at chunk ends


@dataclass(frozen=True)
class Case:
    """One vector for a block: a position plus what the block is asked about it."""

    position: Position
    label: str  # where it came from: 'directed: ...' or 'fuzz #123 (...)'
    move: Optional[int] = None  # disc flipper: the square played
    color: Optional[str] = None  # stable discs: 'X' or 'O', whose stable discs are counted
    legal: Optional[int] = None  # node ordering: the legal vector (when not the position's)
    pv: Optional[int] = None  # node ordering: the PV square, if any
    moves: tuple = ()  # moves fed in: openings, the game so far; node ordering, the walk

    def to_dict(self):
        return {"board": format_board(self.position), "size": self.position.size, "label": self.label,
                "move": self.move, "color": self.color, "legal": self.legal, "pv": self.pv,
                "moves": list(self.moves)}

    @classmethod
    def from_dict(cls, record):
        if "fen" in record:  # a chess case
            from tb.checks.chess_case import ChessCase

            return ChessCase.from_dict(record)
        position = parse_board(record["board"], record.get("size", 8))
        return cls(position, record["label"], record.get("move"), record.get("color"),
                   record.get("legal"), record.get("pv"), tuple(record.get("moves", ())))



def hex_field(text):
    """Parse one hex field; X/Z (uninitialised or driven by two sources) stay as text."""
    try:
        return int(text, 16)
    except ValueError:
        return text.lower()



class BlockCheck:
    """What a bench defines for its block; see the three tb/test_*.py files."""

    block = "?"

    def __init__(self, size=None):
        self.size = size or int(os.environ.get("GAMECHIP_SIZE", "8"))
        self.board_format = f"0{(self.size * self.size + 3) // 4}x"

    def board_hex(self, bitboard):
        """A bitboard as a stimulus field: fixed width, because VHDL's hread reads exactly
        as many digits as the port is wide."""
        return format(bitboard, self.board_format)

    def cases(self, positions, rng=None, exhaustive=False):
        """[(label, Position)] -> [Case]; one case per position unless the block asks more."""
        return [Case(position, label) for label, position in positions]

    def stimulus(self, case):
        raise NotImplementedError

    def expected(self, case):
        raise NotImplementedError

    def parse(self, lines, cases):
        """Response lines of a batch -> one actual value per case of ``cases``."""
        raise NotImplementedError

    unit = "cases"  # what ``units`` counts (make bench's rates)

    def units(self, case, expected):
        """How many ``unit`` one checked case holds (a chess case: its replies, one per move)."""
        return 1

    def report(self, actual):
        """An actual value as JSON-friendly data (for the CLI's side-by-side views)."""
        return repr(actual)

    def explain(self, case, expected, actual):
        """Lines that show expected and actual in board terms."""
        return [f"expected: {expected}", f"actual:   {actual}"]

    def expected_line(self, expected):
        """``expected`` as the exact response line the Verilog harness writes for it (without the
        newline), or None: the block has no fast fuzz path (tb.sim.fastfuzz). Where it is defined,
        ``parse([expected_line(e)], ...)`` gives ``e`` back (tests/test_fastfuzz.py checks it)."""
        return None


def pack_stimulus(lines, field_bytes):
    """Stimulus lines (hex fields) as the binary stimulus of the Verilog combinational harness:
    every field ``field_bytes`` big-endian bytes, one word of its stimulus memory ($fread)."""
    return b"".join(int(field, 16).to_bytes(field_bytes, "big") for line in lines for field in line.split())


def fuzz_chunk(check, positions_rng, moves_rng, first, count):
    """The fuzz cases from position ``first`` on (at most CHUNK of the ``count``), drawn from
    the two generators: the same list in the bench and in the golden worker."""
    positions = mixed_positions(positions_rng, min(CHUNK, count - first), check.size, first=first)
    return check.cases(positions, rng=moves_rng)


def fuzz_generators(seed):
    """The two generators of a fuzz run: positions, and the moves or colours the check adds."""
    return random.Random(seed), random.Random(seed + 1)


def fuzz_chunks(check, seed, count):
    """Every chunk of a fuzz run of ``count`` positions from ``seed``, in order."""
    positions_rng, moves_rng = fuzz_generators(seed)
    first = 0
    while first < count:
        chunk = fuzz_chunk(check, positions_rng, moves_rng, first, count)
        yield chunk
        first += CHUNK


class MoveCheckerCheck(BlockCheck):
    """rtl/move_checker: the legal-move vector of the side to move."""

    block = "move_checker"

    def stimulus(self, case):
        return f"{self.board_hex(case.position.own)} {self.board_hex(case.position.opp)}"

    def expected(self, case):
        return legal_moves(case.position.own, case.position.opp, self.size)

    def parse(self, lines, cases):
        return [hex_field(line) for line in lines]

    def expected_line(self, expected):
        return format(expected, self.board_format)   # $fdisplay's %h: every digit of the port

    def explain(self, case, expected, actual):
        def names(bits):
            return " ".join(square_name(s, self.size) for s in squares_of(bits)) or "none"

        lines = [f"expected legal: {names(expected)}"]
        if isinstance(actual, str):
            return lines + [f"actual legal:   unknown bits in {actual}"]
        return lines + [
            f"actual legal:   {names(actual)}",
            f"missing:        {names(expected & ~actual)}",
            f"extra:          {names(actual & ~expected)}",
        ]


class DiscFlipperCheck(BlockCheck):
    """rtl/disc_flipper: the whole new board and ``illegal`` for a move."""

    block = "disc_flipper"
    LEGAL_SHARE = 0.8  # random cases play a legal move this often, else any move value

    @property
    def move_bits(self):
        return max(1, (self.size * self.size - 1).bit_length())

    @property
    def move_values(self):
        """Every value the move port can carry: squares, and off-board values on 6x6."""
        return 1 << self.move_bits

    def cases(self, positions, rng=None, exhaustive=False):
        out = []
        for label, position in positions:
            if exhaustive:
                out += [Case(position, label, move=m) for m in range(self.move_values)]
                continue
            legal = squares_of(legal_moves(position.own, position.opp, self.size))
            if legal and rng.random() < self.LEGAL_SHARE:
                out.append(Case(position, label, move=rng.choice(legal)))
            else:
                out.append(Case(position, label, move=rng.randrange(self.move_values)))
        return out

    def stimulus(self, case):
        p = case.position
        return f"{self.board_hex(p.black)} {self.board_hex(p.white)} {int(p.white_to_move)} {case.move:0{(self.move_bits + 3) // 4}x}"

    def expected(self, case):
        p = case.position
        flipped = flips(p.own, p.opp, case.move, self.size) if case.move < self.size ** 2 else 0
        if not flipped:
            return (p.black, p.white, 1)
        own, opp = p.own | flipped | (1 << case.move), p.opp & ~flipped
        after = Position.from_own_opp(own, opp, p.white_to_move, self.size)
        return (after.black, after.white, 0)

    def parse(self, lines, cases):
        return [tuple(hex_field(f) for f in line.split()) for line in lines]

    def expected_line(self, expected):
        black, white, illegal = expected
        return f"{format(black, self.board_format)} {format(white, self.board_format)} {illegal:x}"

    def explain(self, case, expected, actual):
        def board(black, white):
            try:
                return format_board(Position(black, white, case.position.white_to_move, self.size))
            except Exception as error:  # overlapping or X bits: show the raw fields instead
                return f"black={black} white={white} ({error})"

        lines = [
            f"expected: illegal={expected[2]} board {board(*expected[:2])}",
            f"actual:   illegal={actual[2] if len(actual) > 2 else '?'} board {board(*actual[:2]) if len(actual) > 1 else actual}",
        ]
        if all(isinstance(v, int) for v in actual) and len(actual) == 3:
            differ = (expected[0] ^ actual[0]) | (expected[1] ^ actual[1])
            lines.append("differs at: " + (" ".join(square_name(s, self.size) for s in squares_of(differ)) or "no square"))
        return lines


# the checks the golden worker can run, by block name
WORKER_CHECKS = {check.block: check for check in (MoveCheckerCheck, DiscFlipperCheck)}
