"""TAO of loss-optimal trees: never worse than its start, a feasible MIP start, dead nodes zeroed."""

import numpy as np
import pytest

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.algorithms.loss_optimal.tao_loss_optimal import tao_loss_optimal
from optitrees.formulations import loss_optimal_tree
from optitrees.formulations.loss_optimal.solution import start, tree_objective


def _xor(seed, n=120):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    return (X - X.mean(0)) / X.std(0), y


@pytest.mark.parametrize("kwargs", [dict(loss="logistic", regularizer="l1", C=5.0),
                                    dict(loss="hinge", regularizer="l2", C=2.0, l2_method="outer"),
                                    dict(loss=["hinge", "logistic"], regularizer="l1", feature_selection="soft",
                                         alpha=0.2),
                                    dict(loss="logistic", regularizer="l1", feature_selection="hard",
                                         max_features=1)])
def test_tao_improves_the_greedy_tree_and_stays_a_feasible_start(kwargs):
    X, y = _xor(0)
    f = loss_optimal_tree(X, y, depth=2, **kwargs)
    problem = f.problem
    fit = node_fitter(problem.spec, 0)
    greedy = greedy_tree(problem, fit)
    tree = tao_loss_optimal(greedy, problem, fit)
    assert tree_objective(problem, tree) <= tree_objective(problem, greedy) + 1e-9
    assert f.violation(start(f, tree)) < 1e-7
    if problem.spec.budget is not None:
        assert np.all((tree.weights != 0).sum(axis=1) <= 1)


def test_tao_finds_the_xor_that_greedy_misses():
    X, y = _xor(3, n=200)
    f = loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", C=5.0)
    fit = node_fitter(f.problem.spec, 0)
    greedy = greedy_tree(f.problem, fit)
    tree = tao_loss_optimal(greedy, f.problem, fit)
    assert tree_objective(f.problem, tree) < 0.95 * tree_objective(f.problem, greedy)
    assert np.mean(np.where(tree.predict(X) == 1, 1, -1) == y) > np.mean(np.where(greedy.predict(X) == 1, 1, -1) == y)


def test_unreached_nodes_cost_nothing():
    X, y = _xor(2, n=60)
    f = loss_optimal_tree(X, y, depth=3, loss="logistic", regularizer="l1", C=1.0)
    fit = node_fitter(f.problem.spec, 0)
    tree = tao_loss_optimal(greedy_tree(f.problem, fit), f.problem, fit)
    reached = np.unique(tree.decision_path(X))
    unreached = np.setdiff1d(np.arange(tree.n_nodes), reached)
    assert np.all(tree.weights[unreached] == 0)


def test_no_node_fit_starts_after_the_deadline():
    import time

    X, y = _xor(3, n=200)
    f = loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", C=5.0)
    problem = f.problem
    fit = node_fitter(problem.spec, 0)
    greedy = greedy_tree(problem, fit)
    calls = []

    def counting(*args, **kwargs):
        calls.append(time.perf_counter())
        return fit(*args, **kwargs)

    deadline = time.perf_counter() + 0.05
    tree = tao_loss_optimal(greedy, problem, counting, deadline=deadline)
    assert all(t < deadline for t in calls)                 # mid-step too: each fit checks the clock
    assert tree_objective(problem, tree) <= tree_objective(problem, greedy) + 1e-9
    assert f.violation(start(f, tree)) < 1e-7
    assert tao_loss_optimal(greedy, problem, counting, deadline=time.perf_counter()).weights.tolist() == \
        greedy.weights.tolist()


def test_intercept_moves_alone_walk_the_root_to_a_better_boundary():
    """With candidate fits that only return the node's own hyperplane, the split step still moves the root:
    its intercept shifts (a few points change sides at a time, only where no point falls in (0, eps)) and
    each accepted shift lowers the exact objective."""
    from optitrees.algorithms.loss_optimal import tao_loss_optimal as tao
    from optitrees.algorithms.fixed_tree import FixedTree

    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(-1, 1, size=(300, 1)), axis=0)
    y = np.where(X[:, 0] > 0.3, 1.0, -1.0)
    f = loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", C=5.0)
    problem, fit = f.problem, node_fitter(f.problem.spec, 0)
    tree = greedy_tree(problem, fit)
    ft = FixedTree.from_tree(tree, 1)
    zero = problem.data.X[np.searchsorted(X[:, 0], 0.0), 0]        # x = 0 in the scaled units of problem.data.X
    ft.W[0], ft.b[0] = np.array([4.0]), -4.0 * zero                    # the root cuts at x = 0
    ft.b[0] -= tao.clear_gap(problem.data.X @ ft.W[0] + ft.b[0], problem.eps)

    def own_hyperplane_or_leaf_fit(Xn, yn, h, **kwargs):
        return (ft.W[0].copy(), float(ft.b[0])) if h == 0 else fit(Xn, yn, h, **kwargs)

    run = tao._LossTAO(problem, own_hyperplane_or_leaf_fit)
    rows = np.arange(len(y))
    values = [tree_objective(problem, ft.to_tree())]
    while run.split_step(ft, 1, rows) and len(values) < 40:
        values.append(tree_objective(problem, ft.to_tree()))
        scores = problem.data.X @ ft.W[0] + ft.b[0]
        assert not np.any((scores > 0) & (scores < problem.eps))
    assert len(values) > 2 and np.all(np.diff(values) < 0)
    boundary = -ft.b[0] / ft.W[0][0]                             # in the scaled units of problem.data.X
    cut = problem.data.X[np.searchsorted(X[:, 0], 0.3), 0]
    assert abs(boundary - cut) < abs(zero - cut) / 2
