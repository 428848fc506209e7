"""The benches must fail on broken RTL: each mutant is a copy of rtl/ with one deliberate bug,
converted and run through its block's regression tests on Icarus. A mutant that passes means
a bench that cannot see that bug. The failure must be a named case with board text.
"""

import shutil
from pathlib import Path

import pytest

from tb import runner
from tb.blocks import DESIGN_BLOCK

# name: (design, file in rtl/, text to replace, replacement)
MUTANTS = {
    "move_checker drops one direction": (
        "move_checker", "move_checker.py",
        "arriving = list(arriving_patterns(patterns, square, size).values())",
        "arriving = list(arriving_patterns(patterns, square, size).values())[1:]"),
    "move_checker capture mask also accepts a lone own disc": (
        "move_checker", "move_checker.py",
        "capture_field = (1 << pattern_bits) - 2",
        "capture_field = (1 << pattern_bits) - 1"),
    "disc_flipper flip count never decrements": (
        "disc_flipper", "disc_flipper.py",
        "flip.next = incoming - 1",
        "flip.next = incoming"),
    "disc_flipper ignores the placed disc on a black move": (
        "disc_flipper", "disc_flipper.py",
        "new_black.next = black | flipped_vector | placed_vector",
        "new_black.next = black | flipped_vector"),
    "neighbours wrap from one row into the next (4x4 flipper)": (
        "disc_flipper_n4", "geometry.py",
        "    if 0 <= row < size and 0 <= col < size:\n        return row * size + col",
        "    if 0 <= row * size + col < size * size:\n        return row * size + col"),
    "stable_discs stops when at most one flip-flop still changes": (
        "stable_discs", "stable_discs.py",
        "pending_vector == 0",
        "(pending_vector & (pending_vector - 1)) == 0"),
    "stable_discs inner square ignores one diagonal": (
        "stable_discs", "stable_discs.py",
        "and (south_east or north_west))",
        ")"),
}


def mutant_root(tmp_path, file, old, new):
    root = tmp_path / "mutant"
    shutil.copytree(runner.ROOT / "rtl", root / "rtl", ignore=shutil.ignore_patterns("__pycache__"))
    source = root / "rtl" / file
    text = source.read_text()
    assert text.count(old) >= 1, f"mutation no longer applies: '{old}' is not in rtl/{file}"
    source.write_text(text.replace(old, new))
    return root


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_is_caught(name, tmp_path):
    design, file, old, new = MUTANTS[name]
    block = DESIGN_BLOCK[design]
    slug = "".join(c if c.isalnum() else "-" for c in name)[:40]
    outcome = runner.run_design(
        design, "icarus", block.module, list(block.tests), tag=f"mutant-{slug}",
        env={"GAMECHIP_SEED": "1", "GAMECHIP_COUNT": "300"},
        rtl_root=mutant_root(tmp_path, file, old, new),
    )
    assert not outcome.passed, f"mutant '{name}' passed every {design} test: the bench cannot see it"
    message = outcome.result.get("failure", "")
    assert "MISMATCH" in message and "board:" in message and "case:" in message, (
        f"mutant '{name}' failed without a named case:\n{outcome.log[-3000:]}")
    for test, failure in outcome.result["failures"].items():
        print(f"{name}: caught by test {test}, {failure.split('case:')[1].splitlines()[0].strip()}")
