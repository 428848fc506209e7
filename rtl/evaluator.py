"""Evaluator (docs/spec.md §4): the whole leaf evaluation of one node, with a start/done handshake.

Own = the side to move, opp = the other side. On the rising edge with ``start`` the block
latches the board (as own/opp registers) and starts both Stable Discs Evaluators, which
latch the board themselves on the same edge. Everything else is combinational from the
latched board and the two stable counts:

* two Move Checkers (own vs opp, opp vs own) give the legal-move vectors, and popcount trees
  (``rtl.popcount``) count mobility, discs, corners (A1, H1, A8, H8) and X-squares
  (B2, G2, B7, G7) of each side;
* ``terminal`` = neither side has a legal move;
* ``stage`` from the number of discs on the board: 0 early (<= limit 0), 1 lower mid
  (<= limit 1), 2 upper mid (<= limit 2), 3 endgame;
* fixed value = corner*(corners diff) + xsquare*(X diff) + mobility*(mobility diff)
  + stable*(stable diff); adaptive value = sum over mobility, stability (stable discs),
  corners and discs of (diff << shift) with the shifts of the stage's row (a term with
  shift None has weight 0 and is not built); on a terminal node both values are
  terminal*(discs diff);
* every constant weight is applied with shifts and adds only: a weight is split into
  signed powers of two (its non-adjacent form, e.g. -2 = -(1 << 1), 3 = 4 - 1), one shifted
  (and possibly negated) copy of the difference per digit, summed by an adder tree;
* the sums are computed in a wide signed intermediate (``value_width(weights)`` bits, at
  least 12, wide enough that no partial sum can wrap) and then SATURATED to -256..255.

Handshake: ``busy`` is set on the start edge. Each stable_discs instance raises its ``done``
for one cycle; a sticky flag per instance remembers it. ``done`` (combinational) = busy and
both instances have raised done in this cycle or an earlier one since start, i.e. done rises
in cycle max(k_own, k_opp), cycle 0 being the first cycle after the start edge and k the
instance's done cycle (docs/spec.md §3). busy clears on the edge after done; the outputs hold until
the next start (the stable_discs outputs hold too). A start while busy restarts everything.

The weights are elaboration-time parameters (:class:`Weights`); each configuration is a
separate converted design (``evaluator``: DEFAULT, ``evaluator_heavy``: HEAVY).
"""

from dataclasses import dataclass

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, intbv

from rtl.contexts import Stages, late_register
from rtl.move_checker import move_checker
from rtl.popcount import adder, popcount
from rtl.stable_discs import stable_discs

SQUARES = 64
CORNER_SQUARES = (0, 7, 56, 63)      # A1, H1, A8, H8
X_SQUARES = (9, 14, 49, 54)          # B2, G2, B7, G7
VALUE_MIN, VALUE_MAX = -256, 255     # the 9-bit signed alpha-beta range

# Columns of Weights.adaptive_shifts, in this order, and the largest |own - opp| of each.
ADAPTIVE_TERMS = ("mobility", "stability", "corners", "discs")
MAX_DIFF = {"corners": 4, "xsquares": 4, "mobility": SQUARES, "stability": SQUARES,
            "discs": SQUARES}

# Table I of the co-design seed as shift amounts: High = 3 (x8), Moderate = 2 (x4),
# Low = 0 (x1), 0 = None (term left out).
TABLE_I_SHIFTS = (
    # mobility stability corners discs
    (3, 0, 2, 0),              # early      (<= 20 discs)
    (3, 2, 3, 0),              # lower mid  (21..36)
    (2, 3, 3, 2),              # upper mid  (37..53)
    (None, None, None, 3),     # endgame    (>= 54)
)


