"""Weights as ConTree's repeated rows (optitrees/algorithms/oct/contree.py): exact units, rounding down, and
the lower bound a search on rounded weights gives, checked against every stump by brute force."""

import numpy as np
import pytest

from optitrees.algorithms.oct.contree import (EXACT_ROWS_FACTOR, MAX_REPEATED_ROWS, ROUNDED_ROWS_FACTOR,
                                              contree_tree, multiplicities, rounded_bound)


def test_whole_numbers_are_rows_repeated():
    m = multiplicities(np.array([1.0, 2.0, 3.0, 0.0]))
    assert m.exact and m.unit == 1.0 and m.lost == 0.0
    np.testing.assert_array_equal(m.counts, [1, 2, 3, 0])
    assert multiplicities(None) is None


@pytest.mark.parametrize("weights,unit,counts", [
    ([0.5, 1.5, 0.5], 0.5, [1, 3, 1]),              # class weights {0: 0.5, 1: 1.5}
    ([4.0, 6.0, 4.0], 2.0, [2, 3, 2]),              # whole numbers with a common divisor: fewer rows
    ([0.3, 0.2, 0.5], 0.1, [3, 2, 5]),
])
def test_weights_with_a_common_unit_are_exact(weights, unit, counts):
    m = multiplicities(np.array(weights))
    assert m.exact and m.unit == pytest.approx(unit, rel=1e-12) and m.lost == 0.0
    np.testing.assert_array_equal(m.counts, counts)
    np.testing.assert_allclose(m.counts * m.unit, weights, rtol=1e-12)


def test_balanced_weights_are_exact_when_the_classes_share_a_large_divisor():
    y = np.r_[np.zeros(300), np.ones(100)]
    w = np.where(y == 1, 400 / 200, 400 / 600)                      # "balanced": n / (2 n_c)
    m = multiplicities(w)
    assert m.exact and m.counts.sum() == 300 * 1 + 100 * 3


def test_other_weights_are_rounded_down_in_a_few_times_the_rows():
    rng = np.random.default_rng(0)
    y = (rng.random(1000) < 0.27).astype(int)
    n1 = y.sum()
    w = np.where(y == 1, 1000 / (2 * n1), 1000 / (2 * (1000 - n1)))    # ratio 729 / 271: no small common unit
    m = multiplicities(w)
    assert not m.exact and m.counts.sum() <= ROUNDED_ROWS_FACTOR * len(w)
    assert np.all(m.counts * m.unit <= w * (1 + 1e-9)) and np.all(m.counts >= 1)
    assert m.lost == pytest.approx((w - m.counts * m.unit).sum() / w.sum(), abs=1e-12) and 0 < m.lost < 0.02
    smooth = multiplicities(np.linspace(0.5, 1.5, 200))             # many distinct weights
    assert not smooth.exact and smooth.counts.sum() <= ROUNDED_ROWS_FACTOR * 200
    assert np.all(smooth.counts * smooth.unit <= np.linspace(0.5, 1.5, 200) * (1 + 1e-9))


def test_exact_units_are_taken_in_few_rows_only():
    w = np.r_[np.ones(10), np.full(10, 1.001)]                       # exact at unit 0.001: 1000x the rows
    m = multiplicities(w)
    assert not m.exact and 1000 * 20 > EXACT_ROWS_FACTOR * 20
    whole = multiplicities(np.r_[np.ones(10), np.full(10, 999.0)])  # whole numbers are rows: taken up to the cap
    assert whole.exact and whole.counts.sum() <= MAX_REPEATED_ROWS


def test_all_zero_weights_are_refused():
    with pytest.raises(ValueError, match="every sample weight is 0"):
        multiplicities(np.zeros(4))


def _best_stump(X, y, w, L_hat, alpha):
    """The least ``weighted errors / L_hat + alpha * splits`` of a leaf or any stump, by enumeration."""
    best = (w.sum() - max(w[y == c].sum() for c in (0, 1))) / L_hat
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in (values[:-1] + values[1:]) / 2:
            left = X[:, j] <= t
            errors = sum(w[side].sum() - max(w[side & (y == c)].sum() for c in (0, 1)) for side in (left, ~left))
            best = min(best, errors / L_hat + alpha)
    return best


@pytest.mark.parametrize("seed", range(4))
def test_contree_on_rounded_weights_bounds_the_weighted_optimum(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(60, 2)).astype(float)
    y = ((X[:, 0] + rng.normal(0, 1.5, 60)) > 2.5).astype(int)
    w = rng.uniform(0.4, 2.5, 60)
    L_hat = w.sum() - max(w[y == c].sum() for c in (0, 1))
    alpha = 0.01
    m = multiplicities(w)
    assert not m.exact
    tree, proven, _ = contree_tree(X, y, 1, alpha, L_hat / m.unit, 2, 30, None, m.counts)
    assert proven
    bound = rounded_bound(tree, X, y, m.counts, m.unit, L_hat, alpha)
    optimum = _best_stump(X, y, w, L_hat, alpha)
    weighted = float(w @ (tree.with_counts(X, y, relabel="all", sample_weight=w).predict(X) != y)) / L_hat \
        + alpha * tree.n_splits()
    assert bound <= optimum + 1e-12 <= weighted + 2e-12
    assert optimum - bound <= m.lost * w.sum() / L_hat + 1e-12       # the gap is at most the weight dropped
