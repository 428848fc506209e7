"""``gamechip play --port``: the referee protocol (docs/spec.md §8) over a serial port with pyserial, a
board on one side, the reference player or a human at the terminal on the other, every reply of
the board checked against the golden processor at the board's budget.

The port is anything ``serial.serial_for_url`` opens: a device (``/dev/ttyUSB0``) or a URL such
as ``socket://127.0.0.1:PORT`` (``gamechip serve``: the simulated processor). The golden
processor runs in a process of its own (tb.checks.processor ``GoldenProcessorProcess``, PyPy
when installed): each message goes to it when it goes to the board, so both think at once.

How a game ends, and the command's exit status (docs/serial.md):

* every reply matched and the game ended normally: 0;
* the board answered a move that differs from the golden processor's: :class:`BoardMismatch`,
  1 (the position and both moves are reported);
* the board broke the protocol: no reply within the timeout, bytes that are no reply (garbage,
  a line from ``gamechip serve`` other than its busy line), the port closing: the referee
  declares the board's move invalid (``II``/``XX``, as the contest did) and the command exits 3;
* the port cannot be opened: 2, before any game (no record);
* the board is ``gamechip serve`` busy with another client's game (its first reply is the
  server's busy line): :class:`ServerBusy`, 4, and no record: the game never started;
* the human at the terminal left (end of input, with ``--human``): :class:`HumanLeft`, 5, and
  the record of the game so far.
"""

import signal
import time

import serial

from golden.board import draw, format_game_record, parse_board, parse_square, popcount, square_name
from golden.contest.referee import (NoReply, PlayerEndpoint, ProtocolError, YOU_LOST, YOU_WON, decode_move,
                                    play_game)
from golden.othello import legal_moves
from tb.sim.socket_link import BUSY_LINE, printable

DEFAULT_BAUD = 115_200   # the contest's line, and the board tops' UART
DEFAULT_TIMEOUT = 30.0   # seconds for a reply: a search of 0.1 s a move, with room for a slow simulation
EXIT_MISMATCH = 1
EXIT_PROTOCOL = 3
EXIT_BUSY = 4          # the server plays another client's game: try again later
EXIT_HUMAN_LEFT = 5    # the human at the terminal ended their input: the game stops unfinished
EXIT_INTERRUPTED = 130
# after a reply that is no move: how long to read what else the board sends, to show it
GARBAGE_GRACE_SECONDS = 0.3


class PortUnavailable(Exception):
    """The port could not be opened (no such device, nothing listening at the URL)."""


class ServerBusy(Exception):
    """The board's first reply is ``gamechip serve``'s busy line: another client's game is on."""


class HumanLeft(Exception):
    """The human at the terminal ended their input (end of file on stdin)."""


class BoardMismatch(Exception):
    """The board's reply differs from the golden processor's (the message says where and how)."""

    def __init__(self, text, reply):
        super().__init__(text)
        self.reply = reply


def open_port(url, baud, timeout):
    """The pyserial port at ``url``; PortUnavailable with the reason."""
    try:
        return serial.serial_for_url(url, baudrate=baud, timeout=timeout, write_timeout=timeout)
    except (serial.SerialException, ValueError, OSError) as error:
        raise PortUnavailable(f"cannot open the port {url}: {error}")


