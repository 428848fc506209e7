"""Static evaluation of a position (docs/spec.md §4), from the side to move.

Everything is "own" (the side to move) minus "opp" (the other side):

* fixed weights (processor seed): ``corner * corners + xsquare * X-squares +
  mobility * legal moves + stable * stable discs``, each term the own-minus-opp
  difference; X-squares are B2, G2, B7, G7;
* adaptive weights (co-design seed, Table I): the game stage comes from the
  number of discs on the board and picks a power-of-two weight for each of
  mobility, stability (stable discs), corners and discs;
* terminal node (neither side can move): both values are ``terminal *
  (discs_own - discs_opp)``;
* both values saturate to the 9-bit signed range of the alpha-beta registers,
  -256..255 (never wrap).

The RTL computes these with shifts and adder trees; the golden model uses
popcounts and plain multiplication (``2 ** shift``), so the two share no
arithmetic. Every weight is a conversion-time parameter of the RTL, collected
here in :class:`Weights`; the RTL converts one design per configuration.

Concrete powers of two chosen for Table I (co-design seed): High = shift 3
(x8), Moderate = shift 2 (x4), Low = shift 0 (x1), 0 = no term (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from golden.board import BoardError, Position, popcount
from golden.othello import legal_moves
from golden.stable import stable_iterations

SIZE = 8
VALUE_BITS = 9
VALUE_MIN = -(1 << (VALUE_BITS - 1))      # -256
VALUE_MAX = (1 << (VALUE_BITS - 1)) - 1   # 255

STAGES = ("early", "lower_mid", "upper_mid", "endgame")
# Columns of Weights.adaptive_shifts, in this order.
ADAPTIVE_TERMS = ("mobility", "stability", "corners", "discs")

CORNERS = (0, 7, 56, 63)          # A1, H1, A8, H8
X_SQUARES = (9, 14, 49, 54)       # B2, G2, B7, G7
CORNER_MASK = sum(1 << sq for sq in CORNERS)
X_MASK = sum(1 << sq for sq in X_SQUARES)

# Table I levels as shift amounts (None: weight 0, the term is left out).
HIGH, MODERATE, LOW, ZERO = 3, 2, 0, None
TABLE_I_SHIFTS: tuple[tuple[Optional[int], ...], ...] = (
    #  mobility  stability  corners   discs
    (HIGH,      LOW,       MODERATE, LOW),       # early      (<= 20 discs)
    (HIGH,      MODERATE,  HIGH,     LOW),       # lower_mid  (21..36)
    (MODERATE,  HIGH,      HIGH,     MODERATE),  # upper_mid  (37..53)
    (ZERO,      ZERO,      ZERO,     HIGH),      # endgame    (>= 54)
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Weights:
    """Every evaluation parameter (conversion-time generics of the RTL).

    ``stage_limits`` are the largest disc counts of the first three stages
    (early <= 20, lower mid 21..36, upper mid 37..53, endgame >= 54).
    ``adaptive_shifts[stage][term]`` is the shift amount of term
    ``ADAPTIVE_TERMS[term]`` in stage ``STAGES[stage]`` (weight ``2**shift``),
    or None for weight 0.
    """

    corner: int = 4
    xsquare: int = -2
    mobility: int = 2
    stable: int = 1
    terminal: int = 1
    stage_limits: tuple[int, int, int] = (20, 36, 53)
    adaptive_shifts: tuple[tuple[Optional[int], ...], ...] = TABLE_I_SHIFTS

    def __post_init__(self) -> None:
        for name in ("corner", "xsquare", "mobility", "stable", "terminal"):
            value = getattr(self, name)
            if not _is_int(value):
                raise ValueError(f"weight {name} must be an int, got {value!r}")
        limits = self.stage_limits
        if (
            not isinstance(limits, tuple)
            or len(limits) != len(STAGES) - 1
            or not all(_is_int(x) for x in limits)
            or not 0 <= limits[0] < limits[1] < limits[2] < SIZE * SIZE
        ):
            raise ValueError(
                f"stage_limits must be 3 increasing disc counts in 0..{SIZE * SIZE - 1}, got {limits!r}"
            )
        shifts = self.adaptive_shifts
        if (
            not isinstance(shifts, tuple)
            or len(shifts) != len(STAGES)
            or not all(isinstance(row, tuple) and len(row) == len(ADAPTIVE_TERMS) for row in shifts)
        ):
            raise ValueError(
                f"adaptive_shifts must be a {len(STAGES)}x{len(ADAPTIVE_TERMS)} tuple of tuples "
                f"(rows {', '.join(STAGES)}; columns {', '.join(ADAPTIVE_TERMS)}), got {shifts!r}"
            )
        for stage, row in zip(STAGES, shifts):
            for term, shift in zip(ADAPTIVE_TERMS, row):
                if shift is not None and not (_is_int(shift) and 0 <= shift < VALUE_BITS):
                    raise ValueError(
                        f"adaptive shift for {term} in stage {stage} must be None (weight 0) "
                        f"or an int 0..{VALUE_BITS - 1}, got {shift!r}"
                    )

    def stage(self, discs: int) -> int:
        """Stage index (into STAGES) for a board holding ``discs`` discs."""
        for index, limit in enumerate(self.stage_limits):
            if discs <= limit:
                return index
        return len(STAGES) - 1

    def adaptive_weights(self, stage: int) -> tuple[int, ...]:
        """Multipliers ``2**shift`` (0 for None) of ADAPTIVE_TERMS in ``stage``."""
        return tuple(0 if s is None else 2 ** s for s in self.adaptive_shifts[stage])


DEFAULT = Weights()
# Heavier fixed weights: the fixed evaluation can leave the 9-bit range, so
# this configuration exercises the saturation logic of the RTL.
HEAVY = Weights(mobility=8, stable=4, terminal=8)


def saturate(value: int) -> int:
    """Clamp to the 9-bit signed range -256..255 (saturate, never wrap)."""
    return max(VALUE_MIN, min(VALUE_MAX, value))


@dataclass(frozen=True)
class Evaluation:
    """Every term and result of :func:`evaluate`; pairs are (own, opp)."""

    corners: tuple[int, int]
    xsquares: tuple[int, int]
    mobility: tuple[int, int]
    stable: tuple[int, int]
    discs: tuple[int, int]
    terminal: bool
    stage: int
    fixed: int
    adaptive: int
    fixed_raw: int
    adaptive_raw: int
    done_cycle: int

    @property
    def stage_name(self) -> str:
        return STAGES[self.stage]

    def to_dict(self) -> dict:
        """JSON-ready summary (the form the test bench and the CLI print)."""
        return {
            "corners": list(self.corners),
            "xsquares": list(self.xsquares),
            "mobility": list(self.mobility),
            "stable": list(self.stable),
            "discs": list(self.discs),
            "stage": self.stage_name,
            "fixed": self.fixed,
            "adaptive": self.adaptive,
            "terminal": self.terminal,
        }


# Fields of the tuple :func:`evaluation_terms` returns, in order.
TERM_FIELDS = ("terminal", "stage", "corners_own", "corners_opp", "xsq_own", "xsq_opp",
               "mobility_own", "mobility_opp", "discs_own", "discs_opp", "stable_own", "stable_opp",
               "fixed", "adaptive", "fixed_raw", "adaptive_raw", "done_cycle")
(T_TERMINAL, T_STAGE, T_CORNERS_OWN, T_CORNERS_OPP, T_XSQ_OWN, T_XSQ_OPP, T_MOBILITY_OWN,
 T_MOBILITY_OPP, T_DISCS_OWN, T_DISCS_OPP, T_STABLE_OWN, T_STABLE_OPP, T_FIXED, T_ADAPTIVE,
 T_FIXED_RAW, T_ADAPTIVE_RAW, T_DONE_CYCLE) = range(len(TERM_FIELDS))

# The search evaluates the same discs of one colour again and again (a colour's stable set
# changes rarely from move to move): the stable-disc summary of a bitboard is memoised. The
# memo is emptied when it reaches this many entries, so that memory stays flat.
STABLE_MEMO_SIZE = 1 << 17
_stable_memo: dict = {}
_NOTHING_STABLE = (0, 1)


def stable_summary(own: int) -> tuple[int, int]:
    """(number of stable discs of ``own``, hardware iterations): the count after the last
    element of :func:`golden.stable.stable_iterations` and that list's length."""
    if not own & CORNER_MASK:
        return _NOTHING_STABLE     # stability grows from the corners only
    summary = _stable_memo.get(own)
    if summary is None:
        iterations = stable_iterations(own)
        summary = (popcount(iterations[-1]), len(iterations))
        if len(_stable_memo) >= STABLE_MEMO_SIZE:
            _stable_memo.clear()
        _stable_memo[own] = summary
    return summary


