"""Tests of the reference program (golden/contest/reference.py), the players
(golden/contest/players.py) and the referee (golden/contest/referee.py), docs/spec.md §8-§9.

The reference alpha-beta is checked against a plain minimax written here
(Position objects, square-by-square values, no pruning); refereed games are
checked by replaying their records from the start position with
golden.othello. Every random input comes from a fixed seed.
"""

from __future__ import annotations

import random

import pytest

from golden.board import (
    START,
    BoardError,
    Position,
    parse_game_record,
    popcount,
    square_name,
    squares_of,
)
from golden.othello import flips, game_over, legal_moves, must_pass, pass_move, play
from golden.contest.players import Player, RandomPlayer, ScriptedPlayer, ScriptExhausted
from golden.positions import random_game_positions
from golden.contest.referee import (
    REASON_END,
    REASON_INVALID,
    NoReply,
    PlayerEndpoint,
    ProtocolError,
    decode_move,
    encode_move,
    play_game,
)
from golden.contest.reference import (
    FINAL_SCALE,
    MOVE_ORDER,
    SQUARE_WEIGHTS,
    ReferencePlayer,
    reference_search,
)

# ---------------------------------------------------------------- plain minimax


def _row_values() -> list[list[int]]:
    """ROW_VALUES[row][byte]: sum of (1 + weight) over the discs ``byte`` puts on ``row``."""
    return [
        [sum(1 + SQUARE_WEIGHTS[row * 8 + col] for col in range(8) if byte >> col & 1) for byte in range(256)]
        for row in range(8)
    ]


ROW_VALUES = _row_values()


def plain_value(own: int, opp: int) -> int:
    """Leaf value row by row: each disc counts 1 plus its square's weight."""
    return sum(ROW_VALUES[r][own >> 8 * r & 255] - ROW_VALUES[r][opp >> 8 * r & 255] for r in range(8))


def plain_moves(own: int, opp: int) -> list[int]:
    """Legal squares by decreasing weight, then increasing index (the documented order)."""
    return sorted(squares_of(legal_moves(own, opp)), key=lambda sq: (-SQUARE_WEIGHTS[sq], sq))


def plain_child(own: int, opp: int, sq: int) -> tuple[int, int]:
    """(own, opp) of the child after playing ``sq``, from the child's side to move."""
    flipped = flips(own, opp, sq)
    return opp & ~flipped, own | flipped | 1 << sq


def plain_minimax(own: int, opp: int, depth: int) -> int:
    """Negamax value without pruning; a pass is a ply, a finished game is final."""
    if not legal_moves(own, opp) and not legal_moves(opp, own):
        return FINAL_SCALE * (popcount(own) - popcount(opp))
    if depth == 0:
        return plain_value(own, opp)
    moves = plain_moves(own, opp)
    if not moves:
        return -plain_minimax(opp, own, depth - 1)
    return max(-plain_minimax(*plain_child(own, opp, m), depth - 1) for m in moves)


def plain_root(pos: Position, depth: int) -> tuple[int | None, int]:
    """(move, value) at the root; the first move of the order wins ties."""
    moves = plain_moves(pos.own, pos.opp)
    if not moves:
        return None, plain_minimax(pos.own, pos.opp, depth)
    best_move, best_value = None, None
    for m in moves:
        value = -plain_minimax(*plain_child(pos.own, pos.opp, m), depth - 1)
        if best_value is None or value > best_value:
            best_move, best_value = m, value
    return best_move, best_value


def minimax_positions() -> list[Position]:
    """~50 positions from random games: spread over the game, plus passes and finished games."""
    rng = random.Random(2010)
    spread, passes, finished = [], [], []
    while len(spread) < 36 or len(passes) < 10 or len(finished) < 4:
        game = random_game_positions(rng)
        if len(spread) < 36:
            spread.extend(rng.sample(game, 3))
        # Positions a few plies before a pass, so the search tree holds passes too.
        for k, pos in enumerate(game):
            if must_pass(pos) and len(passes) < 10:
                passes.append(game[max(0, k - rng.randrange(3))])
        if len(finished) < 4:
            finished.append(game[-1])
    return spread[:36] + passes + finished


MINIMAX_POSITIONS = minimax_positions()


def test_minimax_positions_hold_passes():
    assert len(MINIMAX_POSITIONS) == 50
    assert any(must_pass(p) for p in MINIMAX_POSITIONS)
    assert any(game_over(p) for p in MINIMAX_POSITIONS)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_reference_equals_plain_minimax(depth):
    # Plain minimax at depth 4 visits ~400k leaves over all 50 positions (~9 s):
    # every third position (spread, passes and finished games alike) keeps it ~3 s.
    positions = MINIMAX_POSITIONS[::3] if depth == 4 else MINIMAX_POSITIONS
    for pos in positions:
        got = reference_search(pos, depth)
        want_move, want_value = plain_root(pos, depth)
        assert (got.move, got.value) == (want_move, want_value), (
            f"depth {depth} board {pos.text()}: alpha-beta {got}, plain minimax "
            f"move {want_move} value {want_value}"
        )
        assert got.nodes >= 1


