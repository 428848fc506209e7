"""A counterexample replayed in simulation: the trace SymbiYosys found, run under Icarus on the
proof's own copy of the design, where the same assertion must fail at the same step; and the
same trace on the un-bugged design, where no assertion may fail.

The blocks whose bench is a batch harness (move checker, disc flipper, stable discs) turn a
counterexample into a bench case file (gamechip.formal.counterexample). The others' inputs are
the harness's free inputs, which for the search engine include the cut datapath's answers (legal
moves, evaluator done and value) that no board need produce, and for the UART and the AXI
peripheral a pin-level sequence their benches do not take: those are replayed here instead.

yosys-smtbmc writes each trace also as a Verilog testbench (``trace_tb.v``, module
``testbench``): it instantiates the harness ``formal_<design>``, sets every register to its
value in the trace's first step and drives the inputs of step k in clock cycle k. Icarus does
not read the harness's immediate ``assert``/``assume`` statements, so the replay compiles a
*simulation form* of the harness (:func:`simulation_harness`): each ``name: assert (c);``
becomes ``if (!(c)) failed_name = 1;`` and each ``assume (c);`` sets an ``assumption_broken_<n>``
flag, the flags cleared at the top of their ``always @*`` block. A monitor reads the flags at
every rising clock edge, when the values of step k are settled (the registers take step k+1's
values after that edge), and prints one line per failing assertion and step.

A replay folder (``replays/<design>-planted/`` under ``gamechip formal``'s output) holds the
testbench, the monitor, and for each of ``planted`` (the copy with the bug) and ``rtl`` (the
project's RTL) the proof's sources in simulation form; ``replay.json`` names what the proof
found. ``gamechip formal --replay-trace FOLDER`` runs both and writes ``planted.vcd`` and
``rtl.vcd`` beside them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

RECORD = "replay.json"
MONITOR = "monitor.v"
TESTBENCH = "trace_tb.v"
VARIANTS = ("planted", "rtl")
_FAILING = re.compile(r"^FORMAL-REPLAY assertion (\w+) fails at step (\d+)$", re.M)
_BROKEN = re.compile(r"^FORMAL-REPLAY assumption (\w+) broken at step (\d+)$", re.M)
_STEP = re.compile(r"^\s*// state (\d+)\s*$", re.M)
_UNSUPPORTED = re.compile(r"\$past|\$stable|\$rose|\$fell|\$initstate|\$any(const|seq)|\bassert\s+property|\bcover\b")


class ReplayError(Exception):
    """A replay folder or harness that cannot be replayed: one line saying why."""


def _balanced(text, start):
    """Index just past the parenthesis that closes the one at ``text[start]``."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index + 1
    raise ReplayError("unbalanced parentheses in an assertion of the harness")


def _statements(body, flags):
    """``body`` (an always @* block) with its assertions and assumptions as flag assignments;
    appends the flags it sets to ``flags``."""
    pattern = re.compile(r"(?:\b(\w+)\s*:\s*)?\b(assert|assume)\s*\(")
    out, position = [], 0
    for found in pattern.finditer(body):
        if found.start() < position:
            continue
        name, kind = found.group(1), found.group(2)
        opening = found.end() - 1
        closing = _balanced(body, opening)
        end = re.compile(r"\s*;").match(body, closing)
        if not end:
            raise ReplayError(f"an {kind} of the harness does not end with ';'")
        if kind == "assert":
            if not name:
                raise ReplayError("an assertion of the harness has no name (name: assert (...);)")
            flag = f"failed_{name}"
        else:
            flag = f"assumption_broken_{len([f for f in flags if f.startswith('assumption_broken_')])}"
        flags.append(flag)
        out.append(body[position:found.start()])
        out.append(f"if (!{body[opening:closing]}) {flag} = 1'b1;")
        position = end.end()
    out.append(body[position:])
    return "".join(out)