def weight_tables(weights: Weights) -> tuple:
    """(corner, xsquare, mobility, stable, terminal, stage by disc count, adaptive weights by
    stage): each Weights' numbers, looked up once instead of at every evaluation."""
    tables = _WEIGHT_TABLES.get(weights)
    if tables is None:
        tables = (weights.corner, weights.xsquare, weights.mobility, weights.stable, weights.terminal,
                  tuple(weights.stage(discs) for discs in range(SIZE * SIZE + 1)),
                  tuple(weights.adaptive_weights(stage) for stage in range(len(STAGES))))
        _WEIGHT_TABLES[weights] = tables
    return tables


_WEIGHT_TABLES: dict = {}


def evaluation_terms(own: int, opp: int, own_moves: int, opp_moves: int, weights: Weights = DEFAULT) -> tuple:
    """Every term of the evaluation as a plain tuple (fields TERM_FIELDS), given both sides'
    legal-move vectors (the search has already computed them)."""
    return evaluation_terms_8x8(own, opp, own_moves, opp_moves, weight_tables(weights))


def make_terms(popcount, stable_summary, corner_mask, x_mask):
    """The search's inner-loop evaluation for one representation of bitboards (Python ints,
    or golden.words' machine words): given its popcount, stable summary and masks, a function
    (own, opp, own_moves, opp_moves, tables) -> the tuple of TERM_FIELDS, ``tables`` from
    :func:`weight_tables`."""

    def terms(own, opp, own_moves, opp_moves, tables):
        corner_w, xsquare_w, mobility_w, stable_w, terminal_w, stages, adaptive_w = tables
        stable_own, iterations_own = stable_summary(own)
        stable_opp, iterations_opp = stable_summary(opp)
        corners_own, corners_opp = popcount(own & corner_mask), popcount(opp & corner_mask)
        xsq_own, xsq_opp = popcount(own & x_mask), popcount(opp & x_mask)
        mobility_own, mobility_opp = popcount(own_moves), popcount(opp_moves)
        discs_own, discs_opp = popcount(own), popcount(opp)
        stage = stages[discs_own + discs_opp]
        terminal = not own_moves and not opp_moves
        if terminal:
            fixed_raw = adaptive_raw = terminal_w * (discs_own - discs_opp)
        else:
            fixed_raw = (corner_w * (corners_own - corners_opp) + xsquare_w * (xsq_own - xsq_opp)
                         + mobility_w * (mobility_own - mobility_opp) + stable_w * (stable_own - stable_opp))
            w_mobility, w_stability, w_corners, w_discs = adaptive_w[stage]
            adaptive_raw = (w_mobility * (mobility_own - mobility_opp) + w_stability * (stable_own - stable_opp)
                            + w_corners * (corners_own - corners_opp) + w_discs * (discs_own - discs_opp))
        fixed = VALUE_MIN if fixed_raw < VALUE_MIN else VALUE_MAX if fixed_raw > VALUE_MAX else fixed_raw
        adaptive = VALUE_MIN if adaptive_raw < VALUE_MIN else VALUE_MAX if adaptive_raw > VALUE_MAX else adaptive_raw
        # Both stable evaluators start on the same edge; done when both are.
        done_cycle = (iterations_own if iterations_own > iterations_opp else iterations_opp) - 1
        return (terminal, stage, corners_own, corners_opp, xsq_own, xsq_opp, mobility_own, mobility_opp,
                discs_own, discs_opp, stable_own, stable_opp, fixed, adaptive, fixed_raw, adaptive_raw,
                done_cycle)

    return terms


