"""The pattern evaluator's golden side (issue 46; docs/pattern-evaluator.md): the pattern set,
its instances on the board, the ternary index of an instance, the game stages, the weight file
and the value of a position, from the side to move.

**Patterns.** A pattern is an ordered list of squares (:data:`PATTERNS`); its *instances* are
its images under the 8 symmetries of the square (Othello's rules do not change under any of
them), one instance per distinct set of squares, 38 in all:

============  =======  =========  ==============================================
pattern       squares  instances  base squares (the first instance)
============  =======  =========  ==============================================
edge          8        4          A1..H1
row2          8        4          A2..H2 (with the X-squares B2, G2)
row3          8        4          A3..H3
row4          8        4          A4..H4
diag8         8        2          A1, B2, ... H8
diag7         7        4          B1, C2, ... H7
diag6         6        4          C1 ... H6
diag5         5        4          D1 ... H5
diag4         4        4          E1 ... H4
corner3x3     9        4          A1 B1 C1 / A2 B2 C2 / A3 B3 C3
============  =======  =========  ==============================================

**Index.** An instance's squares, in its order, are the digits of a base-3 number, the first
square the least significant: empty 0, the side to move's disc 1, the other side's disc 2.
Each pattern has one weight table of 3^n entries per stage (n squares), shared by its instances
(the hardware reads one table for all of them, docs/pattern-evaluator.md).

**Symmetric tables.** Some symmetries map an instance onto its own squares in another order
(the edge reversed, the corner transposed); a weight file's tables give such orderings equal
weights (:func:`check_symmetric`), so the value is the same for the 8 images of a position.

**Stages.** The number of discs on the board picks the stage: stage ``k`` holds the disc counts
up to ``stage_limits[k]`` (the last stage the rest), as the seed's evaluator does (spec §4).

**Value** (from the side to move, in quarter discs): the sum of every instance's weight in the
stage's tables, saturated to -256..255 (spec §0, the search's registers); a terminal position
(neither side can move) is worth 4 x (own discs - opp discs), saturated the same way, the
search's exact end. A quarter disc is the unit so that the 9-bit value covers the whole disc
range -64..64.

This module computes indexes with powers of 3 over square lists; golden/slow.py's
:func:`slow_pattern_value` computes the same value on a grid of characters, walking each
pattern's squares by row and column.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from golden.board import BoardError, Position, popcount
from golden.othello import legal_moves
from golden.symmetry import MIRRORS, SYMMETRIES, transform_square

SIZE = 8
EMPTY, OWN, OPP = 0, 1, 2          # the ternary digits of an instance's index
UNITS_PER_DISC = 4                 # the value's unit is a quarter disc
VALUE_MIN, VALUE_MAX = -256, 255   # spec §0: the search's 9-bit values
WEIGHT_BITS = 8                    # a weight is a signed 8-bit number: -128..127 quarter discs
WEIGHT_MIN, WEIGHT_MAX = -(1 << (WEIGHT_BITS - 1)), (1 << (WEIGHT_BITS - 1)) - 1
# spec §13: the hardware block answers (done) in this cycle after its start edge, cycle 0 being
# the first cycle after it, for every board (two reads of every table, one per cycle)
PATTERN_DONE_CYCLE = 1


def _squares(*names: str) -> tuple:
    return tuple((int(name[1]) - 1) * SIZE + "ABCDEFGH".index(name[0]) for name in names)


# name -> base squares, in index order (first square = least significant ternary digit)
PATTERNS = {
    "edge": _squares("A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1"),
    "row2": _squares("A2", "B2", "C2", "D2", "E2", "F2", "G2", "H2"),
    "row3": _squares("A3", "B3", "C3", "D3", "E3", "F3", "G3", "H3"),
    "row4": _squares("A4", "B4", "C4", "D4", "E4", "F4", "G4", "H4"),
    "diag8": _squares("A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8"),
    "diag7": _squares("B1", "C2", "D3", "E4", "F5", "G6", "H7"),
    "diag6": _squares("C1", "D2", "E3", "F4", "G5", "H6"),
    "diag5": _squares("D1", "E2", "F3", "G4", "H5"),
    "diag4": _squares("E1", "F2", "G3", "H4"),
    "corner3x3": _squares("A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"),
}
PATTERN_NAMES = tuple(PATTERNS)


class WeightFileError(BoardError):
    """A weight file that cannot be read or does not fit the pattern set (one line)."""


@lru_cache(maxsize=None)
def board_symmetries() -> tuple:
    """The 8 symmetries of the square as square permutations (tuple of 64 images each): the
    closure of golden/symmetry.py's maps under composition, identity first, in a fixed order."""
    generators = [tuple(transform_square(name, sq) for sq in range(SIZE * SIZE)) for name in SYMMETRIES + MIRRORS]
    group = [tuple(range(SIZE * SIZE))]
    frontier = list(group)
    while frontier:
        grown = []
        for perm in frontier:
            for gen in generators:
                composed = tuple(gen[perm[sq]] for sq in range(SIZE * SIZE))
                if composed not in group:
                    group.append(composed)
                    grown.append(composed)
        frontier = grown
    return tuple(group)


