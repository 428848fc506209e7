"""A survivor's SAT counterexample as a corpus case (``gamechip mutate --out DIR --add-to-corpus``).

The miter of a surviving mutant (gamechip/mutation/proof.py) answers with the inputs on which the
mutant and the original differ. For the combinational blocks of the batch harness those inputs
are one bench case: the board (and move, or legal vector and PV) the bench drives. Such a case
is replayed through the block's own bench, ``replay`` test, on the run's schemata build: the
original (``MUTSEL=0``) must match the golden model on it and the mutant must not. Only then is
it written to the regression corpus (tb/host/corpus.py, replayed by tb/test_corpus.py forever after)
with its ``why``, and the mutant's journal entry records it killed by that corpus case.

A counterexample of a sequential block is a trace of inputs per cycle from reset, which no bench
case describes: those survivors are named and left out.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from gamechip.mutation.elab import make_copy
from gamechip.mutation.journal import JOURNAL, append_entry, read_catalogue, read_journal
from gamechip.mutation.model import ELAB, MutateError
from gamechip.mutation.report import CORPUS_TEST, summarise

TAG = "mutate-corpus"


@dataclass
class Outcome:
    mutant_id: str
    block: str
    status: str         # "added", "present" (the same case is in the corpus), "skipped", "refused"
    detail: str
    path: Path = None


def _move_checker(inputs):
    from golden.board import Position
    from tb.checks.combinational import Case, MoveCheckerCheck

    # the side to move owns ``own``: black to move, so the board's X discs are ``own``
    return MoveCheckerCheck(), Case(Position.from_own_opp(inputs["own"], inputs["opp"], False), "counterexample")


def _disc_flipper(inputs):
    from golden.board import Position
    from tb.checks.combinational import Case, DiscFlipperCheck

    position = Position(inputs["black"], inputs["white"], bool(inputs["white_to_move"]))
    return DiscFlipperCheck(), Case(position, "counterexample", move=inputs["move"])


def _node_order(inputs):
    from golden.board import Position
    from tb.checks.node_order import NodeOrderCheck, walk_case

    # The bench walks a legal vector to exhaustion from ``first``, feeding back the golden
    # selections as ``last_move``: the walk reaches the counterexample's step only when its
    # last_move is one of them (else the replay of the mutant passes and the case is refused).
    pv = inputs["pv_move"] if inputs.get("pv_valid") else None
    return NodeOrderCheck(), walk_case(Position(0, 0), "counterexample", inputs["legal"], pv)


CASE_FORMS = {"move_checker": _move_checker, "disc_flipper": _disc_flipper, "node_order": _node_order}


def counterexample_case(design, inputs):
    """(check, Case) of ``design`` driven with the counterexample ``inputs`` (port -> value);
    MutateError when the design has no such form (a sequential trace, another bench)."""
    if isinstance(inputs, list):
        raise MutateError(f"{design}'s counterexample is a trace of {len(inputs)} cycles from reset, not one bench "
                          f"case")
    if design not in CASE_FORMS:
        raise MutateError(f"{design} has no bench case form for a counterexample (only "
                          f"{', '.join(CASE_FORMS)})")
    try:
        return CASE_FORMS[design](inputs)
    except (KeyError, ValueError) as error:
        raise MutateError(f"the counterexample of {design} does not make a case: {error}")


def replay(record, root, number, work):
    """Run ``record``'s case through its bench's ``replay`` test on the build at ``root`` with
    ``+MUTSEL=number``: the runner's RunResult (``actual``: what the block answered)."""
    from tb.host import runner
    from tb.blocks import DESIGN_BLOCK

    # absolute: the simulator runs in its build directory, where a relative --out names nothing
    case_file = (Path(work) / f"case-{number}.json").resolve()
    case_file.parent.mkdir(parents=True, exist_ok=True)
    case_file.write_text(json.dumps(record, indent=2))
    design = record["design"]
    return runner.run_design(design, record["sim"], DESIGN_BLOCK[design].module, ["replay"],
                             env={"GAMECHIP_CASE": str(case_file), "GAMECHIP_SEED": str(record["seed"])},
                             rtl_root=root, quiet=True, tag=TAG, plusargs=[f"+MUTSEL={number}"])


def _why(mutant, block, user_why):
    what = (f"mutant {mutant['id']} ({block}, {mutant['function']}): `{mutant['original']}` -> "
            f"`{mutant['mutated']}` survived the bench; SAT counterexample of gamechip mutate")
    return f"{user_why.strip()}; {what}" if user_why and user_why.strip() else what


def survivors_with_counterexamples(out):
    """(block, mutant, entry) of every survivor of the run in ``out`` whose proof is a counterexample."""
    result = summarise(out)
    entries = read_journal(Path(out) / JOURNAL)
    return [(s["block"], s, entries[s["block"], s["id"]]) for s in result["survivors"]
            if (s.get("proof") or {}).get("verdict") == "counterexample"]


