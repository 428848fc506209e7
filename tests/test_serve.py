"""``gamechip play --port`` (the serial referee, gamechip/games/port.py) and ``gamechip serve`` (the
simulated processor behind a TCP port, gamechip/games/serve.py and tb/sim/uart_bridge.py).

play --port is checked against boards scripted here: TCP servers that answer as the golden
processor, or wrongly, or with garbage, or never, or that hang up (pyserial's socket:// is the
port), and pyserial's loop:// (every message comes back as the reply). Then serve on Verilator,
through play --port and through raw sockets: whole games with every reply checked, a client that
disconnects mid-game, one that sends garbage, two clients at once, Ctrl-C.
"""

import io
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.games.port import TerminalPlayer
from golden.board import parse_board, parse_square, square_name, start_position
from golden.contest.referee import YOU_LOST, YOU_WON, PlayerEndpoint
from tb.sim.socket_link import refuse
from golden.contest.ggf import parse_ggf
from golden.othello import game_over, legal_moves
from golden.processor import GoldenProcessor
from rtl.designs import PROCESSOR_DEPTH_LIMIT, PROCESSOR_SOLVE_EMPTIES

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 256


class AskedGolden(GoldenProcessor):
    """The golden processor, remembering the position of its last move."""

    def move(self, position):
        self.asked = position
        return super().move(position)


class ScriptedBoard:
    """A board on a TCP port (play --port socket://127.0.0.1:PORT): the golden processor at
    BUDGET, answering every message, except that ``wrong_at`` (a reply number) answers another
    legal move, ``garbage`` replaces every reply, ``silent`` never answers and ``hang_up_at`` closes
    the connection instead of that reply."""

    def __init__(self, wrong_at=None, garbage=None, silent=False, hang_up_at=None):
        self.wrong_at, self.garbage, self.silent, self.hang_up_at = wrong_at, garbage, silent, hang_up_at
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.server.getsockname()[1]}"
        self.wrong = None   # (position, golden move, the move sent instead)
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        connection, _ = self.server.accept()
        golden = AskedGolden(BUDGET, PROCESSOR_DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES)
        endpoint = PlayerEndpoint(golden)
        replies = 0
        with connection:
            while True:
                message = b""
                while len(message) < 2:
                    chunk = connection.recv(2 - len(message))
                    if not chunk:
                        return
                    message += chunk
                reply = endpoint(message.decode())
                if reply is None or self.silent:
                    continue
                replies += 1
                if replies == self.hang_up_at:
                    return
                if self.garbage is not None:
                    connection.sendall(self.garbage)
                    continue
                if replies == self.wrong_at:
                    asked = golden.asked
                    others = [s for s in range(64) if legal_moves(asked.own, asked.opp) >> s & 1
                              and square_name(s) != reply]
                    self.wrong = (asked, reply, square_name(others[0]))
                    reply = self.wrong[2]
                connection.sendall(reply.encode())


def play_port(capsys, tmp_path, url, *options):
    """``gamechip play --port URL`` in this process: (exit status, stdout, stderr, record text)."""
    record = tmp_path / "record.txt"
    status = main(["play", "--port", url, "--budget", str(BUDGET), "--record", str(record), *options])
    out, err = capsys.readouterr()
    return status, out, err, record.read_text() if record.exists() else None


@pytest.mark.parametrize("color", ["black", pytest.param("white", marks=pytest.mark.full)])
def test_play_port_checks_every_reply_of_a_whole_game(color, capsys, tmp_path):
    status, out, err, record = play_port(capsys, tmp_path, ScriptedBoard().url, "--color", color)
    assert status == 0, err
    assert "final score: black" in out and "(end of game)" in out
    board_moves = re.findall(rf"^board \({color}\) (?:plays [A-H][1-8]|passes)", out, re.M)
    assert len(board_moves) > 20
    assert out.count("    A  B  C  D  E  F  G  H") == 2 * out.count(" plays ") + 2 * out.count(" passes")
    moves, score = record.splitlines()[:2]
    assert re.fullmatch(r"([a-h][1-8])+", moves) and re.fullmatch(r"black \d+ white \d+", score)
    assert f"board: {color} on socket://" in record and "result: black" in record
    game = parse_ggf((tmp_path / "record.ggf").read_text())   # the GGF record beside it, replayed by the rules
    assert "".join(m.text.lower() for m in game.moves if m.square is not None) == moves
    assert game_over(game.final) and (game.black_name if color == "black" else game.white_name).startswith("board on")


