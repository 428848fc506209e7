"""``gamechip bitstream`` (gamechip/bitstream.py) and the boards' constraints (gamechip/boards/).

make test builds one bitstream end to end: the ULX3S top with the serial echo in the processor's
place on the smallest ECP5 (ecppll, MyHDL, Yosys, nextpnr with the board's LPF, ecppack; about
half a minute), and checks the bitstream, the timing report against the clock asked and the
summary's numbers against nextpnr's own report. The processor's bitstreams (make bitstream) take
many minutes each: the test of the ULX3S's is in make test-full.
"""

import json
import re

import pytest

from gamechip.bitstream import build
from gamechip.boards import TARGETS
from rtl.board import BAUD, BOARDS, board_ports
from tests.test_cli import gamechip
from tests.test_cli_robustness import one_clear_line

ECP5_PREAMBLE = bytes([0xFF, 0xFF, 0xBD, 0xB3])   # the ECP5 bitstream's sync word (sysCONFIG)


def lpf_comps(path):
    """{port: site} of an LPF's LOCATE COMP lines."""
    return dict(re.findall(r'^LOCATE COMP "([^"]+)" SITE "([^"]+)";', path.read_text(), re.M))


@pytest.mark.parametrize("board", list(TARGETS))
def test_every_pin_of_the_board_top_is_located_once_and_its_source_named(board):
    comps = lpf_comps(TARGETS[board].constraints)
    wanted = [f"{name}[{bit}]" if width > 1 else name
              for name, width, _ in board_ports(board) for bit in range(width)]
    assert sorted(comps) == sorted(wanted)
    assert len(set(comps.values())) == len(comps), "two ports on one site"
    header = TARGETS[board].constraints.read_text().split("LOCATE", 1)[0]
    assert re.search(r"github\.com/\S+ .*\(commit [0-9a-f]{40}", header.replace("\n# ", " ")), header


def test_the_ulx3s_pins_are_the_boards_published_ones():
    """Independent of the file: the ULX3S schematic's clock (G2), FTDI lines and FIRE1 button."""
    comps = lpf_comps(TARGETS["ulx3s"].constraints)
    assert (comps["clk"], comps["rx"], comps["tx"], comps["button"]) == ("G2", "M1", "L4", "R1")


def check_build(summary, work):
    report = json.loads((work / "report.json").read_text())
    core = {name: v for name, v in report["fmax"].items() if "core_clk" in name}
    assert core, report["fmax"]
    for name, clock in core.items():
        assert clock["achieved"] >= clock["constraint"], (name, clock)
        assert clock["constraint"] == pytest.approx(BOARDS[summary["board"]].clock_hz / 1e6, rel=1e-3)
    assert summary["fmax_mhz"] == round(min(v["achieved"] for v in core.values()), 2)
    used = {cell: (v["used"], v["available"]) for cell, v in report["utilization"].items()}
    for cell, numbers in summary["utilisation"].items():
        assert tuple(numbers) == used[cell], cell
    assert used["EHXPLLL"][0] == 1, "the PLL is not in the placed design"
    text = (work / "summary.md").read_text()
    for cell, (count, available) in summary["utilisation"].items():
        assert f"| {cell} | {count:,} | {available:,} |" in text
    assert f"{summary['fmax_mhz']:.2f} MHz" in text
    assert abs(summary["baud_actual"] / BAUD - 1) < 0.01   # far inside the UART's tolerance
    routed = dict(re.findall(r"Max frequency for clock '([^']+)': ([0-9.]+) MHz", (work / "timing.txt").read_text()))
    for name, clock in core.items():
        assert float(routed[name]) == pytest.approx(clock["achieved"], abs=0.01), (name, routed)
    bit = (work / "board_ulx3s.bit").read_bytes()
    assert ECP5_PREAMBLE in bit[:4096] and len(bit) == summary["bitstream_bytes"]


def test_a_ulx3s_bitstream_is_built_end_to_end_and_meets_its_clock(tmp_path):
    summary = build("ulx3s", "12F", core="echo", out=tmp_path)
    check_build(summary, tmp_path / "ulx3s-echo")
    assert summary["utilisation"]["TRELLIS_FF"][0] < 400, "the echo top is small: the processor is not in it"


@pytest.mark.full
def test_the_processor_bitstream_for_the_ulx3s_meets_its_clock(tmp_path):
    summary = build("ulx3s", "85F", out=tmp_path)
    check_build(summary, tmp_path / "ulx3s")
    assert summary["budget"] == round(0.1 * BOARDS["ulx3s"].clock_hz)


@pytest.mark.parametrize("args, message", [
    (["--board", "nexys"], "unknown board 'nexys': choose one of ulx3s, orangecrab"),
    (["--board", "orangecrab", "--device", "12F"], "unknown device '12F' for OrangeCrab r0.2: choose one of 25F, 85F"),
    (["--board", "ulx3s", "--core", "chess"], "unknown core 'chess': choose one of processor, echo"),
    (["--board", "ulx3s", "--budget", "0"], "--budget must be 1 .. 4294967295 cycles, got 0"),
])
def test_bad_arguments_are_one_line_and_exit_status_2(args, message, tmp_path):
    one_clear_line(gamechip("bitstream", *args, "--out", str(tmp_path)), message)


@pytest.mark.parametrize("board", list(TARGETS))
def test_ecppll_makes_exactly_the_processor_clock_the_board_top_is_built_for(board, tmp_path):
    from gamechip.bitstream import pll_module

    assert pll_module(board, tmp_path) == BOARDS[board].clock_hz
    text = (tmp_path / "board_pll.v").read_text()
    assert "EHXPLLL" in text and "module board_pll" in text


def test_the_board_top_refuses_an_unknown_led_status_or_core():
    from rtl.board import board_top
    from myhdl import Signal, intbv

    pins = [Signal(bool(0)) for _ in range(4)] + [Signal(intbv(0)[1:])]
    with pytest.raises(ValueError, match="unknown LED status blinking"):
        board_top(*pins, clock_hz=16_000_000, leds=("blinking",))
    with pytest.raises(ValueError, match="unknown core 'chess'"):
        board_top(*pins, clock_hz=16_000_000, leds=("thinking",), core="chess")


def test_mutation_leaves_the_board_top_to_its_bench_and_says_why():
    from pathlib import Path

    from gamechip.mutation.model import NOT_MUTATED, rtl_files
    from tb.blocks import CHECKED_ELSEWHERE

    root = Path(__file__).resolve().parent.parent
    files = {p.relative_to(root).as_posix() for p in rtl_files(root)}
    assert "rtl/board.py" not in files and "rtl/processor.py" in files
    bench = re.search(r"tb/test_\w+\.py", NOT_MUTATED["board.py"]).group(0)
    assert (root / bench).exists() and bench in CHECKED_ELSEWHERE["board_ulx3s"]