def add_to_corpus(out, ids=None, why=None, folder=None, say=print):
    """Replay and add the counterexamples of the survivors ``ids`` of the run in ``out`` (None:
    every survivor with one); the Outcome of each. MutateError for bad input: not a run folder,
    an id that is not a survivor with a counterexample."""
    from tb.host import corpus
    from tb.host.casefile import write_case_file

    out = Path(out)
    catalogue = read_catalogue(out)
    if not (out / JOURNAL).exists():
        raise MutateError(f"{out} has no {JOURNAL}: the run never started")
    candidates = survivors_with_counterexamples(out)
    if ids:
        by_id = {mutant["id"]: (block, mutant, entry) for block, mutant, entry in candidates}
        for mutant_id in ids:
            if mutant_id not in by_id:
                known = {m["id"] for m in catalogue["mutants"]}
                raise MutateError(f"mutant '{mutant_id}' is " + (
                    "not a survivor with a SAT counterexample in " if mutant_id in known else "not in ") + str(out))
        candidates = [by_id[i] for i in dict.fromkeys(ids)]
    sim = catalogue["sim"]
    outcomes = []
    for block, mutant, entry in candidates:
        spec = catalogue["blocks"][block]
        design = spec["design"]
        try:
            check, case = counterexample_case(design, entry["proof"].get("inputs"))
        except MutateError as error:
            if ids:
                raise
            outcomes.append(Outcome(mutant["id"], block, "skipped", str(error)))
            continue
        record = {"block": check.block, "design": design, "sim": sim, "seed": 1, "rtl_digest": catalogue["rtl_digest"],
                  "case": case.to_dict(), "expected": repr(check.expected(case))}
        root = Path(spec.get("root") or out / "schemata")
        work = out / "corpus-replays" / block.replace(":", "-")
        elab = mutant.get("kind") == ELAB
        if elab:   # no selector: the original is rtl/ itself, the mutant a copy of its own
            root = Path(catalogue["rtl_root"])
        say(f"{mutant['id']}: replaying its counterexample on the original and on the mutant ({sim})")
        original = replay(record, root, 0, work)
        if not original.passed or not original.result.get("checked"):
            message = (original.result.get("failure") or original.log[-400:] or "?").splitlines()[0]
            outcomes.append(Outcome(mutant["id"], block, "refused", "the original design fails the counterexample's "
                                    f"case (a bench or golden-model disagreement, not a gap): {message}"))
            continue
        if elab:
            copy = make_copy(root, design, mutant["id"], work)
            mutated = replay(record, copy, 0, work)
            shutil.rmtree(copy, ignore_errors=True)
        else:
            mutated = replay(record, root, mutant["number"], work)
        if mutated.passed:
            outcomes.append(Outcome(mutant["id"], block, "refused", "the mutant passes the counterexample's case too: "
                                    "the bench's form of it does not reach the inputs the miter found"))
            continue
        failure = mutated.result.get("failure") or ""
        first = next((line for line in failure.splitlines() if line.startswith("MISMATCH")), failure[:200])
        entry_record = {**record, "actual": repr(mutated.actual) if mutated.actual is not None else None,
                        "mutant": {"id": mutant["id"], "block": block, "operator": mutant["operator"],
                                   "original": mutant["original"], "mutated": mutant["mutated"], "run": str(out)}}
        staged = write_case_file(work / f"corpus-{mutant['number']}.json", entry_record)
        path, added = corpus.add(staged, _why(mutant, block, why), folder=folder)
        append_entry(out / JOURNAL, {**entry, "verdict": "killed", "test": f"{CORPUS_TEST}{path.name}",
                                     "message": first[:500], "corpus": str(path)})
        outcomes.append(Outcome(mutant["id"], block, "added" if added else "present",
                                f"original passes, mutant fails: {first}", path))
    return outcomes


def corpus_kills(out, plan, sim, say, folder=None):
    """The regression replays the corpus too (tb/test_corpus.py): every survivor of a
    batch-harness row not proved equivalent is replayed against the corpus cases of its design
    (on the run's simulator) and, when one tells it apart, journaled killed by ``corpus:<file>``.
    A case the original (MUTSEL=0) fails is left out with a note: it would kill every mutant."""
    from tb.host import corpus
    from tb.blocks import DESIGN_BLOCK
    from tb.host.casefile import CaseFileError, read_case_file

    out = Path(out)
    entries = read_journal(out / JOURNAL)
    cases = {}
    for path in corpus.corpus_files(folder):
        try:
            record, _ = read_case_file(path)
        except CaseFileError:
            continue   # tb/test_corpus.py reports a damaged corpus file
        cases.setdefault(record["design"], []).append((path, {**record, "sim": sim}))
    for row, block, design, chosen, root in plan:
        survivors = [m for m in chosen if m.kind != ELAB and (row, m.id) in entries
                     and entries[row, m.id]["verdict"] == "survived" and not entries[row, m.id].get("equivalent")]
        if not survivors or design not in DESIGN_BLOCK or not cases.get(design):
            continue
        work = out / "corpus-replays" / row.replace(":", "-")
        usable = []
        for path, record in cases[design]:
            if replay(record, root, 0, work).passed:
                usable.append((path, record))
            else:
                say(f"{row}: the original fails corpus case {path.name} on {sim}: left out of the survivors' check")
        say(f"{row}: {len(survivors)} survivors against {len(usable)} corpus cases of {design}")
        for mutant in survivors:
            for path, record in usable:
                outcome = replay(record, root, mutant.number, work)
                if not outcome.passed:
                    failure = outcome.result.get("failure") or ""
                    first = next((line for line in failure.splitlines() if line.startswith("MISMATCH")), failure[:200])
                    append_entry(out / JOURNAL, {**entries[row, mutant.id], "verdict": "killed",
                                                 "test": f"{CORPUS_TEST}{path.name}", "message": first[:500]})
                    say(f"{row} #{mutant.number}: killed by corpus case {path.name}")
                    break
