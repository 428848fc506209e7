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
import time

from golden import words
from golden.board import popcount, square_name, squares_of
from golden.ordering import CORNERS, X_SQUARES
from golden.patterns import PATTERN_NAMES, default_weights, instance_index, pattern_instances

# the 8 directions as (rank step, file step): north is towards rank 8
DIRECTIONS = (("N", 1, 0), ("NE", 1, 1), ("E", 0, 1), ("SE", -1, 1),
              ("S", -1, 0), ("SW", -1, -1), ("W", 0, -1), ("NW", 1, -1))


class Board:
    """One board size: its squares' names, the masks of the board less its first or last file
    (what a bitboard shifted one square east or west keeps), and a move's run in one direction."""

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

    def ray_run(self, own, opp, square, dr, dc):
        """Discs a move on ``square`` flips towards (dr, dc): the opponent run ended by an own disc
        (``own`` and ``opp`` plain ints or golden.words words alike)."""
        row, col = divmod(square, self.size)
        run = 0
        while True:
            row, col = row + dr, col + dc
            if not (0 <= row < self.size and 0 <= col < self.size):
                return 0
            index = row * self.size + col
            if opp >> index & 1:
                run += 1
            else:
                return run if own >> index & 1 else 0


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


class BoardForm:
    """How the Othello samplers hold a board of one size, and their tables. Boards are golden.words
    words where golden.words is native and the board 8x8 (PyPy: a bitboard of 2**63 or more is a
    slow big integer there, and the golden worker's words kernel has its boards as words already),
    plain ints 0 .. 2**n2-1 elsewhere: ``word`` turns a plain bitboard into the form,
    ``from_word`` a golden.words word. The move checker's tables: per direction, the shift that
    moves a board one square against it, the edge mask after that shift (the whole board for the
    wrapping variant: flat index arithmetic, rows wrapping, the trap a block must not fall into)
    and the bin names it counts, so that a sample is shifts, masks and dict updates only."""

    _cache = {}

    def __new__(cls, size):
        if size not in cls._cache:
            form = super().__new__(cls)
            board = form.board = Board(size)
            native = words.NATIVE and size == 8
            form.word = words.to_word if native else int
            form.from_word = int if native else (lambda word: word & board.full)
            form.popcount, form.squares = (words.popcount, words.squares) if native else (popcount, squares_of)
            form.full = form.word(board.full)
            form.directions = []
            for name, dr, dc in DIRECTIONS:
                step = -(dr * size + dc)   # one square against the direction
                edge = board.full if dc == 0 else board.not_first if -dc > 0 else board.not_last
                form.directions.append(
                    (step > 0, abs(step), form.word(edge), form.full,
                     [f"capture_run:{name}/{k}" for k in range(size + 1)], f"wrap_trap:{name}" if dc else None))
            form.legal_keys = {colour: [f"legal_square:{colour}/{n}" for n in board.names] for colour in "XO"}
            cls._cache[size] = form
        return cls._cache[size]


if words.NATIVE:
    shift_left, shift_right = words.lshift, words.urshift
else:
    def shift_left(bits, amount):
        return bits << amount & 0xFFFF_FFFF_FFFF_FFFF

    def shift_right(bits, amount):
        return bits >> amount


def sample_move_checker(case, legal, hits, size):
    form, position = BoardForm(size), case.position
    count_move_checker(form.word(position.own), form.word(position.opp), position.side, form.word(legal), hits, size)


CAPTURE_DIRECTION_KEYS = [f"capture_directions:{count}" for count in range(9)]