@dataclass(frozen=True)
class Weights:
    """Evaluation parameters (elaboration-time constants).

    corner, xsquare, mobility, stable: fixed weights of the non-terminal evaluation.
    terminal: weight of the disc difference on a terminal node.
    stage_limits: largest disc count of the early, lower-mid and upper-mid stages.
    adaptive_shifts[stage]: (mobility, stability, corners, discs) shift amounts, None = 0.
    """

    corner: int = 4
    xsquare: int = -2
    mobility: int = 2
    stable: int = 1
    terminal: int = 1
    stage_limits: tuple = (20, 36, 53)
    adaptive_shifts: tuple = TABLE_I_SHIFTS

    def __post_init__(self):
        limits = tuple(self.stage_limits)
        if len(limits) != 3 or not 0 <= limits[0] < limits[1] < limits[2] < SQUARES:
            raise ValueError(f"stage_limits must be 3 increasing counts in 0..63, got {limits}")
        shifts = self.adaptive_shifts
        if len(shifts) != 4 or any(len(row) != len(ADAPTIVE_TERMS) for row in shifts):
            raise ValueError(f"adaptive_shifts must be 4 rows of {len(ADAPTIVE_TERMS)}")
        for row in shifts:
            for shift in row:
                if shift is not None and not 0 <= shift < 9:
                    raise ValueError(f"adaptive shift must be None or 0..8, got {shift}")

    def fixed_weights(self):
        """(feature, weight) of the fixed evaluation."""
        return (("corners", self.corner), ("xsquares", self.xsquare),
                ("mobility", self.mobility), ("stability", self.stable))


DEFAULT = Weights()
# Heavier fixed weights: the fixed value can leave the 9-bit range (saturation).
HEAVY = Weights(mobility=8, stable=4, terminal=8)


def signed_digits(weight):
    """``weight`` as signed powers of two (non-adjacent form): [(shift, negative), ...],
    so that weight = sum(-(1 << s) if negative else (1 << s)). Empty for 0."""
    digits = []
    shift = 0
    while weight:
        if weight & 1:
            digit = 2 - (weight & 3)       # +1 or -1
            digits.append((shift, digit < 0))
            weight -= digit
        weight >>= 1
        shift += 1
    return digits


def value_width(weights):
    """Bits of the signed intermediates: every term and partial sum of every evaluation
    (fixed, adaptive per stage, terminal) stays below 2**(width-1) in magnitude."""
    def bound(terms):
        return sum(MAX_DIFF[feature] << shift
                   for feature, weight in terms for shift, _ in signed_digits(weight))

    bounds = [bound(weights.fixed_weights()), bound([("discs", weights.terminal)]),
              -VALUE_MIN]
    for row in weights.adaptive_shifts:
        bounds.append(sum(MAX_DIFF[feature] << shift
                          for feature, shift in zip(ADAPTIVE_TERMS, row) if shift is not None))
    return max(12, max(bounds).bit_length() + 1)


def wide_signal(width):
    return Signal(intbv(0, min=-(1 << (width - 1)), max=1 << (width - 1)))


def zero_extended(count, width):
    """``count`` (unsigned) zero-extended to ``width`` bits, as a shadow signal (exact widths
    keep Verilator's -Wall quiet; the subtraction then wraps into the right two's complement)."""
    return ConcatSignal(intbv(0)[width - len(count):], count)


@block
def difference(a, b, diff):
    """diff = a - b. a, b: Signal(intbv[w]) zero-extended counts (in); diff: signed w bits (out)."""

    @always_comb
    def subtract():
        diff.next = a - b

    return subtract


@block
def shifted(diff, shift, term):
    """term = diff << shift (constant shift). diff, term: signed, same width."""

    @always_comb
    def shift_up():
        term.next = diff << shift

    return shift_up


@block
def negated_shifted(diff, shift, term):
    """term = -(diff << shift) (constant shift). diff, term: signed, same width."""

    @always_comb
    def shift_negate():
        term.next = -(diff << shift)

    return shift_negate


@block
def constant_zero(value):
    """value = 0 (a sum with no terms)."""

    @always_comb
    def drive_zero():
        value.next = 0

    return drive_zero


