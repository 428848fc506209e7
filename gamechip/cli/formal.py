"""``gamechip formal``: SymbiYosys proofs of the blocks against references written from docs/spec.md,
each also run on a planted bug it must catch, and the synthesised netlist proved equivalent to
the converted RTL (docs/formal.md)."""

import json

from gamechip.cli.arguments import design_list
from gamechip.cli.common import UsageError, announce_rtl, output_dir
from gamechip.installation import require


def formal_arguments(parser):
    parser.add_argument("--designs", nargs="+", metavar="DESIGN",
                        help=f"one or more of {design_list()} (default: every one; those without a proof get "
                             "the equivalence check or its 'not attempted' entry)")
    parser.add_argument("--out", help="folder for summary.json, traces and case files (default runs/formal)")
    parser.add_argument("--no-planted", action="store_true", help="skip the planted bugs")
    parser.add_argument("--no-equivalence", action="store_true", help="skip netlist-against-RTL equivalence")
    parser.add_argument("--no-proofs", action="store_true", help="skip the property proofs")
    parser.add_argument("--replay", action="store_true",
                        help="replay each planted bug's case file on Icarus (the bench must fail too), or for "
                             "a block without a batch bench its counterexample trace (see --replay-trace)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--replay-trace", metavar="FOLDER",
                        help="only replay a saved counterexample (a replays/<design>-planted folder) on Icarus: "
                             "on the planted copy it must fail as the proof did, on the RTL pass; writes "
                             "planted.vcd and rtl.vcd there")


def run_formal(args):
    from gamechip.formal.proofs import FormalError
    from gamechip.formal.session import run_designs, verdict
    from rtl.designs import PORTS
    from tb.host.runner import resolve_rtl_root

    if args.replay_trace:   # on Icarus alone
        return replay_trace(args.replay_trace)
    require("fpga", "this command")
    designs = list(dict.fromkeys(args.designs or list(PORTS)))
    for design in designs:
        if design not in PORTS:
            raise UsageError(f"unknown design '{design}': choose from {', '.join(PORTS)}")
    out = output_dir(args.out or "runs/formal", "--out")
    announce_rtl()
    try:
        summary = run_designs(designs, out, resolve_rtl_root(), proofs=not args.no_proofs,
                              planted=not args.no_planted, equivalent=not args.no_equivalence,
                              replay=args.replay)
    except (FormalError, ValueError) as error:
        raise UsageError(f"formal: {error}")
    passed, unchecked, lines = verdict(summary, designs)
    if args.json:
        print(json.dumps({design: summary[design] for design in designs}))
    else:
        print("\n".join(lines))
        word = "FAIL" if not passed else "INCOMPLETE" if unchecked else "PASS"
        print(f"\n{word}: {'unchecked at this depth: ' + ', '.join(unchecked) + '; ' if unchecked else ''}"
              f"summary in {out / 'summary.json'}")
    return 0 if passed else 1


def replay_trace(folder):
    """``--replay-trace``: 0 when the planted copy fails as the proof did and the RTL passes."""
    from pathlib import Path

    from gamechip.formal.replay import RECORD, ReplayError, verdicts

    if not (Path(folder) / RECORD).is_file():
        raise UsageError(f"--replay-trace: {folder} is not a replay folder (no {RECORD}; gamechip formal writes "
                         f"them under <out>/replays/)")
    try:
        said, ok = verdicts(folder)
    except ReplayError as error:
        raise UsageError(f"--replay-trace: {error}")
    print(f"planted bug: {said['planted']}\nRTL:         {said['rtl']}")
    print(f"\n{'PASS' if ok else 'FAIL'}: the counterexample {'replays' if ok else 'does not replay'} in simulation")
    return 0 if ok else 1


COMMANDS = {"formal": (formal_arguments, run_formal)}
