"""``gamechip nboard``: the processor as an engine of the NBoard protocol (version 2), the text
protocol of the NBoard GUI that Edax, NTest and Egaroucid speak (docs/nboard.md).

One command a line on stdin, answers on stdout, flushed at once:

* ``nboard 2``: answered with ``set myname gamechip``;
* ``set depth N``: the search's depth limit (up to the engine's 16); ``set contempt N``: kept,
  the processor has no contempt; ``set budget N``: the cycles a move, the depth limit back to 16
  (a gamechip extension: the protocol asks engines to ignore lines they do not know);
* ``set game GGF``: the game so far (from the standard start, passes included, or from any
  position in ``BO``); ``move F5[/EVAL/TIME]`` (``PA`` a pass; a bare ``F5`` as NBoard 1.1
  sends it): the position after one more move;
* ``ping N``: ``pong N``;
* ``go``: ``nodestats NODES SECONDS`` and ``=== MOVE/EVAL/SECONDS`` (``=== PA`` a pass); the
  position does not change until the GUI sends the move back;
* ``hint N``: ``status Analyzing``, then up to N lines, best first, ``status``: a ``book PV 0 0 0
  book`` or ``search PV EVAL 0 DEPTH ...`` line for the processor's move (what ``go`` answers),
  then ``search`` lines for the other legal moves, each valued by the golden search of the
  position after it (move_values), so that N above the number of legal moves gives them all;
  a pass is ``search PA EVAL ...``, a finished game has no line;
* ``learn``: ``learned``; ``quit`` or end of input: the engine exits with status 0.

A line it does not know is ignored; a ``set game`` or ``move`` it cannot read (bad GGF, an
illegal move) is reported on stderr in one line and changes nothing.

Who decides, by backend:

* the golden processor (default): a game from the standard start is played as the processor
  plays it over its pins (golden.processor.GoldenProcessor: the opening book while the game is
  in it and no one passed, then the search at ``--budget`` cycles, ``--contexts`` 1 or 2); any
  other position goes to its search engine. From 20k cycles a move ``gamechip nboard`` runs on
  the golden interpreter (PyPy when installed, where the search runs 4-5x faster:
  gamechip.cli.engines.run_in_golden_interpreter);
* ``--sim SIM``: the same decisions, every search run on the search engine simulated on SIM with
  every node checked against the golden search (tb.host.search_bench, as ``gamechip search
  --sim``); a mismatch is written to stderr with its replay command and the engine stops (1);
* ``--port DEVICE``: a board (or ``gamechip serve``) plays the game over the referee protocol
  (gamechip/games/port.py), every reply checked against the golden processor; the board plays
  one game from the start, so a position that does not continue its game is answered by the
  golden processor and said so on stderr; a reply that differs stops the engine (1), so does a
  board that breaks the protocol (3) or a busy server (4), the statuses of ``play --port``.
"""

import json
import platform
import sys
import time
from pathlib import Path

from golden.board import BoardError, parse_square, square_name, squares_of, start_position
from golden.contest.ggf import GgfError, GgfMove, apply_move, parse_ggf
from golden.othello import game_over, legal_moves, play
from golden.processor import GoldenProcessor
from golden.search import MAX_DEPTH, minimax, search_events

ENGINE_NAME = "gamechip"
EXIT_MISMATCH = 1


class EngineStopped(Exception):
    """The backend found a mismatch (status 1) or lost its board (``status``: 3 the board broke
    the protocol, 4 the server is busy): the engine stops, the message says why."""

    def __init__(self, text, status=EXIT_MISMATCH):
        super().__init__(text)
        self.status = status


class Decision:
    """A move the engine chose: ``square`` (None: pass), ``value`` (the search's, from the side to
    move; 0 for a book move), ``source`` ('book', 'search' or 'forced'), ``depth``, ``nodes``,
    ``seconds``."""

    def __init__(self, square, value=0, source="search", depth=0, nodes=0, seconds=0.0):
        self.square, self.value, self.source = square, value, source
        self.depth, self.nodes, self.seconds = depth, nodes, seconds

    @property
    def move_text(self):
        return "PA" if self.square is None else square_name(self.square)


