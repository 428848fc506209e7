"""Bench for rtl/uart (docs/spec.md §8): the receiver and the transmitter against the bench's own model of
an 8N1 serial line (LSB first, idle high), at the bit level.

The receiver gets every byte, back-to-back frames, frames from a sender 3 % fast and 3 % slow,
framing errors, glitches on the idle line, a line stuck low from reset, a break and bursts of
random noise; after each disturbance clean frames must come through again. Every ``rx_valid``
and ``rx_frame_error`` pulse is matched against the frames sent: kind, byte, a one-cycle pulse,
and, at the nominal rate, a time within the second half of the stop bit (the stop bit is
sampled mid-bit). The transmitter sends every byte; its waveform is decoded by the bench (mid-bit
samples from each start edge) and checked level by level: start bit, 8 data bits LSB first,
stop bit, every level change exactly on a bit boundary (bit period = divisor cycles), ``busy``
for exactly 10 bit periods.

The top level is the converted ``uart`` inside its clocked harness (tb.host.harness
``verilog_clock_harness``): the clock runs in HDL and every other port is the harness's, so cocotb
writes the rx line once per run of equal bits and wakes only on the edges of the outputs (and of
``clk`` around each tx_send), never once per cycle. The batch harness of the position blocks would
not do: it applies whole vectors per start/done handshake, while a serial line needs bit times.
``clock="python"`` in tb.host.uart_bench ``run_uart`` runs the same tests with the design itself as the top level
and cocotb's Clock on ``clk``.
"""

import os
import random
from bisect import bisect_right
from dataclasses import dataclass
from typing import Optional

import cocotb
import pytest
from cocotb.simtime import get_sim_time
from cocotb.triggers import FallingEdge, First, ReadOnly, RisingEdge, Timer

from tb.checks.coverage_samplers import CoverageRecorder
from tb.host import runner
from tb.host.uart_bench import DESIGN, uart_regression
from tb.sim.batch import Tally, record_result, start_clock

CLOCK_NS = 10
PS_PER_NS = 1000
STEP_PS = 10  # the converted Verilog's `timescale precision: every time the bench uses is a multiple
FRAME_BITS = 10  # start, 8 data, stop
# Under the HDL clock (tb.host.harness) the bench spends its time on bit-level events, not on clock
# edges: it now simulates 2.2 times the cycles it did under cocotb's Clock, in less time (all 256
# bytes twice each way, and about three times the random frames, glitches and noise bursts).
EVERY_BYTE_ROUNDS = 2
# A backstop for a block that never answers (the longest test simulates about 0.45 ms).
bench_test = cocotb.test(timeout_time=2, timeout_unit="ms")


# ---------------------------------------------------------------- the serial line model

def frame_bits(byte, stop=1):
    """Line levels of one 8N1 frame: start bit 0, data bits LSB first, the stop bit."""
    return [0] + [(byte >> i) & 1 for i in range(8)] + [stop]


def bit_name(index):
    return {0: "start bit", 9: "stop bit"}.get(index, f"data bit {index - 1}")


def byte_text(byte):
    return f"0x{byte:02x} (0b{byte:08b})"


def ns(ps):
    return f"{ps / PS_PER_NS:.2f} ns"


def on_grid(ps):
    """A time the simulator can represent exactly."""
    return STEP_PS * round(ps / STEP_PS)


def level_at(changes, t, initial=1):
    """The level of a line given as time-ordered (time, level) changes, just after time ``t``."""
    # a binary search: the tx check samples 10 times per frame in the changes of 256 frames,
    # and a scan from the start each time made it the bench's slowest part
    index = bisect_right(changes, t, key=lambda change: change[0])
    return changes[index - 1][1] if index else initial


@dataclass
class DecodedFrame:
    start: int  # ps, the falling edge of the start bit
    byte: int
    stop: int


