"""TAO of label trees: the exact node problem, monotone improvement, margins, leaf sizes, pruned dead branches."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from optitrees.algorithms.oct.cart import cart_tree
from optitrees.algorithms.column_index import ColumnIndex
from optitrees.algorithms.fixed_tree import FixedTree
from optitrees.algorithms.local_search.tao import _scan, label_objective, tao_label_tree
from optitrees.scaling import scale_unit


@pytest.mark.parametrize("seed", range(8))
def test_scan_finds_the_best_split_of_the_reduced_problem(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(15, 3)).astype(float)
    prefer = rng.choice([-1, 0, 1], size=15)
    best = min(((prefer == 1) & (X[:, j] <= t)).sum() + ((prefer == -1) & (X[:, j] > t)).sum()
               for j in range(3) for t in (np.unique(X[:, j])[:-1] + 0.5))
    found = _scan(ColumnIndex(X), np.arange(15), prefer, np.ones(3, bool))
    assert found[0][0] == best
    errs, j, thr, _ = found[0]
    assert ((prefer == 1) & (X[:, j] <= thr)).sum() + ((prefer == -1) & (X[:, j] > thr)).sum() == errs


def _random_tree(rng, X, depth, n_classes):
    S = 2**depth - 1
    W = np.zeros((S, X.shape[1]))
    W[np.arange(S), rng.integers(0, X.shape[1], S)] = 1.0
    thr = np.array([rng.choice(X[:, np.argmax(w)]) for w in W])
    return FixedTree(W, thr, np.ones(S, bool), np.zeros(S), rng.integers(0, n_classes, S + 1))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("alpha", [0.0, 0.05])
def test_tao_never_worsens_and_prunes_dead_branches(seed, alpha):
    X, y = load_iris(return_X_y=True)
    X = scale_unit(X)[0]
    start = _random_tree(np.random.default_rng(seed), X, 3, 3)
    out = tao_label_tree(start, X, y, L_hat=100, alpha=alpha)
    assert label_objective(out, X, y, 100, alpha) < label_objective(start, X, y, 100, alpha) - 1e-9
    reached = set(np.unique(out.path(X)[:, :-1]).tolist())
    assert all(t + 1 in reached for t in np.flatnonzero(out.active))   # no active split without points


@pytest.mark.parametrize("n_min", [5, 20])
def test_tao_keeps_the_minimum_leaf_size(n_min):
    X, y = load_breast_cancer(return_X_y=True)
    start = FixedTree.from_tree(cart_tree(X, y, 3, n_min, random_state=0).with_counts(X, y), 3)
    out = tao_label_tree(start, X, y, min_samples_leaf=n_min, alpha=0.001)
    counts = np.bincount(out.leaf_of(X), minlength=8)
    assert np.all((counts == 0) | (counts >= n_min))
    assert label_objective(out, X, y, 212, 0.001) <= label_objective(start, X, y, 212, 0.001)


def test_tao_from_cart_and_oblique_margins():
    X, y = load_iris(return_X_y=True)
    X = scale_unit(X)[0]
    cart = FixedTree.from_tree(cart_tree(X, y, 2, random_state=0).with_counts(X, y), 2)
    axis = tao_label_tree(cart, X, y)
    assert label_objective(axis, X, y, 100) <= label_objective(cart, X, y, 100)
    ob = tao_label_tree(cart, X, y, oblique=True, complexity="features", alpha=0.001, mu=0.005)
    rows = ob.rows_by_node(X)
    for t in np.flatnonzero(ob.active) + 1:
        v = X[rows[t]] @ ob.W[t - 1]
        left, right = v[v <= ob.thr[t - 1]], v[v > ob.thr[t - 1]]
        if left.size and right.size:
            assert right.min() - left.max() >= 0.005 - 1e-12                 # OCT-H's margin
        assert np.abs(ob.W[t - 1]).sum() == pytest.approx(1.0)
    assert np.mean(ob.predict(X) == y) >= np.mean(cart.predict(X) == y)


def test_deadline_stops_tao():
    import time

    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    start = _random_tree(rng, X, 3, 3)
    out = tao_label_tree(start, X, y, deadline=time.perf_counter() - 1)
    assert np.array_equal(out.W, start.W) and np.array_equal(out.leaf_label, start.leaf_label)


@pytest.mark.parametrize("seed", range(3))
def test_axis_aligned_routing_reads_one_feature_per_row(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 5))
    ft = _random_tree(rng, X, 3, 2)
    ft.W[2] *= -2.5                                       # a scaled (negative) axis-aligned weight
    ft.active[4] = False
    nodes = rng.integers(1, ft.n_splits + 1, len(X))
    dense = ~ft.active[nodes - 1] | (np.einsum("ij,ij->i", X, ft.W[nodes - 1]) > ft.thr[nodes - 1])
    assert np.array_equal(ft.goes_right(X, nodes), dense)
    ft.W[0, 1] = 0.3                                      # an oblique split: the dense path
    dense = ~ft.active[nodes - 1] | (np.einsum("ij,ij->i", X, ft.W[nodes - 1]) > ft.thr[nodes - 1])
    assert np.array_equal(ft.goes_right(X, nodes), dense)


def test_tao_with_no_allowed_feature_only_relabels():
    """No feature allowed (a refinement held to the features a split-free tree reads): no split move, oblique or
    not, and the objective does not rise."""
    X, y = load_iris(return_X_y=True)
    X = scale_unit(X)[0]
    start = _random_tree(np.random.default_rng(3), X, 2, 3)
    start.active[:] = False
    out = tao_label_tree(start, X, y, L_hat=100, oblique=True, complexity="features",
                         allowed=np.zeros(X.shape[1], bool))
    assert not out.active.any()
    assert label_objective(out, X, y, 100, 0.0) <= label_objective(start, X, y, 100, 0.0) + 1e-12
