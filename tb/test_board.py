"""Bench for rtl/board (the processor on a board's pins): the ULX3S top, refereed over its pins.

The top level is ``board_ulx3s`` (the bitstream's top with the PLL's simulation stand-in and the
benches' small budget per move, rtl/designs.py) inside its HDL-clocked harness; the harness's
clock is the processor clock (the stand-in passes it through), so the UART runs at the board's
real divisor: rtl/board.py ``BOARDS["ulx3s"].divisor`` cycles a bit, 115,200 baud at the PLL's
output. The bench owns the button, a bit-level UART driver on ``rx`` and a receiver on ``tx``,
and reads the LEDs; nothing else of the design is visible to it.

Games are refereed by ``golden.contest.referee.play_game`` in a thread of its own (the simulated
board is its message-level endpoint, through two queues); every reply is compared with the reply
of ``golden.processor.GoldenProcessor`` at the same budget and depth limit, fed the same messages,
and the LEDs are checked after every reply: ``thinking`` off, ``out_of_book`` as the golden
decision's source, ``fault`` off; ``thinking`` is on one bit after each message that makes the
board decide. The processor's status words are not on any pin: the processor's own bench
(tb/test_processor.py) checks them, and the node trace, for the same processor.

Tests: ``power_on`` (reset released by the synchroniser without a press; PLL lock LED),
``illegal_input`` (a non-protocol byte and a framing error light the LED, protocol bytes do not,
and the board still answers correctly), ``game_black`` / ``game_white`` (whole games against the
reference player, GAMECHIP_BOARD_MAX_REPLIES stops one early), ``button_reset`` (a press in the
middle of a game: reset LED while held, then a fresh game), ``game_over`` (XX: the LED, and no
answer after it).
"""

import os
import queue
import threading

import cocotb
import pytest
from cocotb.triggers import FallingEdge, RisingEdge, Timer

from golden.board import draw
from golden.contest.players import RandomPlayer
from golden.contest.reference import ReferencePlayer
from golden.contest.referee import PASS, PlayerEndpoint, REASON_END, YOU_LOST, YOU_WON, play_game
from golden.processor import SEARCH, GoldenProcessor
from rtl.board import BOARDS
from rtl.designs import PROCESSOR_BUDGET, PROCESSOR_SOLVE_EMPTIES
from tb.blocks import board_plan
from tb.host.board_bench import run_board_bench
from tb.sim.batch import progress, start_clock
from tb.sim.referee_line import NO_REPLY, QueueEndpoint, RefereeLine

BOARD = BOARDS["ulx3s"]
CLOCK_NS = 10
DIVISOR = BOARD.divisor
BIT_NS = DIVISOR * CLOCK_NS
BUDGET = PROCESSOR_BUDGET   # rtl/designs.py builds board_ulx3s with it
DEPTH_LIMIT = 16
LED = {name: index for index, name in enumerate(BOARD.leds)}
REPLY_TIMEOUT_NS = (20 * BUDGET + 64 * DIVISOR + 2000) * CLOCK_NS


class BoardTB(RefereeLine):
    """The board's button, the referee's serial line (a UART driver on rx, a receiver on tx),
    its LEDs."""

    def __init__(self, dut):
        super().__init__(dut, BIT_NS, CLOCK_NS, REPLY_TIMEOUT_NS, "the board")
        dut.button.value = 1 - BOARD.button_active
        start_clock(dut, CLOCK_NS)
        self.start_receiver()

    def led(self, name):
        return int(self.dut.led.value) >> LED[name] & 1 == BOARD.led_active

    async def press_button(self, cycles=8):
        self.dut.button.value = BOARD.button_active
        for _ in range(cycles):
            await RisingEdge(self.dut.clk)
        await Timer(2 * CLOCK_NS, "ns")
        assert self.led("reset"), "reset LED off while the button is held"
        assert not self.led("thinking") and not self.led("game_over"), "status LEDs lit in reset"
        self.dut.button.value = 1 - BOARD.button_active
        await Timer(4 * CLOCK_NS, "ns")
        await FallingEdge(self.dut.clk)
        assert not self.led("reset"), "reset LED still lit two cycles after the button's release"
        self.received.clear()


async def start(dut):
    tb = BoardTB(dut)
    await tb.press_button()
    await Timer(4 * BIT_NS, "ns")
    return tb


async def play_refereed_game(tb, opponent, board_black, max_replies=None):
    """One game over the pins, every reply and the LEDs checked; (GameResult, replies)."""
    requests, replies = queue.Queue(), queue.Queue()
    endpoint = QueueEndpoint(f"board_ulx3s (budget={BUDGET}, depth={DEPTH_LIMIT})", requests, replies)
    golden = PlayerEndpoint(GoldenProcessor(BUDGET, DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES))
    color = "black" if board_black else "white"

    def referee():
        try:
            black, white = (endpoint, opponent) if board_black else (opponent, endpoint)
            requests.put(("done", play_game(black, white)))
        except BaseException as err:  # noqa: BLE001 - reported by the cocotb side
            requests.put(("error", err))

    threading.Thread(target=referee, daemon=True).start()
    answered = 0
    while True:
        item = requests.get(timeout=600)
        if isinstance(item, tuple):
            if item[0] == "error":
                raise item[1]
            return item[1], answered
        message = item
        if max_replies is not None and answered >= max_replies and message not in (YOU_LOST, YOU_WON):
            replies.put(NO_REPLY)
            continue
        before = golden.position
        expected = golden(message)
        await tb.send_text(message)
        if message in (YOU_LOST, YOU_WON):
            await Timer(4 * BIT_NS, "ns")
            assert tb.led("game_over"), f"game_over LED off after {message}"
            replies.put(None)
            continue
        await Timer(BIT_NS, "ns")
        assert tb.led("thinking"), f"board ({color}): thinking LED off one bit after {message!r}"
        reply = await tb.wait_reply()
        answered += 1
        if reply != expected:
            raise AssertionError(f"board ({color}) reply {answered}: board answered {reply!r}, golden processor "
                                 f"{expected!r} (after referee message {message!r})\nposition: {before.text()}\n"
                                 f"{draw(before)}")
        await Timer(2 * BIT_NS, "ns")
        assert not tb.led("thinking"), f"board ({color}) reply {answered}: thinking LED lit two bits after the reply"
        if reply != PASS:   # a move: the golden player decided it (book or search)
            source = golden.info().get("source")
            assert tb.led("out_of_book") == (source == SEARCH), (f"board ({color}) reply {answered}: out_of_book "
                                                                 f"LED {tb.led('out_of_book')}, golden move from {source}")
        assert not tb.led("fault"), "fault LED lit"
        replies.put(reply)
        progress(f"board ({color}) reply {answered}: {reply}")


