"""The least-squares fit of the pattern weights (numpy and scipy: the ``train`` extra).

Per stage, one sparse linear system: a row per corpus position of that stage, a column per
weight the stage's tables hold *up to symmetry* (the entries golden.patterns.symmetric_indexes
ties together are one column, so the file's tables come out symmetric and the value invariant
under the 8 symmetries), a 1 for every instance's entry; the right-hand side is the position's
label in quarter discs. scipy's LSQR solves it with Tikhonov damping ``damp`` (it minimises
|Ax - b|^2 + damp^2 |x|^2: a weight seen in few positions stays near 0), the damping chosen per
stage among several by the error on validation games. The weights are rounded to integers and
clamped to golden.patterns' weight range.

Deterministic: the same corpus, stage limits and damping give the same weights (LSQR's
arithmetic is sequential; the rounding absorbs the last bits).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gamechip.installation import require
from golden.patterns import INSTANCES, PATTERN_NAMES, PATTERNS, UNITS_PER_DISC, WEIGHT_MAX, WEIGHT_MIN, \
    PatternWeights, self_maps, table_size


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


@dataclass
class StageFit:
    """One stage's fit: positions used, the damping chosen (and the validation RMSE of every
    damping tried), and the root-mean-square error in discs of the rounded weights on the
    training and the held-back positions, beside that of always answering 0."""

    stage: int
    train_positions: int
    test_positions: int
    damp: float
    validation_rmse: dict
    train_rmse: float
    test_rmse: float
    test_rmse_zero: float
    lsqr_iterations: int


def fit_weights(own, opp, labels, stages, train_mask, stage_limits, damps, validation_mask=None, progress=None):
    """Fit every stage; (PatternWeights without provenance, list of StageFit). ``own``, ``opp``,
    ``labels`` (discs, from the side to move), ``stages`` (stage of each position) and
    ``train_mask`` (True: a training position, False: held back for the test) are parallel
    sequences. With several ``damps``, each stage first fits the training positions outside
    ``validation_mask`` with each damping, keeps the one with the least error on the validation
    positions, and fits all training positions with it."""
    np, scipy = _numpy()
    indexes = instance_indexes(own, opp)
    labels = np.asarray(labels, dtype=np.float64) * UNITS_PER_DISC
    stages = np.asarray(stages)
    train_mask = np.asarray(train_mask, dtype=bool)
    validation_mask = np.zeros_like(train_mask) if validation_mask is None else np.asarray(validation_mask, dtype=bool)
    columns, offsets, total = [], [], 0
    for name in PATTERN_NAMES:
        table, count = table_columns(name)
        columns.append(table)
        offsets.append(total)
        total += count
    pattern_of = [PATTERN_NAMES.index(instance.pattern) for instance in INSTANCES]
    column_matrix = np.empty_like(indexes)
    for number, pattern in enumerate(pattern_of):
        column_matrix[:, number] = columns[pattern][indexes[:, number]] + offsets[pattern]

    def solve(rows, damp):
        matrix = scipy.sparse.csr_matrix(
            (np.ones(len(rows) * len(INSTANCES)), column_matrix[rows].reshape(-1),
             np.arange(0, len(rows) * len(INSTANCES) + 1, len(INSTANCES))), shape=(len(rows), total))
        solution = scipy.sparse.linalg.lsqr(matrix, labels[rows], damp=damp, atol=1e-10, btol=1e-10, iter_lim=2000)
        return np.clip(np.rint(solution[0]), WEIGHT_MIN, WEIGHT_MAX).astype(np.int64), int(solution[2])

    def rmse(weights, subset):
        if not len(subset):
            return float("nan")
        predicted = np.clip(weights[column_matrix[subset]].sum(axis=1), -256, 255)
        return float(np.sqrt(np.mean((predicted - labels[subset]) ** 2))) / UNITS_PER_DISC

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
                validation_rmse[damp] = round(rmse(solve(fit_rows, damp)[0], check_rows), 4)
            damp = min(damps, key=lambda d: (validation_rmse[d], d))
        else:
            damp = damps[0]
        if progress:
            progress(f"stage {stage}: damping {damp}: fitting {len(train)} positions, {total} weights")
        weights, iterations = solve(train, damp)
        zero = float(np.sqrt(np.mean(labels[test] ** 2))) / UNITS_PER_DISC if len(test) else float("nan")
        fits.append(StageFit(stage, len(train), len(test), damp, validation_rmse, rmse(weights, train),
                             rmse(weights, test), zero, iterations))
        all_tables.append(tuple(tuple(int(w) for w in weights[columns[p] + offsets[p]])
                                for p in range(len(PATTERN_NAMES))))
    return PatternWeights(tuple(stage_limits), tuple(all_tables)), fits
