"""Judging mutants on the benches: a block's regression bench run on one mutant of a build
(``+MUTSEL=k``; 0 is the original design), or on a group of them in one run where the bench can,
each run under a watchdog that kills a mutant's hung simulation.

A mutant dies at its first mismatch, and the test that killed it says whether the directed set
or only the random positions see it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import threading
import time
from pathlib import Path

from gamechip.mutation.model import ELAB, MUTSEL

STREAMED = "evaluator_axi"   # mutated through its streamed searches (tb/test_evaluator_axi.py)
INTERLEAVED = "search_c2"   # the engine with two contexts (rtl/contexts.py), its per-cycle monitor
# the sequential blocks with benches of their own (the design is the block's name); the search
# bench runs at its "small" scale per mutant (its regression scale, "large", takes 90 s a run),
# the interleaved engine's at its regression scale ("tiny": every cycle passes through Python)
PATTERN_ENGINE = "search_pattern"   # the engine with the pattern evaluator: rtl/pattern_leaf.py's judge
OWN_BENCHES = ("search", INTERLEAVED, PATTERN_ENGINE, "uart", "processor", STREAMED)
JUDGES_ON_REQUEST = (PATTERN_ENGINE,)   # judge only in a run that names them (plan.source_rows)
SEARCH_SCALE = "small"
# --quick (the regression's sample): every bench at its smallest size, to prove the machinery
QUICK_SEARCH_SCALE, QUICK_COUNT = "tiny", 256


def mutation_blocks():
    """Block name -> its 8x8 design: the batch-harness blocks and the streamed peripheral."""
    from tb.blocks import BLOCKS

    blocks = {name: block.designs[0] for name, block in BLOCKS.items()}
    blocks.update({name: name for name in OWN_BENCHES})
    return blocks



def netlist_blocks():
    """The blocks that take netlist mutants: those of the batch harness (tb/blocks.py)."""
    from tb.blocks import BLOCKS

    return list(BLOCKS)


def run_mutant(block, design, sim, root, number, tag, seed=1, quick=False, group=None):
    """Run ``block``'s regression bench on mutant ``number`` (0: the original) of the schemata
    build at ``root``; (verdict, the test that failed or None, first line of its failure).
    ``group``: instead, the environment of a group run (judge_group), which judges its mutants
    inside the bench and passes."""
    from tb.host import runner
    from tb.sim.batch import FIRST_FAILURE_ENDS_RUN
    from tb.blocks import BLOCKS

    plusargs = [] if group else [f"+{MUTSEL}={number}"]
    group = group or {}
    os.environ[FIRST_FAILURE_ENDS_RUN] = "1"   # every bench run of this process (the simulators inherit it)
    if block == STREAMED:
        from tb.host.evaluator_axi_bench import run_stream
        outcome = run_stream(sim, rtl_root=root, tag=tag, plusargs=plusargs)
    elif block == "search":
        from tb.host.search_bench import run_search_bench
        outcome = run_search_bench(sim, ["directed", "random_play", "endgame", "solve_directed", "solve"],
                                   QUICK_SEARCH_SCALE if quick else SEARCH_SCALE, seed, tag=tag,
                                   rtl_root=root, plusargs=plusargs)
    elif block == PATTERN_ENGINE:
        from tb.host.search_bench import run_search_bench
        outcome = run_search_bench(sim, ["directed", "random_play", "endgame", "solve_directed", "pattern_directed"],
                                   QUICK_SEARCH_SCALE if quick else SEARCH_SCALE, seed, tag=tag, rtl_root=root,
                                   plusargs=plusargs, design=PATTERN_ENGINE)
    elif block == INTERLEAVED:
        from tb.host.search_bench import run_search_bench
        outcome = run_search_bench(sim, ["directed", "random_play", "endgame"], "tiny", seed, tag=tag,
                                   rtl_root=root, plusargs=plusargs, monitor="python", design=INTERLEAVED)
    elif block == "uart":
        from tb.host.uart_bench import run_uart
        outcome = run_uart(sim, tag=tag, rtl_root=root, seed=seed, plusargs=plusargs)
    elif block == "processor":
        from tb.blocks import PROCESSOR_MUTATION_PLAN as MUTATION_PLAN
        from tb.host.processor_bench import run_processor_bench
        tests, env = MUTATION_PLAN[sim]
        outcome = run_processor_bench(sim, tests, {**env, "GAMECHIP_SEED": str(seed), **group}, tag=tag,
                                      rtl_root=root, plusargs=plusargs)
    else:
        spec = BLOCKS[block]
        count = min(spec.counts[sim], QUICK_COUNT) if quick else spec.counts[sim]
        env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_COUNT": str(count), **group}
        outcome = runner.run_design(design, sim, spec.module, list(spec.tests), env=env, rtl_root=root, quiet=True,
                                    quick_build=spec.quick_build, tag=tag, plusargs=plusargs)
    if group:
        return outcome
    _SIMULATION.seconds = outcome.run_seconds
    failures = outcome.result.get("failures") or {}
    if outcome.passed:
        # the processor's bench asserts every reply and records no count
        if not outcome.result.get("checked") and block != "processor":
            return "error", None, "the bench passed without checking anything"
        return "survived", None, ""
    if failures:
        test, message = next(iter(failures.items()))
        return "killed", test, message.splitlines()[0] if message else ""
    if not outcome.simulator_ran:
        errors = [line.strip() for line in (outcome.log or "").splitlines() if "error" in line.lower()]
        return "error", None, f"{NOT_BUILT}: {(errors or ['no simulator output'])[0]}"[:400]
    failed = _FAILED_TEST.search(outcome.log or "")
    if failed:   # a bench that reports by assertion (the processor's), or a run the mutant hung or crashed
        lines = [line.strip() for line in (outcome.log or "").splitlines()
                 if "MISMATCH" in line or "AssertionError" in line or "Error" in line]
        return "killed", failed.group(1), (lines[0] if lines else "the test failed")[:300]
    return "error", None, (outcome.log or "the simulation failed before running a test")[-400:]


NOT_BUILT = "the design did not build"   # run_mutant's message when no simulator ever started
# run_mutant's last run in this thread: its simulation's seconds, the build left out (run_baseline)
_SIMULATION = threading.local()
_FAILED_TEST = re.compile(r"Failed: [\w.]+::(\w+)")


# A mutant's run may take TIMEOUT_FACTOR times its original's (its simulation alone, the build left out), at least
# MIN_TIMEOUT seconds; then its simulator is killed and the mutant counts as killed by "timeout".
TIMEOUT_FACTOR, MIN_TIMEOUT = 3, 60


class Watchdog:
    """Kills the simulator processes of one build slot (their command line names the slot's build
    directory) once ``limit`` seconds have passed; None: no limit."""

    def __init__(self, design_part, slot_part, limit):
        self.fired = False
        self.design_part, self.slot_part = design_part, slot_part
        self.timer = threading.Timer(limit, self._fire) if limit else None
        if self.timer:
            self.timer.daemon = True
            self.timer.start()

    def _fire(self):
        self.fired = True
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if self.design_part in command and self.slot_part in command:
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except OSError:
                    pass

    def cancel(self):
        if self.timer:
            self.timer.cancel()


# Mutants of a batch-harness block judged in one run of its bench: a group pays one simulator
# start and one golden model for all of them; its size bounds what a crash or hang costs again.
GROUP_SIZE = 32


def groupable(block):
    """Whether ``block``'s bench judges a group of mutants in one run: the batch-harness blocks
    (tb.sim.batch check_group) and the processor (each_mutant per test)."""
    from tb.blocks import BLOCKS

    return block in BLOCKS or block == "processor"


def groups(block, mutants, workers):
    """``mutants`` of a row as the tasks that judge them: groups of a batch-harness block's
    source or netlist mutants (spread so that every worker gets one), one by one otherwise."""
    if not groupable(block) or any(m.kind == ELAB for m in mutants):
        return [[m] for m in mutants]
    size = max(1, min(GROUP_SIZE, -(-len(mutants) // max(1, workers))))
    return [mutants[first:first + size] for first in range(0, len(mutants), size)]


def judge_numbers(block, design, sim, root, numbers, seed, quick, baseline_seconds):
    """Mutants ``numbers`` of ``block`` judged: as a group where its bench can, else one by one;
    [(number, verdict, test, message, seconds)]."""
    if groupable(block) and len(numbers) > 1:
        return judge_group(block, design, sim, root, numbers, seed, quick, baseline_seconds)
    return [(number, *judge(block, design, sim, root, number, seed, quick, baseline_seconds)) for number in numbers]


def judge_group(block, design, sim, root, numbers, seed, quick, baseline_seconds):
    """A group of a batch-harness block's mutants judged in one run of its bench (tb.sim.batch
    check_group: each chunk's golden values made once, one simulator start for all of them);
    [(number, verdict, test, message, seconds)]. The run is watched as a mutant's is, with the
    limit of all of them together; a mutant it left unjudged (the run crashed or hung on it, or
    was killed) is judged alone afterwards (judge), so a bad mutant costs only itself."""
    from tb.sim.batch import MUTANT_GROUP, MUTANT_VERDICTS
    from tb.host.slots import slot_tag, take_slot

    slot, lock = take_slot(design, sim)
    limit = max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline_seconds) * len(numbers)
    watchdog = Watchdog(f"/{design}-{sim}-", slot_tag(slot), limit)
    try:
        with tempfile.TemporaryDirectory(prefix="gamechip-mutants-") as folder:
            verdicts = Path(folder) / "verdicts.json"
            outcome = run_mutant(block, design, sim, root, 0, slot_tag(slot), seed, quick, group={
                MUTANT_GROUP: ",".join(str(n) for n in numbers), MUTANT_VERDICTS: str(verdicts)})
            state = json.loads(verdicts.read_text()) if verdicts.exists() else {"killed": {}, "seconds": {}}
    finally:
        watchdog.cancel()
        lock.close()
    complete = outcome.passed and not watchdog.fired and (outcome.result.get("checked") or block == "processor")
    results, alone = [], []
    for number in numbers:
        seconds = state["seconds"].get(str(number), 0.0)
        killed = state["killed"].get(str(number))
        if killed:
            results.append((number, "killed", killed["test"], killed["message"], seconds))
        elif complete:
            results.append((number, "survived", None, "", seconds))
        else:
            alone.append(number)
    for number in alone:
        verdict, test, message, seconds = judge(block, design, sim, root, number, seed, quick, baseline_seconds)
        results.append((number, verdict, test, message, seconds))
    return results


def judge(block, design, sim, root, number, seed, quick, baseline_seconds, limited=None):
    """One run of ``block``'s bench on mutant ``number`` (0: the original) of the build at
    ``root``, in a build slot of this machine, under the watchdog (a mutant may take
    TIMEOUT_FACTOR times ``baseline_seconds``; ``limited``: whether the run is a mutant's, by
    default when ``number`` is not 0); (verdict, test, message, seconds)."""
    from tb.host.slots import slot_tag, take_slot

    slot, lock = take_slot(design, sim)
    limited = bool(number) if limited is None else limited
    limit = max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline_seconds) if limited else None
    watchdog = Watchdog(f"/{design}-{sim}-", slot_tag(slot), limit)
    try:
        clock = time.monotonic()
        verdict, test, message = run_mutant(block, design, sim, root, number, slot_tag(slot), seed, quick)
        if watchdog.fired:   # the mutant hung its bench: a failure the bench would show by never ending
            verdict, test, message = "killed", "timeout", f"no end within {limit:.0f} s (the original: " \
                                                          f"{baseline_seconds:.0f} s)"
        return verdict, test, message, time.monotonic() - clock
    finally:
        watchdog.cancel()
        lock.close()


def run_baseline(block, design, sim, root, seed, quick):
    """The original (mutant 0) through ``block``'s bench once, as judge runs it: (verdict, test,
    message, seconds with the build, seconds of its simulation alone). The second is what a
    mutant's run is measured against: the same run's simulation with the build left out, so a
    row runs its original once."""
    _SIMULATION.seconds = None
    verdict, test, message, seconds = judge(block, design, sim, root, 0, seed, quick, 0)
    simulated = _SIMULATION.seconds
    return verdict, test, message, seconds, seconds if simulated is None else simulated

