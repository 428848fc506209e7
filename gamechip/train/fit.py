"""The least-squares fit of the pattern weights (numpy and scipy: the ``train`` extra).

Per stage, one sparse linear system: a row per corpus position of that stage, a column per
weight the stage's tables hold *up to symmetry* (the entries golden.patterns.symmetric_indexes
ties together are one column, so the file's tables come out symmetric and the value invariant
under the 8 symmetries), a 1 for every instance's entry; the right-hand side is the position's
label in quarter discs. scipy's LSQR solves it with Tikhonov damping ``damp`` (it minimises
|Ax - b|^2 + damp^2 |x|^2: a weight seen in few positions stays near 0), the damping chosen per
stage among several by the error on validation games. The weights are rounded to integers and
clamped to golden.patterns' weight range. The labels are the games' results, or bootstrapped
from the end of the game (:func:`bootstrap_labels`: finer teacher bins, each labelled by the
next one's fitted values).

Deterministic: the same corpus, stage limits and damping give the same weights (LSQR's
arithmetic is sequential; the rounding absorbs the last bits).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gamechip.installation import require
from golden.patterns import INSTANCES, PATTERN_NAMES, PATTERNS, UNITS_PER_DISC, VALUE_MAX, VALUE_MIN, WEIGHT_MAX, \
    WEIGHT_MIN, PatternWeights, self_maps, table_size


def _numpy():
    require("train", "the pattern evaluator's training")
    # One BLAS thread: the fit's vectors are small (threads only contend on a shared machine),
    # and a reduction's order, hence its last bits, then never depends on the thread count.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    import numpy
    import scipy.sparse
    import scipy.sparse.linalg
    return numpy, scipy


def table_columns(pattern: str):
    """(column of every index of ``pattern``'s table, number of columns): symmetric orderings
    of one instance's contents share a column."""
    np, _ = _numpy()
    length = len(PATTERNS[pattern])
    powers = 3 ** np.arange(length, dtype=np.int64)
    indexes = np.arange(table_size(pattern), dtype=np.int64)
    digits = (indexes[:, None] // powers[None, :]) % 3
    canonical = indexes.copy()
    for order in self_maps(pattern)[1:]:
        canonical = np.minimum(canonical, digits[:, list(order)] @ powers)
    _, columns = np.unique(canonical, return_inverse=True)
    return columns.reshape(-1), int(columns.max()) + 1


def instance_indexes(own, opp):
    """The index of every instance (columns, INSTANCES order) of every position (rows), given
    the side to move's and the other side's bitboards as sequences of Python ints."""
    np, _ = _numpy()
    own = np.array(own, dtype=np.uint64)
    opp = np.array(opp, dtype=np.uint64)
    shifts = np.arange(64, dtype=np.uint64)
    digits = ((own[:, None] >> shifts) & np.uint64(1)).astype(np.int64) \
        + 2 * ((opp[:, None] >> shifts) & np.uint64(1)).astype(np.int64)
    out = np.empty((len(own), len(INSTANCES)), dtype=np.int64)
    for number, instance in enumerate(INSTANCES):
        powers = 3 ** np.arange(len(instance.squares), dtype=np.int64)
        out[:, number] = digits[:, list(instance.squares)] @ powers
    return out


class PatternSystem:
    """The least-squares system of a set of positions: every position's column (weight up to
    symmetry) of every instance, the solve of any subset of rows against any labels, and the
    value of fitted weights on any rows. ``own``, ``opp``: the side to move's and the other
    side's bitboards."""

    def __init__(self, own, opp):
        np, self.scipy = _numpy()
        indexes = instance_indexes(own, opp)
        self.columns, offsets, total = [], [], 0
        for name in PATTERN_NAMES:
            table, count = table_columns(name)
            self.columns.append(table)
            offsets.append(total)
            total += count
        self.offsets, self.total = offsets, total
        self.column_matrix = np.empty_like(indexes)
        for number, instance in enumerate(INSTANCES):
            pattern = PATTERN_NAMES.index(instance.pattern)
            self.column_matrix[:, number] = self.columns[pattern][indexes[:, number]] + offsets[pattern]

    def solve(self, rows, targets, damp):
        """(weights rounded and clamped to the weight range, one per column; LSQR's iterations):
        the damped least-squares fit of ``targets`` (quarter discs, one per row of ``rows``)."""
        np, scipy = _numpy()
        width = len(INSTANCES)
        matrix = scipy.sparse.csr_matrix(
            (np.ones(len(rows) * width), self.column_matrix[rows].reshape(-1),
             np.arange(0, len(rows) * width + 1, width)), shape=(len(rows), self.total))
        solution = scipy.sparse.linalg.lsqr(matrix, targets, damp=damp, atol=1e-10, btol=1e-10, iter_lim=2000)
        return np.clip(np.rint(solution[0]), WEIGHT_MIN, WEIGHT_MAX).astype(np.int64), int(solution[2])

    def values(self, weights, rows):
        """The saturated value (quarter discs) of ``weights`` (one per column) on ``rows``."""
        np, _ = _numpy()
        return np.clip(weights[self.column_matrix[rows]].sum(axis=1), VALUE_MIN, VALUE_MAX)

    def tables(self, weights):
        """``weights`` (one per column) as a stage's tables, one tuple per pattern."""
        return tuple(tuple(int(w) for w in weights[self.columns[p] + self.offsets[p]])
                     for p in range(len(PATTERN_NAMES)))


def bootstrap_labels(system, labels, exact, discs, games, white, train_mask, width, blend, damp, progress=None):
    """Labels (discs, from the side to move) bootstrapped stage-wise from the end of the game, as
    strong Othello programs train: positions are binned by disc count, ``width`` counts a bin,
    and the bins are fitted from the last to the first. A position's target is the value of
    the first later position of its game with at least ``width`` more discs (in the next bin):
    its exact value when that position lies on the perfect line (the game's result), else the
    next bin's fitted value of it, blended with the game's result as ``blend`` x that value +
    (1 - ``blend``) x the result; the game's result when the game ends before. A bin's teacher
    weights are fitted on its training positions (``train_mask``) with damping ``damp``, and
    value every position of the bin. Exact labels stay. ``labels``, ``exact``, ``discs``,
    ``games``, ``white`` (white to move) and ``train_mask`` are parallel arrays in game order,
    each game's positions in play order. The teacher bins exist only in the training: the
    weight file's stages are fitted on the targets afterwards."""
    np, _ = _numpy()
    labels = np.asarray(labels, dtype=np.float64)
    exact, white = np.asarray(exact, dtype=bool), np.asarray(white, dtype=bool)
    discs, games = np.asarray(discs, dtype=np.int64), np.asarray(games, dtype=np.int64)
    train_mask = np.asarray(train_mask, dtype=bool)
    key = games * 128 + discs                     # nondecreasing: games in order, discs within a game
    later = np.searchsorted(key, key + width, side="left")
    has_later = later < len(key)
    has_later[has_later] = games[later[has_later]] == games[has_later]
    later = np.where(has_later, later, 0)
    targets = labels.copy()
    teacher = np.zeros(len(labels))               # a bin's fitted value of each of its positions, discs
    bins = (discs - 4) // width
    for number in range(int(bins.max()), -1, -1):
        rows = np.nonzero(bins == number)[0]
        if not len(rows):
            continue
        taught = rows[has_later[rows] & ~exact[rows] & ~exact[later[rows]]]
        sign = np.where(white[taught] == white[later[taught]], 1.0, -1.0)
        targets[taught] = blend * sign * teacher[later[taught]] + (1 - blend) * labels[taught]
        fit_rows = rows[train_mask[rows]]
        if progress:
            progress(f"bootstrap: discs {4 + number * width}-{3 + (number + 1) * width}: {len(taught)} of "
                     f"{len(rows)} positions taught by the next bin, fitting {len(fit_rows)}")
        weights, _ = system.solve(fit_rows, targets[fit_rows] * UNITS_PER_DISC, damp)
        teacher[rows] = system.values(weights, rows) / UNITS_PER_DISC
    return targets


@dataclass
class StageFit:
    """One stage's fit: positions used, the damping chosen (and the validation RMSE of every
    damping tried), and the root-mean-square error in discs of the rounded weights on the
    training and the held-back positions against the labels fitted, beside that of always
    answering 0, and on the held-back positions against the games' results."""

    stage: int
    train_positions: int
    test_positions: int
    damp: float
    validation_rmse: dict
    train_rmse: float
    test_rmse: float
    test_rmse_zero: float
    lsqr_iterations: int
    test_rmse_results: float


def fit_weights(own, opp, labels, stages, train_mask, stage_limits, damps, validation_mask=None, progress=None,
                system=None, results=None):
    """Fit every stage; (PatternWeights without provenance, list of StageFit). ``own``, ``opp``,
    ``labels`` (discs, from the side to move), ``stages`` (stage of each position) and
    ``train_mask`` (True: a training position, False: held back for the test) are parallel
    sequences. With several ``damps``, each stage first fits the training positions outside
    ``validation_mask`` with each damping, keeps the one with the least error on the validation
    positions, and fits all training positions with it. ``system``: the PatternSystem of
    ``own``, ``opp`` when the caller has it; ``results``: the games' results (discs, side to
    move) when ``labels`` are other targets (the test error is given against both)."""
    np, _ = _numpy()
    system = system or PatternSystem(own, opp)
    labels = np.asarray(labels, dtype=np.float64) * UNITS_PER_DISC
    results = labels if results is None else np.asarray(results, dtype=np.float64) * UNITS_PER_DISC
    stages = np.asarray(stages)
    train_mask = np.asarray(train_mask, dtype=bool)
    validation_mask = np.zeros_like(train_mask) if validation_mask is None else np.asarray(validation_mask, dtype=bool)

    def rmse(weights, subset, against=labels):
        if not len(subset):
            return float("nan")
        return float(np.sqrt(np.mean((system.values(weights, subset) - against[subset]) ** 2))) / UNITS_PER_DISC

    all_tables, fits = [], []
    for stage in range(len(stage_limits) + 1):
        rows = np.nonzero(stages == stage)[0]
        train, test = rows[train_mask[rows]], rows[~train_mask[rows]]
        validation_rmse = {}
        if len(damps) > 1:
            fit_rows, check_rows = train[~validation_mask[train]], train[validation_mask[train]]
            for damp in damps:
                if progress:
                    progress(f"stage {stage}: damping {damp}: fitting {len(fit_rows)} positions, "
                             f"validating on {len(check_rows)}")
                validation_rmse[damp] = round(rmse(system.solve(fit_rows, labels[fit_rows], damp)[0], check_rows), 4)
            damp = min(damps, key=lambda d: (validation_rmse[d], d))
        else:
            damp = damps[0]
        if progress:
            progress(f"stage {stage}: damping {damp}: fitting {len(train)} positions, {system.total} weights")
        weights, iterations = system.solve(train, labels[train], damp)
        zero = float(np.sqrt(np.mean(labels[test] ** 2))) / UNITS_PER_DISC if len(test) else float("nan")
        fits.append(StageFit(stage, len(train), len(test), damp, validation_rmse, rmse(weights, train),
                             rmse(weights, test), zero, iterations, rmse(weights, test, results)))
        all_tables.append(system.tables(weights))
    return PatternWeights(tuple(stage_limits), tuple(all_tables)), fits
