"""The search engine's node scoreboard (docs/spec.md §7), in pure Python: no cocotb, no rtl.

Both ways of running the engine end here. The fast way (tb/test_search.py with the HDL clock of
``tb.host.harness.verilog_search_harness``) has the harness write every node event to a file, one
line per event; the slow way (the per-cycle Python monitor) samples the engine's ports on every
falling edge and writes the same lines. :func:`check_search` then runs the golden search
(``golden.search.search_events``, streamed: constant memory for any budget) and compares its
nodes, in order, with the lines, naming the first divergence exactly as the per-cycle monitor
always has (what, the node's path from the root, its iteration, cycle, simulation time,
expected and actual). Because it imports only ``golden`` it also runs in a separate golden
process (:func:`worker_main`, under PyPy when installed), checking one search while the
simulator runs the next, or following the event file while the simulator is still writing it.

Event file lines (all numbers hex at the ports' widths, except the start time):

* ``S <ns>``: the search started; ``<ns>`` (decimal) is the simulation time of the start edge;
* ``<cycle><kind><ply><black><white><white_to_move><legal>``: an inner node, and for a leaf or
  terminal node also ``<stable_own><stable_opp><value>`` and every term of TERM_PORTS; no spaces
  (the harness writes one nibble-aligned vector: one ``%h``, which costs Verilator far less than
  one per field), every field at the width of its port, the cycle in 8 digits;
* ``F <cycle>``: the flipper raised ``fault``; ``T <cycle>``: the harness gave up waiting;
* ``D <cycle> <best_pass> <best_move> <value> <depth> <nodes> <cycles>``: done, and the answer.
"""

import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Optional

from golden.board import Position, format_board, parse_board, square_name, squares_of
from golden.othello import legal_moves
from golden.evaluator import (T_ADAPTIVE, T_CORNERS_OPP, T_CORNERS_OWN, T_DISCS_OPP, T_DISCS_OWN, T_FIXED,
                              T_MOBILITY_OPP, T_MOBILITY_OWN, T_STABLE_OPP, T_STABLE_OWN, T_STAGE, T_TERMINAL,
                              T_XSQ_OPP, T_XSQ_OWN, evaluate)
from golden.patterns import UNITS_PER_DISC, default_weights, saturate
from golden.search import INNER, LEAF, MINUS_INFINITY, PLUS_INFINITY, TERMINAL, VALUE_FLOOR, search_events, solve, trace_node
from tb.checks.coverage_benches import PatternSearchCoverage, SearchCoverage, SolveCoverage
from tb.checks.coverage_samplers import COVERAGE_OUT

KINDS = {0: INNER, 1: LEAF, 2: TERMINAL}
KIND_CODES = {kind: code for code, kind in KINDS.items()}
TERM_PORTS = ("terminal", "stage", "corners_own", "corners_opp", "xsq_own", "xsq_opp",
              "mobility_own", "mobility_opp", "discs_own", "discs_opp", "fixed", "adaptive")
# The engine's event ports (``event_<name>``) in the order of an event line.
INNER_FIELDS = ("kind", "ply", "black", "white", "white_to_move", "legal")
TERM_INDICES = (T_TERMINAL, T_STAGE, T_CORNERS_OWN, T_CORNERS_OPP, T_XSQ_OWN, T_XSQ_OPP, T_MOBILITY_OWN,
                T_MOBILITY_OPP, T_DISCS_OWN, T_DISCS_OPP, T_FIXED, T_ADAPTIVE)   # of TERM_PORTS
LEAF_FIELDS = INNER_FIELDS + ("stable_own", "stable_opp", "value") + TERM_PORTS
SIGNED_FIELDS = ("value", "fixed", "adaptive")
# The trace port is quiet outside its events: every event field is 0 in a cycle without an event,
# and the leaf-only fields are 0 in an inner node's event (the harness writes a "Q" line if not).
LEAF_ONLY_FIELDS = LEAF_FIELDS[len(INNER_FIELDS):]
ANSWER_PORTS = ("best_pass", "best_move", "value", "depth", "nodes", "cycles")
CYCLE_DIGITS = 8
CLOCK_NS = 10
STALL_CYCLES = 64   # cycles past the golden answer before the scoreboard gives up waiting
# The HDL harness gives up after this many cycles without a node event, before the golden search
# knows its length: an engine that stops generating (a hang, or never starting) is then a
# failure at the node it did not report, in simulated microseconds, not a wait for a watchdog.
# The longest gap a correct engine makes is a return through 16 levels plus a leaf's stable-disc
# iterations, a few dozen cycles.
QUIET_CYCLES = 4096
EVENT_FILES = ("search_events_0.txt", "search_events_1.txt")
WLD_WINDOW = (-1, 1)    # a solve's root window for win/loss/draw


