"""fairness= on the risk scores (ORS 4.5, OGRS 4.16): the fair ORS optimum is the one found by trying every card
(points on a tiny set, the intercept per threshold); the MIP's predicted-positive binaries are the decoded card's
predictions; the returned card keeps the bound on the training rows with fairlearn's figures; the cutting-plane
master refuses the constraint."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from optitrees import GeneralizedRiskScoreClassifier, RiskScoreClassifier
from optitrees.fairness import DemographicParity, EqualizedOdds, FalsePositiveRateParity, ParityCells, \
    TruePositiveRateParity, disparities, group_codes
from optitrees.formulations.risk_scores.ogrs import OGRS_FAMILY
from optitrees.formulations.risk_scores.ors import ORS_FAMILY
from optitrees.formulations.risk_scores.shared import POSITIVE_MARGIN
from optitrees.solvers import solve
from _support import fit_quiet

pytest.importorskip("fairlearn.metrics")
from test_oct_fairness import check_report  # noqa: E402

QUICK = dict(time_limit=8, solver_options={"mip_max_nodes": 50}, random_state=0)


def biased_binary(n=120, seed=0):
    """0/1 features, the first tracking the group: an unconstrained card is unfair."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["f", "m"], n, p=[0.4, 0.6])
    X = np.column_stack([rng.normal(size=n) + 1.5 * (group == "m") > 0.75, rng.normal(size=n) > 0,
                         rng.integers(0, 2, n)]).astype(int)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.6, n) > 0.6).astype(int)
    return X, y, group


def best_fair_tangent_loss(X, y, groups, notion, scores, intercept_bound, lines):
    """Least tangent loss (4.4) over every point vector in ``scores`` per feature and every intercept whose
    predictions (a row positive at score >= the margin, negative at <= 0, as the MIP's rows say) keep the bound."""
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(notion, y, codes, labels)
    sign = np.where(y == 1, 1.0, -1.0)
    best = np.inf
    for s in itertools.product(scores, repeat=X.shape[1]):
        totals = X @ np.asarray(s, float)
        values = np.unique(totals)
        for k in range(len(values) + 1):                                # rows at values[k:] positive
            if cells.disparity(totals >= (values[k] if k < len(values) else np.inf)) > notion.difference_bound:
                continue
            lo = max(-intercept_bound, POSITIVE_MARGIN - values[k]) if k < len(values) else -intercept_bound
            hi = min(intercept_bound, -values[k - 1]) if k > 0 else intercept_bound
            if lo > hi:
                continue
            loss = lambda b: float(lines(sign * (totals + b)).sum())        # noqa: E731
            inside = minimize_scalar(loss, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
            best = min(best, loss(lo), loss(hi), inside.fun)
    return best


@pytest.mark.parametrize("notion", [DemographicParity(0.05), TruePositiveRateParity(0.05), EqualizedOdds(0.1)],
                         ids=lambda n: type(n).__name__)
def test_fair_ors_optimum_is_the_enumerated_one(notion):
    X, y, groups = biased_binary(n=40, seed=1)
    X = X[:, :2]
    est = RiskScoreClassifier(n_rules=2, min_score=-2, max_score=2, multiplier=1.0, method="tangents",
                              fairness=notion)
    f = est.build_formulation(X, y, sensitive_features=groups)
    result = solve(f, time_limit=None)
    assert result.status == "optimal"
    expected = best_fair_tangent_loss(X, y, groups, notion, range(-2, 3), f.problem.intercept_bound, f.problem.lines)
    free = best_fair_tangent_loss(X, y, groups, DemographicParity(1.0), range(-2, 3), f.problem.intercept_bound,
                                  f.problem.lines)
    assert expected > free + 1e-3                                                   # the bound binds
    assert result.objective == pytest.approx(expected, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("make, family", [
    (lambda: RiskScoreClassifier(n_rules=2, multiplier=1.0, method="tangents"), ORS_FAMILY),
    (lambda: GeneralizedRiskScoreClassifier(n_rules=2, max_score=3), OGRS_FAMILY),
], ids=["ORS", "OGRS"])
def test_the_mip_predicted_positive_rows_are_the_decoded_cards(make, family):
    X, y, groups = biased_binary(n=60)
    f = make().set_params(fairness=DemographicParity(0.1)).build_formulation(X, y, sensitive_features=groups)
    assert {"positive", "fair_hi", "fair_lo"} <= set(f.variables)
    assert {"positive_upper", "positive_lower", "fair_bound"} <= set(f.constraints)
    result = solve(f, time_limit=None, solver_options={"mip_max_nodes": 200})
    assert result.x is not None
    card, _ = family.decode(f, result.x)
    values = f.values(result.x)
    np.testing.assert_array_equal(values["positive"] > 0.5, card.decision_function(f.problem.data.X) > 0)
    assert values["fair_hi"].max() - values["fair_lo"].min() <= 0.1 + 1e-6


@pytest.mark.parametrize("estimator", [
    RiskScoreClassifier(n_rules=3, **QUICK),
    GeneralizedRiskScoreClassifier(n_rules=2, max_score=3, **QUICK),
], ids=["ORS", "OGRS"])
@pytest.mark.parametrize("notion", [DemographicParity(0.05), FalsePositiveRateParity(0.05), EqualizedOdds(0.05)],
                         ids=lambda n: type(n).__name__)
def test_the_returned_card_keeps_the_bound(estimator, notion):
    X, y, groups = biased_binary()
    free = fit_quiet(estimator.set_params(fairness=None), X, y)
    assert disparities(free, X, y, groups)[notion.name] > notion.difference_bound     # the bound binds
    clf = fit_quiet(estimator.set_params(fairness=notion), X, y, sensitive_features=groups)
    check_report(clf, X, y, groups)
    assert "fair_bound" in clf.formulation_summary_
    assert "leaves" not in " ".join(clf.fit_report_.notes)                          # a card has no leaves


def test_the_cutting_plane_master_refuses_fairness():
    X, y, groups = biased_binary()
    with pytest.raises(ValueError, match="method='tangents'"):
        RiskScoreClassifier(method="cutting_planes", fairness=DemographicParity(0.1)).fit(
            X, y, sensitive_features=groups)
    clf = RiskScoreClassifier(fairness=DemographicParity(0.1))                   # "auto": the tangent model
    assert clf._method() == "tangents" and RiskScoreClassifier()._method() == "cutting_planes"


def test_groups_are_needed():
    X, y, _ = biased_binary()
    with pytest.raises(ValueError, match="sensitive_features"):
        GeneralizedRiskScoreClassifier(n_rules=1, fairness=DemographicParity(0.1)).fit(X, y)