def check_completed(result, board_black):
    assert result.reason == REASON_END, f"game not finished normally: {result.summary()}"
    assert result.invalid_by != ("X" if board_black else "O")


def max_replies():
    limit = os.environ.get("GAMECHIP_BOARD_MAX_REPLIES")
    return int(limit) if limit else None


@cocotb.test()
async def power_on(dut):
    """The synchroniser releases the reset without a press (its flip-flops start in reset), the
    stand-in PLL reports lock, and the board answers YY with the book's first move."""
    tb = BoardTB(dut)
    for _ in range(4):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    assert not tb.led("reset"), "the processor is still in reset four cycles after power-on"
    assert tb.led("locked"), "PLL lock LED off"
    assert not tb.led("thinking") and not tb.led("game_over") and not tb.led("illegal_input")
    await Timer(4 * BIT_NS, "ns")
    golden = PlayerEndpoint(GoldenProcessor(BUDGET, DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES))
    await tb.send_text("YY")
    reply = await tb.wait_reply()
    assert reply == golden("YY"), f"first move after power-on: board {reply!r}, golden {golden('YY')!r}"


@cocotb.test()
async def illegal_input(dut):
    """Protocol bytes leave the illegal-input LED dark; a byte outside the protocol and a framing
    error light it; none of them disturbs the game that follows."""
    tb = await start(dut)
    await tb.send_text("Z")
    await Timer(BIT_NS, "ns")
    assert tb.led("illegal_input"), "illegal-input LED dark after 'Z'"
    await tb.press_button()
    assert not tb.led("illegal_input"), "illegal-input LED lit after reset"
    await tb.send_byte(0x00, frame_error=True)
    await Timer(BIT_NS, "ns")
    assert tb.led("illegal_input"), "illegal-input LED dark after a framing error"
    await tb.press_button()
    await tb.send_text("RRA8")   # protocol bytes forming no message acted on: RR before the colour, an illegal move
    await Timer(BIT_NS, "ns")
    assert not tb.led("illegal_input"), "illegal-input LED lit by protocol bytes"
    assert not tb.received, f"answered {bytes(tb.received)!r} to bytes that form no message"
    result, answered = await play_refereed_game(tb, ReferencePlayer(1), True, max_replies=4)
    assert answered == 4


@cocotb.test()
async def game_black(dut):
    """A game as black against the reference player; every reply and the LEDs checked."""
    tb = await start(dut)
    result, _ = await play_refereed_game(tb, ReferencePlayer(1), True, max_replies())
    if max_replies() is None:
        check_completed(result, True)


@cocotb.test()
async def game_white(dut):
    """A game as white against a random player; every reply and the LEDs checked."""
    tb = await start(dut)
    result, _ = await play_refereed_game(tb, RandomPlayer(int(os.environ.get("GAMECHIP_SEED", "1"))), False,
                                         max_replies())
    if max_replies() is None:
        check_completed(result, False)


@cocotb.test()
async def button_reset(dut):
    """A press in the middle of a game resets the processor: the next game starts afresh."""
    tb = await start(dut)
    await play_refereed_game(tb, ReferencePlayer(1), True, max_replies=3)
    await tb.press_button()
    result, _ = await play_refereed_game(tb, ReferencePlayer(1), False, max_replies=3)


@cocotb.test()
async def game_over(dut):
    """XX ends the game: the game-over LED, and a legal move is not answered afterwards."""
    tb = await start(dut)
    golden = PlayerEndpoint(GoldenProcessor(BUDGET, DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES))
    await tb.send_text("YY")
    assert await tb.wait_reply() == golden("YY")
    await tb.send_text(YOU_WON)
    await Timer(4 * BIT_NS, "ns")
    assert tb.led("game_over"), "game-over LED dark after XX"
    await tb.send_text("D3")
    await Timer((BUDGET + 40 * DIVISOR) * CLOCK_NS, "ns")
    assert not tb.received, f"answered {bytes(tb.received)!r} after the game was over"


# --- pytest -------------------------------------------------------------------------------

@pytest.mark.parametrize("sim", ["verilator"])
def test_board(sim):
    tests, env = board_plan(sim)
    outcome = run_board_bench(sim, tests, env)
    if not outcome.passed:
        pytest.fail(f"board bench on {sim} ({', '.join(tests)}) failed:\n{outcome.log[-4000:]}", pytrace=False)
