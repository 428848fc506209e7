"""The processor on a board (docs/spec.md §8): the top level that goes into a bitstream.

``board_top`` wraps rtl/processor's ``processor`` for a board's pins:

* **Clock.** The board's oscillator (``clk``) goes through a PLL to the processor clock. For a
  bitstream the PLL is the ECP5's EHXPLLL, instantiated through MyHDL's user-defined Verilog as
  the module that ``ecppll`` writes (``pll`` names it); without ``pll`` a stand-in passes the
  clock through and reports lock at once, which is what the simulated board top uses (the bench
  then clocks ``clk`` at the PLL's output frequency).
* **Reset.** The reset button, and the PLL while it is not locked, hold the processor in reset;
  the release goes through a two-flip-flop synchroniser. Both flip-flops power up at 0 (the
  ECP5's and iCE40's flip-flops do), which is "in reset": the processor starts from reset
  without a press.
* **UART.** ``rx`` and ``tx`` at ``baud`` (115,200 by default); the divisor is the processor
  clock over the baud rate, rounded, computed from ``clock_hz``. The reset holds ``tx`` high, so
  the line idles from power-up, before the transmitter's flip-flop has seen a clock edge.
* **Budget.** The search's cycle budget per move is an elaboration parameter, tied to the
  processor's ``budget`` port; by default the seed's 0.1 s a move at ``clock_hz``.
* **LEDs.** Each LED shows one status bit (``STATUS``), in the board's order and polarity:
  ``thinking`` (deciding a move: book or search), ``game_over`` (II or XX received),
  ``out_of_book`` (the last own move came from the search), ``illegal_input`` (lit for a quarter
  of a second after a byte on ``rx`` that is no character of the protocol, or a framing error:
  a receiver of its own watches the line beside the processor's), ``fault`` (the engine's
  sticky fault flag), ``locked`` (the PLL), ``heartbeat`` (1 Hz while out of reset), ``reset``
  (the processor held in reset).

``BOARDS`` holds each supported board's pin facts the top needs (oscillator, processor clock,
button and LED polarity, the LEDs' status bits); the pin locations are the board's constraint
files in gamechip/boards/. ``board_design(name)`` elaborates the simulated top of a board.
"""

from dataclasses import dataclass

from myhdl import ConcatSignal, ResetSignal, Signal, always, always_comb, always_seq, block, concat, intbv


from rtl.processor import processor
from rtl.processor_settings import PROCESSOR_SOLVE_EMPTIES
from rtl.rom import rom
from rtl.uart import uart_rx, uart_tx

BAUD = 115_200
SECONDS_PER_MOVE = 0.1   # the seed's contest budget
DEPTH_LIMIT = 16
STATUS = ("thinking", "game_over", "out_of_book", "illegal_input", "fault", "locked", "heartbeat", "reset")
# Bytes the referee protocol uses (rtl/processor.py): file letters, rank digits, code letters.
PROTOCOL_BYTES = frozenset(b"ABCDEFGH12345678YRIXV")
CORES = ("processor", "echo")


@dataclass(frozen=True)
class Board:
    oscillator_hz: int     # the board's clock pin
    clock_hz: int          # the processor clock: what ecppll makes of the oscillator for this request
    button_active: int     # the reset button's level when pressed
    leds: tuple            # status bit of each LED, LED 0 first
    led_active: int        # an LED's level when lit

    @property
    def divisor(self):
        return uart_divisor(self.clock_hz)

    @property
    def budget(self):
        return default_budget(self.clock_hz)


BOARDS = {
    # ULX3S: 25 MHz oscillator, FIRE1 button (pulled down, high when pressed), 8 LEDs lit high.
    # 15.625 MHz is ecppll's nearest output to 16 MHz from 25 MHz (VCO 593.75 MHz).
    "ulx3s": Board(25_000_000, 15_625_000, 1, STATUS, 1),
    # OrangeCrab r0.2: 48 MHz oscillator, usr_btn (low when pressed), one RGB LED lit low
    # (red: illegal input, green: thinking, blue: game over).
    "orangecrab": Board(48_000_000, 16_000_000, 0, ("illegal_input", "thinking", "game_over"), 0),
}


def uart_divisor(clock_hz, baud=BAUD):
    """Clock cycles per bit: the clock over the baud rate, rounded."""
    return round(clock_hz / baud)