def loud_fields(node_event, ports):
    """The event fields of ``ports`` ({field: int}) that break the quiet rule (LEAF_ONLY_FIELDS)."""
    if node_event and ports["kind"] != KIND_CODES[INNER]:
        return []
    fields = LEAF_ONLY_FIELDS if node_event else LEAF_FIELDS
    return [f for f in fields if ports[f]]


def hex_digits(width):
    return (width + 3) // 4


def event_widths(ports):
    """{field: bit width} of the event and answer ports, from a design's port list
    [(name, width, direction)] (rtl.designs.PORTS["search"]): what a LineFormat is built from
    (passed as JSON to a golden process, which does not import rtl)."""
    widths = {name: width for name, width, _ in ports}
    out = {f"event_{field}": widths[f"event_{field}"] for field in LEAF_FIELDS}
    out.update({port: widths[port] for port in ANSWER_PORTS})
    return out


class LineFormat:
    """How node events are written as text, at the widths of the engine's ports."""

    def __init__(self, widths):
        self.widths = dict(widths)
        digits = [hex_digits(self.widths[f"event_{f}"]) for f in LEAF_FIELDS]
        self.masks = {f: (1 << self.widths[f"event_{f}"]) - 1 for f in LEAF_FIELDS}
        inner = len(INNER_FIELDS)
        self.digits = [CYCLE_DIGITS] + digits    # the cycle, then every field
        self.inner_format = "".join(f"%0{d}x" for d in self.digits[:inner + 1])
        self.leaf_format = "".join(f"%0{d}x" for d in self.digits)
        self.value_mask = self.masks["value"]

    def node_line(self, cycle, kind, ply, black, white, white_to_move, legal, terms=None, value=None):
        """The line of one node event; ``terms`` is golden.evaluator.evaluation_terms's tuple."""
        if terms is None:
            return self.inner_format % (cycle, KIND_CODES[kind], ply, black, white, white_to_move, legal)
        mask = self.value_mask
        return self.leaf_format % (
            cycle, KIND_CODES[kind], ply, black, white, white_to_move, legal,
            terms[T_STABLE_OWN], terms[T_STABLE_OPP], value & mask, terms[T_TERMINAL], terms[T_STAGE],
            terms[T_CORNERS_OWN], terms[T_CORNERS_OPP], terms[T_XSQ_OWN], terms[T_XSQ_OPP],
            terms[T_MOBILITY_OWN], terms[T_MOBILITY_OPP], terms[T_DISCS_OWN], terms[T_DISCS_OPP],
            terms[T_FIXED] & mask, terms[T_ADAPTIVE] & mask)

    def sampled_line(self, cycle, ports):
        """The line the harness would write for the port values ``ports`` ({field: int}) of
        one sampled cycle: what the per-cycle monitor records."""
        fields = LEAF_FIELDS if ports["kind"] != KIND_CODES[INNER] else INNER_FIELDS
        return self._packed(cycle, fields, ports)

    def _packed(self, cycle, fields, ports):
        return "".join([f"{cycle:0{CYCLE_DIGITS}x}"] + [f"{ports[f]:0{d}x}" if isinstance(ports[f], int) else "x" * d
                                                          for f, d in zip(fields, self.digits[1:])])

    def loud_line(self, cycle, node_event, ports):
        """The harness's line for a cycle whose trace port is not quiet (see loud_fields)."""
        return f"Q {int(bool(node_event))} {self._packed(cycle, LEAF_FIELDS, ports)}"

    def fields(self, line):
        """An event line cut into its hex fields: the cycle, then LEAF_FIELDS (or the first
        INNER_FIELDS of them), each an int or, for X/Z digits, text."""
        out, at = [], 0
        for digits in self.digits:
            if at + digits > len(line):
                break
            out.append(hex_field(line[at:at + digits]))
            at += digits
        return out

    def answer_line(self, cycle, ports):
        return "D " + " ".join([f"{cycle:0{CYCLE_DIGITS}x}"] + [
            f"{ports[p]:0{hex_digits(self.widths[p])}x}" for p in ANSWER_PORTS])


