"""check_against_baseline: held-out accuracies by hand, the rule, ties, no evidence, and the search's time shares."""

import time

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from optitrees.algorithms.local_search.baseline_check import check_against_baseline


def _labels(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    rng.shuffle(y)
    return y


def _constant(label):
    return lambda train, *deadline: (lambda rows: np.full(len(rows), label))


def test_scores_are_the_weighted_held_out_accuracies_of_each_fold():
    y = _labels()
    weight = np.linspace(0.5, 2.0, len(y))
    truth = lambda train, *deadline: (lambda rows: y[rows])           # noqa: E731  right on every row
    check = check_against_baseline(y, weight, _constant(1), truth, n_folds=4, random_state=3)
    folds = StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros(len(y)), y)
    by_hand = [np.average(y[test] == 1, weights=weight[test]) for _, test in folds]
    assert check.folds_scored == 4
    assert np.allclose(check.table[:, 0], by_hand) and np.allclose(check.table[:, 1], 1.0)
    assert check.baseline == pytest.approx(np.mean(by_hand)) and check.search == 1.0
    assert check.keeps_search


def test_the_baseline_wins_only_when_it_holds_out_better():
    y = _labels()
    weight = np.ones(len(y))
    truth = lambda train, *deadline: (lambda rows: y[rows])           # noqa: E731
    assert not check_against_baseline(y, weight, truth, _constant(0), n_folds=4).keeps_search
    tie = check_against_baseline(y, weight, truth, truth, n_folds=4)
    assert tie.keeps_search and tie.baseline == tie.search == 1.0     # a tie keeps the search


def test_the_search_sees_only_its_training_rows():
    y = _labels()
    seen = []

    def search(train, deadline):
        seen.append(train)
        return lambda rows: y[rows]

    check_against_baseline(y, np.ones(len(y)), _constant(0), search, n_folds=4, random_state=1)
    folds = list(StratifiedKFold(4, shuffle=True, random_state=1).split(np.zeros(len(y)), y))
    assert len(seen) == 4 and all(np.array_equal(a, train) for a, (train, _) in zip(seen, folds))


def test_no_evidence_keeps_the_search():
    y = np.zeros(20, int)                                             # one class: no folds
    check = check_against_baseline(y, np.ones(20), _constant(1), _constant(0), n_folds=4)
    assert check.folds_scored == 0 and check.keeps_search and np.isnan(check.baseline)
    y = _labels()
    past = time.perf_counter() - 1.0                                  # no time: nothing scored
    check = check_against_baseline(y, np.ones(len(y)), _constant(1), _constant(0), n_folds=4, deadline=past)
    assert check.folds_scored == 0 and check.keeps_search
    assert check.as_dict()["held_out_accuracy_per_fold"].shape == (0, 2)


def test_each_fold_search_gets_an_equal_share_of_the_time_left():
    y = _labels()
    deadlines = []

    def search(train, deadline):
        deadlines.append((time.perf_counter(), deadline))
        return lambda rows: y[rows]

    end = time.perf_counter() + 1000.0
    check_against_baseline(y, np.ones(len(y)), _constant(0), search, n_folds=4, deadline=end)
    assert len(deadlines) == 4
    for k, (now, deadline) in enumerate(deadlines):                   # the time left over the folds left
        assert deadline == pytest.approx(now + (end - now) / (4 - k), abs=1.0)
    check_against_baseline(y, np.ones(len(y)), _constant(0), lambda train, d: deadlines.append(d) or
                           (lambda rows: y[rows]), n_folds=2)
    assert deadlines[-2:] == [None, None]                             # no deadline: none per fold
