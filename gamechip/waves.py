"""The waveform of a replayed case: read it, find the failing vector in it, and write a GTKWave
save file and a picture of the signal window around it.

Dumps are read with pywellen (VCD from Icarus, FST from Verilator, GHW from GHDL alike). The
harness (tb/harness.py) is the top level of every dump and the block's ports are harness
signals of the same names, so the signals shown are the harness's: ``go``/``ready`` and the
clock, reset, start and done of start/done blocks ("control"), the block's inputs and its
outputs. Where the failing vector sits in time comes from tb/timeline.py (the harness's timing)
and the batch's response file; the batch's start is the last rising edge of ``go`` in the dump
(the replay's checking run), or the timing model alone when the dump cannot be read.
"""

import math
from dataclasses import dataclass
from pathlib import Path

from gamechip.drawing import MONO_CHAR_WIDTH, Canvas, fit_text
from tb import timeline
from tb.harness import OUT_FILE, harness_name

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


def harness_traces(design):
    """The harness signals worth showing for ``design``, grouped, in port order."""
    from rtl.designs import PORTS

    ports = PORTS[design]
    present = {name for name, _, _ in ports} | {"go", "ready"}
    traces = [Trace(name, "control", 1) for name in CONTROL if name in present]
    traces += [Trace(n, "inputs", w) for n, w, d in ports if d == "in" and n not in CONTROL]
    traces += [Trace(n, "outputs", w) for n, w, d in ports if d == "out" and n not in CONTROL]
    return traces


def is_request(design):
    """A request/reply block (the chess blocks): one response line per request."""
    from rtl.designs import PORTS
    from tb.harness import reply_port

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


# --- where the failing vector is -------------------------------------------------------------

@dataclass
class Located:
    sample: timeline.Sample  # the failing vector / cycle
    start_ns: float  # the window shown
    end_ns: float
    source: str  # 'dump' (go edge read from the waveform) or 'timing model'
    known: bool = True  # False: the failing vector is not known, the marker is on the first one

    @property
    def label(self):
        where = f"vector {self.sample.vector}" + (f", cycle {self.sample.cycle}" if self.sample.cycle is not None else "")
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
    go_ns = (go_edges_ns or timeline.replay_go_times(cycles, sequential))[-1]
    sample = timeline.failing_sample(timeline.samples(go_ns, cycles, sequential), vector, cycle)
    if sample is None:
        raise WaveError(f"the case has no vector {vector} in {response}")
    end_of_batch = go_ns + timeline.batch_length_ns(cycles, sequential) + timeline.READY_NS
    if not sequential:
        return Located(sample, go_ns - 0.5, end_of_batch + 0.5, source, known)
    start = max(go_ns - 0.5, sample.shown_ns - 4 * timeline.CYCLE_NS)
    return Located(sample, start, min(end_of_batch + 0.5, sample.shown_ns + 3 * timeline.CYCLE_NS), source, known)


# --- GTKWave save file -------------------------------------------------------------------------

def gtkw_text(dump_path, save_path, dump_format, top, traces, located, units_per_ns, title):
    """A GTKWave save file: the traces in groups (hex for buses), the window and the marker."""
    start, end = round(located.start_ns * units_per_ns), round(located.end_ns * units_per_ns)
    marker = round(located.sample.shown_ns * units_per_ns)
    zoom = -math.log2(max(end - start, 1) / 1000)  # GTKWave shows 2**-zoom time units per pixel
    tree = ("top." if dump_format == "GHW" else "") + top + "."
    lines = ["[*]", f"[*] {title}", f"[*] marker: {located.label}", "[*]",
             f'[dumpfile] "{Path(dump_path).resolve()}"', f'[savefile] "{Path(save_path).resolve()}"',
             f"[timestart] {start}", "[size] 1400 700", "[pos] -1 -1",
             f"*{zoom:.6f} {marker} " + " ".join(["-1"] * 26),
             f"[treeopen] {tree}", "[sst_width] 220", "[signals_width] 240", "[sst_expanded] 1",
             "[sst_vpaned_height] 200"]
    for group in GROUPS:
        members = [t for t in traces if t.group == group]
        if not members:
            continue
        lines += ["@800200", f"-{group}"]
        for trace in members:
            lines += ["@22" if trace.width > 1 else "@28", gtkwave_name(dump_format, top, trace)]
        lines += ["@1000200", f"-{group}"]
    lines += ["[pattern_trace] 1", "[pattern_trace] 0"]
    return "\n".join(lines) + "\n"


# --- the signal window picture -----------------------------------------------------------------

NAME_WIDTH, VALUE_WIDTH = 130, 150
ROW, HEADER_ROW, AXIS = 26, 20, 62
FONT_SIZE = 11
HIGH, LOW = 5, ROW - 7  # y of a 1 and a 0 within a row
BUS_FILL, UNKNOWN_FILL, MARKER = "#e3f2fd", "#ffcdd2", "#d32f2f"


