"""RS-232 UART (docs/spec.md §8): 8N1 frames, least significant bit first, a fixed baud divisor.

A frame on the line is one start bit (0), eight data bits (bit 0 first), one stop bit (1); the
line idles high. ``divisor`` is the number of clock cycles per bit, an elaboration-time
constant (no HDL parameter is emitted: convert once per divisor), at least 4 so that the
receiver's sampling point, which may lie up to one cycle after the middle of a bit, stays well
inside the bit.

Receiver timing. The line passes through a two-flip-flop synchroniser (metastability; both
flip-flops reset to 0, so a line that is low during reset is never taken for idle). The
receiver only looks for a start bit after it has seen the line high (after reset, a framing
error or a break). The first low sample starts a frame; ``divisor // 2`` cycles later, in the
middle of the start bit, the line is sampled again and must still be low, otherwise it was a
glitch (any low pulse shorter than half a bit) and the receiver goes back to waiting for a
start bit. From there it samples every ``divisor`` cycles, i.e. in the middle of each data bit
and of the stop bit. Counted on the rx pin, every sample lies between 0 and 1 clock cycle
after the ideal mid-bit point (the uncertainty is where the start edge fell within its clock
cycle; half a cycle earlier for an odd divisor). The stop bit is sampled 9.5 bits after the
start edge, so a sender whose bits are shorter by up to (0.5 - 1/divisor) / 10 (3.75 % at
divisor 8) or longer by up to 0.5 / 9 (5.5 %) is still decoded.

A stop bit sampled high pulses ``valid`` for one cycle with the byte in ``data``; the pulse
rises 2 to 3 cycles (the synchroniser) after the middle of the stop bit on the pin, i.e.
9.5 bits + 2..3 cycles after the start edge. The receiver looks for the next start bit at once,
from the middle of the stop bit on, so back-to-back frames from a sender up to that much
faster are still followed. A stop bit sampled low pulses ``frame_error`` instead, at the same
time; the byte is dropped, and the receiver waits for the line to go high before it looks for a
start bit: a break (line held low for any time) gives one ``frame_error`` and never a byte, and
a line that is low from reset on gives nothing at all.

Transmitter timing. ``send`` sampled high on a clock edge while ``busy`` is low latches
``data``; on that same edge ``tx`` goes low (start bit) and ``busy`` goes high. Each bit lasts
exactly ``divisor`` cycles; ``busy`` falls ``10 * divisor`` cycles after the accepting edge,
when the stop bit is complete, so a ``send`` held high starts the next frame one cycle later.
``send`` while busy is ignored.
"""

from myhdl import Signal, always, always_seq, block, concat, intbv

MIN_DIVISOR = 4
DATA_BITS = 8

# Receiver states: integer codes of a 3-bit state register.
RX_WAIT_IDLE, RX_IDLE, RX_START, RX_DATA, RX_STOP = range(5)


def check_divisor(divisor):
    if int(divisor) != divisor or divisor < MIN_DIVISOR:
        raise ValueError(f"divisor must be an integer >= {MIN_DIVISOR} clock cycles per bit, got {divisor!r}")


