"""What a ``gamechip mutate`` run judges: the request checked, the run folder readied, and the
plan's rows. A row is (row, block, design, mutants, root): its name in the report, the block
whose bench judges its mutants, that block's design, the mutants, and the build they are in
(the schemata copy of rtl/, a netlist root, or rtl/ itself for the --elab copies). The
catalogue (journal.CATALOGUE) records the run's settings, mutants and rows.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

from gamechip.mutation.benches import JUDGES_ON_REQUEST, netlist_blocks
from gamechip.mutation.cluster import connect
from gamechip.mutation.elab import design_files, elab_mutants
from gamechip.mutation.journal import CATALOGUE, JOURNAL, append_entry, identical_entry, read_journal, \
    unproved_survivor
from gamechip.mutation.model import ELAB, ELAB_SUFFIX, NETLIST, NETLIST_SUFFIX, MutateError, spread
from gamechip.mutation.netlist import NetlistError, build, make_root, sample
from gamechip.mutation.schemata import identical_mutants, mutants_in_verilog


def check_request(blocks, known, netlist, source, cluster, elab):
    """MutateError unless ``blocks`` (of ``known``) and the options go together; a cluster's
    address is tried at once, not after minutes of conversion."""
    for block in blocks:
        if block not in known:
            raise MutateError(f"unknown block '{block}': choose from {', '.join(known)}")
    if netlist is not None and netlist < 1:
        raise MutateError(f"--netlist must be at least 1, got {netlist}")
    if cluster and elab:
        raise MutateError("--elab runs here only, not with --cluster: each mutant is a copy of this machine's rtl/")
    if cluster and netlist:
        raise MutateError("--netlist runs here only, not with --cluster: its netlists are files of this machine")
    if cluster:
        connect(cluster).close()
    if netlist:
        others = [b for b in blocks if b not in netlist_blocks()]
        if others and not source:
            raise MutateError(f"no netlist mutants for {', '.join(others)} (their own benches, not the batch "
                              f"harness): choose from {', '.join(netlist_blocks())}")


def ready_folder(out, resume):
    """The journal of the run folder ``out``, made writable; MutateError when it cannot be, or
    holds a run already and ``resume`` is not asked."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise MutateError(f"--out {out}: cannot write there: {error.strerror or error}")
    journal = out / JOURNAL
    if journal.exists() and not resume:
        raise MutateError(f"--out {out} holds a mutation run already: add --resume to go on with it, or choose "
                          f"another folder")
    return journal


def judged_before(journal, retry_survivors):
    """(row, id) -> entry of what a resumed run keeps: every mutant but those that ended in an
    error (a crash, a killed run) and, with ``retry_survivors``, the survivors not proved
    equivalent."""
    return {key: entry for key, entry in read_journal(journal).items() if entry["verdict"] != "error"
            and not (retry_survivors and unproved_survivor(entry))}


def rows_of(blocks, source, netlist, elab):
    """The rows a run of ``blocks`` fills."""
    return set(blocks if source else []) | {b + NETLIST_SUFFIX for b in blocks if netlist and b in netlist_blocks()} \
        | {b + ELAB_SUFFIX for b in blocks if elab}


def start_catalogue(out, sim, quick, rtl_root, rtl_digest, mutants, resume, running):
    """The run's catalogue; resumed, with the rows of the earlier run that this one does not run
    (``running``), while the RTL is the same, so that they stay in its report."""
    catalogue = {"sim": sim, "quick": quick, "rtl_root": str(rtl_root), "rtl_digest": rtl_digest,
                 "mutants": [m.to_dict() for m in mutants], "blocks": {}}
    if resume and (out / CATALOGUE).exists():
        try:
            before = json.loads((out / CATALOGUE).read_text())
        except ValueError as error:
            raise MutateError(f"--out {out}: {CATALOGUE} is damaged ({error}): choose another folder")
        if (before.get("sim"), before.get("quick", False)) != (sim, quick):
            raise MutateError(f"--out {out} was run with --sim {before.get('sim')}"
                              f"{' --quick' if before.get('quick') else ''}: resume it the same way")
        if before.get("rtl_digest") == catalogue["rtl_digest"]:
            catalogue["blocks"] = {b: spec for b, spec in before.get("blocks", {}).items() if b not in running}
            kept = {i for spec in catalogue["blocks"].values() for i in spec["mutants"]}
            known_ids = {m["id"] for m in catalogue["mutants"]}
            catalogue["mutants"] += [m for m in before.get("mutants", [])
                                     if m["id"] in kept and m["id"] not in known_ids]
    return catalogue


