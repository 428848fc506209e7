"""Bench for rtl/search: a node-by-node scoreboard against the golden search (SPEC §7).

The engine is the top level. A cocotb monitor samples it on every falling clock edge; in each
cycle in which the engine reports a node (``node_event``) the node is compared with the next
entry of the golden trace (``golden.search``): the cycle, kind, ply, board, side to move and
legal moves, and for a leaf every evaluation term, the stable counts and the value. At the end
the best move, value, completed depth, node count and cycle count are compared. The first
divergence stops the test and names the node by its path from the root.
"""

import json
import os
import random
import time
from dataclasses import dataclass
from typing import Optional

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge
from cocotb.utils import get_sim_time

from golden.board import Position, draw, start_position, format_board, parse_board, popcount, square_name, squares_of
from golden.evaluator import evaluate
from golden.othello import legal_moves
from golden.positions import random_game_positions
from golden.search import INNER, LEAF, MINUS_INFINITY, PLUS_INFINITY, TERMINAL, search, solve
from tb import runner
from tb.batch import ACTUAL_FILE, CASE_FILE, RESULT_FILE, case_record, progress
from tb.batch import environment as batch_environment

DESIGN = "search"
KINDS = {0: INNER, 1: LEAF, 2: TERMINAL}
TERM_PORTS = ("terminal", "stage", "corners_own", "corners_opp", "xsq_own", "xsq_opp",
              "mobility_own", "mobility_opp", "discs_own", "discs_opp", "fixed", "adaptive")
CLOCK_NS = 10
STALL_CYCLES = 64   # cycles past the golden answer before the bench gives up waiting


@dataclass(frozen=True)
class SearchCase:
    """One search: the root, the depth limit, the cycle budget (None: unlimited)."""

    position: Position
    depth: int
    budget: Optional[int]
    label: str
    exact: bool = False     # searched to the end: the value must equal golden.search.solve
    alpha: int = MINUS_INFINITY    # the root window (SPEC §12); default the full one
    beta: int = PLUS_INFINITY

    def to_dict(self):
        return {"board": format_board(self.position), "depth": self.depth, "budget": self.budget,
                "label": self.label, "exact": self.exact, "alpha": self.alpha, "beta": self.beta}

    @classmethod
    def from_dict(cls, record):
        return cls(parse_board(record["board"]), int(record["depth"]), record.get("budget"),
                   record.get("label", "saved case"), bool(record.get("exact", False)),
                   int(record.get("alpha", MINUS_INFINITY)), int(record.get("beta", PLUS_INFINITY)))

    def window_text(self):
        if (self.alpha, self.beta) == (MINUS_INFINITY, PLUS_INFINITY):
            return ""
        return f", window ({self.alpha}, {self.beta})"


def signed9(raw):
    return raw - 512 if raw & 256 else raw


def expected_terms(node):
    """Every term the engine reports for a leaf or terminal node, from the golden evaluator."""
    if node.kind == INNER:
        return None
    e = evaluate(node.position)
    return {"terminal": int(e.terminal), "stage": e.stage, "corners_own": e.corners[0],
            "corners_opp": e.corners[1], "xsq_own": e.xsquares[0], "xsq_opp": e.xsquares[1],
            "mobility_own": e.mobility[0], "mobility_opp": e.mobility[1],
            "discs_own": e.discs[0], "discs_opp": e.discs[1], "fixed": e.fixed,
            "adaptive": e.adaptive}


def expected_event(node):
    record = {"cycle": node.cycle, "kind": node.kind, "ply": node.ply, "board": node.position.text(),
              "legal": describe_bits(node.legal)}
    if node.kind != INNER:
        record.update(value=node.value, stable=list(node.stable), terms=expected_terms(node))
    return record


def describe_bits(bits):
    return " ".join(square_name(s) for s in squares_of(bits)) or "none"


