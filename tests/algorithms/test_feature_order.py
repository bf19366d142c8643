"""The order in which the l1-logistic path admits the features (the tree-wide feature budget's screen)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from optitrees.algorithms.feature_order import l1_entry_order


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    y = (2.0 * X[:, 3] - X[:, 6] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_the_signal_features_enter_first_and_every_feature_is_returned_once():
    X, y = _binary()
    X[:, 5] = 7.0                                               # constant: never splits anything, goes last
    order = l1_entry_order(X, y)
    assert order[:2].tolist() == [3, 6]
    assert sorted(order.tolist()) == list(range(8)) and order[-1] == 5


def test_the_first_feature_is_the_one_of_largest_gradient_at_zero():
    # at the all-zero model (balanced classes: the intercept's gradient is 0) a feature enters first where
    # |sum_i s_i z_ij| is largest, z the standardized column: checked by hand on random data
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 6)) * rng.uniform(0.1, 50, size=6)
    y = np.r_[np.zeros(100, int), np.ones(100, int)]
    X[y == 1] += rng.normal(scale=0.4, size=6) * X.std(axis=0)
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    s = np.where(y == 1, 1.0, -1.0)
    assert l1_entry_order(X, y)[0] == int(np.argmax(np.abs(s @ z)))


def test_the_order_does_not_depend_on_the_units():
    X, y = _binary()
    scaled = X * np.array([1, 1000, 1e-3, 5, 1, 1, 0.01, 1])
    np.testing.assert_array_equal(l1_entry_order(X, y), l1_entry_order(scaled, y))


def test_only_allowed_features_are_ordered():
    X, y = _binary()
    allowed = np.ones(8, bool)
    allowed[3] = False
    order = l1_entry_order(X, y, allowed=allowed)
    assert 3 not in order and sorted(order.tolist()) == [0, 1, 2, 4, 5, 6, 7] and order[0] == 6


def test_a_weight_is_a_repeated_row():
    X, y = _binary(120, seed=1)
    weight = np.random.default_rng(2).integers(1, 4, size=len(y))
    repeated = np.repeat(np.arange(len(y)), weight)
    np.testing.assert_array_equal(l1_entry_order(X, y, sample_weight=weight.astype(float))[:4],
                                  l1_entry_order(X[repeated], y[repeated])[:4])


def test_a_path_stopped_early_still_returns_every_feature_with_the_entered_first():
    X, y = _binary()
    full = l1_entry_order(X, y)
    short = l1_entry_order(X, y, most=2)
    assert short[:2].tolist() == full[:2].tolist() and sorted(short.tolist()) == list(range(8))
    # a deadline already past: nothing enters, every feature still returned
    assert sorted(l1_entry_order(X, y, deadline=0.0).tolist()) == list(range(8))


def test_more_than_two_classes_one_against_the_rest():
    X, y = load_iris(return_X_y=True)
    order = l1_entry_order(X, y)
    assert sorted(order.tolist()) == [0, 1, 2, 3]
    # the petal measures separate the classes; a sepal measure does not enter first
    assert order[0] in (2, 3)


@pytest.mark.parametrize("labels", [np.zeros(30, int), np.r_[np.zeros(15, int), np.ones(15, int)]])
def test_one_class_or_constant_columns_give_the_features_in_index_order(labels):
    X = np.ones((30, 3))
    assert l1_entry_order(X, labels).tolist() == [0, 1, 2]


def test_a_continuous_target_takes_the_lasso_path():
    """A regression tree's target: the features enter in the order of the lasso path (scikit-learn's
    ``lasso_path``, its coefficients first nonzero), largest effect first."""
    from sklearn.linear_model import lasso_path

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6)) * [1, 5, 1, 0.2, 1, 1]
    y = 3 * X[:, 4] - 0.4 * X[:, 1] + 2.5 * X[:, 3] + 0.1 * rng.normal(size=300)
    Z = (X - X.mean(0)) / X.std(0)
    _, coefs, _ = lasso_path(Z, y - y.mean(), alphas=400, eps=1e-4)
    first = np.argmax(coefs != 0, axis=1).astype(float)
    first[~(coefs != 0).any(axis=1)] = np.inf
    expected = np.argsort(first, kind="stable")[:3]
    order = l1_entry_order(X, y)
    assert order[:3].tolist() == expected.tolist() == [4, 1, 3]
    assert sorted(order.tolist()) == list(range(6))
    assert l1_entry_order(X, y, allowed=np.arange(6) != 4)[:2].tolist() == [1, 3]
