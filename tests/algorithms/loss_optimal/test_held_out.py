"""The held-out choices of a loss-optimal tree's loss weights C (seed 002, Section 3.3's cross-validation) and of
its feature budget (3.14's HFS budget)."""

import time
from dataclasses import replace

import numpy as np
import pytest
from scipy.special import expit
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.loss_optimal.held_out import (choose_C, choose_budget, held_out_balanced_accuracy,
                                                        held_out_loss)
from optitrees.algorithms.node_fit import node_fitter
from optitrees.formulations.loss_optimal.model import LossOptimalProblem, LossOptimalSpec
from optitrees.formulations.loss_optimal.solution import tree_objective
from optitrees.scaling import ScaledData


def _problem(n=80, p=3, noise=0, seed=4, weight=None, loss="logistic"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p + noise))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + rng.logistic(size=n) > 0, 1.0, -1.0)
    spec = LossOptimalSpec.create(depth=2, loss=loss, regularizer="l1", C=1.0)
    return LossOptimalProblem.create(spec, ScaledData.create(X, y, None, weight=weight))


def _fitter(p):
    return node_fitter(p.spec, 0)


def test_the_held_out_loss_is_the_weighted_log_loss_of_the_leaves():
    weight = np.random.default_rng(0).integers(1, 4, 80).astype(float)
    problem = _problem(weight=weight)
    tree = greedy_tree(problem, _fitter(problem))
    rows = np.arange(10, 70)
    _, values = tree.path_values(problem.data.X[rows])
    expected = log_loss(problem.data.y[rows] > 0, expit(values[:, -1]), sample_weight=weight[rows])
    assert held_out_loss(problem, tree, rows) == pytest.approx(expected, rel=1e-12)


def test_the_choice_is_the_least_mean_loss_over_the_folds():
    problem = _problem()
    candidates = [0.01, 1.0, (0.1, 10.0)]
    choice = choose_C(problem, candidates, _fitter, n_folds=3, random_state=5)
    # by hand: the same folds, each candidate's greedy tree on two folds scored on the third
    folds = list(StratifiedKFold(3, shuffle=True, random_state=5).split(problem.data.X, problem.data.y))
    by_hand = []
    for C in candidates:
        p = problem.with_C(C)
        losses = []
        for train, test in folds:
            sub = p.on_rows(train)
            losses.append(held_out_loss(p, greedy_tree(sub, _fitter(sub)), test))
        by_hand.append(np.mean(losses))
    np.testing.assert_allclose(choice.mean_loss, by_hand, rtol=1e-12)
    assert choice.folds_scored == 3 and choice.candidates_scored == 3
    np.testing.assert_array_equal(choice.C, problem.with_C(candidates[int(np.argmin(by_hand))]).spec.C)
    np.testing.assert_array_equal(choice.candidates[2], [0.1, 10.0])


def test_many_noise_features_on_few_rows_choose_a_strong_regularization():
    # 40 rows, 2 informative features and 30 of noise: the weakly regularized greedy trees fit the noise
    problem = _problem(n=40, p=2, noise=30, seed=1)
    choice = choose_C(problem, [0.01, 0.1, 1.0, 10.0, 100.0], _fitter, n_folds=4)
    assert choice.C[0] <= 0.1, choice.mean_loss
    assert choice.mean_loss[-1] > choice.mean_loss.min()


def test_a_passed_deadline_scores_no_fold_and_returns_the_fallback():
    problem = _problem()
    choice = choose_C(problem, [0.1, 1.0, 10.0], _fitter, fallback=1, deadline=time.perf_counter() - 1.0)
    assert choice.folds_scored == 0 and choice.candidates_scored == 0 and np.all(np.isnan(choice.mean_loss))
    np.testing.assert_array_equal(choice.C, [1.0, 1.0])


def test_a_deadline_within_the_first_fold_compares_the_candidates_it_reached():
    problem = _problem()

    def fitter_for(p):
        fit = _fitter(p)
        if p.spec.C[0] == 10.0:                   # the third candidate's greedy tree outlasts the deadline
            def slow(*args, **kwargs):
                time.sleep(3.0)
                return fit(*args, **kwargs)
            return slow
        return fit

    choice = choose_C(problem, [0.01, 1.0, 10.0, 100.0], fitter_for, deadline=time.perf_counter() + 1.0)
    assert choice.folds_scored == 1 and choice.candidates_scored == 2
    assert np.isfinite(choice.mean_loss[:2]).all() and np.isnan(choice.mean_loss[2:]).all()
    assert choice.C[0] == [0.01, 1.0][int(np.argmin(choice.mean_loss[:2]))]


def test_a_class_of_one_row_scores_nothing_and_returns_the_fallback():
    problem = _problem()
    y = problem.data.y.copy()
    y[:] = -1.0
    y[0] = 1.0
    one = replace(problem, data=replace(problem.data, y=y))
    choice = choose_C(one, [0.1, 1.0], _fitter, fallback=0)
    assert choice.folds_scored == 0 and choice.C.tolist() == [0.1, 0.1]


