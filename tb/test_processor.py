"""Bench for rtl/processor (docs/spec.md §8): whole refereed games over the UART pins.

The top level is the processor inside its clocked harness (tb.host.harness ``verilog_clock_harness``:
the clock runs in HDL, every other port is the harness's); ``clock="python"`` in
tb.host.processor_bench ``run_processor_bench`` makes the processor itself the top level and cocotb's Clock drives
``clk``. The bench owns the reset, a bit-level UART driver on ``rx`` and a UART receiver on
``tx``; Python wakes per bit of a frame and when a reply is complete, never per cycle. Games are refereed by ``golden.contest.referee.play_game``,
which is synchronous: it runs in a Python thread, and the simulated processor is its
message-level endpoint. Each message the referee sends is handed to the cocotb test through
a queue, sent over ``rx`` byte by byte, and the processor's two-character reply (from
``tx``) goes back through a second queue. Every reply is compared with the reply of
``golden.processor.GoldenProcessor`` (same budget, depth limit and search contexts as the
converted design) fed the same messages, in a process of its own (tb.checks.processor ``worker_main``, PyPy when
installed) that searches while the simulator does; a mismatch stops the game with the move number, the board and both
moves. After every decision the status outputs (out_of_book, last_depth, last_cycles,
last_nodes, last_value) are checked against the golden player's info.

Two contexts or K engines (processor_c2, processor_k2, processor_k3; docs/root-split.md): the harness
logs the job port, one line a clock with a job event (tb.checks.processor JOB_LOG); after every
reply, first of all, that search's lines must be the golden root splitter's job list event by event
(clock from the search's k = 0, context or engine, kind, root move, depth, window; on a result its
value, node count and the signature of its node events): the first difference names the clock, the
context or engine, the job and the command that replays it.

Noise (the ``noise`` test, tb.checks.processor ``noise_burst``): rubbish on ``rx`` before every
referee message and while the processor thinks must change nothing. The directed ``assembler``
test comes first, so that a mutant it kills dies in about a second.
"""

import atexit
import functools
import json
import os
import queue
import random
import time

import cocotb
import pytest
from cocotb.simtime import get_sim_time
from cocotb.triggers import FallingEdge, RisingEdge, Timer

from golden.board import draw, parse_board, square_name, squares_of, start_position
from golden.contest.games import mover_name, result_dict
from golden.contest.players import RandomPlayer
from golden.contest.referee import PlayerEndpoint, REASON_END, YOU_LOST, YOU_WON, encode_move
from golden.contest.reference import ReferencePlayer
from golden.openings import book_move
from golden.othello import legal_moves
from golden.processor import EXACT, SEARCH, WLD, GoldenProcessor
from rtl.designs import PROCESSOR_BUDGET, PROCESSOR_C2_BUDGET, PROCESSOR_DEPTH_LIMIT, PROCESSOR_DIVISOR, PROCESSOR_SOLVE_EMPTIES
from tb.blocks import PROCESSOR_EVERY_TEST, PROCESSOR_SEARCH, design_evaluator, processor_plan
from tb.checks.coverage_benches import ProcessorCoverage
from tb.checks.evaluator import signed9
from tb.checks.processor import (FRAME_ERROR, PASS_GAME_SEED, PASS_GAME_SEED_C2, GoldenProcessorProcess, JobLog,
                                 RecordingGolden, TrustingEndpoint, empties, extra_games, formed_message,
                                 evaluator_weights, job_port_difference, noise_burst, square_tokens)
from tb.checks.book_games import COLOURS, BookLineOpponent, book_games, mover_is_processor, processor_replies
from tb.checks.processor_stimulus import GLITCH, GLITCH_CYCLES, ByteSweep
from tb.host import runner
from tb.host.processor_bench import run_processor_bench
from tb.host.toolchain import coverage_only_tests
from tb.sim.batch import ACTUAL_FILE, FIRST_FAILURE_ENDS_RUN, MUTANT_GROUP, RESULT_FILE, each_mutant, progress, start_clock
from tb.sim.referee_line import NO_REPLY, InfoEndpoint, RefereeLine, check_completed, referee_thread