def hex_field(text):
    """One hex field; X/Z digits (uninitialised or doubly driven) stay as text."""
    try:
        return int(text, 16)
    except ValueError:
        return text.lower()


def signed9(raw):
    return raw - 512 if isinstance(raw, int) and raw & 256 else raw


def describe_bits(bits):
    if not isinstance(bits, int):
        return f"unknown ({bits})"
    return " ".join(square_name(s) for s in squares_of(bits)) or "none"


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


def expected_event(node, terms=None):
    """A golden TraceNode as the failure report shows it; ``terms`` the golden search's tuple of
    the node's terms (a solve's terminal nodes report theirs, not the evaluator's), else the
    evaluator's."""
    record = {"cycle": node.cycle, "kind": node.kind, "ply": node.ply, "board": node.position.text(),
              "legal": describe_bits(node.legal)}
    if node.kind != INNER:
        reported = expected_terms(node) if terms is None else {
            name: int(terms[index]) for name, index in zip(TERM_PORTS, TERM_INDICES)}
        record.update(value=node.value, stable=list(node.stable), terms=reported)
    return record


def actual_event(line, line_format):
    """An event line as the failure report shows it (the same keys as expected_event)."""
    fields = line_format.fields(line)
    cycle = fields[0]
    p = dict(zip(LEAF_FIELDS, fields[1:]))
    black, white, wtm = p.get("black"), p.get("white"), p.get("white_to_move")
    if all(isinstance(v, int) for v in (black, white, wtm)) and not black & white:
        board = Position(black, white, bool(wtm)).text()
    elif isinstance(black, int) and isinstance(white, int):
        board = f"black {black:#x} white {white:#x} (overlap)"
    else:
        board = f"black {black} white {white} (unknown bits)"
    kind = KINDS.get(p.get("kind"), f"unknown kind {p.get('kind')}")
    record = {"cycle": cycle, "kind": kind, "ply": p.get("ply"), "board": board,
              "legal": describe_bits(p.get("legal"))}
    if kind != INNER:
        terms = {name: p.get(name) for name in TERM_PORTS}
        terms["fixed"], terms["adaptive"] = signed9(terms["fixed"]), signed9(terms["adaptive"])
        record.update(value=signed9(p.get("value")), stable=[p.get("stable_own"), p.get("stable_opp")],
                      terms=terms)
    return record


def answer_of(line):
    """The answer of a ``D`` line, as golden.search.SearchResult.summary() gives it."""
    fields = [hex_field(f) for f in line.split()[2:]]
    p = dict(zip(ANSWER_PORTS, fields))
    best = "pass" if p["best_pass"] else (square_name(p["best_move"]) if isinstance(p["best_move"], int)
                                          else str(p["best_move"]))
    return {"best": best, "value": signed9(p["value"]), "depth": p["depth"], "nodes": p["nodes"],
            "cycles": p["cycles"]}


def evaluator_weights(evaluator):
    """golden.search's ``pattern`` argument for an engine built with ``evaluator`` (seed or
    pattern): the committed weight file for the pattern evaluator, None for the seed's."""
    if evaluator not in ("seed", "pattern"):
        raise ValueError(f"evaluator must be seed or pattern, got {evaluator!r}")
    return default_weights() if evaluator == "pattern" else None


@dataclass(frozen=True)
class SearchCase:
    """One search: the root, the depth limit, the cycle budget (None: unlimited); ``solve`` None,
    or the scoring of a solve (golden.search.SCORINGS: the engine's solve mode, depth ignored);
    ``evaluator`` the engine's leaf evaluator, seed or pattern (the committed weight file: the
    engine built with ``evaluator="pattern"``, rtl/designs.py search_pattern)."""

    position: Position
    depth: int
    budget: Optional[int]
    label: str
    exact: bool = False     # searched to the end: the value must equal golden.search.solve
    alpha: int = MINUS_INFINITY    # the root window (docs/spec.md §12); default the full one
    beta: int = PLUS_INFINITY
    solve: Optional[str] = None
    evaluator: str = "seed"

    def to_dict(self):
        return {"board": format_board(self.position), "depth": self.depth, "budget": self.budget,
                "label": self.label, "exact": self.exact, "alpha": self.alpha, "beta": self.beta,
                "solve": self.solve, "evaluator": self.evaluator}

    @classmethod
    def from_dict(cls, record):
        return cls(parse_board(record["board"]), int(record["depth"]), record.get("budget"),
                   record.get("label", "saved case"), bool(record.get("exact", False)),
                   int(record.get("alpha", MINUS_INFINITY)), int(record.get("beta", PLUS_INFINITY)),
                   record.get("solve"), record.get("evaluator", "seed"))

    @property
    def pattern(self):
        """The pattern weights of golden.search's ``pattern`` argument: None for the seed's evaluator."""
        return evaluator_weights(self.evaluator)

    @property
    def wld(self):
        """A win/loss/draw solve: the null window around 0."""
        return self.solve is not None and (self.alpha, self.beta) == WLD_WINDOW

    def window_text(self):
        solve = f", solve ({self.solve} scoring{', WLD' if self.wld else ''})" if self.solve else ""
        if (self.alpha, self.beta) == (MINUS_INFINITY, PLUS_INFINITY) or self.wld:
            return solve
        return f"{solve}, window ({self.alpha}, {self.beta})"