def test_move_order_and_table():
    assert MOVE_ORDER[:4] == (0, 7, 56, 63)          # corners first, A1 H1 A8 H8
    assert MOVE_ORDER[-4:] == (9, 14, 49, 54)        # X-squares last
    assert sorted(MOVE_ORDER) == list(range(64))
    assert SQUARE_WEIGHTS[0] == 120 and SQUARE_WEIGHTS[9] == -40
    # Symmetric under the dihedral group: 8x8 transpose and both mirrors.
    for sq in range(64):
        r, c = divmod(sq, 8)
        assert SQUARE_WEIGHTS[sq] == SQUARE_WEIGHTS[c * 8 + r] == SQUARE_WEIGHTS[r * 8 + 7 - c]
    assert FINAL_SCALE > sum(abs(w) for w in SQUARE_WEIGHTS) + 64


def test_reference_level_checked():
    for bad in (0, 8, -1, "3", True):
        with pytest.raises(BoardError):
            ReferencePlayer(bad)
    with pytest.raises(BoardError):
        reference_search(START, 0)


def test_reference_player_is_deterministic_and_reports():
    player = ReferencePlayer(4)
    player.reset("X")
    first = player.move(START)
    info = player.info()
    assert first == player.move(START)
    assert info["depth"] == 4 and info["nodes"] > 1 and info["level"] == 4
    assert isinstance(player, Player)


# ---------------------------------------------------------------- referee helpers


def replay(record: str) -> Position:
    """Replay a record from the start, inferring passes (records leave them out)."""
    pos = START
    for sq in parse_game_record(record):
        while must_pass(pos):
            pos = pass_move(pos)
        pos = play(pos, sq)
    return pos


def texts(result) -> list[str]:
    return [str(m) for m in result.messages]


def check_finished_game(result) -> None:
    assert result.reason == REASON_END, result.summary()
    final = replay(result.format_record())
    assert game_over(final)
    assert (final.black, final.white) == (result.final.black, result.final.white)
    assert result.black_discs + result.white_discs == popcount(final.black | final.white) <= 64
    if result.black_discs != result.white_discs:
        assert result.winner == ("X" if result.black_discs > result.white_discs else "O")
    else:
        assert result.winner is None
    # The messages are the protocol: YY first, every accepted move forwarded.
    assert texts(result)[0] == "R>X YY"
    for ply in result.plies:
        if ply.move is not None:
            sent_to_opponent = f"R>{'O' if ply.color == 'X' else 'X'} {square_name(ply.move)}"
            assert sent_to_opponent in texts(result)


# ---------------------------------------------------------------- full games


def test_reference_vs_random_full_game(tmp_path):
    seen = []

    def on_move(position, color, move, info):
        seen.append((position, color, move, info))

    result = play_game(ReferencePlayer(2), RandomPlayer(7), on_move=on_move)
    check_finished_game(result)
    assert [(c, m) for _, c, m, _ in seen] == [(p.color, p.move) for p in result.plies]
    assert seen[-1][0] == result.final
    assert all(info["level"] == 2 for _, c, m, info in seen if c == "X")

    path = result.write(tmp_path / "game.txt")
    lines = path.read_text().splitlines()
    assert lines[0] == result.format_record()
    assert lines[1] == f"black {result.black_discs} white {result.white_discs}"
    assert "black: reference(level=2)" in path.read_text()


def test_reference_level1_vs_level2_full_game():
    result = play_game(ReferencePlayer(1), ReferencePlayer(2))
    check_finished_game(result)
    # Deterministic players: the same game every time.
    assert play_game(ReferencePlayer(1), ReferencePlayer(2)).format_record() == result.format_record()


def test_level3_beats_random():
    score = {"reference": 0, "random": 0, "draw": 0}
    for seed in range(10):
        ref_color = "X" if seed % 2 == 0 else "O"
        ref, rnd = ReferencePlayer(3), RandomPlayer(seed)
        result = play_game(ref, rnd) if ref_color == "X" else play_game(rnd, ref)
        check_finished_game(result)
        key = "draw" if result.winner is None else "reference" if result.winner == ref_color else "random"
        score[key] += 1
    # Measured with these seeds: 9-1 (the one loss 31-33 as white, seed 9).
    assert score["reference"] >= 8, score


# ---------------------------------------------------------------- passes


def game_with_pass():
    """The first random-vs-random game (seeds 0..) that has a pass."""
    for seed in range(100):
        result = play_game(RandomPlayer(seed), RandomPlayer(seed + 1000))
        if any(p.move is None for p in result.plies):
            return result
    raise AssertionError("no random game with a pass in 100 seeds")


def test_pass_sends_vv_then_rr():
    result = game_with_pass()
    check_finished_game(result)
    log = texts(result)
    for k, ply in enumerate(result.plies):
        if ply.move is None:
            opponent = "O" if ply.color == "X" else "X"
            i = log.index(f"{ply.color}>R VV")
            assert log[i + 1] == f"R>{opponent} RR"
    # Scripted copies of both sides replay the same game through the referee.
    scripts = {c: [p.move for p in result.plies if p.color == c] for c in "XO"}
    again = play_game(ScriptedPlayer(scripts["X"]), ScriptedPlayer(scripts["O"]))
    assert again.moves == result.moves and again.final == result.final
    assert texts(again) == log


