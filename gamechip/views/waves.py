"""The waveform of a replayed case: read it, find the failing vector in it, and write a GTKWave
save file and a picture of the signal window around it.

Dumps are read with pywellen (VCD from Icarus, FST from Verilator, GHW from GHDL alike). The
harness (tb/host/harness.py) is the top level of every dump and the block's ports are harness
signals of the same names, so the signals shown are the harness's: ``go``/``ready`` and the
clock, reset, start and done of start/done blocks ("control"), the block's inputs and its
outputs. Where the failing vector sits in time comes from tb/host/timeline.py (the harness's timing)
and the batch's response file; the batch's start is the last rising edge of ``go`` in the dump
(the replay's checking run), or the timing model alone when the dump cannot be read.
"""

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from gamechip.views.drawing import MONO_CHAR_WIDTH, Canvas, fit_text
from tb.host import timeline
from tb.host.harness import OUT_FILE, harness_name

CONTROL = ("go", "ready", "clk", "rst", "start", "done")
GROUPS = ("control", "inputs", "outputs")
# Time units per ns of each simulator's dump, for when the dump itself cannot be read.
UNITS_PER_NS = {".vcd": 1000, ".fst": 1000, ".ghw": 1_000_000}


class WaveError(Exception):
    """Something a picture or save file needs is missing: one line for the user."""


# --- the signals -------------------------------------------------------------------------------

@dataclass
class Trace:
    name: str  # the port (harness signal) name
    group: str  # control, inputs, outputs
    width: int
    changes: list = None  # [(time in dump units, value)] once read from the dump
    radix: str = "hex"  # how a bus reads: hex, dec or signed (see port_radix)


def port_radix(design, name, width):
    """How a port's value reads best: a board-sized vector is a set of squares (hex, a bit per
    square); every other bus is a number (a count, a term, a square index, a value): decimal,
    signed where the port is two's complement."""
    from rtl.designs import SIGNED, SIZE

    if width == SIZE[design] ** 2:
        return "hex"
    return "signed" if name in SIGNED.get(design, ()) else "dec"


def design_trace(design, name, group, width):
    return Trace(name, group, width, radix=port_radix(design, name, width))


def harness_traces(design):
    """The harness signals worth showing for ``design``, grouped, in port order."""
    from rtl.designs import PORTS

    ports = PORTS[design]
    present = {name for name, _, _ in ports} | {"go", "ready"}
    traces = [Trace(name, "control", 1) for name in CONTROL if name in present]
    traces += [design_trace(design, n, "inputs", w) for n, w, d in ports if d == "in" and n not in CONTROL]
    traces += [design_trace(design, n, "outputs", w) for n, w, d in ports if d == "out" and n not in CONTROL]
    return traces


def is_request(design):
    """A request/reply block (the chess blocks): one response line per request."""
    from rtl.designs import PORTS
    from tb.host.harness import reply_port

    return reply_port(PORTS[design]) is not None


def is_sequential(design):
    from rtl.designs import PORTS

    return any(name == "clk" for name, _, _ in PORTS[design])


class Dump:
    """One waveform file, read with pywellen."""

    def __init__(self, path):
        try:
            import pywellen
        except ImportError:
            raise WaveError("the Python package pywellen is not installed (pip install pywellen): "
                            "cannot read the waveform")
        try:
            self.wave = pywellen.Waveform(str(path))
        except Exception as error:  # pywellen raises its own exception types
            raise WaveError(f"pywellen cannot read {path}: {error}")
        self.path = Path(path)
        self.format = str(self.wave.file_format)
        timescale = self.wave.timescale
        self.units_per_ns = 10 ** (-9 - timescale.unit.to_exponent()) / timescale.factor
        # GTKWave counts time in the timescale's unit (it multiplies a VCD's '10 ps' steps by 10)
        self.viewer_units_per_ns = 10 ** (-9 - timescale.unit.to_exponent())

    def read(self, top, traces):
        """Fill in the changes of ``traces`` from the harness scope ``top``; return the traces
        the dump holds."""
        found = {var.name: var for var in self.wave.all_vars() if var.full_name == f"{top}.{var.name}"}
        held = []
        for trace in traces:
            if trace.name in found:
                trace.changes = _last_per_time(list(found[trace.name].signal))
                held.append(trace)
        return held

    def last_change_ns(self, traces):
        """The last time any of ``traces`` (read) changes: where the dump ends, for them."""
        return max((trace.changes[-1][0] for trace in traces if trace.changes), default=0) / self.units_per_ns

    def rising_edges_ns(self, trace):
        edges, previous = [], None
        for time, value in trace.changes or ():
            if value == 1 and previous != 1:
                edges.append(time / self.units_per_ns)
            previous = value
        return edges


