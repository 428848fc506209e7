"""The search engine's scoreboard (tb/checks/search.py) and the golden search's fast paths: the
machine-word kernel (golden/words.py, PyPy's) and the golden process must give exactly the trace
of golden.search on CPython, and the scoreboard must name every kind of divergence the way the
per-cycle monitor does."""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden.board import parse_board, start_position
from golden.evaluator import evaluation_terms
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.search import KERNELS, search
from tb.checks.search import (LEAF_FIELDS, LOUD, STALL_CYCLES, GoldenProcess, LineFormat, SearchCase, check_search,
                             event_widths, loud_fields)

ROOT = Path(__file__).resolve().parent.parent
PYPY = shutil.which("pypy3")


def search_ports():
    from rtl.designs import PORTS

    return PORTS["search"]


FORMAT = LineFormat(event_widths(search_ports()))


def cases(seed, count):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        position = rng.choice(random_game_positions(rng))
        depth = rng.choice([1, 2, 3, 4, 16])
        budget = rng.choice([None, 400, 3000]) if depth < 16 else 4000
        out.append(SearchCase(position, depth, budget, f"random #{len(out)}"))
    return out


def engine_lines(case, kernel="ints"):
    """The event lines a correct engine writes for ``case``: what the harness's file holds."""
    result = search(case.position, case.depth, case.budget, kernel=kernel)
    lines = ["S 20"]
    for n in result.trace:
        own, opp = n.position.own, n.position.opp
        terms = None if n.kind == "inner" else evaluation_terms(own, opp, legal_moves(own, opp),
                                                                legal_moves(opp, own))
        lines.append(FORMAT.node_line(n.cycle, n.kind, n.ply, n.black, n.white, n.white_to_move, n.legal, terms,
                                      n.value))
    answer = {"best_pass": int(result.best is None), "best_move": result.best or 0, "value": result.value & 511,
              "depth": result.depth, "nodes": result.nodes, "cycles": result.cycles}
    lines.append(FORMAT.answer_line(result.cycles - 1, answer))
    return result, lines


def test_machine_word_kernel_gives_the_same_trace():
    # On CPython the word operations are emulated: the same algorithm PyPy compiles
    for case in cases(5, 12):
        a = search(case.position, case.depth, case.budget, kernel="ints")
        b = search(case.position, case.depth, case.budget, kernel="words")
        assert (a.summary(), a.iterations, a.trace) == (b.summary(), b.iterations, b.trace), case


def test_unknown_kernel_is_refused():
    with pytest.raises(ValueError, match="kernel must be one of"):
        search(start_position(), 2, kernel="gpu")
    assert set(KERNELS) == {"ints", "words"}


TRACE_DUMP = """
import json, sys
sys.path.insert(0, sys.argv[1])
from golden.search import DEFAULT_KERNEL, search
from golden.board import parse_board
print(DEFAULT_KERNEL)
for record in json.loads(sys.stdin.read()):
    result = search(parse_board(record["board"]), record["depth"], record["budget"])
    print(json.dumps([result.summary(), [n.to_dict() for n in result.trace]]))
"""