CLOCK_NS = 10
SOLVED_NAMES = (None, WLD, EXACT, None)   # last_solve: the completed solve whose answer was played (rtl/processor.py)
# The design under test (run_design's GAMECHIP_DESIGN), its search contexts and engines (tb.blocks PROCESSOR_SEARCH).
DESIGN = os.environ.get("GAMECHIP_DESIGN", "processor")
CONTEXTS, ENGINES = PROCESSOR_SEARCH.get(DESIGN, (1, 1))
SPLIT, WORKER = CONTEXTS == 2 or ENGINES > 1, "engine" if ENGINES > 1 else "context"   # a splitter's job port
EVALUATOR = design_evaluator(DESIGN)   # seed or pattern (the golden processor's: evaluator_weights)
# The converted design's elaboration parameters (rtl/designs.py build_processor).
DIVISOR = PROCESSOR_DIVISOR
# The per-move budget is an input port: GAMECHIP_PROC_BUDGET (default: the design's small regression one).
BUDGET = int(os.environ.get("GAMECHIP_PROC_BUDGET", PROCESSOR_C2_BUDGET if SPLIT else PROCESSOR_BUDGET))
DEPTH_LIMIT = PROCESSOR_DEPTH_LIMIT
SOLVE_EMPTIES = 0 if SPLIT else PROCESSOR_SOLVE_EMPTIES   # the endgame solve's E: the splitters' processors do not solve
BIT_NS = DIVISOR * CLOCK_NS
REPLY_TIMEOUT_CYCLES = 20 * BUDGET + 64 * DIVISOR + 2000   # search + book + two frames, generous


# --- the bench ----------------------------------------------------------------------------

class ProcessorTB(RefereeLine):
    """Clock, reset, and the referee's serial line (a UART driver on rx, a receiver on tx)."""

    def __init__(self, dut):
        super().__init__(dut, BIT_NS, CLOCK_NS, REPLY_TIMEOUT_CYCLES * CLOCK_NS, "the processor")
        self.log = dut._log
        dut.budget.value = BUDGET
        start_clock(dut, CLOCK_NS)

    async def reset(self):
        """Reset (again, between the games of one test); tx stays idle meanwhile, so one
        receiver serves every game."""
        self.dut.rst.value = 1
        self.dut.rx.value = 1
        for _ in range(4):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        await FallingEdge(self.dut.clk)
        assert not self.received, f"bytes from tx left over from before the reset: {bytes(self.received)!r}"
        if self.receiver is None:
            _receivers.append(self.start_receiver())
        await Timer(4 * BIT_NS, "ns")

    async def send_tokens(self, tokens):
        for token in tokens:
            if token == FRAME_ERROR:
                await self.send_byte(0x00, frame_error=True)
            elif token == GLITCH:   # shorter than half a bit: no start bit, no frame
                self.dut.rx.value = 0
                await Timer(GLITCH_CYCLES * CLOCK_NS, "ns")
                self.dut.rx.value = 1
                await Timer(2 * BIT_NS, "ns")
            else:
                await self.send_byte(token)

    def status(self):
        d = self.dut
        return {"source": SEARCH if int(d.out_of_book.value) else "book",
                "depth": int(d.last_depth.value), "nodes": int(d.last_nodes.value),
                "cycles": int(d.last_cycles.value), "value": signed9(int(d.last_value.value)),
                "solved": SOLVED_NAMES[int(d.last_solve.value)]}


_golden_process = None   # the golden processor's process (tb.checks.processor), one per simulation
_job_log = []   # the job log of a splitter's processor (tb.checks.processor JobLog), one per simulation
jobs_checked = {"jobs": 0, "nodes": 0}   # the jobs whose events matched, and their nodes (signatures checked)


def check_job_port(jobs, what):
    """Two contexts or K engines: the job port's events since the last check must be the golden ``jobs``'
    (none for a book move or a pass at the root); ``what`` names the reply."""
    if not SPLIT:
        return
    if not _job_log:
        _job_log.append(JobLog())
    difference = job_port_difference(_job_log[0].new_lines(), jobs, os.environ.get("GAMECHIP_SIM", "SIM"), WORKER)
    if difference:
        raise AssertionError(f"{what}: the job port differs from the golden root splitter's jobs\n{difference}")
    jobs_checked["jobs"] += len(jobs)
    jobs_checked["nodes"] += sum(job["nodes"] for job in jobs)


def golden_process():
    global _golden_process
    if _golden_process is None:
        _golden_process = GoldenProcessorProcess()
        atexit.register(_golden_process.close)
    return _golden_process


