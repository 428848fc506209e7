"""The TCP side of ``gamechip serve``: one client at a time, its bytes for the processor's rx
pin and the processor's tx bytes back to it. Pure Python (threads and sockets, no cocotb): the
UART side is tb/sim/uart_bridge.py, which runs it inside the simulator.

A listener thread accepts every connection. The first becomes the client of the next game; one
that arrives while a game has its client is told ``gamechip serve: busy ...`` on one line and
closed (:func:`refuse`). A reader thread per client puts each byte it sends into a queue, then
:data:`DISCONNECTED` when it closes. Lines the server writes to a client (busy, garbage) start
with :data:`SERVE_LINE`, as do its progress lines on stdout, which the host relays to stderr.
"""

import queue
import socket
import threading
import time

SERVE_LINE = "gamechip serve: "
# the line a client gets when another client's game is on (a referee recognises it by this start)
BUSY_LINE = SERVE_LINE + "busy: "
# the simulation's settings (environment): the address, and how many games before it stops (0: never)
SERVE_LISTEN = "GAMECHIP_SERVE_LISTEN"
SERVE_GAMES = "GAMECHIP_SERVE_GAMES"
SERVE_RECORDS = "GAMECHIP_SERVE_RECORDS"   # where each game's GGF record goes
# what a referee sends (docs/spec.md §8): files, ranks and the code letters of YY RR II XX
REFEREE_BYTES = frozenset(b"ABCDEFGH12345678YRIX")
# typed at a terminal (nc): passed on to rx, where the processor drops them as it drops any noise
SPACING_BYTES = frozenset(b" \t\r\n")
DISCONNECTED = None   # in a client's queue: it closed the connection
# A connection the server ends is half-closed first and read until the client closes too, for at
# most this long: closing with unread bytes from the client would reset the connection, and the
# client could lose the server's last line.
LINGER_SECONDS = 2.0


def end_connection(connection):
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    connection.close()


def refuse(connection, address):
    """Tell a client that came while another plays that the server is busy, and close. The line
    goes out once the client has sent something (a referee speaks first; pyserial's socket://
    drops what arrives while it opens the port) or after LINGER_SECONDS; then the connection is
    half-closed and read until the client closes too (at most LINGER_SECONDS more)."""
    serve_line(f"client {address[0]}:{address[1]} refused: busy with another client")
    try:
        connection.settimeout(LINGER_SECONDS)
        try:
            connection.recv(4096)
        except socket.timeout:
            pass
        connection.sendall(f"{BUSY_LINE}another client is playing; try again when its game is over\n".encode())
        connection.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + LINGER_SECONDS
        while time.monotonic() < deadline and connection.recv(4096):
            pass
    except OSError:
        pass
    end_connection(connection)


def serve_line(text):
    """A progress line for the host (gamechip serve prints it on stderr)."""
    print(SERVE_LINE + text, flush=True)


def printable(data):
    """Bytes as one printable line: the text when it is printable ASCII, else its escaped form."""
    text = bytes(data).decode("latin-1")
    return text if text.isascii() and text.isprintable() else ascii(text)


def is_garbage(byte):
    """A byte no referee sends: the client is not a referee, and its game ends."""
    return byte not in REFEREE_BYTES and byte not in SPACING_BYTES


class Client:
    """One connected client: ``incoming`` holds its bytes (ints) in order, then DISCONNECTED."""

    def __init__(self, connection, address):
        self.connection = connection
        # each tx byte goes out as it is decoded: without this, Nagle's algorithm holds a reply's
        # second byte until the client acknowledges the first (delayed: tens of milliseconds)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.name = f"{address[0]}:{address[1]}"
        self.incoming = queue.Queue()
        self.open = True
        threading.Thread(target=self._read, daemon=True, name=f"client {self.name}").start()

    def _read(self):
        while True:
            try:
                data = self.connection.recv(4096)
            except OSError:
                data = b""
            if not data:
                self.incoming.put(DISCONNECTED)
                if not self.open:
                    end_connection(self.connection)
                return
            for byte in data:
                self.incoming.put(byte)

    def next_byte(self, wait):
        """The client's next byte, DISCONNECTED, or (``wait`` False and nothing there) ``...``."""
        try:
            return self.incoming.get(block=wait)
        except queue.Empty:
            return ...

    def send(self, data):
        """Write to the client; a client that went away is noticed by the reader, not here."""
        if self.open:
            try:
                self.connection.sendall(data)
            except OSError:
                pass

    def say(self, text):
        """One line of the server's own to the client."""
        self.send((SERVE_LINE + text + "\n").encode())

    def close(self):
        """Half-close; the reader goes on until the client closes too, at most LINGER_SECONDS."""
        self.open = False
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        timer = threading.Timer(LINGER_SECONDS, end_connection, (self.connection,))
        timer.daemon = True
        timer.start()


class Listener:
    """The listening socket at ``host``:``port`` (0: any free port; ``address`` is the real one)
    and the thread that accepts its connections."""

    def __init__(self, host, port):
        self.socket = socket.create_server((host, port))
        self.address = self.socket.getsockname()[:2]
        self.waiting = queue.Queue(maxsize=1)
        self.lock = threading.Lock()
        self.busy = False
        threading.Thread(target=self._accept, daemon=True, name="listener").start()

    def _accept(self):
        while True:
            connection, address = self.socket.accept()
            with self.lock:
                refused, self.busy = self.busy, True
            if refused:
                threading.Thread(target=refuse, args=(connection, address), daemon=True, name="refuse").start()
                continue
            self.waiting.put(Client(connection, address))

    def next_client(self):
        """Wait for the next game's client (blocks the caller: the simulation waits meanwhile)."""
        return self.waiting.get()

    def release(self, client):
        """The game of ``client`` is over: close it, and let the next one in."""
        client.close()
        with self.lock:
            self.busy = False
