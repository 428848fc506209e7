"""The RTL converts, the converted HDL passes Verilator lint, Icarus and GHDL, and every
block works in MyHDL's own simulator.

The functional checks compare against a naive reference written here (ray walks for
moves, the stability rule iterated square by square) that shares no code with golden/ or
with the RTL cells. MyHDL simulates with Python ints, so these checks cannot catch
conversion traps such as 32-bit Verilog locals: the cocotb benches in tb/ run the
converted HDL.
"""

import random
import re
import shutil
import subprocess

import pytest
from myhdl import ResetSignal, Signal, StopSimulation, always, block, delay, instance, intbv

from rtl.convert import convert
from rtl.designs import DESIGNS, PORTS
from rtl.disc_flipper import disc_flipper
from rtl.elaboration import frame_records_only
from rtl.lint import VERILATOR_LINT_FLAGS
from rtl.move_checker import move_checker
from rtl.stable_discs import stable_discs

STEPS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
AXES = [((0, -1), (0, 1)), ((-1, 0), (1, 0)), ((-1, 1), (1, -1)), ((-1, -1), (1, 1))]


def needs(tool):
    return pytest.mark.skipif(shutil.which(tool) is None, reason=f"{tool} not installed")


def run_tool(command, cwd):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}{result.stderr}"
    return result


# ---------------------------------------------------------------- conversion and tools

@pytest.fixture(scope="module")
def hdl_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("hdl")
    convert(out)
    return out


def test_unknown_design_is_rejected_with_the_valid_names(tmp_path):
    with pytest.raises(ValueError, match="disc_flipper_n4"):
        convert(tmp_path, designs=["disc_flopper"])


@pytest.mark.parametrize("design", list(DESIGNS))
def test_verilog_ports_match_registry(hdl_dir, design):
    text = (hdl_dir / f"{design}.v").read_text()
    header = re.search(rf"^module {design} \(([^)]*)\);", text, re.M)
    assert header, f"no module {design} in {design}.v"
    assert [p.strip() for p in header.group(1).split(",")] == [name for name, _, _ in PORTS[design]]
    for name, width, direction in PORTS[design]:
        declared = re.search(rf"^{direction}put (?:\[(\d+):0\] )?{name};", text, re.M)
        assert declared, f"{direction}put {name} not declared in {design}.v"
        assert int(declared.group(1) or 0) + 1 == width, name
    assert re.search(rf"^entity {design} is", (hdl_dir / f"{design}.vhd").read_text(), re.M)


@needs("verilator")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_verilator_lint(hdl_dir, design):
    run_tool(["verilator", *VERILATOR_LINT_FLAGS, "--top-module", design, f"{design}.v"], hdl_dir)


@needs("iverilog")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_icarus_compiles(hdl_dir, design, tmp_path):
    run_tool(["iverilog", "-g2005", "-s", design, "-o", tmp_path / design, f"{design}.v"], hdl_dir)


@needs("ghdl")
@pytest.mark.parametrize("design", list(DESIGNS))
def test_ghdl_analyses_and_elaborates(hdl_dir, design, tmp_path):
    ghdl = ["ghdl", "-a", "--std=08", f"--workdir={tmp_path}"]
    run_tool([*ghdl, "pck_myhdl_011.vhd"], hdl_dir)
    run_tool([*ghdl, f"{design}.vhd"], hdl_dir)
    run_tool(["ghdl", "-e", "--std=08", f"--workdir={tmp_path}", "-o", tmp_path / design, design],
             tmp_path)


# ---------------------------------------------------------------- naive reference

def bit(board, square):
    return (board >> square) & 1


def walk(square, step, size):
    """The squares from ``square`` (excluded) in direction ``step`` up to the board edge."""
    row, col = divmod(square, size)
    row, col = row + step[0], col + step[1]
    while 0 <= row < size and 0 <= col < size:
        yield row * size + col
        row, col = row + step[0], col + step[1]