async def play_refereed_game(tb, opponent, processor_black, noise_seed=None, max_replies=None,
                             on_reply=None, searches=None, on_move=None, bursts=None, golden=None,
                             late_budget=None):
    """Referee one game: the processor (over its pins) against ``opponent``; check every
    reply against the golden processor, which runs in a process of its own: each referee
    message goes to it as soon as the referee sends it, so that its search runs while the
    simulator runs the processor's (with noise the bench needs its answer first: the board
    the noise is drawn for, and whether the processor will be thinking). Returns (GameResult,
    replies, passes sent). ``bursts``: noise of the bench's choosing instead of the random
    bursts of ``noise_seed``, a callable (board) -> tokens. ``golden``: another golden side
    with the interface of GoldenProcessorProcess. ``late_budget`` (empties, budget): the budget
    port is set to ``budget`` before each message after which the processor searches a
    position with ``empties`` empty squares or fewer, and the golden side does the same
    (tb.checks.processor LateBudgetGolden)."""
    requests, replies = queue.Queue(), queue.Queue()
    endpoint = InfoEndpoint(f"rtl {DESIGN} (budget={BUDGET}, depth={DEPTH_LIMIT})", requests, replies)
    golden = golden or golden_process()
    golden.new_game(BUDGET, DEPTH_LIMIT, CONTEXTS, late_budget, SOLVE_EMPTIES, EVALUATOR, ENGINES)
    tb.dut.budget.value = BUDGET
    board = start_position()   # the golden endpoint's board: before the next message
    rng = random.Random(noise_seed) if noise_seed is not None else None
    if rng is not None:
        bursts = functools.partial(noise_burst, rng)
    referee_thread(opponent, processor_black, endpoint, requests, on_move)
    answered = passes = 0
    searches = [] if searches is None else searches   # positions the processor searched
    color = "black" if processor_black else "white"
    started = time.perf_counter()
    while True:
        item = requests.get(timeout=600)
        if isinstance(item, tuple):
            if item[0] == "error":
                raise item[1]
            result = item[1]
            break
        message = item
        if max_replies is not None and answered >= max_replies and message not in (YOU_LOST, YOU_WON):
            replies.put(NO_REPLY)
            continue
        golden.submit(message)
        answer = None
        if bursts is not None:
            answer = golden.answer()
            burst = bursts(board)
            coverage.noise([token for token in burst if token != GLITCH])
            await tb.send_tokens(burst)
        if late_budget is not None and empties(board) - (message[1] in "12345678") <= late_budget[0]:
            tb.dut.budget.value = late_budget[1]
        await tb.send_text(message)
        if message in (YOU_LOST, YOU_WON):
            answer = answer or golden.answer()
            coverage.message(message)
            board = parse_board(answer["position"])
            await Timer(4 * BIT_NS, "ns")
            assert int(tb.dut.game_over.value) == 1, f"game_over not set after {message}"
            replies.put(None)
            continue
        if (rng is not None and answer["asked"] and answer["info"]["source"] == SEARCH
                and answer["info"]["cycles"] >= 100):
            # messages while it is thinking must be dropped (the search and the reply's two
            # frames outlast two frames): in turn a referee code and a move the opponent could
            # really play in the position being searched
            assert int(tb.dut.thinking.value) == 1, "thinking not set after a message"
            searched = parse_board(answer["asked_position"])
            opponent_moves = legal_moves(searched.opp, searched.own)
            if answered % 2 and opponent_moves:
                await tb.send_text(encode_move((opponent_moves & -opponent_moves).bit_length() - 1))
            else:
                await tb.send_text("XX")
            coverage.count(f"noise:{'move' if answered % 2 and opponent_moves else 'xx'}_while_thinking")
        reply = await tb.wait_reply()
        answer = answer or golden.answer()
        expected, asked = answer["reply"], answer["asked"]
        asked_position = parse_board(answer["asked_position"]) if asked else None
        answered += 1
        # the jobs first: with a bug in the splitter, the first differing job is the news
        check_job_port(answer.get("jobs", []), f"processor ({color}) move {answered} {reply}"
                       + (f", position {asked_position.text()}" if asked else ""))
        passes += reply == "VV" and asked   # a real pass, not the end of the game
        if reply != expected:
            pos = asked_position if asked else parse_board(answer["position"])
            raise AssertionError(
                f"processor ({color}) move {answered}: processor answered {reply!r}, golden "
                f"processor {expected!r} (after referee message {message!r})\n"
                f"position: {pos.text()}\n{draw(pos)}")
        board = parse_board(answer["position"])
        # the reply's stop bit is out: the processor waits for the referee again, not thinking
        await Timer(2 * BIT_NS, "ns")
        idle = (str(tb.dut.thinking.value), str(tb.dut.game_over.value))
        assert idle == ("0", "0"), (f"processor ({color}) move {answered} {reply}: two bit times after its reply, "
                                    f"thinking = {idle[0]} and game_over = {idle[1]} (expected 0 and 0: waiting "
                                    f"for the referee)")
        if asked:
            want, got = answer["info"], tb.status()
            endpoint.last_info = got
            assert got == want, (f"processor ({color}) move {answered} {reply}: status {got}, "
                                 f"golden {want}\nposition: {asked_position.text()}")
            if answer["signature"] is not None:
                searches.append(asked_position)
                expected_signature = answer["signature"]
                actual_signature = int(tb.dut.trace_signature.value)
                assert actual_signature == expected_signature, (
                    f"processor ({color}) move {answered} {reply}: the engine's node trace differs "
                    f"from the golden search's (signature {actual_signature:#018x}, expected "
                    f"{expected_signature:#018x}); name the first differing node with: gamechip search "
                    f"--board '{asked_position.text()}' --depth {DEPTH_LIMIT} --budget {BUDGET} "
                    f"--sim {os.environ.get('GAMECHIP_SIM', 'SIM')}")
            if on_reply is not None:
                on_reply(asked_position, reply, got)
        assert int(tb.dut.fault.value) == 0, "the search engine reported a fault"
        coverage.message(message, answer, processor_black, reply)
        replies.put(reply)
        if on_move is None:   # with on_move the referee's thread reports every move
            progress(f"processor ({color}) reply {answered}: {reply} "
                     f"({time.perf_counter() - started:.1f} s)")
    tb.log.info("game: %s; %s", result.summary(), result.format_record())
    if result.reason == REASON_END:
        coverage.count("game_end:finished")
    return result, answered, passes


