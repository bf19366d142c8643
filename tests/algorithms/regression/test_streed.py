"""Optimal regression trees by STreeD on our candidate splits: the optimum checked by brute force."""

import numpy as np
import pytest

pytest.importorskip("pystreed")

from optitrees.algorithms.regression.streed import binarize, candidate_thresholds, fit_streed  # noqa: E402


def sse(y):
    return float(((y - y.mean()) ** 2).sum()) if len(y) else 0.0


def best_split_sse(X, y):
    """The least squared error of one split (or none) of ``(X, y)``, every midpoint of every feature tried."""
    best = sse(y)
    for j, cuts in enumerate(candidate_thresholds(X)):
        for c in cuts:
            go = X[:, j] <= c
            best = min(best, sse(y[go]) + sse(y[~go]))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_depth_two_optimum_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(30, 3)).astype(float)
    y = (X[:, 0] > 2) * 2.0 + (X[:, 1] * X[:, 2] > 4) + rng.normal(0, 0.3, 30)
    tree, proven = fit_streed(X, y, max_depth=2)
    brute = min(best_split_sse(X[X[:, j] <= c], y[X[:, j] <= c]) + best_split_sse(X[X[:, j] > c], y[X[:, j] > c])
                for j, cuts in enumerate(candidate_thresholds(X)) for c in cuts)
    assert proven
    assert float(((y - tree.predict(X)) ** 2).sum()) == pytest.approx(brute, rel=1e-9)


def test_candidates_and_binary_features():
    X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 3.0], [6.0, 3.0]])
    assert [t.tolist() for t in candidate_thresholds(X)] == [[1.0, 3.0, 5.0], [2.0]]
    assert [t.tolist() for t in candidate_thresholds(X, n_thresholds=2)] == [[1.0, 5.0], [2.0]]
    B, feature, threshold = binarize(X, candidate_thresholds(X))
    assert feature.tolist() == [0, 0, 0, 1] and B[:, 3].tolist() == [1, 1, 0, 0]