def default_budget(clock_hz):
    """The search's cycles per move: SECONDS_PER_MOVE at ``clock_hz``."""
    return round(SECONDS_PER_MOVE * clock_hz)


@block
def clock_standin(clk_in, clk, locked):
    """Simulation stand-in for the PLL: the clock passes through, locked at once."""
    @always_comb
    def wires():
        clk.next = clk_in
        locked.next = True

    return wires


@block
def ecp5_pll(clk_in, clk, locked, module):
    """The ECP5 EHXPLLL as the Verilog module ``module`` that ``ecppll -n module`` writes (its
    ports clkin, clkout0, locked); the MyHDL body is the stand-in's, for simulation."""
    clk.driven = "wire"
    locked.driven = "wire"

    @always_comb
    def wires():
        clk.next = clk_in
        locked.next = True

    return wires


ecp5_pll.verilog_code = "$module ${module}_inst(.clkin($clk_in), .clkout0($clk), .locked($locked));"


@block
def reset_synchroniser(clk, released, rst):
    """``rst`` high until ``released`` has been high for two clock edges; both flip-flops
    power up low, in reset."""
    stages = Signal(intbv(0)[2:])

    @always(clk.posedge)
    def shift():
        stages.next = concat(stages[0], released)

    @always_comb
    def output():
        rst.next = not stages[1]

    return shift, output


@block
def pulse_stretcher(clk, rst, trigger, lit, cycles):
    """``lit`` for ``cycles`` clock cycles after each ``trigger``."""
    left = Signal(intbv(0, min=0, max=cycles + 1))

    @always_seq(clk.posedge, reset=rst)
    def count():
        if trigger:
            left.next = cycles
        elif left != 0:
            left.next = left - 1

    @always_comb
    def output():
        lit.next = left != 0

    return count, output


@block
def heartbeat_blinker(clk, rst, beat, half_period):
    """``beat`` toggles every ``half_period`` cycles."""
    count = Signal(intbv(0, min=0, max=half_period))

    @always_seq(clk.posedge, reset=rst)
    def tick():
        if count == half_period - 1:
            count.next = 0
            beat.next = not beat
        else:
            count.next = count + 1

    return tick


@block
def input_watch(clk, rst, rx, illegal, divisor):
    """``illegal`` pulses for a byte on ``rx`` outside PROTOCOL_BYTES or a framing error."""
    data = Signal(intbv(0)[8:])
    valid = Signal(bool(0))
    frame_error = Signal(bool(0))
    receiver = uart_rx(clk, rst, rx, data, valid, frame_error, divisor=divisor)
    in_protocol = Signal(bool(0))
    lookup = rom(data, in_protocol, tuple(int(b in PROTOCOL_BYTES) for b in range(256)))

    @always_comb
    def flag():
        illegal.next = frame_error or (valid and not in_protocol)

    return receiver, lookup, flag


@block
def serial_echo(clk, rst, rx, tx, busy, divisor):
    """Every byte received on ``rx`` sent back on ``tx``; ``busy`` while sending."""
    data = Signal(intbv(0)[8:])
    valid = Signal(bool(0))
    frame_error = Signal(bool(0))
    receiver = uart_rx(clk, rst, rx, data, valid, frame_error, divisor=divisor)
    transmitter = uart_tx(clk, rst, data, valid, busy, tx, divisor=divisor)
    return receiver, transmitter


