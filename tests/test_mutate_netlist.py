"""``gamechip mutate --netlist``: Yosys netlist mutants (gamechip/mutation/netlist.py). Stable ids,
three move-checker mutants through the bench on Icarus end to end (the plusarg must drive the
netlist's mutsel: they are all killed), the SAT miter of a netlist mutant against the converted
design on a small fixture, and bad input answered in one line."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamechip.mutation import netlist as mutate_netlist
from gamechip.mutation.proof import prove_netlist
from tb.host import runner
ROOT = Path(__file__).resolve().parent.parent
ID = re.compile(r"^netlist:move_checker\.v:\d+:\d+:(inv|const0|const1|cnot0|cnot1):[0-9a-f]{8}$")


def gamechip(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "gamechip", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ), timeout=timeout)


def test_netlist_mutant_ids_are_stable_across_two_listings_and_name_the_verilog_line(tmp_path):
    original = runner.hdl_dir("move_checker") / "move_checker.v"
    first = mutate_netlist.sample("move_checker", original, 12, 1, tmp_path / "a")
    second = mutate_netlist.sample("move_checker", original, 12, 1, tmp_path / "b")
    ids = [m.id for m in first]
    assert len(ids) == 12 and len(set(ids)) == 12
    assert all(ID.match(i) for i in ids), ids
    assert [m.id for m in second] == ids
    assert [m.number for m in first] == list(range(1, 13))
    lines = original.read_text().splitlines()
    assert all(m.original == lines[m.line - 1].strip()[:160] for m in first)
    other_seed = mutate_netlist.sample("move_checker", original, 12, 2, tmp_path / "c")
    assert [m.id for m in other_seed] != ids


def test_three_move_checker_netlist_mutants_run_through_the_bench_and_are_killed(tmp_path):
    out = tmp_path / "run"
    run = gamechip("mutate", "--blocks", "move_checker", "--netlist", "3", "--netlist-only", "--sim", "icarus",
                   "--quick", "--jobs", "1", "--out", str(out), "--json")
    assert run.returncode == 0, run.stderr[-3000:]
    row = json.loads(run.stdout)["blocks"]["move_checker:netlist"]
    assert row["kind"] == "netlist" and row["mutants"] == 3 and row["errors"] == 0 and row["pending"] == 0, row
    # +MUTSEL=k reaches the netlist's mutsel: with it tied to 0 no mutant would die
    assert row["killed"] == 3, run.stdout
    wrapped = (out / "netlist" / "rtl" / "_netlist" / "move_checker.v").read_text()
    assert '$value$plusargs("MUTSEL=%d", MUTSEL)' in wrapped and ".mutsel(MUTSEL)" in wrapped
    assert re.search(r"module move_checker_netlist\s*\(own, opp, legal, mutsel\)", wrapped)
    journal = (out / "journal.jsonl").read_text().splitlines()
    assert sum('"baseline"' in line for line in journal) == 1   # mutsel 0 passed first
    catalogue = json.loads((out / "mutants.json").read_text())
    assert all(m["kind"] == "netlist" and m["spec"].startswith("-mode ") for m in catalogue["mutants"])
    assert "| move_checker:netlist | 3 | 3 |" in (out / "report.md").read_text()


# A tiny combinational design as MyHDL converts one: legal = own | opp on 4-bit boards.
TINY = """\
module tiny (own, opp, legal);
input [3:0] own;
input [3:0] opp;
output [3:0] legal;
wire [3:0] legal;
assign legal = (own | opp);
endmodule
"""
TINY_PORTS = [("own", 4, "in"), ("opp", 4, "in"), ("legal", 4, "out")]


def test_the_miter_proves_netlist_mutants_equivalent_on_legal_boards_or_gives_a_board_that_tells(tmp_path):
    (tmp_path / "tiny.v").write_text(TINY)
    mutants = mutate_netlist.sample("tiny", tmp_path / "tiny.v", 10, 1, tmp_path / "work")
    netlist = mutate_netlist.build("tiny", mutants, tmp_path / "work")
    assert len(mutants) == 10
    verdicts = {}
    for mutant in mutants:
        proof = prove_netlist(TINY, netlist, "tiny", "tiny_netlist", mutant.number, 16, TINY_PORTS, timeout=60)
        assert proof.verdict in ("equivalent", "counterexample"), (mutant.spec, proof.detail)
        verdicts[mutant.id] = proof.verdict
        if proof.verdict == "counterexample":
            own, opp = proof.inputs["own"], proof.inputs["opp"]
            assert own & opp == 0   # a legal board
        if mutant.number <= 5:   # against the netlist with mutsel 0 (what a run does once that is proved): the same
            shared = prove_netlist(None, netlist, "tiny", "tiny_netlist", mutant.number, 16, TINY_PORTS, timeout=60)
            assert shared.verdict == proof.verdict, mutant.spec
    assert "counterexample" in verdicts.values()
    # mutsel 0 is the unmutated netlist: equivalent to the original
    assert prove_netlist(TINY, netlist, "tiny", "tiny_netlist", 0, 16, TINY_PORTS, timeout=60).verdict == "equivalent"


@pytest.mark.parametrize("args, message", [
    (["--netlist", "0"], "--netlist must be at least 1"),
    (["--netlist", "-3"], "--netlist must be at least 1"),
    (["--netlist-only"], "--netlist-only needs --netlist N"),
    (["--netlist", "5", "--blocks", "nonesuch"], "unknown block 'nonesuch'"),
    (["--netlist", "5", "--netlist-only", "--blocks", "uart"], "no netlist mutants for uart"),
])
def test_bad_netlist_arguments_are_one_line_and_exit_status_2(tmp_path, args, message):
    run = gamechip("mutate", "--out", str(tmp_path / "x"), *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