def test_pass_with_a_legal_move_loses():
    result = play_game(ScriptedPlayer([None]), RandomPlayer(1))
    assert result.reason == REASON_INVALID and result.invalid_by == "X" and result.winner == "O"
    assert texts(result) == ["R>X YY", "X>R VV", "R>X II", "R>O XX"]
    assert "may not pass" in result.detail


# ---------------------------------------------------------------- invalid replies


def test_illegal_move_loses_with_ii_xx():
    black = PlayerEndpoint(ScriptedPlayer(["f5"]))
    white = PlayerEndpoint(ScriptedPlayer(["a1"]))      # A1 flips nothing
    result = play_game(black, white)
    assert texts(result) == ["R>X YY", "X>R F5", "R>O F5", "O>R A1", "R>O II", "R>X XX"]
    assert (result.winner, result.invalid_by, result.reason) == ("X", "O", REASON_INVALID)
    assert (black.outcome, white.outcome) == ("won", "lost")
    assert result.format_record() == "f5"
    assert result.black_discs == 4 and result.white_discs == 1
    assert "black 4 white 1" in result.results_text()


def test_occupied_square_loses():
    result = play_game(ScriptedPlayer(["d4"]), RandomPlayer(0))
    assert result.invalid_by == "X" and "occupied" in result.detail


class Garbage:
    """A message endpoint that answers ``reply`` to its first message, then plays via a Player."""

    def __init__(self, reply, name="garbage"):
        self.reply = reply
        self.name = name
        self.inner = PlayerEndpoint(RandomPlayer(3))
        self.received = []

    def __call__(self, message):
        self.received.append(message)
        if len(self.received) == 1:
            return self.reply
        return self.inner(message)


MALFORMED = ["d3", "f5", "D9", "I3", "A0", "YY", "RR", "II", "XX", "vv", "D", "D3 ", " D3", "",
             "\x00\xff", None, 42, b"F", ["F", "5"]]


@pytest.mark.parametrize("reply", MALFORMED, ids=repr)
@pytest.mark.parametrize("bad_color", ["X", "O"])
def test_malformed_reply_loses(reply, bad_color):
    bad = Garbage(reply)
    good = PlayerEndpoint(RandomPlayer(5))
    result = play_game(bad, good) if bad_color == "X" else play_game(good, bad)
    good_color = "O" if bad_color == "X" else "X"
    assert (result.winner, result.invalid_by, result.reason) == (good_color, bad_color, REASON_INVALID)
    assert texts(result)[-2:] == [f"R>{bad_color} II", f"R>{good_color} XX"]
    assert bad.received[-1] == "II" and good.outcome == "won"
    assert result.detail
    result.results_text()  # garbage is printable in the results file


def test_bytes_replies_are_accepted():
    """A UART endpoint may hand back bytes; they are validated as ASCII text."""
    inner = PlayerEndpoint(RandomPlayer(4))

    def uart(message):
        reply = inner(message)
        return None if reply is None else reply.encode("ascii")

    result = play_game(uart, RandomPlayer(1))
    check_finished_game(result)


def test_no_reply_loses():
    def silent(message):
        raise NoReply("timeout after 1000000 cycles")

    result = play_game(RandomPlayer(1), silent)
    assert result.invalid_by == "O" and "timeout" in result.detail
    assert texts(result)[-2:] == ["R>O II", "R>X XX"]


def test_reply_after_the_end_loses():
    """After the final move only VV (or no reply) is a valid answer."""
    finished = play_game(RandomPlayer(2), RandomPlayer(3))
    last = finished.plies[-1]
    loser = "O" if last.color == "X" else "X"
    scripts = {c: [p.move for p in finished.plies if p.color == c] for c in "XO"}
    endpoints = {c: PlayerEndpoint(ScriptedPlayer(scripts[c])) for c in "XO"}
    final_message = square_name(last.move)

    def rude(message):
        reply = endpoints[loser](message)
        return "A1" if message == final_message and reply == "VV" else reply

    players = {**endpoints, loser: rude}
    result = play_game(players["X"], players["O"])
    assert result.invalid_by == loser and "after the end" in result.detail
    assert result.final == finished.final


def test_scripted_player_exhausts():
    player = ScriptedPlayer(["f5"])
    player.reset("X")
    assert player.move(START) == 37
    with pytest.raises(ScriptExhausted):
        player.move(START)


# ---------------------------------------------------------------- message codec


def test_decode_move():
    assert decode_move("D3") == 19 and decode_move("A1") == 0 and decode_move("H8") == 63
    assert decode_move("VV") is None
    assert encode_move(19) == "D3" and encode_move(None) == "VV"
    for sq in range(64):
        assert decode_move(encode_move(sq)) == sq
    with pytest.raises(ProtocolError, match="lower case"):
        decode_move("d3")
    with pytest.raises(ProtocolError, match="referee message"):
        decode_move("RR")
    with pytest.raises(ProtocolError, match="two characters"):
        decode_move("D10")
