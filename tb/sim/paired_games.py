"""Refereed games two at a time on the engine with two interleaved contexts (``search_c2``), one
game on each context: the simulator side of ``gamechip tournament --games-per-engine 2``.

Each game runs in a thread of its own: the referee (golden.contest.referee), the reference player
and the processor's host side, which is golden.processor.GoldenProcessor (the opening book, passes,
the game so far) except for its search. Each search the golden processor would run goes to the
game's context of the engine instead (:class:`EngineProcessor`): the game's thread waits for the
engine's answer, which must be the golden processor's, and plays it. The cocotb side
(:func:`play_games`) clocks the engine with the interleaved search bench's per-cycle monitor,
starts each search on its game's context in that context's turn, and gives each finished search's
event lines to the bench's node scoreboard before its answer goes back to the game. While a game's
thread works (the reference player's move, a book move) the simulation waits, so the simulated
clocks are the engine's searches alone, and a run is the same whatever the host's speed.

A context's cycle is two clocks of the engine: a game at budget N searches N of its context's
cycles a move, as the one-context processor's engine does N of its clocks.
"""

import queue
import threading
import time
from dataclasses import dataclass
from typing import Optional

from cocotb.triggers import FallingEdge

from golden.board import draw, parse_square
from golden.contest.games import result_dict
from golden.contest.referee import play_game
from golden.contest.reference import ReferencePlayer
from golden.processor import GoldenProcessor
from tb.checks.search import STALL_CYCLES, SearchCase

REQUEST_TIMEOUT = 3600   # seconds a game's thread may think (a reference move at level 7) before a search
SEARCH, DONE, ERROR = "search", "done", "error"


class GameStopped(Exception):
    """The simulation stopped the game (another game failed): its thread ends quietly."""


class MoveMismatch(AssertionError):
    """The engine's answer to a game's search differs from the golden processor's."""


@dataclass(frozen=True)
class EngineAnswer:
    """The engine's answer to a search, in the attributes GoldenProcessor reads of a search result."""

    best: Optional[int]
    value: int
    depth: int
    nodes: int
    cycles: int

    @classmethod
    def from_summary(cls, answer):
        best = None if answer["best"] == "pass" else parse_square(answer["best"])
        return cls(best, answer["value"], answer["depth"], answer["nodes"], answer["cycles"])


def game_name(level, processor_color):
    return f"reference level {level}, processor {processor_color}"


class EngineProcessor(GoldenProcessor):
    """The golden processor whose searches run on a context of the simulated engine: each search
    is first the golden processor's (its expected answer, and how many cycles the engine may take),
    then the engine's, whose answer is played when it equals the golden one (else MoveMismatch,
    naming the game, the move, the position, expected and actual)."""

    def __init__(self, game, budget, depth_limit):
        super().__init__(budget, depth_limit, keep_trace=False)
        self.game = game
        self.replies = 0   # the processor's replies so far in this game, passes and book moves included

    def move(self, position):
        self.replies += 1
        return super().move(position)

    def search_position(self, position):
        expected = super().search_position(position)   # the golden search; keeps the position in ``searched``
        label = f"{self.game.name}, processor move {self.replies} (search {len(self.searched)} of the game)"
        answer = self.game.ask(SearchCase(position, self.depth_limit, self.budget, label), expected.cycles)
        if answer != expected.summary():
            raise MoveMismatch(f"{self.game.name}, budget {self.budget:,}, processor move {self.replies}: the engine "
                               f"answered {answer}, the golden processor {expected.summary()}\n"
                               f"position: {position.text()}\n{draw(position)}")
        return EngineAnswer.from_summary(answer)


