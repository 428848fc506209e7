"""gamechip openings: the symmetry classes of the candidates, the choice by a judge the tests
provide (tests/nboard_engine.py judge, whose values the tests compute on their own), the file's
header, the default judge, and a judge that crashes, hangs or answers garbage."""

import sys
from itertools import product
from pathlib import Path

import pytest

from gamechip.cli import main
from gamechip.games.match import read_openings
from golden.board import parse_game_record, popcount, start_position
from golden.contest.balanced_openings import opening_classes
from golden.othello import legal_moves, play

ROOT = Path(__file__).resolve().parent.parent
ENGINE = f"{sys.executable} {ROOT / 'tests' / 'nboard_engine.py'}"


def grid(position):
    """The position as 8 strings of 8 characters and its side to move, built square by square."""
    rows = ["".join("x" if position.black >> (8 * r + c) & 1 else "o" if position.white >> (8 * r + c) & 1 else "."
                    for c in range(8)) for r in range(8)]
    return tuple(rows), position.white_to_move


def images(rows):
    """The 8 images of a grid under the square's rotations and reflections."""
    out = []
    for transpose, flip_rows, flip_columns in product((False, True), repeat=3):
        g = [list(row) for row in rows]
        if transpose:
            g = [list(column) for column in zip(*g)]
        if flip_rows:
            g = g[::-1]
        if flip_columns:
            g = [row[::-1] for row in g]
        out.append(tuple("".join(row) for row in g))
    return out


def classes_by_brute_force(plies):
    """How many positions ``plies`` moves from the start differ under the maps of the square that
    keep the start position: found here from the grids, not from golden.symmetry."""
    start = grid(start_position())[0]
    keeping = [i for i, image in enumerate(images(start)) if image == start]
    assert len(keeping) == 4   # the identity, the half turn and the two diagonal reflections
    positions = [start_position()]
    for _ in range(plies):
        positions = [play(p, s) for p in positions for s in range(64) if legal_moves(p.own, p.opp) >> s & 1]
    keys = set()
    for position in positions:
        rows, side = grid(position)
        every = images(rows)
        keys.add((min(every[i] for i in keeping), side))
    return len(keys)


def test_the_candidates_are_one_game_for_each_class_of_positions_up_to_the_starts_symmetries():
    # 1 and 3: all four first moves are alike; after two moves the perpendicular, diagonal and
    # parallel openings, as every Othello book names them
    assert len(opening_classes(1)) == 1 and len(opening_classes(2)) == 3
    for plies in (3, 4):
        classes = opening_classes(plies)
        assert len(classes) == classes_by_brute_force(plies)
        records = [record for record, _ in classes]
        assert records == sorted(records) and len(set(records)) == len(records)


def judge_value(record):
    """tests/nboard_engine.py judge's value of an opening: its mobility difference."""
    position = start_position()
    for square in parse_game_record(record):
        position = play(position, square)
    return popcount(legal_moves(position.own, position.opp)) - popcount(legal_moves(position.opp, position.own))


def test_a_judge_chooses_the_openings_nearest_0_and_the_header_says_how(tmp_path, capsys):
    out, values = tmp_path / "openings.txt", tmp_path / "values.txt"
    judge = f"{ENGINE} judge"
    assert main(["openings", "--plies", "3", "--count", "5", "--judge", judge, "--out", str(out),
                 "--values", str(values)]) == 0
    err = capsys.readouterr().err
    assert "14 to judge" in err and "14/14 judged" in err
    judged = sorted(((record, judge_value(record)) for record, _ in opening_classes(3)),
                    key=lambda item: (abs(item[1]), item[0]))[:5]
    text = out.read_text()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines == [f"{record}  # {value:+d}" for record, value in judged]
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert f"# Judge: the NBoard engine `{judge}`, told set depth 6" in header
    assert f"# Made by: gamechip openings --plies 3 --count 5 --depth 6 --judge '{judge}' --out {out}" in header
    assert "of the 14 classes" in text
    assert [moves for _, moves in read_openings(out)] == [parse_game_record(r) for r, _ in judged]
    # the same command again judges nothing: every value is kept
    assert main(["openings", "--plies", "3", "--count", "5", "--judge", judge, "--out", str(out),
                 "--values", str(values)]) == 0
    assert "14 values kept" in capsys.readouterr().err and out.read_text() == text
    # a run stopped while writing its last value: that class is judged again, the rest kept
    values.write_text(values.read_text()[:-3])
    assert main(["openings", "--plies", "3", "--count", "5", "--judge", judge, "--out", str(out),
                 "--values", str(values)]) == 0
    assert "13 values kept" in capsys.readouterr().err and out.read_text() == text
    assert len(values.read_text().splitlines()) == 1 + 14 + 1   # the header, the values, the cut line
    # another judge's values are refused, before any work
    assert main(["openings", "--plies", "3", "--values", str(values)]) == 2
    assert "holds the values of another judge" in capsys.readouterr().err


def test_the_default_judge_is_the_golden_pattern_search(tmp_path, capsys):
    from golden.patterns import UNITS_PER_DISC, default_weights
    from golden.search import search_events

    out = tmp_path / "openings.txt"
    assert main(["openings", "--plies", "2", "--count", "2", "--depth", "2", "--out", str(out),
                 "--values", str(tmp_path / "values.txt")]) == 0
    text = out.read_text()
    assert "# Judge: the golden search with the pattern evaluator (golden/pattern_weights.txt), depth 2" in text
    weights = default_weights()
    for line in (line for line in text.splitlines() if not line.startswith("#")):
        record, value = line.split("  # ")
        position = start_position()
        for square in parse_game_record(record):
            position = play(position, square)
        assert float(value) == search_events(position, 2, pattern=weights).value / UNITS_PER_DISC


@pytest.mark.parametrize("kind, expected", [("crash", "judge crashed (exit status 7); its last words: the crashing"),
                                            ("hang", "judge answered nothing to go within 1 s"),
                                            ("garbage", "no number for EVAL")])
def test_a_broken_judge_is_one_line_and_status_3_and_nothing_is_lost(kind, expected, tmp_path, capsys):
    out = tmp_path / "openings.txt"
    out.write_text("f5d6c3\n")
    values = tmp_path / "values.txt"
    assert main(["openings", "--plies", "2", "--judge", f"{ENGINE} {kind}", "--time", "1", "--out", str(out),
                 "--values", str(values)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    failure = [line for line in err if line.startswith("gamechip openings:")]
    assert len(failure) == 1 and expected in failure[0] and "class 1 of 3 to judge, c4c3)" in failure[0], err
    assert "the same command resumes" in failure[0] and "Traceback" not in "\n".join(err)
    assert out.read_text() == "f5d6c3\n"   # the earlier file is untouched
    assert values.read_text().startswith("# judge: the NBoard engine")


def test_bad_options_are_one_line_and_status_2(capsys):
    assert main(["openings", "--plies", "11"]) == 2
    assert "--plies must be 1..10" in capsys.readouterr().err
    assert main(["openings", "--judge", " "]) == 2
    assert "--judge needs an engine's command line" in capsys.readouterr().err

