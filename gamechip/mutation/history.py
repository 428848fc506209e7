"""Going back over earlier work: one mutant of a finished mutation run judged again (its new
verdict appended to the run's journal), and the versions of a waived file in git history (the
old sources ``carry_waivers`` compares the waived mutants in)."""

import json
import subprocess
import time
from pathlib import Path

from gamechip.mutation.benches import run_mutant
from gamechip.mutation.journal import CATALOGUE, JOURNAL, append_entry, read_journal, verdict_entry
from gamechip.mutation.model import MutateError, file_digest


def git_file_versions(repo, limit=300):
    """old_source for carry_waivers: the version of a file with the digest asked, found in the
    last ``limit`` commits of ``repo`` that touched the file."""
    cache = {}

    def old_source(path, digest):
        if path not in cache:
            cache[path] = {}
            log = subprocess.run(["git", "-C", str(repo), "log", f"-{limit}", "--format=%H", "--", path],
                                 capture_output=True, text=True)
            for commit in log.stdout.split():
                shown = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                                       capture_output=True, text=True)
                if shown.returncode == 0:
                    cache[path].setdefault(file_digest(shown.stdout), shown.stdout)
        return cache[path].get(digest)

    return old_source


def replay_mutant(out, mutant_id, block=None):
    """One mutant of a finished run again, with waves: its verdict and where the waveform is. A
    source or netlist mutant's new verdict goes into the run's journal (the report counts it)."""
    try:
        catalogue = json.loads((Path(out) / CATALOGUE).read_text())
    except (OSError, ValueError) as error:
        raise MutateError(f"{out} is not a mutation run folder ({CATALOGUE}: {error})")
    mutant = next((m for m in catalogue["mutants"] if m["id"] == mutant_id), None)
    if mutant is None:
        raise MutateError(f"no mutant '{mutant_id}' in {out}")
    holders = [b for b, spec in catalogue["blocks"].items() if mutant_id in spec["mutants"]]
    if block not in holders:
        if block is not None or not holders:
            raise MutateError(f"mutant '{mutant_id}' is not among the mutants of {block or 'any block'} in {out}")
        block = holders[0]
    spec = catalogue["blocks"][block]
    design = spec["design"]
    print(f"mutant {mutant_id} ({block}): {mutant['original']}  ->  {mutant['mutated']}")
    if mutant.get("kind") == "elab":
        return _replay_elab_mutant(out, catalogue, mutant, spec)
    # a netlist row (block:netlist) runs its block's bench on the netlist root
    clock = time.monotonic()
    verdict, test, message = run_mutant(spec.get("block", block), design, catalogue["sim"],
                                        Path(spec.get("root") or Path(out) / "schemata"), mutant["number"],
                                        "mutate-replay", quick=catalogue.get("quick", False))
    print(f"{verdict}{f' by {test}' if test else ''}: {message}")
    if verdict in ("killed", "survived"):   # the mutant as the run built it, judged by today's bench
        earlier = read_journal(Path(out) / JOURNAL).get((block, mutant_id), {})
        append_entry(Path(out) / JOURNAL, verdict_entry(
            mutant_id, mutant["number"], verdict, test, message, time.monotonic() - clock, block=block,
            replayed=True, **{k: earlier[k] for k in ("proof", "equivalent") if k in earlier}))
        print(f"journaled in {Path(out) / JOURNAL} (gamechip report {out} counts it)")
    return 0


def _replay_elab_mutant(out, catalogue, mutant, spec):
    """An --elab mutant again: its copy of rtl/ made, converted and run through the bench."""
    from gamechip.mutation.elab import design_files, elab_mutants, judge
    from tb.host import runner

    root = Path(catalogue["rtl_root"])
    design = spec["design"]
    found = {m.id: (m, text) for m, text in elab_mutants(root, design_files(root, design))}
    if mutant["id"] not in found:
        raise MutateError(f"mutant '{mutant['id']}' is not in {root}/rtl any more (its file changed since the run)")
    again, text = found[mutant["id"]]
    original = (runner.hdl_dir(design, root) / f"{design}.v").read_text()
    verdict, test, message, _ = judge(again, text, spec["block"], design, catalogue["sim"], root,
                                      Path(out) / "elab-replay", 1, catalogue.get("quick", False), 0, original)
    print(f"{verdict}{f' by {test}' if test else ''}: {message}")
    return 0
