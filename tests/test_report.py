"""``gamechip report DIR`` on campaign folders written here, in-process (no simulator): damaged
and empty journals, what counts as a pass, retried shards. A real failing campaign is reported in
tests/test_failure_views.py, a damaged real journal resumed and reported in tests/test_campaign.py.
"""

import json
import re
from html import unescape

import pytest

from gamechip.campaign.plan import PARAMETERS, plan
from gamechip.cli import main
from gamechip.campaign.journal import JOURNAL
from tb.blocks import BLOCKS

PARAMETERS_OF = {"blocks": ["stable_discs"], "sims": ["icarus"], "count": 400, "seed": 5, "shard_size": 200}


def shards():
    p = PARAMETERS_OF
    return plan([BLOCKS[b] for b in p["blocks"]], p["sims"], p["count"], p["seed"], p["shard_size"])


def line(shard, status, checked=0, **more):
    """A journal line shaped as gamechip.campaign.driver writes it."""
    return json.dumps({"key": shard.key, **shard.to_dict(), "status": status, "checked": checked, "seconds": 1.5,
                       "started": "2024-05-01T10:00:00.000+00:00", "ended": "2024-05-01T10:00:01.500+00:00",
                       **more}) + "\n"


def folder(tmp_path, *lines, parameters=PARAMETERS_OF):
    (tmp_path / JOURNAL).write_text("".join(lines))
    if parameters is not None:
        (tmp_path / PARAMETERS).write_text(json.dumps(parameters))
    return tmp_path


def report(path, capsys):
    status = main(["report", str(path)])
    out = capsys.readouterr()
    html = (path / "report.html").read_text() if (path / "report.html").is_file() else None
    return status, out.out, out.err, html


def test_a_garbage_line_in_the_middle_is_skipped_with_a_warning(tmp_path, capsys):
    first, second = shards()
    path = folder(tmp_path, line(first, "pass", 412), "}{ not json\n", line(second, "pass", 398))
    status, out, err, html = report(path, capsys)
    assert status == 0 and "report:" in out, err
    assert "warning: skipped 1 unreadable line" in err and "line 2 (not JSON" in err
    assert "line 2 (not JSON" in html and ">PASS<" in html and "810 cases checked" in html


def test_no_campaign_folder_is_one_clear_line(tmp_path, capsys):
    status, out, err, html = report(tmp_path / "nowhere", capsys)
    assert status == 2 and "is not a folder" in err and len(err.strip().splitlines()) == 1, err


def test_no_finished_shard_and_no_parameters_is_not_a_pass(tmp_path, capsys):
    """(tests/test_failure_views.py checks the one-line errors for other journals without a shard)"""
    status, out, err, html = report(folder(tmp_path, "\n", parameters=None), capsys)
    assert status == 2 and "no shard has finished" in err and "not a campaign" in err, err
    assert len(err.strip().splitlines()) == 1 and "PASS" not in out + err and html is None


def test_no_finished_shard_of_a_planned_campaign_is_incomplete(tmp_path, capsys):
    """Exit status 1, as gamechip campaign exits 1 when shards were not run: not a pass."""
    status, out, err, html = report(folder(tmp_path, ""), capsys)
    assert status == 1 and out.startswith("INCOMPLETE: 0 of 2 shards journaled; 0 cases checked"), out
    assert '<span class="bad">INCOMPLETE</span>: 0 of 2 shards journaled' in html


def test_every_planned_shard_passed_is_a_pass(tmp_path, capsys):
    first, second = shards()
    status, out, err, html = report(folder(tmp_path, line(first, "pass", 412), line(second, "pass", 398)), capsys)
    assert status == 0 and out.startswith("PASS: 2 of 2 shards journaled; 810 cases checked") and not err, out + err
    assert '<span class="ok">PASS</span>' in html


def test_a_failed_shard_is_a_fail_and_exit_status_1(tmp_path, capsys):
    """As gamechip campaign exits 1 on it: a CI step built on the report must not pass it."""
    first, second = shards()
    path = folder(tmp_path, line(first, "pass", 412), line(second, "fail", 3, message="MISMATCH in stable_discs"))
    status, out, err, html = report(path, capsys)
    assert status == 1 and out.startswith("FAIL: 2 of 2 shards journaled; 415 cases checked"), out + err
    assert '<span class="bad">FAIL</span>' in html


BOARD = "OOOXOO--O--OXX-X-X-OOXXO--O-XOX--OOO-XXXXOXX-OX-OOX-OX-XOXO-X-OX O"


