"""Probabilistic routing: the sparse leaf reach equals the dense node membership, checked by hand on a stump."""

import numpy as np
import pytest
from scipy.special import ndtr

from optitrees import C45Classifier
from optitrees.trees import leaf_reach, node_membership


def test_a_stump_routes_by_hand():
    X = np.array([[0.0], [2.0], [np.nan]])
    y = np.array([0, 1, 1])
    tree = C45Classifier(min_samples_leaf=1, max_depth=1, pruning=False).fit(X[:2], y[:2]).tree_
    tau = tree.threshold[0]
    left, right = tree.children_left[0], tree.children_right[0]
    dense = node_membership(tree, X)
    assert dense[0, left] == 1 and dense[1, right] == 1
    assert dense[2, left] == dense[2, right] == 0.5              # one of the two training rows went left
    sigma = np.array([0.7])
    soft = node_membership(tree, X, sigma)
    assert soft[0, left] == pytest.approx(ndtr((tau - 0.0) / 0.7))
    for s in (None, sigma):
        leaves = np.flatnonzero(tree.is_leaf)
        np.testing.assert_array_equal(leaf_reach(tree, X, s).toarray()[:, leaves],
                                      node_membership(tree, X, s)[:, leaves])


@pytest.mark.parametrize("evaluation_uncertainty", [0.0, 0.3])
def test_the_sparse_reach_equals_the_dense_leaf_columns(evaluation_uncertainty):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=400) > 0.5).astype(int)
    X[rng.random(X.shape) < 0.05] = np.nan
    clf = C45Classifier(min_samples_leaf=2, pruning=False, evaluation_uncertainty=evaluation_uncertainty).fit(X, y)
    tree = clf.tree_
    assert tree.n_leaves > 10
    sigma = clf._sigma(evaluation_uncertainty)
    sparse = leaf_reach(tree, X, sigma)
    dense = node_membership(tree, X, sigma)
    inner = np.flatnonzero(~tree.is_leaf)
    assert sparse[:, inner].nnz == 0
    np.testing.assert_array_equal(sparse.toarray()[:, tree.is_leaf], dense[:, tree.is_leaf])
    np.testing.assert_allclose(np.asarray(sparse.sum(axis=1)).ravel(), 1.0)
    if evaluation_uncertainty == 0:              # a complete point reaches one leaf: one entry per row
        complete = ~np.isnan(X).any(axis=1)
        assert np.all(np.diff(sparse.indptr)[complete] == 1)


def test_the_mixture_from_the_leaves_up_equals_the_reach_mixture_and_its_sql():
    import sqlite3

    import pandas as pd

    from optitrees.export._sql import column, gated_tree_sql
    from optitrees.trees._gating import gated_mixture

    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=1500) > 0.5).astype(int) + (X[:, 2] > 1)
    X[rng.random(X.shape) < 0.15] = np.nan
    clf = C45Classifier(min_samples_leaf=2, pruning=False).fit(X, y)
    tree, probabilities = clf.tree_, clf.leaf_probabilities()
    mixture = gated_mixture(tree, X, probabilities)
    np.testing.assert_allclose(mixture, leaf_reach(tree, X) @ probabilities, rtol=1e-12, atol=1e-15)
    names = ["a", "b", "c", "d"]
    sql = gated_tree_sql(tree, [column(n) for n in names], [0, 1, 2], probabilities)
    assert len(sql) < 700 * tree.n_nodes * 3                  # each node written once per class
    with sqlite3.connect(":memory:") as db:
        pd.DataFrame(X, columns=names).to_sql("data", db, index=False)
        got = [r[0] for r in db.execute(f"SELECT {sql} FROM data")]
    assert got == np.argmax(mixture, axis=1).tolist() == clf.predict(X).tolist()
