"""The run's proof step: survivors (and, with ``--prove-killed``, a sample of killed mutants)
through the Yosys SAT miter against the original design (proof.py), each verdict journaled
beside the mutant's entry.

A survivor proved equivalent (combinational: under legal boards; sequential: bounded from reset)
counts as equivalent, and a counterexample is kept beside it (corpus.py can make it a bench
case); a killed mutant proved equivalent is a bench bug (report.py).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gamechip.mutation.elab import converted_verilog, work_folder
from gamechip.mutation.journal import JOURNAL, append_entry, read_journal
from gamechip.mutation.model import ELAB, ELAB_SUFFIX, NETLIST, spread
from gamechip.mutation.netlist import CTRL_BITS, netlist_module
from gamechip.mutation.proof import prove, prove_netlist, prove_versions

# Bounded checks of sequential designs: cycles from reset, enough for the block's whole answer
# (a UART frame is 10 bits of UART_DIVISOR cycles each; the others answer within tens of cycles).
PROOF_DEPTH = {"uart": 120, "stable_discs": 40, "openings": 24, "evaluator": 40}
PROOF_TIMEOUT = 300   # seconds of SAT per survivor; beyond it the survivor stays a survivor


def prove_survivors(out, plan, schemata_root, workers, say, survivors=True, killed_sample=0):
    """Every survivor of the run not judged yet: Yosys SAT miter of it against the original
    (gamechip/mutation/proof.py). Proved equivalent (combinational: under legal boards; sequential:
    bounded from reset) -> equivalent; a counterexample is kept beside the survivor.
    ``killed_sample``: also up to this many killed mutants of each row not proved yet (spread over
    files and operators); one proved equivalent is a bench bug (summarise), a counterexample
    confirms the kill. ``survivors`` False: those alone."""
    from rtl.designs import PORTS
    from tb.host import runner
    journal = out / JOURNAL
    entries = read_journal(journal)
    todo = []
    for block, _, design, chosen, root in plan:
        sequential = any(name == "clk" for name, _, _ in PORTS[design])
        if sequential and design not in PROOF_DEPTH:
            continue   # the engine, the processor, the peripheral: too large for a SAT miter here
        depth = PROOF_DEPTH.get(design) if sequential else None
        # an --elab mutant is proved from its own conversion, kept when it was judged
        chosen = [m for m in chosen if m.kind != ELAB or _converted(out, block, m).exists()]
        for mutant in chosen:
            entry = entries.get((block, mutant.id))
            if survivors and entry and entry["verdict"] == "survived" and "proof" not in entry:
                todo.append((block, design, mutant, entry, depth, root))
        killed = [m for m in chosen if entries.get((block, m.id), {}).get("verdict") == "killed"]
        proved = sum(1 for m in killed if "proof" in entries[block, m.id])
        for mutant in spread([m for m in killed if "proof" not in entries[block, m.id]],
                              max(0, killed_sample - proved)):
            todo.append((block, design, mutant, entries[block, mutant.id], depth, root))
    if not todo:
        return
    say(f"proving {len(todo)} mutants against the original design (Yosys SAT miter)")

    # A netlist survivor is proved against its netlist with mutsel 0 (the two share all but the
    # mutated cone: 2-3 times faster) once the netlist with mutsel 0 is proved equivalent to the
    # converted design under the same constraint; else against the converted design itself.
    unmutated = {}
    for block, design, mutant, entry, depth, root in todo:
        if mutant.kind == NETLIST and design not in unmutated:
            work = Path(root) / "work" / design
            proof = prove_netlist((work / "original.v").read_text(), (work / "netlist.v").read_text(), design,
                                  netlist_module(design), 0, CTRL_BITS, PORTS[design], seq_depth=depth,
                                  timeout=PROOF_TIMEOUT)
            unmutated[design] = proof.verdict == "equivalent"
            say(f"{design}'s netlist with mutsel 0 against the converted design: {proof.verdict}"
                f"{': ' + proof.detail if proof.detail else ''} ({proof.seconds:.0f} s)"
                + ("" if unmutated[design] else "; its survivors are proved against the converted design"))

    def one(item):
        block, design, mutant, entry, depth, root = item
        if mutant.kind == ELAB:   # the original's conversion against the mutant copy's
            original = (runner.hdl_dir(design, root) / f"{design}.v").read_text()
            return item, prove_versions(original, _converted(out, block, mutant).read_text(), design, PORTS[design],
                                        seq_depth=depth, timeout=PROOF_TIMEOUT)
        if mutant.kind == NETLIST:   # the converted design against the netlist with mutsel fixed
            work = Path(root) / "work" / design
            original = None if unmutated[design] else (work / "original.v").read_text()
            proof = prove_netlist(original, (work / "netlist.v").read_text(), design, netlist_module(design),
                                  mutant.number, CTRL_BITS, PORTS[design], seq_depth=depth, timeout=PROOF_TIMEOUT)
            if unmutated[design]:
                proof.detail = "; ".join(filter(None, [proof.detail, "against the netlist with mutsel 0, itself "
                                                                     "proved equivalent to the converted design"]))
            return item, proof
        verilog = (runner.hdl_dir(design, schemata_root) / f"{design}.v").read_text()
        return item, prove(verilog, design, mutant.number, PORTS[design], seq_depth=depth, timeout=PROOF_TIMEOUT)

    # a proof takes up to a core and half a gigabyte: one per worker
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for done, ((block, design, mutant, entry, depth, _), proof) in enumerate(pool.map(one, todo), 1):
            record = {"verdict": proof.verdict, "detail": proof.detail, "seconds": proof.seconds}
            if proof.inputs is not None:
                record["inputs"] = proof.inputs
            if depth:
                record["bounded_cycles"] = depth
            if entry["verdict"] == "killed":   # equivalent and killed: the bench rejects a correct design
                append_entry(journal, {**entry, "proof": record})
            else:
                append_entry(journal, {**entry, "proof": record, "equivalent": proof.verdict == "equivalent"})
            say(f"proof {done}/{len(todo)} {block} #{mutant.number} {mutant.operator} at {mutant.file}:{mutant.line}: "
                f"{proof.verdict}{' within %d cycles' % depth if depth and proof.verdict == 'equivalent' else ''}"
                f"{': ' + proof.detail if proof.detail and proof.verdict != 'equivalent' else ''} ({proof.seconds:.0f} s)")



def _converted(out, row, mutant):
    """The converted Verilog of --elab mutant ``mutant`` of ``row``, as elab.judge kept it."""
    return converted_verilog(work_folder(out, row.removesuffix(ELAB_SUFFIX)), mutant)