LOUD = "the trace port is not quiet: an event field is not 0 outside its event"


def loud_text(line, line_format):
    """What a "Q" line (``Q <node_event> <every event field, as a leaf's line>``) reports."""
    _, event, packed = line.split()
    fields = line_format.fields(packed)
    ports = dict(zip(LEAF_FIELDS, fields[1:]))
    loud = loud_fields(event == "1", ports) or LEAF_FIELDS
    where = "in an inner node's event" if event == "1" else "in a cycle without a node event"
    return f"{', '.join(f'event_{f} = {ports[f]}' for f in loud)} {where}"


def _cycle_of(line):
    if line[0] == "Q":
        return hex_field(line.split()[2][:CYCLE_DIGITS])
    return hex_field(line.split()[1] if line[0] in "DFT" else line[:CYCLE_DIGITS])


class LineReader:
    """Event lines one at a time: from a list, or (``path``) from a file the simulator may still
    be writing, up to the line that ends a search (``D``, ``T`` or ``F``). Waits for the file to
    appear and grow; gives None at the end, or when ``alive()`` turns false while no data comes.
    (A class with a list and an index rather than a generator: PyPy's JIT compiles the golden
    search's inner loop far better around it.)"""

    def __init__(self, lines=None, path=None, alive=lambda: True, chunk=1 << 20):
        self.lines, self.at = list(lines) if lines is not None else [], 0
        self.path, self.alive, self.chunk = path, alive, chunk
        self.file, self.tail, self.ended = None, "", path is None

    def next_line(self):
        while self.at >= len(self.lines):
            if self.ended or not self._refill():
                return None
        line = self.lines[self.at]
        self.at += 1
        if line[0] in "DTFQ":
            self.ended = True
        return line

    def _refill(self):
        """Read the next chunk of the file; False when nothing more will come."""
        while self.file is None:
            if os.path.exists(self.path):
                self.file = open(self.path, "r")
            elif not self.alive():
                return False
            else:
                time.sleep(POLL_SECONDS)
        while True:
            data = self.file.read(self.chunk)
            if data:
                break
            if not self.alive():
                return False
            time.sleep(POLL_SECONDS)
        parts = (self.tail + data).split("\n")
        self.tail = parts.pop()
        self.lines, self.at = [line for line in parts if line], 0
        return True

    def close(self):
        if self.file is not None:
            self.file.close()


POLL_SECONDS = 0.002


