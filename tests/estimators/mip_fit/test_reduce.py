"""Representative rows: the reduced objective equals the full one when no row is dropped, and keeps every class's
weight when rows are."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import LossOptimalTreeRegressor, MARGOTClassifier, OCTHClassifier, OLCTClassifier
from optitrees.estimators.mip_fit.reduce import (ReducedRows, on_rows, reduce_to_reach, representative_rows)
from optitrees.formulations.loss_optimal.model import loss_optimal_size
from _support import fit_quiet


def _problem(est, X, y):
    est._validate_params()
    return est._prepare(X, y)[0]


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:200, :6], y[:200]


@pytest.mark.parametrize("estimator", [OLCTClassifier(max_depth=2), MARGOTClassifier(max_depth=2),
                                       OCTHClassifier(max_depth=2)], ids=lambda e: type(e).__name__)
def test_with_every_row_kept_the_reduced_objective_is_the_full_one(cancer, estimator):
    X, y = cancer
    problem = _problem(estimator, X, y)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    problem = problem.on_rows(np.arange(len(y)), multiplicity=weight)        # a weighted problem
    rows, weights = representative_rows(problem.data.y, problem.data.weight, len(y))
    assert np.array_equal(rows, np.arange(len(y))) and np.array_equal(weights, problem.data.weight)
    reduced = on_rows(problem, rows, weights)
    family = type(estimator)._family
    fitted = fit_quiet(estimator.set_params(time_limit=5, warm_start="greedy", solver_options={"mip_max_nodes": 0}),
                       X, y)
    tree = fitted.tree_
    assert family.objective(reduced, tree) == pytest.approx(family.objective(problem, tree), rel=1e-12)


def test_drawn_rows_keep_each_classs_weight_and_a_constant_models_objective(cancer):
    X, y = cancer
    est = OLCTClassifier(max_depth=1)
    problem = _problem(est, X, y)
    rows, weights = representative_rows(problem.data.y, problem.data.weight, 60, seed=3)
    assert 55 <= len(rows) <= 65 and len(np.unique(rows)) == len(rows)
    for label in (-1, 1):
        full = problem.data.weight[problem.data.y == label].sum()
        assert weights[problem.data.y[rows] == label].sum() == pytest.approx(full, rel=1e-12)
    # a tree whose hyperplane is 0: every row's loss is log 2 on both problems
    reduced = on_rows(problem, rows, weights)
    from optitrees.formulations.loss_optimal.solution import tree_objective
    from optitrees.trees import from_complete

    tree, _ = from_complete(np.zeros((0, X.shape[1])), np.zeros(0), leaf_weights=np.zeros((1, X.shape[1])),
                            leaf_intercepts=np.zeros(1))
    assert tree_objective(reduced, tree) == pytest.approx(tree_objective(problem, tree), rel=1e-12)


def test_a_regression_target_is_drawn_by_its_deciles():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = X[:, 0] ** 3 + rng.normal(size=300)
    est = LossOptimalTreeRegressor(max_depth=2)
    est._validate_params()
    from optitrees.formulations.oblique_regression import ObliqueRegressionProblem, ObliqueRegressionSpec
    from optitrees.scaling import ScaledData

    problem = ObliqueRegressionProblem.create(ObliqueRegressionSpec(depth=2), ScaledData.create(X, y, "standard"), y)
    found, tried = reduce_to_reach(problem, lambda p: type("S", (), {"n_rows": len(p.target), "n_cols": 1})(),
                                   lambda size: type("P", (), {"reachable": size.n_rows <= 150})())
    assert isinstance(found, ReducedRows) and found.n_rows <= 150 and not found.whole_rows
    assert found.problem.data.weight.sum() == pytest.approx(300.0)
    deciles = np.searchsorted(np.quantile(problem.target, np.linspace(0.1, 0.9, 9)), found.problem.target,
                              side="right")
    assert len(np.unique(deciles)) == 10                       # every decile of the target is represented


def test_nothing_is_reduced_below_the_fewest_rows(cancer):
    X, y = cancer
    problem = _problem(OLCTClassifier(max_depth=2), X[:90], y[:90])
    assert reduce_to_reach(problem, loss_optimal_size, lambda size: None) == (None, None)
    problem = _problem(OLCTClassifier(max_depth=2), X, y)
    never = type("P", (), {"reachable": False})()
    assert reduce_to_reach(problem, loss_optimal_size, lambda size: never) == (None, 100)
