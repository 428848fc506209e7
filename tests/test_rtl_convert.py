"""The RTL converts, the converted HDL passes Verilator lint, Icarus and GHDL, and every
block works in MyHDL's own simulator.

The HDL comes from the benches' conversion cache (tb.runner.hdl_dir: converted once per
RTL change); one test runs the public rtl.convert.convert API into a fresh folder.

The functional checks compare against golden/slow.py, the square-by-square ray walk that
shares no code with the bitboard model or the RTL cells, and, cycle by cycle, against
golden/stable.py's stable_iterations (whose fixed point is cross-checked with slow_stable).
MyHDL simulates with Python ints, so these checks cannot catch conversion traps such as
32-bit Verilog locals: the cocotb benches in tb/ run the converted HDL.
"""

import random
import re
import shutil
import subprocess

import pytest
from myhdl import ResetSignal, Signal, StopSimulation, always, block, delay, instance, intbv

from golden.board import Position, format_board, start_position
from golden.positions import random_occupancy, random_played
from golden.slow import slow_flips, slow_legal_moves, slow_stable
from golden.stable import stable_iterations
from rtl.convert import convert
from rtl.designs import DESIGNS, PORTS
from rtl.disc_flipper import disc_flipper
from rtl.elaboration import frame_records_only
from rtl.lint import VERILATOR_LINT_FLAGS
from rtl.move_checker import move_checker
from rtl.stable_discs import stable_discs
from tb.runner import hdl_dir


def needs(tool):
    return pytest.mark.skipif(shutil.which(tool) is None, reason=f"{tool} not installed")


def run_tool(command, cwd):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}{result.stderr}"
    return result


def bitboard(squares):
    return sum(1 << square for square in squares)


# ---------------------------------------------------------------- conversion and tools

def without_header_stamps(text):
    """The HDL text minus MyHDL's ``File:`` / ``Date:`` header lines, which name the
    output path and the time of conversion."""
    return re.sub(r"^(//|--) (File|Date): .*\n", "", text, flags=re.M)


def test_convert_api_writes_verilog_vhdl_and_the_myhdl_package(tmp_path):
    design = "disc_flipper_n4"
    written = convert(tmp_path, designs=[design])
    expected = {f"{design}.v", f"{design}.vhd", "pck_myhdl_011.vhd"}
    assert {path.name for path in written} == expected
    assert {path.name for path in tmp_path.iterdir()} == expected  # no scratch folders left
    cached = hdl_dir(design)
    for name in expected:
        assert without_header_stamps((tmp_path / name).read_text()) == \
            without_header_stamps((cached / name).read_text()), f"{name} differs from the cache"


def test_unknown_design_is_rejected_with_the_valid_names(tmp_path):
    with pytest.raises(ValueError, match="disc_flipper_n4"):
        convert(tmp_path, designs=["disc_flopper"])


@pytest.mark.parametrize("design", list(DESIGNS))
def test_verilog_ports_match_registry(design):
    out = hdl_dir(design)
    text = (out / f"{design}.v").read_text()
    header = re.search(rf"^module {design} \(([^)]*)\);", text, re.M)
    assert header, f"no module {design} in {design}.v"
    assert [p.strip() for p in header.group(1).split(",")] == [name for name, _, _ in PORTS[design]]
    for name, width, direction in PORTS[design]:
        declared = re.search(rf"^{direction}put (?:\[(\d+):0\] )?{name};", text, re.M)
        assert declared, f"{direction}put {name} not declared in {design}.v"
        assert int(declared.group(1) or 0) + 1 == width, name
    assert re.search(rf"^entity {design} is", (out / f"{design}.vhd").read_text(), re.M)


@needs("verilator")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_verilator_lint(design):
    run_tool(["verilator", *VERILATOR_LINT_FLAGS, "--top-module", design, f"{design}.v"],
             hdl_dir(design))


@needs("iverilog")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_icarus_compiles(design, tmp_path):
    run_tool(["iverilog", "-g2005", "-s", design, "-o", tmp_path / design, f"{design}.v"],
             hdl_dir(design))