class GoldenBackend:
    """The golden processor: book and search as over its pins for games from the start, its
    search for any other position. ``pattern``: the pattern evaluator's weights (None: the seed's
    evaluator)."""

    def __init__(self, budget, contexts=1, solve_empties=0, pattern=None, engines=1):
        self.budget, self.contexts, self.solve_empties, self.pattern = budget, contexts, solve_empties, pattern
        self.engines = engines
        self.name = (f"golden processor ({platform.python_implementation()}"
                     f"{', pattern evaluator' if pattern is not None else ''}"
                     f"{f', {engines} engines' if engines != 1 else ''})")

    def decide(self, game, position, depth_limit):
        started = time.perf_counter()
        if not legal_moves(position.own, position.opp):
            return Decision(None, source="forced")
        processor = GoldenProcessor(self.budget, depth_limit, keep_trace=False, contexts=self.contexts,
                                    solve_empties=self.solve_empties, pattern=self.pattern, engines=self.engines)
        if game.from_standard_start():
            squares = game.squares()
            processor.history = [square for square in squares if square is not None]
            processor.passed = None in squares
            book = processor.book()
            if book is not None:
                return Decision(book, 0, "book", 0, 0, time.perf_counter() - started)
        result = self.search(processor, position, depth_limit)
        return Decision(result.best, result.value, "search", result.depth, result.nodes,
                        time.perf_counter() - started)

    def search(self, processor, position, depth_limit):
        return processor.search_position(position)

    def close(self):
        pass


class SimulatedBackend(GoldenBackend):
    """The golden processor's decisions with every search on the simulated search engine, every
    node checked; each search is kept as a case file under ``case_dir`` for its replay.
    ``evaluator`` pattern: the engine built with the pattern evaluator (design search_pattern) and
    the golden processor with the committed weight file."""

    def __init__(self, sim, budget, case_dir, contexts=1, evaluator="seed"):
        from tb.checks.search import evaluator_weights

        super().__init__(budget, contexts, pattern=evaluator_weights(evaluator))
        self.sim, self.case_dir, self.searches, self.evaluator = sim, Path(case_dir), 0, evaluator
        self.name = (f"search engine{' with the pattern evaluator' if evaluator == 'pattern' else ''} simulated on "
                     f"{sim}, every node checked")

    def search(self, processor, position, depth_limit):
        from tb.checks.search import SearchCase
        from tb.host.search_bench import replay_search_case

        self.searches += 1
        self.case_dir.mkdir(parents=True, exist_ok=True)
        path = self.case_dir / f"search-{self.searches:03d}.json"
        from tb.host.search_bench import DESIGN, PATTERN_DESIGN

        case = SearchCase(position, depth_limit, self.budget, f"gamechip nboard search {self.searches}",
                          evaluator=self.evaluator)
        design = PATTERN_DESIGN if self.evaluator == "pattern" else DESIGN
        path.write_text(json.dumps({"block": "search", "design": design, "sim": self.sim, "seed": 0,
                                    "case": case.to_dict()}))
        outcome, _ = replay_search_case(str(path), waves=False, monitor="hdl")
        if not (outcome.passed and outcome.actual and outcome.actual.get("trace_match")):
            failure = (outcome.result or {}).get("failure") or outcome.log_excerpt(2000)
            raise EngineStopped(f"MISMATCH of the simulated search engine on {self.sim}, search {self.searches} "
                                f"({position.text()}):\n{failure}\nreplay it: gamechip replay {path}")
        golden = processor.search_position(position)
        answer = outcome.actual["answer"] or {}
        if answer.get("best", golden.best_text) != golden.best_text:
            raise EngineStopped(f"the simulated engine answered {answer.get('best')}, the golden search "
                                f"{golden.best_text}: replay it: gamechip replay {path}")
        return golden


