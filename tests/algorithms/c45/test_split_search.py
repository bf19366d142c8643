"""C4.5's split search checked against direct formulas (seed 000, eqs. 2.3-2.6, 3.5-3.8)."""

import numpy as np
import pytest
from scipy.stats import norm

from optitrees.algorithms.c45.split_search import best_split, class_sums, entropy, row_entropy, soft_density


def _h(counts):
    counts = np.asarray(counts, float)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def _brute_force(X, y, w, n_classes, min_leaf, criterion):
    """Every feature and cut by the textbook formulas, one at a time."""
    total = w.sum()
    scored = []
    for j in range(X.shape[1]):
        known = ~np.isnan(X[:, j])
        xk, yk, wk = X[known, j], y[known], w[known]
        known_counts = np.bincount(yk, wk, n_classes)
        min_split = np.clip(0.1 * wk.sum() / n_classes, min_leaf, 25)
        values = np.unique(xk)
        cuts = []
        for tau in values[:-1]:
            left = np.bincount(yk[xk <= tau], wk[xk <= tau], n_classes)
            right = known_counts - left
            if left.sum() >= min_split - 1e-9 and right.sum() >= min_split - 1e-9:
                cond = (left.sum() * _h(left) + right.sum() * _h(right)) / wk.sum()
                cuts.append((_h(known_counts) - cond, tau, left.sum(), right.sum()))
        if not cuts:
            continue
        g, tau, wl, wr = max(cuts, key=lambda c: c[0])
        gain = wk.sum() / total * g - np.log2(len(cuts)) / total
        if gain <= 0:
            continue
        shares = np.array([wl, wr, total - wl - wr]) / total
        shares = shares[shares > 0]
        scored.append((j, tau, gain, gain / float(-(shares * np.log2(shares)).sum())))
    if not scored:
        return None
    if criterion == "information_gain":
        return max(scored, key=lambda s: s[2])
    average = np.mean([s[2] for s in scored])
    return max((s for s in scored if s[2] >= average - 1e-3), key=lambda s: s[3])


def test_entropy_in_bits():
    assert entropy([9, 5]) == pytest.approx(0.9403, abs=1e-4)       # Quinlan's 14-day weather data
    assert entropy([0, 4]) == 0.0 and entropy([0, 0]) == 0.0


@pytest.mark.parametrize("n_classes", [2, 3, 7])
def test_class_by_class_entropy_has_the_bits_of_numpys_reductions(n_classes):
    """Row sums and entropies added class by class equal numpy's sums along the class axis to the last bit (the
    trees must not change with the way they are computed), a non-positive total giving 0 whatever its rows."""
    rng = np.random.default_rng(n_classes)
    counts = rng.random((500, n_classes)) * rng.integers(0, 3, (500, n_classes))
    counts[:5] = 0.0
    counts[5] = [1e-17, -1e-17] + [0.0] * (n_classes - 2)               # a difference of sums: total 0
    total = class_sums(counts)
    assert np.array_equal(total, counts.sum(axis=1))
    p = np.divide(counts, total[:, None], out=np.zeros_like(counts), where=total[:, None] > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(p > 0, -p * np.log2(p), 0.0).sum(axis=1)
    assert np.array_equal(row_entropy(counts, total), want) and np.array_equal(entropy(counts), want)
    assert np.array_equal(entropy(counts.T, axis=0), want) and row_entropy(counts, total)[5] == 0.0


@pytest.mark.parametrize("criterion", ["gain_ratio", "information_gain"])
@pytest.mark.parametrize("seed", range(6))
def test_best_split_equals_brute_force_with_weights_and_missing_values(seed, criterion):
    rng = np.random.default_rng(seed)
    n, p, C = 40, 4, 3
    X = np.round(rng.normal(size=(n, p)), 1)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 2] > 1)
    X[rng.random((n, p)) < 0.15] = np.nan
    w = rng.uniform(0.3, 1.5, n)
    got = best_split(X, np.eye(C)[y], w, allowed=np.ones(p, bool), min_samples_leaf=2, criterion=criterion)
    want = _brute_force(X, y, w, C, 2, criterion)
    assert (got is None) == (want is None)
    if got is not None:
        assert (got.feature, got.threshold) == (want[0], want[1])
        assert got.gain == pytest.approx(want[2]) and got.gain_ratio == pytest.approx(want[3])


def test_forbidden_features_are_never_tested():
    X = np.array([[0, 5], [1, 6], [2, 7], [3, 8]], float)
    Y = np.eye(2)[[0, 0, 1, 1]]
    split = best_split(X, Y, np.ones(4), allowed=np.array([False, True]), min_samples_leaf=1)
    assert split.feature == 1 and split.threshold == 6


def test_soft_density_equals_the_running_sums_of_eq_3_8():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30).round(1)
    y = rng.integers(0, 2, 30)
    sigma, delta, omega = 0.4, 0.1, 6.0
    tau = np.arange(x.min() - omega * sigma / 2, x.max() + omega * sigma / 2, delta * sigma)
    values, counts = np.unique(x, return_counts=True)
    rho_left, running = [], 0.0
    for k, t in enumerate(tau):                       # eq. 3.8: increments of the CDF between grid points
        if k == 0:
            running += (counts * norm.cdf((t - values) / sigma)).sum()
        else:
            running += (counts * (norm.cdf((t - values) / sigma) - norm.cdf((t - delta * sigma - values) / sigma))).sum()
        rho_left.append(running)
    density = soft_density(x, np.eye(2)[y], tau, sigma)
    assert np.allclose(density.sum(axis=1), rho_left)
    assert np.allclose(density[:, 1], [(norm.cdf((t - x[y == 1]) / sigma)).sum() for t in tau])
    assert np.allclose(soft_density(x, np.eye(2)[y], tau, sigma, window=omega), density, atol=1e-8)


def test_soft_search_puts_the_toy_threshold_between_the_classes():
    """Seed 000, 3.2.4 (Figure 3.3): hard search cuts at a training value, soft search near 0."""
    Y = np.eye(2)[[0, 0, 1, 1]]
    assert best_split(np.array([[-2.0], [-2], [2], [2]]), Y, np.ones(4), allowed=np.ones(1, bool),
                      min_samples_leaf=1).threshold == -2
    soft = best_split(np.array([[-2.0], [-2], [2], [2]]), Y, np.ones(4), allowed=np.ones(1, bool),
                      min_samples_leaf=1, search_sigma=np.array([0.3]))
    assert abs(soft.threshold) <= 0.1 * 0.3


def test_a_nominal_feature_is_scored_as_a_multiway_split():
    """Gain and gain ratio over one branch per value (and the unknown share), eqs. 2.3-2.6."""
    x = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, np.nan, np.nan])
    y = np.array([0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0])
    X = np.column_stack([x, np.zeros(12)])
    split = best_split(X, np.eye(2)[y], np.ones(12), allowed=np.ones(2, bool), min_samples_leaf=2,
                       nominal=np.array([True, False]))
    known = y[:10]
    gain = 10 / 12 * (_h(np.bincount(known)) - (3 * _h([2, 1]) + 4 * _h([1, 3]) + 3 * _h([3, 0])) / 10)
    shares = np.array([3, 4, 3, 2]) / 12
    assert split.feature == 0 and split.values == (0.0, 1.0, 2.0)
    assert split.gain == pytest.approx(gain)
    assert split.gain_ratio == pytest.approx(gain / -(shares * np.log2(shares)).sum())