def _last_per_time(changes):
    """GHW dumps start with 'u' and the initial value at the same time: keep the last."""
    out = []
    for time, value in changes:
        if out and out[-1][0] == time:
            out[-1] = (time, value)
        else:
            out.append((time, value))
    return out


def gtkwave_name(dump_format, top, trace):
    """The name GTKWave gives a harness signal: GHW hierarchies hang under 'top', vectors carry
    their range."""
    prefix = "top." if dump_format == "GHW" else ""
    return f"{prefix}{top}.{trace.name}" + (f"[{trace.width - 1}:0]" if trace.width > 1 else "")


def save_file_path(waveform, top):
    """The GTKWave save file of ``waveform``: beside it, named after the top level
    (``batch_move_checker.gtkw``) whatever the simulator named the dump (Verilator: dump.fst)."""
    return Path(waveform).parent / f"{top}.gtkw"


# --- where the failing vector is -------------------------------------------------------------

# The window around the failing sample: (before, after) in clock cycles for start/done blocks, in
# vectors for combinational ones, cut to the batch (go rising to ready falling).
WINDOW_CYCLES = (4, 3)
WINDOW_VECTORS = (8, 8)


@dataclass
class Located:
    sample: timeline.Sample  # the failing vector / cycle
    start_ns: float  # the window shown
    end_ns: float
    source: str  # 'dump' (go edge read from the waveform) or 'timing model'
    known: bool = True  # False: the failing vector is not known, the marker is on the first one
    dump_end_ns: Optional[float] = None  # the dump's last time, when known (a viewer cannot scroll past it)
    passed: bool = False  # the replay passed: the marker is where the saved failure was, and nothing differs

    @property
    def label(self):
        cycle = f", cycle {self.sample.cycle}" if self.sample.cycle is not None else ""
        where = f"vector {self.sample.vector}{cycle}"
        if self.passed:
            return f"{where} at {self.sample.shown_ns:g} ns, where the saved failure was; passes now"
        return f"{'failing ' if self.known else ''}{where} at {self.sample.shown_ns:g} ns"


def locate(design, sim_dir, vector, cycle, go_edges_ns=None):
    """The failing vector's Sample and a window around it, from the replay's response file and
    the rising edges of ``go`` (read from the dump; None: modelled). ``vector`` None: unknown,
    show the first."""
    known, vector = vector is not None, vector or 0
    response = Path(sim_dir) / OUT_FILE
    if not response.exists():
        raise WaveError(f"no response file {response}: the replay did not run the case to the end")
    sequential = is_sequential(design)
    cycles = timeline.vector_cycles(response.read_text().splitlines(), sequential, is_request(design))
    if not cycles:
        raise WaveError(f"the response file {response} is empty")
    source = "dump" if go_edges_ns else "timing model"
    request = is_request(design)
    go_ns = (go_edges_ns or timeline.replay_go_times(cycles, sequential, request=request))[-1]
    sample = timeline.failing_sample(timeline.samples(go_ns, cycles, sequential, request), vector, cycle)
    if sample is None:
        raise WaveError(f"the case has no vector {vector} in {response}")
    ready_ns = go_ns + timeline.batch_length_ns(cycles, sequential, request)  # the replay ends when ready rises
    end_of_batch = ready_ns + timeline.READY_NS
    before, after = (WINDOW_CYCLES if sequential else WINDOW_VECTORS)
    step = timeline.CYCLE_NS if sequential else timeline.SETTLE_NS  # one cycle, or one vector
    start = max(go_ns - 0.5, sample.shown_ns - before * step)
    end = min(end_of_batch + 0.5, sample.shown_ns + after * step)
    return Located(sample, start, end, source, known, dump_end_ns=ready_ns)


# --- GTKWave save file -------------------------------------------------------------------------

# The window GTKWave opens (gtkwave 3.3): [size] is the main window; the signal tree and the
# signal names take [sst_width] and [signals_width] of it and borders the rest, which leaves
# GTKWAVE_WAVE_PX pixels for the waves (measured under Xvfb, and checked there by
# tests/test_failure_views.py). 1280 pixels fit most screens.
GTKWAVE_SIZE = (1280, 700)
GTKWAVE_SST_WIDTH, GTKWAVE_SIGNALS_WIDTH = 220, 240
GTKWAVE_WAVE_PX = 740
GTKWAVE_FIT = 0.75  # the located window fills this part of the wave area, centred
# A trace's display flags (GTKWave's TR_* bits: 0x20 right-justified, 0x2 hex, 0x4 decimal,
# 0x8 binary, 0x400 signed)
GTKWAVE_FLAGS = {"bit": "@28", "hex": "@22", "dec": "@24", "signed": "@424"}


