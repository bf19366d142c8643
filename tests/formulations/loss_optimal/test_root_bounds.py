"""The root layer's bound: below the exact objective of every tree of the model class, and tight at depth 1."""

import numpy as np
import pytest

from optitrees import MARGOTClassifier, OLCTClassifier
from optitrees.formulations.loss_optimal.solution import tree_objective
from optitrees.formulations.loss_optimal.root_bounds import hinge_root_bound, logistic_root_bound, root_layer_bound
from optitrees.trees import from_complete
from _support import fit_quiet


def _data(n=40, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def _problem(est, X, y):
    est._validate_params()
    return est._prepare(X, y)[0]


def _random_trees(problem, rng, count):
    """Trees of the model class: every ``||w_t||_1 <= W``, ``|b_t| <= B``."""
    depth, p = problem.spec.depth, problem.data.X.shape[1]
    W, B = problem.spec.weight_bound, problem.intercept_bound
    n_inner, n_last = 2 ** (depth - 1) - 1, 2 ** (depth - 1)
    for _ in range(count):
        w = rng.normal(size=(n_inner + n_last, p))
        w *= rng.uniform(0, W) / np.abs(w).sum(axis=1, keepdims=True)
        b = rng.uniform(-B, B, size=n_inner + n_last)
        tree, _ = from_complete(w[:n_inner], -b[:n_inner], leaf_weights=w[n_inner:], leaf_intercepts=b[n_inner:])
        yield tree


def estimators_of_the_class():
    """Fresh loss-optimal estimators (a test may set their parameters) as test parameters, without a feature budget
    (a budget chosen on held-out folds would make the fit's class another than the problem's the test builds)."""
    return [pytest.param(OLCTClassifier(max_depth=2, C=3.0, max_features=None), id="OLCT"),
            pytest.param(MARGOTClassifier(max_depth=2, C=2.0, max_features=None), id="MARGOT"),
            pytest.param(OLCTClassifier(max_depth=3, C=[1.0, 0.5, 2.0], max_features=None), id="OLCT d3")]


@pytest.mark.parametrize("estimator", estimators_of_the_class())
def test_the_bound_is_below_every_tree_of_the_class(estimator):
    X, y = _data()
    problem = _problem(estimator, X, y)
    bound, source = root_layer_bound(problem)
    assert source.startswith("root layer") and bound > 0
    rng = np.random.default_rng(1)
    objectives = [tree_objective(problem, tree) for tree in _random_trees(problem, rng, 300)]
    assert min(objectives) >= bound - 1e-9
    # no time limit: a deadline stops the fit's own bound search early (a weaker valid bound on a busy machine)
    fitted = fit_quiet(estimator.set_params(time_limit=None, solver_options={"mip_max_nodes": 5}), X, y)
    assert fitted.objective_ >= bound - 1e-9 and fitted.fit_report_.bound >= bound - 1e-9
    assert fitted.fit_report_.bound <= min(objectives) + 1e-9


def test_at_depth_one_the_logistic_bound_is_the_optimum():
    """OLCT at depth 1 is the l1-logistic regression: the bound is within 1e-4 of the fitted optimum (TAO's exact
    refit), and below it."""
    X, y = _data(60, 4, seed=3)
    est = fit_quiet(OLCTClassifier(max_depth=1, C=2.0, max_features=None, time_limit=20), X, y)
    bound = est.fit_report_.bound
    assert bound <= est.objective_ + 1e-9
    assert bound >= est.objective_ * (1 - 1e-4)
    assert est.fit_report_.certified_by is not None or est.fit_report_.gap < 1e-4


def test_at_depth_one_the_hinge_bound_is_near_the_optimum():
    X, y = _data(60, 4, seed=3)
    est = fit_quiet(MARGOTClassifier(max_depth=1, C=2.0, time_limit=20), X, y)
    problem = _problem(est, X, y)
    bound, _ = root_layer_bound(problem)
    assert bound <= est.objective_ + 1e-9
    assert bound >= est.objective_ * (1 - 1e-3)


@pytest.mark.parametrize("regularizer, lam", [("l1", 0.7), ("l2", 0.4), (None, 0.0)])
def test_the_bounds_hold_against_a_grid_of_one_feature_models(regularizer, lam):
    """One feature: every ``(w, b)`` on a fine grid of the box is at least the bound (both losses)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, 1))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=25) > 0, 1.0, -1.0)
    c = rng.uniform(0.5, 2.0, size=25)
    W, B = 3.0, 2.0
    w, b = np.meshgrid(np.linspace(-W, W, 241), np.linspace(-B, B, 161))
    s = y[:, None, None] * (X[:, 0][:, None, None] * w + b)
    omega = lam * (np.abs(w) if regularizer == "l1" else w * w if regularizer == "l2" else 0 * w)
    logistic = np.tensordot(c, np.logaddexp(0.0, -s), axes=1) + omega
    hinge = np.tensordot(c, np.maximum(0.0, 1.0 - s), axes=1) + omega
    lb_log = logistic_root_bound(X, y, c, lam, regularizer, W, B)
    lb_hinge = hinge_root_bound(X, y, c, lam, regularizer, W, B)
    assert lb_log <= logistic.min() + 1e-9 and lb_log >= logistic.min() - 1e-2 * abs(logistic.min())
    assert lb_hinge <= hinge.min() + 1e-9 and lb_hinge >= hinge.min() - 5e-2 * abs(hinge.min())


def test_a_misclassification_root_has_no_convex_bound():
    from optitrees import LossOptimalTreeClassifier

    X, y = _data()
    problem = _problem(LossOptimalTreeClassifier(max_depth=2, loss="misclassification", regularizer=None), X, y)
    assert root_layer_bound(problem) is None
