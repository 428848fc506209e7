"""The host side of the UART bench (tb/test_uart.py): run its cocotb tests on a simulator, and
the regression's run, which replays the first failing test with a waveform."""

import os

from tb.host import runner

DESIGN = "uart"
TESTS = ("every_byte_both_ways", "rx_back_to_back", "rx_baud_mismatch", "rx_framing_error", "rx_glitch",
         "rx_stuck_low_and_break", "rx_noise")


CLOCKS = ("hdl", "python")


def top_level(clock):
    return DESIGN if clock == "python" else runner.harness.clocked_harness_name(DESIGN)


def waveform_path(sim_dir, sim, clock="hdl"):
    """Where a run with waves leaves its waveform."""
    top = top_level(clock)
    return sim_dir / {"icarus": f"{top}.vcd", "verilator": "dump.fst", "ghdl": f"{top}.ghw"}[sim]


def run_uart(sim, tests=TESTS, waves=False, tag="", rtl_root=None, seed=None, plusargs=(), clock="hdl"):
    """Build (if needed) and run ``tests`` of this bench on the converted ``uart`` under ``sim``;
    ``clock`` "hdl" (the clocked harness is the top level) or "python" (the design is, cocotb
    clocks it). Returns tb.host.runner's RunResult."""
    from rtl.designs import UART_DIVISOR

    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
    seed = seed if seed is not None else os.environ.get("GAMECHIP_SEED", "1")
    env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_UART_DIVISOR": str(UART_DIVISOR)}
    hdl = clock == "hdl"
    # quick_build, short_run: a few hundred thousand cycles; Verilator's build is the cost, not its model
    return runner.run_design(DESIGN, sim, "tb.test_uart", list(tests), env=env, waves=waves,
                             tag="-".join(filter(None, (tag, "clocked" if hdl else "cycle"))),
                             rtl_root=rtl_root, direct=not hdl, clocked=hdl, quiet=True, quick_build=True,
                             short_run=True, plusargs=plusargs)


def uart_regression(sim, rtl_root=None, tag=""):
    """Every test; on a failure, the first failing test again with waves, and its waveform."""
    def replay(outcome):
        failures = outcome.result.get("failures", {})
        if not failures:
            return None
        rerun = run_uart(sim, [next(iter(failures))], waves=True, tag=f"{tag}-replay" if tag else "replay",
                         rtl_root=rtl_root)
        return waveform_path(rerun.sim_dir, sim)

    return runner.require_checked(run_uart(sim, rtl_root=rtl_root, tag=tag), f"uart on {sim}", replay)
