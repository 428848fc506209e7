"""Subprocesses that can be killed with everything they started, and the Dask cluster helpers
that campaigns (gamechip/campaign/), tournaments (gamechip/games/play.py) and mutation runs
(gamechip/mutation/) share.

A long task (a campaign shard, a tournament game) runs as a Python subprocess in a session of
its own (``run_killable``), so killing its process group takes its simulator with it: on a
timeout, when the local run stops (``stop_all``), or on a Dask worker when the run that
submitted the task stops (``stop_tokens``, sent to every worker by ``stop_cluster_tasks``).
A long run takes SIGINT and SIGTERM as a request to stop, which it honours at a point of its own
choosing (``StopSignals``), so that a burst of signals cannot cut its stop short.
"""

import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gamechip.installation import require

ROOT = Path(__file__).resolve().parents[1]

_LIVE = {}  # subprocess -> the token of its task, for the subprocesses running in this process
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()  # the local run is stopping: kill every subprocess
_STOPPED = set()  # tokens of cluster tasks whose run stopped: kill their subprocesses


class ClusterError(Exception):
    """The cluster cannot be used (a bad address, no scheduler answering, no 'distributed'
    package): the command prints it as one line, exit status 2."""


def kill_process_group(pid):
    """Kill the process group led by ``pid`` (a process and everything it started), if any."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(proc):
    kill_process_group(proc.pid)  # the subprocess is the leader of its own group
    proc.wait()


def stop_all():
    """Kill every subprocess run_killable runs in this process, with its children, and any
    started later, until clear_stop."""
    _STOPPING.set()
    with _LIVE_LOCK:
        running = list(_LIVE)
    for proc in running:
        _kill(proc)


def clear_stop():
    """Let run_killable run subprocesses again: the run that called stop_all has ended."""
    _STOPPING.clear()


def stop_tokens(tokens):
    """On a Dask worker (``Client.run``): kill the subprocesses of the tasks ``tokens`` of a
    stopped run, and any of them that has not started yet as soon as it starts."""
    with _LIVE_LOCK:
        _STOPPED.update(tokens)
        running = [proc for proc, token in _LIVE.items() if token in _STOPPED]
    for proc in running:
        _kill(proc)
    return len(running)


def _stopped(token):
    return _STOPPING.is_set() or token in _STOPPED


LAUNCHER = "GAMECHIP_LAUNCHER_PID"   # the pid of the process whose run_killable started a subprocess


def run_killable(args, token, timeout, log, pass_fds=()):
    """Run ``args`` (a Python module of this project, from ROOT) in its own session, output to
    the open file ``log``, killed with its children on ``timeout`` or when its run stops
    (stop_all here, stop_tokens(token) on a Dask worker). (returncode, timed_out, interrupted)."""
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": pythonpath, LAUNCHER: str(os.getpid())}
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, pass_fds=pass_fds)
    with _LIVE_LOCK:
        _LIVE[proc] = token
    try:
        if _stopped(token):
            _kill(proc)
        proc.wait(timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill(proc)
        timed_out = True
    finally:
        with _LIVE_LOCK:
            _LIVE.pop(proc, None)
    interrupted = _stopped(token) and not timed_out and proc.returncode == -signal.SIGKILL
    return proc.returncode, timed_out, interrupted


def output_lines(processes):
    """Every line the ``processes`` write to their stdout pipes (opened in text mode), as each
    arrives, until all of the pipes are closed: the results of worker processes read in the order
    they finish."""
    selector = selectors.DefaultSelector()
    for process in processes:
        selector.register(process.stdout, selectors.EVENT_READ)
    open_streams = len(processes)
    while open_streams:
        for key, _ in selector.select():
            line = key.fileobj.readline()
            if not line:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            yield line


def die_with_parent():
    """In a subprocess of run_killable: die with the launcher, so a run killed with ``kill -9``
    leaves no simulator behind. The launcher's pid comes from run_killable (LAUNCHER): a
    subprocess that starts after its launcher died has been handed to another parent already,
    and dies at once."""
    parent = int(os.environ.get(LAUNCHER, os.getppid()))

    def watch():
        while True:
            if os.getppid() != parent:
                os.killpg(0, signal.SIGKILL)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True).start()


CLUSTER_ADDRESS = re.compile(r"^tcp://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.\-_]+):(\d{1,5})$")


def check_cluster_address(address):
    """ClusterError unless ``address`` is tcp://HOST:PORT."""
    match = CLUSTER_ADDRESS.match(address)
    if not match or not 0 < int(match.group(2)) < 65536:
        raise ClusterError(f"bad cluster address '{address}': expected tcp://HOST:PORT, "
                           "the address of a Dask distributed scheduler")


def connect_cluster(address):
    """A Dask client of the scheduler at ``address`` and one line saying what it has; raises
    ClusterError (one line for the user) when the address is bad or nobody answers."""
    check_cluster_address(address)
    require("cluster", "--cluster")
    from distributed import Client

    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}")
    threads = client.nthreads()
    return client, f"Dask cluster {address} ({len(threads)} workers, {sum(threads.values())} threads)"


def stop_cluster_tasks(client, futures, what):
    """Cancel ``futures`` and kill, on every worker, the subprocesses (run_killable) of those
    already running; a failure to reach the workers is one line on stderr."""
    for future in futures:
        future.cancel()
    try:
        client.run(stop_tokens, [future.key for future in futures])
    except Exception as error:
        print(f"{what}: could not stop the tasks running on the cluster: {error}", file=sys.stderr)


class StopSignals:
    """SIGINT and SIGTERM while a long run works (``install`` to ``uninstall``, in the main
    thread): a signal only notes that the run must stop (``received``, the first one's name) and
    calls ``wake()``, which must be safe inside a signal handler (``queue.SimpleQueue.put``); the
    run stops at a point of its own choosing. Raising KeyboardInterrupt at whatever line the
    main thread is on instead would cut the stop itself short when the signal comes again
    milliseconds later, as a terminal or ``timeout`` sends it (a lock released twice, a
    journal line half-written, the resume command never printed).

    A run that was stopped keeps both signals ignored after ``uninstall``: its process is on
    its way out, and one more press must not turn that into a traceback. A run started with
    SIGINT ignored (in the background of a script, under nohup) leaves SIGINT ignored."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, wake):
        self.wake = wake
        self.received = None
        self.previous = {}

    def _note(self, signum, frame):
        if self.received is None:
            self.received = signal.Signals(signum).name
        self.wake()

    def install(self):
        for signum in self.SIGNALS:
            self.previous[signum] = signal.getsignal(signum)
            if not (signum == signal.SIGINT and self.previous[signum] == signal.SIG_IGN):
                signal.signal(signum, self._note)

    def uninstall(self):
        for signum, previous in self.previous.items():
            signal.signal(signum, signal.SIG_IGN if self.received else previous)
