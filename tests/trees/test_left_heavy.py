"""left_heavy and signs_oriented: the same routing of every training point; more weight left at every split, or
each split weighing the signed features with their signs where it can."""

import numpy as np
import pytest

from optitrees.trees import from_complete, left_heavy, signs_oriented


@pytest.mark.parametrize("seed", range(5))
def test_routing_and_predictions_are_kept_and_every_split_is_left_heavy(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    weight = rng.uniform(0.1, 3.0, size=40)
    tree, _ = from_complete(rng.normal(size=(3, 3)), rng.normal(size=3), leaf_labels=np.array([0, 1, 1, 0]))
    mirrored = left_heavy(tree, X, weight)
    assert np.array_equal(mirrored.apply(X), tree.apply(X))
    assert np.array_equal(mirrored.predict(X), tree.predict(X))
    path = mirrored.decision_path(X)
    for node in np.flatnonzero(~mirrored.is_leaf):
        reach = (path == node).any(axis=1)
        went_left = (path == mirrored.children_left[node]).any(axis=1)
        assert weight[reach & went_left].sum() >= weight[reach & ~went_left].sum()


@pytest.mark.parametrize("seed", range(5))
def test_signs_oriented_keeps_the_routing_and_turns_each_split_it_can(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    W = rng.normal(size=(3, 3))
    W[1, 0], W[1, 1] = -abs(W[1, 0]), abs(W[1, 1])               # node 2 weighs x0 down and x1 up
    tree, _ = from_complete(W, rng.normal(size=3), leaf_labels=np.array([0, 1, 1, 0]))
    signs = np.array([1, -1, 0])
    oriented = signs_oriented(tree, X, signs)
    assert np.array_equal(oriented.predict(X), tree.predict(X))
    assert np.array_equal(oriented.apply(X), tree.apply(X))
    for node in np.flatnonzero(~tree.is_leaf):
        moves = signs * tree.weights[node]
        turned = (moves <= 0).all() and (moves < 0).any()
        assert np.array_equal(oriented.weights[node], -tree.weights[node] if turned else tree.weights[node])
        assert (signs * oriented.weights[node] >= 0).all() or ((moves > 0).any() and (moves < 0).any())
