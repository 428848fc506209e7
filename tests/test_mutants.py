"""The benches must fail on broken RTL: each mutant is a copy of rtl/ with one deliberate bug,
converted and run through its block's regression tests on Icarus. A mutant that passes means
a bench that cannot see that bug. The failure must be a named case with board text.
"""

from pathlib import Path

import pytest

from tb.host import runner
from tb.host.casefile import read_case_file
from tb.blocks import DESIGN_BLOCK
from tb.host.planted import PLANTED_BUGS, copy_with_edits

# name: (design, file in rtl/, text to replace, replacement[, more text, its replacement ...]): the
# planted bugs of tb/host/planted.py in the blocks of the batch harness, which gamechip plant writes
# too (the search engine's run through its own bench: tests/test_search_mutants.py)
MUTANTS = {name: bug for name, bug in PLANTED_BUGS.items() if bug[0] in DESIGN_BLOCK}


def mutant_tag(name):
    """The build-directory tag of a mutant: its name with every non-alphanumeric a dash."""
    return "mutant-" + "".join(c if c.isalnum() else "-" for c in name)[:40]


def mutant_root(tmp_path, file, *edits):
    """A copy of rtl/ with ``edits`` (text, replacement, text, replacement, ...) applied to ``file``."""
    return copy_with_edits(tmp_path / "mutant", file, tuple(zip(edits[::2], edits[1::2])))


# make test runs one mutant per block, the cheapest that its bench kills; make test-full runs the
# others (marked full). The chess mutants cost ~15 s each on Icarus: they run in make mutants
# (pytest -m extended).
DEFAULT_MUTANTS = ("move_checker drops one direction", "neighbours wrap from one row into the next (4x4 flipper)",
                   "stable_discs inner square ignores one diagonal", "node_order does not try the PV move first",
                   "evaluator wraps instead of saturating", "openings forgets it left the book")


def tiered(names, default):
    """pytest params of ``names``: those in ``default`` as they are, the others marked full."""
    return [name if name in default else pytest.param(name, marks=pytest.mark.full) for name in names]


MUTANT_PARAMS = [pytest.param(name, marks=pytest.mark.extended) if name.startswith("chess") else param
                 for name, param in zip(MUTANTS, tiered(MUTANTS, DEFAULT_MUTANTS))]


@pytest.mark.parametrize("name", MUTANT_PARAMS)
def test_mutant_is_caught(name, tmp_path):
    design, file, *edits = MUTANTS[name]
    block = DESIGN_BLOCK[design]
    outcome = runner.run_design(
        design, "icarus", block.module, list(block.tests), tag=mutant_tag(name),
        env={"GAMECHIP_SEED": "1", "GAMECHIP_COUNT": str(min(300, block.counts["icarus"]))},
        rtl_root=mutant_root(tmp_path, file, *edits),
    )
    assert not outcome.passed, f"mutant '{name}' passed every {design} test: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH" in message and "board:" in message and "case:" in message, (
        f"mutant '{name}' failed without a named case:\n{outcome.log[-3000:]}")
    for test, failure in outcome.result["failures"].items():
        print(f"{name}: caught by test {test}, {failure.split('case:')[1].splitlines()[0].strip()}")


# The uart bench drives the converted design bit by bit (no batch harness, no positions), so its
# mutants run through its own runner and must fail with a named frame: byte, expected, actual.
UART_MUTANTS = {
    "uart receiver ignores the stop bit": (
        "uart.py",
        "            if rx_sync:\n                data.next = shift",
        "            if rx_sync or not rx_sync:\n                data.next = shift"),
    # found by gamechip mutate (a stuck-at that survived every test until rx_glitch sent a frame
    # right after a glitch): after a glitch it waits to see the line high again first
    "uart receiver waits for idle again after a glitch": (
        "uart.py",
        "state.next = RX_IDLE  # high again", "state.next = RX_WAIT_IDLE  # high again"),
}


@pytest.mark.parametrize("name", tiered(UART_MUTANTS, ("uart receiver ignores the stop bit",)))
def test_uart_mutant_is_caught(name, tmp_path):
    from tb.host.uart_bench import run_uart

    file, *edits = UART_MUTANTS[name]
    outcome = run_uart("icarus", tag=mutant_tag(name), rtl_root=mutant_root(tmp_path, file, *edits), seed=1)
    assert not outcome.passed, f"mutant '{name}' passed every uart test: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH in uart" in message and "byte 0x" in message and "expected:" in message, (
        f"mutant '{name}' failed without a named frame:\n{outcome.log[-3000:]}")
    for test, failure in outcome.result["failures"].items():
        print(f"{name}: caught by test {test}, {failure.splitlines()[1]}")


# The co-design peripheral's bench drives the AXI4-Lite bus (no batch harness): its mutants run
# through its own runner (the fast tests, not the replayed searches) and must fail with a named
# transaction: what was read or written, expected and actual.
AXI_MUTANTS = {
    "evaluator_axi rebuilds with the wrong colour's equation": (
        "evaluator_axi.py",
        "                        if address[7]:   # white moved",
        "                        if not address[7]:   # white moved"),
    "evaluator_axi picks the parent one level off": (
        "evaluator_axi.py",
        "            parent_index.next = depth - change_k\n",
        "            parent_index.next = depth - change_k - 1\n"),
    "evaluator_axi ignores a pass (cb = 0)": (
        "evaluator_axi.py",
        "                    else:\n                        if address[7]:",
        "                    elif change_bits != 0:\n                        if address[7]:"),
    "evaluator_axi answers reads with a stale result (never refreshed)": (
        "evaluator_axi.py",
        "            result_value.next = adaptive_value",
        "            result_value.next = result_value"),
    # found by gamechip mutate: no sequence read STATUS after a changeboard sent before any board
    "evaluator_axi gives no reason for a changeboard before any board": (
        "evaluator_axi.py",
        "                        refused.next = NO_BOARD", "                        refused.next = 0"),
    # found by gamechip mutate: no sequence wrote a whole-board word between a changeboard's words
    "evaluator_axi keeps a changeboard low word across a whole-board write": (
        "evaluator_axi.py",
        "                low_valid.next = 0\n                if address == 0x01C:",
        "                low_valid.next = 1\n                if address == 0x01C:"),
}


