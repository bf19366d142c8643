"""The tree object: routing, predictions, views, units, and conversions from complete and scikit-learn trees."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier

from optitrees.scaling import ScaledData
from optitrees.trees import LEAF, OBLIQUE, Tree, from_complete, from_sklearn, to_complete


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_from_sklearn_predicts_routes_and_counts_as_sklearn(iris):
    X, y = iris
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tree = from_sklearn(cart)
    assert np.array_equal(tree.apply(X), cart.apply(X))
    assert np.array_equal(tree.predict(X), cart.predict(X))
    assert np.allclose(tree.predict_proba(X), cart.predict_proba(X))
    assert np.array_equal(tree.decision_path(X)[:, 0], np.zeros(len(X)))
    assert np.array_equal((tree.decision_path(X) >= 0).sum(axis=1) - 1, tree.node_depth[tree.apply(X)])
    assert tree.value[0].tolist() == [50, 50, 50] and tree.is_axis_aligned
    inner = ~tree.is_leaf
    assert np.array_equal(tree.feature[inner], cart.tree_.feature[inner]) and np.all(tree.feature[~inner] == LEAF)


def test_complete_tree_with_an_unused_split_collapses_to_its_right_subtree():
    # depth 2: root splits x0 <= 0.5; node 2 unused (all right); node 3 splits x1 <= 0.2
    W = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    tree, position = from_complete(W, [0.5, 0.0, 0.2], active=[True, False, True], leaf_labels=[0, 1, 2, 3],
                                   n_classes=4)
    assert tree.n_nodes == 5 and tree.n_splits() == 2
    assert position.tolist() == [1, 5, 3, 6, 7]           # node 2 is replaced by its right leaf 5
    X = np.array([[0.1, 0.9], [0.9, 0.1], [0.9, 0.9]])
    assert tree.predict(X).tolist() == [1, 2, 3]
    back = to_complete(tree, 2)
    assert back.active.tolist() == [True, False, True]
    again, _ = from_complete(back.split_weights, back.split_threshold, active=back.active,
                             leaf_labels=back.leaf_labels, n_classes=4)
    assert np.array_equal(again.predict(X), tree.predict(X)) and again.n_nodes == tree.n_nodes


def test_to_complete_places_a_shallow_leaf_behind_unused_splits(iris):
    X, y = iris
    stump = from_sklearn(DecisionTreeClassifier(max_depth=1).fit(X, y))
    c = to_complete(stump, 3)
    assert c.active.sum() == 1 and c.active[0]
    assert sorted(c.position[stump.is_leaf].tolist()) == [11, 15]   # rightmost leaves below nodes 2 and 3
    with pytest.raises(ValueError, match="more than 0 levels"):
        to_complete(stump, 0)


def test_linear_leaves_score_and_give_probabilities():
    W = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, -1.0]])
    tree, _ = from_complete(W[:1], [0.0], split_intercept=[0.3], leaf_weights=W[1:], leaf_intercepts=[0.5, 1.0],
                            probabilistic=True)
    X = np.array([[-1.0, 1.0], [1.0, 3.0]])
    assert np.allclose(tree.decision_function(X), [2.5, -2.0])
    assert tree.predict(X).tolist() == [1, 0]
    assert np.allclose(tree.predict_proba(X)[:, 1], 1 / (1 + np.exp(-np.array([2.5, -2.0]))))
    path, values = tree.path_values(X)
    assert np.allclose(values[:, 0], X[:, 0] + 0.3) and np.allclose(values[:, 1], [2.5, -2.0])
    scores_only = Tree(tree.children_left, tree.children_right, tree.weights, tree.threshold, tree.intercept,
                       leaf_model="linear")
    with pytest.raises(AttributeError, match="scores"):
        scores_only.predict_proba(X)
    with pytest.raises(AttributeError):
        from_complete(W[:1], [0.0], leaf_labels=[0, 1])[0].decision_function(X)


def test_units_round_trip_keeps_every_decision():
    rng = np.random.default_rng(0)
    X = rng.normal(50, 20, size=(40, 3))
    data = ScaledData.create(X, np.zeros(40, int), "standard")
    W = rng.normal(size=(3, 3))
    tree, _ = from_complete(W[:1], [0.1], split_intercept=[-0.1], leaf_weights=W[1:], leaf_intercepts=[0.2, -0.3])
    original = tree.to_original_units(data)
    assert np.array_equal(original.predict(X), tree.predict(data.X))
    assert np.allclose(original.decision_function(X), tree.decision_function(data.X))
    back = original.to_scaled_units(data)
    assert np.allclose(back.weights, tree.weights) and np.allclose(back.threshold, tree.threshold)


def test_counts_and_labels_of_empty_leaves(iris):
    X, y = iris
    # petal length <= 10 holds for every point: the right leaf is empty and takes the root's majority
    tree = Tree([1, -1, -1], [2, -1, -1], [[0, 0, 1.0, 0], [0] * 4, [0] * 4], [10.0, 0, 0],
                value=np.zeros((3, 3)), label=[0, 2, 1])
    counted = tree.with_counts(X, y)
    assert counted.value[1].tolist() == [50, 50, 50] and counted.value[2].sum() == 0
    assert counted.label[1] == 2                 # a populated leaf keeps its label (MIP labels may break ties)
    assert counted.label[2] == counted.label[0] == 0
    assert tree.with_counts(X, y, relabel="all").label[1] == 0


def test_oblique_view_and_bad_arrays():
    tree = Tree([1, -1, -1], [2, -1, -1], [[0.5, 0.5], [0, 0], [0, 0]], [1.0, 0, 0])
    assert tree.feature.tolist() == [OBLIQUE, LEAF, LEAF] and not tree.is_axis_aligned
    assert tree.n_features_used() == 2 and tree.max_depth == 1 and tree.n_leaves == 2
    with pytest.raises(ValueError, match="one entry per node"):
        Tree([1, -1, -1], [2, -1, -1], [[1.0, 0.0]] * 3, [0.0, 0.0])
    with pytest.raises(ValueError, match="two children or none"):
        Tree([1, -1, -1], [-1, -1, -1], [[1.0]] * 3, [0.0] * 3)
    with pytest.raises(ValueError, match="smaller id"):
        Tree([2, -1, -1], [2, -1, -1], [[1.0]] * 3, [0.0] * 3)


def test_node_values_read_one_feature_for_axis_aligned_nodes_and_match_the_dense_product():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    W = np.array([[0.0, 2.5, 0, 0], [1.0, -1.0, 0.5, 0], [0, 0, 0, -3.0], [0, 0, 0, 0], [0, 0, 0, 0],
                  [0, 0, 0, 0], [0, 0, 0, 0]])
    t = Tree([1, 3, 5, -1, -1, -1, -1], [2, 4, 6, -1, -1, -1, -1], W, np.zeros(7))
    nodes = rng.integers(0, 7, 300)
    assert np.allclose(t.node_values(X, nodes), np.einsum("ij,ij->i", X, W[nodes]), rtol=0, atol=1e-12)
    rows = rng.integers(0, 300, 50)
    assert np.allclose(t.node_values(X, nodes[:50], rows), np.einsum("ij,ij->i", X[rows], W[nodes[:50]]))
    # a dense node with an eighth of the rows or more takes the product of all of X, one with fewer its own rows
    for size in (300, 40, 30, 1):
        rows = rng.choice(300, size, replace=False)
        got = t.node_values(X, np.ones(size, np.int64), rows)
        assert np.allclose(got, X[rows] @ W[1], rtol=0, atol=1e-12)