class SearchTB:
    """Owns the clock, the reset and the engine's ports; runs one search with its scoreboard."""

    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        cocotb.start_soon(Clock(dut.clk, CLOCK_NS, "ns").start())
        self.event_ports = {name: getattr(dut, f"event_{name}") for name in
                            ("kind", "ply", "black", "white", "white_to_move", "legal",
                             "stable_own", "stable_opp", "value", *TERM_PORTS)}

    async def reset(self):
        self.dut.rst.value = 1
        self.dut.start.value = 0
        await RisingEdge(self.dut.clk)
        await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        await FallingEdge(self.dut.clk)

    def read_event(self, cycle):
        p = {name: int(port.value) for name, port in self.event_ports.items()}
        position = Position(p["black"], p["white"], bool(p["white_to_move"])) \
            if not p["black"] & p["white"] else None
        kind = KINDS.get(p["kind"], f"unknown kind {p['kind']}")
        record = {"cycle": cycle, "kind": kind, "ply": p["ply"],
                  "board": position.text() if position else f"black {p['black']:#x} white {p['white']:#x} (overlap)",
                  "legal": describe_bits(p["legal"])}
        if kind != INNER:
            terms = {name: p[name] for name in TERM_PORTS}
            terms["fixed"], terms["adaptive"] = signed9(terms["fixed"]), signed9(terms["adaptive"])
            record.update(value=signed9(p["value"]), stable=[p["stable_own"], p["stable_opp"]],
                          terms=terms)
        return record

    async def start(self, case):
        """Apply the root and limits of ``case`` and pulse ``start``; return at the falling
        edge of cycle 0 (the first cycle after the start edge)."""
        dut = self.dut
        pos = case.position
        dut.root_black.value = pos.black
        dut.root_white.value = pos.white
        dut.root_white_to_move.value = int(pos.white_to_move)
        dut.depth_limit.value = case.depth
        dut.budget.value = case.budget if case.budget is not None else (1 << 32) - 1
        dut.root_alpha.value = case.alpha & 0x1FF
        # 9 bits cannot hold +256: -256, which no beta can be, stands for plus infinity
        dut.root_beta.value = (MINUS_INFINITY if case.beta == PLUS_INFINITY else case.beta) & 0x1FF
        dut.start.value = 1
        await FallingEdge(dut.clk)          # the start edge is the rising edge before this
        dut.start.value = 0

    def answer(self):
        dut = self.dut
        return {"best": "pass" if int(dut.best_pass.value) else square_name(int(dut.best_move.value)),
                "value": signed9(int(dut.value.value)), "depth": int(dut.depth.value),
                "nodes": int(dut.nodes.value), "cycles": int(dut.cycles.value)}

    async def run(self, case, golden):
        """Start the engine on ``case`` and check every node against ``golden`` (a
        SearchResult); return (actual answer, mismatch or None). Samples on falling edges."""
        dut = self.dut
        await self.start(case)
        started_ns = get_sim_time("ns") - CLOCK_NS // 2
        trace = golden.trace
        index = 0
        cycle = 0
        give_up = golden.cycles + STALL_CYCLES
        while True:
            if int(dut.fault.value):
                return None, self.mismatch(case, golden, index, cycle, started_ns,
                                           "the flipper found the engine's chosen move illegal",
                                           None, None)
            if int(dut.node_event.value):
                actual = self.read_event(cycle)
                if index >= len(trace):
                    return None, self.mismatch(case, golden, index, cycle, started_ns,
                                               "a node the golden search never generates",
                                               None, actual)
                expected = expected_event(trace[index])
                if actual != expected:
                    return None, self.mismatch(case, golden, index, cycle, started_ns,
                                               "node differs", expected, actual)
                index += 1
            elif index < len(trace) and cycle > trace[index].cycle:
                return None, self.mismatch(case, golden, index, cycle, started_ns,
                                           "no node reported in the expected cycle",
                                           expected_event(trace[index]), None)
            if int(dut.done.value):
                break
            if cycle > give_up:
                return None, self.mismatch(case, golden, index, cycle, started_ns,
                                           f"no done {STALL_CYCLES} cycles after the golden answer",
                                           None, None)
            await FallingEdge(dut.clk)
            cycle += 1
        answer = self.answer()
        if index != len(trace):
            return answer, self.mismatch(case, golden, index, cycle, started_ns,
                                         f"done after {index} of {len(trace)} nodes",
                                         expected_event(trace[index]), None)
        if answer != golden.summary():
            return answer, {"what": "answer differs", "expected": golden.summary(), "actual": answer,
                            "cycle": cycle, "time_ns": started_ns + cycle * CLOCK_NS}
        return answer, None

    def mismatch(self, case, golden, index, cycle, started_ns, what, expected, actual):
        node = golden.trace[index] if index < len(golden.trace) else None
        return {"what": what, "node": index, "cycle": cycle,
                "time_ns": started_ns + cycle * CLOCK_NS,
                "iteration": node.iteration if node else None,
                "path": node.path_text() if node else None,
                "expected": expected, "actual": actual}


