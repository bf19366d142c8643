"""RiskScoreClassifier (ORS, model 4.5): score card, predictions, backends, input checks."""

import json

import numpy as np
import pytest

from optitrees import RiskScoreClassifier
from _support import fit_quiet, needs_scip


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = (rng.random((120, 6)) < 0.4).astype(int)
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.7, 120) > 0.5, "yes", "no")
    return X, y


def test_score_card_and_predictions_agree(data):
    X, y = data
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=30, random_state=0), X, y)
    s = clf.scores_
    assert np.count_nonzero(s) <= 3 and s.min() >= -3 and s.max() <= 3
    assert np.allclose(clf.decision_function(X), X @ s + clf.intercept_)
    proba = clf.predict_proba(X)[:, 1]
    table = clf.risk_table().set_index("score")["probability"]
    totals = X @ s
    assert np.allclose(proba, table.loc[totals].to_numpy())
    assert clf.score_card()["points"].tolist() == s[s != 0].tolist()
    text = clf.export_text()
    assert "intercept" in text and "P(yes)" in text
    assert json.loads(json.dumps(clf.to_dict()))["positive_class"] == "yes"
    assert clf.solver_result_.checks["objective_discrepancy"] < 1e-6
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9


def test_exactly_t_rules_selects_t_features(data):
    X, y = data
    from optitrees.formulations.risk_scores import ors
    from optitrees.solvers import solve

    y_pm = np.where(y == "yes", 1.0, -1.0)
    f = ors(X, y_pm, n_rules=4, scores=range(-2, 3), tangents="V1", exact_rules=True)
    res = solve(f, mip_gap=0, time_limit=60)
    assert np.round(f.values(res.x)["a"]).sum() == 4


@needs_scip
def test_same_optimum_from_two_backends(data):
    X, y = data
    X, y = X[:60], y[:60]
    opts = dict(n_rules=2, min_score=-2, max_score=2, tangents="V1", mip_gap=0, time_limit=60)
    a = fit_quiet(RiskScoreClassifier(solver="highs", **opts), X, y)
    b = fit_quiet(RiskScoreClassifier(solver="scip", **opts), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"
    assert a.solver_result_.objective == pytest.approx(b.solver_result_.objective, rel=1e-7, abs=1e-7)


def test_rejects_non_binary_features_and_bad_parameters(data):
    X, y = data
    with pytest.raises(ValueError, match="generalized risk score"):
        RiskScoreClassifier().fit(X + 0.5, y)
    for params, match in [(dict(n_rules=0), "n_rules"), (dict(min_score=1), "containing 0"),
                          (dict(max_score=2.5), "max_score"), (dict(tangents="V7"), "tangents"),
                          (dict(solver="nonesuch"), "unknown solver"),
                          (dict(n_rules=9, exact_rules=True), "at least that many")]:
        with pytest.raises(ValueError, match=match):
            RiskScoreClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="OCTClassifier"):
        RiskScoreClassifier().fit(X[:30], np.repeat([0, 1, 2], 10))