def gtkwave_view(located, units_per_ns):
    """([timestart], zoom) in GTKWave's terms for the window of ``located``.

    GTKWave shows 2**-zoom time units per 200 pixels (its calczoom), and honours [timestart]
    only if a whole page from there ends inside the dump, so near the dump's end (the replay
    stops right after the failing vector) the page is moved left to end with the dump."""
    span_ns = max(located.end_ns - located.start_ns, 1 / units_per_ns)
    ns_per_px = span_ns / (GTKWAVE_FIT * GTKWAVE_WAVE_PX)
    units_per_frame = ns_per_px * units_per_ns * 200
    if units_per_frame < 1:  # GTKWave's closest zoom: one time unit per 200 pixels
        units_per_frame, ns_per_px = 1, 1 / (units_per_ns * 200)
    page_ns = GTKWAVE_WAVE_PX * ns_per_px
    start_ns = located.start_ns - (page_ns - span_ns) / 2
    if located.dump_end_ns is not None:  # a few pixels to spare: GTKWave compares in single precision
        start_ns = min(start_ns, max(located.dump_end_ns, located.sample.shown_ns) - page_ns * 1.03)
    return max(0, math.floor(start_ns * units_per_ns)), -math.log2(units_per_frame)


def gtkw_text(dump_path, save_path, dump_format, top, traces, located, units_per_ns, title):
    """A GTKWave save file: the traces in groups (buses in their radix), the window around the marker.
    ``units_per_ns``: GTKWave's time units (the dump's timescale unit) per ns."""
    start, zoom = gtkwave_view(located, units_per_ns)
    marker = round(located.sample.shown_ns * units_per_ns)
    tree = ("top." if dump_format == "GHW" else "") + top + "."
    lines = ["[*]", f"[*] {title}", f"[*] marker: {located.label}", "[*]",
             f'[dumpfile] "{Path(dump_path).resolve()}"', f'[savefile] "{Path(save_path).resolve()}"',
             f"[timestart] {start}", f"[size] {GTKWAVE_SIZE[0]} {GTKWAVE_SIZE[1]}", "[pos] -1 -1",
             f"*{zoom:.6f} {marker} " + " ".join(["-1"] * 26),
             f"[treeopen] {tree}", f"[sst_width] {GTKWAVE_SST_WIDTH}", f"[signals_width] {GTKWAVE_SIGNALS_WIDTH}",
             "[sst_expanded] 1", "[sst_vpaned_height] 200"]
    for group in GROUPS:
        members = [t for t in traces if t.group == group]
        if not members:
            continue
        lines += ["@800200", f"-{group}"]
        for trace in members:
            lines += [GTKWAVE_FLAGS["bit" if trace.width == 1 else trace.radix], gtkwave_name(dump_format, top, trace)]
        lines += ["@1000200", f"-{group}"]
    lines += ["[pattern_trace] 1", "[pattern_trace] 0"]
    return "\n".join(lines) + "\n"


# --- the signal window picture -----------------------------------------------------------------

NAME_WIDTH, VALUE_WIDTH = 130, 150  # the expected column, when there is one, is VALUE_WIDTH wide too
ROW, HEADER_ROW, AXIS = 26, 20, 62
FONT_SIZE = 11
HIGH, LOW = 5, ROW - 7  # y of a 1 and a 0 within a row
BUS_FILL, UNKNOWN_FILL, MARKER = "#e3f2fd", "#ffcdd2", "#d32f2f"
PASSED_MARKER = "#2e7d32"  # the marker of a replay that passed: nothing there is wrong


