"""Functional coverage sampling: which bins of a block's test plan (tb/testplans/<block>.toml) a
checked case hits.

A sampler reads a case and the golden model's expected value (never the simulator's answer: a
case is only counted once the block matched it, so the two are the same) and adds one hit to
each bin the case reaches in a ``dict`` of ``"point:bin"`` names -> hits. Bins are counted in
bulk here, on the golden side of the bench (tb.sim.batch samples each checked chunk in its golden
thread, while the simulator runs the next one), not through a per-vector coverage library call:
the plan, the merge and the report are gamechip.coverage's. Bin names are the plan's: a bin of a
point with several axes is its axis values joined by ``/``; gamechip.coverage refuses a sampled
bin the plan does not name.

Pure Python on golden/ only (like tb.checks.combinational), so that any golden process can run it.
"""

import json
import os

from golden.board import popcount, square_name, squares_of
from golden.ordering import CORNERS, X_SQUARES

# the 8 directions as (rank step, file step): north is towards rank 8
DIRECTIONS = (("N", 1, 0), ("NE", 1, 1), ("E", 0, 1), ("SE", -1, 1),
              ("S", -1, 0), ("SW", -1, -1), ("W", 0, -1), ("NW", 1, -1))


class Board:
    """Masks of one board size: a bitboard moved one square in a direction, edges respected
    (``wrap=True``: flat index arithmetic, rows wrapping, the trap a block must not fall into)."""

    _cache = {}

    def __new__(cls, size):
        if size not in cls._cache:
            board = super().__new__(cls)
            board.size, board.full = size, (1 << size * size) - 1
            first_file = sum(1 << row * size for row in range(size))
            board.not_first = board.full & ~first_file
            board.not_last = board.full & ~(first_file << size - 1)
            board.names = [square_name(s, size) for s in range(size * size)]
            cls._cache[size] = board
        return cls._cache[size]

    def move(self, bits, dr, dc, wrap=False):
        step = dr * self.size + dc
        bits = (bits << step if step > 0 else bits >> -step) & self.full
        if wrap or dc == 0:
            return bits
        return bits & (self.not_first if dc > 0 else self.not_last)

    def capture_runs(self, own, opp, dr, dc, wrap=False):
        """[(run length k, empty squares that capture exactly k discs towards (dr, dc))]."""
        empty = self.full & ~(own | opp)
        out, run, k = [], self.move(own, -dr, -dc, wrap) & opp, 1
        while run:
            movers = self.move(run, -dr, -dc, wrap) & empty
            if movers:
                out.append((k, movers))
            run, k = self.move(run, -dr, -dc, wrap) & opp, k + 1
        return out

    def ray_run(self, own, opp, square, dr, dc):
        """Discs a move on ``square`` flips towards (dr, dc): the opponent run ended by an own disc."""
        row, col = divmod(square, self.size)
        run = 0
        while True:
            row, col = row + dr, col + dc
            if not (0 <= row < self.size and 0 <= col < self.size):
                return 0
            bit = 1 << (row * self.size + col)
            if opp & bit:
                run += 1
            else:
                return run if own & bit else 0


def bucket(value, edges):
    """The name of the bucket ``value`` falls in: edges are the buckets' lowest values, a bucket
    of one value is named by it, a wider one 'lo-hi', the last 'lo+'."""
    for index, low in enumerate(edges):
        high = edges[index + 1] - 1 if index + 1 < len(edges) else None
        if value >= low and (high is None or value <= high):
            return str(low) if high == low else f"{low}+" if high is None else f"{low}-{high}"
    return "below"


EMPTY_EDGES = (0, 1, 2, 3, 6, 60)
MOBILITY_EDGES = (0, 1, 2, 5, 10, 20)


