"""A start outside the MIP's class reaches the solver scaled into it
(:mod:`optitrees.estimators.mip_fit.class_start`)."""

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import OLCTClassifier
from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.estimators.mip_fit.class_start import start_within_class
from optitrees.formulations import olct
from optitrees.formulations.loss_optimal.solution import LOSS_OPTIMAL, start, tree_from_hyperplanes
from optitrees.trees import to_complete


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
    return olct(X, y, depth=2, weight_bound=1.0)


def _vector(f):
    return lambda tree: start(f, tree)


def test_a_tree_beyond_the_bound_gets_the_vector_of_its_scaled_tree(model):
    f, problem = model, model.problem
    tree = greedy_tree(problem, node_fitter(problem.spec, 0))
    long = tree.with_nodes(np.arange(tree.n_nodes), weights=4 * tree.weights, intercept=4 * tree.intercept)
    long = long.with_nodes(np.flatnonzero(~long.is_leaf), threshold=4 * tree.threshold[~tree.is_leaf])
    assert np.array_equal(long.apply(problem.data.X), tree.apply(problem.data.X))
    assert f.violation(start(f, long)) > 1e-3
    x = start_within_class(LOSS_OPTIMAL, problem, f, long, _vector(f))
    assert x is not None and f.violation(x) < 1e-9
    # the vector routes every point as the tree does, and its hyperplanes agree
    z = f.values(x)["z"]
    leaf = to_complete(long, 1).position[long.apply(problem.data.X)]
    assert np.array_equal(f.sets["T_last"][z.argmax(axis=1)], leaf)
    decoded, checks = LOSS_OPTIMAL.decode(f, x)
    assert checks["routing_mismatches"] == 0
    assert np.array_equal(decoded.predict(problem.data.X), long.predict(problem.data.X))


def test_no_vector_without_the_map_a_tree_or_a_feasible_scaled_tree(model):
    f, problem = model, model.problem
    tree = greedy_tree(problem, node_fitter(problem.spec, 0))
    without = dataclasses.replace(LOSS_OPTIMAL, within_class=None)
    assert start_within_class(without, problem, f, tree, _vector(f)) is None
    assert start_within_class(LOSS_OPTIMAL, problem, f, "not a tree", _vector(f)) is None
    assert start_within_class(LOSS_OPTIMAL, problem, f, tree, lambda t: None) is None
    # a root that splits two points closer than the margin eps: no tree of the class routes as it does
    X = np.array([[0.0], [1e-5], [1.0], [2.0]])
    g = olct(X, np.array([-1.0, 1.0, -1.0, 1.0]), depth=2, weight_bound=1.0)
    close = tree_from_hyperplanes(g.problem, np.ones((3, 1)), np.zeros(3)).with_nodes([0], threshold=np.array([5e-6]))
    assert g.problem.eps > 1e-5 and close.apply(X)[0] != close.apply(X)[1]
    assert start_within_class(LOSS_OPTIMAL, g.problem, g, close, _vector(g)) is None


def test_a_fit_whose_best_start_is_beyond_the_bound_hands_it_to_the_solver_scaled(monkeypatch):
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 120, replace=False)
    X, y = X[rows], y[rows]
    real = OLCTClassifier._starts
    handed = []

    def long_greedy(self, problem, deadline, methods):
        tree = real(self, problem, deadline, ("greedy",))["greedy"]
        inner = np.flatnonzero(~tree.is_leaf)
        long = tree.with_nodes(np.arange(tree.n_nodes), weights=3 * tree.weights, intercept=3 * tree.intercept)
        return {"greedy": long.with_nodes(inner, threshold=3 * tree.threshold[inner])}

    from optitrees.estimators.mip_fit import pipeline
    solve = pipeline.MIPFit.solve
    monkeypatch.setattr(OLCTClassifier, "_starts", long_greedy)
    monkeypatch.setattr(pipeline.MIPFit, "solve", lambda self, f, x0: handed.append((f, x0)) or solve(self, f, x0))
    clf = OLCTClassifier(max_depth=2, max_features=None, weight_bound=1.0, time_limit=30, random_state=0,
                         refine=False, solver_options={"mip_max_nodes": 1}).fit(X, y)
    notes = " ".join(clf.fit_report_.notes)
    assert "the solver starts from it scaled into the MIP's class" in notes, notes
    f, x0 = handed[-1]
    assert x0 is not None and f.violation(x0) < 1e-6
    assert clf.objective_ <= clf.fit_report_.starts["greedy"] + 1e-9