def _converted(judges, known, schemata_root, workers):
    """Per block of ``judges``: the mutants its converted schemata design holds, and those of them
    that convert to the original's Verilog byte for byte."""
    from tb.host import runner

    def held(block):
        try:
            sources = runner.hdl_dir(known[block], schemata_root)
        except runner.ConversionFailed as error:
            raise MutateError(f"the schemata build of {known[block]} does not convert: {str(error).splitlines()[0]}")
        text = (sources / f"{known[block]}.v").read_text()
        return mutants_in_verilog(text), identical_mutants(text)

    inside, identical = {}, {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:   # each conversion is a process of its own
        for block, (numbers, same) in zip(judges, pool.map(held, judges)):
            inside[block], identical[block] = numbers, same
    return inside, identical


def source_rows(blocks, known, mutants, schemata_root, limit, workers, catalogue, done, journal, say,
                focused=False):
    """The rows of the source mutants of ``blocks``; the byte-identical ones journaled equivalent
    (into ``done`` too) without a run.

    A mutant is judged by the most focused bench that sees it: the block whose design holds the
    fewest mutants (move_checker's cells there, not in the evaluator's run), among all the blocks
    of its system, so that a narrowed run judges the same mutants by the same benches. With
    ``focused`` (a run of a part of a design's logic, --mentioning) the judges are ``blocks``
    alone: the solve mode's statements are in the two-context engine's design too, whose bench
    never solves, and the named block's bench is the one that exercises them. A block of
    JUDGES_ON_REQUEST judges only when named: the engine with the pattern evaluator holds every
    mutant of the engine and of the pattern evaluator, whose smaller designs judge them, and only
    rtl/pattern_leaf.py's besides; its conversion and build (minutes) are paid when it is asked for."""
    systems = {block.startswith("chess_") for block in blocks}
    judges = sorted(set(blocks) if focused else set(blocks) | {b for b in known if b.startswith("chess_") in systems
                                                               and b not in JUDGES_ON_REQUEST})
    say(f"converting the schemata build of {len(judges)} designs")
    inside, identical = _converted(judges, known, schemata_root, workers)
    owner = {}
    for block in sorted(judges, key=lambda b: (len(inside[b]), b)):
        for number in inside[block]:
            owner.setdefault(number, block)
    rows = []
    for block in blocks:
        design = known[block]
        chosen = [m for m in mutants if owner.get(m.number) == block]
        if limit:
            chosen = spread(chosen, limit)
        catalogue["blocks"][block] = {"design": design, "mutants": [m.id for m in chosen]}
        rows.append((block, block, design, chosen, schemata_root))
        for mutant in chosen:   # equivalent without a simulation
            if mutant.number in identical[block] and (block, mutant.id) not in done:
                entry = identical_entry(mutant, block)
                append_entry(journal, entry)
                done[block, mutant.id] = entry
        say(f"{block}: {len(chosen)} mutants to run on {design} ({len(inside[block])} in its converted Verilog, "
            f"the others judged by a smaller block's bench)")
    return rows


def elab_rows(blocks, known, rtl_root, limit, catalogue, texts, verilog, say):
    """The rows ``<block>:elab``: the elaboration-time mutants of the files each block's design
    is built from (at most ``limit``, spread), their mutated file texts into ``texts`` and the
    original converted Verilog of each design into ``verilog``."""
    from tb.host import runner

    plan = []
    for block in blocks:
        design = known[block]
        try:
            verilog[design] = (runner.hdl_dir(design, rtl_root) / f"{design}.v").read_text()
        except runner.ConversionFailed as error:
            raise MutateError(f"{design} does not convert: {str(error).splitlines()[0]}")
        found = elab_mutants(rtl_root, design_files(rtl_root, design))
        chosen = [m for m, _ in found]
        if limit:
            chosen = spread(chosen, limit)
        texts.update({m.id: text for m, text in found if m in chosen})
        row = block + ELAB_SUFFIX
        known_ids = {m["id"] for m in catalogue["mutants"]}
        catalogue["mutants"] += [m.to_dict() for m in chosen if m.id not in known_ids]
        catalogue["blocks"][row] = {"design": design, "kind": ELAB, "block": block, "mutants": [m.id for m in chosen]}
        plan.append((row, block, design, chosen, rtl_root))
        say(f"{row}: {len(chosen)} of {len(found)} elaboration-time mutants of {design}'s files, one conversion each")
    return plan


def netlist_rows(blocks, known, count, seed, rtl_root, out, catalogue, say):
    """Sample ``count`` netlist mutants of each block's design, build them into one netlist per
    design and the netlist root ``out/netlist``; the plan's rows (catalogue updated)."""
    from tb.host import runner

    plan, netlists = [], {}
    root = out / "netlist"
    for block in blocks:
        design = known[block]
        clock = time.monotonic()
        try:
            original = runner.hdl_dir(design, rtl_root) / f"{design}.v"
            chosen = sample(design, original, count, seed, root / "work" / design)
            netlists[design] = build(design, chosen, root / "work" / design)
        except runner.ConversionFailed as error:
            raise MutateError(f"{design} does not convert: {str(error).splitlines()[0]}")
        except NetlistError as error:
            raise MutateError(f"netlist mutants of {design}: {error}")
        (root / "work" / design / "original.v").write_text(original.read_text())
        row = block + NETLIST_SUFFIX
        catalogue["mutants"] += [m.to_dict() for m in chosen]
        catalogue["blocks"][row] = {"design": design, "kind": NETLIST, "block": block, "root": str(root),
                                    "mutants": [m.id for m in chosen]}
        plan.append((row, block, design, chosen, root))
        say(f"{row}: {len(chosen)} netlist mutants of {design} sampled by Yosys mutate -list {count} -seed {seed} "
            f"and built into one netlist ({time.monotonic() - clock:.1f} s)")
    make_root(rtl_root, root, netlists)
    return plan
