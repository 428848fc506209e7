"""``gamechip serve`` inside the simulator: the processor (its clocked harness, the clock in HDL)
with its UART pins bridged to a TCP client (tb/sim/socket_link.py), one game after another.

Each client's game starts from a reset. Its bytes go onto ``rx`` as 8N1 frames at the
converted design's divisor (rtl/designs.py PROCESSOR_DIVISOR cycles a bit: 80 ns at the
harness's 10 ns clock, so a two-byte message takes 160 cycles); every frame decoded on ``tx``
goes to the client at once. The processor is the referee's only judge of what it is sent: the
bridge passes every byte a referee may send (and spaces and line ends, as typed at a terminal)
and ends the game on any other byte (the client is no referee), telling the client so on one
line. A game also ends when the client disconnects; the next client finds the processor reset.

The simulation runs while the processor has work (thinking or sending: Python wakes on
``thinking`` falling, on a poll every POLL_CYCLES for bytes that arrived meanwhile, and per bit
of a frame); while it waits for the client, the bridge blocks on the socket and the simulator
with it, so an idle server takes no CPU.

Settings (environment): GAMECHIP_SERVE_LISTEN ``host:port``, GAMECHIP_PROC_BUDGET (the per-move
cycle budget port), GAMECHIP_SERVE_GAMES (stop after that many games; 0: never),
GAMECHIP_SERVE_RECORDS (a folder: each game's GGF record, game-NNN.ggf, rebuilt from its messages).
"""

import os
import time
from pathlib import Path

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import Event, FallingEdge, First, RisingEdge, Timer

from rtl.designs import PROCESSOR_BUDGET, PROCESSOR_DIVISOR
from tb.host.hdl_text import HALF_PERIOD_NS
from tb.sim.batch import start_clock
from golden.contest.ggf import format_ggf
from golden.contest.referee import YOU_ARE_BLACK, moves_of_exchanges
from tb.sim.socket_link import (DISCONNECTED, SERVE_GAMES, SERVE_LISTEN, SERVE_RECORDS, SPACING_BYTES, Listener,
                                is_garbage, printable, serve_line)

CLOCK_NS = 2 * HALF_PERIOD_NS
BIT_NS = PROCESSOR_DIVISOR * CLOCK_NS
POLL_CYCLES = 4096   # while the processor thinks: how often bytes the client sent meanwhile go to rx


class UartPins:
    """A UART driver on ``rx`` and a receiver on ``tx`` that hands each byte to ``on_byte``."""

    def __init__(self, dut):
        self.dut = dut
        self.in_frame = False
        self.frame_done = Event()   # set at the end of a tx frame
        self.receiver = None

    async def send_byte(self, value):
        """One 8N1 frame on rx, its levels changing on falling clock edges only (the processor
        samples on rising ones)."""
        await FallingEdge(self.dut.clk)
        for bit in [0] + [(value >> i) & 1 for i in range(8)] + [1]:
            self.dut.rx.value = bit
            await Timer(BIT_NS, "ns")

    def listen(self, on_byte):
        """Decode tx frames from now on into ``on_byte(value)``; a framing error is reported."""
        self.stop()
        self.receiver = cocotb.start_soon(self._receive(on_byte))

    def stop(self):
        if self.receiver is not None:
            self.receiver.cancel()
            self.receiver = None
        self.in_frame = False

    async def _receive(self, on_byte):
        tx = self.dut.tx
        while True:
            await FallingEdge(tx)
            self.in_frame = True
            await Timer(BIT_NS // 2, "ns")
            value = 0
            for i in range(8):
                await Timer(BIT_NS, "ns")
                value |= int(tx.value) << i
            await Timer(BIT_NS, "ns")
            self.in_frame = False
            self.frame_done.set()
            if int(tx.value) != 1:
                serve_line(f"tx: framing error after byte {value:#04x} (not passed on)")
                continue
            on_byte(value)


async def reset(dut):
    dut.rst.value = 1
    dut.rx.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


def status(dut):
    """What the processor's status outputs say of its last decision, for the progress line."""
    if not int(dut.out_of_book.value):
        return "book"
    return (f"search depth {int(dut.last_depth.value)}, {int(dut.last_cycles.value):,} cycles, "
            f"{int(dut.last_nodes.value):,} nodes")


class GameLog:
    """The progress lines of one game: each reply with the message before it and its time."""

    def __init__(self, dut, number, client):
        self.dut, self.number, self.client = dut, number, client
        self.message, self.reply = bytearray(), bytearray()
        self.replies = 0
        self.exchanges = []   # (the client's message, the processor's reply), for the game's record
        self.sent_at = self.started = time.perf_counter()
        self.sim_started = get_sim_time("ns")

    def line(self, text):
        serve_line(f"game {self.number}: {text}")

    def received(self, byte):
        if not self.message:
            self.sent_at = time.perf_counter()
        self.message.append(byte)

    def transmitted(self, byte):
        self.client.send(bytes([byte]))
        self.reply.append(byte)
        if len(self.reply) == 2:
            self.replies += 1
            self.exchanges.append(("".join(chr(b) for b in self.message if b not in SPACING_BYTES),
                                   self.reply.decode("latin-1")))
            self.line(f"{printable(self.message) or '(nothing)'} -> {printable(self.reply)} ({status(self.dut)}; "
                      f"{time.perf_counter() - self.sent_at:.2f} s)")
            self.message.clear()
            self.reply.clear()

    def write_record(self, folder, budget):
        """The game as GGF in ``folder`` (game-NNN.ggf); its path, or None when no reply was made."""
        if not self.exchanges:
            return None
        moves = moves_of_exchanges(self.exchanges)
        processor = f"processor (gamechip serve, budget {budget})"
        black, white = ((processor, f"client {self.client.name}") if self.exchanges[0][0] == YOU_ARE_BLACK else
                        (f"client {self.client.name}", processor))
        path = Path(folder) / f"game-{self.number:03d}.ggf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(format_ggf(moves, black, white, place="gamechip serve",
                                   date=time.strftime("%Y-%m-%d %H:%M:%S %Z")) + "\n")
        return path

    def summary(self):
        cycles = round((get_sim_time("ns") - self.sim_started) / CLOCK_NS)
        return f"{self.replies} replies, {cycles:,} cycles simulated, {time.perf_counter() - self.started:.1f} s"


