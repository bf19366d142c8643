"""The general loss-optimal tree (3.12): presets, losses, l2 by MIQP and by outer approximation, l0."""

import numpy as np
import pytest

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.formulations import loss_optimal_tree, margot, olct
from optitrees.formulations.loss_optimal_solution import decode, start, tree_objective
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
    from optitrees.formulations.loss_optimal_solution import finalize

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