def test_play_port_stops_at_a_reply_that_differs_naming_the_position_and_both_moves(capsys, tmp_path):
    board = ScriptedBoard(wrong_at=6)
    status, out, err, record = play_port(capsys, tmp_path, board.url)
    position, golden, sent = board.wrong
    assert status == 1, err
    assert f"the board answered {sent!r}" in err and f"the golden processor plays {golden!r}" in err
    assert f"position: {position.text()}" in err
    assert "stopped: MISMATCH at the board's reply 6" in record
    assert f"X>R {sent}" in record.splitlines()[-1]


@pytest.mark.parametrize("board, expected", [
    (dict(silent=True), "no reply: no reply within 0.5 s to 'YY'"),
    (dict(garbage=b"\xff\x00junk"), "garbage: garbage from the board in reply to 'YY': '\\xff\\x00junk' "
                                      "(unknown message"),
    (dict(hang_up_at=3), "the port closed: the port closed while waiting for the reply to"),
])
def test_play_port_board_that_breaks_the_protocol_gets_one_line_and_status_3(board, expected, capsys, tmp_path):
    status, out, err, record = play_port(capsys, tmp_path, ScriptedBoard(**board).url, "--timeout", "0.5")
    assert status == 3, (out, err)
    assert f"FAIL: the board broke the protocol: {expected}" in err, err
    assert "Traceback" not in out + err
    assert "invalid move by black" in record   # the referee's verdict: II to the board, XX to its opponent
    assert "R>X II" in record and "R>O XX" in record


def test_play_port_on_a_loopback_reads_its_own_message_as_garbage(capsys, tmp_path):
    status, _, err, record = play_port(capsys, tmp_path, "loop://", "--timeout", "0.5")
    assert status == 3
    assert "garbage from the board in reply to 'YY': 'YY' ('YY' is a referee message" in err
    assert record.startswith("\nblack 2 white 2\n")


@pytest.mark.parametrize("url, expected", [
    ("/dev/gamechip-no-such-port", "cannot open the port /dev/gamechip-no-such-port"),
    ("socket://127.0.0.1:1", "cannot open the port socket://127.0.0.1:1"),
    ("nosuchscheme://x", "cannot open the port nosuchscheme://x"),
])
def test_play_port_that_cannot_be_opened_is_a_usage_error(url, expected, capsys, tmp_path):
    status, _, err, record = play_port(capsys, tmp_path, url)
    assert status == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert record is None


def test_bad_options_of_serve_and_play_port_are_one_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit:
        main(["serve", "--listen", "localhost"])
    assert exit.value.code == 2 and "expected HOST:PORT such as 127.0.0.1:5000" in capsys.readouterr().err
    taken = socket.create_server(("127.0.0.1", 0))
    with taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--listen", f"127.0.0.1:{port}"]) == 2
    in_use = f"gamechip serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert in_use in capsys.readouterr().err
    for option in (["--human", "white"], ["--baud", "9600"], ["--timeout", "5"]):
        assert main(["play", "--budget", "256", *option]) == 2
        assert f"gamechip play: error: {option[0]} needs --port" in capsys.readouterr().err
    assert main(["play", "--budget", "256", "--port", "loop://", "--sim", "verilator"]) == 2
    assert "--port plays a board" in capsys.readouterr().err


