"""The referee: connects two players, enforces the rules and the protocol, records the game.

Protocol (docs/spec.md §8, processor seed section 1.3): every message is two
ASCII characters.

* ``YY`` referee -> black player: you play black, move now.
* a move, column letter + row digit in upper case (``D3``): player -> referee;
  the referee forwards each valid move to the opponent, which is its cue to move.
* ``VV`` player -> referee: I have no legal move (pass). The referee checks it
  and sends ``RR`` to the opponent: your turn again.
* ``II`` referee -> a player whose reply was invalid (illegal move, pass with a
  legal move available, malformed or unknown message, no reply): you lost;
  ``XX`` referee -> its opponent: you won. The game ends there.

The protocol has no end-of-game message. When a move finishes the game the
referee still forwards it, so the opponent's board is complete; the
opponent's answer to that last message may be ``VV`` (it has no move, which
is true) or nothing; any other answer is an invalid move and loses.

A player is either

* a **Python player** (golden.contest.players.Player: ``reset``, ``move``), which the
  referee wraps in a :class:`PlayerEndpoint` keeping its own board from the
  messages, or
* a **message-level endpoint**: a callable ``endpoint(message: str) -> reply``
  that receives every message the referee sends to it and returns its reply
  (a two-character str; None or raising :class:`NoReply` when it answers
  nothing). Replies to ``II``/``XX`` are ignored. Optional attributes:
  ``name`` (str) and ``info()`` (dict about its last move). This is how a
  simulated processor behind its UART is connected.

Every reply is validated as raw text: anything but an upper-case square or
``VV`` (lower case, other codes, wrong length, non-text) is an invalid move,
never an exception. An endpoint or player that raises anything else (a bug)
propagates the exception. The board is 8x8 (the protocol's letters A..H,
digits 1..8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

from golden.board import (
    BLACK_CHAR,
    WHITE_CHAR,
    BoardError,
    Position,
    format_game_record,
    popcount,
    square_name,
    start_position,
)
from golden.othello import flips, game_over, legal_moves, pass_move, play
from golden.contest.players import Player, check_color, player_info

SIZE = 8
YOU_ARE_BLACK = "YY"
PASS = "VV"
OPPONENT_PASSED = "RR"
YOU_LOST = "II"
YOU_WON = "XX"
REFEREE = "R"
FILES = "ABCDEFGH"
RANKS = "12345678"

REASON_END = "end of game"
REASON_INVALID = "invalid move"

Endpoint = Callable[[str], Optional[str]]
OnMove = Callable[[Position, str, Optional[int], dict], None]


class ProtocolError(BoardError):
    """A message that is not valid in the referee protocol."""


class NoReply(Exception):
    """Raised by an endpoint that got no answer (e.g. a UART read timed out)."""


def other(color: str) -> str:
    """The opponent's colour."""
    return WHITE_CHAR if check_color(color) == BLACK_CHAR else BLACK_CHAR


def encode_move(move: Optional[int]) -> str:
    """Protocol text of a move: 'D3' for a square index, 'VV' for None (pass)."""
    return PASS if move is None else square_name(move, SIZE)


def decode_move(message: object) -> Optional[int]:
    """Square index of a move message, None for 'VV'; ProtocolError for anything else.

    Only exact two-character text is accepted: upper-case file A..H then rank
    1..8, or VV. Lower case ('d3'), other codes ('YY', 'RR', 'II', 'XX'),
    padding and non-text are rejected with a message saying why.
    """
    if not isinstance(message, str):
        raise ProtocolError(f"message must be two ASCII characters, got {type(message).__name__} {message!r}")
    if len(message) != 2:
        raise ProtocolError(f"message must be two characters, got {len(message)}: {message!r}")
    if message == PASS:
        return None
    file, rank = message
    if file in FILES and rank in RANKS:
        return RANKS.index(rank) * SIZE + FILES.index(file)
    if file.upper() in FILES and rank in RANKS:
        raise ProtocolError(f"move {message!r} is in lower case: the protocol uses upper case ({message.upper()})")
    if message in (YOU_ARE_BLACK, OPPONENT_PASSED, YOU_LOST, YOU_WON):
        raise ProtocolError(f"{message!r} is a referee message, not a player's reply")
    raise ProtocolError(f"unknown message {message!r}: expected a square A1..H8 or VV")