def sample_move_checker(case, legal, hits, size):
    board = Board(size)
    position = case.position
    own, opp, colour = position.own, position.opp, position.side
    names = board.names
    for square in squares_of(legal):
        key = f"legal_square:{colour}/{names[square]}"
        hits[key] = hits.get(key, 0) + 1
    masks = []
    for name, dr, dc in DIRECTIONS:
        direction_mask = 0
        for k, movers in board.capture_runs(own, opp, dr, dc):
            key = f"capture_run:{name}/{k}"
            hits[key] = hits.get(key, 0) + 1
            direction_mask |= movers
        masks.append(direction_mask)
        if dc:
            naive = 0
            for _, movers in board.capture_runs(own, opp, dr, dc, wrap=True):
                naive |= movers
            if naive & ~direction_mask:
                key = f"wrap_trap:{name}"
                hits[key] = hits.get(key, 0) + 1
    ones = twos = fours = eights = 0   # bit-sliced count of capturing directions per square
    for mask in masks:
        carry = ones & mask
        ones ^= mask
        carry2 = twos & carry
        twos ^= carry
        eights |= fours & carry2
        fours ^= carry2
    for count in range(1, 9):
        planes = (ones if count & 1 else ~ones) & (twos if count & 2 else ~twos) & \
            (fours if count & 4 else ~fours) & (eights if count & 8 else ~eights)
        if planes & legal:
            key = f"capture_directions:{count}"
            hits[key] = hits.get(key, 0) + 1
    for key in (f"mobility:{bucket(popcount(legal), MOBILITY_EDGES)}",
                f"empty_squares:{bucket(size * size - popcount(own | opp), EMPTY_EDGES)}"):
        hits[key] = hits.get(key, 0) + 1


def sample_disc_flipper(case, expected, hits, size):
    board = Board(size)
    position, move = case.position, case.move
    own, opp = position.own, position.opp
    keys = [f"side:{position.side}/{'illegal' if expected[2] else 'legal'}"]
    if move >= size * size:
        keys.append("illegal:off_board")
    elif own >> move & 1:
        keys.append("illegal:occupied_own")
    elif opp >> move & 1:
        keys.append("illegal:occupied_opp")
    else:
        runs = [(name, board.ray_run(own, opp, move, dr, dc)) for name, dr, dc in DIRECTIONS]
        total = sum(run for _, run in runs)
        if not total:
            keys.append("illegal:no_flips")
        else:
            keys += [f"flips:{name}/{run}" for name, run in runs]
            keys += [f"total_flips:{total}", f"move_square:{board.names[move]}",
                     f"directions:{sum(1 for _, run in runs if run)}",
                     f"empty_squares:{size * size - popcount(own | opp)}"]
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


STABLE_CORNER_NAMES = ("A1", "H1", "A8", "H8")


def sample_stable_discs(case, expected, hits, size):
    position = case.position
    own = position.white if case.color == "O" else position.black
    stable = expected[-1][3]
    n2 = size * size
    corners = (0, size - 1, n2 - size, n2 - 1)
    keys = [f"cycles:{len(expected)}"]
    if not own & sum(1 << c for c in corners):
        outcome = "no_own_corner"
    elif stable == own:
        outcome = "all_own" if popcount(own) < n2 else "whole_board"
    else:
        outcome = "some"
    keys.append(f"outcome:{case.color}/{outcome}")
    keys += [f"corner_stable:{name}" for name, corner in zip(STABLE_CORNER_NAMES, corners) if stable >> corner & 1]
    rank = (1 << size) - 1
    file = sum(1 << row * size for row in range(size))
    edges = (("south", rank), ("north", rank << (n2 - size)), ("west", file), ("east", file << (size - 1)))
    keys += [f"full_own_edge:{name}" for name, mask in edges if own & mask == mask]
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


EVAL_TERMS = ("corners", "xsquares", "mobility", "stable", "discs")
EVAL_TERM_MAX = {"corners": 4, "xsquares": 4, "stable": 64, "discs": 64}