@pytest.mark.parametrize("block, expected, actual, shown", [
    ("move_checker", 0x28489011880040C0, 0x28089011880040C0,
     ["0x28489011880040c0 (G1 H1 G2 D4 H4 A5 E5 E6 H6 D7 G7 D8 F8)",
      "0x28089011880040c0 (G1 H1 G2 D4 H4 A5 E5 E6 H6 D7 D8 F8)"]),
    ("disc_flipper", (0x8100000000000081, 0x1800, 0), (0x8100000000000081, 0x1000, 1),
     ["black 0x8100000000000081 (A1 H1 A8 H8), white 0x0000000000001800 (D2 E2), illegal 0",
      "white 0x0000000000001000 (E2), illegal 1"]),
    ("stable_discs", [(0, 0, 0, 0), (1, 1, 2, 0x8100000000000000)], [(0, 0, 0, 0), (1, 1, 1, 0x100000000000000)],
     ["cycle 1: done 1, count 2, stable 0x8100000000000000 (A8 H8)", "stable 0x0100000000000000 (A8)"]),
])
def test_the_report_shows_sets_of_squares_in_hex_with_their_names(tmp_path, capsys, block, expected, actual, shown):
    """As the failure views show them (the signal window's hex, the pictures' square names),
    never as decimal integers."""
    shard = plan([BLOCKS[block]], ["icarus"], 20, 7, 20)[0]
    case = tmp_path / "cases" / f"{block}.json"
    case.parent.mkdir()
    case.write_text(json.dumps({"block": block, "design": block, "sim": "icarus", "seed": 7, "expected": repr(expected),
                                "actual": repr(actual), "case": {"board": BOARD, "size": 8, "label": "fuzz #0",
                                                                 "move": 12, "color": "X"}}))
    path = folder(tmp_path, line(shard, "fail", 1, message="MISMATCH", case=str(case)),
                  parameters={"blocks": [block], "sims": ["icarus"], "count": 20, "seed": 7, "shard_size": 20})
    status, out, err, html = report(path, capsys)
    page = unescape(html)
    assert status == 1 and all(text in page for text in shown), page
    numbers = [n for value in (expected, actual) for n in re.findall(r"\d+", repr(value)) if int(n) > 255]
    assert numbers and not any(f"{n}" in page for n in numbers), numbers