_failed_tests = []   # tests of this run that failed so far (one simulator process, one run)
coverage = ProcessorCoverage(FRAME_ERROR)   # functional coverage (tb/testplans/processor.toml)
_receivers = []   # the tx receivers started by this test (a mutant group runs one test many times)


def _stop_receivers():
    """End the tx receivers of the benches made so far: the next mutant's bench has its own."""
    while _receivers:
        task = _receivers.pop()
        task.cancel()


def ends_run_on_failure(test):
    """With FIRST_FAILURE_ENDS_RUN (gamechip mutate) a test after a failed one fails at once:
    the mutant is killed already, and every later game would only wait for replies."""
    @functools.wraps(test)
    async def guarded(dut):
        if os.environ.get(MUTANT_GROUP):   # gamechip mutate: the test once per mutant of the group
            await each_mutant(dut, test.__name__, test, after=_stop_receivers)
            return
        if os.environ.get(FIRST_FAILURE_ENDS_RUN) and _failed_tests:
            raise AssertionError(f"{test.__name__} not run: {_failed_tests[0]} failed ({FIRST_FAILURE_ENDS_RUN})")
        coverage.discard()
        try:
            await test(dut)
        except BaseException:
            _failed_tests.append(test.__name__)
            raise
        coverage.save(test.__name__)
    return guarded


async def start(dut):
    tb = ProcessorTB(dut)
    await tb.reset()
    return tb


def level():
    return int(os.environ.get("GAMECHIP_PROC_LEVEL", "1"))


def max_replies():
    """GAMECHIP_PROC_MAX_REPLIES: the replies after which a game stops (the referee's II), or None."""
    limit = os.environ.get("GAMECHIP_PROC_MAX_REPLIES")
    return int(limit) if limit else None


async def directed_step(tb, golden_ep, golden, tokens, why):
    """Send ``tokens``; the processor must act exactly on the message :func:`formed_message`
    finds (the golden processor's reply, status and node signature) or on none (not thinking
    one bit after the last frame, nothing on tx)."""
    message = formed_message(tokens, golden_ep.position)
    progress(f"directed: {why}: {tokens!r} -> {message or 'nothing'}")
    golden.asked = False
    expected = golden_ep(message) if message else None
    await tb.send_tokens(tokens)
    await Timer(BIT_NS, "ns")
    thinking = int(tb.dut.thinking.value)
    assert thinking == (message is not None), (
        f"{why}: bytes {tokens!r} {'form ' + message if message else 'form no message'}, yet one bit "
        f"after the last frame thinking = {thinking}")
    if message is None:
        assert not tb.received, f"{why}: answered {bytes(tb.received)!r} to {tokens!r}, which forms no message"
        return None
    reply = await tb.wait_reply()
    check_job_port(golden.last_jobs if golden.asked else [],
                   why + (f", position {golden.last_position.text()}" if golden.asked else ""))
    assert reply == expected, f"{why}: processor answered {reply!r}, golden processor {expected!r}"
    await Timer(2 * BIT_NS, "ns")
    assert int(tb.dut.thinking.value) == 0, f"{why}: still thinking two bits after the reply"
    if golden.asked:
        want, got = golden.info(), tb.status()
        assert got == want, f"{why}: status {got}, golden {want}\nposition: {golden.last_position.text()}"
        if golden.last_signature is not None:
            assert int(tb.dut.trace_signature.value) == golden.last_signature, \
                f"{why}: the engine's node trace differs from the golden search's"
    assert int(tb.dut.fault.value) == 0, f"{why}: the search engine reported a fault"
    return reply