@dataclass(frozen=True)
class Instance:
    """One pattern instance: its pattern and its squares, in index order."""

    pattern: str
    squares: tuple


@lru_cache(maxsize=None)
def pattern_instances(pattern: str) -> tuple:
    """The instances of ``pattern``: its images under :func:`board_symmetries`, the first image
    of each distinct set of squares."""
    base = PATTERNS[pattern]
    seen, out = set(), []
    for perm in board_symmetries():
        image = tuple(perm[sq] for sq in base)
        if frozenset(image) not in seen:
            seen.add(frozenset(image))
            out.append(Instance(pattern, image))
    return tuple(out)


INSTANCES = tuple(inst for name in PATTERN_NAMES for inst in pattern_instances(name))
PATTERN_NUMBER = {name: number for number, name in enumerate(PATTERN_NAMES)}   # a pattern's table position


@lru_cache(maxsize=None)
def self_maps(pattern: str) -> tuple:
    """The reorderings of ``pattern``'s digits that a symmetry keeping its squares makes: each
    a tuple ``p`` with digit k of the image read from digit ``p[k]`` (the identity first)."""
    base = PATTERNS[pattern]
    out = []
    for perm in board_symmetries():
        image = tuple(perm[sq] for sq in base)
        if frozenset(image) == frozenset(base):
            order = tuple(base.index(sq) for sq in image)
            if order not in out:
                out.append(order)
    return tuple(out)


def table_size(pattern: str) -> int:
    return 3 ** len(PATTERNS[pattern])


def digits_of(index: int, length: int) -> list:
    out = []
    for _ in range(length):
        index, digit = divmod(index, 3)
        out.append(digit)
    return out


def index_of(digits) -> int:
    index = 0
    for digit in reversed(digits):
        index = index * 3 + digit
    return index


def symmetric_indexes(pattern: str, index: int) -> tuple:
    """The indexes that symmetries keeping ``pattern``'s squares give the same contents: the
    entries a weight file must keep equal (``index`` first)."""
    digits = digits_of(index, len(PATTERNS[pattern]))
    out = []
    for order in self_maps(pattern):
        image = index_of([digits[k] for k in order])
        if image not in out:
            out.append(image)
    return tuple(out)


def instance_index(instance: Instance, own: int, opp: int) -> int:
    """The ternary index of ``instance`` for the side to move's discs ``own`` and the other
    side's ``opp``."""
    index = 0
    for sq in reversed(instance.squares):
        index = index * 3 + (OWN if own >> sq & 1 else OPP if opp >> sq & 1 else EMPTY)
    return index


