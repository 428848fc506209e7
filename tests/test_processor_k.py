"""The processor bench on the processor with K engines (designs ``processor_k2``, ``processor_k3``;
rtl/processor.py ``engines``, docs/k-engines.md; tb/test_processor.py): refereed games over its
pins, every reply and status against the golden processor with K engines, and every job of every
engine against the golden K-engine splitter, clock by clock (its nodes by the job's node
signature). The plans per tier and simulator are tb.blocks PROCESSOR_K_PLANS."""

import pytest

from tb.blocks import processor_plan
from tb.host.processor_bench import run_processor_bench
from tb.host.runner import SIMULATORS


# processor_k2 on Verilator and Icarus in make test, on GHDL in make test-full; processor_k3 (K = 3:
# its conversion and builds cost minutes) on every simulator in make test-full.
@pytest.mark.parametrize("sim,design", [
    pytest.param(sim, design, id=f"{sim}-{design}",
                 marks=pytest.mark.full if design != "processor_k2" or sim == "ghdl" else ())
    for design in ("processor_k2", "processor_k3") for sim in SIMULATORS])
def test_processor_k(sim, design):
    tests, env = processor_plan(sim, design)
    outcome = run_processor_bench(sim, tests, env, design=design)
    if not outcome.passed:
        pytest.fail(f"{design} bench on {sim} ({', '.join(tests)}) failed:\n{outcome.log[-4000:]}", pytrace=False)