def sample_evaluator(case, expected, hits, size):
    _, terminal, stage, *terms, fixed, adaptive = expected
    keys = [f"stage:{('early', 'lower_mid', 'upper_mid', 'endgame')[stage]}/{'terminal' if terminal else 'inner'}"]
    for index, term in enumerate(EVAL_TERMS):
        for side, value in zip(("own", "opp"), terms[2 * index:2 * index + 2]):
            if value == 0:
                keys.append(f"term_extremes:{term}/{side}/min")
            elif term == "mobility" and value >= 20 or value == EVAL_TERM_MAX.get(term):
                keys.append(f"term_extremes:{term}/{side}/max")
    for name, value in (("fixed", fixed), ("adaptive", adaptive)):
        if value in (255, -256):
            keys.append(f"saturation:{name}/{'high' if value == 255 else 'low'}")
        keys.append(f"value_sign:{name}/{'positive' if value > 0 else 'zero' if value == 0 else 'negative'}")
    mobility_own, mobility_opp = terms[4], terms[5]
    if not terminal and mobility_own == 0:
        keys.append("zero_mobility:own")
    if not terminal and mobility_opp == 0:
        keys.append("zero_mobility:opp")
    if terminal:
        keys.append("zero_mobility:both")
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


def priority_class(square):
    return "corner" if square in CORNERS else "xsquare" if square in X_SQUARES else "middle"


WALK_EDGES = (0, 1, 2, 11, 33, 64)


def sample_node_order(case, expected, hits, size):
    selected = [move for found, move in expected if found]
    legal = case.legal
    pv = "none" if case.pv is None else "legal" if legal >> case.pv & 1 else "not_legal"
    length = "64" if len(selected) == 64 else bucket(len(selected), WALK_EDGES)
    keys = [f"pv:{pv}", f"walk_length:{length}"]
    keys += [f"selected_square:{square_name(move)}" for move in selected]
    if selected:
        keys += [f"first_class:{priority_class(selected[0])}", f"last_class:{priority_class(selected[-1])}"]
        if pv == "legal" and len(selected) > 1:
            keys.append(f"pv_first:{priority_class(case.pv)}")
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


def sample_openings(case, expected, hits, size):
    keys = []
    for ply, (in_book, move) in enumerate(expected):
        if in_book:
            keys += [f"in_book_at_ply:{ply}", f"book_move:{square_name(move)}"]
        else:
            keys.append(f"left_book_at_ply:{ply}")
            break
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


# design -> the sampler of its block, with the board size it samples at
SAMPLERS = {
    "move_checker": (sample_move_checker, 8),
    "disc_flipper": (sample_disc_flipper, 8),
    "disc_flipper_n6": (sample_disc_flipper, 6),
    "disc_flipper_n4": (sample_disc_flipper, 4),
    "stable_discs": (sample_stable_discs, 8),
    "evaluator": (sample_evaluator, 8),
    "evaluator_heavy": (sample_evaluator, 8),
    "node_order": (sample_node_order, 8),
    "openings": (sample_openings, 8),
}


# the chess blocks' samplers need python-chess (tb.checks.coverage_chess), imported when asked for
CHESS_SAMPLERS = {"chess_movegen": "sample_chess_movegen", "chess_repetition": "sample_chess_repetition"}


def sampler_for(design):
    """sample(case, expected, hits) for ``design``, or None when its plan has no sampler."""
    if design in CHESS_SAMPLERS:
        from tb.checks import coverage_chess

        function = getattr(coverage_chess, CHESS_SAMPLERS[design])
        return lambda case, expected, hits: function(case, expected, hits, 8)
    if design not in SAMPLERS:
        return None
    function, size = SAMPLERS[design]
    return lambda case, expected, hits: function(case, expected, hits, size)


def sample_cases(design, cases, expected, hits=None):
    """Every case of ``cases`` with its expected value sampled into ``hits`` (a new dict when None)."""
    hits = {} if hits is None else hits
    sample = sampler_for(design)
    for case, want in zip(cases, expected):
        sample(case, want, hits)
    return hits


