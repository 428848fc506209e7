"""Convert the registered designs to Verilog and VHDL.

    python -m rtl.convert --out DIR [--design NAME ...] [--hdl verilog|vhdl|both]

Writes DIR/NAME.v, DIR/NAME.vhd and MyHDL's DIR/pck_myhdl_011.vhd (which GHDL must analyse
before any entity). Every design is converted in a fresh Python process, because MyHDL
renames internal signals when blocks are elaborated twice in one process and the benches
probe those names; up to one process per core runs at a time. Each process works in its own
scratch directory (all VHDL conversions write the same package file) and runs with a fixed
PYTHONHASHSEED, so sensitivity lists come out in the same order on every run.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import myhdl
from myhdl.conversion import toVerilog, toVHDL

from rtl.designs import DESIGNS
from rtl.elaboration import frame_records_only

HDL_SUFFIX = {"verilog": ".v", "vhdl": ".vhd"}
CONVERTERS = {"verilog": toVerilog, "vhdl": toVHDL}
REPO_ROOT = Path(__file__).resolve().parent.parent


def check_designs(designs):
    """The requested design names, all of them when ``designs`` is None."""
    if designs is None:
        return list(DESIGNS)
    unknown = [name for name in designs if name not in DESIGNS]
    if unknown:
        raise ValueError(f"unknown design(s) {', '.join(unknown)}; "
                         f"valid names: {', '.join(DESIGNS)}")
    return list(designs)


def convert_fresh(instance, hdl, out_dir, name):
    """Write ``hdl`` of a just-elaborated ``instance``. ``Block.convert`` elaborates the whole
    design again first (MyHDL's way of resetting the signal attributes a conversion leaves
    behind), which a fresh elaboration does not need: the converter is called directly, with
    the block call counters reset as ``convert`` resets them, and writes the same text."""
    for elaborated in myhdl._simulator._blocks:
        elaborated.calls = 0
    converter = CONVERTERS[hdl]
    settings = {"name": name, "directory": str(out_dir)}
    if hdl == "verilog":
        settings.update(no_testbench=True, timescale="1ns/10ps", trace=False)
    for key, value in settings.items():
        setattr(converter, key, value)
    converter(instance)


def elaboration_drivers(instance):
    """(signal, kind) of every signal that a block of ``instance`` marked as driven while it was
    elaborated: the outputs of user-defined HDL (rtl/pattern_evaluator.py's ROMs), which the
    converter cannot see being driven."""
    found, blocks = {}, [instance]
    while blocks:
        current = blocks.pop()
        blocks.extend(sub for sub in getattr(current, "subs", ()) if hasattr(sub, "subs"))
        for signal in getattr(current, "sigdict", {}).values():
            if signal.driven:
                found[id(signal)] = (signal, signal.driven)
    return list(found.values())


def convert_here(design, out_dir, hdls):
    """Elaborate ``design`` once in this process and write each HDL into ``out_dir``."""
    with frame_records_only():
        instance = DESIGNS[design]()
        preset = elaboration_drivers(instance)
        for position, hdl in enumerate(hdls):
            if position == 0:
                convert_fresh(instance, hdl, out_dir, design)
            elif preset:
                # Block.convert clears every signal's attributes, the driven marks of
                # user-defined HDL with them: clear them here and mark those signals again
                instance._clear()
                for signal, kind in preset:
                    signal.driven = kind
                convert_fresh(instance, hdl, out_dir, design)
            else:
                options = {"testbench": False} if hdl == "verilog" else {}
                instance.convert(hdl=hdl, path=str(out_dir), name=design, **options)


def convert_in_subprocess(design, out_dir, hdls):
    """Convert one design in a fresh interpreter; return (written paths, seconds)."""
    started = time.monotonic()
    env = dict(os.environ, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory(prefix=f".{design}.", dir=out_dir) as scratch:
        command = [sys.executable, "-m", "rtl.convert", "--in-process", "--out", scratch,
                   "--design", design, "--hdl", *hdls]
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"conversion of {design} failed:\n{result.stderr}")
        written = []
        for produced in sorted(Path(scratch).iterdir()):
            target = Path(out_dir) / produced.name
            os.replace(produced, target)
            written.append(target)
    return written, time.monotonic() - started


def convert(out_dir, designs=None, hdls=("verilog", "vhdl")):
    """Convert ``designs`` (default: all of DESIGNS) into ``out_dir``; return the written paths.

    Prints one progress line per design. Raises ValueError for an unknown design name.
    """
    names = check_designs(designs)
    hdls = list(hdls)
    for hdl in hdls:
        if hdl not in HDL_SUFFIX:
            raise ValueError(f"unknown hdl {hdl!r}; valid: {', '.join(HDL_SUFFIX)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    written = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        jobs = {name: pool.submit(convert_in_subprocess, name, out_dir, hdls) for name in names}
        for name, job in jobs.items():
            paths, seconds = job.result()
            print(f"{name}: {', '.join(hdls)} in {seconds:.1f} s -> "
                  f"{', '.join(p.name for p in paths)}", flush=True)
            written.extend(path for path in paths if path not in written)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m rtl.convert", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--design", action="append", metavar="NAME",
                        help=f"design to convert (repeatable; default all: {', '.join(DESIGNS)})")
    parser.add_argument("--hdl", nargs="+", default=["both"], choices=["verilog", "vhdl", "both"],
                        help="HDL(s) to write (default both)")
    parser.add_argument("--in-process", action="store_true",
                        help="convert the one --design in this process (what each worker runs)")
    args = parser.parse_args(argv)
    hdls = list(HDL_SUFFIX) if "both" in args.hdl else list(dict.fromkeys(args.hdl))
    try:
        names = check_designs(args.design)
    except ValueError as error:
        parser.error(str(error))
    if args.in_process:
        if len(names) != 1:
            parser.error("--in-process converts exactly one design (give one --design)")
        args.out.mkdir(parents=True, exist_ok=True)
        convert_here(names[0], args.out, hdls)
    else:
        convert(args.out, names, hdls)


if __name__ == "__main__":
    main()