@cocotb.test()
@ends_run_on_failure
async def assembler(dut):
    """Directed cases for the message assembler and the opponent's pass (rtl/processor.py),
    first in the bench so that a mutant they kill dies in seconds. The processor plays white;
    the opponent's first move is the opening move m = Xr (file X) whose book reply leaves the
    opponent a move Xs in the same file:
    ``X FE r`` (a framing error clears the pending letter), ``FE X 9 r`` (a byte that completes
    nothing and starts nothing clears it), ``FE A X r`` (a first character replaces the pending
    one: the move m, answered), a lone ``s`` after the reply (the processor's own states clear
    the pending letter), then an ``RR`` while still in book (the opponent passes: the processor
    searches instead of playing the book, as the golden processor does). That RR is one a
    referee of docs/spec.md §8 would not send (the opponent has moves there: no real game passes in
    book); the processor does not check the referee, and it is the only way to reach its
    ``passed`` flag while the book still has a move."""
    initial = start_position()
    opening = None
    for move in squares_of(legal_moves(initial.own, initial.opp)):
        trial = PlayerEndpoint(GoldenProcessor(BUDGET, DEPTH_LIMIT, contexts=CONTEXTS, solve_empties=SOLVE_EMPTIES, engines=ENGINES, pattern=evaluator_weights(EVALUATOR)))
        trial(encode_move(move))
        after = trial.position
        same_file = [s for s in squares_of(legal_moves(after.own, after.opp)) if s % 8 == move % 8]
        if same_file:
            opening, later = move, same_file[0]
            break
    assert opening is not None, "no opening move whose reply leaves the opponent a move in the same file"
    letter, digit = square_tokens(opening)
    golden = RecordingGolden(BUDGET, DEPTH_LIMIT, CONTEXTS, evaluator=EVALUATOR, engines=ENGINES)
    golden_ep = TrustingEndpoint(golden)
    tb = await start(dut)
    await directed_step(tb, golden_ep, golden, [letter, FRAME_ERROR, digit],
                        "a framing error clears the pending first character")
    # each from an empty assembler (a framing error first): what a mutant left pending in the
    # step before must not decide whether this one forms its message
    await directed_step(tb, golden_ep, golden, [FRAME_ERROR, letter, ord("9"), digit],
                        "a byte that neither completes nor starts a message clears the pending character")
    await directed_step(tb, golden_ep, golden, [FRAME_ERROR, ord("A"), letter, digit],
                        "a first character after a pending one replaces it (the move is played)")
    await directed_step(tb, golden_ep, golden, [square_tokens(later)[1]],
                        "the pending character is cleared while the processor thinks and sends")
    assert book_move(golden.history) is not None, f"the game {golden.history} is out of book already"
    await directed_step(tb, golden_ep, golden, [ord("R"), ord("R")],
                        "the opponent passes while in book: the processor searches (the book is off)")
    assert golden.info()["source"] == SEARCH


@cocotb.test()
@ends_run_on_failure
async def game_black(dut):
    """A full game as black against the reference player; every reply checked
    (GAMECHIP_PROC_MAX_REPLIES: the first replies only)."""
    tb = await start(dut)
    limit = max_replies()
    result, _, _ = await play_refereed_game(tb, ReferencePlayer(level()), True, max_replies=limit)
    if limit is None:
        check_completed(result, True)


@cocotb.test()
@ends_run_on_failure
async def game_white(dut):
    """A full game as white against the reference player; every reply checked
    (GAMECHIP_PROC_MAX_REPLIES: the first replies only)."""
    tb = await start(dut)
    limit = max_replies()
    result, _, _ = await play_refereed_game(tb, ReferencePlayer(level()), False, max_replies=limit)
    if limit is None:
        check_completed(result, False)


@cocotb.test()
@ends_run_on_failure
async def noise(dut):
    """Rubbish before every message and while thinking; the replies stay the golden ones.
    GAMECHIP_PROC_MAX_REPLIES stops the game early (the referee then sends II: game_over)."""
    limit = os.environ.get("GAMECHIP_PROC_MAX_REPLIES")
    tb = await start(dut)
    seed = int(os.environ.get("GAMECHIP_SEED", "1"))
    result, answered, _ = await play_refereed_game(
        tb, ReferencePlayer(1), seed % 2 == 1, noise_seed=seed,
        max_replies=int(limit) if limit else None)
    assert answered > 0
    if not limit:
        check_completed(result, seed % 2 == 1)


