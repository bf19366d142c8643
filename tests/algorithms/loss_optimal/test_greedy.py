"""The greedy start of loss-optimal trees and the last-layer refinement."""

import numpy as np
import pytest

from optitrees.algorithms.loss_optimal.greedy import clear_gap, greedy_tree, within_bounds
from optitrees.algorithms.node_fit import node_fitter
from optitrees.algorithms.loss_optimal.refine import refine_last_layer
from optitrees.formulations import loss_optimal_tree
from optitrees.formulations.loss_optimal.solution import start, tree_objective


@pytest.fixture
def formulation():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    return loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", C=4.0, forbidden=[2])


def test_greedy_tree_is_feasible_and_uses_no_forbidden_feature(formulation):
    problem = formulation.problem
    allowed = np.array([True, True, False])
    tree = greedy_tree(problem, node_fitter(problem.spec, 0, allowed))
    assert np.all(tree.weights[:, 2] == 0)
    x = start(formulation, tree)
    assert formulation.violation(x) < 1e-9
    assert np.all(np.abs(tree.weights).sum(axis=1) <= problem.spec.weight_bound + 1e-9)


def test_refinement_never_increases_the_objective(formulation):
    problem = formulation.problem
    fit = node_fitter(problem.spec, 0)
    tree = greedy_tree(problem, fit)
    worse = tree.with_nodes(np.flatnonzero(tree.is_leaf), intercept=tree.intercept[tree.is_leaf] + 2.0)
    refined = refine_last_layer(worse, problem, fit)
    assert tree_objective(problem, refined) <= tree_objective(problem, worse) - 1.0
    assert np.array_equal(refined.apply(problem.data.X), worse.apply(problem.data.X))   # routing unchanged
    assert tree_objective(problem, refine_last_layer(refined, problem, fit)) <= tree_objective(problem, refined)


def test_clear_gap_and_bounds():
    values = np.array([-1.0, 0.3e-5, 2.0])
    c = clear_gap(values, 1e-5)
    shifted = values - c
    assert not np.any((shifted > 0) & (shifted < 1e-5))
    w, b = within_bounds(np.array([3.0, -4.0]), 50.0, 5.0, 10.0)
    assert np.abs(w).sum() <= 5.0 + 1e-12 and abs(b) <= 10.0 + 1e-12 and w[0] / w[1] == pytest.approx(-0.75)


def test_a_greedy_tree_cut_by_its_deadline_is_complete_and_feasible(formulation):
    import time

    problem = formulation.problem
    fitted = []

    def fit(X, y, h, **kw):
        fitted.append(h)
        return node_fitter(problem.spec, 0)(X, y, h, **kw)

    tree = greedy_tree(problem, fit, deadline=time.perf_counter() - 1.0)
    assert fitted == []                                       # no node was fitted after the deadline
    assert np.all(tree.weights == 0)
    assert formulation.violation(start(formulation, tree)) < 1e-9