class BoardEndpoint:
    """The board behind ``port`` as the referee's message-level endpoint: each message written,
    the two-byte reply read within ``timeout`` seconds and compared with ``golden``'s (a
    GoldenProcessorProcess started for this game). ``failure`` says how the board broke the
    protocol, when it did; ``info()`` is the golden processor's account of the move the board
    matched (source, depth, cycles) and the seconds the board took."""

    def __init__(self, port, golden, timeout, color):
        self.port, self.golden, self.timeout, self.color = port, golden, timeout, color
        self.name = f"board on {port.name}"
        self.failure = None
        self.replies = 0
        self.seconds = []
        self.last_info = {}

    def __call__(self, message):
        self.golden.submit(message)
        try:
            self.port.write(message.encode("ascii"))
            self.port.flush()
        except serial.SerialException as error:
            return self._broken("the port closed", f"cannot write {message!r} to the port: {error}")
        if message in (YOU_LOST, YOU_WON):
            self.golden.answer()
            return None
        started = time.perf_counter()
        try:
            reply = self.port.read(2)
        except serial.SerialException as error:
            return self._broken("the port closed", f"the port closed while waiting for the reply to {message!r}: "
                                                   f"{error}")
        seconds = time.perf_counter() - started
        answer = self.golden.answer()
        if len(reply) < 2:
            if not reply:
                return self._broken("no reply", f"no reply within {self.timeout:g} s to {message!r}")
            return self._broken("garbage", f"half a reply to {message!r}: {printable(reply)} and then nothing "
                                           f"within {self.timeout:g} s")
        text = reply.decode("latin-1")
        try:
            decode_move(text)
        except ProtocolError as error:
            rest = self._rest()
            if self.replies == 0 and (reply + rest).startswith(BUSY_LINE.encode()):
                raise ServerBusy((reply + rest).decode("latin-1").strip())
            self.failure = self.failure or ("garbage", f"garbage from the board in reply to {message!r}: "
                                                       f"{ascii((reply + rest).decode('latin-1'))} ({error})")
            return text
        self.replies += 1
        if text != answer["reply"]:
            position = draw_position(answer)
            raise BoardMismatch(
                f"MISMATCH at the board's reply {self.replies} (board {self.color}): the board answered {text!r} to "
                f"{message!r}, the golden processor plays {answer['reply']!r}\n"
                f"position: {position.text()}\n{draw(position)}", text)
        self.seconds.append(seconds)
        self.last_info = {**(answer.get("info") or {}), "reply_seconds": round(seconds, 3)}
        return text

    def _broken(self, kind, text):
        """The board broke the protocol (the first way it did is the one reported)."""
        self.failure = self.failure or (kind, text)
        raise NoReply(text)

    def _rest(self):
        """What else the board sends within GARBAGE_GRACE_SECONDS (to show with garbage)."""
        rest = bytearray()
        deadline = time.perf_counter() + GARBAGE_GRACE_SECONDS
        try:
            self.port.timeout = GARBAGE_GRACE_SECONDS
            while time.perf_counter() < deadline and len(rest) < 200:
                byte = self.port.read(1)   # a byte at a time: a read that meets the end of a socket loses what it read
                if not byte:
                    break
                rest += byte
        except serial.SerialException:
            pass
        return bytes(rest)

    def info(self):
        return dict(self.last_info)


def draw_position(answer):
    """The position the golden processor was asked about (or its board, when it was not asked)."""
    return parse_board(answer["asked_position"] if answer.get("asked") else answer["position"])


class Transcript:
    """An endpoint that passes every message to ``endpoint`` and keeps (to, message, reply): the
    record of a game stopped before the referee finished it."""

    def __init__(self, endpoint, color, lines):
        self.endpoint, self.color, self.lines = endpoint, color, lines
        self.name = getattr(endpoint, "name", type(endpoint).__name__)

    def __call__(self, message):
        self.lines.append(f"R>{self.color} {message}")
        try:
            reply = self.endpoint(message)
        except BoardMismatch as mismatch:
            self.lines.append(f"{self.color}>R {mismatch.reply}")
            raise
        if reply is not None:
            data = reply.encode("latin-1") if isinstance(reply, str) else reply
            self.lines.append(f"{self.color}>R {printable(data)}")
        return reply

    def info(self):
        info = getattr(self.endpoint, "info", None)
        return info() if callable(info) else {}


class TerminalPlayer:
    """A human at the terminal: asks for each move (``d3``; an illegal one is asked again), passes
    alone when there is no legal move. ``ask`` reads a line (``input`` by default); end of input
    raises HumanLeft, which stops the game."""

    name = "human at the terminal"

    def __init__(self, ask=input, say=print):
        self.ask, self.say = ask, say

    def reset(self, color):
        self.color = color

    def move(self, position):
        legal = legal_moves(position.own, position.opp)
        if not legal:
            self.say("you have no legal move: you pass")
            return None
        names = " ".join(square_name(s) for s in range(64) if legal >> s & 1)
        while True:
            try:
                text = self.ask(f"your move ({'black' if self.color == 'X' else 'white'}; legal: {names}): ").strip()
            except EOFError:
                raise HumanLeft("the human left (end of input)") from None
            try:
                square = parse_square(text)
            except Exception as error:  # noqa: BLE001 - BoardError and friends: ask again
                self.say(f"not a square: {error}")
                continue
            if legal >> square & 1:
                return square
            self.say(f"{square_name(square)} is not legal here; legal: {names}")

    def info(self):
        return {}


