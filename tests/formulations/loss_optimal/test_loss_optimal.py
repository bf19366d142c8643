"""The general loss-optimal tree (3.12): presets, losses, l2 by MIQP and by outer approximation, l0."""

import numpy as np
import pytest

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.formulations import loss_optimal_tree, margot, olct
from optitrees.formulations.loss_optimal.solution import (decode, start, tree_from_hyperplanes, tree_objective,
                                                          within_class)
from optitrees.solvers import solve



def _standardized(X):
    return (X - X.mean(0)) / X.std(0)


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(24, 3))
    y = np.where(X[:, 0] - 0.7 * X[:, 2] + 0.3 * rng.normal(size=24) > 0, 1.0, -1.0)
    return _standardized(X), y


def test_olct_is_the_logistic_l1_preset(data):
    X, y = data
    a = olct(X, y, depth=2, tangents="V1", C=[1.0, 2.0])
    b = loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", lam=1.0, C=[1.0, 2.0], tangents="V1")
    assert (a.matrix != b.matrix).nnz == 0
    assert np.array_equal(a.cost, b.cost) and np.array_equal(a.row_lower, b.row_lower)


def test_sfs_penalty_trades_features_for_loss(data):
    X, y = data
    costly = loss_optimal_tree(X, y, depth=1, loss="hinge", regularizer="l1", feature_selection="soft", alpha=1e3)
    res = solve(costly, mip_gap=0)
    assert np.all(costly.values(res.x)["w"] == 0)
    # with w = 0 the hinge loss n_pos (1 - b)+ + n_neg (1 + b)+ is least at b = +-1
    n_pos, n_neg = (y > 0).sum(), (y < 0).sum()
    assert res.objective == pytest.approx(2 * min(n_pos, n_neg), rel=1e-9)


def test_misclassification_depth1_equals_best_threshold():
    rng = np.random.default_rng(2)
    x = np.sort(rng.normal(size=15))
    y = np.where(rng.random(15) < 1 / (1 + np.exp(-3 * x)), 1.0, -1.0)
    f = loss_optimal_tree(x[:, None], y, depth=1, loss="misclassification", regularizer=None)
    res = solve(f, mip_gap=0)
    # brute force: every cut between consecutive points (and outside them), both orientations
    cuts = np.concatenate([[x[0] - 1], (x[1:] + x[:-1]) / 2, [x[-1] + 1]])
    best = min(min((np.where(x > c, 1, -1) != y).sum(), (np.where(x > c, -1, 1) != y).sum()) for c in cuts)
    assert res.objective == pytest.approx(best)
    tree, _ = decode(f, res.x)
    assert (np.sign(tree.decision_function(x[:, None])) != y).sum() == best


@pytest.mark.parametrize("kwargs", [
    dict(loss=["misclassification", "hinge"], regularizer=None),
    dict(loss=["hinge", "logistic"], regularizer="l2", l2_method="outer", feature_selection="hard", max_features=2),
    dict(loss="logistic", regularizer="l1", feature_selection="soft", alpha=[0.5, 0.1]),
])
def test_greedy_start_is_feasible_and_scored_exactly(data, kwargs):
    X, y = data
    f = loss_optimal_tree(X, y, depth=2, **kwargs)
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
    x = start(f, tree)
    assert f.violation(x) < 1e-9
    assert f.objective_value(x) == pytest.approx(tree_objective(f.problem, tree, surrogate=True), rel=1e-9)


@pytest.mark.parametrize("depth", [2, 3])
def test_a_tree_beyond_the_weight_bound_is_scaled_into_the_class_with_its_routing_and_labels(data, depth):
    X, y = data
    f = olct(X, y, depth=depth, weight_bound=2.0)
    problem = f.problem
    tree = greedy_tree(problem, node_fitter(problem.spec, 0))
    # outside the class: every hyperplane 5 times longer than the bound, the inner intercepts off their routing
    rng = np.random.default_rng(depth)
    W = rng.normal(size=(2**depth - 1, X.shape[1]))
    W *= 5 * problem.spec.weight_bound / np.abs(W).sum(axis=1, keepdims=True)
    b = rng.normal(size=2**depth - 1)
    outside = tree_from_hyperplanes(problem, W, b)
    thresholds = outside.threshold.copy()
    thresholds[~outside.is_leaf] += 0.1                       # routing no longer at eps / 2 - b
    outside = outside.with_nodes(np.arange(outside.n_nodes), threshold=thresholds)
    assert f.violation(start(f, outside)) > 1.0
    scaled = within_class(problem, outside)
    assert f.violation(start(f, scaled)) < 1e-9
    assert np.array_equal(scaled.apply(X), outside.apply(X)) and np.array_equal(scaled.predict(X), outside.predict(X))
    assert np.all(np.abs(scaled.weights).sum(axis=1) <= problem.spec.weight_bound * (1 + 1e-12))
    # a tree inside the class keeps its hyperplanes
    kept = within_class(problem, tree)
    assert np.allclose(kept.weights, tree.weights) and np.allclose(kept.intercept, tree.intercept)


def test_a_node_whose_sides_lie_closer_than_the_margin_stays_outside_the_class():
    X = np.array([[0.0], [1e-5], [1.0], [2.0]])
    y = np.array([-1.0, 1.0, -1.0, 1.0])
    f = olct(X, y, depth=2, weight_bound=1.0)
    problem = f.problem
    # the root splits between 0 and 1e-5, far closer than eps with |w| <= 1
    tree = tree_from_hyperplanes(problem, np.array([[1.0], [1.0], [1.0]]), np.array([-0.5e-5, 0.0, 0.0]))
    tree = tree.with_nodes([0], threshold=np.array([0.5e-5]))
    assert problem.eps > 1e-5 and tree.apply(X)[0] != tree.apply(X)[1]
    assert f.violation(start(f, within_class(problem, tree))) > 0


def test_bad_settings(data):
    X, y = data
    for kwargs, match in [(dict(loss="squared"), "loss must be"), (dict(loss=["hinge"]), "one entry per layer"),
                          (dict(regularizer="l3"), "regularizer"), (dict(feature_selection="hard"), "max_features"),
                          (dict(feature_selection="soft"), "alpha"), (dict(l2_method="x"), "l2_method"),
                          (dict(lam=-1), "lam")]:
        with pytest.raises(ValueError, match=match):
            loss_optimal_tree(X, y, depth=2, **kwargs)
    with pytest.raises(ValueError, match="l2_tol"):
        loss_optimal_tree(X, y, depth=1, regularizer="l2", l2_method="outer", l2_tol=0)
    with pytest.raises(ValueError, match="MIQP|mixed-integer quadratic"):
        solve(margot(X, y, depth=2), "highs")


def test_negligible_weights_are_dropped_from_a_constant_leaf(data):
    """A last-layer node of weights near 1e-9 with intercept 0.5 is a constant: finalize drops every weight (the
    routing, predictions and objective unchanged), and keeps weights that matter."""
    from optitrees.formulations.loss_optimal.solution import finalize

    X, y = data
    f = olct(X, y, depth=1, tangents="V1")
    problem = f.problem
    tree = greedy_tree(problem, node_fitter(problem.spec))
    tiny = tree.with_nodes([0], weights=np.full((1, X.shape[1]), 1e-9), intercept=np.array([0.5]))
    out = finalize(problem, tiny)
    assert np.all(out.weights == 0)
    assert np.array_equal(out.predict(problem.data.X_original), tiny.to_original_units(problem.data)
                          .predict(problem.data.X_original))
    kept = finalize(problem, tree)
    assert np.count_nonzero(kept.weights) == np.count_nonzero(tree.weights)