@pytest.mark.skipif(PYPY is None, reason="pypy3 is not installed (scripts/setup.sh installs it where apt-get is allowed)")
def test_pypy_golden_gives_the_same_trace_as_cpython():
    chosen = cases(6, 10)
    run = subprocess.run([PYPY, "-c", TRACE_DUMP, str(ROOT)], input=json.dumps([c.to_dict() for c in chosen]),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    kernel, *answers = run.stdout.splitlines()
    assert kernel == "words", "PyPy should run the machine-word kernel"
    for case, line in zip(chosen, answers):
        summary, trace = json.loads(line)
        result = search(case.position, case.depth, case.budget)
        assert summary == result.summary()
        assert trace == json.loads(json.dumps([n.to_dict() for n in result.trace])), case


def test_a_correct_engine_passes_and_every_node_is_counted():
    for case in cases(7, 6):
        result, lines = engine_lines(case)
        outcome = check_search(case, lines, FORMAT)
        assert outcome["mismatch"] is None, outcome["mismatch"]
        assert outcome["nodes"] == len(result.trace) and outcome["answer"] == result.summary()


def test_upper_case_hex_from_ghdl_is_accepted():
    case = SearchCase(start_position(), 3, None, "start")
    _, lines = engine_lines(case)
    assert check_search(case, [line.upper() if line[0] != "S" else line for line in lines],
                        FORMAT)["mismatch"] is None


START_4 = SearchCase(start_position(), 4, None, "start position, depth 4")


def mismatch_of(lines, case=START_4):
    return check_search(case, lines, FORMAT)["mismatch"]


def test_a_wrong_field_is_named_at_its_node():
    result, lines = engine_lines(START_4)
    node = next(i for i, n in enumerate(result.trace) if n.kind == "leaf" and n.ply == 2)
    fields = FORMAT.fields(lines[node + 1])
    position = sum(FORMAT.digits[:1 + LEAF_FIELDS.index("mobility_own")])
    bad = lines[node + 1][:position] + f"{fields[1 + LEAF_FIELDS.index('mobility_own')] + 1:02x}" + \
        lines[node + 1][position + 2:]
    m = mismatch_of(lines[:node + 1] + [bad] + lines[node + 2:])
    expected = result.trace[node]
    assert (m["what"], m["node"], m["cycle"], m["path"], m["iteration"]) == (
        "node differs", node, expected.cycle, expected.path_text(), expected.iteration)
    assert m["time_ns"] == 20 + 10 * expected.cycle
    assert m["actual"]["terms"]["mobility_own"] == m["expected"]["terms"]["mobility_own"] + 1
    assert {k for k in m["expected"] if m["expected"][k] != m["actual"][k]} == {"terms"}


def test_a_missing_node_is_late_in_the_cycle_after_it():
    result, lines = engine_lines(START_4)
    # a node followed by a gap: in the cycle after it the monitor sees nothing, not the next node
    node = next(i for i, n in enumerate(result.trace[:-1]) if result.trace[i + 1].cycle > n.cycle + 1)
    m = mismatch_of(lines[:node + 1] + lines[node + 2:])
    assert (m["what"], m["node"], m["cycle"], m["actual"]) == (
        "no node reported in the expected cycle", node, result.trace[node].cycle + 1, None)
    # without a gap the next node arrives in that cycle and is compared with the missing one
    node = next(i for i, n in enumerate(result.trace[:-1]) if result.trace[i + 1].cycle == n.cycle + 1)
    m = mismatch_of(lines[:node + 1] + lines[node + 2:])
    assert (m["what"], m["node"], m["cycle"]) == ("node differs", node, result.trace[node].cycle + 1)


def test_an_early_done_counts_the_golden_nodes():
    result, lines = engine_lines(START_4)
    m = mismatch_of(lines[:-6] + [lines[-1]])
    assert m["what"] == "no node reported in the expected cycle"   # done comes after the late node
    done = FORMAT.answer_line(result.trace[-5].cycle, {"best_pass": 0, "best_move": 19, "value": 0, "depth": 4,
                                                       "nodes": 1, "cycles": 1})
    m = mismatch_of(lines[:-5] + [done])
    assert m["what"] == f"done after {len(result.trace) - 4} of {len(result.trace)} nodes"


def test_an_extra_node_a_fault_a_hang_and_a_wrong_answer():
    result, lines = engine_lines(START_4)
    last_cycle = result.cycles - 1
    extra = FORMAT.node_line(last_cycle, "inner", 1, 0x810000000, 0x1008000000, False, 0)
    assert mismatch_of(lines[:-1] + [extra, lines[-1]])["what"] == "a node the golden search never generates"
    fault = mismatch_of(lines[:20] + [f"F {result.trace[19].cycle + 1:08x}"])
    assert (fault["what"], fault["cycle"]) == ("the flipper found the engine's chosen move illegal",
                                               result.trace[19].cycle + 1)
    hang = mismatch_of(lines[:-1] + [f"T {result.cycles + STALL_CYCLES + 1:08x}"])
    assert (hang["what"], hang["cycle"]) == (f"no done {STALL_CYCLES} cycles after the golden answer",
                                             result.cycles + STALL_CYCLES + 1)
    wrong = lines[-1].split()
    wrong[4] = "000"   # value 0 instead of -2
    m = mismatch_of(lines[:-1] + [" ".join(wrong)])
    assert m["what"] == "answer differs" and m["actual"]["value"] == 0 and m["expected"]["value"] == -2
    assert mismatch_of(lines[:-1])["what"] == "the simulation ended before done"


def test_an_exact_search_is_checked_against_the_solver():
    pos = parse_board("XXXXXXXX" * 7 + "XXXXXO-- O")
    case = SearchCase(pos, 4, None, "root must pass", exact=True)
    _, lines = engine_lines(case)
    assert check_search(case, lines, FORMAT)["mismatch"] is None


@pytest.mark.parametrize("python", ["cpython", "pypy"])
def test_the_golden_process_follows_an_event_file(python, tmp_path):
    if python == "pypy" and PYPY is None:
        pytest.skip("pypy3 is not installed")
    process = GoldenProcess(sys.executable if python == "cpython" else PYPY, log_path=str(tmp_path / "log"))
    try:
        chosen = cases(8, 3)
        for number, case in enumerate(chosen):
            _, lines = engine_lines(case)
            if number == 2:
                lines[5] = lines[5][:-1] + ("0" if lines[5][-1] != "0" else "1")
            events = tmp_path / f"events{number}.txt"
            process.submit(number, case, str(events), FORMAT.widths)
            events.write_text("\n".join(lines) + "\n")
        outcomes = [process.result(number) for number in range(3)]
    finally:
        process.close()
    assert [o["mismatch"] is None for o in outcomes] == [True, True, False]
    assert outcomes[2]["mismatch"]["node"] == 4 and outcomes[0]["golden_cycles"] == outcomes[0]["cycles"]


def test_a_loud_trace_port_is_named_with_its_fields_and_cycle():
    """The harness writes a Q line when an event field is not 0 outside its event."""
    result, lines = engine_lines(START_4)
    ports = {f: 0 for f in LEAF_FIELDS}
    assert loud_fields(False, ports) == [] and loud_fields(True, ports) == []
    ports.update(ply=3, value=5)
    assert loud_fields(False, ports) == ["ply", "value"]
    assert loud_fields(True, ports) == ["value"]           # an inner event: its ply is its own
    assert loud_fields(True, {**ports, "kind": 1}) == []    # a leaf's event: every field is its own
    cycle = result.trace[10].cycle + 1
    m = mismatch_of(lines[:11] + [FORMAT.loud_line(cycle, False, ports)])
    assert (m["what"], m["node"], m["cycle"]) == (LOUD, 10, cycle)
    assert m["actual"] == "event_ply = 3, event_value = 5 in a cycle without a node event"
    m = mismatch_of(lines[:11] + [FORMAT.loud_line(cycle, True, ports).upper()])
    assert m["actual"] == "event_value = 5 in an inner node's event"
    after_the_last_node = mismatch_of(lines[:-1] + [FORMAT.loud_line(result.cycles - 1, False, ports)])
    assert after_the_last_node["what"] == LOUD and after_the_last_node["cycle"] == result.cycles - 1
