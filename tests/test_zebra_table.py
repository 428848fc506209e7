"""``make zebra-table`` (gamechip/games/zebra_table.py) without Zebra: a stand-in binary answering
Zebra's command line with the first legal move, the processor at a small budget; and the equal
wall-time budget from the processor's placed clock."""

import json
import sys
from pathlib import Path

from gamechip.games.zebra_table import main, wall_time_budgets, write_table
from golden.contest.ggf import parse_ggf
from golden.othello import legal_moves

ROOT = Path(__file__).resolve().parent.parent

# Zebra's command line as scripts/zebra-nboard gives it (-seq MOVES last); its answer's PV line
STAND_IN = f"""#!{sys.executable} -S
import sys
sys.path.insert(0, {str(ROOT)!r})
from golden.board import parse_game_record, square_name, squares_of, start_position
from golden.othello import legal_moves, play
position = start_position()
for square in parse_game_record(sys.argv[-1]):
    if not legal_moves(position.own, position.opp):
        position = position.swap_side()
    position = play(position, square)
if not legal_moves(position.own, position.opp):
    position = position.swap_side()
print("-->   1  +0.00  c4")
print("PV: " + square_name(squares_of(legal_moves(position.own, position.opp))[0]).lower())
"""


def test_equal_wall_time_is_the_seconds_at_the_processors_placed_clock(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMECHIP_AREA_JSON", str(tmp_path / "no-area.json"))
    (budget, label), = wall_time_budgets([0.1])[0]
    assert budget == 1_350_000 and label == "0.1 s at the processor's 13.5 MHz"   # docs/area.md's figure
    assert "README's figure" in wall_time_budgets([0.1])[1]
    area = tmp_path / "area.json"
    area.write_text(json.dumps({"rows": [{"design": "processor", "family": "ecp5", "fmax_measured": True,
                                          "fmax_mhz": 25.0}]}))
    monkeypatch.setenv("GAMECHIP_AREA_JSON", str(area))
    budgets, source = wall_time_budgets([0.1, 1])
    assert [b for b, _ in budgets] == [2_500_000, 25_000_000] and f"placed, {area}" in source


def test_the_table_plays_each_cell_keeps_its_records_and_names_what_was_not_played(tmp_path, capsys):
    zebra = tmp_path / "zebra"
    zebra.write_text(STAND_IN)
    zebra.chmod(0o755)
    out = tmp_path / "table"
    argv = ["--zebra", str(zebra), "--levels", "1", "--budgets", "2000", "--openings", "1", "--jobs", "2",
            "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "zebra-table: cell 1 of 1: 2,000 cycles a move (cycles) against Zebra level 1, 2 games" in captured.err
    records = sorted((out / "budget2000-level1").glob("*.ggf"))
    assert len(records) == 2
    for record in records:   # parse_ggf replays every move by the rules
        final = parse_ggf(record.read_text()).final
        assert not legal_moves(final.own, final.opp) and not legal_moves(final.opp, final.own)
    games = json.loads((out / "budget2000-level1" / "results.json").read_text())["games"]
    assert [g["reason"] for g in games] == ["end of game"] * 2
    won = sum(g["winner"] is not None and g[g["winner"]] == "gamechip" for g in games)
    table = (out / "table.md").read_text()
    assert f"| 2,000 (cycles) | 1 | {won} of 2 |" in table and table in captured.out
    assert "Not played yet" not in table
    # a second run keeps both records; a level not played is named under the table
    mtimes = [r.stat().st_mtime_ns for r in records]
    assert main(argv) == 0 and [r.stat().st_mtime_ns for r in records] == mtimes
    write_table(out, [(2000, "cycles"), (4000, "cycles")], [1, 2], "the command")
    table = (out / "table.md").read_text()
    assert ("Not played yet: 2,000 cycles against level 2; 4,000 cycles against level 1; 4,000 cycles against "
            "level 2.") in table and "| 1, 2 |" not in table
    # the same games again as level 2's: a row over both levels, without Elo (two opponents)
    (out / "budget2000-level2").mkdir()
    (out / "budget2000-level2" / "results.json").write_text(
        (out / "budget2000-level1" / "results.json").read_text().replace('"zebra1"', '"zebra2"'))
    write_table(out, [(2000, "cycles")], [1, 2], "the command")
    mean = sum((g["black_discs"] - g["white_discs"]) * (1 if g["black"] == "gamechip" else -1) for g in games) / 2
    assert f"| 2,000 (cycles) | 1, 2 | {2 * won} of 4 | {4 - 2 * won} | 0 | {mean:+.1f} | |" in (out / "table.md").read_text()


def test_no_budget_or_no_zebra_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["--zebra", str(tmp_path / "none"), "--out", str(tmp_path)]) == 2
    assert main(["--zebra", sys.executable, "--budgets", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "not an executable" in err[0] and "no budget" in err[1]
