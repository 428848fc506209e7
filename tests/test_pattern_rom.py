"""Every entry of every table of the converted pattern evaluator equals the committed weight file:
the ROMs' contents read back out of the Verilog (packed constants and the loops that copy them) and the VHDL (constant arrays) of
the benches' conversion cache, each ROM named ``weights_<pattern>_stage<n>``. How the ROMs are
wired to the board (instances, digits, ports, stages) is the bench's part
(tb/test_pattern_evaluator.py, whose full tier also reads every entry through the hardware)."""

import re

from golden.patterns import PATTERN_NAMES, default_weights
from tb.host.runner import hdl_dir

DESIGN = "pattern_evaluator"


def roms_in_verilog(text):
    """{ROM name: [codes]} from the constants ``localparam [W:0] name_partK = W'hXX...;`` (entry 0
    in the lowest byte) and the loops that copy part K from entry ``first`` on."""
    parts = {(name, int(part)): bytes.fromhex(digits)[::-1]
             for name, part, digits in re.findall(r"localparam \[\d+:0\] (weights_\w+)_part(\d+) = \d+'h([0-9a-f]+);", text)}
    firsts = {(name, int(part)): int(first)
              for name, first, part in re.findall(r"(weights_\w+)\[(\d+) \+ \w+_entry\] = \w+_part(\d+)\[", text)}
    assert sorted(parts) == sorted(firsts), "every constant of a ROM is copied by one loop"
    roms = {}
    for (name, part), codes in parts.items():
        entries = roms.setdefault(name, {})
        entries.update((firsts[(name, part)] + offset, code) for offset, code in enumerate(codes))
    return {name: [entries[a] for a in range(len(entries))] for name, entries in roms.items()}


def roms_in_vhdl(text):
    """{ROM name: [codes]} from the constant arrays ``constant name: name_type := (x"XX", ...);``."""
    roms = {}
    for name, body in re.findall(r"constant (weights_\w+): \w+ := \((.*?)\);", text, re.S):
        roms[name] = [int(code, 16) for code in re.findall(r'x"([0-9a-f]{2})"', body)]
    return roms


def expected_roms():
    weights = default_weights()
    return {f"weights_{name}_stage{stage}": [weight & 0xFF for weight in weights.tables[stage][number]]
            for stage in range(weights.stages) for number, name in enumerate(PATTERN_NAMES)}


def test_every_rom_entry_equals_the_weight_file_in_both_hdls():
    folder = hdl_dir(DESIGN)
    expected = expected_roms()
    for hdl, roms in (("verilog", roms_in_verilog((folder / f"{DESIGN}.v").read_text())),
                      ("vhdl", roms_in_vhdl((folder / f"{DESIGN}.vhd").read_text()))):
        assert sorted(roms) == sorted(expected), f"{hdl}: ROMs {sorted(roms)}"
        for name, codes in expected.items():
            wrong = [(address, want, got) for address, (want, got) in enumerate(zip(codes, roms[name])) if want != got]
            assert len(roms[name]) == len(codes) and not wrong, (
                f"{hdl} ROM {name}: {len(roms[name])} entries for {len(codes)}; first differing "
                f"(address, weight file code, ROM code): {wrong[:5]}")
    assert sum(len(codes) for codes in expected.values()) == 167_184   # docs/pattern-evaluator.md: 3 stages of 55,728
