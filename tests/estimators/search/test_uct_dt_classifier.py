"""UCTDTClassifier: budgets, reproducibility, parallel searches, forbidden features."""

import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from _support import within_limit
from optitrees import UCTDTClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:, :10], y


def test_time_limit_bounds_the_whole_fit(cancer):
    X, y = cancer
    t0 = time.perf_counter()
    clf = UCTDTClassifier(n_iterations=10**6, time_limit=2, random_state=0).fit(X, y)
    assert within_limit(time.perf_counter() - t0, 2.0)
    assert 0 < clf.n_iterations_ < 10**6


def test_same_seed_same_tree_and_parallel_searches_share_the_iterations(cancer):
    X, y = cancer
    a = UCTDTClassifier(n_iterations=60, random_state=3).fit(X, y)
    b = UCTDTClassifier(n_iterations=60, random_state=3).fit(X, y)
    assert np.array_equal(a.tree_.threshold, b.tree_.threshold) and a.validation_f1_ == b.validation_f1_
    par = UCTDTClassifier(n_iterations=60, n_jobs=2, random_state=3).fit(X, y)
    assert par.n_iterations_ <= 60 and par.validation_f1_ > 0.8


def test_forbidden_features_are_never_split_on(cancer):
    X, y = cancer
    clf = UCTDTClassifier(n_iterations=60, forbidden_features=[7, 2, 3], random_state=0).fit(X, y)
    used = set(clf.tree_.feature[~clf.tree_.is_leaf].tolist())
    assert used and not used & {7, 2, 3}


def test_bad_parameters_are_named_before_searching(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="policy"):
        UCTDTClassifier(policy="random").fit(X, y)
    with pytest.raises(ValueError, match="every feature is forbidden"):
        UCTDTClassifier(forbidden_features=list(range(10))).fit(X, y)