@pytest.mark.parametrize("name", tiered(AXI_MUTANTS, (
    "evaluator_axi keeps a changeboard low word across a whole-board write",)))
def test_evaluator_axi_mutant_is_caught(name, tmp_path):
    from tb.host.evaluator_axi_bench import run_evaluator_axi

    file, *edits = AXI_MUTANTS[name]
    root = mutant_root(tmp_path, file, *edits)
    outcome = run_evaluator_axi("icarus", ["register_map", "random_transactions", "games_with_backtracks"],
                                tag=mutant_tag(name), rtl_root=root)
    assert not outcome.passed, f"mutant '{name}' passed every evaluator_axi test: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH in evaluator_axi" in message and "expected:" in message, (
        f"mutant '{name}' failed without a named transaction:\n{outcome.log[-3000:]}")
    for test, failure in outcome.result["failures"].items():
        print(f"{name}: caught by test {test}, {failure.splitlines()[0]}")
    record, case = read_case_file(outcome.failure_case)   # the case the report names, readable as such
    assert f"case file: {outcome.failure_case}" in message and case["test"] == next(iter(outcome.result["failures"]))
    assert Path(record["rtl_root"]) == Path(root), "the case replays on the RTL it failed on"


@pytest.mark.full
@pytest.mark.parametrize("streamed", [False, pytest.param(True, marks=pytest.mark.extended)])
def test_an_evaluator_axi_case_replays_on_the_rtl_it_failed_on(streamed, tmp_path):
    """gamechip replay takes the peripheral's case file: the mutant fails again (its failing test
    run whole, or its stream with the stalls it was played with, with a waveform), and the same
    case passes on the project's RTL."""
    import os
    import subprocess
    import sys

    from tb.host.evaluator_axi_bench import run_evaluator_axi, run_stream

    name = "evaluator_axi answers reads with a stale result (never refreshed)"
    root = mutant_root(tmp_path, *AXI_MUTANTS[name])
    tag = mutant_tag(name) + ("-stream" if streamed else "")
    outcome = run_stream("verilator", tag=tag, rtl_root=root) if streamed else \
        run_evaluator_axi("icarus", ["random_transactions"], tag=tag, rtl_root=root)
    assert not outcome.passed and outcome.failure_case.exists(), outcome.log[-3000:]
    _, case = read_case_file(outcome.failure_case)
    assert case["test"] == ("searches_streamed" if streamed else "random_transactions")
    assert not streamed or (case["stalls"] and Path(case["stream"]).is_file())

    def replay(*env):
        return subprocess.run([sys.executable, "-m", "gamechip", "replay", str(outcome.failure_case), "--waves"],
                              cwd=runner.ROOT, capture_output=True, text=True, timeout=1800,
                              env={**os.environ, **dict(env)})

    again = replay()
    assert again.returncode == 1 and "still fails; waveform: " in again.stderr, again.stderr[-3000:]
    assert "MISMATCH in evaluator_axi" in again.stderr
    fixed = replay(("GAMECHIP_RTL_ROOT", str(runner.ROOT)))
    assert fixed.returncode == 0 and "the case no longer fails" in fixed.stdout, fixed.stderr[-3000:]


# The same peripheral under the streamed replay on Verilator (whole NegaScout searches of both
# transfer models played by the HDL harness): a wrong rebuild and a stale answer must be named
# at their transaction there too.
STREAMED_AXI_MUTANTS = ("evaluator_axi rebuilds with the wrong colour's equation",
                        "evaluator_axi answers reads with a stale result (never refreshed)")
# Found by gamechip mutate, caught only by the stream: an unaligned address (AxiLiteMaster aligns
# it and sets byte strobes), and a master that is not ready for the response (the stream's stalls).
STREAM_ONLY_AXI_MUTANTS = {
    "evaluator_axi takes a changeboard word at an unaligned address": (
        "evaluator_axi.py",
        "elif address[12:8] == 1 and address[2:0] == 0:", "elif address[12:8] == 1:"),
    "evaluator_axi drops a write response the master is not ready for": (
        "evaluator_axi.py",
        "        if bvalid and s_axil_bready:", "        if bvalid or s_axil_bready:"),
}


# In make mutants only (a Verilator build each, ~30 s): the regression's time. The streamed bench
# itself runs in the regression (tb/test_evaluator_axi.py), and make mutate's peripheral row
# puts every mutant of it through that bench.
@pytest.mark.extended
@pytest.mark.parametrize("name", STREAMED_AXI_MUTANTS + tuple(STREAM_ONLY_AXI_MUTANTS))
def test_evaluator_axi_mutant_is_caught_streamed(name, tmp_path):
    from tb.host.evaluator_axi_bench import run_stream

    file, *edits = {**AXI_MUTANTS, **STREAM_ONLY_AXI_MUTANTS}[name]
    outcome = run_stream("verilator", tag=mutant_tag(name) + "-stream", rtl_root=mutant_root(tmp_path, file, *edits))
    assert not outcome.passed, f"mutant '{name}' passed the streamed searches: the replay cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH in evaluator_axi" in message and "expected:" in message and "transaction" in message, (
        f"mutant '{name}' failed without a named transaction:\n{outcome.log[-3000:]}")
    print(f"{name}: {message.splitlines()[0]}")