def decode_line(changes, bit_ps, initial=1):
    """An ideal receiver: from each falling edge of an idle line, sample the middle of each of the
    10 bits; look for the next start edge from the middle of the stop bit on."""
    frames, resume = [], None
    previous = initial
    for when, value in changes:
        falling = previous == 1 and value == 0
        previous = value
        if not falling or (resume is not None and when < resume):
            continue
        samples = [level_at(changes, when + (k + 0.5) * bit_ps, initial) for k in range(FRAME_BITS)]
        frames.append(DecodedFrame(when, sum(bit << i for i, bit in enumerate(samples[1:9])), samples[9]))
        resume = when + 9.5 * bit_ps
    return frames


def explain_tx_frame(changes, start, byte, bit_ps):
    """Why the waveform from ``start`` is not the frame of ``byte``: lines naming the first wrong
    bit or the first level change off a bit boundary; [] when it is exactly that frame."""
    end = start + FRAME_BITS * bit_ps
    for when, _ in changes:
        if start < when < end and (when - start) % bit_ps:
            bit = (when - start) // bit_ps
            return [f"level change at {ns(when)} inside the {bit_name(bit)} (frame started at {ns(start)}; "
                    f"bit period must be exactly {ns(bit_ps)}, changes only at multiples of it)"]
    for index, want in enumerate(frame_bits(byte)):
        got = level_at(changes, start + index * bit_ps)
        if got != want:
            return [f"expected {bit_name(index)} = {want}, actual {got} "
                    f"(from {ns(start + index * bit_ps)} to {ns(start + (index + 1) * bit_ps)})"]
    return []


# ---------------------------------------------------------------- expectations and observations

@dataclass
class Expected:
    """An rx pulse the frames sent call for."""

    kind: str  # "rx_valid" or "rx_frame_error"
    byte: int
    start: int  # ps, start edge on the rx line
    bit_ps: int
    window: tuple  # (earliest, latest) ps for the pulse
    label: str
    window_reason: str = "the second half of the stop bit: the stop bit is sampled in its middle"
    bins: tuple = ()  # the coverage bins (tb/testplans/uart.toml) the frame hits once its pulse is seen

    def describe(self):
        stop = "good stop bit" if self.kind == "rx_valid" else "stop bit 0"
        return (f"{self.label}: byte {byte_text(self.byte)}, {stop}, sent on rx from {ns(self.start)}, "
                f"bit time {ns(self.bit_ps)}")

    def wanted(self):
        what = (f"rx_valid with rx_data {byte_text(self.byte)}" if self.kind == "rx_valid"
                else "rx_frame_error (and no rx_valid)")
        return (f"{what}, a one-cycle pulse between {ns(self.window[0])} and {ns(self.window[1])}\n"
                f"          ({self.window_reason})")


@dataclass
class Pulse:
    kind: str
    time: int  # ps, rising edge
    width: int  # ps
    data: Optional[int] = None

    def describe(self):
        data = f" with rx_data {byte_text(self.data)}" if self.kind == "rx_valid" else ""
        return f"{self.kind}{data} at {ns(self.time)}, {self.width / (CLOCK_NS * PS_PER_NS):g} cycle(s) wide"


def first_rx_mismatch(expected, pulses, ignored, clock_ps):
    """Lines describing the first difference between the expected pulses and those seen outside
    the ``ignored`` (from, to) spans, or [] when they agree."""
    seen = [p for p in pulses if not any(a <= p.time < b for a, b in ignored)]
    for index, want in enumerate(expected):
        got = seen[index] if index < len(seen) else None
        if got is None:
            return [want.describe(), f"expected: {want.wanted()}", "actual:   no pulse (the receiver stayed silent)"]
        data_differs = want.kind == "rx_valid" and got.data != want.byte
        if got.kind != want.kind or data_differs or not want.window[0] <= got.time <= want.window[1] \
                or got.width != clock_ps:
            lines = [want.describe(), f"expected: {want.wanted()}", f"actual:   {got.describe()}"]
            if got.time < want.start:
                lines.append("          (before this frame started: a pulse no frame asked for)")
            if data_differs and got.kind == want.kind:
                wrong = [str(i) for i in range(8) if (got.data ^ want.byte) >> i & 1]
                lines.append(f"          data bit(s) {', '.join(wrong)} differ")
            return lines
    if len(seen) > len(expected):
        extra = seen[len(expected)]
        return [f"after the {len(expected)} expected pulse(s): unexpected {extra.describe()}"]
    return []