class _Scoreboard:
    """The state of one search's check (see :func:`check_search`); ``on_node`` observes the
    golden search's nodes. (Methods, not closures: PyPy's JIT would compile new code for the
    closures of every search.)"""

    def __init__(self, reader, line_format):
        self.reader, self.format, self.node_line = reader, line_format, line_format.node_line
        self.started_ns = 0
        self.cycle_ns = CLOCK_NS   # an interleaved engine's context steps every other clock
        self.pending = None      # a line read but not yet consumed
        self.index = 0           # golden nodes matched
        self.golden_nodes = 0
        self.roots = 0    # the root of each iteration: reported, but not in the engine's node count
        self.mismatch = None

    def peek(self):
        """The next line, "" when the simulation ended without a done line."""
        if self.pending is None:
            line = self.reader.next_line()
            while line is not None and line.startswith("S "):
                fields = line.split()   # "S <ns of cycle 0>" and, interleaved, "<ns per cycle>"
                self.started_ns = int(fields[1])
                self.cycle_ns = int(fields[2]) if len(fields) > 2 else CLOCK_NS
                line = self.reader.next_line()
            self.pending = line if line is not None else ""
        return self.pending

    def at(self, cycle):
        return self.started_ns + cycle * self.cycle_ns

    def failed(self, what, cycle, node, expected, actual):
        self.mismatch = {"what": what, "node": self.index, "cycle": cycle, "time_ns": self.at(cycle),
                         "iteration": node.iteration if node else None,
                         "path": node.path_text() if node else None,
                         "expected": expected, "actual": actual}

    def on_node(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        self.golden_nodes += 1
        if not ply:
            self.roots += 1
        if self.mismatch is not None:
            return   # counting the rest of the trace for "done after N of M nodes"
        if wtm:
            expected = self.node_line(cycle, kind, ply, opp, own, wtm, legal, terms, value)
        else:
            expected = self.node_line(cycle, kind, ply, own, opp, wtm, legal, terms, value)
        actual = self.peek()
        if actual == expected or (actual and actual.lower() == expected):
            self.pending = None
            self.index += 1
            return
        node = trace_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle)
        if not actual:
            self.failed("the simulation ended before done", cycle, node, expected_event(node, terms), None)
            return
        observed = _cycle_of(actual)
        missing = cycle + 1   # the first cycle in which the monitor sees that the node is late
        late = isinstance(observed, int) and (missing <= observed if actual[0] in "DT" else missing < observed)
        if late or not isinstance(observed, int):
            self.failed("no node reported in the expected cycle", missing, node, expected_event(node, terms), None)
        elif actual[0] == "F":
            self.failed("the flipper found the engine's chosen move illegal", observed, node, None, None)
        elif actual[0] == "Q":
            self.failed(LOUD, observed, node, "every event field 0", loud_text(actual, self.format))
        elif actual[0] == "D":   # reported once the golden search has counted its nodes
            self.mismatch = {"deferred": "done", "cycle": observed, "node": node, "terms": terms}
        elif actual[0] == "T":
            self.mismatch = {"deferred": "timeout", "node": node}
        else:
            self.failed("node differs", observed, node, expected_event(node, terms), actual_event(actual, self.format))

    def finish(self, result):
        """After the golden search: how the engine's run ended, and its answer."""
        give_up = result.cycles + STALL_CYCLES
        deferred = (self.mismatch or {}).get("deferred")
        answer = None
        if deferred == "done":
            node, cycle, terms = self.mismatch["node"], self.mismatch["cycle"], self.mismatch["terms"]
            self.failed(f"done after {self.index} of {self.golden_nodes} nodes", cycle, node,
                        expected_event(node, terms), None)
            answer = answer_of(self.peek())
        elif deferred == "timeout":
            self.failed(f"no done {STALL_CYCLES} cycles after the golden answer", give_up + 1, self.mismatch["node"],
                        None, None)
        elif self.mismatch is None:
            # every golden node matched: what comes next must be the answer
            line = self.peek()
            cycle = _cycle_of(line) if line else None
            if not line:
                self.failed("the simulation ended before done", result.cycles, None, None, None)
            elif not isinstance(cycle, int) or cycle > give_up + 1 or line[0] == "T":
                self.failed(f"no done {STALL_CYCLES} cycles after the golden answer", give_up + 1, None, None, None)
            elif line[0] == "F":
                self.failed("the flipper found the engine's chosen move illegal", cycle, None, None, None)
            elif line[0] == "Q":
                self.failed(LOUD, cycle, None, "every event field 0", loud_text(line, self.format))
            elif line[0] != "D":
                self.failed("a node the golden search never generates", cycle, None, None,
                            actual_event(line, self.format))
            else:
                answer = answer_of(line)
                if answer != result.summary():
                    self.mismatch = {"what": "answer differs", "expected": result.summary(), "actual": answer,
                                     "cycle": cycle, "time_ns": self.at(cycle)}
        return answer


def golden_length(case):
    """The golden search's cycles for ``case``: when the engine must have answered."""
    return search_events(case.position, case.depth, case.budget, alpha=case.alpha, beta=case.beta,
                         solve=case.solve, pattern=case.pattern).cycles