@block
def copy_value(source, value):
    """value = source (same width)."""

    @always_comb
    def drive_copy():
        value.next = source

    return drive_copy


@block
def sum_terms(terms, total):
    """total = sum of the signals in ``terms`` (dict index -> signed signal, same width as
    total), by a tree of adders built at elaboration time."""
    if not terms:
        return constant_zero(total)
    level = [terms[key] for key in sorted(terms)]
    if len(level) == 1:
        return copy_value(level[0], total)
    adders = []
    while len(level) > 1:
        following = []
        for index in range(0, len(level) - 1, 2):
            partial = total if len(level) == 2 else wide_signal(len(total))
            adders.append(adder(level[index], level[index + 1], partial))
            following.append(partial)
        if len(level) % 2:
            following.append(level[-1])
        level = following
    return adders


@block
def stage_decoder(discs_total, stage, limits):
    """stage: 0 when discs_total <= limits[0], 1 when <= limits[1], 2 when <= limits[2],
    else 3. discs_total: number of discs on the board (in); stage: 2 bits (out)."""
    limit_early, limit_lower, limit_upper = limits

    @always_comb
    def decode_stage():
        if discs_total <= limit_early:
            stage.next = 0
        elif discs_total <= limit_lower:
            stage.next = 1
        elif discs_total <= limit_upper:
            stage.next = 2
        else:
            stage.next = 3

    return decode_stage


@block
def stage_select(stage, early, lower, upper, endgame, value):
    """value = the input of the current stage (a 4-way multiplexer)."""

    @always_comb
    def select_stage():
        if stage == 0:
            value.next = early
        elif stage == 1:
            value.next = lower
        elif stage == 2:
            value.next = upper
        else:
            value.next = endgame

    return select_stage


@block
def saturate(terminal, terminal_value, normal_value, value):
    """value = terminal_value on a terminal node, else normal_value, clamped to -256..255.

    terminal: bool (in); terminal_value, normal_value: wide signed (in);
    value: Signal(intbv(0, min=-256, max=256)) (out).
    """
    raw = wide_signal(len(normal_value))

    @always_comb
    def select_raw():
        if terminal:
            raw.next = terminal_value
        else:
            raw.next = normal_value

    @always_comb
    def clamp():
        if raw > VALUE_MAX:
            value.next = VALUE_MAX
        elif raw < VALUE_MIN:
            value.next = VALUE_MIN
        else:
            value.next = raw[len(value):].signed()

    return select_raw, clamp


@block
def weighted_sum(diffs, weighted, total):
    """total = sum of weight * diffs[feature] over ``weighted`` ((feature, weight) pairs),
    each weight applied as its signed power-of-two digits (shifts, negations, adds).

    diffs: dict feature -> wide signed difference (in); total: wide signed (out).
    """
    terms = {}
    cells = []
    for feature, weight in weighted:
        for shift, negative in signed_digits(weight):
            term = wide_signal(len(total))
            if negative:
                cells.append(negated_shifted(diffs[feature], shift, term))
            else:
                cells.append(shifted(diffs[feature], shift, term))
            terms[len(terms)] = term
    cells.append(sum_terms(terms, total))
    return cells


