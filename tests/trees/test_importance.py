"""Feature importances of a tree, checked by hand."""

import numpy as np
import pytest

from optitrees.trees import Tree, feature_importances, node_std


def _oblique_stump():
    # root: 2 x0 - 1 x1 <= 0 (left leaf), else right leaf
    return Tree([1, -1, -1], [2, -1, -1], [[2.0, -1.0, 0.0], [0, 0, 0], [0, 0, 0]], [0.0, 0, 0],
                value=[[2, 2], [1, 1], [1, 1]], label=[0, 0, 1])


def test_an_oblique_split_is_shared_by_weight_times_spread():
    X = np.array([[0.0, 0.0, 5.0], [1.0, 4.0, 5.0], [2.0, 0.0, 5.0], [3.0, 4.0, 5.0]])
    s0, s1 = X[:, 0].std(), X[:, 1].std()
    expected = np.array([2 * s0, 1 * s1, 0.0]) / (2 * s0 + 1 * s1)
    assert feature_importances(_oblique_stump(), X) == pytest.approx(expected)
    with pytest.raises(ValueError, match="training data"):
        feature_importances(_oblique_stump())


def test_linear_leaves_count_with_the_points_they_classify():
    # root splits on x0 (4 points); the left leaf's model uses x1 only, the right leaf's x2 only
    t = Tree([1, -1, -1], [2, -1, -1], [[1.0, 0, 0], [0, 3.0, 0], [0, 0, -1.0]], [1.5, 0, 0], leaf_model="linear")
    X = np.array([[0.0, 1.0, 7.0], [1.0, 3.0, 7.0], [2.0, 5.0, 1.0], [3.0, 5.0, 3.0]])
    # root: 4 points to x0; left leaf (rows 0, 1): 2 points to x1; right leaf (rows 2, 3): 2 points to x2
    assert feature_importances(t, X) == pytest.approx(np.array([4.0, 2.0, 2.0]) / 8.0)


def test_node_std_is_the_spread_of_the_rows_reaching_each_node():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    t = _oblique_stump()
    path = t.decision_path(X)
    std = node_std(t, X)
    for node in range(t.n_nodes):
        rows = (path == node).any(axis=1)
        assert std[node] == pytest.approx(X[rows].std(axis=0) if rows.any() else np.zeros(3))


def test_a_single_leaf_has_no_important_feature():
    leaf = Tree([-1], [-1], [[0.0, 0.0]], [0.0], value=[[3, 1]])
    assert feature_importances(leaf).tolist() == [0.0, 0.0]