def solver_disagreement(case, result):
    """None if a completed solve's value and best move agree with the golden solver (golden/solve.py,
    an independent method: another search, no cycle model), else the mismatch to report. The best
    move must reach the value: the solver's value of the position after it, negated, is the value
    (for WLD its sign). A finished game at the root is answered with its final count whatever the
    window (as the depth-limited engine answers it, docs/spec.md §7): in a WLD solve its sign counts."""
    from golden.othello import pass_move, play
    from golden.solve import sign, solve as solve_exactly

    pos = case.position
    expected = solve_exactly(pos, wld=case.wld, scoring=case.solve).score
    if case.wld and not legal_moves(pos.own, pos.opp) and not legal_moves(pos.opp, pos.own):
        return None if sign(result.value) == expected and result.best is None else {
            "what": "golden search's solve of a finished game differs from the golden solver (golden/solve.py)",
            "expected": {"value": f"sign {expected:+d}"}, "actual": {"value": result.value},
            "cycle": result.cycles, "time_ns": 0}
    reached = None
    if result.value == expected and result.best is not None:
        reached = -solve_exactly(play(pos, result.best), scoring=case.solve).score
        if case.wld:
            reached = sign(reached)
    elif result.value == expected and legal_moves(pos.opp, pos.own) and not legal_moves(pos.own, pos.opp):
        reached = -solve_exactly(pass_move(pos), wld=case.wld, scoring=case.solve).score
    elif result.value == expected:
        reached = expected    # the game is over at the root: its final count
    if reached == expected:
        return None
    return {"what": "golden search's solve differs from the golden solver (golden/solve.py)",
            "expected": {"value": expected}, "actual": {"value": result.value, "best": result.summary()["best"],
                                                        "value after best": reached},
            "cycle": result.cycles, "time_ns": 0}


def exact_value(case):
    """The exhaustive solver's value of ``case``'s root in the unit of its evaluator: discs for the
    seed's, quarter discs for the pattern evaluator's, saturated and raised to the search's floor
    as its terminal values are."""
    value = solve(case.position)
    return value if case.pattern is None else max(VALUE_FLOOR, saturate(UNITS_PER_DISC * value))


def check_search(case, lines, line_format, on_golden_done=None):
    """Compare the engine's event lines ``lines`` (a LineReader, or a list) with the golden
    search of ``case``. Returns a dict: ``mismatch`` (None, or what the per-cycle monitor always
    reported: what, node, cycle, time_ns, iteration, path, expected, actual), ``answer`` (the
    engine's, or None), ``nodes`` (checked), ``cycles`` (golden), ``golden`` (its summary) and
    ``started_ns``, and when the run samples functional coverage (COVERAGE_OUT) and the search
    matched, ``hits``: the bins of tb/testplans/search.toml it reached (search_pattern.toml's for the
    pattern evaluator). ``on_golden_done(cycles)`` is called once the golden search has finished:
    from then on the engine's limit (golden cycles + STALL_CYCLES + 1) is known."""
    reader = lines if isinstance(lines, LineReader) else LineReader(lines)
    board = _Scoreboard(reader, line_format)
    on_node, coverage = board.on_node, None
    # functional coverage: the same nodes through the plan's sampler (a solve's through its own
    # points of the plan)
    if os.environ.get(COVERAGE_OUT):
        if case.pattern is not None:   # the engine with the pattern evaluator: search_pattern.toml
            coverage = PatternSearchCoverage({}, case)
        else:
            coverage = SearchCoverage({}, case) if case.solve is None else SolveCoverage({}, case)
        on_node = coverage.both(board.on_node)
    result = search_events(case.position, case.depth, case.budget, on_node=on_node, alpha=case.alpha,
                           beta=case.beta, solve=case.solve, pattern=case.pattern)
    if on_golden_done:
        on_golden_done(result.cycles)
    answer = board.finish(result)
    mismatch = board.mismatch
    if mismatch is None and case.exact and case.solve is None and result.value != exact_value(case):
        mismatch = {"what": "golden search value differs from the exhaustive solver",
                    "expected": exact_value(case), "actual": result.value,
                    "cycle": result.cycles, "time_ns": 0}
    if mismatch is None and case.exact and case.solve is not None and not result.aborted:
        mismatch = solver_disagreement(case, result)
    outcome = {"mismatch": mismatch, "answer": answer, "nodes": board.index if mismatch else board.golden_nodes,
               "cycles": result.cycles, "golden": dict(result.summary(), roots=board.roots),
               "started_ns": board.started_ns}
    if coverage is not None and mismatch is None:
        outcome["hits"] = coverage.finish(result)
    return outcome