def now_ps():
    return round(get_sim_time("ps"))


# ---------------------------------------------------------------- the bench

class UartTB:
    """Owns the clock, the reset, the rx line driver, the rx pulse monitor and the tx recorder."""

    def __init__(self, dut, test):
        self.dut = dut
        self.test = test
        self.sim = os.environ.get("GAMECHIP_SIM", "?")
        self.seed = int(os.environ.get("GAMECHIP_SEED", "1"))
        self.divisor = int(os.environ.get("GAMECHIP_UART_DIVISOR", "8"))
        self.rng = random.Random(f"{self.seed}-{test}")
        self.clock_ps = CLOCK_NS * PS_PER_NS
        self.bit_ps = self.divisor * self.clock_ps
        self.cursor = 0  # ps: when the next rx level starts
        self.expected = []
        self.pulses = []
        self.ignored = []  # (from, to) ps spans whose rx pulses are not checked (noise)
        self.tx_changes = []  # (ps, level or 'x')
        self.checked = 0
        # functional coverage (tb/testplans/uart.toml): bins of the stimulus, added to the hit file
        # once every check of the test passed
        self.coverage = CoverageRecorder.from_environment(test)
        self.hits = {}
        self.stop_middle = None  # ps: the ideal stop-bit sample of the last good frame, until the line moves
        self.after = None  # the disturbance the next good frame follows (rx_recovers_after)

    async def start(self, rx=1):
        """Clock, reset for 3 cycles with the rx line at ``rx``, monitors on."""
        dut = self.dut
        dut.rx.value = rx
        dut.tx_send.value = 0
        dut.tx_data.value = 0
        dut.rst.value = 1
        start_clock(dut, CLOCK_NS)
        cocotb.start_soon(self.watch_pulses(dut.rx_valid, "rx_valid"))
        cocotb.start_soon(self.watch_pulses(dut.rx_frame_error, "rx_frame_error"))
        cocotb.start_soon(self.watch_tx())
        for edge in range(3):
            await RisingEdge(dut.clk)
            if edge:   # reset has been seen on an edge: every output at its reset value
                await ReadOnly()
                outputs = {name: str(getattr(dut, name).value) for name in ("tx", "tx_busy", "rx_valid", "rx_frame_error")}
                if outputs != {"tx": "1", "tx_busy": "0", "rx_valid": "0", "rx_frame_error": "0"}:
                    self.fail([f"during reset: expected tx = 1, tx_busy = 0, rx_valid = 0, rx_frame_error = 0, "
                               f"actual {', '.join(f'{k} = {v}' for k, v in outputs.items())}"])
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        # The line starts changing 3 ns after a rising edge and keeps that phase at the nominal
        # rate, so rx never changes on a clock edge, where the order of the two events would be
        # the simulator's choice. Glitches, noise and rate errors move the phase on purpose:
        # what those tests expect holds whichever edge first sees a change.
        self.cursor = now_ps() + self.clock_ps // 2 + 3 * PS_PER_NS
        self.phase = self.cursor % self.clock_ps

    async def watch_pulses(self, signal, kind):
        while True:
            await RisingEdge(signal)
            rose = now_ps()
            await ReadOnly()  # rx_data is written on the same edge: read it once settled
            data = int(self.dut.rx_data.value) if kind == "rx_valid" else None
            await FallingEdge(signal)
            self.pulses.append(Pulse(kind, rose, now_ps() - rose, data))

    async def watch_tx(self):
        while True:
            await self.dut.tx.value_change
            text = str(self.dut.tx.value).lower()
            self.tx_changes.append((now_ps(), int(text) if text in ("0", "1") else text))

    # ------------------------------------------------------------ rx line driver

    async def until(self, when):
        delta = when - now_ps()
        if delta > 0:
            await Timer(delta, "ps")

    async def hold(self, level, duration_ps):
        """Put ``level`` on rx at the cursor and keep it for ``duration_ps``."""
        await self.until(self.cursor)
        self.dut.rx.value = level
        self.cursor += on_grid(duration_ps)
        if not level:
            self.stop_middle = None

    async def idle(self, bits):
        await self.hold(1, bits * self.bit_ps)

    async def frame(self, byte, stop=1, rate=1.0, label="frame", window=None, stop_ps=None):
        """Send one frame at ``rate`` times the nominal bit time (``stop_ps``: a stop bit that
        long instead); expect its pulse in ``window`` (bits after the start edge, and why;
        default: the second half of the stop bit)."""
        bit_ps = self.bit_ps * rate
        start = self.cursor
        bits = frame_bits(byte, stop)
        edges = [start + on_grid(k * bit_ps) for k in range(FRAME_BITS + 1)]
        if stop_ps is not None:
            edges[FRAME_BITS] = edges[FRAME_BITS - 1] + on_grid(stop_ps)
        bins = [f"rx_byte:{byte}" if stop else "rx_frame_error:stop_bit_low",
                f"rx_rate:{'nominal' if rate == 1 else 'slow' if rate > 1 else 'fast'}"]
        if self.stop_middle is not None:   # clock cycles from the last frame's stop-bit sample to this start edge
            cycles = -(-(start - self.stop_middle) // self.clock_ps)
            bins.append(f"stop_to_next_start:{cycles if cycles <= 4 else '5+'}")
        if stop and self.after:
            bins.append(f"rx_recovers_after:{self.after}")
        self.after = None if stop else "framing_error"
        index = 0
        while index < FRAME_BITS:  # one write per run of equal bits
            run = index
            while run + 1 < FRAME_BITS and bits[run + 1] == bits[index]:
                run += 1
            self.cursor = edges[index]
            await self.hold(bits[index], edges[run + 1] - edges[index])
            index = run + 1
        low, high, *why = window or (9.5, 10)
        self.expected.append(Expected("rx_valid" if stop else "rx_frame_error", byte, start, round(bit_ps),
                                      (start + round(low * bit_ps), start + round(high * bit_ps)), label, *why,
                                      bins=tuple(bins)))
        self.stop_middle = start + FRAME_BITS * self.bit_ps - self.bit_ps // 2 if stop else None

    async def noise(self, bits):
        """Random levels for about ``bits`` bit times, pieces from 1 ns to 1.5 bits long."""
        end = self.cursor + bits * self.bit_ps
        level = 0
        while self.cursor < end:
            await self.hold(level, self.rng.randrange(PS_PER_NS, self.bit_ps * 3 // 2, STEP_PS))
            level ^= 1

    async def finish_rx(self):
        """Idle the line until the last frame's pulse is certainly over, then compare."""
        await self.idle(2)
        await self.until(self.cursor)
        lines = first_rx_mismatch(self.expected, self.pulses, self.ignored, self.clock_ps)
        self.checked += len(self.expected)
        if lines:
            self.fail(lines)
        self.cover(*(name for want in self.expected for name in want.bins))

    # ------------------------------------------------------------ reporting

    def fail(self, lines):
        message = "\n".join([f"MISMATCH in uart ({DESIGN}) on {self.sim}, test {self.test}, seed {self.seed}, "
                             f"divisor {self.divisor}, clock {CLOCK_NS} ns", *lines,
                             f"simulation time at the check: {ns(now_ps())}"])
        record_result(self.test, Tally(checked=self.checked), failure=message)
        raise AssertionError(message)

    def cover(self, *bins):
        """Count coverage bins of what the test sent (saved only if the whole test passes)."""
        for name in bins:
            self.hits[name] = self.hits.get(name, 0) + 1

    def passed(self):
        assert self.checked > 0, f"{self.test}: nothing was checked"
        record_result(self.test, Tally(checked=self.checked))
        if self.coverage is not None:
            self.coverage.add(self.hits, self.checked)
            self.coverage.save()


async def send_bytes(tb, data, rate=1.0, label="frame", gaps=(0,), window=None, lead=0):
    """``lead`` idle bits, then frames of ``data`` with an idle gap (in bits) before each, chosen
    from ``gaps``."""
    if lead:
        await tb.idle(lead)
    for number, byte in enumerate(data):
        gap = tb.rng.choice(gaps)
        if gap:
            await tb.idle(gap)
        await tb.frame(byte, rate=rate, label=f"{label} {number} of {len(data)}", window=window)


async def transmit(tb, data):
    """Send ``data`` through the transmitter: the first 16 bytes with one-cycle ``tx_send``
    pulses after random pauses, the rest with ``tx_send`` held high (the next frame then starts
    one cycle after ``busy`` falls). ``tx_data`` is scrambled while busy, which must not disturb
    the frame going out. Returns the times ``busy`` rose (the accepting edges) and fell."""
    dut = tb.dut
    accepted, released = [], []
    await FallingEdge(dut.clk)
    for number, byte in enumerate(data):
        dut.tx_data.value = byte
        if number < 16:
            for _ in range(tb.rng.randrange(3)):
                await FallingEdge(dut.clk)
        dut.tx_send.value = 1
        await First(RisingEdge(dut.tx_busy), Timer(2 * tb.clock_ps, "ps"))
        if str(dut.tx_busy.value) != "1":
            tb.fail([f"tx frame {number} of {len(data)}: byte {byte_text(byte)}",
                     f"expected tx_busy to rise on the first clock edge with tx_send high, actual: "
                     f"still {dut.tx_busy.value} two cycles later"])
        accepted.append(now_ps())
        if number < 16:
            dut.tx_send.value = 0
        dut.tx_data.value = byte ^ 0xFF
        await First(FallingEdge(dut.tx_busy), Timer(FRAME_BITS * tb.bit_ps + 2 * tb.clock_ps, "ps"))
        if str(dut.tx_busy.value) != "0":
            tb.fail([f"tx frame {number} of {len(data)}: byte {byte_text(byte)}, tx_send accepted at "
                     f"{ns(accepted[-1])}", f"expected tx_busy to fall after {FRAME_BITS} bit periods, "
                     f"actual: still {dut.tx_busy.value} two cycles after that"])
        released.append(now_ps())
    dut.tx_send.value = 0
    for _ in range(3):
        await FallingEdge(dut.clk)
    return accepted, released


def check_tx(tb, data, accepted, released):
    """The tx waveform since the first accepting edge, frame by frame, against ``data``."""
    bit_ps = tb.bit_ps
    changes = [(t, v) for t, v in tb.tx_changes if t >= accepted[0]]
    decoded = decode_line(changes, bit_ps)
    for number, byte in enumerate(data):
        label = (f"tx frame {number} of {len(data)}: byte {byte_text(byte)}, "
                 f"tx_send accepted at {ns(accepted[number])}")
        frame = decoded[number] if number < len(decoded) else None
        if frame is None:
            tb.fail([label, f"expected a start bit at {ns(accepted[number])}, actual: no start bit "
                            f"(tx stayed {level_at(changes, accepted[number])})"])
        problems = []
        if frame.start != accepted[number]:
            problems.append(f"expected the start bit on the accepting edge {ns(accepted[number])}, "
                            f"actual start edge at {ns(frame.start)}")
        problems += explain_tx_frame(changes, frame.start, byte, bit_ps)
        if frame.byte != byte or frame.stop != 1:
            problems.append(f"decoded (mid-bit samples): byte {byte_text(frame.byte)}, stop bit {frame.stop}")
        if released[number] - accepted[number] != FRAME_BITS * bit_ps:
            problems.append(f"expected tx_busy high for exactly {FRAME_BITS} bit periods ({ns(FRAME_BITS * bit_ps)}), "
                            f"actual {ns(released[number] - accepted[number])} (falls at {ns(released[number])})")
        if problems:
            tb.fail([label, *problems])
        tb.checked += 1
        tb.cover(f"tx_byte:{byte}", f"tx_send:{'pulse' if number < 16 else 'held'}")
    if len(decoded) > len(data):
        extra = decoded[len(data)]
        tb.fail([f"after the {len(data)} frames sent: unexpected start bit at {ns(extra.start)} "
                 f"(decodes as {byte_text(extra.byte)})"])


@bench_test
async def every_byte_both_ways(dut):
    """Bytes 0..255, EVERY_BYTE_ROUNDS times, each round in its own random order, through the
    receiver (random idle gaps of 0 to 2.5 bits between frames) and, at the same time, other
    orders through the transmitter: the two directions share nothing but clock and reset, and
    running them together halves the clock cycles the bench spends."""
    tb = UartTB(dut, "every_byte_both_ways")
    await tb.start()
    await RisingEdge(dut.clk)
    await ReadOnly()
    if str(dut.tx.value) != "1" or str(dut.tx_busy.value) != "0":
        tb.fail([f"after reset: expected tx = 1 (idle) and tx_busy = 0, actual tx = {dut.tx.value}, "
                 f"tx_busy = {dut.tx_busy.value}"])
    rx_data, tx_data = [], []
    for _ in range(EVERY_BYTE_ROUNDS):
        for data in (rx_data, tx_data):
            round_ = list(range(256))
            tb.rng.shuffle(round_)
            data += round_
    await Timer(1, "ns")  # leave the read-only phase before the drivers write
    receiving = cocotb.start_soon(send_bytes(tb, rx_data, label="rx frame", gaps=(0, 0, 0.3, 1, 2.5), lead=1))
    accepted, released = await transmit(tb, tx_data)
    await receiving
    await tb.finish_rx()
    check_tx(tb, tx_data, accepted, released)
    tb.passed()


@bench_test
async def rx_back_to_back(dut):
    """Frames with no idle time at all: each start bit follows the previous stop bit directly."""
    tb = UartTB(dut, "rx_back_to_back")
    await tb.start()
    await tb.idle(1)
    await send_bytes(tb, [0x00, 0xFF, 0x00, 0x55, 0xAA, 0x80, 0x01] + [tb.rng.randrange(256) for _ in range(89)],
                     label="back-to-back frame")
    # Stop bits cut to half a bit and 1-3 cycles: the next start edge comes 1-3 cycles after the
    # stop bit's middle (on the bench's phase the receiver samples it 0.7 cycle after the middle),
    # so the receiver must look for a start bit from the stop-bit sample on, not from its end.
    for cycles in (1, 2, 3):
        await tb.frame(0x5A ^ cycles, stop_ps=tb.bit_ps // 2 + cycles * tb.clock_ps,
                       label=f"frame whose stop bit ends {cycles} cycle(s) after its middle")
    await tb.frame(0xC3, label="frame starting 1 cycle after the last stop bit's middle")
    await tb.finish_rx()
    tb.passed()


@bench_test
async def rx_baud_mismatch(dut):
    """A sender 3 % slow, then one 3 % fast, back to back: still decoded, because the receiver
    samples mid-bit. The pulse may then come up to half a bit later than the stop bit's end."""
    tb = UartTB(dut, "rx_baud_mismatch")
    await tb.start()
    for rate in (1.03, 0.97):
        await tb.idle(1)
        data = [0x00, 0xFF, 0x55, 0xAA, 0x01, 0x80] + [tb.rng.randrange(256) for _ in range(58)]
        await send_bytes(tb, data, rate=rate, label=f"frame at {rate:.0%} of the bit time",
                         window=(9, 10.5, "around the stop bit's middle, shifted by up to 0.3 bit of rate error"))
    await tb.finish_rx()
    tb.passed()


@bench_test
async def rx_framing_error(dut):
    """Frames whose stop bit is 0, each followed by one idle bit and a good frame: a framing
    error and no byte for the bad one, the good one received."""
    tb = UartTB(dut, "rx_framing_error")
    await tb.start()
    await tb.idle(1)
    for number, byte in enumerate([0x00, 0xFF, 0x55, 0x81] + [tb.rng.randrange(256) for _ in range(12)]):
        await tb.frame(byte, stop=0, label=f"bad frame {number}")
        await tb.idle(1)
        await tb.frame(byte ^ 0x5A, label=f"good frame after bad frame {number}")
    await tb.finish_rx()
    tb.passed()


@bench_test
async def rx_glitch(dut):
    """Low pulses shorter than half a bit on the idle line (1 ns to half a bit minus 2 ns, at
    random phases against the clock) start no frame; a good frame afterwards is received, also one
    whose start edge comes in the cycle after the receiver sampled a glitch high."""
    tb = UartTB(dut, "rx_glitch")
    await tb.start()
    await tb.idle(1)
    half_bit = tb.bit_ps // 2
    for width in sorted({PS_PER_NS, 3 * PS_PER_NS + 70, tb.clock_ps, half_bit // 2, half_bit - 2 * PS_PER_NS,
                         *(tb.rng.randrange(PS_PER_NS, half_bit - 2 * PS_PER_NS, STEP_PS) for _ in range(24))}):
        await tb.hold(0, width)
        await tb.hold(1, 2 * tb.bit_ps + tb.rng.randrange(0, tb.clock_ps, STEP_PS))
        tb.cover(f"glitch:{'under_a_cycle' if width < tb.clock_ps else 'up_to_half_a_bit'}")
    tb.after = "glitch"
    await tb.frame(0xA5, label="frame after the glitches")
    # A start edge in the very cycle after the glitch was found out: the receiver must be looking
    # for a start bit again at once (not first waiting for the line to be seen high once more).
    # On the bench's phase the glitch is sampled, through the synchroniser, half a bit and about
    # 0.7 cycle after it began; the frame starts half a bit and one cycle after it, with the line
    # high in between.
    for number, width in enumerate((PS_PER_NS, tb.clock_ps, half_bit - 2 * PS_PER_NS)):
        await tb.idle(2)
        tb.cursor += -(tb.cursor - tb.phase) % tb.clock_ps  # back on the phase: 3 ns after a rising edge
        glitch = tb.cursor
        await tb.hold(0, width)
        await tb.hold(1, glitch + (tb.divisor // 2 + 1) * tb.clock_ps - tb.cursor)
        tb.cover("glitch:start_in_the_next_cycle")
        await tb.frame(0x3C ^ number, label=f"frame starting one cycle after a {ns(width)} glitch was sampled")
    await tb.finish_rx()
    tb.passed()


@bench_test
async def rx_stuck_low_and_break(dut):
    """A line low from reset on for 3 frame times gives nothing (the receiver never saw idle);
    a break (low for 3 frame times) after a frame gives one framing error and no byte. Clean
    frames get through after both."""
    tb = UartTB(dut, "rx_stuck_low_and_break")
    await tb.start(rx=0)
    await tb.hold(0, 3 * FRAME_BITS * tb.bit_ps)
    await tb.idle(1)
    tb.after = "stuck_low_from_reset"
    await send_bytes(tb, [0x4F, 0x4B], label="frame after the stuck-low line")
    await tb.idle(1)
    break_start = tb.cursor
    await tb.hold(0, 3 * FRAME_BITS * tb.bit_ps)
    # The first 10 bit times of a break read as a frame of 0x00 with stop bit 0.
    tb.expected.append(Expected("rx_frame_error", 0x00, break_start, tb.bit_ps,
                                (break_start + 19 * tb.bit_ps // 2, break_start + 10 * tb.bit_ps),
                                "break (line low for 30 bit times)", bins=("rx_frame_error:break",)))
    await tb.idle(1)
    tb.after = "break"
    await send_bytes(tb, [0x42, 0x52, 0x4B], label="frame after the break")
    await tb.finish_rx()
    tb.passed()


@bench_test
async def rx_noise(dut):
    """Bursts of random levels (1 to 5 frame times), each followed by 11 idle bits and clean
    frames: whatever the noise made the receiver report is ignored, the clean frames must all
    arrive and nothing else."""
    tb = UartTB(dut, "rx_noise")
    await tb.start()
    await tb.idle(1)
    for burst in range(24):
        noise_start = tb.cursor
        await tb.noise(tb.rng.randrange(FRAME_BITS, 5 * FRAME_BITS))
        # Any frame the noise started is over 10 bits after the noise ends; the receiver then
        # waits in idle with the line high.
        await tb.idle(11)
        tb.ignored.append((noise_start, tb.cursor))
        tb.after = "noise"
        await send_bytes(tb, [tb.rng.randrange(256) for _ in range(3)], label=f"clean frame after burst {burst}",
                         gaps=(0, 1))
    await tb.finish_rx()
    tb.passed()


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_uart(sim):
    uart_regression(sim)
