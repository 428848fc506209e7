"""Functional coverage of the designs whose benches drive them outside the batch loop
(tb.blocks.BENCH_SAMPLED_TESTS): the search engine's nodes, the AXI evaluator's bus transactions,
the processor's refereed messages. Like tb.checks.coverage_samplers, each sampler reads what the
golden model expects (the bench compared the design's answer with it, and a hit file is only
written once every check of the test passed) and counts ``point:bin`` names of the block's plan
(tb/testplans/<block>.toml); the bench adds them to its test's recorder
(coverage_samplers.CoverageRecorder.add). The UART bench counts its bins where it draws its
stimulus (tb/test_uart.py, UartTB.cover).

Pure Python on golden/ only: the search's sampler runs in the scoreboard's golden process (PyPy
when installed), beside the golden search it observes.
"""

from golden.board import Position
from golden.evaluator import T_TERMINAL
from golden.host.peripheral import CHANGE_BASE, CHANGE_END, COMMIT_WHITE, OKAY, RESULT, STATUS, BusModel
from golden.ordering import ordered_moves
from golden.patterns import UNITS_PER_DISC, VALUE_MAX, VALUE_MIN, pattern_evaluate
from golden.search import INNER, LEAF, MINUS_INFINITY, PLUS_INFINITY, TERMINAL, VALUE_FLOOR


def count(hits, *names):
    for name in names:
        hits[name] = hits.get(name, 0) + 1


# --- the AXI evaluator (docs/spec.md §10, the register map of golden/host/peripheral.py) ---------------

BOARD_WORDS = {0x000: "black_low", 0x004: "black_high", 0x008: "white_low", 0x00C: "commit_black_to_move",
               COMMIT_WHITE: "commit_white_to_move"}
SLVERR_REASONS = {1: "unmapped", 2: "no_whole_board", 3: "above_the_root", 4: "past_the_ancestor_memory",
                  5: "high_without_low", 6: "read_of_write_only", 7: "result_before_any_board",
                  8: "black_and_white_overlap"}


def unmapped_kind(address):
    if address % 4:
        return "unaligned"
    if address in (RESULT, STATUS):
        return "write_to_read_only"
    return "outside_the_map"


class SampledBusModel(BusModel):
    """The golden bus model, counting the coverage bins of evaluator_axi.toml for every
    transaction it answers (``hits``)."""

    def __init__(self, hits):
        super().__init__()
        self.hits = hits

    def write(self, address, data):
        depth, latched = self.depth, self.low_word
        response = super().write(address, data)
        hits = self.hits
        changeboard = CHANGE_BASE <= address < CHANGE_END and address % 4 == 0
        if response != OKAY:
            count(hits, f"slverr:{SLVERR_REASONS[self.refused]}")
            if self.refused == 1:
                count(hits, f"unmapped:{unmapped_kind(address)}")
            if self.refused == 5:
                count(hits, f"high_without_low:{'no_low_word' if latched is None else 'another_side_or_k'}")
        elif address in BOARD_WORDS:
            count(hits, f"register:{BOARD_WORDS[address]}")
            if address in (0x00C, COMMIT_WHITE):
                count(hits, "new_depth:0")
        elif changeboard:
            offset = address - CHANGE_BASE
            side, k = "white" if offset >= 0x80 else "black", offset % 0x80 // 8
            if offset % 8 == 0:
                count(hits, "register:changeboard_low")
            else:
                cb = latched[2] | data << 32
                path = "child" if k == 0 else "sibling" if k == 1 else "backtrack"
                count(hits, "register:changeboard_high", f"changeboard_k:{side}/{k}", f"path:{path}",
                      f"changeboard:{'pass' if cb == 0 else 'move'}", f"new_depth:{depth - k + 1}")
                if k and k == depth:
                    count(hits, "path:back_to_the_root")
        return response

    def read(self, address):
        refused = self.refused
        data, response = super().read(address)
        if response != OKAY:
            count(self.hits, f"slverr:{SLVERR_REASONS[self.refused]}")
            if self.refused == 1:
                count(self.hits, f"unmapped:{unmapped_kind(address)}")
        elif address == RESULT:
            value = data & 0xFFFF
            sign = "zero" if value == 0 else "negative" if value & 0x8000 else "positive"
            count(self.hits, "register:result", f"result_sign:{sign}")
        else:
            count(self.hits, "register:status", f"status:{'refused' if refused else 'accepted'}")
        return data, response


