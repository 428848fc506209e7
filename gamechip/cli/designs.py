"""Commands on the designs as hardware: area (synthesis and place and route), bench (throughput
per simulator) and convert (Verilog and VHDL of every block)."""

import sys

from gamechip.cli.arguments import block_list, design_list, scale, simulator_list, simulators
from gamechip.cli.common import UsageError, announce_rtl, blocks_named, check_sim, output_dir, output_file
from gamechip.installation import require


def area_arguments(parser):
    parser.add_argument("--designs", nargs="+", metavar="DESIGN",
                        help=f"one or more of {design_list()} (default: every one)")
    parser.add_argument("--families", nargs="+", metavar="FAMILY",
                        help="xc7, ice40, ecp5 (default: xc7 ice40; ecp5 is added for designs too large for the HX8K)")
    parser.add_argument("--no-place", action="store_true", help="synthesis only (no place and route)")
    parser.add_argument("--out", help="folder for area.md, area.csv, area.json (default runs/area)")
    parser.add_argument("--json", action="store_true", help="print one JSON object: {\"rows\": [...]}")


def run_area(args):
    require("fpga", "this command")
    from gamechip.measure.area import DEFAULT_FAMILIES, FAMILIES, AreaError, run
    from rtl.designs import PORTS

    designs = args.designs or list(PORTS)
    for design in designs:
        if design not in PORTS:
            raise UsageError(f"unknown design '{design}': choose from {', '.join(PORTS)}")
    families = args.families or list(DEFAULT_FAMILIES)
    for family in families:
        if family not in FAMILIES:
            raise UsageError(f"unknown family '{family}': choose from {', '.join(FAMILIES)}")
    out = output_dir(args.out or "runs/area", "--out")
    announce_rtl()
    try:
        return run(list(dict.fromkeys(designs)), list(dict.fromkeys(families)), out, args.json,
                   place=not args.no_place)
    except AreaError as error:
        raise UsageError(f"area: {error}")


def convert_arguments(parser):
    parser.add_argument("--out", default="build/hdl-out", help="output folder (default build/hdl-out)")
    parser.add_argument("--designs", nargs="+", metavar="DESIGN",
                        help=f"one or more of {design_list()} (default: every one)")


def run_convert(args):
    from rtl.convert import convert

    output_dir(args.out, "--out")
    try:
        paths = convert(args.out, designs=args.designs or None)
    except ValueError as error:
        raise UsageError(str(error))
    print(f"wrote {len(paths)} files to {args.out}")
    return 0


# the blocks make bench measures that fuzz does not drive: the search engine and the processor
BENCH_ONLY_BLOCKS = ("search", "processor")


def bench_arguments(parser):
    parser.add_argument("--blocks", nargs="+", metavar="BLOCK", default=["all"],
                        help=f"one or more of {block_list(also=BENCH_ONLY_BLOCKS)}, or all (the default)")
    parser.add_argument("--sims", nargs="+", metavar="SIM", default=list(simulators()),
                        help=f"one or more of {simulator_list()} (default: every one, {' '.join(simulators())})")
    parser.add_argument("--scale", type=scale, default=1.0,
                        help="multiply the number of positions, a number more than 0 (default 1)")
    parser.add_argument("--save", metavar="FILE",
                        help="also write the rows as JSON to FILE (block, simulator, rates, load, cocotb and "
                             "simulator versions), with the search engine alone on each simulator; a block that "
                             "fails is kept as a failed row and the bench goes on (exit status 1 at the end)")
    parser.add_argument("--rates-only", action="store_true",
                        help="only the rows --compare reads: each block's rates and the search engine alone "
                             "(simulated cycles/s), without coverage's cost, the rest of the search bench and the "
                             "processor bench")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"),
                        help="run nothing: print the Verilator rows of two files of --save side by side, old "
                             "rate, new rate and gain (new/old); a missing or damaged file is exit status 2")


def run_bench(args):
    from gamechip.measure.bench import COVERAGE_SIMS, run_bench as bench_blocks, search_alone
    from gamechip.measure.bench_record import BenchFileError, BenchRecord, compare
    from gamechip.measure.processor_bench import run_processor_throughput
    from gamechip.measure.search_bench import run_search_bench

    if args.compare:
        if args.save or args.rates_only:
            raise UsageError("--compare runs no bench: give it without --save and --rates-only")
        try:
            return compare(*args.compare)
        except BenchFileError as error:
            raise UsageError(f"--compare: {error}")
    for sim in args.sims:
        check_sim(sim)
    save = output_file(args.save, "--save", "bench.json") if args.save else None
    names = args.blocks or ["all"]
    with_search = "all" in names or "search" in names
    with_processor = ("all" in names or "processor" in names) and not args.rates_only
    others = [name for name in names if name not in BENCH_ONLY_BLOCKS]
    blocks = blocks_named(others, also=BENCH_ONLY_BLOCKS) if others else []
    announce_rtl()
    record = BenchRecord(args.scale) if save else None
    # --rates-only: the rows --compare reads, without coverage's cost (each Verilator block's run twice)
    status = bench_blocks(blocks, args.sims, args.scale, record, coverage_sims=() if args.rates_only else
                          COVERAGE_SIMS) if blocks else 0
    if with_search and (save or args.rates_only):
        status = max(status, search_alone(args.sims, record))
    if save:
        record.save(save)
        print(f"bench rows written to {save}", file=sys.stderr)
    if status == 0 and with_search and not args.rates_only:
        status = run_search_bench(args.sims, args.scale)
    if status == 0 and with_processor:
        status = run_processor_throughput(args.sims, args.scale)
    return status


COMMANDS = {
    "area": (area_arguments, run_area),
    "convert": (convert_arguments, run_convert),
    "bench": (bench_arguments, run_bench),
}