def value_text(value, width, radix="hex"):
    """A dumped value as it reads: 0/1 for a bit; a bus in its radix, hex marked ``0x``. X/Z/U
    bits make their hex digit X (or Z/U when the whole digit is Z/U), in every radix: such a
    value has no decimal."""
    if value is None:  # no change dumped yet
        return "?"
    if width == 1:
        return str(value)[-1:].lower()
    if not isinstance(value, int) and set(str(value)) <= {"0", "1"}:
        value = int(str(value), 2)
    if isinstance(value, int):
        if radix == "hex":
            return "0x" + format(value, f"0{(width + 3) // 4}x")
        if radix == "signed" and value >= 1 << (width - 1):
            return str(value - (1 << width))
        return str(value)
    bits = str(value).lower()
    bits = bits.rjust((len(bits) + 3) // 4 * 4, "0")
    digits = []
    for first in range(0, len(bits), 4):
        nibble = bits[first:first + 4]
        if set(nibble) <= {"0", "1"}:
            digits.append(format(int(nibble, 2), "x"))
        else:
            digits.append(nibble[0].upper() if len(set(nibble)) == 1 else "X")
    return "0x" + "".join(digits)


def _known(value):
    return isinstance(value, int)


def segments(changes, start, end):
    """[(from, to, value)] of one trace inside [start, end] (dump units)."""
    out, current = [], None
    for time, value in changes:
        if time <= start:
            current = value
            continue
        if time >= end:
            break
        out.append((start if not out else out[-1][1], time, current))
        current = value
    out.append((start if not out else out[-1][1], end, current))
    return [s for s in out if s[1] > s[0]]


def value_at(changes, time):
    current = None
    for at, value in changes:
        if at > time:
            break
        current = value
    return current


def _pixels_per_ns(traces, start, end, units_per_ns):
    """Wide enough that the narrowest bus segment shows its value, within 600..1800 px."""
    span_ns = (end - start) / units_per_ns
    buses = [(t, segments(t.changes, start, end)) for t in traces if t.width > 1]
    narrowest = min((b - a for _, parts in buses for a, b, _ in parts), default=end - start) / units_per_ns
    longest = max((len(value_text(v, t.width, t.radix)) for t, parts in buses for _, _, v in parts), default=1) + 2
    wanted = max(600 / span_ns, longest * FONT_SIZE * MONO_CHAR_WIDTH / max(narrowest, 1e-9))
    return min(wanted, 1800 / span_ns)


def _tick_step(span_ns):
    for step in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if span_ns / step <= 12:
            return step
    return 10 ** math.ceil(math.log10(span_ns / 10))


def render_window(traces, located, units_per_ns, title, expected=None):
    """A Canvas with the traces between located.start_ns and end_ns and the marker; the values
    at the marker in a column, and beside them ``expected`` ({port: value}, the golden model's
    outputs at the marker), those that differ from the dump in red."""
    start, end = located.start_ns * units_per_ns, located.end_ns * units_per_ns
    px_per_ns = _pixels_per_ns(traces, start, end, units_per_ns)
    expected = {name: value for name, value in (expected or {}).items() if isinstance(value, int)}
    left = NAME_WIDTH + VALUE_WIDTH * (2 if expected else 1)

    def x_of(time):
        return left + (time - start) / units_per_ns * px_per_ns

    groups = [g for g in GROUPS if any(t.group == g for t in traces)]
    height = AXIS + len(groups) * HEADER_ROW + len(traces) * ROW + 10
    width = left + (located.end_ns - located.start_ns) * px_per_ns + 20
    canvas = Canvas(width, height)
    canvas.text(8, 16, title, size=13, bold=True)
    marker_units = located.sample.shown_ns * units_per_ns
    _draw_axis(canvas, located, x_of, units_per_ns, height)
    if expected:
        canvas.text(NAME_WIDTH + VALUE_WIDTH, AXIS - 4, "expected", size=10, fill="#777")
    y = AXIS
    for group in groups:
        canvas.text(8, y + 14, group, size=12, bold=True, fill="#555")
        y += HEADER_ROW
        for trace in (t for t in traces if t.group == group):
            _draw_trace(canvas, trace, y, start, end, x_of, marker_units, expected.get(trace.name))
            y += ROW
    x = x_of(marker_units)
    colour = PASSED_MARKER if located.passed else MARKER
    canvas.line(x, AXIS - 32, x, height - 6, stroke=colour, width=2, dash="5,3")
    canvas.text(min(x + 4, width - 8), AXIS - 22, located.label, size=11, fill=colour,
                anchor="start" if x + 240 < width else "end")
    return canvas


def _draw_axis(canvas, located, x_of, units_per_ns, height):
    span = located.end_ns - located.start_ns
    step = _tick_step(span)
    tick = math.ceil(located.start_ns / step) * step
    canvas.text(NAME_WIDTH, AXIS - 4, "value at marker", size=10, fill="#777")
    while tick <= located.end_ns:
        x = x_of(tick * units_per_ns)
        canvas.line(x, AXIS - 8, x, height - 6, stroke="#eeeeee")
        canvas.text(x, AXIS - 4, f"{tick:g} ns", size=9, fill="#777", anchor="middle")
        tick += step


def _draw_trace(canvas, trace, y, start, end, x_of, marker_units, expected=None):
    shown = value_at(trace.changes, marker_units)
    want = None if expected is None else expected & ((1 << trace.width) - 1)  # signed: as the port's bits
    differs = want is not None and shown != want
    canvas.text(8, y + 17, trace.name, size=12, attrs={"class": "signal", "data-signal": trace.name})
    canvas.text(NAME_WIDTH, y + 17, value_text(shown, trace.width, trace.radix), size=FONT_SIZE,
                mono=True, fill="#000" if _known(shown) and not differs else MARKER,
                attrs={"class": "value-at-marker", "data-signal": trace.name})
    if want is not None:
        canvas.text(NAME_WIDTH + VALUE_WIDTH, y + 17, value_text(want, trace.width, trace.radix), size=FONT_SIZE,
                    mono=True, fill=MARKER if differs else "#2e7d32", bold=differs,
                    attrs={"class": "expected", "data-signal": trace.name, "data-differs": int(differs)},
                    title=f"expected {trace.name}" + (" (the dump differs)" if differs else ""))
    canvas.line(NAME_WIDTH - 4, y + ROW, x_of(end), y + ROW, stroke="#f0f0f0")
    for number, (first, last, value) in enumerate(segments(trace.changes, start, end)):
        x0, x1 = x_of(first), x_of(last)
        if trace.width == 1:
            _draw_bit(canvas, x0, x1, y, value, edge=number > 0)
        else:
            _draw_bus(canvas, x0, x1, y, value, trace)


def _draw_bit(canvas, x0, x1, y, value, edge):
    if value in (0, 1):
        level = y + (HIGH if value == 1 else LOW)
        if edge:  # a change inside the window (not its left border)
            canvas.line(x0, y + HIGH, x0, y + LOW, stroke="#2e7d32")
        canvas.line(x0, level, x1, level, stroke="#2e7d32", width=2)
    else:
        canvas.rect(x0, y + HIGH, x1 - x0, LOW - HIGH, fill=UNKNOWN_FILL, stroke=MARKER)
        canvas.text((x0 + x1) / 2, y + 17, fit_text(value_text(value, 1), x1 - x0 - 2, FONT_SIZE), size=FONT_SIZE,
                    mono=True, anchor="middle", fill=MARKER)


def _draw_bus(canvas, x0, x1, y, value, trace):
    slope = min(4, (x1 - x0) / 2)
    mid = y + (HIGH + LOW) / 2
    text = value_text(value, trace.width, trace.radix)
    canvas.polygon([(x0, mid), (x0 + slope, y + HIGH), (x1 - slope, y + HIGH), (x1, mid), (x1 - slope, y + LOW),
                    (x0 + slope, y + LOW)], fill=BUS_FILL if _known(value) else UNKNOWN_FILL, stroke="#1565c0",
                   title=text)
    canvas.text((x0 + x1) / 2, y + 17, fit_text(text, x1 - x0 - 2 * slope - 2, FONT_SIZE), size=FONT_SIZE, mono=True,
                anchor="middle", title=text)


# --- everything for one replay ---------------------------------------------------------------------

def waveform_views(design, waveform, sim_dir, vector, cycle, title, expected=None, passed=False):
    """Read ``waveform``; return (save file path, its text, Canvas of the window or None, Located,
    notes). ``passed``: the replay passed, the marker shows where the saved failure was. The save
    file is made even when the dump cannot be read (names and times then come from the ports and
    the timing model); the picture needs the dump. Raises WaveError when neither can be made."""
    waveform = Path(waveform)
    top = harness_name(design)
    traces = harness_traces(design)
    notes = []
    try:
        dump = Dump(waveform)
    except WaveError as error:
        dump = None
        notes.append(f"signal window picture not written: {error}")
    if dump:
        traces = dump.read(top, traces)
        if not traces:
            raise WaveError(f"no signal of the harness {top} in {waveform}")
        go = next((t for t in traces if t.name == "go"), None)
        edges = dump.rising_edges_ns(go) if go else None
        units, viewer_units, dump_format = dump.units_per_ns, dump.viewer_units_per_ns, dump.format
    else:
        edges = None
        units = viewer_units = UNITS_PER_NS.get(waveform.suffix, 1000)
        dump_format = waveform.suffix.lstrip(".").upper()
    located = replace(locate(design, sim_dir, vector, cycle, edges), passed=passed)
    if dump:
        located = replace(located, dump_end_ns=dump.last_change_ns(traces))
    if located.source != "dump":
        notes.append("marker placed by the harness timing model (the dump's go edges could not be read)")
    if not located.known:
        notes.append("marker on the case's first vector: where its answers differ is not known")
    save = save_file_path(waveform, top)
    gtkw = gtkw_text(waveform, save, dump_format, top, traces, located, viewer_units, title)
    picture = render_window(traces, located, units, title, expected) if dump else None
    return save, gtkw, picture, located, notes