@dataclass(frozen=True)
class PatternWeights:
    """A weight file's content: ``tables[stage][pattern]`` the weights (tuple of 3^n
    signed ints, WEIGHT_MIN..WEIGHT_MAX), ``stage_limits`` the largest disc count of every stage
    but the last, ``provenance`` the header's free lines (command, seed, corpus digest)."""

    stage_limits: tuple
    tables: tuple
    provenance: tuple = ()

    @property
    def stages(self) -> int:
        return len(self.stage_limits) + 1

    def stage(self, discs: int) -> int:
        for number, limit in enumerate(self.stage_limits):
            if discs <= limit:
                return number
        return len(self.stage_limits)

    def check(self) -> None:
        limits = self.stage_limits
        if not all(isinstance(x, int) for x in limits) or list(limits) != sorted(set(limits)) \
                or (limits and not (4 <= limits[0] and limits[-1] < SIZE * SIZE)):
            raise WeightFileError(f"stage limits must be increasing disc counts 4..63, got {list(limits)}")
        if len(self.tables) != self.stages:
            raise WeightFileError(f"{self.stages} stages need {self.stages} table sets, got {len(self.tables)}")
        for stage, tables in enumerate(self.tables):
            if len(tables) != len(PATTERN_NAMES):
                raise WeightFileError(f"stage {stage}: {len(PATTERN_NAMES)} tables expected, got {len(tables)}")
            for name, table in zip(PATTERN_NAMES, tables):
                if len(table) != table_size(name):
                    raise WeightFileError(f"stage {stage} table {name}: {table_size(name)} weights expected, "
                                          f"got {len(table)}")
                for index, weight in enumerate(table):
                    if not WEIGHT_MIN <= weight <= WEIGHT_MAX:
                        raise WeightFileError(f"stage {stage} table {name} index {index}: weight {weight} is "
                                              f"outside {WEIGHT_MIN}..{WEIGHT_MAX}")


@lru_cache(maxsize=None)
def symmetric_pairs(pattern: str) -> tuple:
    """(index, other index) of every entry of ``pattern``'s table that a symmetric ordering
    reads instead (index < other): the pairs a weight file keeps equal."""
    pairs = []
    if len(self_maps(pattern)) > 1:
        for index in range(table_size(pattern)):
            pairs.extend((index, other) for other in symmetric_indexes(pattern, index)[1:] if index < other)
    return tuple(pairs)


def check_symmetric(weights: PatternWeights) -> list:
    """(stage, pattern, index, other index) of every pair of entries that symmetric orderings
    of one instance must share and that differ: empty for a well-made file."""
    bad = []
    for stage, tables in enumerate(weights.tables):
        for name, table in zip(PATTERN_NAMES, tables):
            bad.extend((stage, name, index, other) for index, other in symmetric_pairs(name)
                       if table[index] != table[other])
    return bad


# ---------------------------------------------------------------- the value

@dataclass(frozen=True)
class PatternTerm:
    """One instance's part of a value: its number, pattern, squares, index and weight."""

    instance: int
    pattern: str
    squares: tuple
    index: int
    weight: int


@dataclass(frozen=True)
class PatternEvaluation:
    """What :func:`pattern_evaluate` found: the stage, every instance's term, the raw sum, the
    value (saturated; the terminal value on a finished board) and whether the board is finished."""

    stage: int
    terms: tuple
    raw: int
    value: int
    terminal: bool


def saturate(value: int) -> int:
    return VALUE_MIN if value < VALUE_MIN else VALUE_MAX if value > VALUE_MAX else value


def pattern_value(own: int, opp: int, weights: PatternWeights, terminal: bool = False) -> int:
    """The value of the position (the side to move's discs ``own``, the other's ``opp``);
    ``terminal``: neither side can move (the caller knows its legal moves)."""
    if terminal:
        return saturate(UNITS_PER_DISC * (popcount(own) - popcount(opp)))
    tables = weights.tables[weights.stage(popcount(own | opp))]
    total = 0
    for instance in INSTANCES:
        total += tables[PATTERN_NUMBER[instance.pattern]][instance_index(instance, own, opp)]
    return saturate(total)


def pattern_evaluate(pos: Position, weights: PatternWeights) -> PatternEvaluation:
    """Every instance's index and weight, and the value, of ``pos`` from its side to move."""
    if pos.size != SIZE:
        raise BoardError(f"the pattern evaluator is defined for the {SIZE}x{SIZE} board, got size {pos.size}")
    own, opp = pos.own, pos.opp
    terminal = not legal_moves(own, opp) and not legal_moves(opp, own)
    stage = weights.stage(popcount(own | opp))
    terms = []
    for number, instance in enumerate(INSTANCES):
        index = instance_index(instance, own, opp)
        terms.append(PatternTerm(number, instance.pattern, instance.squares, index,
                                 weights.tables[stage][PATTERN_NUMBER[instance.pattern]][index]))
    raw = sum(term.weight for term in terms)
    value = pattern_value(own, opp, weights, terminal)
    return PatternEvaluation(stage, tuple(terms), raw, value, terminal)


# ---------------------------------------------------------------- the weight file

FORMAT = "gamechip-pattern-weights 1"
DEFAULT_WEIGHT_FILE = Path(__file__).with_name("pattern_weights.txt")


