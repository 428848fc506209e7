"""``gamechip gatelevel``: each design's own bench on its synthesised netlist (gamechip.gatelevel)."""

from gamechip.cli.arguments import design_list
from gamechip.cli.common import UsageError, announce_rtl, check_sim, output_dir, output_file
from gamechip.installation import require


def gatelevel_arguments(parser):
    parser.add_argument("--designs", nargs="+", metavar="DESIGN",
                        help=f"one or more of {design_list()} (default: every one)")
    parser.add_argument("--sims", nargs="+", metavar="SIM", default=["icarus", "verilator"],
                        help="icarus, verilator or both (the default: icarus verilator; the netlist is Verilog, "
                             "so no GHDL)")
    parser.add_argument("--family", default="ice40",
                        help="ice40 (default: synth_ice40, as gamechip area), ecp5 (synth_ecp5), or generic "
                             "(Yosys synth: internal gates written as plain Verilog)")
    parser.add_argument("--out", default="runs/gatelevel", help="folder for gatelevel.json (default runs/gatelevel)")
    parser.add_argument("--summary", default="runs/gatelevel/summary.json",
                        help="the summary file results are merged into (default runs/gatelevel/summary.json)")


def run_gatelevel(args):
    require("fpga", "this command")
    from gamechip.gatelevel import FAMILIES, SIMULATORS, run
    from rtl.designs import PORTS

    designs = args.designs or list(PORTS)
    for design in designs:
        if design not in PORTS:
            raise UsageError(f"unknown design '{design}': choose from {', '.join(PORTS)}")
    if args.family not in FAMILIES:
        raise UsageError(f"unknown family '{args.family}': choose from {', '.join(FAMILIES)}")
    for sim in args.sims:
        if sim not in SIMULATORS:
            raise UsageError(f"simulator '{sim}' cannot run a Verilog netlist: choose from {', '.join(SIMULATORS)}")
        check_sim(sim)
    out = output_dir(args.out, "--out")
    summary = output_file(args.summary, "--summary", "summary.json")
    announce_rtl()
    return run(list(dict.fromkeys(designs)), list(dict.fromkeys(args.sims)), args.family, out, summary)


COMMANDS = {
    "gatelevel": (gatelevel_arguments, run_gatelevel),
}
