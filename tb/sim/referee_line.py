"""The referee's serial line on a design's pins, bit by bit under the HDL clock (docs/spec.md §8).

A driver on ``rx`` sends 8N1 frames (optionally with a framing error); a receiver on ``tx``
decodes every frame into ``received`` (a framing error on ``tx`` fails the test); ``wait_reply``
takes the next two-character reply. Python wakes once per bit of a frame and once per reply,
never per cycle. The processor's bench (tb/test_processor.py) and the board's
(tb/test_board.py) drive their designs through it, and referee their games through
``QueueEndpoint``.
"""

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import Event, FallingEdge, First, Timer

import threading

from golden.contest.referee import REASON_END, NoReply, play_game


NO_REPLY = object()   # put on the replies queue to end a game the bench stopped


class QueueEndpoint:
    """The referee's side of a simulated design (runs in the referee's thread): each message goes
    to the cocotb test through ``requests``, its reply comes back through ``replies``."""

    def __init__(self, name, requests, replies):
        self.name, self.requests, self.replies = name, requests, replies

    def __call__(self, message):
        self.requests.put(message)
        reply = self.replies.get()
        if reply is NO_REPLY:
            raise NoReply("the bench stopped the game")
        return reply


class InfoEndpoint(QueueEndpoint):
    """A QueueEndpoint with the status of the design's last decision (``last_info``, set by the
    bench), as a Player's ``info()``."""

    def __init__(self, name, requests, replies):
        super().__init__(name, requests, replies)
        self.last_info = {}

    def info(self):
        return dict(self.last_info)


def referee_thread(opponent, design_black, endpoint, requests, on_move=None):
    """Referee a game of ``endpoint`` (the simulated design, black when ``design_black``) against
    ``opponent`` in a thread of its own; its end goes on ``requests``: ("done", GameResult) or
    ("error", the exception)."""
    def run():
        try:
            black, white = (endpoint, opponent) if design_black else (opponent, endpoint)
            requests.put(("done", play_game(black, white, on_move=on_move)))
        except BaseException as err:  # noqa: BLE001 - reported by the cocotb side
            requests.put(("error", err))
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def check_completed(result, design_black):
    """The game ended normally, and not by an invalid move of the design."""
    assert result.reason == REASON_END, f"game not finished normally: {result.summary()}"
    assert result.invalid_by != ("X" if design_black else "O")


class RefereeLine:
    """A UART driver on ``dut.rx`` and a receiver on ``dut.tx`` at ``bit_ns`` a bit; ``who``
    names the design in a missing reply's message."""

    def __init__(self, dut, bit_ns, clock_ns, reply_timeout_ns, who):
        self.dut = dut
        self.bit_ns, self.clock_ns, self.reply_timeout_ns, self.who = bit_ns, clock_ns, reply_timeout_ns, who
        self.received = []
        self.byte_received = Event()
        self.receiver = None
        dut.rx.value = 1

    def start_receiver(self):
        """Decode ``tx`` from now on (once per line); the receiver's task."""
        if self.receiver is None:
            self.receiver = cocotb.start_soon(self.receive())
        return self.receiver

    async def send_byte(self, value, frame_error=False):
        """One 8N1 frame on rx; ``frame_error`` sends a low stop bit (then two idle bits)."""
        bits = [0] + [(value >> i) & 1 for i in range(8)] + [0 if frame_error else 1]
        for bit in bits:
            self.dut.rx.value = bit
            await Timer(self.bit_ns, "ns")
        if frame_error:
            self.dut.rx.value = 1
            await Timer(2 * self.bit_ns, "ns")

    async def send_text(self, text):
        for char in text:
            await self.send_byte(ord(char))

    async def receive(self):
        """Decode every frame on tx into ``received`` (a framing error is a test failure)."""
        tx = self.dut.tx
        while True:
            await FallingEdge(tx)
            await Timer(self.bit_ns // 2, "ns")
            assert int(tx.value) == 0, "tx: start bit not low in its middle"
            value = 0
            for i in range(8):
                await Timer(self.bit_ns, "ns")
                value |= int(tx.value) << i
            await Timer(self.bit_ns, "ns")
            assert int(tx.value) == 1, f"tx: framing error after byte {value:#04x}"
            self.received.append(value)
            self.byte_received.set()

    async def wait_reply(self):
        """The next two bytes from tx as text; AssertionError after ``reply_timeout_ns``."""
        # woken by each received byte, not by polling: under the HDL clock a poll every few
        # cycles would cost a scheduler round trip each, as driving the clock from Python does
        deadline = get_sim_time("ns") + self.reply_timeout_ns
        while len(self.received) < 2:
            left = deadline - get_sim_time("ns")
            assert left > 0, (f"no reply from {self.who} within {self.reply_timeout_ns // self.clock_ns} cycles "
                              f"(got {self.received})")
            self.byte_received.clear()
            await First(self.byte_received.wait(), Timer(round(left), "ns"))
        # The receiver wakes on tx's edges, which come with rising clock edges: back to the
        # falling edge, so that the bench's next rx levels never change on a rising edge, where
        # which of the two the design sees first is the simulator's choice.
        await FallingEdge(self.dut.clk)
        reply = bytes(self.received[:2]).decode("latin-1")
        del self.received[:2]
        return reply