@cocotb.test()
@ends_run_on_failure
async def games(dut):
    """GAMECHIP_PROC_GAMES more whole games (:func:`extra_games`), each after a reset, every reply,
    status and node signature checked as in the others."""
    count = int(os.environ.get("GAMECHIP_PROC_GAMES", "0"))
    assert count > 0, "GAMECHIP_PROC_GAMES is 0: no game to play"
    seed = int(os.environ.get("GAMECHIP_SEED", "1"))
    tb = ProcessorTB(dut)
    for number, (opponent, processor_black, noise_seed) in enumerate(extra_games(count, seed), 1):
        await tb.reset()
        progress(f"game {number}/{count}: processor {'black' if processor_black else 'white'} against "
                 f"{opponent.name}{', noise' if noise_seed is not None else ''}")
        result, _, _ = await play_refereed_game(tb, opponent, processor_black, noise_seed=noise_seed)
        check_completed(result, processor_black)


@cocotb.test()
@ends_run_on_failure
async def noise_bytes(dut):
    """Every byte value, every square as a dropped move, YY once the colour is known and a glitch
    on rx (tb.checks.processor_stimulus ByteSweep) before the messages of a game in each colour."""
    tb = ProcessorTB(dut)
    for processor_black in (True, False):
        await tb.reset()
        sweep = ByteSweep()
        _, answered, _ = await play_refereed_game(tb, ReferencePlayer(1), processor_black, bursts=sweep,
                                                  max_replies=SWEEP_REPLIES)
        assert sweep.sent == set(range(256)), f"byte values never sent: {sorted(set(range(256)) - sweep.sent)}"
        centre = {27, 28, 35, 36}
        assert centre <= sweep.squares, f"centre squares never sent as a move: {sorted(centre - sweep.squares)}"
        progress(f"noise_bytes: {len(sweep.sent)} byte values, {len(sweep.squares)} squares, {answered} replies")


SWEEP_REPLIES = 10   # ByteSweep's eight bursts of 32 byte values come before the first eight messages


@cocotb.test()
@ends_run_on_failure
async def book_lines(dut):
    """A game along every book line the processor can be led through in each colour
    (tb.checks.book_games), stopped after its reply that leaves the line; its moves on the line
    must be the line's, from the book."""
    tb = ProcessorTB(dut)
    for colour in COLOURS:
        games = book_games(colour)
        for number, game in enumerate(games, 1):
            await tb.reset()
            own = []
            await play_refereed_game(tb, BookLineOpponent(game), colour == "black",
                                     max_replies=processor_replies(game, colour),
                                     on_reply=lambda position, reply, status: own.append((reply, status["source"])))
            expected = [(encode_move(move), "book") for ply, move in enumerate(game) if mover_is_processor(ply, colour)]
            assert own[:len(expected)] == expected, (f"book line {number} as {colour}: the processor's moves "
                                                     f"{own[:len(expected)]}, the line's {expected}")
        progress(f"book_lines: {len(games)} book lines as {colour}")


# RandomPlayer seeds (the processor white) whose games reach ply 16 with DEEP_BUDGET cycles a move
# once DEEP_EMPTIES squares or fewer are empty (found with the golden processor): stack levels 7-15.
DEEP_GAMES = (2, 5)
DEEP_EMPTIES, DEEP_BUDGET = 14, 400_000


@cocotb.test()
@ends_run_on_failure
async def deep_endgame(dut):
    """Whole games whose last moves the processor searches with DEEP_BUDGET cycles, checked
    against the golden processor with the same budgets."""
    tb = ProcessorTB(dut)
    tb.reply_timeout_ns = (20 * DEEP_BUDGET + 64 * DIVISOR + 2000) * CLOCK_NS
    for seed in DEEP_GAMES:
        await tb.reset()
        statuses = []
        result, _, _ = await play_refereed_game(tb, RandomPlayer(seed), False, late_budget=(DEEP_EMPTIES, DEEP_BUDGET),
                                                on_reply=lambda position, reply, status: statuses.append(status))
        check_completed(result, False)
        solved = [status["solved"] for status in statuses]
        progress(f"deep_endgame: RandomPlayer({seed}): deepest iteration {max(s['depth'] for s in statuses)}, "
                 f"answers {solved}")
        if not SPLIT:   # SOLVE_EMPTIES >= DEEP_EMPTIES: the processor solves these moves, to the end of the game
            assert EXACT in solved, f"RandomPlayer({seed}): no exact solve among the deep moves' answers {solved}"


# The processor (black) against RandomPlayer(SOLVE_GAME_SEED), SOLVE_GAME_BUDGET cycles a move from SOLVE_GAME_EMPTIES
# empties on, plays each endgame answer (found with the golden processor): the midgame search after an abandoned
# WLD solve at 14-10 empties (256 cycles), the WLD move after an abandoned exact solve at 8, the exact one below.
SOLVE_GAME_SEED, SOLVE_GAME_EMPTIES, SOLVE_GAME_BUDGET = 3, 8, 3000


