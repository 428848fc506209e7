"""Where each vector of a batch sits in simulated time, so a waveform can be opened at the exact
vector and clock cycle a check rejected.

Everything here follows the harness text that tb/host/harness.py generates (Verilog and VHDL alike):

* a batch starts when ``go`` rises (time ``go``);
* it primes the inputs: all ones for 1 ns, zero for 1 ns (``PRIME_NS``);
* combinational blocks: vector *k* is applied at ``go + PRIME_NS + k`` ns and its outputs are
  written 1 ns later (``SETTLE_NS``), in the same time step as vector *k+1* is applied;
* start/done blocks: a reset of two clock ticks (``RESET_NS``), then per vector ``start`` is held
  for one tick and every cycle is ``SETTLE_NS`` + one tick long: cycle *c* of a vector whose
  ``start`` rose at *s* is clocked in at ``s + HALF_PERIOD_NS - 1 + c * CYCLE_NS`` (the rising
  edge) and written at ``s + TICK_NS + SETTLE_NS + c * CYCLE_NS``; the next vector's ``start``
  rises IDLE_GAPS[k % 8] cycles after vector k's last cycle is written (request/reply blocks: at once).

So the time of any vector follows from the number of response lines (cycles) of each vector
before it, which the harness wrote to ``batch_out.txt``. tests/test_failure_views.py checks the
model against real dumps: the dumped outputs at every modelled sample time equal the response
lines.
"""

from dataclasses import dataclass
from typing import Optional

from tb.host.harness import HALF_PERIOD_NS, IDLE_GAPS, IDLE_MARK

PRIME_NS = 2  # '#1' after driving all ones, '#1' after driving zeros
SETTLE_NS = 1  # '#1' between applying a vector (or a clock edge) and writing its outputs
TICK_NS = 2 * HALF_PERIOD_NS - 1  # task tick: '#(HALF_PERIOD_NS-1) clk = 1; #HALF_PERIOD_NS clk = 0'
RESET_NS = 2 * TICK_NS  # 'rst = 1; tick; tick; rst = 0'
CYCLE_NS = TICK_NS + SETTLE_NS  # one response line of a start/done block
READY_NS = 1  # 'ready = 1; #1 ready = 0'


@dataclass(frozen=True)
class Sample:
    """One response line of the batch: when its values appear and when the harness wrote them."""

    vector: int
    cycle: Optional[int]  # None for combinational blocks
    shown_ns: float  # the inputs were applied (combinational) or the clock edge came (start/done)
    written_ns: float  # the harness wrote the line


def vector_cycles(response_lines, sequential, request=False):
    """Response lines -> cycles of each vector (1 per vector for combinational blocks): a
    start/done harness begins every vector's lines again at cycle 0; a request/reply harness
    writes one line per vector, its cycle count first (its timing is a start/done vector's with
    that many lines: a tick, then a 1 ns settle before each check and a tick after each miss)."""
    if not sequential:
        return [1] * len(response_lines)
    if request:
        return [int(line.split()[0], 16) for line in response_lines if line.split()]
    counts = []
    for line in response_lines:
        fields = line.split()
        if fields and _is_idle(fields[0]):
            continue   # a done in the idle cycles after a vector: not one of its cycles
        if fields and _is_zero(fields[0]):
            counts.append(0)
        if counts:
            counts[-1] += 1
    return counts


def _is_idle(field):
    try:
        return int(field, 16) >= IDLE_MARK
    except ValueError:
        return False


def _is_zero(field):
    try:
        return int(field, 16) == 0
    except ValueError:
        return False


def samples(go_ns, cycles, sequential, request=False):
    """Every response line of a batch that started at ``go_ns`` (ns), as Samples."""
    out = []
    if not sequential:
        for vector in range(len(cycles)):
            applied = go_ns + PRIME_NS + vector
            out.append(Sample(vector, None, applied, applied + SETTLE_NS))
        return out
    start = go_ns + PRIME_NS + RESET_NS
    for vector, count in enumerate(cycles):
        for cycle in range(count):
            edge = start + HALF_PERIOD_NS - 1 + cycle * CYCLE_NS
            out.append(Sample(vector, cycle, edge, start + TICK_NS + SETTLE_NS + cycle * CYCLE_NS))
        start += (count + _idle(vector, request)) * CYCLE_NS
    return out


def _idle(vector, request):
    return 0 if request else IDLE_GAPS[vector % len(IDLE_GAPS)]


def batch_length_ns(cycles, sequential, request=False):
    """From ``go`` rising to ``ready`` rising."""
    if not sequential:
        return PRIME_NS + len(cycles) * SETTLE_NS
    return PRIME_NS + RESET_NS + sum(count + _idle(k, request) for k, count in enumerate(cycles)) * CYCLE_NS


def replay_go_times(cycles, sequential, batches=2, request=False):
    """When ``go`` rises in a replay, if the dump cannot tell: the bench (tb.sim.batch.run_replay)
    runs the case ``batches`` times, each run raising ``go`` 1 ns after it starts and 1 ns after
    the previous batch's ``ready`` (cocotb's Timer(1, "ns") in BatchTB.run); time starts at 0."""
    times, now = [], 0
    for _ in range(batches):
        now += 1
        times.append(now)
        now += batch_length_ns(cycles, sequential, request)
    return times


def failing_sample(all_samples, vector, cycle=None):
    """The Sample of ``vector`` at ``cycle`` (default: its last cycle, the one with ``done``)."""
    lines = [s for s in all_samples if s.vector == vector]
    if not lines:
        return None
    if cycle is None:
        return lines[-1]
    return next((s for s in lines if s.cycle == cycle), lines[-1])