def failure_text(case, mismatch, env):
    lines = [f"SEARCH MISMATCH in {env['design']} on {env['sim']}, seed {env['seed']}",
             f"rtl:       {env['rtl_root']}/rtl (digest {env['rtl_digest']})",
             f"case:      {case.label}",
             f"root:      {format_board(case.position)}",
             f"limits:    depth {case.depth}, budget {case.budget if case.budget is not None else 'none'}"
             f"{case.window_text()}",
             *("           " + row for row in draw(case.position).splitlines()),
             f"what:      {mismatch['what']}"]
    if mismatch.get("path") is not None:
        lines += [f"node:      #{mismatch['node']} of the trace, iteration {mismatch['iteration']}, "
                  f"path from the root: {mismatch['path']}"]
    lines += [f"cycle:     {mismatch['cycle']} after start (simulation time {mismatch['time_ns']} ns)"]
    expected, actual = mismatch.get("expected"), mismatch.get("actual")
    for name, record in (("expected", expected), ("actual", actual)):
        lines.append(f"{name + ':':10} {json.dumps(record) if record is not None else '(none)'}")
    if isinstance(expected, dict) and isinstance(actual, dict):
        differing = sorted(k for k in set(expected) | set(actual) if expected.get(k) != actual.get(k))
        lines.append(f"differs:   {', '.join(differing)}")
    lines += [f"case file: {os.path.abspath(CASE_FILE)}",
              f"replay it with a waveform: gamechip replay {os.path.abspath(CASE_FILE)} --waves"]
    return "\n".join(lines)


def environment():
    return dict(batch_environment(), design=os.environ.get("GAMECHIP_DESIGN", DESIGN),
                scale=os.environ.get("GAMECHIP_SEARCH_SCALE", "small"))


def record_result(test, checked, searches, seconds, cycles, failure=None):
    record = {"tests": {}}
    if os.path.exists(RESULT_FILE):
        with open(RESULT_FILE) as previous:
            record = json.load(previous)
    record["tests"][test] = {"checked": checked, "searches": searches, "wall_seconds": seconds,
                             "cycles": cycles}
    record["checked"] = sum(t["checked"] for t in record["tests"].values())
    if failure:
        record.setdefault("failure", failure)
    with open(RESULT_FILE + ".tmp", "w") as out:
        json.dump(record, out)
    os.replace(RESULT_FILE + ".tmp", RESULT_FILE)


async def check_searches(dut, cases, test):
    """Run every case with the scoreboard; stop at the first divergence with a named node."""
    env = environment()
    tb = SearchTB(dut)
    await tb.reset()
    checked = cycles = 0
    started = time.perf_counter()
    for number, case in enumerate(cases, 1):
        golden = search(case.position, case.depth, case.budget, alpha=case.alpha, beta=case.beta)
        answer, mismatch = await tb.run(case, golden)
        if test == "replay":
            with open(ACTUAL_FILE, "w") as out:
                json.dump({"answer": answer, "trace_match": mismatch is None,
                           "nodes_checked": len(golden.trace) if mismatch is None else mismatch.get("node")},
                          out)
        if mismatch is None and case.exact and golden.value != solve(case.position):
            mismatch = {"what": "golden search value differs from the exhaustive solver",
                        "expected": solve(case.position), "actual": golden.value,
                        "cycle": golden.cycles, "time_ns": 0}
        if mismatch is not None:
            if not os.path.exists(CASE_FILE):
                with open(CASE_FILE, "w") as out:
                    json.dump(case_record("search", case, env, mismatch=mismatch), out, indent=2)
            message = failure_text(case, mismatch, env)
            record_result(test, checked, number - 1, time.perf_counter() - started, cycles, message)
            raise AssertionError(message)
        checked += len(golden.trace)
        cycles += golden.cycles
        progress(f"search {test} on {env['sim']}: {number}/{len(cases)} searches, {checked:,} nodes, "
                 f"{cycles:,} cycles checked ({case.label}: best {answer['best']}, value {answer['value']}, "
                 f"depth {answer['depth']}, {answer['cycles'] / max(1, answer['nodes']):.2f} cycles/node)")
    record_result(test, checked, len(cases), time.perf_counter() - started, cycles)