class BoardBackend(GoldenBackend):
    """A board on a serial port (or ``gamechip serve``) playing one game from the start, every
    reply checked against the golden processor; positions that do not continue its game go to
    the golden processor (said on stderr)."""

    def __init__(self, port, budget, depth_limit, timeout, warn, solve_empties=0):
        super().__init__(budget, solve_empties=solve_empties)
        self.port, self.depth_limit, self.timeout, self.warn = port, depth_limit, timeout, warn
        self.name = f"board on {port.name}"
        self.endpoint = self.golden = None
        self.seen = []   # the board's game so far: every move of both sides (None: a pass)

    def decide(self, game, position, depth_limit):
        from golden.contest.referee import OPPONENT_PASSED, YOU_ARE_BLACK, encode_move

        squares = game.squares()
        new = squares[len(self.seen):]
        if not game.from_standard_start():
            messages = None
        elif self.endpoint is None:
            messages = [YOU_ARE_BLACK] if not squares else [encode_move(squares[0])] if len(squares) == 1 else None
        elif squares[:len(self.seen)] == self.seen and len(new) == 1:
            messages = [OPPONENT_PASSED if new[0] is None else encode_move(new[0])]
        else:
            messages = None
        if messages is None:
            self.warn("gamechip nboard: the board plays one game from the start and cannot take moves back: the "
                      "golden processor answers this position")
            return super().decide(game, position, depth_limit)
        return self.ask_board(messages[0], squares, position)

    def ask_board(self, message, squares, position):
        from gamechip.games.port import EXIT_BUSY, EXIT_PROTOCOL, BoardEndpoint, BoardMismatch, ServerBusy
        from golden.contest.referee import NoReply, ProtocolError, decode_move
        from tb.checks.processor import GoldenProcessorProcess

        started = time.perf_counter()
        if self.endpoint is None:
            self.golden = GoldenProcessorProcess()
            self.golden.new_game(self.budget, self.depth_limit, solve_empties=self.solve_empties)
            self.endpoint = BoardEndpoint(self.port, self.golden, self.timeout,
                                          "black" if position.side == "X" else "white")
        try:
            reply = self.endpoint(message)
            square = decode_move(reply)
        except BoardMismatch as mismatch:
            raise EngineStopped(str(mismatch))
        except ServerBusy:
            raise EngineStopped("gamechip nboard: the server is busy with another game: try again when it is over",
                                EXIT_BUSY)
        except (NoReply, ProtocolError) as error:
            failure = self.endpoint.failure[1] if self.endpoint.failure else error
            raise EngineStopped(f"gamechip nboard: the board broke the protocol: {failure}", EXIT_PROTOCOL)
        if self.endpoint.failure:
            raise EngineStopped(f"gamechip nboard: the board broke the protocol: {self.endpoint.failure[1]}",
                                EXIT_PROTOCOL)
        self.seen = list(squares) + [square]
        info = self.endpoint.info()
        return Decision(square, info.get("value", 0), info.get("source", "search"), info.get("depth", 0),
                        info.get("nodes", 0), time.perf_counter() - started)

    def close(self):
        if self.golden is not None:
            self.golden.close()
        self.port.close()


