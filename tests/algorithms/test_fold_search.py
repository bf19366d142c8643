"""The fold search every held-out choice shares (:mod:`optitrees.algorithms.fold_search`)."""

import time
import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from optitrees.algorithms.fold_search import balanced_accuracy, fewest_within, scores_on_folds


def _labels(n=40):
    return np.tile([0, 1, 1, 2], n // 4)


def test_each_candidate_is_scored_on_the_stratified_folds_by_hand():
    y = _labels()
    seen = []

    def fit_and_score(k, train, test):
        seen.append((k, tuple(test)))
        return float(k + y[test].mean())

    compared, folds, _ = scores_on_folds(y, 3, fit_and_score, n_folds=4, random_state=7)
    splits = list(StratifiedKFold(4, shuffle=True, random_state=7).split(np.zeros(len(y)), y))
    expected = [np.mean([k + y[test].mean() for _, test in splits]) for k in range(3)]
    np.testing.assert_allclose(compared, expected, rtol=1e-12)
    assert folds == 4
    # fold by fold: every candidate on a fold before the next fold
    assert [k for k, _ in seen] == [0, 1, 2] * 4 and seen[0][1] == seen[2][1] != seen[3][1]
    table = scores_on_folds(y, 3, fit_and_score, n_folds=4, random_state=7).table
    np.testing.assert_allclose(table, [[k + y[test].mean() for k in range(3)] for _, test in splits], rtol=1e-12)


def test_a_deadline_within_the_first_fold_compares_the_candidates_it_reached():
    def fit_and_score(k, train, test):
        if k == 2:
            time.sleep(3.0)
        return float(k)

    compared, folds, table = scores_on_folds(_labels(), 4, fit_and_score, deadline=time.perf_counter() + 1.0)
    assert compared.tolist() == [0.0, 1.0] and folds == 1 and table.tolist() == [[0.0, 1.0]]


def test_nothing_is_scored_with_one_row_in_a_class_one_class_or_a_passed_deadline():
    y = np.array([0] * 10 + [1])
    compared, folds, table = scores_on_folds(y, 2, lambda k, train, test: 1.0)
    assert compared.size == 0 and folds == 0 and table.size == 0
    compared, folds, _ = scores_on_folds(np.zeros(12, int), 2, lambda k, train, test: 1.0)
    assert compared.size == 0 and folds == 0
    compared, folds, _ = scores_on_folds(_labels(), 2, lambda k, train, test: 1.0, deadline=time.perf_counter() - 1)
    assert compared.size == 0 and folds == 0


def test_folds_are_lowered_to_the_smallest_class():
    y = np.array([0] * 10 + [1] * 3)
    _, folds, _ = scores_on_folds(y, 1, lambda k, train, test: 1.0, n_folds=5)
    assert folds == 3


@pytest.mark.parametrize("scores, tolerance, expected", [
    ([0.80, 0.90, 0.905, 0.91], 0.01, 1), ([0.80, 0.89, 0.905, 0.91], 0.01, 2), ([0.9, 0.9], 0.0, 0),
    ([0.5, 0.7, 0.6], 0.0, 1)])
def test_fewest_within_takes_the_first_score_within_the_tolerance_of_the_best(scores, tolerance, expected):
    assert fewest_within(scores, tolerance) == expected


def test_balanced_accuracy_weighs_each_class_equally():
    # class 0: 1 of 1 right; class 1: weight 1 of 4 right
    assert balanced_accuracy([0, 1, 1], [0, 0, 1], [1.0, 3.0, 1.0]) == pytest.approx((1.0 + 1 / 4) / 2)
    # scikit-learn's, with unit weights and three classes
    from sklearn.metrics import balanced_accuracy_score
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    assert balanced_accuracy(y, p, np.ones(50)) == pytest.approx(balanced_accuracy_score(y, p))
    # with each class's weights summing to one it is the weighted accuracy (balanced class weights)
    w = rng.uniform(0.5, 2.0, 50)
    w /= np.bincount(y, weights=w)[y]
    assert balanced_accuracy(y, p, w) == pytest.approx(w @ (y == p) / w.sum())
    # a class predicted but absent from the held-out rows counts for nothing, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert balanced_accuracy([0, 0, 1], [2, 0, 1], np.ones(3)) == pytest.approx((0.5 + 1.0) / 2)


def test_fewest_within_by_size_takes_the_smallest_within_the_tolerance():
    # scored dense first: [dense, 2, 3, 5]; 3 and dense are within a point, 3 has fewer features
    assert fewest_within([0.91, 0.85, 0.905, 0.91], 0.01, [np.inf, 2, 3, 5]) == 2
    assert fewest_within([0.91, 0.85], 0.01, [np.inf, 2, 3, 5]) == 0          # only those compared
    assert fewest_within([0.9, 0.9, 0.9], 0.0, [3, 2, 2]) == 1                # ties: the earlier


def test_fewest_within_one_standard_error_of_the_paired_shortfall():
    # dense [0] is best on the mean; budget 2 [1] is 2 points behind: outside the 1-point tolerance
    mean = [0.80, 0.78]
    assert fewest_within(mean, 0.01, [np.inf, 2]) == 0
    # folds that agree (shortfalls 0.02, 0.02, 0.02, 0.02): standard error 0, dense stays
    agree = [[0.70, 0.68], [0.90, 0.88], [0.75, 0.73], [0.85, 0.83]]
    assert fewest_within(mean, 0.01, [np.inf, 2], agree) == 0
    # folds that disagree (shortfalls 0.10, -0.06, 0.08, -0.04): standard error sqrt(var / 4) = 0.0408 > 0.02
    noisy = [[0.70, 0.60], [0.90, 0.96], [0.75, 0.67], [0.85, 0.89]]
    assert np.mean(noisy, axis=0) == pytest.approx(mean)
    assert np.std([0.10, -0.06, 0.08, -0.04], ddof=1) / 2 == pytest.approx(0.0408, abs=1e-4)
    assert fewest_within(mean, 0.01, [np.inf, 2], noisy) == 1
    # one fold (a search cut short) has no standard error: the tolerance alone
    assert fewest_within(mean, 0.01, [np.inf, 2], noisy[:1]) == 0
    # a table of other candidates than ``compared`` is not used
    assert fewest_within(mean, 0.01, [np.inf, 2], [[0.7], [0.9]]) == 0


def test_non_inferior_takes_fewer_features_only_where_every_fold_agrees():
    from optitrees.algorithms.fold_search import fewest_non_inferior

    sizes = [np.inf, 2, 5]
    # the 2-feature candidate has the best mean but loses 10 points on one fold of two: not non-inferior
    noisy = np.array([[0.80, 0.95, 0.81], [0.80, 0.70, 0.80]])
    assert fewest_non_inferior(noisy.mean(axis=0), 0, 0.01, sizes, noisy) == 2
    # on folds that agree, it is taken
    steady = np.array([[0.80, 0.80, 0.805], [0.80, 0.79, 0.795], [0.78, 0.78, 0.785]])
    assert fewest_non_inferior(steady.mean(axis=0), 0, 0.01, sizes, steady) == 1
    # a smaller non-inferior candidate far below a larger non-inferior one is not taken
    better = np.array([[0.80, 0.80, 0.90], [0.80, 0.81, 0.91]])
    assert fewest_non_inferior(better.mean(axis=0), 0, 0.01, sizes, better) == 2
    # no error without two folds: the reference
    assert fewest_non_inferior([0.7, 0.9, 0.9], 0, 0.01, sizes, [[0.7, 0.9, 0.9]]) == 0