# --- the search engine (docs/spec.md §7; golden.search's algorithm and cycle model) --------------------

ALPHA, BETA, LEGAL, SEEN, CUT, MOVE = range(6)   # the fields of an open node
# Points over plies or iterations whose deep values share one bin (point -> (first value of the
# bin, last value)): which deep ply a search of the regression reaches depends on its random
# positions (its seed); every shallower value is reached whatever the seed (search.toml: a ply
# below the shallowest deepest ply of seeds 1-7 and 11).
DEEP_BINS = {"inner_at_ply": (9, 15), "leaf_at_ply": (10, 16), "terminal_at_ply": (3, 15), "pass_at_ply": (8, 16),
             "cutoff_at_ply": (8, 15), "alpha_raise_at_ply": (8, 15), "killer_first": (7, 15),
             "budget_expired_in_iteration": (5, 16)}


PER_PLY_POINTS = ("inner_at_ply", "leaf_at_ply", "terminal_at_ply", "pass_at_ply", "cutoff_at_ply",
                  "alpha_raise_at_ply", "killer_first")


def plan_bins(raw):
    """Raw counts (one name per ply or iteration) as the plan's bins (DEEP_BINS)."""
    hits = {}
    for name, number in raw.items():
        point, value = name.split(":")
        if point in DEEP_BINS and int(value) >= DEEP_BINS[point][0]:
            name = f"{point}:{DEEP_BINS[point][0]}-{DEEP_BINS[point][1]}"
        hits[name] = hits.get(name, 0) + number
    return hits


class NodeObserver:
    """A sampler fed the scoreboard's node reports (``on_node``, defined by each sampler)."""

    def both(self, on_node):
        """An ``on_node`` that calls ``on_node`` (the scoreboard's), then this one."""
        def observe(*node):
            on_node(*node)
            self.on_node(*node)
        return observe


