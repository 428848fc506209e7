"""``gamechip mutate``: the regression's mutation score on every block.

The package answers one question a module:

- model: the Mutant record, its stable id, the kinds of mutant and the operators they apply;
- schemata: the source mutants of ``rtl/`` and the schemata build that holds them all behind
  ``MUTSEL``, so a design is converted and built once and every mutant is one bench run with its
  plusarg; elab: elaboration-time mutants (``--elab``), a copy of rtl/ each; netlist: Yosys
  netlist mutants of the converted design (``--netlist N``);
- waivers: reviewed equivalent mutants (tb/mutation_waivers.json);
- benches: a block's regression bench run on a mutant or a group of them, under a watchdog;
- plan: the request checked and the run's rows; this module: the run, its rows judged on this
  machine; cluster: judged as Dask tasks instead (``--cluster``, run_shard);
- proving: survivors through the SAT miter (proof); corpus: a survivor's counterexample kept as
  a corpus case (``--add-to-corpus``), and the corpus replayed against the survivors;
- journal: the run folder's catalogue and journal; report: the score.

``MUTSEL=0`` (the original design) must pass a row's bench first, else the row's mutants are
errors; a mutant dies at its first mismatch.

Results go to ``OUT/journal.jsonl`` (one line per mutant, appended as they finish; ``--resume``
skips the mutants already there) and ``OUT/mutants.json`` (the catalogue: id, file, line,
operator, original and mutated source). ``gamechip report OUT`` and ``--json`` give the score,
killed / (killed + survivors not proved equivalent or waived), per block, file, function and
operator, and every survivor with its diff and the command that replays it.

After the run: ``--add-to-corpus`` keeps a survivor's SAT counterexample as a corpus case;
``--prove-killed N`` puts killed mutants through the miter and byte-identical ones through their
bench, and a killed mutant that is equivalent is reported as a bench bug (exit status 3).
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from gamechip.mutation import elab as elaboration
from gamechip.mutation.benches import (groupable, groups, judge, judge_numbers, mutation_blocks, netlist_blocks,
                                       run_baseline)
from gamechip.mutation.cluster import SHARD_SIZE, run_on_cluster
from gamechip.mutation.corpus import corpus_kills
from gamechip.mutation.journal import CATALOGUE, IDENTICAL, append_entry, byte_identical, verdict_entry
from gamechip.mutation.model import ELAB
from gamechip.mutation.plan import (check_request, elab_rows, judged_before, netlist_rows, ready_folder, rows_of,
                                    source_rows, start_catalogue)
from gamechip.mutation.proving import prove_survivors
from gamechip.mutation.report import summarise
from gamechip.mutation.schemata import build_schemata
from gamechip.mutation.waivers import load_waivers

# A row whose mutants run one by one (each a simulator start) weighs this many grouped ones
# when the longest rows are started first.
ALONE_WEIGHT = 5
ROW_WEIGHT = {"processor": 20}   # whole games: a survivor costs a minute or more


def mentioning_mutants(mutants, texts):
    """The mutants of ``mutants`` whose statement (or condition) contains one of ``texts``, or whose
    file one of them names (``rtl/pattern_leaf.py``)."""
    return [m for m in mutants if any(text in m.original or text == m.file for text in texts)]


def run(blocks, sim, out, resume=False, limit=None, workers=1, seed=1, rtl_root=None, progress=None,
        quick=False, prove=True, netlist=None, source=True, prove_killed=0, cluster=None, shard_size=SHARD_SIZE,
        elab=False, recheck_waivers=False, waivers=None, retry_survivors=False, mentioning=()):
    """Generate, build and run the mutants of ``blocks`` on ``sim`` into ``out``; the summary.

    ``limit``: at most this many source mutants per block (spread over its files and operators);
    ``quick``: every bench at its smallest size (a smoke run of the machinery, not a score);
    ``prove``: then a SAT miter of every survivor against the original (prove_survivors);
    ``netlist``: also a sample of this many Yosys netlist mutants per block (netlist.py),
    judged by the same bench, their rows ``<block>:netlist``; ``source``: False, those alone;
    ``prove_killed``: also this many killed mutants per row through the miter, and every
    byte-identical mutant through its bench, so that a bench bug (a killed mutant that is
    equivalent to the original) can show at all (summarise's ``bench_bugs``); ``cluster``: the
    address of a Dask scheduler whose workers run the mutants, ``shard_size`` of them a task
    (run_shard), the journal written here as the shards finish; ``elab``: also the block's
    elaboration-time mutants (gamechip/mutation/elab.py), one conversion each, rows ``<block>:elab``;
    ``recheck_waivers``: also simulate the mutants waived in tb/mutation_waivers.json (``waivers``), which
    are otherwise left unrun: their id pins the file's text, and the reviewed reason says no input
    tells them apart, so a run could only confirm them or show the review wrong (a bench bug);
    ``retry_survivors``: with ``resume``, judge again every survivor not proved equivalent (after
    new bench cases: a mutant's id pins its RTL file, not the bench that judged it); ``mentioning``:
    only the source mutants whose statement contains one of these texts (a part of a design's
    logic, such as the search engine's solve mode), the same in a run and its resumes, each judged
    by the bench of the block named in ``blocks`` whose design holds it."""
    from tb.host import runner

    say = progress or (lambda text: print(f"mutate: {text}", file=sys.stderr, flush=True))
    out = Path(out)
    known = mutation_blocks()
    check_request(blocks, known, netlist, source, cluster, elab)
    journal = ready_folder(out, resume)
    rtl_root = Path(rtl_root or runner.ROOT)
    waivers = load_waivers() if waivers is None else waivers
    schemata_root = out / "schemata"
    mutants = build_schemata(rtl_root, schemata_root) if source else []
    if mentioning:
        mutants = mentioning_mutants(mutants, mentioning)
    done = judged_before(journal, retry_survivors) if resume else {}
    started = time.monotonic()
    catalogue = start_catalogue(out, sim, quick, rtl_root, runner.rtl_digest(rtl_root), mutants, resume,
                                rows_of(blocks, source, netlist, elab))
    plan = []
    if source:
        plan += source_rows(blocks, known, mutants, schemata_root, limit, workers, catalogue, done, journal, say,
                            focused=bool(mentioning))
    if netlist:
        plan += netlist_rows([b for b in blocks if b in netlist_blocks()], known, netlist, seed, rtl_root, out,
                             catalogue, say)
    local = LocalRows(out, journal, done, catalogue["rtl_digest"], schemata_root, rtl_root, sim, seed, quick,
                      workers, prove_killed, say, started)
    if elab:
        plan += elab_rows(blocks, known, rtl_root, limit, catalogue, local.elab_texts, local.elab_verilog, say)
    (out / CATALOGUE).write_text(json.dumps(catalogue, indent=1))
    # the runner switches the cocotb logger's propagation per run: with runs in threads that
    # would leak simulator logs to the console, so it stays off for the whole run
    logging.getLogger("cocotb").propagate = False
    to_run = leave_waived_unrun(plan, set() if recheck_waivers else set(waivers), say)
    if cluster:
        run_on_cluster(cluster, to_run, done, journal, catalogue["rtl_digest"], sim, seed, quick, shard_size,
                       prove_killed, say)
    else:
        local.run(to_run)
    corpus_kills(out, to_run, sim, say)   # before the miter: a survivor the corpus kills needs no proof
    if prove or prove_killed:
        prove_survivors(out, to_run, schemata_root, workers, say, survivors=prove, killed_sample=prove_killed)
    return summarise(out, waivers)


def leave_waived_unrun(plan, unrun, say):
    """The plan without the mutants of ``unrun`` (the waived ones, unless rechecked)."""
    to_run = [(row, block, design, [m for m in chosen if m.id not in unrun], root)
              for row, block, design, chosen, root in plan]
    skipped = sum(len(chosen) for *_, chosen, _ in plan) - sum(len(chosen) for *_, chosen, _ in to_run)
    if skipped:
        say(f"{skipped} waived mutants left unrun (tb/mutation_waivers.json; --recheck-waivers runs them)")
    return to_run


@dataclass
class LocalRows:
    """The plan's mutants judged on this machine. Rows run side by side, each on one worker, so
    that each design is built in one build slot (a Verilator build of a schemata design takes
    minutes); with fewer rows than workers a row's tasks share the rest. The rows' threads pass
    their results to the calling thread, which alone writes the journal."""

    out: Path
    journal: Path
    done: dict                  # (row, id) -> entry of what is judged already
    rtl_digest: str
    schemata_root: Path
    rtl_root: Path
    sim: str
    seed: int
    quick: bool
    workers: int
    prove_killed: int
    say: object
    started: float
    elab_texts: dict = field(default_factory=dict)     # --elab mutant id -> its mutated file
    elab_verilog: dict = field(default_factory=dict)   # design -> its original converted Verilog
    baseline_seconds: dict = field(default_factory=dict)   # row -> its original's simulation seconds
    messages: queue.Queue = field(default_factory=queue.Queue)   # from the rows' threads
    total: int = 0       # mutants of the plan
    finished: int = 0    # of them judged
    lanes: int = 1       # threads per row

    def run(self, to_run):
        self.total = sum(len(chosen) for _, _, _, chosen, _ in to_run)
        self.finished = sum(1 for row, _, _, chosen, _ in to_run for m in chosen if (row, m.id) in self.done)
        rows = self.rows(to_run)
        self.lanes = max(1, max(1, self.workers) // max(1, len(rows)))
        with ThreadPoolExecutor(max_workers=max(1, self.workers)) as pool:
            futures = [pool.submit(self.row_work, *r) for r in rows]
            running = len(futures)
            while running:
                kind, payload = self.messages.get()
                if kind == "row done":
                    running -= 1
                elif kind == "baseline":
                    self.record_baseline(*payload)
                else:
                    self.record_verdict(*payload)
            for future in futures:
                future.result()   # a row that raised

    def rows(self, to_run):
        """(row, block, design, root, todo, identical_todo) of the rows with work, the longest first."""
        rows = []
        for row, block, design, chosen, root in to_run:
            todo = [m for m in chosen if (row, m.id) not in self.done]
            # byte-identical mutants run too under prove_killed: the bench must pass them
            identical_todo = [m for m in chosen if self.prove_killed and m.kind != ELAB
                              and byte_identical(self.done.get((row, m.id)))
                              and "simulated" not in self.done[row, m.id]]
            if todo or identical_todo:
                rows.append((row, block, design, root, todo, identical_todo))
        rows.sort(key=lambda r: -(len(r[4]) + len(r[5])) * ROW_WEIGHT.get(r[1], 1 if groupable(r[1]) else ALONE_WEIGHT))
        return rows

    def judge_one(self, row, block, design, root, mutant):
        """(row, mutant, verdict, test, message, seconds) of one mutant (None: the original)."""
        baseline = self.baseline_seconds.get(row, 0)
        if mutant and mutant.kind == ELAB:
            return (row, mutant, *elaboration.judge(
                mutant, self.elab_texts[mutant.id], block, design, self.sim, self.rtl_root,
                elaboration.work_folder(self.out, block), self.seed, self.quick, baseline, self.elab_verilog[design]))
        number = mutant.number if mutant else 0
        return (row, mutant, *judge(block, design, self.sim, root, number, self.seed, self.quick, baseline))

    def judge_group(self, row, block, design, root, group):
        """[(row, mutant, verdict, test, message, seconds)] of a group of mutants (groups)."""
        if group[0].kind == ELAB:   # groups leaves them one by one: each a copy of rtl/ of its own
            return [self.judge_one(row, block, design, root, group[0])]
        by_number = {m.number: m for m in group}
        return [(row, by_number[number], *verdict) for number, *verdict in judge_numbers(
            block, design, self.sim, root, list(by_number), self.seed, self.quick, self.baseline_seconds.get(row, 0))]

    def row_work(self, row, block, design, root, todo, identical_todo):
        """One row in a worker thread: its original once (unless journaled), then its mutants."""
        try:
            if not self.original_passes(row, block, design, root, todo):
                return
            tasks = [(self.judge_group, group) for group in groups(block, todo, self.lanes)]
            tasks += [(lambda *task: [self.judge_one(*task)], m) for m in identical_todo]
            with ThreadPoolExecutor(max_workers=self.lanes) as pool:
                futures = [pool.submit(function, row, block, design, root, item) for function, item in tasks]
                for future in as_completed(futures):
                    for result in future.result():
                        self.messages.put(("result", (result, result[1] in identical_todo)))
        finally:
            self.messages.put(("row done", row))

    def original_passes(self, row, block, design, root, todo):
        """Whether the row's original design passes its bench (run now unless journaled); its
        simulation's seconds become the measure of the row's mutants."""
        # a netlist row's baseline is its netlist with mutsel 0: named by the netlist root's digest
        from tb.host import runner

        baseline_id = f"{row}:baseline:{self.rtl_digest if root == self.schemata_root else runner.rtl_digest(root)}"
        if self.done.get((row, baseline_id), {}).get("verdict") == "baseline":
            previous = self.done[row, baseline_id]
            self.baseline_seconds[row] = previous.get("run_seconds", previous.get("seconds", 0))
            return True
        verdict, test, message, seconds, run_seconds = run_baseline(block, design, self.sim, root, self.seed,
                                                                    self.quick)
        entry = {"id": baseline_id, "block": row, "verdict": "baseline" if verdict == "survived"
                 else "baseline-failed", "test": test, "message": message, "seconds": round(seconds, 2)}
        if verdict == "survived":   # its simulation alone: the time a mutant's run is measured against
            entry["run_seconds"] = round(run_seconds, 2)
        self.messages.put(("baseline", (row, entry, todo)))
        if entry["verdict"] != "baseline":
            return False
        self.baseline_seconds[row] = entry["run_seconds"]
        return True

    def record_baseline(self, row, entry, todo):
        append_entry(self.journal, entry)
        if entry["verdict"] != "baseline":
            self.say(f"{row}: the original design (MUTSEL=0) fails its bench: {entry['message']}; its mutants "
                     f"are errors")
            for mutant in todo:   # the byte-identical ones keep their verdict
                append_entry(self.journal, {"id": mutant.id, "block": row, "number": mutant.number,
                                            "verdict": "error", "message": "MUTSEL=0 failed", "seconds": 0})
        else:
            self.say(f"{row}: MUTSEL=0 passes ({entry['seconds']:.1f} s with the build, {entry['run_seconds']:.1f} s "
                     f"of it simulating)")

    def record_verdict(self, result, identical):
        row, mutant, verdict, test, message, seconds = result
        if identical:
            append_entry(self.journal, {**self.done[row, mutant.id], "simulated": {
                "verdict": verdict, "test": test, "message": message[:500], "seconds": round(seconds, 2)}})
            self.say(f"{row} #{mutant.number} (byte-identical) through its bench: {verdict}"
                     f"{f' by {test}: BENCH BUG' if verdict == 'killed' else ''}")
            return
        entry = verdict_entry(mutant.id, mutant.number, verdict, test, message, seconds, block=row)
        if verdict == "identical":   # an --elab copy that converts to the original's Verilog
            entry.update(verdict="survived", equivalent=True,
                         proof={"verdict": "equivalent", "seconds": 0, "detail": IDENTICAL})
        append_entry(self.journal, entry)
        self.finished += 1
        elapsed = time.monotonic() - self.started
        self.say(f"{self.finished}/{self.total} {row} #{mutant.number} {mutant.operator} at "
                 f"{mutant.file}:{mutant.line}: {verdict}{f' by {test}' if test else ''} ({seconds:.1f} s; {elapsed / 60:.1f} min)")