class PlayerEndpoint:
    """A Python Player as a message-level endpoint (one per game).

    It keeps its own board from the messages it receives, as a remote player
    must: ``YY`` makes it black, a first message that is a move makes it
    white; every message that needs an answer is answered with the player's
    move (``VV`` when it returns None). ``outcome`` is set by ``II``/``XX``.
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = getattr(player, "name", type(player).__name__)
        self.color: Optional[str] = None
        self.position = start_position(SIZE)
        self.received: list[str] = []
        self.outcome: Optional[str] = None   # 'lost' after II, 'won' after XX

    def __call__(self, message: str) -> Optional[str]:
        self.received.append(message)
        if message in (YOU_LOST, YOU_WON):
            self.outcome = "lost" if message == YOU_LOST else "won"
            return None
        if self.color is None:
            self._start(BLACK_CHAR if message == YOU_ARE_BLACK else WHITE_CHAR)
        if message == OPPONENT_PASSED:
            self.position = pass_move(self.position)
        elif message != YOU_ARE_BLACK:
            # The referee only forwards moves it accepted: legal on our board.
            self.position = play(self.position, decode_move(message))
        if game_over(self.position):
            return PASS  # the opponent's move ended the game: nothing to ask the player
        return self._answer()

    def info(self) -> dict:
        return player_info(self.player)

    def _start(self, color: str) -> None:
        self.color = color
        self.player.reset(color)

    def _answer(self) -> str:
        move = self.player.move(self.position)
        reply = encode_move(move)
        # Keep our board in step only when the move is legal; an illegal one
        # ends the game anyway (the referee answers II).
        if move is None:
            if not legal_moves(self.position.own, self.position.opp, SIZE):
                self.position = self.position.swap_side()
        elif flips(self.position.own, self.position.opp, move, SIZE):
            self.position = play(self.position, move)
        return reply


@dataclass(frozen=True)
class Message:
    """One message of the game: sender and receiver are 'R' (referee), 'X' or 'O'."""

    sender: str
    receiver: str
    text: str

    def __str__(self) -> str:
        # Garbage from a player is shown escaped, so a log line stays one printable line.
        shown = self.text if self.text.isascii() and self.text.isprintable() else repr(self.text)
        return f"{self.sender}>{self.receiver} {shown}"


@dataclass(frozen=True)
class Ply:
    """One accepted move: who played, the square (None = pass), the player's info."""

    color: str
    move: Optional[int]
    info: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "pass" if self.move is None else square_name(self.move, SIZE)


@dataclass
class GameResult:
    """Everything about one refereed game.

    ``reason`` is REASON_END (neither side can move) or REASON_INVALID (then
    ``invalid_by`` is the colour that lost by an invalid reply and ``detail``
    says what was wrong). ``winner`` is 'X', 'O' or None (draw).
    """

    black_name: str
    white_name: str
    plies: list[Ply]
    messages: list[Message]
    final: Position
    winner: Optional[str]
    reason: str
    invalid_by: Optional[str] = None
    detail: str = ""

    @property
    def moves(self) -> list[Optional[int]]:
        """Every accepted move in order, None for a pass."""
        return [p.move for p in self.plies]

    @property
    def black_discs(self) -> int:
        return popcount(self.final.black)

    @property
    def white_discs(self) -> int:
        return popcount(self.final.white)

    def move_counts(self, color: str) -> tuple[int, int]:
        """(moves, passes) of ``color``: the seed's "Movimientos 32+0" columns."""
        mine = [p for p in self.plies if p.color == color]
        passes = sum(p.move is None for p in mine)
        return len(mine) - passes, passes

    def format_record(self) -> str:
        """The standard record: lower-case squares concatenated, passes left out."""
        return format_game_record((m for m in self.moves if m is not None), SIZE)

    def summary(self) -> str:
        """One line: score, winner and reason."""
        who = {BLACK_CHAR: "black", WHITE_CHAR: "white"}
        won = f"{who[self.winner]} wins" if self.winner else "draw"
        why = self.reason if self.invalid_by is None else f"{self.reason} by {who[self.invalid_by]}: {self.detail}"
        return f"black {self.black_discs} white {self.white_discs}; {won} ({why})"

    def results_text(self) -> str:
        """The results file: record, ``black N white M``, then players, plies and messages."""
        lines = [self.format_record(), f"black {self.black_discs} white {self.white_discs}"]
        lines.append(f"result: {self.summary()}")
        for color, name in ((BLACK_CHAR, self.black_name), (WHITE_CHAR, self.white_name)):
            moves, passes = self.move_counts(color)
            lines.append(f"{'black' if color == BLACK_CHAR else 'white'}: {name} ({moves}+{passes} moves+passes)")
        lines.append(f"final: {self.final.text()}")
        lines.append("plies:")
        for number, ply in enumerate(self.plies, 1):
            info = " ".join(f"{k}={v}" for k, v in ply.info.items())
            lines.append(f"  {number:3d} {ply.color} {ply.text:4s} {info}".rstrip())
        lines.append("messages:")
        lines.extend(f"  {m}" for m in self.messages)
        return "\n".join(lines) + "\n"

    def write(self, path: Union[str, Path]) -> Path:
        """Write ``results_text()`` to ``path``; returns the path."""
        path = Path(path)
        path.write_text(self.results_text(), encoding="utf-8")
        return path


def as_endpoint(player: Union[Player, Endpoint]) -> Any:
    """A message-level endpoint for ``player``: Python players are wrapped, endpoints kept."""
    if callable(getattr(player, "move", None)) and callable(getattr(player, "reset", None)):
        return PlayerEndpoint(player)  # type: ignore[arg-type]
    if callable(player):
        return player
    raise TypeError(f"a player needs reset() and move(), or must be a callable endpoint; got {player!r}")


