"""Mutation commands: mutate (the regression's mutation score, and actions on a finished run)
and carry-waivers (the waivers re-keyed after an RTL edit)."""

import os
import sys

from gamechip.cli.arguments import natural
from gamechip.cli.common import UsageError
from gamechip.installation import require

# gamechip mutate / report on a mutation run: 0 scored, 1 mutants that could not be judged
# (errors), 2 bad input, 3 a bench bug (a killed mutant equivalent to the original), which wins
BENCH_BUG_STATUS = 3


def mutation_exit_status(result):
    return BENCH_BUG_STATUS if result["bench_bugs"] else 1 if result["errors"] else 0


def mutate_arguments(parser):
    from gamechip.mutation.benches import mutation_blocks

    parser.epilog = ("exit status: 0 scored; 1 mutants that could not be judged (errors), or a "
                     "counterexample --add-to-corpus refused; 2 bad input; 3 a bench bug: a killed mutant "
                     "that is equivalent to the original (gamechip report DIR exits 3 then too)")
    parser.add_argument("--blocks", nargs="+", metavar="BLOCK",
                        help=f"blocks to mutate, one or more of {', '.join(mutation_blocks())} (default: every one, "
                             "Reversi and chess)")
    parser.add_argument("--sim", default="verilator", choices=("verilator", "icarus"),
                        help="the simulator of the benches: verilator (the default) or icarus")
    parser.add_argument("--out", required=True, help="results folder (journal.jsonl, mutants.json, report.md)")
    parser.add_argument("--resume", action="store_true", help="go on with the run in --out, skipping finished mutants")
    parser.add_argument("--limit", type=int, help="at most N mutants per block, spread over files and operators")
    parser.add_argument("--mentioning", nargs="+", metavar="TEXT",
                        help="only the source mutants whose statement contains one of these texts, or whose file "
                             "one of them names (e.g. --blocks search --mentioning solv winner_scoring final_value "
                             "overflow: the solve mode's logic; --blocks search_pattern --mentioning "
                             "rtl/pattern_leaf.py); default: every source mutant")
    parser.add_argument("--netlist", type=int, metavar="N",
                        help="also N Yosys netlist mutants per block (as mcy samples them), all in one netlist per "
                             "design behind a mutsel input; report rows <block>:netlist")
    parser.add_argument("--netlist-only", action="store_true", help="with --netlist: no source mutants")
    parser.add_argument("--elab", action="store_true",
                        help="also elaboration-time mutants (the code that builds a design: loop bounds, masks, "
                             "tables), one conversion each; report rows <block>:elab")
    parser.add_argument("--elab-only", action="store_true",
                        help="--elab without the source mutants (as --netlist-only for netlist mutants)")
    parser.add_argument("--jobs", type=int, help="parallel runs on this machine (default: one per core)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="run the mutants on the workers of this Dask distributed scheduler (each builds the "
                             "schemata of its own RTL, which must be the same); the journal is kept here")
    parser.add_argument("--shard-size", type=int, metavar="N",
                        help="with --cluster: mutants per cluster task (default 32)")
    parser.add_argument("--no-prove", action="store_true",
                        help="leave survivors unproved (no Yosys SAT miter against the original)")
    parser.add_argument("--prove-killed", type=int, metavar="N",
                        help="also N killed mutants per block through the SAT miter and every byte-identical mutant "
                             "through its bench: one equivalent yet killed is a bench bug (exit status 3)")
    parser.add_argument("--retry-survivors", action="store_true",
                        help="with --resume: judge every survivor not proved equivalent again (after new bench "
                             "cases)")
    parser.add_argument("--recheck-waivers", action="store_true",
                        help="also run the mutants waived in tb/mutation_waivers.json (left unrun otherwise); one "
                             "killed is a bench bug or a wrong waiver (exit status 3)")
    parser.add_argument("--quick", action="store_true",
                        help="every bench at its smallest size: a smoke run of the machinery, not a score")
    parser.add_argument("--seed", type=natural, default=1, help="seed of the benches' random positions (default 1)")
    parser.add_argument("--replay", metavar="ID", help="run one mutant of --out again and say how it ends")
    parser.add_argument("--add-to-corpus", nargs="*", metavar="ID",
                        help="of the finished run in --out: replay these survivors' SAT counterexamples (none named: "
                             "every one) on the original, which must pass, and on the mutant, which must fail, then "
                             "add each to the regression corpus and record the mutant killed by it")
    parser.add_argument("--why", help="with --add-to-corpus: which gap the cases close (kept in the corpus file, "
                                      "before the mutant's own description)")
    parser.add_argument("--json", action="store_true", help="print the per-block scores as one JSON object")


def run_mutate(args):
    if args.cluster:
        require("cluster", "--cluster")
    from gamechip.mutation.benches import mutation_blocks
    from gamechip.mutation.cluster import SHARD_SIZE
    from gamechip.mutation.model import MutateError
    from gamechip.mutation.mutate import run
    from gamechip.mutation.report import print_summary

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.cluster and args.jobs is not None:
        raise UsageError("--jobs sets the local runs at once; with --cluster the cluster's workers run the mutants")
    if args.shard_size is not None and not args.cluster:
        raise UsageError("--shard-size goes with --cluster (the mutants of one cluster task)")
    if args.shard_size is not None and args.shard_size < 1:
        raise UsageError(f"--shard-size must be at least 1, got {args.shard_size}")
    if args.netlist is not None and args.netlist < 1:
        raise UsageError(f"--netlist must be at least 1, got {args.netlist}")
    if args.prove_killed is not None and args.prove_killed < 1:
        raise UsageError(f"--prove-killed must be at least 1, got {args.prove_killed}")
    if args.elab_only:
        args.elab = True
    if args.replay and args.add_to_corpus is not None:
        raise UsageError("--replay and --add-to-corpus are two different actions on a run: give one")
    if args.netlist_only and args.netlist is None:
        raise UsageError("--netlist-only needs --netlist N")
    if args.why is not None and args.add_to_corpus is None:
        raise UsageError("--why goes with --add-to-corpus")
    if args.mentioning and (args.netlist_only or args.elab_only):
        raise UsageError("--mentioning chooses source mutants: not with --netlist-only or --elab-only")
    if args.mentioning and not all(text.strip() for text in args.mentioning):
        raise UsageError("--mentioning takes texts that are not blank")
    if args.retry_survivors and not args.resume:
        raise UsageError("--retry-survivors goes with --resume (the survivors of an earlier run judged again)")
    try:
        if args.replay:
            from gamechip.mutation.history import replay_mutant

            return replay_mutant(args.out, args.replay, args.blocks[0] if args.blocks else None)
        if args.add_to_corpus is not None:
            return _add_survivors_to_corpus(args.out, args.add_to_corpus, args.why)
        if args.netlist or not args.no_prove:   # Yosys makes the netlist mutants and runs the SAT miter
            require("fpga", "--netlist" if args.netlist else "proving the survivors (--no-prove skips it)")
        blocks = args.blocks or list(mutation_blocks())
        # with --cluster the local cores still convert the designs and run the miters
        workers = args.jobs or max(1, os.cpu_count() or 1)
        result = run(blocks, args.sim, args.out, resume=args.resume, limit=args.limit, workers=workers,
                     cluster=args.cluster, shard_size=args.shard_size or SHARD_SIZE,
                     seed=args.seed, quick=args.quick, prove=not args.no_prove, netlist=args.netlist,
                     source=not (args.netlist_only or args.elab_only), prove_killed=args.prove_killed or 0,
                     elab=args.elab, recheck_waivers=args.recheck_waivers,
                     retry_survivors=args.retry_survivors, mentioning=tuple(args.mentioning or ()))
    except MutateError as error:
        raise UsageError(str(error))
    print_summary(result, args.json, args.out)
    return mutation_exit_status(result)


def _add_survivors_to_corpus(out, ids, why):
    """Survivors' counterexamples replayed and kept in the corpus: 0 when every one that has a
    bench case form was added (or was there already), 1 when one was refused."""
    from gamechip.mutation.corpus import add_to_corpus

    outcomes = add_to_corpus(out, ids or None, why, say=lambda text: print(f"mutate: {text}", file=sys.stderr))
    if not outcomes:
        print(f"no survivor of {out} has a SAT counterexample: nothing to add")
    for outcome in outcomes:
        print(f"{outcome.status}: {outcome.mutant_id} ({outcome.block}): {outcome.detail}"
              + (f"\n  corpus case: {outcome.path}" if outcome.path else ""))
    if any(o.status in ("added", "present") for o in outcomes):
        print(f"the journal of {out} now records those mutants killed by their corpus case; "
              f"tb/test_corpus.py replays the cases in every regression")
    return 1 if any(o.status == "refused" for o in outcomes) else 0


def carry_waivers_arguments(parser):
    parser.epilog = ("exit status: 0 every waiver names the current file; 1 stranded waivers (the "
                     "waived statement changed: review it, they are kept under their old ids), or "
                     "with --check waivers that would be carried; 2 not a git checkout")
    parser.add_argument("--check", action="store_true", help="say what would be carried; write nothing")


def run_carry_waivers(args):
    import json
    import subprocess

    from gamechip.mutation.history import git_file_versions
    from gamechip.mutation.waivers import WAIVERS, carry_waivers, load_waivers

    repo = WAIVERS.parent.parent
    inside = subprocess.run(["git", "-C", str(repo), "rev-parse", "--is-inside-work-tree"], capture_output=True, text=True)
    if inside.returncode != 0:
        raise UsageError(f"{repo} is not a git checkout: the waived files' old versions come from its history")
    waivers = load_waivers()

    def new_source(relative):
        path = repo / relative
        return path.read_text() if path.exists() else None

    carried_waivers, carried, stranded = carry_waivers(waivers, git_file_versions(repo), new_source)
    for old, new, note in carried:
        print(f"carried  {old} -> {new}" + (f" ({note})" if note else ""))
    for old, why in stranded:
        print(f"STRANDED {old}: {why}")
    if carried and not args.check:
        WAIVERS.write_text(json.dumps(carried_waivers, indent=2) + "\n")
    verb = "would carry" if args.check else "carried"
    print(f"{len(waivers)} waivers: {len(waivers) - len(carried) - len(stranded)} current, {verb} {len(carried)}, "
          f"{len(stranded)} stranded" + ("" if args.check or not carried else f" ({WAIVERS} rewritten: review "
                                          "the carried reasons against the changed code)"))
    return 1 if stranded or (args.check and carried) else 0


COMMANDS = {
    "mutate": (mutate_arguments, run_mutate),
    "carry-waivers": (carry_waivers_arguments, run_carry_waivers),
}