@block
def board_top(clk, button, rx, tx, led, clock_hz, leds, led_active=1, button_active=1, baud=BAUD,
              budget=None, depth_limit=DEPTH_LIMIT, pll=None, core="processor"):
    """The processor behind a board's pins (see the module docstring).

    clk:      Signal(bool) the board's oscillator (in).
    button:   Signal(bool) the reset button, ``button_active`` when pressed (in).
    rx:       Signal(bool) serial input, idle high (in).
    tx:       Signal(bool) serial output, idle high (out).
    led:      Signal(intbv[len(leds)]) the LEDs, ``led_active`` when lit (out).
    clock_hz: the processor clock (the PLL's output) in Hz: the UART divisor, the default
              budget, the LEDs' timing.
    leds:     the STATUS bit each LED shows, LED 0 first.
    budget:   the search's cycles per move (default: default_budget(clock_hz)).
    pll:      None (the clock passes through) or the name of ecppll's PLL module.
    core:     one of CORES: "processor", or "echo" (serial_echo in the processor's place: a
              link check for the board, and a small design for the bitstream flow's own test).
    """
    if core not in CORES:
        raise ValueError(f"unknown core {core!r}: choose from {', '.join(CORES)}")
    unknown = [name for name in leds if name not in STATUS]
    if unknown:
        raise ValueError(f"unknown LED status {', '.join(unknown)}: choose from {', '.join(STATUS)}")
    if len(led) != len(leds):
        raise ValueError(f"led is {len(led)} bits wide for {len(leds)} LEDs")
    divisor = uart_divisor(clock_hz, baud)
    budget = default_budget(clock_hz) if budget is None else budget

    core_clk = Signal(bool(0))
    locked = Signal(bool(0))
    clocking = clock_standin(clk, core_clk, locked) if pll is None else ecp5_pll(clk, core_clk, locked, pll)

    released = Signal(bool(0))
    rst = ResetSignal(1, active=1, isasync=False)
    synchroniser = reset_synchroniser(core_clk, released, rst)

    @always_comb
    def release():
        released.next = locked and button != button_active

    budget_cycles = Signal(intbv(budget)[32:])   # undriven: converted as a constant
    status = {name: Signal(bool(0)) for name in STATUS}
    last_depth = Signal(intbv(0, min=0, max=17))
    last_cycles = Signal(intbv(0)[32:])
    last_nodes = Signal(intbv(0)[32:])
    last_value = Signal(intbv(0, min=-256, max=256))
    trace_signature = Signal(intbv(0)[64:])
    core_tx = Signal(bool(1))
    if core == "processor":
        logic = processor(core_clk, rst, rx, budget_cycles, core_tx, status["thinking"], status["game_over"],
                          status["out_of_book"], last_depth, last_cycles, last_nodes, last_value,
                          trace_signature, status["fault"], divisor=divisor, depth_limit=depth_limit,
                          solve_empties=PROCESSOR_SOLVE_EMPTIES)
    else:
        logic = serial_echo(core_clk, rst, rx, core_tx, status["thinking"], divisor)

    @always_comb
    def drive_tx():
        # The transmitter's flip-flop powers up at 0, as every flip-flop of the FPGA does, and
        # idles at 1 only from the first clock edge of the reset: the reset holds the pin high
        # meanwhile, so the line shows no falling edge (a start bit to the far end) at power-up.
        tx.next = core_tx or rst

    illegal = Signal(bool(0))
    watch = input_watch(core_clk, rst, rx, illegal, divisor)
    stretcher = pulse_stretcher(core_clk, rst, illegal, status["illegal_input"], max(1, clock_hz // 4))
    blinker = heartbeat_blinker(core_clk, rst, status["heartbeat"], max(1, clock_hz // 2))

    locked_status, reset_status = status["locked"], status["reset"]

    @always_comb
    def mirror_status():
        locked_status.next = locked
        reset_status.next = rst

    lit = ConcatSignal(*[status[name] for name in reversed(leds)]) if len(leds) > 1 else status[leds[0]]
    inverted = 0 if led_active else (1 << len(leds)) - 1

    @always_comb
    def drive_leds():
        led.next = lit ^ inverted

    return (clocking, synchroniser, release, logic, drive_tx, watch, stretcher, blinker, mirror_status,
            drive_leds)


def board_ports(name):
    """(port, width, direction) of ``name``'s board top, in argument order."""
    return [("clk", 1, "in"), ("button", 1, "in"), ("rx", 1, "in"), ("tx", 1, "out"),
            ("led", len(BOARDS[name].leds), "out")]


def board_design(name, pll=None, budget=None, core="processor"):
    """The elaborated top of board ``name`` on fresh signals; ``pll``, ``budget``, ``core`` as
    in board_top."""
    board = BOARDS[name]
    clk, button = Signal(bool(0)), Signal(bool(0))
    rx, tx = Signal(bool(1)), Signal(bool(1))
    led = Signal(intbv(0)[len(board.leds):])
    return board_top(clk, button, rx, tx, led, clock_hz=board.clock_hz, leds=board.leds,
                     led_active=board.led_active, button_active=board.button_active, budget=budget, pll=pll,
                     core=core)