def simulation_harness(text):
    """The harness ``text`` as Icarus reads it: assertions and assumptions become flags (see the
    module docstring); (text, assertion flags, assumption flags). ReplayError for a construct the
    simulation form does not translate."""
    unsupported = _UNSUPPORTED.search(re.sub(r"//[^\n]*", "", text))
    if unsupported:
        raise ReplayError(f"the harness uses {unsupported.group(0)}, which the replay does not translate")
    flags, out, position = [], [], 0
    opener = re.compile(r"\balways\s*@\*\s*begin\b")
    word = re.compile(r"\b(begin|end)\b")
    for found in opener.finditer(text):
        depth, cursor = 1, found.end()
        while depth:
            token = word.search(text, cursor)
            if not token:
                raise ReplayError("an always @* block of the harness has no end")
            depth += 1 if token.group(1) == "begin" else -1
            cursor = token.end()
        before = len(flags)
        body = _statements(text[found.end():token.start()], flags)
        clears = "".join(f"\n    {flag} = 1'b0;" for flag in flags[before:])
        out += [text[position:found.end()], clears, body, "end"]
        position = cursor
    out.append(text[position:])
    simulated = "".join(out)
    if re.search(r"\b(assert|assume)\s*\(", simulated):
        raise ReplayError("an assert or assume outside an always @* block: the replay does not translate it")
    first = re.search(r"^\s*always\b", simulated, re.M)
    if not first:
        raise ReplayError("the harness has no always block: nothing to replay")
    declarations = "".join(f"  reg {flag} = 1'b0;\n" for flag in flags)
    simulated = simulated[:first.start()] + "\n" + declarations + simulated[first.start():]
    return (simulated, [f[len("failed_"):] for f in flags if f.startswith("failed_")],
            [f for f in flags if f.startswith("assumption_broken_")])


def monitor_verilog(assertions, assumptions, last_step):
    """Module ``formal_replay_monitor``: at each rising edge of the testbench's clock, a line for
    every failing assertion and broken assumption of the step that edge ends (steps 0..last)."""
    checks = "".join(f'      if (testbench.UUT.failed_{name}) $display("FORMAL-REPLAY assertion {name} fails '
                     f'at step %0d", testbench.cycle);\n' for name in assertions)
    checks += "".join(f'      if (testbench.UUT.{flag}) $display("FORMAL-REPLAY assumption {flag} broken '
                      f'at step %0d", testbench.cycle);\n' for flag in assumptions)
    return ("module formal_replay_monitor;\n"
            "  always @(posedge testbench.clock)\n"
            f"    if (testbench.cycle <= {last_step}) begin\n{checks}"
            f'      if (testbench.cycle == {last_step}) $display("FORMAL-REPLAY end at step %0d", testbench.cycle);\n'
            "    end\nendmodule\n")


def last_step(testbench_text):
    steps = [int(s) for s in _STEP.findall(testbench_text)]
    if not steps:
        raise ReplayError(f"{TESTBENCH} has no '// state N' steps: not a yosys-smtbmc testbench")
    return max(steps)


def prepare(proof, testbench, planted_root, rtl_root, folder, failed, why=""):
    """Write the replay folder of ``proof``'s counterexample (``testbench``: the trace_tb.v the
    proof wrote, on the RTL copy ``planted_root``); the path of its record."""
    from gamechip.formal.proofs import write_sources

    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    harness, assertions, assumptions = simulation_harness(proof.harness.read_text())
    text = Path(testbench).read_text()
    step = last_step(text)
    (folder / TESTBENCH).write_text(text)
    (folder / MONITOR).write_text(monitor_verilog(assertions, assumptions, step))
    sources = {}
    for variant, root in zip(VARIANTS, (planted_root, rtl_root)):
        (folder / variant).mkdir()
        sources[variant] = write_sources(proof, root, folder / variant, harness)
    record = {"design": proof.design, "why": why, "failed": list(failed), "step": step,
              "top": proof.top, "sources": sources, "rtl_roots": {"planted": str(planted_root), "rtl": str(rtl_root)}}
    (folder / RECORD).write_text(json.dumps(record, indent=1) + "\n")
    return folder / RECORD