def reference_flips(own, opp, square, size):
    """Discs flipped by placing on ``square`` (0 when occupied, off the board or no capture)."""
    if square >= size * size or bit(own | opp, square):
        return 0
    flips = 0
    for step in STEPS:
        run = 0
        for ray_square in walk(square, step, size):
            if bit(opp, ray_square):
                run |= 1 << ray_square
            else:
                if bit(own, ray_square):
                    flips |= run
                break
    return flips


def reference_legal(own, opp, size):
    return sum(1 << s for s in range(size * size) if reference_flips(own, opp, s, size))


def start_position(size):
    """(black, white) of the standard start, scaled to size x size."""
    low, high = size // 2 - 1, size // 2
    white = (1 << (low * size + low)) | (1 << (high * size + high))
    black = (1 << (high * size + low)) | (1 << (low * size + high))
    return black, white


def random_positions(rng, size, count):
    """(black, white, white_to_move): half random playouts, half random fills."""
    positions = []
    while len(positions) < count // 2:
        black, white = start_position(size)
        white_to_move = False
        for _ in range(rng.randrange(size * size)):
            own, opp = (white, black) if white_to_move else (black, white)
            legal = [s for s in range(size * size) if reference_flips(own, opp, s, size)]
            if legal:
                move = rng.choice(legal)
                flips = reference_flips(own, opp, move, size)
                own, opp = own | flips | (1 << move), opp & ~flips
                black, white = (opp, own) if white_to_move else (own, opp)
            white_to_move = not white_to_move
        positions.append((black, white, white_to_move))
    while len(positions) < count:
        density = rng.random()
        black = white = 0
        for square in range(size * size):
            if rng.random() < density:
                if rng.random() < 0.5:
                    black |= 1 << square
                else:
                    white |= 1 << square
        positions.append((black, white, rng.random() < 0.5))
    return positions


# ---------------------------------------------------------------- combinational blocks

@block
def move_checker_bench(size, cases, results):
    own, opp, legal = (Signal(intbv(0)[size * size:]) for _ in range(3))
    dut = move_checker(own, opp, legal, size=size)

    @instance
    def drive():
        for own_value, opp_value in cases:
            own.next = own_value
            opp.next = opp_value
            yield delay(1)
            results.append(int(legal))

    return dut, drive


@pytest.mark.parametrize("size, count", [(8, 200), (6, 200), (4, 200)])
def test_move_checker_matches_ray_walk(size, count):
    rng = random.Random(size)
    cases = [(w, b) if wtm else (b, w) for b, w, wtm in random_positions(rng, size, count)]
    results = []
    with frame_records_only():
        bench = move_checker_bench(size, cases, results)
    bench.run_sim(quiet=1)
    bench.quit_sim()
    assert len(results) == len(cases)
    for (own, opp), legal in zip(cases, results):
        assert legal == reference_legal(own, opp, size), f"own={own:#x} opp={opp:#x}"


@block
def disc_flipper_bench(size, cases, results):
    squares = size * size
    black, white, new_black, new_white = (Signal(intbv(0)[squares:]) for _ in range(4))
    white_to_move, illegal = Signal(bool(0)), Signal(bool(0))
    move = Signal(intbv(0)[(squares - 1).bit_length():])
    dut = disc_flipper(black, white, white_to_move, move, new_black, new_white, illegal, size=size)

    @instance
    def drive():
        for black_value, white_value, white_moves, square in cases:
            black.next = black_value
            white.next = white_value
            white_to_move.next = white_moves
            move.next = square
            yield delay(1)
            results.append((int(new_black), int(new_white), bool(illegal)))

    return dut, drive


def expected_move(black, white, white_to_move, square, size):
    own, opp = (white, black) if white_to_move else (black, white)
    flips = reference_flips(own, opp, square, size)
    if not flips:
        return black, white, True
    own, opp = own | flips | (1 << square), opp & ~flips
    return ((opp, own) if white_to_move else (own, opp)) + (False,)