@cocotb.test()
@ends_run_on_failure
async def solve_endgame(dut):
    """A whole game whose endgame the processor solves, each of its three answers at least once (every
    node of every run in the moves' signatures, the status and ``last_solve`` against the golden's)."""
    tb = ProcessorTB(dut)
    tb.reply_timeout_ns = (20 * SOLVE_GAME_BUDGET + 64 * DIVISOR + 2000) * CLOCK_NS
    await tb.reset()
    replies = []
    result, _, _ = await play_refereed_game(tb, RandomPlayer(SOLVE_GAME_SEED), True,
                                            late_budget=(SOLVE_GAME_EMPTIES, SOLVE_GAME_BUDGET),
                                            on_reply=lambda position, reply, status: replies.append((position, status)))
    check_completed(result, True)
    answers = [status["solved"] for position, status in replies
               if status["source"] == SEARCH and empties(position) <= SOLVE_EMPTIES]
    progress(f"solve_endgame: RandomPlayer({SOLVE_GAME_SEED}): the endgame's answers {answers}")
    assert {None, WLD, EXACT} <= set(answers), f"RandomPlayer({SOLVE_GAME_SEED}): not every endgame answer: {answers}"


@cocotb.test()
@ends_run_on_failure
async def least_budget(dut):
    """Games in which every search gets a budget of 0 or 1 clocks on the budget port (the deadline
    of the root splitter clamps at 0): the first iteration alone answers, as the golden processor's
    with the same budget."""
    tb = ProcessorTB(dut)
    for budget, processor_black in ((0, True), (1, False)):
        await tb.reset()
        result, _, _ = await play_refereed_game(tb, RandomPlayer(budget + 7), processor_black,
                                                late_budget=(64, budget))
        check_completed(result, processor_black)
        progress(f"least_budget: a whole game with budget {budget}")


# A RandomPlayer seed whose game against the golden processor playing black makes the processor
# pass before the end (found as tb.checks.processor pass_game_seed finds PASS_GAME_SEED for white)
BLACK_PASS_GAME_SEED = 8
BLACK_PASS_GAME_SEED_C2 = 282   # the same for the processor with two contexts at its regression budget


@cocotb.test()
@ends_run_on_failure
async def processor_pass(dut):
    """Games in which the processor has no legal move before the end, as white and as black: it
    must send VV (and the game goes on correctly after the referee's moves)."""
    seed = PASS_GAME_SEED_C2 if CONTEXTS == 2 else PASS_GAME_SEED
    tb = await start(dut)
    result, _, passes = await play_refereed_game(tb, RandomPlayer(seed), False)
    check_completed(result, False)
    assert passes >= 1, "the processor never sent VV"
    await tb.reset()   # the same as black (the colour decides which side the pass hands the move to)
    black_seed = BLACK_PASS_GAME_SEED_C2 if CONTEXTS == 2 else BLACK_PASS_GAME_SEED
    result, _, passes = await play_refereed_game(tb, RandomPlayer(black_seed), True)
    check_completed(result, True)
    assert passes >= 1, "the processor never sent VV as black"


@cocotb.test()
@ends_run_on_failure
async def referee_codes(dut):
    """RR before the colour is known is dropped; YY starts the game; XX (the opponent made an
    invalid move: you won) ends it: game_over, and not even a legal move is answered after."""
    tb = await start(dut)
    golden = PlayerEndpoint(GoldenProcessor(BUDGET, DEPTH_LIMIT, keep_trace=False, contexts=CONTEXTS, solve_empties=SOLVE_EMPTIES, engines=ENGINES, pattern=evaluator_weights(EVALUATOR)))
    quiet_ns = (BUDGET + 40 * DIVISOR) * CLOCK_NS       # a search and two frames
    await tb.send_text("RR")
    await Timer(quiet_ns, "ns")
    assert not tb.received, f"RR before the colour is known was answered: {bytes(tb.received)!r}"
    await tb.send_text("YY")
    expected = golden("YY")
    reply = await tb.wait_reply()
    assert reply == expected, f"first move: processor {reply!r}, golden processor {expected!r}"
    await tb.send_text(YOU_WON)
    await Timer(4 * BIT_NS, "ns")
    assert int(tb.dut.game_over.value) == 1, "game_over not set after XX"
    coverage.message("YY", {"asked": True, "info": golden.player.info()}, True, reply)
    coverage.message(YOU_WON)
    after = golden.position
    move = (legal_moves(after.own, after.opp) & -legal_moves(after.own, after.opp)).bit_length() - 1
    await tb.send_text(encode_move(move))
    await Timer(quiet_ns, "ns")
    assert not tb.received, f"answered {bytes(tb.received)!r} after the game was over"
    assert int(tb.dut.game_over.value) == 1