@needs("ghdl")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_ghdl_analyses_and_elaborates(design, tmp_path):
    out = hdl_dir(design)
    ghdl = ["ghdl", "-a", "--std=08", f"--workdir={tmp_path}"]
    run_tool([*ghdl, "pck_myhdl_011.vhd"], out)
    run_tool([*ghdl, f"{design}.vhd"], out)
    run_tool(["ghdl", "-e", "--std=08", f"--workdir={tmp_path}", "-o", tmp_path / design, design],
             tmp_path)


# ---------------------------------------------------------------- combinational blocks

def stimulus_positions(rng, size, count):
    """``count`` positions: half from random games (sampled from many games, so passes,
    finished games and every stage of play occur), half random occupancy."""
    played = rng.sample(random_played(rng, 10 * count, size), count // 2)
    return played + [random_occupancy(rng, size) for _ in range(count - len(played))]


@block
def move_checker_bench(size, cases, results):
    own, opp, legal = (Signal(intbv(0)[size * size:]) for _ in range(3))
    dut = move_checker(own, opp, legal, size=size)

    @instance
    def drive():
        for pos in cases:
            own.next = pos.own
            opp.next = pos.opp
            yield delay(1)
            results.append(int(legal))

    return dut, drive


@pytest.mark.parametrize("size, count", [(8, 200), (6, 200), (4, 200)])
def test_move_checker_matches_ray_walk(size, count):
    cases = stimulus_positions(random.Random(size), size, count)
    results = []
    with frame_records_only():
        bench = move_checker_bench(size, cases, results)
    bench.run_sim(quiet=1)
    bench.quit_sim()
    assert len(results) == len(cases)
    for pos, legal in zip(cases, results):
        assert legal == bitboard(slow_legal_moves(pos)), format_board(pos)


@block
def disc_flipper_bench(size, cases, results):
    squares = size * size
    black, white, new_black, new_white = (Signal(intbv(0)[squares:]) for _ in range(4))
    white_to_move, illegal = Signal(bool(0)), Signal(bool(0))
    move = Signal(intbv(0)[(squares - 1).bit_length():])
    dut = disc_flipper(black, white, white_to_move, move, new_black, new_white, illegal, size=size)

    @instance
    def drive():
        for pos, square in cases:
            black.next = pos.black
            white.next = pos.white
            white_to_move.next = pos.white_to_move
            move.next = square
            yield delay(1)
            results.append((int(new_black), int(new_white), bool(illegal)))

    return dut, drive


def expected_move(pos, square):
    """(new_black, new_white, illegal): the board unchanged and illegal set when nothing
    flips (occupied, non-capturing or off-board square)."""
    flipped = bitboard(slow_flips(pos, square)) if square < pos.size * pos.size else 0
    if not flipped:
        return pos.black, pos.white, True
    own, opp = pos.own | flipped | (1 << square), pos.opp & ~flipped
    after = Position.from_own_opp(own, opp, pos.white_to_move, pos.size)
    return after.black, after.white, False


@pytest.mark.parametrize("size, count", [(8, 200), (6, 200), (4, 200)])
def test_disc_flipper_matches_ray_walk(size, count):
    """Mostly legal moves; the rest any move value, so occupied, non-capturing and (6x6)
    off-board squares 36..63 are covered."""
    rng = random.Random(100 + size)
    move_values = 1 << (size * size - 1).bit_length()
    cases = []
    for pos in stimulus_positions(rng, size, count):
        legal = sorted(slow_legal_moves(pos))
        square = rng.choice(legal) if legal and rng.random() < 0.7 else rng.randrange(move_values)
        cases.append((pos, square))
    results = []
    with frame_records_only():
        bench = disc_flipper_bench(size, cases, results)
    bench.run_sim(quiet=1)
    bench.quit_sim()
    assert sum(illegal for _, _, illegal in results) not in (0, len(cases))
    if size == 6:
        assert any(square >= 36 for _, square in cases), "no off-board move value drawn"
    assert len(results) == len(cases)
    for (pos, square), result in zip(cases, results):
        assert result == expected_move(pos, square), f"{format_board(pos)}, move {square}"


# ---------------------------------------------------------------- stable discs

@block
def stable_discs_bench(black_value, white_value, color_value, cycles, trace, reset_in_cycle=None):
    """Reset, then start on (black, white, color); ``trace`` gets (done, count, stable)
    before the start edge and in each of the ``cycles`` cycles after it. The board inputs
    are scrambled after the start edge: the block must work from its latched copy."""
    clk, start, color, done = (Signal(bool(0)) for _ in range(4))
    rst = ResetSignal(0, active=1, isasync=False)
    black, white, stable = (Signal(intbv(0)[64:]) for _ in range(3))
    count = Signal(intbv(0, min=0, max=65))
    dut = stable_discs(clk, rst, start, black, white, color, done, count, stable)

    @always(delay(5))
    def tick():
        clk.next = not clk

    def sample():
        trace.append((bool(done), int(count), int(stable)))

    @instance
    def drive():
        rst.next = 1
        yield clk.negedge
        rst.next = 0
        sample()
        black.next, white.next, color.next, start.next = black_value, white_value, color_value, 1
        yield clk.negedge
        start.next = 0
        black.next, white.next, color.next = white_value, black_value, not color_value
        for cycle in range(cycles):
            if cycle == reset_in_cycle:
                rst.next = 1
            sample()
            yield clk.negedge
            rst.next = 0
        raise StopSimulation

    return dut, tick, drive


def run_stable(black, white, color, cycles, reset_in_cycle=None):
    trace = []
    with frame_records_only():
        bench = stable_discs_bench(black, white, color, cycles, trace, reset_in_cycle)
    bench.run_sim(quiet=1)
    bench.quit_sim()
    return trace


def rows(*row_masks):
    """Board from 8-bit masks per row, rank 1 first (bit c = file A + c)."""
    return sum(mask << (8 * row) for row, mask in enumerate(row_masks))


FULL = (1 << 64) - 1
START = start_position(8)
CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
STABLE_CASES = {
    "start position": (START.black, START.white, 0),
    "full bottom rows, black": (rows(0xFF, 0xFF, 0x7E, 0x18), rows(0, 0, 0x81, 0x24), 0),
    "full bottom rows, white": (rows(0xFF, 0xFF, 0x7E, 0x18), rows(0, 0, 0x81, 0x24), 1),
    "all corners empty": (FULL & ~CORNERS & 0x5555555555555555, FULL & ~CORNERS & ~0x5555555555555555, 0),
    "full board, all black": (FULL, 0, 0),
    "full board, mixed": (0x0F0F0F0F3C3C3C3C, FULL & ~0x0F0F0F0F3C3C3C3C, 1),
}


def stable_board_text(black, white, color):
    """The board text, with the colour whose stable discs are counted as the side."""
    return format_board(Position(black, white, bool(color)))


@pytest.mark.parametrize("case", list(STABLE_CASES))
def test_stable_discs_cycle_by_cycle(case):
    black, white, color = STABLE_CASES[case]
    board = stable_board_text(black, white, color)
    expected_sets = stable_iterations(white if color else black)
    assert expected_sets[-1] == bitboard(slow_stable(Position(black, white), white=bool(color))), board
    fixed_point_cycle = len(expected_sets) - 1
    trace = run_stable(black, white, color, cycles=fixed_point_cycle + 3)

    assert trace[0] == (False, 0, 0), f"after reset, {board}"
    expected = [(cycle == fixed_point_cycle, bin(stable).count("1"), stable)
                for cycle, stable in enumerate(expected_sets)]
    expected += [(False,) + expected[-1][1:]] * 2  # busy clears, outputs hold
    assert trace[1:] == expected, board


@pytest.mark.parametrize("case", ["start position", "all corners empty"])
def test_stable_discs_answers_in_cycle_0_without_corners(case):
    black, white, color = STABLE_CASES[case]
    assert stable_iterations(white if color else black) == [0]
    trace = run_stable(black, white, color, cycles=2)
    assert trace[1:] == [(True, 0, 0), (False, 0, 0)], stable_board_text(black, white, color)


def test_stable_discs_reset_mid_run_clears_everything():
    trace = run_stable(FULL, 0, 0, cycles=4, reset_in_cycle=1)
    board = stable_board_text(FULL, 0, 0)
    assert trace[2][0] is False and trace[2][2] != 0, board  # cycle 1, reset not yet applied
    assert trace[3:] == [(False, 0, 0)] * 2, board