def count_move_checker(own, opp, side, legal, hits, size):
    """The move checker's bins of one position (boards in BoardForm(size)'s form). Per direction,
    the runs of opponent discs an empty square captures, for every square at once (shifts of the
    whole board): with the edge masks, and for wrap_trap without them."""
    form = BoardForm(size)
    empty = form.full & ~(own | opp)
    keys = form.legal_keys[side]
    for square in form.squares(legal):
        key = keys[square]
        hits[key] = hits.get(key, 0) + 1
    masks = []
    for left, amount, edge, full, run_keys, wrap_key in form.directions:
        direction_mask, k = 0, 1
        run = (shift_left(own, amount) if left else shift_right(own, amount)) & edge & opp
        while run:
            moved = (shift_left(run, amount) if left else shift_right(run, amount)) & edge
            movers = moved & empty
            if movers:
                key = run_keys[k]
                hits[key] = hits.get(key, 0) + 1
                direction_mask |= movers
            run, k = moved & opp, k + 1
        masks.append(direction_mask)
        if wrap_key is not None:
            naive = 0
            run = (shift_left(own, amount) if left else shift_right(own, amount)) & full & opp
            while run:
                moved = (shift_left(run, amount) if left else shift_right(run, amount)) & full
                naive |= moved & empty
                run = moved & opp
            if naive & ~direction_mask:
                hits[wrap_key] = hits.get(wrap_key, 0) + 1
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
            key = CAPTURE_DIRECTION_KEYS[count]
            hits[key] = hits.get(key, 0) + 1
    for key in (f"mobility:{bucket(form.popcount(legal), MOBILITY_EDGES)}",
                f"empty_squares:{bucket(size * size - form.popcount(own | opp), EMPTY_EDGES)}"):
        hits[key] = hits.get(key, 0) + 1


def sample_disc_flipper(case, expected, hits, size):
    form, position = BoardForm(size), case.position
    count_disc_flipper(form.word(position.own), form.word(position.opp), position.side, case.move, expected[2],
                       hits, size)


def count_disc_flipper(own, opp, side, move, illegal, hits, size):
    """The flipper's bins of one move (boards in BoardForm(size)'s form; ``illegal`` as expected)."""
    form = BoardForm(size)
    keys = [f"side:{side}/{'illegal' if illegal else 'legal'}"]
    if move >= size * size:
        keys.append("illegal:off_board")
    elif own >> move & 1:
        keys.append("illegal:occupied_own")
    elif opp >> move & 1:
        keys.append("illegal:occupied_opp")
    else:
        runs = [(name, form.board.ray_run(own, opp, move, dr, dc)) for name, dr, dc in DIRECTIONS]
        total = sum(run for _, run in runs)
        if not total:
            keys.append("illegal:no_flips")
        else:
            keys += [f"flips:{name}/{run}" for name, run in runs]
            keys += [f"total_flips:{total}", f"move_square:{form.board.names[move]}",
                     f"directions:{sum(1 for _, run in runs if run)}",
                     f"empty_squares:{size * size - form.popcount(own | opp)}"]
    for key in keys:
        hits[key] = hits.get(key, 0) + 1


def word_sampler(design):
    """sample(case, expected, hits) for the golden worker's words kernel (tb.checks.golden_worker):
    ``case`` a position as golden.words words, (black, white, white_to_move) and for the flipper
    its move after them; ``expected`` the kernel's answer in words. The same bins as the design's
    sampler (tests/test_othello_samplers.py checks it under PyPy)."""
    form = BoardForm(8)
    from_word = form.from_word

    def sides(black, white, white_to_move):
        return (from_word(white), from_word(black), "O") if white_to_move else \
            (from_word(black), from_word(white), "X")

    if design == "move_checker":
        return lambda case, legal, hits: count_move_checker(*sides(*case), from_word(legal), hits, 8)
    if design == "disc_flipper":
        return lambda case, expected, hits: count_disc_flipper(*sides(*case[:3]), case[3], expected[2], hits, 8)
    return None


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