@pytest.mark.parametrize("size, count", [(8, 200), (6, 200), (4, 200)])
def test_disc_flipper_matches_ray_walk(size, count):
    """Mostly legal moves; the rest any move value, so occupied, non-capturing and (6x6)
    off-board squares 36..63 are covered."""
    rng = random.Random(100 + size)
    move_values = 1 << (size * size - 1).bit_length()
    cases = []
    for black, white, white_to_move in random_positions(rng, size, count):
        own, opp = (white, black) if white_to_move else (black, white)
        legal = [s for s in range(size * size) if reference_flips(own, opp, s, size)]
        square = rng.choice(legal) if legal and rng.random() < 0.7 else rng.randrange(move_values)
        cases.append((black, white, white_to_move, square))
    results = []
    with frame_records_only():
        bench = disc_flipper_bench(size, cases, results)
    bench.run_sim(quiet=1)
    bench.quit_sim()
    assert sum(illegal for _, _, illegal in results) not in (0, len(cases))
    assert len(results) == len(cases)
    for case, result in zip(cases, results):
        assert result == expected_move(*case, size), f"black, white, white_to_move, move = {case}"


# ---------------------------------------------------------------- stable discs

def reference_stable_sets(own, size=8):
    """S_0 (border discs stable by the rule), S_1 = F(S_0), ... up to the first fixed point."""

    def supported(square, stable):
        row, col = divmod(square, size)
        for axis in AXES:
            ends = [(row + dr, col + dc) for dr, dc in axis]
            if not any(not (0 <= r < size and 0 <= c < size) or (r * size + c) in stable
                       for r, c in ends):
                return False
        return bit(own, square) == 1

    border = [s for s in range(size * size)
              if s // size in (0, size - 1) or s % size in (0, size - 1)]
    edge_stable = set()
    while True:
        grown = {s for s in border if supported(s, edge_stable)}
        if grown == edge_stable:
            break
        edge_stable = grown
    sets = [edge_stable]
    while True:
        grown = edge_stable | {s for s in range(size * size)
                               if s not in border and supported(s, sets[-1])}
        if grown == sets[-1]:
            return [sum(1 << s for s in stable) for stable in sets]
        sets.append(grown)


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
START_BLACK, START_WHITE = start_position(8)
CORNERS = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
STABLE_CASES = {
    "start position": (START_BLACK, START_WHITE, 0),
    "full bottom rows, black": (rows(0xFF, 0xFF, 0x7E, 0x18), rows(0, 0, 0x81, 0x24), 0),
    "full bottom rows, white": (rows(0xFF, 0xFF, 0x7E, 0x18), rows(0, 0, 0x81, 0x24), 1),
    "all corners empty": (FULL & ~CORNERS & 0x5555555555555555, FULL & ~CORNERS & ~0x5555555555555555, 0),
    "full board, all black": (FULL, 0, 0),
    "full board, mixed": (0x0F0F0F0F3C3C3C3C, FULL & ~0x0F0F0F0F3C3C3C3C, 1),
}


@pytest.mark.parametrize("case", list(STABLE_CASES))
def test_stable_discs_cycle_by_cycle(case):
    black, white, color = STABLE_CASES[case]
    expected_sets = reference_stable_sets(white if color else black)
    fixed_point_cycle = len(expected_sets) - 1
    trace = run_stable(black, white, color, cycles=fixed_point_cycle + 3)

    assert trace[0] == (False, 0, 0), "after reset"
    expected = [(cycle == fixed_point_cycle, bin(stable).count("1"), stable)
                for cycle, stable in enumerate(expected_sets)]
    expected += [(False,) + expected[-1][1:]] * 2  # busy clears, outputs hold
    assert trace[1:] == expected


@pytest.mark.parametrize("case", ["start position", "all corners empty"])
def test_stable_discs_answers_in_cycle_0_without_corners(case):
    trace = run_stable(*STABLE_CASES[case], cycles=2)
    assert trace[1:] == [(True, 0, 0), (False, 0, 0)]


def test_stable_discs_reset_mid_run_clears_everything():
    trace = run_stable(FULL, 0, 0, cycles=4, reset_in_cycle=1)
    assert trace[2][0] is False and trace[2][2] != 0  # cycle 1, reset not yet applied
    assert trace[3:] == [(False, 0, 0)] * 2
