"""``gamechip serve``: the simulated processor behind a TCP port, so that ``gamechip play --port
socket://HOST:PORT`` (gamechip/games/port.py) referees it through the code path of a board on a
serial port.

The simulation is tb/sim/uart_bridge.py's cocotb test on the processor's clocked harness (the
clock in HDL), in the build folder and with the Verilator flags of the processor's own bench
(tb/host/processor_bench.py ``run_processor_bench`` with its default tag): below
OPTIMISED_FROM_BUDGET cycles a move the regression's -O0 model, so that the regression builds the
processor once for both; from it the optimised model. Its progress lines (tb/sim/socket_link.py
``SERVE_LINE``) are relayed to stderr as they come.
"""

import logging
import socket
import sys
from pathlib import Path

from rtl.designs import PROCESSOR_DIVISOR
from tb.host import runner
from tb.host.processor_bench import OPTIMISED_FROM_BUDGET
from tb.sim.socket_link import SERVE_GAMES, SERVE_LINE, SERVE_LISTEN, SERVE_RECORDS

DESIGN = "processor"
BENCH = "tb.sim.uart_bridge"


def build_tag(optimised):
    """run_processor_bench's tags (processor-<sim>-cocotb<N>-<tag>-<digest>): the regression's
    clocked build, or its optimised one."""
    return "optimised-clocked" if optimised else "clocked"


class ServeError(RuntimeError):
    """The server could not start or its simulation broke (the message says where the log is)."""


def check_listen(host, port):
    """UsageError-worthy problems of the address, found before the simulation starts: a host
    that does not resolve, a port in use. Returns None or the reason."""
    try:
        probe = socket.create_server((host, port))
    except OSError as error:
        return f"cannot listen on {host}:{port}: {error.strerror or error}"
    probe.close()
    return None


class _Relay(logging.Handler):
    """The simulator's SERVE_LINE lines, on stderr as they arrive."""

    def emit(self, record):
        text = record.getMessage()
        if SERVE_LINE in text:
            print("serve: " + text[text.index(SERVE_LINE) + len(SERVE_LINE):], file=sys.stderr, flush=True)


def serve(sim, host, port, budget, games=0, rtl_root=None, records=None):
    """Run the server until ``games`` games are over (0: until interrupted); 0 when they were,
    ServeError when the simulation could not start or broke. ``records``: the folder of each
    game's GGF record."""
    env = {SERVE_LISTEN: f"{host}:{port}", "GAMECHIP_PROC_BUDGET": str(budget), SERVE_GAMES: str(games)}
    if records:
        env[SERVE_RECORDS] = str(Path(records).resolve())
    optimised = budget >= OPTIMISED_FROM_BUDGET
    build = "the optimised build" if optimised else "the regression's build"
    first = "; a first Verilator build takes 1-3 minutes" if sim == "verilator" else ""
    print(f"serve: starting the processor on {sim} ({build}, UART divisor {PROCESSOR_DIVISOR}{first}) ...",
          file=sys.stderr, flush=True)
    relay = _Relay()
    logger = logging.getLogger("cocotb")
    logger.addHandler(relay)
    try:
        outcome = runner.run_design(DESIGN, sim, BENCH, ["serve"], env=env, tag=build_tag(optimised), clocked=True,
                                    quick_build=not optimised, short_run=True, quiet=True, rtl_root=rtl_root)
    finally:
        logger.removeHandler(relay)
    log = outcome.sim_dir / "gamechip.log"
    if not outcome.simulator_ran:
        raise ServeError(f"the processor did not build for {sim}:\n{outcome.log_excerpt()}\nlog: {log}")
    if not outcome.passed:
        raise ServeError(f"the server's simulation stopped:\n{outcome.log_excerpt()}\nlog: {log}")
    return 0
