"""Recorded AXI4-Lite transactions of the co-design's host, streamed through the peripheral at
full speed by the HDL-clocked replay harness (tb.host.harness ``verilog_axi_replay_harness``) and
checked against the golden bus model.

A stream file holds one transaction per line in the harness's own ``$readmemh`` format (12 hex
digits: bit 44 write, bits 43..32 address, bits 31..0 data) and ``//`` comment lines naming
the search the following transactions belong to (they are kept for failure reports and left
out of the chunks the harness reads). Responses come back one line per transaction: a write's
as 34 hex digits (bresp, then the evaluator's latched board: white to move, black, white), a
read's as 9 (rresp, rdata), and a last line ``C <bus cycles>``.
"""

from dataclasses import dataclass, field
from typing import Optional

from golden.host.peripheral import CHANGE_BASE, CHANGE_END, Bus, BusModel
from tb.host.harness import AXI_TRANSACTION_TIMEOUT

WRITE_FLAG = 1 << 44


def transaction_word(write: bool, address: int, data: int = 0) -> str:
    return f"{(WRITE_FLAG if write else 0) | (address & 0xFFF) << 32 | (data & 0xFFFFFFFF):012x}"


def parse_transaction(word: str) -> tuple:
    value = int(word, 16)
    return bool(value & WRITE_FLAG), value >> 32 & 0xFFF, value & 0xFFFFFFFF


def is_changeboard_high(address: int) -> bool:
    return CHANGE_BASE <= address < CHANGE_END and address % 8 == 4


class StreamWriter:
    """Writes a stream file; ``bus(context)`` gives a golden :class:`Bus` whose every
    transaction is also appended to the stream, after a comment naming ``context``."""

    def __init__(self, path):
        self.path = path
        self.out = open(path, "w")
        self.transactions = 0

    def comment(self, text):
        self.out.write(f"// {text}\n")

    def bus(self, context: str) -> Bus:
        self.comment(context)
        return _RecordingBus(self)

    def close(self):
        self.out.close()


class _RecordingBus(Bus):
    def __init__(self, stream: StreamWriter):
        super().__init__()
        self.stream = stream

    def write(self, address, data):
        self.stream.out.write(transaction_word(True, address, data) + "\n")
        self.stream.transactions += 1
        return super().write(address, data)

    def read(self, address):
        self.stream.out.write(transaction_word(False, address) + "\n")
        self.stream.transactions += 1
        return super().read(address)


