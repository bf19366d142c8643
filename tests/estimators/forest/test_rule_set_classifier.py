"""RuleSetClassifier: the fitted rule set is the forest's, the LASSO's and the correctness models' (seed 004)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from optitrees import RuleSetClassifier
from optitrees.algorithms.rules.rule_extraction import forest_rules, rule_matrix
from optitrees.algorithms.rules.lasso_selection import correctness_model, lasso_select
from optitrees.trees import from_sklearn


@pytest.fixture(scope="module")
def fitted():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X, y = X.iloc[::2], y.iloc[::2]
    return X, y, RuleSetClassifier(n_rules=5, n_estimators=30, random_state=0).fit(X, y)


def test_fitted_rules_and_trust_models_are_those_of_the_steps(fitted):
    X, y, clf = fitted
    Xa, ya = X.to_numpy(float), y.to_numpy()
    # the forest was fitted on Xa / forest_scale_; its trees read back in the units of Xa
    candidates = forest_rules([from_sklearn(e, clf.forest_scale_) for e in clf.forest_.estimators_], Xa)
    assert clf.n_candidate_rules_ == len(candidates)
    keep, coef = lasso_select(rule_matrix(candidates, Xa), ya, 5, 3, 0)
    assert clf.rule_set_.rules == [candidates[k] for k in keep]
    assert np.allclose(clf.lasso_coef_, coef)
    used = sorted({j for r in clf.rule_set_.rules for j in r.features})
    for m, rule in enumerate(clf.rule_set_.rules):
        w, b = correctness_model(Xa[:, used], rule.predict(Xa) == ya, 3, 0)
        # printed weights are rounded without changing any training row's trusted / not trusted
        assert np.allclose(clf.rule_set_.trust_weights[m, used], w, rtol=1e-2, atol=1e-12)
        assert np.array_equal(clf.rule_set_.trusted(Xa)[:, m], Xa[:, used] @ w + b > 0)
        assert not np.any(np.delete(clf.rule_set_.trust_weights[m], used))   # only the K features of the rules


def test_predictions_follow_equation_two_and_the_explanation(fitted):
    X, y, clf = fitted
    ex = clf.explain(X)
    assert len(ex) == len(X) * 5
    votes = (ex["predicts"] == clf.classes_[1]).to_numpy(float).reshape(len(X), 5)
    w = ex["weight"].to_numpy().reshape(len(X), 5)
    assert set(np.unique(w)) <= {1.0, 2.0}
    assert np.array_equal(w == 2.0, ex["trusted"].to_numpy().reshape(len(X), 5))
    p = (w * votes).sum(1) / w.sum(1)
    assert np.allclose(clf.predict_proba(X)[:, 1], p)
    assert np.array_equal(clf.predict(X), clf.classes_[(p > 0.5).astype(int)])
    assert np.allclose(clf.decision_function(X), p - 0.5)
    assert clf.score(X, y) > 0.85


def test_equal_weights_give_the_plain_average_of_equation_one(fitted):
    X, y, clf = fitted
    plain = RuleSetClassifier(n_rules=5, n_estimators=30, correct_weight=1.0, random_state=0).fit(X, y)
    votes = plain.rule_set_.outputs(X.to_numpy(float))
    assert np.allclose(plain.predict_proba(X)[:, 1], votes.mean(axis=1))


def test_rules_are_short_and_the_forest_has_depth_three(fitted):
    X, y, clf = fitted
    assert all(r.length <= 6 and len(r.features) <= 3 for r in clf.rule_set_.rules)
    assert max(e.get_depth() for e in clf.forest_.estimators_) <= 3


def test_clear_errors():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="Only binary classification"):
        RuleSetClassifier().fit(X, y)
    X2, y2 = X[:60], (np.arange(60) < 1).astype(int)
    with pytest.raises(ValueError, match="at least 2 distinct rows"):
        RuleSetClassifier().fit(X2, y2)
    with pytest.raises(ValueError, match="correct_weight"):
        RuleSetClassifier(correct_weight=0).fit(X[:100], y[:100])
