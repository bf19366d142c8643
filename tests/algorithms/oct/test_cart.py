"""The starts of OCT / OCT-H: CART and the greedy oblique tree."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier

from optitrees.algorithms.oct.cart import cart_tree, greedy_oblique_tree
from optitrees.scaling import scale_unit


def test_cart_tree_is_sklearns_and_skips_forbidden_features():
    X, y = load_iris(return_X_y=True)
    X01 = scale_unit(X)[0]
    tree = cart_tree(X01, y, 2, random_state=0)
    assert np.array_equal(tree.predict(X01), DecisionTreeClassifier(max_depth=2, random_state=0).fit(X01, y).predict(X01))
    allowed = np.array([True, True, False, False])
    tree = cart_tree(X01, y, 2, random_state=0, allowed=allowed)
    assert np.all(tree.weights[:, 2:] == 0) and tree.n_splits() >= 1


def test_greedy_oblique_tree_keeps_margins_and_leaf_sizes():
    X, y = load_iris(return_X_y=True)
    X01 = scale_unit(X)[0]
    tree = greedy_oblique_tree(X01, y, 2, 3, min_samples_leaf=10, mu=0.005, random_state=0)
    assert (tree.predict(X01) == y).mean() > 0.9
    leaves = tree.value[tree.is_leaf].sum(axis=1)
    assert np.all((leaves == 0) | (leaves >= 10))
    path = tree.decision_path(X01)
    for t in np.flatnonzero(~tree.is_leaf):
        v = X01[(path == t).any(axis=1)] @ tree.weights[t]
        assert np.abs(tree.weights[t]).sum() <= 1 + 1e-9
        inside = (v > tree.threshold[t] - 0.0025 + 1e-12) & (v < tree.threshold[t] + 0.0025 - 1e-12)   # margin mu
        assert not np.any(inside)                                   # (its ends are allowed: the rows 3.7 hold there)


def test_the_best_split_clear_of_the_margin_is_found_beyond_the_nearest_gap():
    from optitrees.algorithms.oct.cart import best_clear_split
    rng = np.random.default_rng(0)
    # values crowded near 0 (1e-4 apart: no gap of mu = 0.005 among them) and a spread tail; the labels change at
    # 0.5, in the tail
    values = np.concatenate([np.arange(200) * 1e-4, np.linspace(0.3, 1.0, 50)])
    y = (values >= 0.5).astype(int)
    err, thr = best_clear_split(values, y, np.ones(len(y)), 0.005)
    assert err == 0 and 0.5 <= thr <= values[values >= 0.5].min()
    # brute force over every threshold clear of the margin, both sides nonempty, weighted errors
    weight = rng.uniform(0.5, 2.0, len(y))
    y2 = rng.integers(0, 3, len(y))
    err, thr = best_clear_split(values, y2, weight, 0.005, min_samples_leaf=20)
    best = np.inf
    for t in np.unique(values):
        right = values >= t
        if np.any((values > t - 0.005) & (values < t)) or right.all() or not right.any():
            continue
        if min(weight[right].sum(), weight[~right].sum()) < 20:
            continue
        e = sum(weight[s].sum() - np.bincount(y2[s], weight[s]).max() for s in (right, ~right))
        best = min(best, e)
    assert err == pytest.approx(best)
    assert best_clear_split(np.arange(10) * 1e-4, np.arange(10) % 2, np.ones(10), 0.005) is None