def pattern_set_digest() -> str:
    """A short digest naming the pattern set (names and squares of every pattern, in order):
    a weight file made for another set is refused."""
    text = ";".join(f"{name}:{','.join(map(str, PATTERNS[name]))}" for name in PATTERN_NAMES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def format_weights(weights: PatternWeights) -> str:
    """The weight file's text: the header (``# key: value`` lines), then per stage and pattern a
    line ``stage pattern`` and its weights, 32 a line, in index order."""
    lines = [f"# {FORMAT}",
             f"# pattern-set: {pattern_set_digest()} {' '.join(f'{n}/{len(PATTERNS[n])}' for n in PATTERN_NAMES)}",
             f"# weight-bits: {WEIGHT_BITS}",
             f"# units-per-disc: {UNITS_PER_DISC}",
             f"# stage-limits: {' '.join(map(str, weights.stage_limits))}"]
    lines += [f"# {line}" for line in weights.provenance]
    for stage, tables in enumerate(weights.tables):
        for name, table in zip(PATTERN_NAMES, tables):
            lines.append(f"table {stage} {name}")
            for start in range(0, len(table), 32):
                lines.append(" ".join(map(str, table[start:start + 32])))
    return "\n".join(lines) + "\n"


def parse_weights(text: str, source: str = "weight file") -> PatternWeights:
    """A weight file's text (:func:`format_weights`) -> PatternWeights, checked."""
    header, provenance = {}, []
    body = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            key, colon, value = line[1:].strip().partition(":")
            if key in ("pattern-set", "weight-bits", "units-per-disc", "stage-limits"):
                header[key] = value.strip()
            elif line[1:].strip() != FORMAT:
                provenance.append(line[1:].strip())
        elif line.strip():
            body.append((number, line))
    if not text.startswith(f"# {FORMAT}"):
        raise WeightFileError(f"{source}: not a pattern weight file (it must begin with '# {FORMAT}')")
    digest = header.get("pattern-set", "").split(" ")[0]
    if digest != pattern_set_digest():
        raise WeightFileError(f"{source}: made for pattern set {digest or '(none)'}, this evaluator's is "
                              f"{pattern_set_digest()}")
    if header.get("weight-bits") != str(WEIGHT_BITS) or header.get("units-per-disc") != str(UNITS_PER_DISC):
        raise WeightFileError(f"{source}: weight-bits must be {WEIGHT_BITS} and units-per-disc {UNITS_PER_DISC}")
    try:
        limits = tuple(int(x) for x in header.get("stage-limits", "").split())
    except ValueError:
        raise WeightFileError(f"{source}: bad stage-limits line")
    tables = [[None] * len(PATTERN_NAMES) for _ in range(len(limits) + 1)]
    current = None
    for number, line in body:
        words = line.split()
        if words[0] == "table":
            try:
                stage, name = int(words[1]), words[2]
                current = tables[stage][PATTERN_NUMBER[name]] = []
            except (IndexError, ValueError, KeyError):
                raise WeightFileError(f"{source} line {number}: expected 'table STAGE PATTERN' with a stage "
                                      f"0..{len(limits)} and a pattern of {', '.join(PATTERN_NAMES)}")
            continue
        if current is None:
            raise WeightFileError(f"{source} line {number}: weights before the first 'table' line")
        try:
            current.extend(int(w) for w in words)
        except ValueError:
            raise WeightFileError(f"{source} line {number}: weights must be integers")
    if any(table is None for stage in tables for table in stage):
        raise WeightFileError(f"{source}: a table is missing (every stage needs {', '.join(PATTERN_NAMES)})")
    weights = PatternWeights(limits, tuple(tuple(tuple(t) for t in stage) for stage in tables), tuple(provenance))
    try:
        weights.check()
    except WeightFileError as error:
        raise WeightFileError(f"{source}: {error}")
    return weights


def read_weights(path=None) -> PatternWeights:
    """The weight file at ``path`` (default: golden/pattern_weights.txt, the trained file)."""
    path = Path(path) if path else DEFAULT_WEIGHT_FILE
    try:
        text = path.read_text()
    except OSError as error:
        raise WeightFileError(f"cannot read the weight file {path}: {error.strerror}")
    return parse_weights(text, str(path))


@lru_cache(maxsize=4)
def default_weights() -> PatternWeights:
    return read_weights()