@cocotb.test()
async def throughput(dut):
    """``make bench``: one game as black against the reference program (GAMECHIP_PROC_LEVEL),
    every reply, status and node signature checked, stopped after GAMECHIP_PROC_MAX_REPLIES
    replies; simulated cycles, wall and CPU seconds of this process, and the searched positions
    in ACTUAL_FILE."""
    limit = int(os.environ["GAMECHIP_PROC_MAX_REPLIES"])
    tb = await start(dut)
    searches = []
    started, cpu_started, ns_started = time.perf_counter(), time.process_time(), get_sim_time("ns")
    _, answered, _ = await play_refereed_game(tb, ReferencePlayer(level()), True, max_replies=limit,
                                              searches=searches)
    with open(ACTUAL_FILE, "w") as out:
        json.dump({"cycles": round((get_sim_time("ns") - ns_started) / CLOCK_NS), "replies": answered,
                   "seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu_started,
                   "searched_positions": [p.text() for p in searches]}, out)


# --- pytest -------------------------------------------------------------------------------

@cocotb.test()
async def play(dut):
    """One game for ``gamechip play`` / ``tournament`` (GAMECHIP_PLAY: level, color): the board
    after every move as progress lines, the game as JSON in ACTUAL_FILE."""
    request = json.loads(os.environ["GAMECHIP_PLAY"])
    processor_color = request["color"]

    def on_move(position, color, move, info):
        what = "passes" if move is None else f"plays {square_name(move)}"
        if info.get("source") == "book":
            what += " (opening book)"
        elif "cycles" in info:
            what += f" (search: {info['cycles']:,} cycles, depth {info['depth']}, {info['nodes']:,} nodes)"
        progress(f"{mover_name(color, processor_color)} {what}")
        for line in draw(position).splitlines():
            progress(line)

    tb = await start(dut)
    searches = []
    started = time.perf_counter()
    try:
        result, _, _ = await play_refereed_game(tb, ReferencePlayer(request["level"]),
                                                processor_color == "black", on_move=on_move,
                                                searches=searches)
    except AssertionError as mismatch:  # the host side reports it whole, not the cocotb log
        with open(RESULT_FILE, "w") as out:
            json.dump({"failure": str(mismatch)}, out)
        raise
    game = result_dict(result, request["level"], processor_color, BUDGET,
                       os.environ.get("GAMECHIP_SIM", "?"), time.perf_counter() - started)
    game["searched_positions"] = [p.text() for p in searches]
    if SPLIT:   # every job of every context or engine checked: its events, and its nodes by their signature
        game["jobs_checked"], game["job_nodes_checked"] = jobs_checked["jobs"], jobs_checked["nodes"]
    with open(ACTUAL_FILE, "w") as out:
        json.dump(game, out)


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_processor(sim):
    tests, env = processor_plan(sim)
    outcome = run_processor_bench(sim, tests + coverage_only_tests(sim, CODE_COVERAGE_TESTS), env)
    if not outcome.passed:
        pytest.fail(f"processor bench on {sim} ({', '.join(tests)}) failed:\n"
                    f"{outcome.log[-4000:]}", pytrace=False)


# Aimed stimulus that only code coverage needs (every byte value, every reachable book line, deep
# endgame searches: a few minutes of simulation): gamechip coverage's Verilator runs, which collect
# code coverage (tb.host.toolchain CODE_COVERAGE_FOLDER), add them.
CODE_COVERAGE_TESTS = ["noise_bytes", "book_lines", "deep_endgame"]


@pytest.mark.parametrize("sim", [pytest.param(sim, marks=pytest.mark.full if sim == "ghdl" else ())
                                 for sim in runner.SIMULATORS])
def test_processor_c2(sim):
    """The processor with two contexts: replies, status and every job of both contexts. The
    Verilator runs that collect code coverage add the one-context processor's other tests and its
    coverage-only ones."""
    tests, env = processor_plan(sim, "processor_c2")
    extra = [test for test in PROCESSOR_EVERY_TEST + CODE_COVERAGE_TESTS if test not in tests]
    outcome = run_processor_bench(sim, tests + coverage_only_tests(sim, extra), env, design="processor_c2")
    if not outcome.passed:
        pytest.fail(f"processor_c2 bench on {sim} ({', '.join(tests)}) failed:\n{outcome.log[-4000:]}", pytrace=False)