class SearchCoverage(NodeObserver):
    """Observes the golden search's nodes (``on_node`` of golden.search.search_events: the nodes
    the scoreboard matches against the engine's events, in order) and counts search.toml's bins:
    every node kind at every ply; by folding the values up the tree as negamax with fail-hard
    alpha-beta does (the root window, (-beta, -alpha) for a child, a child value >= beta cuts its
    parent off, one > alpha raises it), the cut-offs and alpha raises at every ply, the root's
    outcome against a narrow window, the killer moves tried first; and, at the end
    (:meth:`finish`), the iterations completed, the depth limit reached, and for a search the
    budget stopped, its iteration and the engine's control state then (golden.search's cycle model
    played on from the last node: an evaluation in flight is AWAIT, anything else EXPAND)."""

    def __init__(self, hits, case):
        self.hits = hits        # raw counts of whole-search events: every iteration apart
        self.alpha, self.beta, self.depth_limit = case.alpha, case.beta, case.depth
        self.root_values = []   # the value of each completed iteration, as folded here
        self.iteration = 0
        self.stack = []         # the open nodes from the root: [alpha, beta, legal, children seen, cut, move]
        self.killers = {}       # ply -> the last move that cut a node off there (golden.search's killers)
        self.last = None        # (kind, ply, cycle) of the last node
        self.leaf_started = None  # the cycle the leaf evaluation the budget stopped started (state_at)
        # per-ply counts of the points counted at every node (lists: no bin name built per node)
        self.per_ply = {point: [0] * 17 for point in PER_PLY_POINTS}
        self.inner, self.leaf, self.terminal, self.passes, self.cutoffs, self.raises, self.killer_first = \
            (self.per_ply[point] for point in PER_PLY_POINTS)

    def on_node(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        if iteration != self.iteration:
            self.close_to(0)
            if self.iteration:
                count(self.hits, f"iteration_completed:{self.iteration}")
            self.iteration = iteration
        stack = self.stack
        if len(stack) > ply:
            self.close_to(ply)
        move = path[-1] if path else None
        if ply:
            parent = stack[ply - 1]
            parent[SEEN] += 1
            if move is None:
                self.passes[ply] += 1
            elif parent[SEEN] == 1 and ply >= 2 and self.killers.get(ply - 1) == move \
                    and ordered_moves(parent[LEGAL], None)[0] != move:   # the killer changed the order
                self.killer_first[ply - 1] += 1
        if kind == INNER:
            self.inner[ply] += 1
            if ply:
                alpha, beta = -parent[BETA], -parent[ALPHA]
            else:
                alpha, beta = self.alpha, self.beta
            stack.append([alpha, beta, legal, 0, False, move])
        else:
            (self.leaf if kind == LEAF else self.terminal)[ply] += 1
            if ply:
                self.child_value(ply - 1, -value, move)
        self.last = (kind, ply, cycle)

    def child_value(self, ply, value, move):
        """A child of the open node at ``ply``, reached by ``move``, returned ``value`` (from that
        node's side)."""
        node = self.stack[ply]
        if value >= node[BETA]:
            node[CUT] = True
            self.cutoffs[ply] += 1
            if move is not None:
                self.killers[ply] = move
            if ply == 0:
                count(self.hits, "root_window:fail_high")
        elif value > node[ALPHA]:
            node[ALPHA] = value
            self.raises[ply] += 1

    def close_to(self, ply):
        """Close the open nodes at ``ply`` and deeper (the next node is at ``ply``): each returns
        its beta when cut off, else its alpha, to its parent."""
        while len(self.stack) > ply:
            node = self.stack.pop()
            value = node[BETA] if node[CUT] else node[ALPHA]
            if self.stack:
                self.child_value(len(self.stack) - 1, -value, node[MOVE])
                continue
            self.root_values.append(value)
            if not node[CUT] and (self.alpha, self.beta) != (MINUS_INFINITY, PLUS_INFINITY):
                count(self.hits, f"root_window:{'fail_low' if value == self.alpha else 'inside'}")

    def finish(self, result):
        """After the golden search (its SearchResult): the plan's bins of the whole search."""
        if result.aborted:
            stopped = result.depth + 1   # the iteration the budget stopped (iteration 1 always completes)
            if stopped == self.iteration:
                state = self.state_at(result.cycles)
            else:                        # stopped at its root's first visit; the last one completed
                state = "expand"
                self.close_to(0)
                count(self.hits, f"iteration_completed:{self.iteration}")
            count(self.hits, f"budget_expired_in_iteration:{stopped}", f"budget_expired_in_state:{state}")
        elif self.last[:2] == (TERMINAL, 0):   # a finished game: no iteration searched
            count(self.hits, "finished_game_at_root:seen")
        else:
            self.close_to(0)
            count(self.hits, f"iteration_completed:{self.iteration}",
                  f"depth_limit_reached:{'16' if self.depth_limit == 16 else 'below_16'}")
        for point, counts in self.per_ply.items():
            for ply, number in enumerate(counts):
                if number:
                    self.hits[f"{point}:{ply}"] = self.hits.get(f"{point}:{ply}", 0) + number
        return plan_bins(self.hits)

    def state_at(self, abort):
        """The engine's state in cycle ``abort`` (the first >= the budget), played on from the
        last node by golden.search's schedule: ``await_leaf`` or ``await_terminal`` when an
        evaluation started before and answers at or after it, else ``expand``."""
        kind, ply, cycle = self.last
        frontier = self.iteration - 1
        stack = [list(node) for node in self.stack]
        if kind == INNER:
            level, t = ply, cycle            # its first child is generated in its own cycle
        elif kind == LEAF:                   # folded in the answering cycle
            level, t = ply - 1, cycle
            if stack[level][CUT]:            # a cut-off frontier node returns after its answer
                level, t = self.returned(stack, level, cycle + 1)
        else:                                # a terminal node returns in the cycle after its answer
            level, t = ply - 1, cycle + 1
        while level >= 0:
            node = stack[level]
            if node[CUT]:                    # returns at once, in the same cycle
                level, t = self.returned(stack, level, t)
            elif node[SEEN] < (bin(node[LEGAL]).count("1") or 1):   # a node without moves passes
                if t >= abort:
                    return "expand"
                if level == frontier:
                    self.leaf_started = t    # PatternSearchCoverage reads which cycle of the wait it is
                    return "await_leaf"      # the next leaf's evaluation started in cycle t
                # the child is visited in t + 1: reported then unless it is terminal (evaluating)
                return "expand" if t + 1 >= abort else "await_terminal"
            else:
                if t >= abort:
                    return "expand"
                level, t = self.returned(stack, level, t + 1)
        return "expand"

    @staticmethod
    def returned(stack, level, t):
        """The node at ``level`` returns, its parent resuming in cycle ``t``: (parent level, t),
        the parent's cut-off updated (no bin counted: the engine may stop before it folds)."""
        node = stack[level]
        value = node[BETA] if node[CUT] else node[ALPHA]
        if level:
            parent = stack[level - 1]
            if -value >= parent[BETA]:
                parent[CUT] = True
            elif -value > parent[ALPHA]:
                parent[ALPHA] = -value
        return level - 1, t


# --- the search engine's solve mode (docs/spec.md §7; golden.search's solve) -----------------------

def final_count_bin(own, opp, value):
    """A finished game's bin of solve_final_count (without the scoring): how it ended (the board
    full, or with empty squares) and its outcome for the side to move, read from its value."""
    ending = "full_board" if own | opp == (1 << 64) - 1 else "with_empties"
    return f"{ending}/{'won' if value > 0 else 'lost' if value < 0 else 'drawn'}"


class SolveCoverage(NodeObserver):
    """Observes a solve's nodes (the golden search's solve mode, ``on_node`` as
    :class:`SearchCoverage`) and counts the solve points of search.toml: the final count of every
    finished game by scoring, ending and outcome; every pass by where it is (the root's, one
    inside the tree, one at the last empty square); and, at the end (:meth:`finish`), how the
    solve ended: completed (exact or WLD, by scoring) and how deep its tree went, or abandoned
    (by the budget at the start or inside the tree, or at the deepest stack level), and a WLD
    root's outcome (a win cut at the root's first move or at a later one, a draw, a loss)."""

    def __init__(self, hits, case):
        self.hits, self.case = hits, case
        self.deepest = 0
        self.root = None            # (kind, legal) of the root
        self.root_children = 0      # the root's children searched

    def on_node(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        self.deepest = max(self.deepest, ply)
        if ply == 0:
            self.root = (kind, legal)
        elif ply == 1:
            self.root_children += 1
        discs = bin(own | opp).count("1")
        if kind != TERMINAL and legal == 0 and discs == 63:
            # the side to move cannot play the last empty square and passes: the node after the
            # pass is not reported, since the last-one step values it in its first cycle
            count(self.hits, "solve_pass:at_the_last_empty")
        elif ply and path[-1] is None and discs != 63:
            count(self.hits, f"solve_pass:{'at_the_root' if ply == 1 else 'inside'}")
        if kind == TERMINAL:
            count(self.hits, f"solve_final_count:{self.case.solve}/{final_count_bin(own, opp, value)}")

    def finish(self, result):
        """After the golden solve (its SearchResult): the bins of the whole solve."""
        case = self.case
        if result.aborted:
            overflow = case.budget is None or result.cycles < case.budget
            count(self.hits, "solve_abandoned:" + ("at_the_deepest_level" if overflow
                                                   else "by_budget_at_the_start" if result.cycles == 0
                                                   else "by_budget_inside_the_tree"))
            return dict(self.hits)
        kind = "wld" if case.wld else "exact"
        count(self.hits, f"solve_completed:{kind}/{case.solve}",
              f"solve_deepest_ply:{'0' if not self.deepest else '1-15' if self.deepest < 16 else '16-30'}")
        root_kind, root_legal = self.root
        if case.wld and root_kind != TERMINAL:
            several = bin(root_legal).count("1") >= 2
            if result.value < 0:
                count(self.hits, "solve_wld_root:loss")
            elif result.value == 0:
                count(self.hits, "solve_wld_root:draw")
            elif several:   # a root with one move (or a pass) has no move left to cut off
                count(self.hits, f"solve_wld_root:win_cut_at_{'first' if self.root_children == 1 else 'later'}_move")
        return dict(self.hits)


# --- the engine with the pattern evaluator (docs/pattern-evaluator.md, "In the engine") ----------------

class PatternSearchCoverage(NodeObserver):
    """The bins of search_pattern.toml: what the pattern evaluator changes in the engine. Of every
    leaf (a frontier child, pattern value or, on a finished board, 4 x the disc difference): its
    stage, its disc count at both sides of each stage limit, how it was reached (a move or a pass),
    whether its board is finished, and its pattern sum saturated at either end; of every terminal
    node above the frontier, whether it is the root, and its 4 x disc difference at an end of the
    range (+256 saturated to 255, -256 raised to the search's floor -255). At the
    end: a search the budget stopped, the engine's control state then (SearchCoverage's cycle
    model), and while a leaf's evaluation was awaited, which of its two cycles (the first, where
    the seed's evaluator answers most boards, or the one the pattern evaluator adds); a solve
    (no evaluator), how it completed (SolveCoverage's solve_completed)."""

    KEPT = ("budget_expired_in_state:", "solve_completed:")   # bins of the wrapped sampler the plan names

    def __init__(self, hits, case):
        self.hits, self.weights = hits, case.pattern
        self.inner = SearchCoverage({}, case) if case.solve is None else SolveCoverage({}, case)
        self.limits = self.weights.stage_limits
        self.leaf_stages = [0] * self.weights.stages

    def on_node(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        self.inner.on_node(iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle)
        if kind == INNER or terms is None:
            return
        discs = bin(own | opp).count("1")
        finished = bool(terms[T_TERMINAL])
        if kind == TERMINAL:
            count(self.hits, f"terminal_node:{'at_the_root' if ply == 0 else 'inside_the_tree'}")
            raw = UNITS_PER_DISC * (bin(own).count("1") - bin(opp).count("1"))
            if raw > VALUE_MAX:       # 64 own discs: 256 saturated to 255
                count(self.hits, "terminal_at_an_end:high")
            elif raw == VALUE_MIN:    # 64 opponent's discs: -256, raised to the search's floor
                count(self.hits, "terminal_at_an_end:floor")
            return
        self.leaf_stages[self.weights.stage(discs)] += 1
        for number, limit in enumerate(self.limits):
            if discs in (limit, limit + 1):
                count(self.hits, f"leaf_at_stage_limit:{number}/{'at' if discs == limit else 'above'}")
        count(self.hits, f"leaf_reached_by:{'pass' if path[-1] is None else 'move'}",
              f"leaf_board:{'finished' if finished else 'in_play'}")
        if not finished and value in (VALUE_MAX, VALUE_FLOOR):   # at an end: saturated or not?
            raw = pattern_sum(own, opp, self.weights)
            if raw > VALUE_MAX or raw < VALUE_MIN:
                count(self.hits, f"leaf_saturated:{'high' if raw > VALUE_MAX else 'low'}")

    def finish(self, result):
        inner = self.inner.finish(result)
        for name, number in inner.items():
            if name.startswith(self.KEPT):
                self.hits[name] = self.hits.get(name, 0) + number
        if result.aborted and inner.get("budget_expired_in_state:await_leaf"):
            wait = result.cycles - self.inner.leaf_started   # 1: the evaluator's first cycle, 2: the added one
            count(self.hits, f"budget_expired_awaiting_leaf:{'first_cycle' if wait == 1 else 'added_cycle'}")
        for stage, number in enumerate(self.leaf_stages):
            if number:
                count(self.hits, f"leaf_stage:{stage}")
        return dict(self.hits)


def pattern_sum(own, opp, weights):
    """The pattern evaluator's sum of the board before saturation (golden.patterns)."""
    return pattern_evaluate(Position.from_own_opp(own, opp, False), weights).raw


# The two-context engine's bins (search_c2.toml): what each context did, from the same search bins
CONTEXT_EVENTS = {"inner_at_ply": "inner", "leaf_at_ply": "leaf", "terminal_at_ply": "terminal",
                  "pass_at_ply": "pass", "cutoff_at_ply": "cutoff", "alpha_raise_at_ply": "alpha_raise",
                  "killer_first": "killer_first", "budget_expired_in_iteration": "budget_expired",
                  "iteration_completed": "iteration_completed", "depth_limit_reached": "depth_limit_reached"}


def context_bins(hits, context, started_beside, ended_beside):
    """A search's bins (:meth:`SearchCoverage.finish`) as search_c2.toml's: what it did in its
    ``context`` (0 or 1), and whether the other context was searching when it started and when it
    ended (both busy at once)."""
    out = {}
    for name, number in hits.items():
        point, value = name.split(":")
        what = f"root_{value}" if point == "root_window" else CONTEXT_EVENTS.get(point)
        if what is not None:
            key = f"in_context:{context}/{what}"
            out[key] = out.get(key, 0) + number
    if started_beside:
        count(out, f"interleaving:{context}/started_while_the_other_searches")
    if ended_beside:
        count(out, f"interleaving:{context}/ended_while_the_other_searches")
    return out


# --- the processor (docs/spec.md §8: the referee protocol, the book, the search, noise on RX) ----------

REFEREE_CODES = ("YY", "RR", "II", "XX")


def noise_kinds(tokens, frame_error):
    """The kinds of rubbish in a noise burst (tb.checks.processor noise_burst: bytes, and the
    token ``frame_error`` for a frame with a low stop bit), read two bytes at a time: a framing
    error, a lower-case move, the out-of-range square Z9, an upper-case square (a move legal for
    neither side), a stray VV, any other byte."""
    kinds, index = [], 0
    while index < len(tokens):
        first = tokens[index]
        second = tokens[index + 1] if index + 1 < len(tokens) else None
        pair = None if first == frame_error or second in (None, frame_error) \
            else chr(first) + chr(second)
        if first == frame_error:
            kinds.append("framing_error")
        elif pair and pair[0] in "abcdefgh" and pair[1] in "12345678":
            kinds.append("lower_case_move")
        elif pair == "Z9":
            kinds.append("out_of_range_square")
        elif pair and pair[0] in "ABCDEFGH" and pair[1] in "12345678":
            kinds.append("illegal_move")
        elif pair == "VV":
            kinds.append("stray_pass")
        else:
            kinds.append("random_byte")
            index += 1
            continue
        index += 1 if first == frame_error else 2
    return kinds


class ProcessorCoverage:
    """The processor's bins (processor.toml), counted from the referee's messages and the replies
    the bench checked against the golden processor (tb/test_processor.py); one per simulator
    process, each cocotb test's hits saved when it passed (``save``) and dropped when it failed."""

    def __init__(self, frame_error):
        self.frame_error = frame_error
        self.hits, self.checked = {}, 0

    def count(self, *names):
        count(self.hits, *names)

    def message(self, message, answer=None, processor_black=None, reply=None):
        """A referee message the processor acted on, with the golden ``answer`` and the checked
        ``reply`` (None: none is due, II and XX)."""
        self.checked += 1
        self.count(f"referee_message:{message if message in REFEREE_CODES else 'move'}")
        if message == "RR":
            self.count("pass:opponent")
        if message in ("II", "XX"):
            self.count(f"game_end:{'lost_by_ii' if message == 'II' else 'won_by_xx'}")
        if reply is not None and answer and answer.get("asked"):
            source = "pass" if reply == "VV" else answer["info"]["source"]
            self.count(f"reply:{'black' if processor_black else 'white'}/{source}")
            if reply == "VV":
                self.count("pass:processor")
            if answer["info"].get("solved"):
                self.count(f"solved_answer:{answer['info']['solved']}")

    def noise(self, tokens):
        self.count(*(f"noise:{kind}" for kind in noise_kinds(tokens, self.frame_error)))

    def save(self, test):
        from tb.checks.coverage_samplers import CoverageRecorder

        recorder = CoverageRecorder.from_environment(test)
        if recorder is not None and self.checked:
            recorder.add(self.hits, self.checked)
            recorder.save()
        self.discard()

    def discard(self):
        self.hits, self.checked = {}, 0
