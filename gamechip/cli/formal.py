"""``gamechip formal``: SymbiYosys proofs of the blocks against references written from the SPEC,
each also run on a planted bug it must catch, and the synthesised netlist proved equivalent to
the converted RTL (docs/formal.md)."""

import json

from gamechip.cli.common import UsageError, announce_rtl, output_dir


def formal_arguments(parser):
    parser.add_argument("--designs", nargs="+",
                        help="designs (default: every design of rtl/designs.py; those without a proof get the "
                             "equivalence check or its 'not attempted' entry)")
    parser.add_argument("--out", help="folder for summary.json, traces and case files (default runs/formal)")
    parser.add_argument("--no-planted", action="store_true", help="skip the planted bugs")
    parser.add_argument("--no-equivalence", action="store_true", help="skip netlist-against-RTL equivalence")
    parser.add_argument("--no-proofs", action="store_true", help="skip the property proofs")
    parser.add_argument("--replay", action="store_true",
                        help="replay each planted bug's case file on Icarus (the bench must fail too)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def run_formal(args):
    from gamechip.formal.proofs import FormalError
    from gamechip.formal.session import run_designs, verdict
    from rtl.designs import PORTS
    from tb.host.runner import resolve_rtl_root

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


COMMANDS = {"formal": (formal_arguments, run_formal)}