# --- the positions ---------------------------------------------------------------------

SCALES = {
    # depth and number of random-play searches, searches with a budget that stops inside an
    # iteration, searches with a pass and a finished game inside the horizon, endgames
    # (number, empties) searched to the end, positions searched with the seven root windows
    "tiny": {"depth": 2, "random": 1, "budgeted": 1, "passes": 1, "endgames": 1, "empties": 3, "windows": 0},
    "small": {"depth": 3, "random": 3, "budgeted": 2, "passes": 2, "endgames": 2, "empties": 5, "windows": 1},
    "medium": {"depth": 4, "random": 6, "budgeted": 3, "passes": 3, "endgames": 3, "empties": 7, "windows": 2},
    "large": {"depth": 5, "random": 12, "budgeted": 6, "passes": 6, "endgames": 6, "empties": 8, "windows": 4},
}


def random_midgames(rng, count, low=8, high=40):
    """Positions from random games, ``low``..``high`` discs, with a legal move."""
    out = []
    while len(out) < count:
        game = random_game_positions(rng)
        candidates = [p for p in game if low <= popcount(p.black | p.white) <= high
                      and legal_moves(p.own, p.opp)]
        if candidates:
            out.append(rng.choice(candidates))
    return out


def endgames(rng, count, empties):
    """Positions from random games with exactly ``empties`` empty squares, game not over."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng):
            if 64 - popcount(p.black | p.white) == empties and (
                    legal_moves(p.own, p.opp) or legal_moves(p.opp, p.own)):
                out.append(p)
                break
    return out


def finished(node):
    """A node of the trace whose game is over (searched as terminal, or a leaf at the end)."""
    pos = node.position
    return not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own)


def with_pass_or_end(rng, count, depth):
    """Random-game positions whose depth-``depth`` tree holds both a pass and a finished game."""
    out = []
    while len(out) < count:
        for p in random_game_positions(rng)[-14:]:
            if finished_position(p):
                continue
            trace = search(p, depth).trace
            if any(n.ply > 0 and n.move is None for n in trace) and any(finished(n) for n in trace):
                out.append(p)
                break
    return out


def finished_position(p):
    return not legal_moves(p.own, p.opp) and not legal_moves(p.opp, p.own)


def directed_cases():
    black_start = start_position()
    cases = [SearchCase(black_start, d, None, f"start position, depth {d}") for d in (1, 2, 3)]
    # Depth 1 prefers C4, which is not the first legal move in the static order: iteration 2
    # must start from it (the PV), then E6 wins at depth 3.
    pv_not_first = parse_board("---------O---O---XOX-O-----OXO-----XOX-------OX----------------- X")
    cases.append(SearchCase(pv_not_first, 3, None, "PV move is not the first in static order"))
    cases.append(SearchCase(black_start, 6, 200, "start position, depth 6, budget 200 (stops in iteration 4)"))
    cases.append(SearchCase(black_start, 6, 30, "start position, budget 30 (stops in iteration 2)"))
    # A pass at the root: white cannot move, black can.
    root_pass = parse_board("XXXXXXXX" * 7 + "XXXXXO-- O")
    cases.append(SearchCase(root_pass, 4, None, "root must pass", exact=True))
    over = parse_board("X" * 63 + "- X")
    cases.append(SearchCase(over, 2, None, "game over at the root", exact=True))
    return cases + window_cases(black_start, 3) + window_cases(pv_not_first, 4)


def window_cases(position, depth, label="", tag=""):
    """The root windows a host hands an engine (SPEC §12) around the position's true value v:
    null windows just below, at and above v (fail high, exact boundary, fail low), a narrow
    window holding v, one wholly above (every move fails low) and one wholly below (the first
    move cuts the root off)."""
    v = search(position, depth).value
    windows = [(v - 1, v), (v, v + 1), (v - 2, v + 2), (v + 1, v + 9), (v - 9, v - 1), (MINUS_INFINITY, v),
               (v, PLUS_INFINITY)]
    return [SearchCase(position, depth, None, f"{label or 'root window'}{tag} ({a}, {b}) around the value {v}",
                       alpha=a, beta=b)
            for a, b in windows if MINUS_INFINITY <= a < b <= PLUS_INFINITY]


def random_cases(seed, scale):
    rng = random.Random(seed)
    size = SCALES[scale]
    cases = [SearchCase(p, size["depth"], None, f"random play #{i} (seed {seed}), depth {size['depth']}")
             for i, p in enumerate(random_midgames(rng, size["random"]))]
    cases += [SearchCase(p, size["depth"] + 2, 300 + 200 * i,
                         f"random play #{i} (seed {seed}), budget {300 + 200 * i} cycles")
              for i, p in enumerate(random_midgames(rng, size["budgeted"]))]
    cases += [SearchCase(p, 4, None, f"pass and game over within the horizon #{i} (seed {seed})")
              for i, p in enumerate(with_pass_or_end(rng, size["passes"], 4))]
    for i, p in enumerate(random_midgames(rng, size["windows"])):
        cases += window_cases(p, size["depth"], f"random play #{i} (seed {seed}), root window")
    return cases


def endgame_cases(seed, scale):
    rng = random.Random(seed + 1000)
    empties = SCALES[scale]["empties"]
    return [SearchCase(p, min(16, 2 * empties), None,
                       f"endgame #{i} with {empties} empties (seed {seed}), searched to the end",
                       exact=True)
            for i, p in enumerate(endgames(rng, SCALES[scale]["endgames"], empties))]


# --- cocotb tests ----------------------------------------------------------------------

@cocotb.test()
async def directed(dut):
    await check_searches(dut, directed_cases(), "directed")


@cocotb.test()
async def random_play(dut):
    env = environment()
    await check_searches(dut, random_cases(env["seed"], env["scale"]), "random_play")


@cocotb.test()
async def endgame(dut):
    env = environment()
    await check_searches(dut, endgame_cases(env["seed"], env["scale"]), "endgame")


@cocotb.test()
async def replay(dut):
    with open(environment()["case"]) as saved:
        case = SearchCase.from_dict(json.load(saved)["case"])
    await check_searches(dut, [case], "replay")


@cocotb.test()
async def from_file(dut):
    """The searches in the file GAMECHIP_CASES, each under the node-by-node scoreboard."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [SearchCase.from_dict(record) for record in json.load(saved)]
    await check_searches(dut, cases, "from_file")


