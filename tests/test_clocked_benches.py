"""The benches that drive a design's own pins (uart, processor) run it inside a generated harness
that makes the clock in HDL (tb.host.harness ``verilog_clock_harness`` / ``vhdl_clock_harness``); the
Python-clocked path (the design itself the top level, cocotb's Clock on clk) stays selectable.
Both harness texts must be clean for every tool, and both paths must check the same things."""

import re
import shutil
import subprocess

import pytest

from rtl.designs import PORTS
from rtl.lint import lint_flags
from tb.blocks import FULL_TIER_DESIGNS, design_params
from tb.host.harness import PORT_CLOCKED_DESIGNS, clocked_harness_name
from tb.host.runner import hdl_dir


def run_tool(command, cwd):
    # A missing tool fails the check (make setup installs it); it is never skipped.
    assert shutil.which(command[0]), f"{command[0]} is not installed: run 'make setup'"
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}{result.stderr}"
    return result


@pytest.mark.parametrize("design", design_params(PORT_CLOCKED_DESIGNS))
def test_clock_harness_passes_verilator_lint(design):
    top = clocked_harness_name(design)
    run_tool(["verilator", *lint_flags(design), "--timing", "--top-module", top, f"{design}.v", f"{top}.v"],
             hdl_dir(design))


# (design, simulator) pairs whose harness a bench of make test already builds: tb/test_uart.py on
# every simulator, tb/test_processor.py's test_processor on Icarus and GHDL and test_processor_c2 on
# Icarus. A harness that did not compile would fail that bench, so the separate compile of those
# pairs (the processors' take 20-50 s each) runs in make test-full only, as does every compile of
# the designs of tb.blocks FULL_TIER_DESIGNS (design_params, above).
COMPILED_BY_A_DEFAULT_BENCH = {("uart", "icarus"), ("uart", "ghdl"), ("processor", "icarus"),
                               ("processor", "ghdl"), ("processor_c2", "icarus")}
# processor_c2's VHDL is the processor's (compiled and run by test_processor[ghdl]) with the
# two-context engine's (analysed and elaborated by tests/test_rtl_convert.py's search_c2): the
# compile of their combination, 23 CPU s, runs in make test-full with processor_c2's GHDL bench.
PARTS_COMPILED_BY_DEFAULT_TESTS = {("processor_c2", "ghdl")}


@pytest.mark.parametrize("design,sim", [
    pytest.param(design, sim, marks=pytest.mark.full
                 if (design, sim) in COMPILED_BY_A_DEFAULT_BENCH | PARTS_COMPILED_BY_DEFAULT_TESTS
                 or design in FULL_TIER_DESIGNS else ())
    for design in PORT_CLOCKED_DESIGNS for sim in ("icarus", "ghdl")])
def test_clock_harness_compiles_in_icarus_and_ghdl(design, sim, tmp_path):
    top, out = clocked_harness_name(design), hdl_dir(design)
    if sim == "icarus":
        run_tool(["iverilog", "-g2005", "-s", top, "-o", tmp_path / top, f"{design}.v", f"{top}.v"], out)
        return
    ghdl = ["ghdl", "-a", "--std=08", f"--workdir={tmp_path}"]
    for source in ("pck_myhdl_011.vhd", f"{design}.vhd", f"{top}.vhd"):
        run_tool([*ghdl, source], out)
    run_tool(["ghdl", "-e", "--std=08", f"--workdir={tmp_path}", "-o", tmp_path / top, top], tmp_path)


@pytest.mark.parametrize("design", PORT_CLOCKED_DESIGNS)
def test_clock_harness_passes_every_port_through(design):
    """Every port of the design is a port of the harness, same direction, width and signedness
    (clk an output: the harness drives it); a dropped port would be one the bench cannot reach."""
    from rtl.designs import SIGNED
    from tb.host.harness import verilog_clock_harness

    text = verilog_clock_harness(design, PORTS[design], SIGNED.get(design, ()))
    header = re.search(rf"^module {clocked_harness_name(design)}\((.*)\);$", text, re.M)
    assert header, text
    declared = [d.strip() for d in header.group(1).split(",")]
    expected = []
    for name, width, direction in PORTS[design]:
        kind = "output reg" if name == "clk" else f"{direction}put wire"
        signed = "signed " if name in SIGNED.get(design, ()) else ""
        expected.append(f"{kind} {signed}{f'[{width - 1}:0] ' if width > 1 else ''}{name}")
    assert declared == expected
    assert f"{design} dut(" + ", ".join(f".{n}({n})" for n, _, _ in PORTS[design]) + ");" in text


def test_uart_bench_passes_on_both_clocks():
    """The Python-clocked path still runs the same tests, and they check as many frames."""
    from tb.host.uart_bench import run_uart

    checked = {}
    for clock in ("hdl", "python"):
        outcome = run_uart("icarus", ["rx_glitch", "rx_framing_error"], clock=clock, seed=1)
        assert outcome.passed, f"uart bench with the {clock} clock failed:\n{outcome.log[-3000:]}"
        checked[clock] = outcome.result.get("checked", 0)
    assert checked["hdl"] > 0 and checked["hdl"] == checked["python"], checked


# The Python clock is the fallback path (a build of its own): make test-full's; make test keeps
# both clocks on the UART's bench above.
@pytest.mark.full
def test_processor_bench_passes_on_the_python_clock():
    from tb.host.processor_bench import run_processor_bench

    outcome = run_processor_bench("icarus", ["referee_codes"], clock="python")
    assert outcome.passed, f"processor bench with the Python clock failed:\n{outcome.log[-3000:]}"
    assert "referee_codes passed" in outcome.log


@pytest.mark.parametrize("clock", ["sometimes", "HDL"])
def test_an_unknown_clock_is_refused_in_one_line(clock):
    from tb.host.processor_bench import run_processor_bench
    from tb.host.uart_bench import run_uart

    for run in (lambda: run_uart("icarus", clock=clock), lambda: run_processor_bench("icarus", [], clock=clock)):
        with pytest.raises(ValueError, match=r"clock must be one of hdl, python, got"):
            run()


@pytest.mark.parametrize("sim", ["icarus", "ghdl"])
def test_a_run_with_waves_writes_the_waveform_where_the_failure_report_says(sim):
    """uart_regression names waveform_path in a failure report: under the clocked harness the dump
    is named after the harness, and it must exist (Verilator's dump.fst does not depend on it)."""
    from tb.host.uart_bench import run_uart, waveform_path

    outcome = run_uart(sim, ["rx_glitch"], waves=True, tag="wavecheck")
    assert outcome.passed, outcome.log[-3000:]
    waves = waveform_path(outcome.sim_dir, sim)
    assert waves.exists() and waves.stat().st_size > 0, f"{waves} not written: {sorted(outcome.sim_dir.iterdir())}"
