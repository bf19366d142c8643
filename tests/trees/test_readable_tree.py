"""Readable trees: short numbers, the same routing and classes on the training points."""

import numpy as np
import pytest

from optitrees.trees import from_complete, readable_tree


def _random_tree(rng, p, depth, linear):
    S = 2**depth - 1
    W = rng.normal(size=(S, p)) * 10.0 ** rng.integers(-3, 4, size=(S, p))
    thr = rng.normal(size=S)
    if linear:
        return from_complete(W, thr, split_intercept=-thr, leaf_weights=rng.normal(size=(S + 1, p)),
                             leaf_intercepts=rng.normal(size=S + 1))[0]
    return from_complete(W, thr, leaf_labels=rng.integers(0, 3, S + 1), n_classes=3)[0]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("linear", [False, True])
def test_same_routing_and_classes_with_thresholds_between_training_values(seed, linear):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 4)) * np.array([1.0, 1e3, 1e-3, 7.0])
    tree = _random_tree(rng, 4, 3, linear)
    out = readable_tree(tree, X, threshold="near" if linear else "between", normalize=not linear)
    assert np.array_equal(out.decision_path(X), tree.decision_path(X))
    assert np.array_equal(out.predict(X), tree.predict(X))
    path = out.decision_path(X)
    for t in np.flatnonzero(~out.is_leaf):
        rows = (path == t).any(axis=1)
        v = X[rows] @ out.weights[t]
        assert not np.any(v == out.threshold[t])                 # no training point on a threshold
    # shorter numbers: significant digits of the split weights never grow
    assert np.mean([len(repr(float(w))) for w in out.weights[~out.is_leaf].ravel() if w != 0]) <= \
        np.mean([len(repr(float(w))) for w in tree.weights[~tree.is_leaf].ravel() if w != 0])


def test_single_negative_weight_reads_as_a_plain_threshold():
    X = np.arange(10.0)[:, None]
    # -2 x <= -9 sends x >= 4.5 left: written as x <= 4.5 with the children swapped
    tree, _ = from_complete(np.array([[-2.0]]), [-9.0], leaf_labels=[1, 0], n_classes=2)
    out = readable_tree(tree, X)
    assert out.weights[0, 0] == 1.0 and out.feature[0] == 0
    assert 4 < out.threshold[0] < 5 and out.threshold[0] == 4.5
    assert np.array_equal(out.predict(X), tree.predict(X)) and out.predict(X).tolist() == [0] * 5 + [1] * 5


def test_threshold_between_training_values_is_the_shortest_decimal():
    X = np.array([[70.0], [70.0055], [80.0]])
    tree, _ = from_complete(np.array([[1.0]]), [70.00275], leaf_labels=[0, 1], n_classes=2)
    assert readable_tree(tree, X).threshold[0] == 70.003
    X = np.array([[61.0], [79.0]])
    assert readable_tree(tree, X).threshold[0] == 70.0


def test_linear_leaf_keeps_its_classes_and_min_digits_bounds_the_rounding():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 3))
    tree, _ = from_complete(np.zeros((0, 3)), [], leaf_weights=[[1.23456789, -2.3456789, 0.0]],
                            leaf_intercepts=[0.01234567])
    out = readable_tree(tree, X, threshold="near", normalize=False, min_digits=4)
    assert np.array_equal(out.predict(X), tree.predict(X))
    assert np.allclose(out.weights, tree.weights, rtol=5e-4) and out.weights[0, 2] == 0.0
    assert all(len(f"{w:.10g}".replace("-", "").replace(".", "").strip("0")) <= 6 for w in out.weights[0])