def test_a_mutation_run_with_mutants_not_judged_exits_1_as_mutate_does(tmp_path, capsys):
    """gamechip report on a mutation run's folder exits as gamechip mutate does (1: mutants
    that could not be judged), not 0."""
    mutant = {"id": "rtl/move_checker.py:legal:invert:1:0123456789ab", "file": "rtl/move_checker.py",
              "function": "legal", "operator": "invert", "line": 10, "original": "a", "mutated": "b", "number": 1}
    (tmp_path / "mutants.json").write_text(json.dumps({"sim": "icarus", "rtl_digest": "x", "mutants": [mutant],
                                                       "blocks": {"move_checker": {"mutants": [mutant["id"]]}}}))
    (tmp_path / "journal.jsonl").write_text(json.dumps({"id": mutant["id"], "block": "move_checker", "number": 1,
                                                        "verdict": "error", "test": None, "message": "no result",
                                                        "seconds": 1.0}) + "\n")
    status = main(["report", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1 and "| move_checker | 1 | 0 | 0 | 0 | 0 | 1 | 0 | - |" in out, out


def hit_file(path, name, cases, sampled, hits):
    """A shard's hit record kept in the campaign folder, as keep_outputs keeps it; its name in OUT."""
    (path / "coverage").mkdir(exist_ok=True)
    (path / "coverage" / name).write_text(json.dumps({"design": "stable_discs", "sim": "icarus", "test": "fuzz",
                                                      "cases": cases, "sampled": sampled, "hits": hits}))
    return f"coverage/{name}"


@pytest.mark.parametrize("passed_cases", [None, 4000])
def test_a_failed_shard_makes_coverage_incomplete_never_a_list_of_holes(tmp_path, capsys, passed_cases):
    """A failing shard stops at its first mismatch, and its hit record may hold nothing (the
    mismatch was in its first chunk): the coverage says it is incomplete and why, naming the
    shard; it never lists every bin as a hole after '0 of 0 cases sampled'."""
    first, second = shards()
    failed = line(second, "fail", 1, message="MISMATCH", coverage=[hit_file(tmp_path, "b.json", 0, 0, {})])
    passed = [line(first, "pass", passed_cases, coverage=[hit_file(tmp_path, "a.json", passed_cases, 2100, {})])
              ] if passed_cases else []
    status, out, err, html = report(folder(tmp_path, *passed, failed), capsys)
    assert status == 1 and out.startswith("FAIL:"), out + err
    coverage = [text for text in out.splitlines() if "coverage" in text or text.startswith("  ")]
    reason = f"1 shard did not pass (first: {second.key}, fail): a failing shard stops at its first mismatch"
    assert "0 of 0 cases sampled" not in out and "holes:" not in out and "holes (" not in out, out
    if passed_cases is None:
        assert coverage[0].startswith(f"coverage of stable_discs: nothing sampled, so no bin is listed as a hole: "
                                      f"{reason}"), coverage
    else:
        assert re.match(r"coverage of stable_discs: \d+ bins, 0 hit, \d+ waived, \d+ not hit so far \(2,100 of "
                        r"4,000 cases sampled\)$", coverage[0]), coverage
        assert coverage[1].startswith(f"  incomplete: {reason}") and coverage[2].startswith("  not hit so far: "), coverage
    page = unescape(html)
    assert reason in page and "holes: " not in page and ">holes<" not in page.split("<th>holes</th>", 1)[1], page


@pytest.mark.parametrize("parameters, warning", [
    (None, "no campaign.json in"),
    ("{not json", "is unreadable"),
    ({**PARAMETERS_OF, "shard_size": 0}, "shard_size 0 is not a whole number of at least 1"),
    ({**PARAMETERS_OF, "blocks": ["alu"]}, "blocks ['alu'] is not a list of"),
    ({**PARAMETERS_OF, "count": 10 ** 12}, "shards, more than 100,000"),
])
def test_without_usable_parameters_passing_shards_are_not_a_pass(tmp_path, capsys, parameters, warning):
    first, second = shards()
    path = folder(tmp_path, line(first, "pass", 412), line(second, "pass", 398), parameters=None)
    if parameters is not None:
        (path / PARAMETERS).write_text(parameters if isinstance(parameters, str) else json.dumps(parameters))
    status, out, err, html = report(path, capsys)
    assert status == 1 and out.startswith("UNKNOWN: 2 shards journaled; 810 cases checked"), out + err
    assert "whether every planned shard ran is unknown" in out and warning in err, err
    assert ">PASS<" not in html and warning in unescape(html)


def test_a_retried_shard_shows_its_history_and_counts_under_its_last_line(tmp_path, capsys):
    first, second = shards()
    timeout = line(first, "timeout", message="no result after 900 s: killed with its simulator",
                   started="2024-05-01T09:00:00.000+00:00", ended="2024-05-01T09:15:00.000+00:00", seconds=900.0)
    error = line(first, "error", message="Traceback ...\nthe shard could not be run: OSError", seconds=2.0,
                 log=str(tmp_path / "logs" / "stable_discs-icarus-seed5.log"),
                 started="2024-05-01T09:20:00.000+00:00", ended="2024-05-01T09:20:02.000+00:00")
    path = folder(tmp_path, timeout, line(second, "pass", 398), error, line(first, "pass", 412))
    status, out, err, html = report(path, capsys)
    assert status == 0 and out.startswith("PASS: 2 of 2 shards journaled; 810 cases checked"), out
    assert "0 error, 0 timeout; 1 retried" in out
    assert re.search(r"<td>2/2</td><td[^>]*>2</td>(<td[^>]*>0</td>){3}<td>1</td><td>810</td>", html), html
    assert "Errors and timeouts (0)" in html and "Retried shards (1)" in html
    assert ("retried: timeout at 2024-05-01 09:15:00 (no result after 900 s: killed with its simulator), then error "
            "at 2024-05-01 09:20:02 (the shard could not be run: OSError), then pass at 2024-05-01 10:00:01") in html
    assert 'log of an earlier attempt: <a href="logs/stable_discs-icarus-seed5.log">' in html
    assert "15m05s of shard time" in html and "first shard started 2024-05-01T09:00:00" in html


@pytest.mark.parametrize("blocked", ["report.html", "report.html.tmp"])
def test_a_report_that_cannot_be_written_is_one_line(tmp_path, capsys, blocked):
    first, second = shards()
    path = folder(tmp_path, line(first, "pass", 412), line(second, "pass", 398))
    (path / blocked).mkdir()  # as a read-only or full disk would refuse it
    status, out, err, html = report(path, capsys)
    assert status == 2 and "cannot write" in err and "report.html" in err and len(err.strip().splitlines()) == 1, err