class _Game:
    """The state of one game in progress (used by :func:`play_game`)."""

    def __init__(self, black: Any, white: Any, on_move: Optional[OnMove]) -> None:
        self.endpoints = {BLACK_CHAR: black, WHITE_CHAR: white}
        self.on_move = on_move
        self.position = start_position(SIZE)
        self.plies: list[Ply] = []
        self.messages: list[Message] = []

    def send(self, color: str, text: str) -> tuple[object, str]:
        """Send ``text`` to ``color``; returns (its raw reply, why it is missing or '')."""
        self.messages.append(Message(REFEREE, color, text))
        try:
            reply = self.endpoints[color](text)
        except NoReply as err:
            return None, f"no reply ({err})" if str(err) else "no reply"
        if text in (YOU_LOST, YOU_WON):
            return None, ""
        if reply is None:
            return None, "no reply"
        if isinstance(reply, (bytes, bytearray)):
            reply = reply.decode("latin-1")  # a UART gives bytes; validate them as text
        self.messages.append(Message(color, REFEREE, reply if isinstance(reply, str) else repr(reply)))
        return reply, ""

    def accept(self, color: str, reply: object) -> str:
        """Apply a valid reply of ``color`` and return the message for its opponent.

        Raises ProtocolError (malformed or unknown message) or IllegalMove.
        """
        move = decode_move(reply)
        self.position = pass_move(self.position) if move is None else play(self.position, move)
        info = player_info(self.endpoints[color])
        self.plies.append(Ply(color, move, info))
        if self.on_move is not None:
            self.on_move(self.position, color, move, info)
        return OPPONENT_PASSED if move is None else encode_move(move)

    def result(self, winner: Optional[str], reason: str, invalid_by: Optional[str] = None,
               detail: str = "") -> GameResult:
        names = {c: getattr(e, "name", type(e).__name__) for c, e in self.endpoints.items()}
        return GameResult(names[BLACK_CHAR], names[WHITE_CHAR], self.plies, self.messages,
                          self.position, winner, reason, invalid_by, detail)

    def forfeit(self, loser: str, detail: str) -> GameResult:
        """``loser`` sent an invalid reply: II to it, XX to its opponent."""
        self.send(loser, YOU_LOST)
        self.send(other(loser), YOU_WON)
        return self.result(other(loser), REASON_INVALID, loser, detail)

    def finish(self) -> GameResult:
        black, white = popcount(self.position.black), popcount(self.position.white)
        winner = BLACK_CHAR if black > white else WHITE_CHAR if white > black else None
        return self.result(winner, REASON_END)


def play_game(black: Union[Player, Endpoint], white: Union[Player, Endpoint],
              on_move: Optional[OnMove] = None) -> GameResult:
    """Referee one game from the standard start position; never raises on bad replies.

    ``black`` and ``white`` are Python players (wrapped in a fresh
    PlayerEndpoint, which calls ``reset``) or message-level endpoints.
    ``on_move(position_after, color, move_or_None, info)`` is called after
    every accepted move or pass, e.g. to draw the board.
    """
    game = _Game(as_endpoint(black), as_endpoint(white), on_move)
    mover, message = BLACK_CHAR, YOU_ARE_BLACK
    while True:
        reply, missing = game.send(mover, message)
        if missing:
            return game.forfeit(mover, missing)
        try:
            message = game.accept(mover, reply)
        except BoardError as err:  # ProtocolError or IllegalMove
            return game.forfeit(mover, str(err))
        mover = other(mover)
        if game_over(game.position):
            return _last_word(game, mover, message)


def _last_word(game: _Game, color: str, message: str) -> GameResult:
    """Forward the final move to ``color``; its answer may only be VV or nothing."""
    reply, missing = game.send(color, message)
    if missing or reply == PASS:
        return game.finish()
    try:
        decode_move(reply)
        detail = f"move {reply!r} after the end of the game"
    except ProtocolError as err:
        detail = str(err)
    return game.forfeit(color, detail)


def moves_of_exchanges(exchanges: list[tuple[str, str]]) -> list[Optional[int]]:
    """The game a player took part in, from its (message received, reply sent) pairs as a
    server on the player's side sees them: every move of both sides (None a pass), up to the
    first message or reply that is no legal move, or the end of the game."""
    position, moves = start_position(SIZE), []

    def apply(text: str) -> bool:
        nonlocal position
        try:
            move = None if text in (PASS, OPPONENT_PASSED) else decode_move(text)
        except ProtocolError:
            return False
        if move is None:
            if legal_moves(position.own, position.opp, SIZE):
                return False
            position = pass_move(position)
        elif flips(position.own, position.opp, move, SIZE):
            position = play(position, move)
        else:
            return False
        moves.append(move)
        return True

    for message, reply in exchanges:
        if message != YOU_ARE_BLACK and not apply(message):
            break
        if game_over(position) or not apply(reply):
            break
    return moves