class BusyServer:
    """A server that answers every client as ``gamechip serve`` answers one that comes while
    another plays (tb.sim.socket_link.refuse)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            connection, address = self.server.accept()
            refuse(connection, address)


@pytest.mark.parametrize("color", ["black", "white"])
def test_play_port_to_a_busy_server_says_so_in_one_line_and_writes_no_record(color, capsys, tmp_path):
    status, out, err, record = play_port(capsys, tmp_path, BusyServer().url, "--color", color, "--timeout", "5")
    assert status == 4, (out, err)
    assert err.strip().splitlines()[-1] == ("gamechip play: the server is busy with another game: try again when "
                                            "it is over"), err
    assert "garbage" not in err and "FAIL" not in err and "Traceback" not in out + err
    assert record is None and not list(tmp_path.iterdir())


def test_play_port_human_names_the_humans_colour_and_the_record_names_both_sides(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))   # the human types nothing: end of input at once
    status = main(["play", "--port", ScriptedBoard().url, "--budget", str(BUDGET), "--human", "white"])
    out, err = capsys.readouterr()
    assert status == 5, err
    assert "the board on socket://" in err and "plays black" in err and "human at the terminal (white)" in err
    assert re.search(r"^board \(black\) plays [A-H][1-8]", out, re.M), out
    assert "gamechip play: the human left (end of input)" in err and "interrupted" not in err
    records = list((tmp_path / "runs").glob("*.txt"))
    assert len(records) == 1 and records[0].name.endswith(f"-budget{BUDGET}-board-black-vs-human-white.txt")
    assert "stopped: the human left (end of input)" in records[0].read_text()
    game = parse_ggf(records[0].with_suffix(".ggf").read_text())
    assert game.tags["GC"] == "stopped: the human left (end of input)" and len(game.moves) == 1 and "RE" not in game.tags


def test_play_port_human_black_plays_its_moves_then_leaves(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("d3\n"))
    status, out, err, record = play_port(capsys, tmp_path, ScriptedBoard().url, "--human", "black")
    assert status == 5, err
    assert "board: white on socket://" in record and "stopped: the human left (end of input)" in record
    assert "R>X YY" in record and "X>R D3" in record and "R>O D3" in record
    assert re.search(r"^board \(white\) plays [A-H][1-8]", out, re.M), out


def test_play_port_human_and_color_must_name_different_colours(capsys, tmp_path):
    status, _, err, record = play_port(capsys, tmp_path, "loop://", "--human", "black", "--color", "black")
    assert status == 2 and record is None
    assert err.strip() == ("gamechip play: error: --human black plays black against the board, so the board plays "
                           "white; --color black names the board's colour: leave it out"), err


def test_terminal_player_asks_again_until_a_legal_move():
    answers, said = iter(["", "z9", "a1", "d3"]), []
    player = TerminalPlayer(ask=lambda prompt: next(answers), say=said.append)
    player.reset("X")
    assert square_name(player.move(start_position())) == "D3"
    assert said[-1] == "A1 is not legal here; legal: D3 C4 F5 E6" and len(said) == 3
    blocked = parse_board("XXXXXXXX" * 7 + "XXXXXXX- O")
    player.reset("O")
    assert player.move(blocked) is None


# --- the server ---------------------------------------------------------------------------------

class Server:
    """``gamechip serve`` in a process of its own; its stderr lines in ``lines``."""

    def __init__(self, *options):
        self.process = subprocess.Popen([sys.executable, "-m", "gamechip", "serve", "--sim", "verilator", "--listen",
                                         "127.0.0.1:0", "--budget", str(BUDGET), *options],
                                        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines, self.seen = queue.Queue(), []
        threading.Thread(target=self._read, daemon=True).start()
        listening = self.wait_for(r"serve: listening on 127\.0\.0\.1:(\d+)", 900)
        self.port = int(listening.group(1))
        self.url = f"socket://127.0.0.1:{self.port}"

    def _read(self):
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, pattern, seconds=120):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError(f"no line matching {pattern!r} from gamechip serve; its lines:\n" + "\n".join(self.seen))

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=60)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


def receive(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        assert chunk, f"the server closed the connection after {data!r}"
        data += chunk
    return data


def read_all(connection):
    data = b""
    while True:
        chunk = connection.recv(4096)
        if not chunk:
            return data
        data += chunk


def test_serve_survives_bad_clients_and_plays_whole_games_checked(capsys, tmp_path):
    """Through one server: a client that disconnects mid-game, a second client while it plays,
    garbage, then a whole game of each colour through play --port with every reply checked; Ctrl-C
    ends the server with one line."""
    server = Server("--records", str(tmp_path / "served"))
    try:
        golden = PlayerEndpoint(GoldenProcessor(BUDGET, PROCESSOR_DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES))
        first = server.connect()
        first.sendall(b"YY")
        assert receive(first, 2) == golden("YY").encode()
        server.wait_for(r"game 1: YY -> [A-H][1-8] \(book; ")
        with server.connect() as second:   # while the first client plays
            second.sendall(b"YY")
            assert read_all(second) == (b"gamechip serve: busy: another client is playing; try again when its "
                                        b"game is over\n")
        server.wait_for(r"client 127\.0\.0\.1:\d+ refused: busy with another client")
        status, _, err, record = play_port(capsys, tmp_path, server.url)   # the same through play --port
        assert status == 4 and "gamechip play: the server is busy with another game: try again" in err, err
        assert record is None
        server.wait_for(r"refused: busy with another client")
        first.close()   # mid-game
        server.wait_for(r"game 1: over: the client disconnected; 1 replies")
        with server.connect() as rubbish:
            rubbish.sendall(b"D3\x00hello")
            said = read_all(rubbish)
        assert said.startswith(b"gamechip serve: garbage byte 0x00 from the client"), said
        server.wait_for(r"game 2: over: garbage from the client \(byte 0x00\)")
        for game, color in ((3, "black"), (4, "white")):
            status, out, err, record = play_port(capsys, tmp_path, server.url, "--color", color, "--timeout", "120")
            assert status == 0, err
            assert "final score: black" in out and "(end of game)" in out
            assert f"board: {color} on {server.url}" in record
            server.wait_for(rf"game {game}: over: the client disconnected; \d\d replies")
            served = parse_ggf(Path(server.wait_for(rf"game {game}: record: (\S+)").group(1)).read_text())
            assert "".join(m.text.lower() for m in served.moves if m.square is not None) == record.splitlines()[0]
            assert game_over(served.final)
    finally:
        server.stop()
    assert server.process.returncode == 130
    assert server.wait_for(r"^gamechip serve: interrupted$", 10)


# --- gamechip nboard --port: the board as an NBoard engine -----------------------------------------

def nboard_on_board(board, lines, timeout=5):
    """An NBoard session with the board ``board`` (ScriptedBoard) as the engine's backend."""
    from gamechip.games.nboard import BoardBackend, NBoardEngine
    from gamechip.games.port import open_port

    out, err = [], []
    backend = BoardBackend(open_port(board.url, 115_200, timeout), BUDGET, PROCESSOR_DEPTH_LIMIT, timeout, err.append)
    return NBoardEngine(backend, out.append, err.append).run(lines), out, err