def value_text(value, width):
    """A dumped value as hex (buses) or 0/1; X/Z/U bits make their hex digit X (or Z/U when
    the whole digit is Z/U)."""
    if value is None:  # no change dumped yet
        return "?"
    if isinstance(value, int):
        return format(value, f"0{(width + 3) // 4}x") if width > 1 else str(value)
    bits = str(value).lower()
    if width == 1:
        return bits[-1:]
    bits = bits.rjust((len(bits) + 3) // 4 * 4, "0")
    digits = []
    for first in range(0, len(bits), 4):
        nibble = bits[first:first + 4]
        if set(nibble) <= {"0", "1"}:
            digits.append(format(int(nibble, 2), "x"))
        else:
            digits.append(nibble[0].upper() if len(set(nibble)) == 1 else "X")
    return "".join(digits)


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
    """Wide enough that the narrowest bus segment shows its hex value, within 600..1800 px."""
    span_ns = (end - start) / units_per_ns
    narrowest = min((b - a for t in traces if t.width > 1 for a, b, _ in segments(t.changes, start, end)),
                    default=end - start) / units_per_ns
    longest = max((t.width + 3) // 4 for t in traces) + 2
    wanted = max(600 / span_ns, longest * FONT_SIZE * MONO_CHAR_WIDTH / max(narrowest, 1e-9))
    return min(wanted, 1800 / span_ns)


def _tick_step(span_ns):
    for step in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if span_ns / step <= 12:
            return step
    return 10 ** math.ceil(math.log10(span_ns / 10))


def render_window(traces, located, units_per_ns, title):
    """A Canvas with the traces between located.start_ns and end_ns and the marker."""
    start, end = located.start_ns * units_per_ns, located.end_ns * units_per_ns
    px_per_ns = _pixels_per_ns(traces, start, end, units_per_ns)
    left = NAME_WIDTH + VALUE_WIDTH

    def x_of(time):
        return left + (time - start) / units_per_ns * px_per_ns

    groups = [g for g in GROUPS if any(t.group == g for t in traces)]
    height = AXIS + len(groups) * HEADER_ROW + len(traces) * ROW + 10
    width = left + (located.end_ns - located.start_ns) * px_per_ns + 20
    canvas = Canvas(width, height)
    canvas.text(8, 16, title, size=13, bold=True)
    marker_units = located.sample.shown_ns * units_per_ns
    _draw_axis(canvas, located, x_of, units_per_ns, height)
    y = AXIS
    for group in groups:
        canvas.text(8, y + 14, group, size=12, bold=True, fill="#555")
        y += HEADER_ROW
        for trace in (t for t in traces if t.group == group):
            _draw_trace(canvas, trace, y, start, end, x_of, marker_units)
            y += ROW
    x = x_of(marker_units)
    canvas.line(x, AXIS - 32, x, height - 6, stroke=MARKER, width=2, dash="5,3")
    canvas.text(min(x + 4, width - 8), AXIS - 22, located.label, size=11, fill=MARKER,
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


def _draw_trace(canvas, trace, y, start, end, x_of, marker_units):
    shown = value_at(trace.changes, marker_units)
    canvas.text(8, y + 17, trace.name, size=12, attrs={"class": "signal", "data-signal": trace.name})
    canvas.text(NAME_WIDTH, y + 17, value_text(shown, trace.width), size=FONT_SIZE,
                mono=True, fill="#000" if _known(shown) else MARKER)
    canvas.line(NAME_WIDTH - 4, y + ROW, x_of(end), y + ROW, stroke="#f0f0f0")
    for number, (first, last, value) in enumerate(segments(trace.changes, start, end)):
        x0, x1 = x_of(first), x_of(last)
        if trace.width == 1:
            _draw_bit(canvas, x0, x1, y, value, edge=number > 0)
        else:
            _draw_bus(canvas, x0, x1, y, value, trace.width)


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


def _draw_bus(canvas, x0, x1, y, value, width):
    slope = min(4, (x1 - x0) / 2)
    mid = y + (HIGH + LOW) / 2
    text = value_text(value, width)
    canvas.polygon([(x0, mid), (x0 + slope, y + HIGH), (x1 - slope, y + HIGH), (x1, mid), (x1 - slope, y + LOW),
                    (x0 + slope, y + LOW)], fill=BUS_FILL if _known(value) else UNKNOWN_FILL, stroke="#1565c0",
                   title=text)
    canvas.text((x0 + x1) / 2, y + 17, fit_text(text, x1 - x0 - 2 * slope - 2, FONT_SIZE), size=FONT_SIZE, mono=True,
                anchor="middle", title=text)


# --- everything for one replay ---------------------------------------------------------------------

def waveform_views(design, waveform, sim_dir, vector, cycle, title):
    """Read ``waveform``; return (gtkw text, Canvas of the window or None, Located, notes). The save file
    is written even when the dump cannot be read (names and times then come from the ports and
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
        units, dump_format = dump.units_per_ns, dump.format
    else:
        edges, units = None, UNITS_PER_NS.get(waveform.suffix, 1000)
        dump_format = waveform.suffix.lstrip(".").upper()
    located = locate(design, sim_dir, vector, cycle, edges)
    if located.source != "dump":
        notes.append("marker placed by the harness timing model (the dump's go edges could not be read)")
    if not located.known:
        notes.append("marker on the case's first vector: where its answers differ is not known")
    save = waveform.with_suffix(".gtkw")
    gtkw = gtkw_text(waveform, save, dump_format, top, traces, located, units, title)
    picture = render_window(traces, located, units, title) if dump else None
    return gtkw, picture, located, notes
