"""HW/SW co-design (docs/spec.md §10): the adaptive evaluator as an AXI4-Lite peripheral, its bus-level
model, and the host's two ways of sending it boards.

Register map (byte addresses, 32-bit words; every other address answers SLVERR):

=============  ======  ==================================================================
address        access  meaning
=============  ======  ==================================================================
0x000..0x00C   W       whole board, standard model: black[31:0], black[63:32],
                       white[31:0], white[63:32]; the write to 0x00C commits the board
                       with black to move, the same word written at 0x01C commits it with
                       white to move. The committed board becomes the root of the stored
                       path (depth 0) and is evaluated.
0x020          R       RESULT: bits 15..0 the evaluator's adaptive value of the last
                       committed board (two's complement, sign-extended to 16 bits), bit 31
                       VALID. Read before any board was committed: SLVERR, data 0.
0x024          R       STATUS: bits 4..0 depth of the last committed board, bit 8 set when
                       the last transfer was refused (SLVERR), bits 15..12 its reason
                       (:data:`REASONS`).
0x100..0x1FC   W       changeboard, changeboard model: address = 0x100 + 0x80*side +
                       8*k + 4*word, ``side`` the colour that moved (0 black, 1 white),
                       ``word`` 0 for cb[31:0] (latched) and 1 for cb[63:32] (commits),
                       ``k`` the depth difference: the parent of the new board is k levels
                       above the last committed board (k = d_last - (d - 1), the
                       co-design seed's relative address (d - 1) - d_last negated). The new
                       board is rebuilt from its parent by the co-design seed's eq. 4-7
                       (black moved: black' = black | cb, white' = white & ~cb; white moved:
                       the mirror; a pass is cb = 0), stored at depth d_last - k + 1
                       (everything deeper is dropped), evaluated, and made the last
                       committed board; the side to move is the colour that did not move.
=============  ======  ==================================================================

A whole board with a square both black and white is refused (SLVERR, nothing committed; the
words stay in the window). A changeboard whose k points above the root (k > d_last), one sent before any whole board,
one whose new depth would pass :data:`MAX_DEPTH`, or a high word without its low word is
refused with SLVERR and changes nothing stored. Writes to RESULT/STATUS and reads of the
board and changeboard windows are SLVERR too.

The host (:class:`StandardTransfer`, :class:`ChangeboardTransfer`) counts the calls, writes,
reads and bus cycles of each evaluation; the cost model is :data:`WRITE_CYCLES`,
:data:`READ_CYCLES` (AXI4-Lite handshakes) and a fixed per-call cost in write-equivalents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from golden.board import Position
from golden.evaluator import evaluate

MAX_DEPTH = 16            # the ancestor memory holds depths 0..16 (17 boards)
BOARD_BASE, COMMIT_WHITE = 0x000, 0x01C
RESULT, STATUS = 0x020, 0x024
CHANGE_BASE, CHANGE_END = 0x100, 0x200
OKAY, SLVERR = 0, 2
REASONS = {1: "unmapped address", 2: "changeboard before any whole board", 3: "depth difference above the root",
           4: "depth past the ancestor memory", 5: "changeboard high word without its low word",
           6: "read of a write-only register", 7: "read before any board was committed",
           8: "a whole board with a square both black and white"}
WRITE_CYCLES = 3          # AXI4-Lite write: address and data handshakes, then the response
READ_CYCLES = 3           # AXI4-Lite read: address handshake, the evaluator's answer, the data
SEED_COMMUNICATION_CUT = 0.195   # Table II: 5.02 s -> 4.04 s of communication at depth 8


def changeboard_address(side_white: bool, k: int, high: bool) -> int:
    return CHANGE_BASE + 0x80 * int(side_white) + 8 * k + 4 * int(high)


def to_signed16(value: int) -> int:
    return value & 0xFFFF


@dataclass
class BusModel:
    """What every register read must return after any sequence of writes: the peripheral's
    stored path (``boards[0..depth]`` of (black, white, white_to_move)), its result and status."""

    boards: list = field(default_factory=list)
    valid: bool = False
    value: int = 0
    refused: int = 0          # reason of the last refused transfer (0: the last was accepted)
    board_words: list = field(default_factory=lambda: [0, 0, 0, 0])
    low_word: Optional[tuple] = None   # (side, k, cb[31:0]) latched for the high word

    @property
    def depth(self) -> int:
        return len(self.boards) - 1

    def _refuse(self, reason):
        self.refused = reason
        return SLVERR

    def _commit(self, black, white, white_to_move):
        self.boards.append((black, white, white_to_move))
        position = Position(black, white, white_to_move)
        self.value, self.valid, self.refused = evaluate(position).adaptive, True, 0

    def write(self, address: int, data: int) -> int:
        data &= 0xFFFFFFFF
        if address in (0x000, 0x004, 0x008, 0x00C, COMMIT_WHITE):
            self.board_words[0x00C // 4 if address == COMMIT_WHITE else address // 4] = data
            self.low_word = None
            if address in (0x00C, COMMIT_WHITE):
                w = self.board_words
                black, white = w[0] | w[1] << 32, w[2] | w[3] << 32
                if black & white:
                    return self._refuse(8)
                self.boards = []
                self._commit(black, white, address == COMMIT_WHITE)
            return OKAY
        if CHANGE_BASE <= address < CHANGE_END and address % 4 == 0:
            offset = address - CHANGE_BASE
            side, k, high = offset >= 0x80, (offset % 0x80) // 8, (offset % 8) == 4
            if not high:
                self.low_word = (side, k, data)
                return OKAY
            latched, self.low_word = self.low_word, None
            if latched is None or latched[:2] != (side, k):
                return self._refuse(5)
            if not self.boards:
                return self._refuse(2)
            if k > self.depth:
                return self._refuse(3)
            if self.depth - k + 1 > MAX_DEPTH:
                return self._refuse(4)
            cb = latched[2] | data << 32
            del self.boards[self.depth - k + 1:]
            black, white, _ = self.boards[-1]
            if side:
                white, black = white | cb, black & ~cb
            else:
                black, white = black | cb, white & ~cb
            self._commit(black, white, not side)
            return OKAY
        return self._refuse(1 if address not in (RESULT, STATUS) else 1)

    def read(self, address: int) -> tuple:
        if address == RESULT:
            if not self.valid:
                self.refused = 7
                return 0, SLVERR
            return (1 << 31) | to_signed16(self.value), OKAY
        if address == STATUS:
            return (max(self.depth, 0) & 0x1F) | (0x100 if self.refused else 0) | (self.refused << 12), OKAY
        self.refused = 6 if (address < 0x020 or CHANGE_BASE <= address < CHANGE_END) else 1
        return 0, SLVERR


def rebuild_check(parent: Position, child: Position, side_white: bool) -> bool:
    """Independent check of eq. 4-7: the changeboard of a move, applied to the parent, gives
    the child (computed square by square, not with the word equations)."""
    cb = changeboard(parent, child)
    for square in range(64):
        bit = 1 << square
        changed = bool(cb & bit)
        if side_white:
            want_white = bool(parent.white & bit) or changed
            want_black = bool(parent.black & bit) and not changed
        else:
            want_black = bool(parent.black & bit) or changed
            want_white = bool(parent.white & bit) and not changed
        if want_black != bool(child.black & bit) or want_white != bool(child.white & bit):
            return False
    return True


def changeboard(parent: Position, child: Position) -> int:
    """The squares that changed between a board and its child (the new disc and the flips)."""
    return (parent.black ^ child.black) | (parent.white ^ child.white)


@dataclass
class Counts:
    calls: int = 0
    writes: int = 0
    reads: int = 0
    boards: int = 0           # boards sent (whole or changeboard)
    depth_differences: dict = field(default_factory=dict)   # k -> changeboards sent with it

    @property
    def bus_cycles(self) -> int:
        return self.writes * WRITE_CYCLES + self.reads * READ_CYCLES

    def communication(self, per_call: float) -> float:
        """Communication time in write-equivalents: bus cycles over a write's, plus a fixed
        cost per hardware call (the host's driver, cache and interrupt work)."""
        return self.bus_cycles / WRITE_CYCLES + per_call * self.calls

    def to_dict(self):
        return {"calls": self.calls, "writes": self.writes, "reads": self.reads, "bus_cycles": self.bus_cycles,
                "boards": self.boards, "depth_differences": dict(sorted(self.depth_differences.items()))}


class Bus:
    """A bus the host talks to: the golden bus model (default) or a simulated peripheral with
    the same two calls. Every response is checked by the caller."""

    def __init__(self, model: Optional[BusModel] = None):
        self.model = model or BusModel()

    def write(self, address, data):
        return self.model.write(address, data)

    def read(self, address):
        return self.model.read(address)


class BusError(Exception):
    """The peripheral refused a transfer the host expected it to accept."""


class Transfer:
    """The host side of one transfer model: ``evaluate(path)`` sends what the model needs for
    the last position of ``path`` (root first) and returns the peripheral's value."""

    name = "?"

    def __init__(self, bus: Bus):
        self.bus, self.counts = bus, Counts()

    def _write(self, address, data):
        self.counts.writes += 1
        if self.bus.write(address, data) != OKAY:
            raise BusError(f"{self.name}: write of {data:#010x} to {address:#05x} refused")

    def _send_whole(self, position: Position):
        for address, word in ((0x000, position.black & 0xFFFFFFFF), (0x004, position.black >> 32),
                              (0x008, position.white & 0xFFFFFFFF)):
            self._write(address, word)
        self._write(COMMIT_WHITE if position.white_to_move else 0x00C, position.white >> 32)
        self.counts.boards += 1

    def _result(self) -> int:
        self.counts.reads += 1
        data, response = self.bus.read(RESULT)
        if response != OKAY or not data >> 31:
            raise BusError(f"{self.name}: result read answered {response} with {data:#010x}")
        value = data & 0xFFFF
        return value - 0x10000 if value & 0x8000 else value

    def new_search(self):
        """A new root: nothing the peripheral stores is reused."""


class StandardTransfer(Transfer):
    """The co-design seed's Design B: every evaluation sends the whole board (4 writes) and reads."""

    name = "standard"

    def evaluate(self, path):
        self.counts.calls += 1
        self._send_whole(path[-1])
        return self._result()


class ChangeboardTransfer(Transfer):
    """The co-design seed's Design A: the root of a search whole, every other board as a changeboard
    against its parent, which the peripheral must hold: a board whose ancestors are not all on
    the stored path has them sent first (interior nodes travel too)."""

    name = "changeboard"

    def __init__(self, bus: Bus):
        super().__init__(bus)
        self.sent = []   # the peripheral's stored path as the host knows it

    def new_search(self):
        self.sent = []

    def evaluate(self, path):
        self.counts.calls += 1
        common = 0
        while common < min(len(path), len(self.sent)) and self.sent[common] == path[common]:
            common += 1
        if common == len(path) == len(self.sent):   # the last board committed: its value is waiting
            return self._result()
        if common == len(path):   # stored, but deeper boards were committed since: send it again
            common -= 1
        if common == 0:
            self._send_whole(path[0])
            self.sent, common = [path[0]], 1
        for depth in range(common, len(path)):
            parent, child = path[depth - 1], path[depth]
            k = len(self.sent) - 1 - (depth - 1)
            cb = changeboard(parent, child)
            side_white = parent.white_to_move
            self._write(changeboard_address(side_white, k, False), cb & 0xFFFFFFFF)
            self._write(changeboard_address(side_white, k, True), cb >> 32)
            self.counts.boards += 1
            self.counts.depth_differences[k] = self.counts.depth_differences.get(k, 0) + 1
            del self.sent[depth:]
            self.sent.append(child)
        return self._result()