# The bench's side of coverage (tb.sim.batch): set by the regression (root conftest.py), gamechip
# coverage and gamechip fuzz --until-covered, passed to the simulator in its environment.
COVERAGE_OUT = "GAMECHIP_COVERAGE_OUT"        # folder for the runs' hit files; unset: no sampling
COVERAGE_TARGETS = "GAMECHIP_COVERAGE_TARGETS"  # a JSON file of bins: the run stops once all are hit
# Random tests sample every case of their first DENSE_CASES, then one case in SPARSE_EVERY (the
# sampler costs several times the golden model on some blocks; coverage must not slow the
# regression or fuzzing by more than a fifth). Every other test (directed, aimed) samples every
# case; so does a run with targets, which stops as soon as they are all hit.
DENSE_CASES = 2048
SPARSE_EVERY = 1024
SPARSE_TESTS = ("random_", "fuzz")


HIT_IN_THIS_RUN = set()   # the bins every test of this simulator process has hit so far


class CoverageRecorder:
    """The hits of one test of one run, written to COVERAGE_OUT as
    ``<design>-<sim>-<test>-<pid>.json``: {"design", "sim", "test", "cases", "sampled", "hits",
    "pytest_test"}."""

    def __init__(self, design, sim, test, out, targets=None):
        self.design, self.sim, self.test, self.out = design, sim, test, out
        self.sample_one = sampler_for(design)
        self.hits, self.cases, self.sampled = {}, 0, 0
        self.targets = set(targets) if targets is not None else None
        self.dense = targets is not None or not test.startswith(SPARSE_TESTS)

    @classmethod
    def from_environment(cls, test):
        """The recorder the run's environment asks for, or None (no COVERAGE_OUT, or no sampler for
        the design)."""
        out, design = os.environ.get(COVERAGE_OUT), os.environ.get("GAMECHIP_DESIGN", "?")
        if not out or sampler_for(design) is None:
            return None
        targets = None
        if os.environ.get(COVERAGE_TARGETS):
            with open(os.environ[COVERAGE_TARGETS]) as listed:
                targets = json.load(listed)
        return cls(design, os.environ.get("GAMECHIP_SIM", "?"), test, out, targets)

    def sample(self, cases, expected):
        """Sample a checked chunk (``cases`` all matched ``expected``; two sequences)."""
        sample_one, hits, first, count = self.sample_one, self.hits, self.cases, len(cases)
        if self.dense:
            offsets = range(count)
        else:   # the first DENSE_CASES of the test, then every SPARSE_EVERY-th case
            dense_end = max(0, min(count, DENSE_CASES - first))
            sparse_start = max(dense_end, -(first + dense_end) % SPARSE_EVERY + dense_end)
            offsets = list(range(dense_end)) + list(range(sparse_start, count, SPARSE_EVERY))
        for offset in offsets:   # by index: ``cases`` may build only the cases asked for
            sample_one(cases[offset], expected[offset], hits)
        self.sampled += len(offsets)
        self.cases += count
        HIT_IN_THIS_RUN.update(hits)

    def closed(self):
        """Every target bin hit by this test or an earlier one of the same run (never, without
        targets): a run with targets runs its directed and aimed cases first, then random ones
        only while bins are open."""
        return self.targets is not None and self.targets.issubset(HIT_IN_THIS_RUN)

    def save(self):
        os.makedirs(self.out, exist_ok=True)
        path = os.path.join(self.out, f"{self.design}-{self.sim}-{self.test}-{os.getpid()}.json")
        with open(path + ".tmp", "w") as out:
            json.dump({"design": self.design, "sim": self.sim, "test": self.test, "cases": self.cases,
                       "sampled": self.sampled, "hits": self.hits,
                       # the pytest test whose bench run this is (the regression's closure merges those)
                       "pytest_test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]}, out)
        os.replace(path + ".tmp", path)