class PortGame:
    """One game over ``port``: the board plays ``board_color`` ('black'/'white') at ``budget``
    cycles a move (``depth_limit``), against ``opponent`` (a Player). ``run(on_move)`` returns
    (exit status, one-line outcome, record text or None when the game never started)."""

    def __init__(self, port, opponent, board_color, budget, depth_limit, timeout, opponent_name):
        from rtl.processor_settings import PROCESSOR_SOLVE_EMPTIES
        from tb.checks.processor import GoldenProcessorProcess
        from tb.checks.search import golden_python_for_budget

        self.port, self.board_color, self.budget = port, board_color, budget
        self.opponent_name = opponent_name
        # Ctrl-C at the terminal reaches every process of the foreground group: the golden one
        # ignores it (inherited through exec) and ends when this one closes its input
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.golden = GoldenProcessorProcess(golden_python_for_budget(budget))
        finally:
            signal.signal(signal.SIGINT, interrupt)
        # the board's processor solves its endgame as the converted design does (rtl/processor.py)
        self.golden.new_game(budget, depth_limit, solve_empties=PROCESSOR_SOLVE_EMPTIES)
        char = "X" if board_color == "black" else "O"
        self.board = BoardEndpoint(port, self.golden, timeout, board_color)
        self.transcript = []
        self.plies = []
        board = Transcript(self.board, char, self.transcript)
        other = Transcript(PlayerEndpoint(opponent), "O" if char == "X" else "X", self.transcript)
        self.black, self.white = (board, other) if char == "X" else (other, board)
        self.position = None
        self.ggf = None   # the game as GGF, once run() is over (None: the game never started)
        self.started = time.perf_counter()

    def run(self, on_move):
        def moved(position, color, move, info):
            self.position = position
            self.plies.append((color, move, info))
            on_move(position, color, move, info)

        try:
            result = play_game(self.black, self.white, on_move=moved)
        except BoardMismatch as mismatch:
            return EXIT_MISMATCH, str(mismatch), self.stopped_record(str(mismatch).splitlines()[0])
        except ServerBusy as busy:
            return EXIT_BUSY, "the server is busy with another game: try again when it is over", None
        except HumanLeft as left:
            return EXIT_HUMAN_LEFT, str(left), self.stopped_record(str(left))
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED, "interrupted", self.stopped_record("interrupted at the terminal")
        finally:
            self.golden.close()
        text = self.header(result.format_record(), result.black_discs, result.white_discs) + result.results_text()
        self.ggf = self.ggf_text(result.reason, result.invalid_by, result.detail)
        if self.board.failure:
            kind, why = self.board.failure
            return EXIT_PROTOCOL, f"{kind}: {why}", text
        return 0, f"final score: {result.summary()}", text

    def header(self, record, black, white):
        seconds = self.board.seconds
        timing = (f"board's replies: {len(seconds)}, mean {sum(seconds) / len(seconds):.3f} s, "
                  f"longest {max(seconds):.3f} s" if seconds else "board's replies: none")
        return "\n".join([record, f"black {black} white {white}",
                          f"board: {self.board_color} on {self.port.name}, budget {self.budget:,} cycles per move, "
                          f"every reply checked against the golden processor; opponent: {self.opponent_name}",
                          f"{timing}; game {time.perf_counter() - self.started:.1f} s", ""]) + "\n"

    def ggf_text(self, reason, invalid_by=None, detail=""):
        """The game so far as GGF (gamechip.games.play.plies_ggf), the board and its opponent named."""
        from gamechip.games.play import plies_ggf

        board = f"board on {self.port.name} (budget {self.budget})"
        black, white = (board, self.opponent_name) if self.board_color == "black" else (self.opponent_name, board)
        return plies_ggf([move for _, move, _ in self.plies], black, white, reason, invalid_by, detail,
                         "gamechip play --port")

    def stopped_record(self, why):
        self.ggf = self.ggf_text(f"stopped: {why}")
        moves = [move for _, move, _ in self.plies if move is not None]
        position = self.position
        black, white = (popcount(position.black), popcount(position.white)) if position else (2, 2)
        lines = [f"stopped: {why}"]
        if position is not None:
            lines.append(f"position: {position.text()}")
        lines.append("plies:")
        for number, (color, move, info) in enumerate(self.plies, 1):
            details = " ".join(f"{k}={v}" for k, v in info.items())
            lines.append(f"  {number:3d} {color} {'pass' if move is None else square_name(move):4s} {details}".rstrip())
        lines.append("messages:")
        lines += [f"  {line}" for line in self.transcript]
        return self.header(format_game_record(moves), black, white) + "\n".join(lines) + "\n"