@block
def uart_rx(clk, rst, rx, data, valid, frame_error, divisor=8):
    """UART receiver, 8N1, LSB first.

    clk:         Signal(bool) clock (in).
    rst:         ResetSignal(0, active=1, isasync=False) (in); after reset the receiver waits
                 for the line to be high before it accepts a start bit.
    rx:          Signal(bool) serial line, asynchronous to clk, idle high (in).
    data:        Signal(intbv[8]) the last byte received (out); changes only with ``valid``.
    valid:       Signal(bool) one-cycle pulse: a frame with a good stop bit arrived (out).
    frame_error: Signal(bool) one-cycle pulse: the stop bit was low; the byte is dropped (out).
    divisor:     clock cycles per bit, >= 4 (elaboration-time constant).
    """
    check_divisor(divisor)
    # Reload values as plain constants: MyHDL writes ``divisor - 1`` as a 32-bit expression,
    # which Verilator's -Wall reports as a width mismatch against the 3-bit counter.
    half_bit_reload = divisor // 2 - 1
    bit_reload = divisor - 1
    last_bit = DATA_BITS - 1

    rx_meta = Signal(bool(0))
    rx_sync = Signal(bool(0))
    state = Signal(intbv(RX_WAIT_IDLE, min=0, max=5))
    # Cycles left until the next sample; reloaded with (period - 1) so the sample falls exactly
    # ``period`` edges after the reload.
    wait = Signal(intbv(0, min=0, max=divisor))
    bit_index = Signal(intbv(0, min=0, max=DATA_BITS))
    shift = Signal(intbv(0)[DATA_BITS:])

    @always_seq(clk.posedge, reset=rst)
    def synchronise():
        rx_meta.next = rx
        rx_sync.next = rx_meta

    @always_seq(clk.posedge, reset=rst)
    def receive():
        valid.next = 0
        frame_error.next = 0
        if state == RX_WAIT_IDLE:
            if rx_sync:
                state.next = RX_IDLE
        elif state == RX_IDLE:
            if not rx_sync:
                state.next = RX_START
                wait.next = half_bit_reload
        elif wait != 0:
            wait.next = wait - 1
        elif state == RX_START:
            if rx_sync:
                state.next = RX_IDLE  # high again in mid start bit: a glitch, not a frame
            else:
                state.next = RX_DATA
                wait.next = bit_reload
                bit_index.next = 0
        elif state == RX_DATA:
            shift.next = concat(rx_sync, shift[DATA_BITS:1])  # LSB arrives first
            wait.next = bit_reload
            if bit_index == last_bit:
                state.next = RX_STOP
            else:
                bit_index.next = bit_index + 1
        else:  # RX_STOP, mid stop bit
            if rx_sync:
                data.next = shift
                valid.next = 1
                state.next = RX_IDLE
            else:
                frame_error.next = 1
                state.next = RX_WAIT_IDLE

    return synchronise, receive


@block
def uart_tx(clk, rst, data, send, busy, tx, divisor=8):
    """UART transmitter, 8N1, LSB first.

    clk:     Signal(bool) clock (in).
    rst:     ResetSignal(0, active=1, isasync=False) (in).
    data:    Signal(intbv[8]) byte to send, read on the edge that accepts ``send`` (in).
    send:    Signal(bool) start a frame; accepted on a clock edge while ``busy`` is low (in).
    busy:    Signal(bool) high from the accepting edge until the stop bit is complete (out).
    tx:      Signal(bool) serial line, idle high (out, straight from a flip-flop).
    divisor: clock cycles per bit, >= 4 (elaboration-time constant).
    """
    check_divisor(divisor)
    bit_reload = divisor - 1  # a plain constant, as in uart_rx
    frame_bits = DATA_BITS + 1

    # The frame still to go out, LSB first: the 8 data bits then the stop bit. Shifting in ones
    # from the top keeps the line high once the frame is out.
    frame = Signal(intbv(0)[DATA_BITS + 1:])
    bits_left = Signal(intbv(0, min=0, max=DATA_BITS + 2))
    wait = Signal(intbv(0, min=0, max=divisor))

    @always(clk.posedge)
    def transmit():
        # An explicit reset branch instead of always_seq: always_seq resets a signal to the
        # value it was created with, and tx must leave reset high (idle) whatever the caller
        # created it with.
        if rst:
            tx.next = 1
            busy.next = 0
            frame.next = 0
            bits_left.next = 0
            wait.next = 0
        elif not busy:
            if send:
                frame.next = concat(True, data)
                tx.next = 0  # start bit
                bits_left.next = frame_bits
                wait.next = bit_reload
                busy.next = 1
        elif wait != 0:
            wait.next = wait - 1
        elif bits_left != 0:
            tx.next = frame[0]
            frame.next = concat(True, frame[DATA_BITS + 1:1])
            bits_left.next = bits_left - 1
            wait.next = bit_reload
        else:
            busy.next = 0  # the stop bit has been on the line for a whole bit period

    return transmit


@block
def uart(clk, rst, rx, tx, rx_data, rx_valid, rx_frame_error, tx_data, tx_send, tx_busy, divisor=8):
    """Receiver and transmitter side by side (no loopback): the convertible UART design.

    Ports as in ``uart_rx`` (rx, rx_data, rx_valid, rx_frame_error) and ``uart_tx`` (tx_data,
    tx_send, tx_busy, tx); both share clk, the synchronous reset rst and ``divisor``.
    """
    receiver = uart_rx(clk, rst, rx, rx_data, rx_valid, rx_frame_error, divisor=divisor)
    transmitter = uart_tx(clk, rst, tx_data, tx_send, tx_busy, tx, divisor=divisor)
    return receiver, transmitter