class NBoardEngine:
    """The protocol loop over ``lines`` (an iterable of input lines), answers through ``write``
    (a line without its end), diagnostics through ``warn``; ``run()`` returns the exit status."""

    def __init__(self, backend, write, warn, depth_limit=MAX_DEPTH):
        self.backend, self.write, self.warn = backend, write, warn
        self.depth_limit = depth_limit
        self.contempt = 0.0
        self.game = parse_ggf("(;GM[Othello];)")
        self.position = start_position()

    def run(self, lines):
        try:
            for raw in lines:
                if not self.handle(raw.strip()):
                    break
        except EngineStopped as stopped:
            self.warn(str(stopped))
            return stopped.status
        finally:
            self.backend.close()
        return 0

    def handle(self, line):
        """One command; False when the engine should exit."""
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        if command == "quit":
            return False
        if command == "nboard":
            self.write(f"set myname {ENGINE_NAME}")
        elif command == "set":
            self.set(rest)
        elif command == "move":
            self.move(rest)
        elif len(command) == 2 and not rest and self.is_square(command):
            self.move(command)   # NBoard 1.1 sends a bare move
        elif command == "ping":
            self.write(f"pong {rest}".rstrip())
        elif command == "go":
            decision = self.decide()
            self.write(f"nodestats {decision.nodes} {decision.seconds:.3f}")
            evaluation = "" if decision.source == "forced" else f"{decision.value:g}"
            self.write(f"=== {decision.move_text}/{evaluation}/{decision.seconds:.3f}")
        elif command == "hint":
            self.write("status Analyzing")
            for hint in self.hints(self.hint_count(rest)):
                self.write(hint)
            self.write("status")
        elif command == "learn":
            self.write("learned")
        return True

    @staticmethod
    def is_square(text):
        try:
            parse_square(text)
        except BoardError:
            return False
        return True

    def set(self, rest):
        what, _, value = rest.partition(" ")
        value = value.strip()
        if what == "game":
            try:
                game = parse_ggf(value)
            except GgfError as error:
                self.warn(f"gamechip nboard: set game ignored: {error}")
                return
            self.game, self.position = game, game.final
        elif what == "depth":
            number = self.number(value, "set depth")
            if number is not None:
                self.depth_limit = max(1, min(MAX_DEPTH, int(number)))
        elif what == "contempt":
            number = self.number(value, "set contempt")
            if number is not None:
                self.contempt = number
        elif what == "budget":
            number = self.number(value, "set budget")
            if number is not None and number >= 0:
                self.backend.budget = int(number)
                self.depth_limit = MAX_DEPTH   # the budget decides how deep, as on the processor

    def number(self, text, what):
        try:
            return float(text)
        except ValueError:
            self.warn(f"gamechip nboard: {what} ignored: {text!r} is not a number")
            return None

    def move(self, text):
        square_text = text.split("/")[0].strip()
        try:
            square = None if square_text.upper() in ("PA", "PASS") else parse_square(square_text)
            position = apply_move(self.position, square)
        except (BoardError, GgfError) as error:
            self.warn(f"gamechip nboard: move {text!r} ignored: {error}")
            return
        self.game.moves.append(GgfMove(self.position.side, square))
        self.position = position

    def decide(self):
        return self.backend.decide(self.game, self.position, self.depth_limit)

    def hint_count(self, text):
        """The N of ``hint N``: 1 when it is missing (as NTest reads it), not a number (said on
        stderr) or below 1."""
        if not text:
            return 1
        try:
            return max(1, int(text.split()[0]))
        except ValueError:
            self.warn(f"gamechip nboard: hint {text!r}: not a number of moves: the top move only")
            return 1

    def hints(self, count):
        """The ``search``/``book`` lines of ``hint count``: the backend's move first (what ``go``
        answers), then up to ``count - 1`` other legal moves, best first, each valued by
        :func:`move_values` at the depth of the backend's search. A pass is answered as ``PA``
        with the search's value of the position; a finished game has no move: no line."""
        position = self.position
        if game_over(position):
            return []
        top = self.decide()
        if top.source == "forced":
            top = golden_decision(position, self.backend, self.depth_limit)
        if top.source == "book":
            lines = [f"book {top.move_text} 0 0 0 book"]
        else:
            lines = [f"search {top.move_text} {top.value:g} 0 {top.depth} {top.nodes} nodes, {self.backend.name}"]
        if count == 1 or top.square is None:
            return lines
        depth = top.depth if top.source == "search" else golden_decision(position, self.backend,
                                                                          self.depth_limit).depth
        others = [entry for entry in move_values(position, depth) if entry[0] != top.square]
        for square, value, nodes in others[:count - 1]:
            lines.append(f"search {square_name(square)} {value:g} 0 {depth} {nodes} nodes, golden search of the "
                         f"position after it at depth {depth - 1}")
        return lines


def golden_decision(position, backend, depth_limit):
    """The golden processor's search of ``position`` (at the backend's budget and contexts) as
    a Decision: for a forced pass (``PA``, the position's value) and for the depth at which a
    book move's alternatives are valued."""
    started = time.perf_counter()
    processor = GoldenProcessor(backend.budget, depth_limit, keep_trace=False, contexts=backend.contexts,
                                solve_empties=backend.solve_empties, pattern=backend.pattern)
    result = processor.search_position(position)
    return Decision(result.best, result.value, "search", result.depth, result.nodes, time.perf_counter() - started)


def move_values(position, depth):
    """[(square, value, nodes)] for every legal move of ``position`` (not over, side to move has a
    move), best first (ties in square order): the value, from the side to move, is the negated
    golden search of the position after the move to ``depth - 1`` plies with the full window
    (``depth`` 1: the negated leaf value), the exact negamax value of the move ``depth`` plies
    deep, which is what the processor's iteration ``depth`` finds for the move it chooses (for
    the others its fail-hard root search only knows a bound)."""
    values = []
    for square in squares_of(legal_moves(position.own, position.opp)):
        after = play(position, square)
        if depth <= 1:
            values.append((square, -minimax(after, 0), 1))
        else:
            result = search_events(after, depth - 1)
            values.append((square, -result.value, result.nodes))
    return sorted(values, key=lambda entry: -entry[1])


def run_engine(backend, depth_limit=MAX_DEPTH, stdin=None, stdout=None, stderr=None):
    """The engine on stdin/stdout until ``quit`` or end of input; the exit status."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr

    def write(line):
        stdout.write(line + "\n")
        stdout.flush()

    def warn(line):
        stderr.write(line + "\n")
        stderr.flush()

    return NBoardEngine(backend, write, warn, depth_limit).run(iter(stdin.readline, ""))