def check_searches_on(sim, boards, depth, budget, echo=False, rtl_root=None):
    """Run the searches of ``boards`` (board texts) on ``sim`` with the scoreboard; the number
    of nodes checked, or AssertionError with the failure report."""
    cases = [SearchCase(parse_board(text), depth, budget, f"search #{i} of the game") for i, text in enumerate(boards)]
    return check_search_cases(sim, cases, "game-nodes", echo=echo, rtl_root=rtl_root)


def check_search_cases(sim, cases, tag, echo=False, rtl_root=None):
    """Run ``cases`` (SearchCase) in one simulation on ``sim`` under the node scoreboard; the
    number of node reports checked, or AssertionError with the failure report."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as out:
        json.dump([case.to_dict() for case in cases], out)
    try:
        outcome = run_search_bench(sim, ["from_file"], "small", tag=tag, echo=echo, cases_file=out.name,
                                   rtl_root=rtl_root)
    finally:
        os.unlink(out.name)
    if not outcome.passed:
        raise AssertionError(outcome.result.get("failure") or outcome.log[-3000:])
    return outcome.result.get("checked", 0)


@cocotb.test()
async def free_run(dut):
    """The searches in the file GAMECHIP_CASES without the scoreboard (for ``make bench``):
    the engine runs free until ``done``; each answer and its wall time go to ACTUAL_FILE."""
    with open(os.environ["GAMECHIP_CASES"]) as saved:
        cases = [SearchCase.from_dict(record) for record in json.load(saved)]
    tb = SearchTB(dut)
    await tb.reset()
    results = []
    for number, case in enumerate(cases, 1):
        await tb.start(case)
        started = time.perf_counter()
        await RisingEdge(dut.done)
        results.append(dict(tb.answer(), seconds=time.perf_counter() - started))
        seconds = results[-1]["seconds"]
        progress(f"search free run: {number}/{len(cases)} ({results[-1]['cycles']:,} cycles, "
                 f"{results[-1]['cycles'] / max(seconds, 1e-9):,.0f} cycles/s)")
        await FallingEdge(dut.clk)
    with open(ACTUAL_FILE, "w") as out:
        json.dump(results, out)


# --- pytest ----------------------------------------------------------------------------

# Icarus evaluates this design at about 30 cycles/s, GHDL at about 200, Verilator (cocotb
# sampling every cycle) at thousands: sizes chosen so each stays around a minute.
SCALE_FOR_SIM = {"icarus": "tiny", "verilator": "medium", "ghdl": "small"}


def run_search_bench(sim, tests, scale, seed=1, waves=False, tag="", case_file=None, echo=False,
                     rtl_root=None, optimised=False, cases_file=None):
    env = {"GAMECHIP_SEED": str(seed), "GAMECHIP_SEARCH_SCALE": scale}
    if cases_file:
        env["GAMECHIP_CASES"] = str(cases_file)
    if case_file:
        env["GAMECHIP_CASE"] = str(case_file)
    return runner.run_design(DESIGN, sim, "tb.test_search", tests, env=env, waves=waves, tag=tag,
                             echo=echo, rtl_root=rtl_root, direct=True, quiet=True,
                             quick_build=not optimised)


def waveform(sim_dir, sim):
    return {"icarus": sim_dir / f"{DESIGN}.vcd", "verilator": sim_dir / "dump.fst",
            "ghdl": sim_dir / f"{DESIGN}.ghw"}[sim]


def replay_search_case(case_file, waves=True, echo=False, rtl_root=None):
    """Re-run one saved search case; return (RunResult, waveform path or None)."""
    record = json.loads(open(case_file).read())
    outcome = run_search_bench(record["sim"], ["replay"], "small", seed=record.get("seed", 1), waves=waves,
                               tag="replay", case_file=os.path.abspath(case_file), echo=echo,
                               rtl_root=rtl_root)
    return outcome, waveform(outcome.sim_dir, record["sim"]) if waves else None


@pytest.mark.parametrize("sim", runner.SIMULATORS)
def test_search(sim):
    seed = int(os.environ.get("GAMECHIP_SEED", "1"))
    scale = os.environ.get("GAMECHIP_SEARCH_SCALE") or SCALE_FOR_SIM[sim]
    if scale not in SCALES:
        pytest.fail(f"GAMECHIP_SEARCH_SCALE must be one of {', '.join(SCALES)}, got '{scale}'", pytrace=False)
    outcome = run_search_bench(sim, ["directed", "random_play", "endgame"], scale, seed)
    if not outcome.passed:
        message = outcome.result.get("failure", outcome.log[-3000:])
        if outcome.failure_case.exists():
            replayed, path = replay_search_case(outcome.failure_case)
            message += f"\nwaveform: {path}" + ("" if path and path.exists() else " (not written)")
        pytest.fail(message, pytrace=False)
    assert outcome.result.get("checked", 0) > 0, "the search bench checked nothing"