evaluation_terms_8x8 = make_terms(popcount, stable_summary, CORNER_MASK, X_MASK)


def evaluate(pos: Position, weights: Weights = DEFAULT) -> Evaluation:
    """Evaluate ``pos`` from the point of view of the side to move."""
    if pos.size != SIZE:
        raise BoardError(f"the evaluator is defined for the {SIZE}x{SIZE} board, got size {pos.size}")
    if not isinstance(weights, Weights):
        raise TypeError(f"weights must be a Weights, got {type(weights).__name__}")
    own, opp = pos.own, pos.opp
    t = evaluation_terms(own, opp, legal_moves(own, opp), legal_moves(opp, own), weights)
    return Evaluation(
        corners=(t[T_CORNERS_OWN], t[T_CORNERS_OPP]),
        xsquares=(t[T_XSQ_OWN], t[T_XSQ_OPP]),
        mobility=(t[T_MOBILITY_OWN], t[T_MOBILITY_OPP]),
        stable=(t[T_STABLE_OWN], t[T_STABLE_OPP]),
        discs=(t[T_DISCS_OWN], t[T_DISCS_OPP]),
        terminal=t[T_TERMINAL],
        stage=t[T_STAGE],
        fixed=t[T_FIXED],
        adaptive=t[T_ADAPTIVE],
        fixed_raw=t[T_FIXED_RAW],
        adaptive_raw=t[T_ADAPTIVE_RAW],
        done_cycle=t[T_DONE_CYCLE],
    )