class EngineGame:
    """One game in a thread of its own whose processor searches on the engine (see the module
    docstring): ``next_request`` blocks until the game asks for a search or ends, ``answer`` hands
    the engine's answer back."""

    def __init__(self, number, spec, context, depth_limit):
        self.number, self.spec, self.context = number, spec, context
        self.name = f"game {number + 1} ({game_name(spec['level'], spec['processor_color'])}, context {context})"
        self.requests, self.answers = queue.Queue(), queue.Queue()
        self.processor = EngineProcessor(self, spec["budget"], depth_limit)
        self.nodes_checked = self.engine_cycles = 0
        self.beside = []   # the games on the other context while this one was played
        self.started = time.perf_counter()
        self.thread = threading.Thread(target=self.play, daemon=True, name=self.name)
        self.thread.start()

    def play(self):
        reference = ReferencePlayer(self.spec["level"])
        black, white = ((self.processor, reference) if self.spec["processor_color"] == "black"
                        else (reference, self.processor))
        try:
            self.requests.put((DONE, play_game(black, white)))
        except GameStopped:
            pass
        except BaseException as error:  # noqa: BLE001 - a mismatch or a bug, raised on the cocotb side
            self.requests.put((ERROR, error))

    def ask(self, case, golden_cycles):
        """In the game's thread: search ``case`` on the engine; its answer (a summary dict)."""
        self.requests.put((SEARCH, case, golden_cycles))
        answer = self.answers.get()
        if answer is None:
            raise GameStopped()
        return answer

    def next_request(self):
        try:
            return self.requests.get(timeout=REQUEST_TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"{self.name}: no search and no end of the game within {REQUEST_TIMEOUT} s")

    def answer(self, answer, nodes_checked):
        self.nodes_checked += nodes_checked
        self.engine_cycles += answer["cycles"]
        self.answers.put(answer)

    def stop(self):
        self.answers.put(None)

    def record(self, result, simulator, clocks):
        """The game as the tournament records it (golden.contest.games.result_dict), with the
        positions searched, the nodes checked and the engine's cycles of its context, and
        ``clocks``: the clocks the simulation ran while this game was played."""
        spec = self.spec
        game = result_dict(result, spec["level"], spec["processor_color"], spec["budget"], simulator,
                           time.perf_counter() - self.started)
        game.update(searched_positions=[p.text() for p in self.processor.searched], contexts=1,
                    nodes_checked=self.nodes_checked, engine_context=self.context,
                    engine_cycles=self.engine_cycles, clocks=clocks)
        return game


async def play_games(tb, specs, begin, settle, depth_limit, simulator):
    """Play the games ``specs`` (dicts: level, processor_color, budget) on the two contexts of
    ``tb`` (the bench's InterleavedSearchTB after its reset), each context taking the next game as
    soon as its game ends. ``begin(case)`` starts a search on the context whose turn it is and
    returns its first event line; ``settle(case, lines, beside)`` checks a finished search's event
    lines under the node scoreboard (raising on a divergence; ``beside``: what the other context was
    searching) and returns its outcome (tb.checks.search.check_search's). Returns (the game dicts in
    the order of ``specs``, the clocks simulated)."""
    dut = tb.dut
    waiting = list(enumerate(specs))
    playing, running = {}, {}   # context -> EngineGame; context -> [case, its cycle, event lines, cycle limit]
    games, clock, began = [None] * len(specs), 0, {}
    dut.start.value = 0
    try:
        while waiting or playing:
            turn = int(dut.turn.value)
            entry = running.get(turn)
            if entry is not None:
                case, cycle, lines, limit = entry
                if tb.sample(cycle, lines, limit):
                    del running[turn]
                    other = running.get(1 - turn)
                    outcome = settle(case, lines, None if other is None else other[0].label)
                    playing[turn].answer(outcome["answer"], outcome["nodes"])
                else:
                    entry[1] += 1
            start = 0
            while turn not in running and (turn in playing or waiting):
                if turn not in playing:
                    number, spec = waiting.pop(0)
                    playing[turn], began[turn] = EngineGame(number, spec, turn, depth_limit), clock
                    if 1 - turn in playing:
                        playing[turn].beside.append(playing[1 - turn].name)
                        playing[1 - turn].beside.append(playing[turn].name)
                game = playing[turn]
                request = game.next_request()
                if request[0] == SEARCH:
                    _, case, golden_cycles = request
                    running[turn] = [case, 0, begin(case), golden_cycles + STALL_CYCLES + 1]
                    start = 1
                elif request[0] == ERROR:
                    raise request[1]
                else:
                    beside = ", ".join(game.beside) or "no other game"
                    where = f"{simulator}: context {turn} of search_c2 beside {beside}, every node checked"
                    games[game.number] = game.record(request[1], where, clock - began[turn])
                    del playing[turn]
            dut.start.value = start
            await FallingEdge(dut.clk)
            clock += 1
    finally:
        for game in playing.values():
            game.stop()
    return games, clock