def opening_of_the_board():
    """The board's first move as black (the golden processor's), a legal answer of white, and the
    board's reply to it."""
    from golden.othello import play

    golden = PlayerEndpoint(GoldenProcessor(BUDGET, PROCESSOR_DEPTH_LIMIT, solve_empties=PROCESSOR_SOLVE_EMPTIES))
    first = golden("YY")
    position = play(start_position(), parse_square(first))
    white = square_name(next(s for s in range(64) if legal_moves(position.own, position.opp) >> s & 1))
    return first, white, golden(white)


def test_nboard_port_plays_the_boards_game_move_by_move_every_reply_checked():
    first, white, second = opening_of_the_board()
    status, out, err = nboard_on_board(ScriptedBoard(), [
        "nboard 2", "set game (;GM[Othello];)", "go", f"move {first}", f"move {white}", "go",
        "set game (;GM[Othello]B[F5]W[F6];)", "go"])
    assert status == 0, err
    assert out[2].startswith(f"=== {first}/") and out[4].startswith(f"=== {second}/"), out
    # a game the board's does not continue: the golden processor answers, said on stderr
    assert err == ["gamechip nboard: the board plays one game from the start and cannot take moves back: the golden "
                   "processor answers this position"]
    assert out[6].startswith("=== ")


def test_nboard_port_stops_at_a_reply_that_differs():
    first, white, _ = opening_of_the_board()
    status, out, err = nboard_on_board(ScriptedBoard(wrong_at=2), [
        "set game (;GM[Othello];)", "go", f"move {first}", f"move {white}", "go", "go"])
    assert status == 1 and len(out) == 2 and out[1].startswith(f"=== {first}/"), (out, err)
    assert "MISMATCH at the board's reply 2" in err[-1] and "the golden processor plays" in err[-1], err


def test_nboard_port_stops_with_the_status_of_a_broken_or_busy_board():
    status, out, err = nboard_on_board(ScriptedBoard(silent=True), ["set game (;GM[Othello];)", "go", "go"], 0.5)
    assert status == 3 and out == [] and err == ["gamechip nboard: the board broke the protocol: no reply within 0.5 s "
                                                 "to 'YY'"], err
    status, out, err = nboard_on_board(BusyServer(), ["set game (;GM[Othello];)", "go"])
    assert status == 4 and out == [] and err == ["gamechip nboard: the server is busy with another game: try again "
                                                 "when it is over"], err