def test_with_C_changes_only_the_loss_weights():
    problem = _problem(loss="hinge")
    tree = greedy_tree(problem, _fitter(problem))
    base = tree_objective(problem, tree)
    penalty = tree_objective(problem.with_C(0.0), tree)
    # the objective is linear in C: C * loss + penalty
    assert tree_objective(problem.with_C(2.0), tree) == pytest.approx(2 * (base - penalty) + penalty, rel=1e-12)
    assert 0 < penalty < base
    assert problem.with_C((0.5, 3.0)).spec.C.tolist() == [0.5, 3.0] and problem.spec.C.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="C must be finite and non-negative"):
        problem.with_C(-1.0)


def test_on_rows_with_multiplicities_is_the_problem_of_the_repeated_rows():
    problem = _problem()
    rows, times = np.array([0, 3, 7, 20]), np.array([1, 2, 1, 3])
    sub = problem.on_rows(rows, times)
    tree = greedy_tree(problem, _fitter(problem))
    repeated = problem.on_rows(np.repeat(rows, times))
    assert tree_objective(sub, tree) == pytest.approx(tree_objective(repeated, tree), rel=1e-12)
    assert sub.eps == problem.eps and sub.intercept_bound == problem.intercept_bound
    np.testing.assert_array_equal(sub.bound, problem.bound[rows])


# ------------------------------------------------------------------------------------------- the feature budget
def _sum_problem(n_informative, n=300, p=12, seed=3):
    """Labels from the sign of the sum of ``n_informative`` of ``p`` features (no noise)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, :n_informative].sum(axis=1) > 0, 1.0, -1.0)
    spec = LossOptimalSpec.create(depth=2, loss="logistic", regularizer="l1", C=1.0)
    return LossOptimalProblem.create(spec, ScaledData.create(X, y, None))


def test_the_held_out_balanced_accuracy_is_each_class_weighted_share_the_leaves_classify_right():
    weight = np.random.default_rng(1).integers(1, 4, 80).astype(float)
    problem = _problem(weight=weight)
    tree = greedy_tree(problem, _fitter(problem))
    rows = np.arange(5, 75)
    _, values = tree.path_values(problem.data.X[rows])
    y = problem.data.y[rows]
    right = (values[:, -1] > 0) == (y > 0)
    w = weight[rows]
    by_class = [w[y == c] @ right[y == c] / w[y == c].sum() for c in (-1.0, 1.0)]
    assert 0 < min(by_class) < 1 and by_class[0] != pytest.approx(by_class[1])
    assert held_out_balanced_accuracy(problem, tree, rows) == pytest.approx(np.mean(by_class))


@pytest.mark.parametrize("informative, allowed", [(1, (1,)), (10, (8, None))])
def test_the_budget_chosen_is_the_fewest_features_within_the_tolerance_of_the_best(informative, allowed):
    problem = _sum_problem(informative)
    candidates = (1, 2, 3, 5, 8, None)
    choice = choose_budget(problem, candidates, _fitter, tolerance=0.01, n_folds=4, random_state=0)
    assert choice.folds_scored == 4 and choice.candidates_scored == 6
    mean = choice.mean_balanced_accuracy
    k = candidates.index(choice.budget)
    # the rule, on the reported means: the first candidate within 1 point of the best
    assert mean[k] >= mean.max() - 0.01 and np.all(mean[:k] < mean.max() - 0.01)
    # and what it means on these data: one feature decides the first; ten are needed in the second
    assert choice.budget in allowed, mean
    if informative == 10:
        assert mean[0] < mean.max() - 0.1


def test_the_budget_choice_scores_the_greedy_trees_by_hand():
    problem = _sum_problem(3, n=120)
    choice = choose_budget(problem, (1, 3), _fitter, n_folds=3, random_state=2)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=2).split(problem.data.X, problem.data.y))
    by_hand = []
    for budget in (1, 3):
        p = problem.with_budget(budget)
        scores = []
        for train, test in folds:
            sub = p.on_rows(train)
            tree = greedy_tree(sub, _fitter(sub))
            assert np.all(np.count_nonzero(tree.weights, axis=1) <= budget)
            scores.append(held_out_balanced_accuracy(p, tree, test))
        by_hand.append(np.mean(scores))
    np.testing.assert_allclose(choice.mean_balanced_accuracy, by_hand, rtol=1e-12)


def test_no_fold_scored_gives_the_fallback_budget():
    problem = _sum_problem(2)
    choice = choose_budget(problem, (1, 3, None), _fitter, fallback=1, deadline=time.perf_counter() - 1.0)
    assert choice.budget == 3 and choice.folds_scored == 0 and np.all(np.isnan(choice.mean_balanced_accuracy))
    with pytest.raises(ValueError, match="at least one candidate"):
        choose_budget(problem, (), _fitter)


def test_with_budget_sets_or_drops_the_hfs_budget():
    problem = _problem()
    three = problem.with_budget(3)
    assert three.spec.feature_selection == "hard" and three.spec.budget.tolist() == [3, 3]
    assert problem.with_budget((1, 4)).spec.budget.tolist() == [1, 4]
    dense = three.with_budget(None)
    assert dense.spec.feature_selection is None and dense.spec.budget is None
    assert problem.spec.budget is None                       # the problem itself is left as it was
    for bad in (0, 2.5):
        with pytest.raises(ValueError, match="positive integer"):
            problem.with_budget(bad)
    soft = LossOptimalProblem.create(LossOptimalSpec.create(depth=1, feature_selection="soft", alpha=1.0),
                                     problem.data)
    with pytest.raises(ValueError, match="SFS"):
        soft.with_budget(2)