@block
def evaluator(clk, rst, start, black, white, white_to_move, done, terminal, stage,
              corners_own, corners_opp, xsq_own, xsq_opp, mobility_own, mobility_opp,
              stable_own, stable_opp, discs_own, discs_opp, fixed_value, adaptive_value,
              weights=DEFAULT, legal_own=None, contexts=1):
    """Leaf evaluation of one node from the side to move.

    clk:            Signal(bool) clock (in).
    rst:            ResetSignal(0, active=1, isasync=False): clears busy, flags, the latched
                    board and both stable_discs instances (in).
    start:          Signal(bool): latch the board and start on this edge (in).
    black, white:   Signal(intbv[64]) board (in, read on the start edge only).
    white_to_move:  Signal(bool), side to move = own (in, read on the start edge only).
    done:           Signal(bool), both stable counts are final (out, combinational, one cycle).
    terminal:       Signal(bool), neither side has a legal move (out).
    stage:          Signal(intbv[2]) 0 early, 1 lower mid, 2 upper mid, 3 endgame (out).
    corners_own/opp, xsq_own/opp:                 Signal(intbv[3]), 0..4 (out).
    mobility_own/opp, stable_own/opp, discs_own/opp: Signal(intbv[7]), 0..64 (out).
    fixed_value, adaptive_value: Signal(intbv(0, min=-256, max=256)), saturated (out).
    weights:        :class:`Weights` (elaboration-time).
    legal_own:      Signal(intbv[64]), the legal moves of the side to move (out), or None
                    (the stand-alone design does not export it; the search engine reports
                    it for every leaf).
    contexts:       interleaved contexts (elaboration time, rtl/contexts.py): with 2, the
                    inputs are read and the outputs given in stage 1; the move checkers, the
                    counts and the weighted sums run in stage 0, the saturation in stage 1.
    """
    stages = Stages(contexts)
    width = value_width(weights)

    own = Signal(intbv(0)[SQUARES:])
    opp = Signal(intbv(0)[SQUARES:])
    opp_color = Signal(bool(0))
    busy = Signal(bool(0))
    own_seen = Signal(bool(0))
    opp_seen = Signal(bool(0))
    finished = Signal(bool(0))
    own_stable_done = Signal(bool(0))
    opp_stable_done = Signal(bool(0))
    own_legal = Signal(intbv(0)[SQUARES:])
    opp_legal = Signal(intbv(0)[SQUARES:])
    is_terminal = Signal(bool(0))
    stage_index = Signal(intbv(0)[2:])
    discs_total = Signal(intbv(0, min=0, max=2 * SQUARES + 1))

    counts = {}      # (feature, side) -> unsigned count
    for feature in ("corners", "xsquares"):
        for side in ("own", "opp"):
            counts[(feature, side)] = Signal(intbv(0, min=0, max=5))
    for feature in ("mobility", "stability", "discs"):
        for side in ("own", "opp"):
            counts[(feature, side)] = Signal(intbv(0, min=0, max=SQUARES + 1))

    cells = [
        move_checker(own, opp, own_legal),
        move_checker(opp, own, opp_legal),
        stable_discs(clk, rst, start, black, white, white_to_move, own_stable_done,
                     counts[("stability", "own")], None, contexts=contexts),
        stable_discs(clk, rst, start, black, white, opp_color, opp_stable_done,
                     counts[("stability", "opp")], None, contexts=contexts),
        popcount(own_legal, counts[("mobility", "own")]),
        popcount(opp_legal, counts[("mobility", "opp")]),
        popcount(own, counts[("discs", "own")]),
        popcount(opp, counts[("discs", "opp")]),
        popcount(own, counts[("corners", "own")], indices=CORNER_SQUARES),
        popcount(opp, counts[("corners", "opp")], indices=CORNER_SQUARES),
        popcount(own, counts[("xsquares", "own")], indices=X_SQUARES),
        popcount(opp, counts[("xsquares", "opp")], indices=X_SQUARES),
    ]
    # Stage 0 counts and sums; stage 1 saturates, and reads the counts (for the outputs) late.
    counted = {key: stages.late(signal) for key, signal in counts.items()}
    cells += [
        adder(counts[("discs", "own")], counts[("discs", "opp")], discs_total),
        stage_decoder(discs_total, stage_index, tuple(weights.stage_limits)),
    ]

    diffs = {}       # feature -> wide signed own - opp
    for feature in MAX_DIFF:
        diffs[feature] = wide_signal(width)
        cells.append(difference(zero_extended(counts[(feature, "own")], width),
                                zero_extended(counts[(feature, "opp")], width),
                                diffs[feature]))

    fixed_sum = wide_signal(width)
    terminal_sum = wide_signal(width)
    cells.append(weighted_sum(diffs, weights.fixed_weights(), fixed_sum))
    cells.append(weighted_sum(diffs, [("discs", weights.terminal)], terminal_sum))

    stage_sums = {}
    for index, row in enumerate(weights.adaptive_shifts):
        stage_sums[index] = wide_signal(width)
        weighted = [(feature, 1 << shift) for feature, shift in zip(ADAPTIVE_TERMS, row)
                    if shift is not None]
        cells.append(weighted_sum(diffs, weighted, stage_sums[index]))
    adaptive_sum = wide_signal(width)
    cells.append(stage_select(stage_index, stage_sums[0], stage_sums[1], stage_sums[2],
                              stage_sums[3], adaptive_sum))
    terminal_late = stages.late(is_terminal)
    terminal_sum_late = stages.late(terminal_sum)
    fixed_sum_late = stages.late(fixed_sum)
    adaptive_sum_late = stages.late(adaptive_sum)
    stage_late = stages.late(stage_index)
    cells.append(saturate(terminal_late, terminal_sum_late, fixed_sum_late, fixed_value))
    cells.append(saturate(terminal_late, terminal_sum_late, adaptive_sum_late, adaptive_value))

    own_mobility = counts[("mobility", "own")]
    opp_mobility = counts[("mobility", "opp")]
    own_mobility_late = counted[("mobility", "own")]
    opp_mobility_late = counted[("mobility", "opp")]
    busy_late = stages.late(busy)
    own_seen_late = stages.late(own_seen)
    opp_seen_late = stages.late(opp_seen)
    own_late = stages.late(own)
    opp_late = stages.late(opp)
    legal_late = stages.late(own_legal)

    @always_seq(clk.posedge, reset=rst)
    def control():
        busy.next = busy_late
        own_seen.next = own_seen_late
        opp_seen.next = opp_seen_late
        own.next = own_late
        opp.next = opp_late
        if start:
            busy.next = 1
            own_seen.next = 0
            opp_seen.next = 0
            if white_to_move:
                own.next = white
                opp.next = black
            else:
                own.next = black
                opp.next = white
        elif busy_late:
            if own_stable_done:
                own_seen.next = 1
            if opp_stable_done:
                opp_seen.next = 1
            if finished:
                busy.next = 0

    @always_comb
    def select_opp_color():
        opp_color.next = not white_to_move

    @always_comb
    def detect_done():
        finished.next = (busy_late and (own_seen_late or own_stable_done)
                         and (opp_seen_late or opp_stable_done))

    @always_comb
    def detect_terminal():
        is_terminal.next = own_mobility == 0 and opp_mobility == 0

    corners_own_count = counted[("corners", "own")]
    corners_opp_count = counted[("corners", "opp")]
    xsq_own_count = counted[("xsquares", "own")]
    xsq_opp_count = counted[("xsquares", "opp")]
    stable_own_count = counted[("stability", "own")]
    stable_opp_count = counted[("stability", "opp")]
    discs_own_count = counted[("discs", "own")]
    discs_opp_count = counted[("discs", "opp")]

    @always_comb
    def drive_outputs():
        done.next = finished
        terminal.next = terminal_late
        stage.next = stage_late
        corners_own.next = corners_own_count
        corners_opp.next = corners_opp_count
        xsq_own.next = xsq_own_count
        xsq_opp.next = xsq_opp_count
        mobility_own.next = own_mobility_late
        mobility_opp.next = opp_mobility_late
        stable_own.next = stable_own_count
        stable_opp.next = stable_opp_count
        discs_own.next = discs_own_count
        discs_opp.next = discs_opp_count

    if legal_own is None:
        late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]
        return late_cells, cells, control, select_opp_color, detect_done, detect_terminal, drive_outputs

    @always_comb
    def drive_legal():
        legal_own.next = legal_late

    late_cells = [late_register(clk, rst, source, copy) for source, copy in stages.pairs]

    return (late_cells, cells, control, select_opp_color, detect_done, detect_terminal, drive_outputs,
            drive_legal)