# --- the golden process ---------------------------------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def golden_python(choice=None):
    """The interpreter of golden processes: ``choice`` or GAMECHIP_GOLDEN_PYTHON (``pypy``,
    ``cpython`` or a path), by default Debian's ``pypy3`` when installed (the golden package is
    pure Python and runs unchanged there), else the interpreter running this."""
    import shutil

    choice = choice or os.environ.get("GAMECHIP_GOLDEN_PYTHON") or "auto"
    if choice == "cpython":
        return sys.executable
    if choice in ("auto", "pypy"):
        found = shutil.which("pypy3")
        if found:
            return found
        if choice == "pypy":
            raise RuntimeError("GAMECHIP_GOLDEN_PYTHON=pypy but pypy3 is not installed "
                               "(apt-get install pypy3, or scripts/setup.sh)")
        return sys.executable
    return choice


# Golden processes run on the golden interpreter (PyPy when installed) from this budget (cycles a
# search); below it each search takes milliseconds and CPython's process starts sooner.
GOLDEN_PYTHON_FROM_BUDGET = 20_000


def golden_python_for_budget(budget):
    """The interpreter for a golden process whose searches have ``budget`` cycles each:
    :func:`golden_python` from GOLDEN_PYTHON_FROM_BUDGET, else the interpreter running this."""
    return golden_python() if budget >= GOLDEN_PYTHON_FROM_BUDGET else sys.executable


class GoldenProcess:
    """A golden process (:func:`worker_main`) and the answers it sends back, by request number."""

    def __init__(self, python=None, log_path=None):
        import subprocess
        import threading

        self.python = python or golden_python()
        self.log_path = log_path
        self.log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [self.python, "-m", "tb.checks.search"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
        self.messages = {}
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            message = json.loads(line)
            with self.changed:
                self.messages.setdefault(message["number"], {}).update(message)
                self.changed.notify_all()
        with self.changed:
            self.messages["ended"] = True
            self.changed.notify_all()

    def submit(self, number, case, events, widths):
        self.process.stdin.write(json.dumps({"number": number, "case": case.to_dict(), "events": events,
                                             "widths": widths}) + "\n")
        self.process.stdin.flush()

    def golden_cycles(self, number):
        with self.changed:
            return self.messages.get(number, {}).get("golden_cycles")

    def done(self, number):
        with self.changed:
            return "mismatch" in self.messages.get(number, {})

    def result(self, number):
        """The outcome of request ``number`` (waits for it); RuntimeError if the process died."""
        with self.changed:
            while "mismatch" not in self.messages.get(number, {}):
                if self.messages.get("ended"):
                    raise RuntimeError(f"the golden process ({self.python}) ended without answering: "
                                       f"{self._log_tail()}")
                self.changed.wait()
            return self.messages.pop(number)

    def _log_tail(self):
        if not self.log_path:
            return "no log"
        with open(self.log_path) as log:
            return log.read()[-2000:] or "its log is empty"

    def close(self):
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()
        self.reader.join(timeout=5)   # it ends at the end of the process's output
        if not self.reader.is_alive():
            self.process.stdout.close()
        if self.log_path:
            self.log.close()


def worker_main():
    """A golden process: reads one JSON request per line on stdin ({"case": ..., "events": path,
    "widths": ...}), follows the event file while the simulator writes it, and answers on
    stdout with {"golden_cycles": N} as soon as the golden search is done, then the result of
    check_search. Exits when stdin closes (the simulation ended)."""
    parent = os.getppid()

    def alive():
        return os.getppid() == parent

    formats = {}
    for request_text in sys.stdin:
        request = json.loads(request_text)
        widths = json.dumps(request["widths"], sort_keys=True)
        line_format = formats.get(widths) or formats.setdefault(widths, LineFormat(request["widths"]))
        case = SearchCase.from_dict(request["case"])

        def golden_done(cycles, number=request["number"]):
            print(json.dumps({"number": number, "golden_cycles": cycles}), flush=True)

        started, cpu_started = time.perf_counter(), time.process_time()
        reader = LineReader(path=request["events"], alive=alive)
        try:
            outcome = check_search(case, reader, line_format, golden_done)
        finally:
            reader.close()
        outcome.update(number=request["number"], seconds=time.perf_counter() - started,
                       cpu_seconds=time.process_time() - cpu_started)
        print(json.dumps(outcome), flush=True)


if __name__ == "__main__":
    worker_main()