def sample_pattern_evaluator(case, expected, hits, size):
    """Bins of tb/testplans/pattern_evaluator.toml, read from the golden answer and the board: the
    stage, the value's sign and saturation, per table and stage whether a nonzero weight was read
    (a zero weight cannot tell a wrong read from a right one), per table whether an instance was
    all own, all the opponent's or all empty, and a board at a stage limit."""
    _, stage, value = expected
    weights = default_weights()
    own, opp = case.position.own, case.position.opp
    keys = [f"stage:{stage}",
            f"value_sign:{'positive' if value > 0 else 'zero' if value == 0 else 'negative'}"]
    if value in (255, -256):
        keys.append(f"saturation:{'high' if value == 255 else 'low'}")
    discs = popcount(own | opp)
    if discs in weights.stage_limits or discs - 1 in weights.stage_limits:
        keys.append(f"stage_limit:{'at' if discs in weights.stage_limits else 'above'}")
    for number, name in enumerate(PATTERN_NAMES):
        table = weights.tables[stage][number]
        top = 3 ** len(pattern_instances(name)[0].squares) - 1
        read_nonzero, extremes = False, set()
        for instance in pattern_instances(name):
            index = instance_index(instance, own, opp)
            read_nonzero = read_nonzero or table[index] != 0
            if index == 0:
                extremes.add("empty")
            elif index == top // 2:
                extremes.add("own")
            elif index == top:
                extremes.add("opp")
        if read_nonzero:
            keys.append(f"table_read:{name}/{stage}")
        keys += [f"index_extremes:{name}/{kind}" for kind in sorted(extremes)]
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
    "pattern_evaluator": (sample_pattern_evaluator, 8),
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
    "sample_seconds", "pytest_test"}."""

    def __init__(self, design, sim, test, out, targets=None):
        self.design, self.sim, self.test, self.out = design, sim, test, out
        self.sample_one = sampler_for(design)
        self.hits, self.cases, self.sampled = {}, 0, 0
        self.deferred = []   # (case, expected) pairs kept by sample(..., defer_dense=True)
        self.seconds = 0.0   # CPU seconds of the sampling thread spent sampling (gamechip bench shows them)
        self.targets = set(targets) if targets is not None else None
        self.dense = targets is not None or not test.startswith(SPARSE_TESTS)

    @classmethod
    def from_environment(cls, test):
        """The recorder the run's environment asks for, or None (no COVERAGE_OUT, or neither a
        sampler for the design nor a bench that samples it itself: tb.blocks.BENCH_SAMPLED_TESTS,
        whose benches add their hits with ``add``)."""
        from tb.blocks import BENCH_SAMPLED_TESTS

        out, design = os.environ.get(COVERAGE_OUT), os.environ.get("GAMECHIP_DESIGN", "?")
        if not out or sampler_for(design) is None and design not in BENCH_SAMPLED_TESTS:
            return None
        targets = None
        if os.environ.get(COVERAGE_TARGETS):
            with open(os.environ[COVERAGE_TARGETS]) as listed:
                targets = json.load(listed)
        return cls(design, os.environ.get("GAMECHIP_SIM", "?"), test, out, targets)

    def sample(self, cases, expected, defer_dense=False):
        """Sample a checked chunk (``cases`` all matched ``expected``; two sequences).
        ``defer_dense``: a random test's first DENSE_CASES are only kept, to be sampled by
        ``sample_deferred``: the golden worker samples them after its last chunk, while the
        simulator checks the chunks still in its slots, where the sampler's first, uncompiled
        samples under PyPy cost the loop nothing."""
        started = time.thread_time()
        sample_one, hits, first, count = self.sample_one, self.hits, self.cases, len(cases)
        if self.dense:
            dense, sparse = range(count), ()
        else:   # the first DENSE_CASES of the test, then every SPARSE_EVERY-th case
            dense_end = max(0, min(count, DENSE_CASES - first))
            sparse_start = max(dense_end, -(first + dense_end) % SPARSE_EVERY + dense_end)
            dense, sparse = range(dense_end), range(sparse_start, count, SPARSE_EVERY)
        if defer_dense and not self.dense:
            self.deferred.extend((cases[offset], expected[offset]) for offset in dense)
            dense = ()
        for offsets in (dense, sparse):
            for offset in offsets:   # by index: ``cases`` may build only the cases asked for
                sample_one(cases[offset], expected[offset], hits)
        self.sampled += len(dense) + len(sparse)
        self.cases += count
        HIT_IN_THIS_RUN.update(hits)
        self.seconds += time.thread_time() - started

    def sample_deferred(self):
        """Sample the cases ``sample(..., defer_dense=True)`` kept."""
        started = time.thread_time()
        sample_one, hits = self.sample_one, self.hits
        for case, want in self.deferred:
            sample_one(case, want, hits)
        self.sampled += len(self.deferred)
        self.deferred = []
        HIT_IN_THIS_RUN.update(hits)
        self.seconds += time.thread_time() - started

    def add(self, hits, cases=1):
        """Hits a bench sampled itself (tb.checks.coverage_benches: a search's nodes, a serial line's frames, a
        game's messages, bus transactions), for ``cases`` checked cases, every one sampled."""
        for name, count in hits.items():
            self.hits[name] = self.hits.get(name, 0) + count
        self.cases += cases
        self.sampled += cases
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
                       "sampled": self.sampled, "hits": self.hits, "sample_seconds": self.seconds,
                       # the pytest test whose bench run this is (the regression's closure merges those)
                       "pytest_test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]}, out)
        os.replace(path + ".tmp", path)
