"""The starts of OCT / OCT-H: CART and the greedy oblique tree."""

import numpy as np
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
        assert not np.any((v > tree.threshold[t] - 0.0025) & (v < tree.threshold[t] + 0.0025))   # margin mu