async def waiting_for_rx(dut, pins):
    """Whether the processor waits for the referee: neither thinking nor sending for two bit
    times (it raises ``thinking`` within a bit of a message's last frame). When it is busy,
    returns False once it is done or POLL_CYCLES have passed, whichever comes first."""
    if int(dut.thinking.value):
        await First(FallingEdge(dut.thinking), Timer(POLL_CYCLES * CLOCK_NS, "ns"))
        return False
    if pins.in_frame or not int(dut.tx.value):
        pins.frame_done.clear()
        await First(pins.frame_done.wait(), Timer(POLL_CYCLES * CLOCK_NS, "ns"))
        return False
    await Timer(2 * BIT_NS, "ns")
    return not (int(dut.thinking.value) or pins.in_frame or not int(dut.tx.value))


async def bridge_game(dut, pins, client, log):
    """Pass bytes both ways until the client goes; the reason the game ended."""
    pins.listen(log.transmitted)
    while True:
        byte = client.next_byte(wait=False)
        if byte is ...:
            if not await waiting_for_rx(dut, pins):
                continue
            byte = client.next_byte(wait=True)   # the simulator waits with us
        if byte is DISCONNECTED:
            return "the client disconnected"
        if is_garbage(byte):
            client.say(f"garbage byte {byte:#04x} from the client: the referee protocol sends YY, RR, II, XX and "
                       f"moves A1..H8; game over, the processor is reset")
            return f"garbage from the client (byte {byte:#04x})"
        log.received(byte)
        await pins.send_byte(byte)


@cocotb.test()
async def serve(dut):
    """Serve games until GAMECHIP_SERVE_GAMES are over (or forever; the host ends the run)."""
    host, _, port = os.environ[SERVE_LISTEN].rpartition(":")
    budget = int(os.environ.get("GAMECHIP_PROC_BUDGET", PROCESSOR_BUDGET))
    games = int(os.environ.get(SERVE_GAMES, "0"))
    records = os.environ.get(SERVE_RECORDS)
    dut.budget.value = budget
    dut.rx.value = 1
    dut.rst.value = 1
    start_clock(dut, CLOCK_NS)
    pins = UartPins(dut)
    listener = Listener(host, int(port))
    where = ":".join(str(part) for part in listener.address)
    serve_line(f"listening on {where} (processor: {budget:,} cycles a move, UART {PROCESSOR_DIVISOR} cycles "
               f"a bit at {CLOCK_NS} ns a cycle)")
    number = 0
    while not games or number < games:
        client = listener.next_client()
        number += 1
        await reset(dut)
        log = GameLog(dut, number, client)
        log.line(f"client {client.name} connected; the processor is reset")
        why = await bridge_game(dut, pins, client, log)
        pins.stop()
        listener.release(client)
        log.line(f"over: {why}; {log.summary()}")
        record = log.write_record(records, budget) if records else None
        if record:
            log.line(f"record: {record}")
    serve_line(f"served {number} game{'' if number == 1 else 's'}")