def read_chunks(path, size, first=None):
    """``(context, words, contexts)`` chunks of at most ``size`` transactions (``first``: the first
    chunk that many, each next one twice as many up to ``size``, so that a mismatch early in the
    stream is seen early): ``contexts`` maps an index in the chunk to the comment that starts
    there, ``context`` is the comment in force at the chunk's first transaction."""
    limit, size = size, first or size
    context, words, contexts = "", [], {}
    first_context = context
    with open(path) as stream:
        for number, line in enumerate(stream, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("//"):
                context = line[2:].strip()
                contexts[len(words)] = context
                continue
            if len(line) != 12 or any(c not in "0123456789abcdefABCDEF" for c in line):
                raise ValueError(f"{path}, line {number}: not a transaction word: {line[:40]!r}")
            words.append(line)
            if len(words) == size:
                yield first_context, words, contexts
                first_context, words, contexts = context, [], {}
                size = min(limit, 2 * size)
    if words:
        yield first_context, words, contexts


@dataclass
class Expected:
    """What the golden bus model says about one transaction."""
    write: bool
    address: int
    data: int
    response: int
    read_data: int = 0
    board: Optional[tuple] = None   # (white to move, black, white) after an accepted changeboard


def expected_responses(model: BusModel, words):
    out = []
    for word in words:
        write, address, data = parse_transaction(word)
        if write:
            response = model.write(address, data)
            board = None
            if response == 0 and is_changeboard_high(address):
                black, white, white_to_move = model.boards[-1]
                board = (int(white_to_move), black, white)
            out.append(Expected(True, address, data, response, board=board))
        else:
            read_data, response = model.read(address)
            out.append(Expected(False, address, 0, response, read_data))
    return out


def parse_response(line: str):
    """A response line as (response, read data or None, board or None, early); ``early``: the
    response came before the transaction's AW and W (or AR) handshakes. None for a bad line."""
    try:
        value = int(line, 16)
    except ValueError:
        return None
    if len(line) == 9:
        return value >> 32 & 3, value & 0xFFFFFFFF, None, bool(value >> 35 & 1)
    if len(line) == 34:
        board = (value >> 128 & 1, value >> 64 & (1 << 64) - 1, value & (1 << 64) - 1)
        return value >> 132 & 3, None, board, bool(value >> 135 & 1)
    return None


@dataclass
class Comparison:
    checked: int = 0
    failure: Optional[str] = None
    cycles: int = 0
    details: dict = field(default_factory=dict)


def compare(expected, lines, context, contexts, first_index):
    """Every response of a chunk against the model's; the first difference as a report."""
    result = Comparison()
    timed_out = bool(lines) and lines[-1].startswith("T ")
    if timed_out:
        lines = lines[:-1]
    if lines and lines[-1].startswith("C "):
        result.cycles = int(lines[-1][2:], 16)
        lines = lines[:-1]
    for index, item in enumerate(expected):
        context = contexts.get(index, context)
        where = f"transaction {first_index + index:,} ({context})"
        what = (f"write of {item.data:#010x} to {item.address:#05x}" if item.write
                else f"read of {item.address:#05x}")
        if index >= len(lines):
            why = (f"no response within {AXI_TRANSACTION_TIMEOUT:,} cycles" if timed_out
                   else f"no response (the harness stopped after {len(lines):,})")
            wanted = (f"bresp {item.response}" if item.write
                      else f"(rdata, rresp) ({item.read_data:#010x}, {item.response})")
            result.failure = f"{where}: {what}: {why}\nexpected: {wanted}\nactual:   {why}"
            return result
        actual = parse_response(lines[index])
        if actual is None or (actual[1] is None) != item.write:
            result.failure = f"{where}: {what}: unreadable response line {lines[index]!r}"
            return result
        response, read_data, board, early = actual
        result.checked += 1
        if early:
            result.failure = (f"{where}: {what}: protocol: the {'write' if item.write else 'read'} response came "
                              f"before the {'AW and W' if item.write else 'AR'} handshakes")
            return result
        if item.write and response != item.response:
            result.failure = f"{where}: {what}: bresp\nexpected: {item.response}\nactual:   {response}"
            return result
        if not item.write and (read_data, response) != (item.read_data, item.response):
            result.failure = (f"{where}: {what}: (rdata, rresp)\nexpected: ({item.read_data:#010x}, {item.response})"
                              f"\nactual:   ({read_data:#010x}, {response})")
            return result
        if item.board is not None:
            result.checked += 1
            if board != item.board:
                names = ("white to move", "black", "white")
                result.failure = (f"{where}: {what}: rebuilt board ({', '.join(names)})\n"
                                  f"expected: {tuple(hex(x) for x in item.board)}\n"
                                  f"actual:   {tuple(hex(x) for x in board)}")
                return result
    if len(lines) > len(expected):
        result.failure = f"{len(lines) - len(expected):,} more responses than transactions in the chunk after {context}"
    return result


def record_searches(writer: StreamWriter, positions, depth):
    """Depth-``depth`` NegaScout searches of ``positions`` through each transfer model, every
    transaction into ``writer``; the hardware calls made."""
    from golden.host.peripheral import ChangeboardTransfer, StandardTransfer
    from golden.host.negascout import NegaScout

    calls = 0
    for transfer_class in (StandardTransfer, ChangeboardTransfer):
        for number, position in enumerate(positions, 1):
            transfer = transfer_class(writer.bus(f"{transfer_class.name} model, depth-{depth} search {number} "
                                                 f"of {position.text()}"))
            transfer.new_search()
            NegaScout(transfer.evaluate).search(position, depth)
            calls += transfer.counts.calls
    return calls
