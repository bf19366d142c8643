"""``feature_importances_`` on every estimator, ``get_depth`` / ``get_n_leaves`` on the tree models."""

import numpy as np
import pytest
from _support import fit_quiet
from sklearn.datasets import load_breast_cancer

from optitrees import (C45Classifier, ContextualTreeClassifier, ContextualTreeRegressor,
                       GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, RiskScoreClassifier, RuleSetClassifier, TAOClassifier,
                       TMOClassifier, UCTDTClassifier)

FAST = dict(time_limit=3, solver_options={"mip_max_nodes": 20})
TREES = [OLCTClassifier(max_depth=2, **FAST), MARGOTClassifier(max_depth=2, **FAST),
         LossOptimalTreeClassifier(max_depth=2, **FAST), OCTClassifier(max_depth=2, **FAST),
         OCTHClassifier(max_depth=2, **FAST), TAOClassifier(max_depth=3), TMOClassifier(max_depth=2, n_estimators=8),
         C45Classifier(), UCTDTClassifier(n_iterations=100, random_state=0)]
OTHERS = [RiskScoreClassifier(n_rules=3, **FAST), GeneralizedRiskScoreClassifier(n_rules=2, **FAST),
          RuleSetClassifier(n_rules=4, n_estimators=20, random_state=0),
          ContextualTreeClassifier(n_estimators=5, max_epochs=5, random_state=0),
          ContextualTreeRegressor(n_estimators=5, max_epochs=5, random_state=0)]


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:200, :8], y[:200]


def _fit(est, X, y):
    if isinstance(est, RiskScoreClassifier):
        X = (X > np.median(X, axis=0)).astype(float)
    return fit_quiet(est, X, y), X


def _assert_distribution(est, X):
    fi = est.feature_importances_
    assert fi.shape == (X.shape[1],) and np.all(fi >= 0)
    assert fi.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("est", OTHERS, ids=lambda e: type(e).__name__)
def test_importances_are_a_distribution_over_the_features(est, data):
    est, X = _fit(est, *data)
    _assert_distribution(est, X)


@pytest.mark.parametrize("est", TREES, ids=lambda e: type(e).__name__)
def test_a_tree_credits_exactly_the_features_it_uses(est, data):
    """A distribution over the features, on those the tree's splits use (one fit for both checks)."""
    est, X = _fit(est, *data)
    _assert_distribution(est, X)
    tree = est.tree_
    used = np.flatnonzero(np.any(tree.weights != 0, axis=0))
    assert set(np.flatnonzero(est.feature_importances_)) <= set(used)
    assert est.get_depth() == tree.max_depth + est._leaf_models_are_a_layer and est.get_n_leaves() == tree.n_leaves == int(tree.is_leaf.sum())
    if tree.is_axis_aligned and tree.leaf_model == "label":
        # axis-aligned: each split's training points go to its feature
        splits = np.flatnonzero(~tree.is_leaf)
        expected = np.bincount(tree.feature[splits], weights=tree.value[splits].sum(axis=1), minlength=X.shape[1])
        assert est.feature_importances_ == pytest.approx(expected / expected.sum())


def test_a_forbidden_feature_has_no_importance(data):
    X, y = data
    est = fit_quiet(OCTHClassifier(max_depth=2, forbidden_features=[0, 3], **FAST), X, y)
    assert est.feature_importances_[[0, 3]].tolist() == [0.0, 0.0]


def test_max_depth_and_get_depth_mean_the_same_in_every_tree():
    """A full tree of ``max_depth=2`` has ``get_depth() == 2`` whether its last layer is a split into labels (OCT)
    or the leaves' hyperplanes (OLCT, seed 002's depth)."""
    from sklearn.datasets import load_breast_cancer

    from optitrees import OCTClassifier, OLCTClassifier

    X, y = load_breast_cancer(return_X_y=True)
    oct_ = OCTClassifier(max_depth=2, time_limit=30).fit(X, y)
    olct = OLCTClassifier(max_depth=2, time_limit=30, solver_options={"mip_max_nodes": 0}).fit(X, y)
    assert olct.tree_.n_nodes == 3 and oct_.tree_.n_nodes == 7          # both full
    assert olct.get_depth() == oct_.get_depth() == 2