@dataclass
class Replayed:
    variant: str
    failing: list = field(default_factory=list)    # [(assertion, step)]
    broken: list = field(default_factory=list)     # [(assumption flag, step)]
    reached_end: bool = False
    waveform: str = ""
    seconds: float = 0.0
    log: str = ""


def simulate(folder, variant, timeout=600):
    """Compile and run ``variant`` of the replay folder under Icarus; a Replayed."""
    folder = Path(folder)
    record = json.loads((folder / RECORD).read_text())
    iverilog, vvp = shutil.which("iverilog"), shutil.which("vvp")
    if not iverilog or not vvp:
        raise ReplayError("iverilog is not installed (scripts/setup.sh installs it)")
    files = [f"{variant}/{name}" for name in record["sources"][variant]] + [TESTBENCH, MONITOR]
    started = time.monotonic()
    binary = f"{variant}.vvp"
    compiled = subprocess.run([iverilog, "-g2012", "-o", binary, "-s", "testbench", "-s", "formal_replay_monitor",
                               *files], cwd=folder, capture_output=True, text=True, timeout=timeout)
    if compiled.returncode:
        raise ReplayError(f"iverilog failed on the {variant} replay: "
                          f"{(compiled.stderr or compiled.stdout).strip().splitlines()[:1]} (folder {folder})")
    waveform = f"{variant}.vcd"
    ran = subprocess.run([vvp, "-n", binary, f"+vcd={waveform}"], cwd=folder, capture_output=True, text=True,
                         timeout=timeout)
    (folder / f"{variant}.log").write_text(ran.stdout + ran.stderr)
    return Replayed(variant, [(name, int(step)) for name, step in _FAILING.findall(ran.stdout)],
                    [(flag, int(step)) for flag, step in _BROKEN.findall(ran.stdout)],
                    "FORMAL-REPLAY end at step" in ran.stdout, str(folder / waveform),
                    round(time.monotonic() - started, 1), ran.stdout)


def verdicts(folder, timeout=600):
    """Replay both variants; ({"planted": text, "rtl": text}, ok). ok when the planted copy fails
    one of the assertions the proof named at the trace's last step (and at no earlier step) and the
    project's RTL fails none, with no assumption broken in either (the trace is the proof's)."""
    folder = Path(folder)
    record = json.loads((folder / RECORD).read_text())
    step, named = record["step"], set(record["failed"])
    said, ok = {}, True
    for variant in VARIANTS:
        result = simulate(folder, variant, timeout)
        failing = sorted({name for name, at in result.failing})
        if not result.reached_end:
            text, good = f"did not reach step {step} (log {folder / (variant + '.log')})", False
        elif result.broken:
            flag, at = result.broken[0]
            text, good = f"the trace breaks an assumption ({flag}) at step {at}: not the proof's trace", False
        elif variant == "planted":
            early = [(name, at) for name, at in result.failing if at < step]
            good = bool(named & {name for name, at in result.failing if at == step}) and not early
            text = (f"fails {', '.join(failing)} at step {step} as the proof did" if good else
                    f"expected {', '.join(sorted(named))} to fail at step {step}, saw "
                    + (", ".join(f"{name} at step {at}" for name, at in result.failing) or "no failure"))
        else:
            good = not result.failing
            text = ("passes: no assertion fails in steps 0.." + str(step) if good else
                    "FAILS on the project's RTL: " + ", ".join(f"{name} at step {at}" for name, at in result.failing))
        said[variant] = f"{text}; waveform {result.waveform} ({result.seconds:.0f} s)"
        ok &= good
    return said, ok
