"""The K-engine splitter's bench checks (designs search_k2 and search_k3, rtl/k_engines.py,
docs/k-engines.md), without cocotb: its searches as cases, the golden splitter's expectation
(golden/root_split.py, ``engines=K, contexts=1``), and the comparison of the answer ports.

The job port is compared job event by job event with tb.checks.processor ``job_port_difference``
(worker ``engine``): each job's clock, engine, kind, root move, depth and window, and on its result
the value, the node count and the signature of the job's node events, so every node of every
engine is checked through its job's signature."""

from dataclasses import dataclass
from typing import Optional

from golden.board import format_board
from golden.positions import sampled_midgames
from golden.root_split import root_split

# The cases' positions: midgames (plies 14-44 of random games) and late positions whose searches
# meet passes and finished games below the root (the golden twin's tests, tests/test_golden_k_engines.py).
POSITION_SETS = {"mid": lambda: sampled_midgames(47, 8, 14, 44), "late": lambda: sampled_midgames(48, 4, 52, 61)}
CASES_VARIABLE = "GAMECHIP_SEARCH_K_CASES"   # SET:INDEX:DEPTH:BUDGET,... instead of the tier's cases


@dataclass(frozen=True)
class SearchKCase:
    """Position ``index`` of POSITION_SETS[``positions``], searched to ``depth`` with ``budget``
    clocks (None: no budget)."""
    positions: str
    index: int
    depth: int
    budget: Optional[int] = None

    @property
    def label(self):
        return f"{self.positions}:{self.index}:{self.depth}:{self.budget or 0}"

    @property
    def position(self):
        return POSITION_SETS[self.positions]()[self.index]


def parse_cases(text):
    """SearchKCase list from ``SET:INDEX:DEPTH:BUDGET,...`` (budget 0: none); ValueError names the bad one."""
    cases = []
    for item in filter(None, text.split(",")):
        parts = item.split(":")
        if len(parts) != 4 or parts[0] not in POSITION_SETS or not all(p.isdigit() for p in parts[1:]):
            raise ValueError(f"search case {item!r}: expected SET:INDEX:DEPTH:BUDGET with SET one of "
                             f"{', '.join(POSITION_SETS)} (budget 0: none)")
        index, depth, budget = (int(p) for p in parts[1:])
        if index >= len(POSITION_SETS[parts[0]]()) or not 1 <= depth <= 16:
            raise ValueError(f"search case {item!r}: index 0..{len(POSITION_SETS[parts[0]]()) - 1}, depth 1..16")
        cases.append(SearchKCase(parts[0], index, depth, budget or None))
    return cases


def cases_text(cases):
    return ",".join(case.label for case in cases)


# The cases per regression tier and simulator. Verilator (HDL clock, a few thousand clocks a
# search): every midgame and late position at depth 4 or 5, budgets that abandon an iteration
# inside its PV job, inside its null-window jobs and in a re-search. Icarus and GHDL simulate the
# splitter at a few hundred clocks a second: a few short searches each (re-searches that raise the
# root's alpha in iteration 2), one abandoned by its budget.
VERILATOR_DEFAULT = ([SearchKCase("mid", i, 5) for i in range(8)] + [SearchKCase("late", i, 5) for i in range(4)]
                     + [SearchKCase("mid", 1, 4, 300), SearchKCase("mid", 4, 5, 1000), SearchKCase("mid", 2, 5, 1200),
                        SearchKCase("mid", 3, 4, 150), SearchKCase("late", 1, 5, 1500)])
VERILATOR_FULL = (VERILATOR_DEFAULT + [SearchKCase("mid", i, 6) for i in range(8)]
                  + [SearchKCase("mid", i, 6, 2000 + 500 * i) for i in range(8)] + [SearchKCase("late", i, 7) for i in range(4)])
SHORT = [SearchKCase("mid", 5, 3), SearchKCase("late", 3, 3), SearchKCase("mid", 1, 4, 300)]
CASES = {"default": {"verilator": VERILATOR_DEFAULT, "icarus": SHORT, "ghdl": SHORT[:2]},
         "full": {"verilator": VERILATOR_FULL, "icarus": SHORT + [SearchKCase("mid", 3, 4)], "ghdl": SHORT}}


def golden_search(case, engines):
    """The golden splitter's search of ``case`` on ``engines`` engines of one context (the jobs kept)."""
    return root_split(case.position, case.depth, case.budget, engines=engines, contexts=1)


ANSWER_FIELDS = ("best_move", "value", "depth", "nodes", "cycles", "trace_signature")


def golden_answer(result):
    """The answer ports the golden ``result`` gives (best_move 0 for a pass)."""
    return {"best_move": result.best or 0, "value": result.value, "depth": result.depth, "nodes": result.nodes,
            "cycles": result.cycles, "trace_signature": result.signature}


def answer_difference(actual, expected):
    """None when the answer ports are the golden's, else the differing fields as text."""
    fields = [name for name in ANSWER_FIELDS if actual[name] != expected[name]]
    if not fields:
        return None
    return ", ".join(f"{name} expected {expected[name]}, actual {actual[name]}" for name in fields)


def case_heading(case, design, sim):
    """The failing search's first lines: design, simulator, case, board and limits."""
    return (f"SEARCH MISMATCH in {design} on {sim}: case {case.label} (position {case.index} of the "
            f"{case.positions} set, depth {case.depth}, budget {case.budget if case.budget else 'none'})\n"
            f"root: {format_board(case.position)}")


def replay_text(case, sim, design):
    """The command that runs this one search again, with its waveform."""
    return (f"replay: {CASES_VARIABLE}={case.label} GAMECHIP_SEARCH_K_WAVES=1 .venv/bin/python -m pytest "
            f"'tb/test_search_k.py::{'test_search_k' if design == 'search_k2' else 'test_search_k3'}[{sim}]' -m ''")


def coverage_bins(result, engines):
    """The bins of tb/testplans/search_k2.toml one checked search hits, from the golden ``result``
    (its jobs kept): which engines took a job of each kind, whether a result was taken while
    another engine's job was chosen and not yet started, the budget's end with every engine or
    only some running a job, and the re-search queue's depth when a move joins it."""
    hits = {}

    def hit(name):
        hits[name] = hits.get(name, 0) + 1

    jobs = result.jobs
    for job in jobs:
        if job.kind != "ROOT":     # iteration 1's one job, always engine 0's
            hit(f"job_taken:{job.engine}/{job.kind}")
    for job in jobs:
        if any(other.engine != job.engine and other.chosen < job.done < other.start for other in jobs):
            hit(f"result_while_another_is_chosen:{job.engine}")
    ran_out = {job.engine for job in jobs if job.depth_reported < job.depth}
    if ran_out:
        hit(f"budget_end:{'every_engine' if len(ran_out) == engines else 'some_engines'}")
    # the queue: a null-window job that fails high joins it when its result is taken, and leaves it
    # when its re-search is chosen
    joins = sorted(job.done for job in jobs if job.kind == "NULL" and job.depth_reported >= job.depth
                   and -job.value > job.root_alpha)
    leaves = sorted(job.chosen for job in jobs if job.kind == "RESEARCH")
    for clock in joins:
        depth = sum(1 for c in joins if c <= clock) - sum(1 for c in leaves if c < clock)
        hit(f"research_queue:{'one' if depth == 1 else 'two_or_more'}")
    return hits
