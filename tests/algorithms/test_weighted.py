"""Weights inside the algorithms and formulations: a row of weight k counts as the row repeated k times.

These run on the weighted rows as given (no merging of duplicates, which the
estimators do before), against the same rows repeated.
"""

import numpy as np
import pytest

from optitrees.algorithms.c45.induction import grow_c45, to_tree
from optitrees.algorithms.oct.cart import cart_tree
from optitrees.algorithms.fixed_tree import FixedTree
from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.algorithms.local_search.tao import label_objective, tao_label_tree
from optitrees.algorithms.loss_optimal.tao_loss_optimal import tao_loss_optimal
from optitrees.formulations import oct as oct_model
from optitrees.formulations import ors as ors_model
from optitrees.formulations.loss_optimal.model import LossOptimalProblem, LossOptimalSpec, build
from optitrees.formulations.loss_optimal.solution import tree_objective
from optitrees.formulations.oct.model import OCTProblem, OCTSpec
from optitrees.scaling import ScaledData
from optitrees.solvers import solve


def _weighted(n=16, p=2, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    y = (X @ rng.normal(size=p) + rng.normal(0, 0.3, n) > 0).astype(int) if classes == 2 else \
        rng.integers(0, classes, n)
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


def _repeat(X, y, w):
    k = w.astype(int)
    return np.repeat(X, k, axis=0), np.repeat(y, k)


@pytest.mark.parametrize("n_min", [1, 4])
def test_oct_mip_with_weights_has_the_optimum_of_repeated_rows(n_min):
    X, y, w = _weighted(classes=3)
    spec = OCTSpec.create(2, 0.05, n_min, 3, False)
    weighted = oct_model.build(OCTProblem.create(spec, ScaledData.create(X, y, None, weight=w)))
    Xr, yr = _repeat(X, y, w)
    repeated = oct_model.build(OCTProblem.create(spec, ScaledData.create(Xr, yr, None)))
    a, b = solve(weighted, mip_gap=0, progress=False), solve(repeated, mip_gap=0, progress=False)
    assert a.status == b.status == "optimal"
    assert a.objective == pytest.approx(b.objective, abs=1e-7)


def _loss_optimal_pair(spec, n, p=2, seed=0):
    """The loss-optimal problem of ``spec`` on weighted rows and on the same rows repeated."""
    X, y, w = _weighted(n=n, p=p, seed=seed)
    y = np.where(y == 1, 1.0, -1.0)
    Xr, yr = _repeat(X, y, w)
    return (LossOptimalProblem.create(spec, ScaledData.create(X, y, None, weight=w)),
            LossOptimalProblem.create(spec, ScaledData.create(Xr, yr, None)))


def test_loss_optimal_objective_and_mip_with_weights_match_repeated_rows():
    spec = LossOptimalSpec.create(depth=1, loss="hinge", regularizer="l1", C=1.0, lam=0.5)
    weighted, repeated = _loss_optimal_pair(spec, n=10)
    fit = node_fitter(spec, 0)
    tree = greedy_tree(weighted, fit)
    assert tree_objective(weighted, tree) == pytest.approx(tree_objective(repeated, tree), rel=1e-12)
    assert tree_objective(weighted, tree) == pytest.approx(tree_objective(repeated, greedy_tree(repeated, fit)),
                                                           rel=1e-6)
    a = solve(build(weighted), mip_gap=0, progress=False)
    b = solve(build(repeated), mip_gap=0, progress=False)
    assert a.status == b.status == "optimal" and a.objective == pytest.approx(b.objective, rel=1e-6, abs=1e-6)


def test_tao_of_a_loss_optimal_tree_with_weights_reaches_the_objective_of_repeated_rows():
    spec = LossOptimalSpec.create(depth=2, loss="logistic", regularizer="l1", C=1.0, lam=1.0)
    weighted, repeated = _loss_optimal_pair(spec, n=40, p=3, seed=3)
    fit = node_fitter(spec, 0)
    start = greedy_tree(weighted, fit)
    a = tao_loss_optimal(start, weighted, fit)
    b = tao_loss_optimal(start, repeated, fit)
    assert tree_objective(weighted, a) == pytest.approx(tree_objective(repeated, b), rel=1e-4)
    assert tree_objective(weighted, a) <= tree_objective(weighted, start) + 1e-9


def test_tao_of_a_label_tree_with_weights_matches_repeated_rows():
    X, y, w = _weighted(n=40, p=3, seed=1, classes=3)
    Xr, yr = _repeat(X, y, w)
    start = FixedTree.from_tree(cart_tree(X, y, 2, sample_weight=w).with_counts(X, y, sample_weight=w), 2)
    L_hat = float(np.bincount(y, weights=w).sum() - np.bincount(y, weights=w).max())
    a = tao_label_tree(start, X, y, L_hat=L_hat, alpha=0.01, sample_weight=w)
    b = tao_label_tree(start, Xr, yr, L_hat=L_hat, alpha=0.01)
    assert label_objective(a, X, y, L_hat, 0.01, sample_weight=w) == pytest.approx(
        label_objective(b, Xr, yr, L_hat, 0.01))
    assert label_objective(a, X, y, L_hat, 0.01, sample_weight=w) <= \
        label_objective(start, X, y, L_hat, 0.01, sample_weight=w)


def test_cart_with_weights_splits_as_on_repeated_rows():
    X, y, w = _weighted(n=30, p=3, seed=2)
    Xr, yr = _repeat(X, y, w)
    a, b = cart_tree(X, y, 2, sample_weight=w), cart_tree(Xr, yr, 2)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_c45_grows_the_same_tree_from_weights_as_from_repeated_rows():
    X, y, w = _weighted(n=40, p=3, seed=4, classes=3)
    Xr, yr = _repeat(X, y, w)
    allowed = np.ones(3, bool)
    a = to_tree(grow_c45(X, np.eye(3)[y], allowed=allowed, weights=w), 3)
    b = to_tree(grow_c45(Xr, np.eye(3)[yr], allowed=allowed), 3)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_allclose(a.value, b.value)


def test_ors_tangent_mip_with_weights_has_the_optimum_of_repeated_rows():
    rng = np.random.default_rng(5)
    X = (rng.random((14, 4)) < 0.5).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(0, 0.5, 14) > 1, 1.0, -1.0)
    w = rng.integers(1, 4, 14).astype(float)
    Xr, yr = _repeat(X, y, w)
    spec = ors_model.ORSSpec.create(2, range(-2, 3), "V1")
    a = solve(ors_model.build(ors_model.ORSProblem.create(spec, ScaledData.create(X, y, None, weight=w))),
              mip_gap=0, progress=False)
    b = solve(ors_model.build(ors_model.ORSProblem.create(spec, ScaledData.create(Xr, yr, None))),
              mip_gap=0, progress=False)
    assert a.status == b.status == "optimal" and a.objective == pytest.approx(b.objective, rel=1e-7)
