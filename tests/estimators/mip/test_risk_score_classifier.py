"""Risk-score estimators (ORS 4.5, OGRS 4.16): score cards, edits, predictions, backends, input checks."""

import json

import numpy as np
import pytest

from optitrees import GeneralizedRiskScoreClassifier, RiskScoreClassifier
from _support import fit_quiet, needs_scip, within_limit


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = (rng.random((120, 6)) < 0.4).astype(int)
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.7, 120) > 0.5, "yes", "no")
    return X, y


def test_score_card_and_predictions_agree(data):
    X, y = data
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=30, random_state=0), X, y)
    card = clf.score_card_
    s = np.zeros(X.shape[1])
    s[card.features] = card.points
    assert card.n_rules <= 3 and np.all(card.points != 0) and s.min() >= -3 and s.max() <= 3
    assert card.multiplier >= 0.5 and np.allclose(clf.decision_function(X), (X @ s + card.intercept) / card.multiplier)
    proba = clf.predict_proba(X)[:, 1]
    table = clf.risk_table().set_index("score")["probability"]
    assert np.allclose(proba, table.loc[X @ s].to_numpy())
    assert clf.score_card()["rule"].tolist() == [f"x{j} = 1" for j in card.features]
    text = clf.export_text()
    assert "intercept" in text and "P(yes)" in text
    assert json.loads(json.dumps(clf.to_dict()))["positive_class"] == "yes"
    assert clf.fit_report_.checks["objective_discrepancy"] < 1e-6
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9


def test_exactly_t_rules_selects_t_features(data):
    X, y = data
    from optitrees.formulations.risk_scores.ors import ors
    from optitrees.solvers import solve

    y_pm = np.where(y == "yes", 1.0, -1.0)
    f = ors(X, y_pm, n_rules=4, scores=range(-2, 3), tangents="V1", exact_rules=True)
    res = solve(f, mip_gap=0, time_limit=60)
    assert np.round(f.values(res.x)["a"]).sum() == 4


@needs_scip
def test_same_optimum_from_two_backends(data):
    X, y = data
    X, y = X[:60], y[:60]
    opts = dict(n_rules=2, min_score=-2, max_score=2, tangents="V1", mip_gap=0, time_limit=60, method="tangents",
                multiplier=1.0)
    a = fit_quiet(RiskScoreClassifier(solver="highs", **opts), X, y)
    b = fit_quiet(RiskScoreClassifier(solver="scip", **opts), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"
    assert a.solver_result_.objective == pytest.approx(b.solver_result_.objective, rel=1e-7, abs=1e-7)


def test_rejects_non_binary_features_and_bad_parameters(data):
    X, y = data
    with pytest.raises(ValueError, match="GeneralizedRiskScoreClassifier"):
        RiskScoreClassifier().fit(X + 0.5, y)
    for params, match in [(dict(n_rules=0), "n_rules"), (dict(min_score=1), "containing 0"),
                          (dict(max_score=2.5), "max_score"), (dict(tangents="V7"), "tangents"),
                          (dict(solver="nonesuch"), "unknown solver"),
                          (dict(n_rules=9, exact_rules=True), "at least that many")]:
        with pytest.raises(ValueError, match=match):
            RiskScoreClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="OneVsRestClassifier"):
        RiskScoreClassifier().fit(X[:30], np.repeat([0, 1, 2], 10))
    for params, match in [(dict(method="cutting_planes", solver="scip"), "HiGHS LPs"),
                          (dict(monotone={"x9": 1}), "monotone feature 'x9' is not a feature name"),
                          (dict(monotone={0: 2}), r"monotone\[0\] must be \+1 or -1"),
                          (dict(point_bounds={1: (2, 1)}), "lower <= upper"),
                          (dict(point_bounds={1: (1, 3)}, monotone={1: -1}), "leaves feature 1 no points"),
                          (dict(groups=[[0, 1], [1, 2]]), "more than one group"),
                          (dict(groups=[[0, 7]]), "group feature index 7 is out of range"),
                          (dict(multiplier=0.0), "multiplier"), (dict(method="lazy"), "method")]:
        with pytest.raises(ValueError, match=match):
            RiskScoreClassifier(**params).fit(X, y)


def _brute_force(X, y_pm, T, lower, upper, multiplier, groups=()):
    """Least exact loss over every integer card with at most T rules in the bounds (best intercept each)."""
    import itertools

    from scipy.optimize import minimize_scalar

    p = X.shape[1]
    best = np.inf
    ranges = [range(int(lo), int(hi) + 1) for lo, hi in zip(lower, upper)]
    for s in itertools.product(*ranges):
        s = np.array(s, float)
        if np.count_nonzero(s) > T or any(np.count_nonzero(s[list(g)]) > 1 for g in groups):
            continue
        totals = X @ s
        res = minimize_scalar(lambda b: np.logaddexp(0, -y_pm * (totals + b) / multiplier).sum(),
                              bounds=(-60, 60), method="bounded", options={"xatol": 1e-10})
        best = min(best, res.fun)
    assert p == len(lower)
    return best


@pytest.mark.parametrize("multiplier", [1.0, 1.5])
def test_cutting_planes_prove_the_brute_force_optimum(data, multiplier):
    X, y = data
    X, y = X[:, :5], y
    y_pm = np.where(y == "yes", 1.0, -1.0)
    clf = fit_quiet(RiskScoreClassifier(n_rules=2, min_score=-2, max_score=2, multiplier=multiplier, mip_gap=0,
                                        time_limit=60), X, y)
    r = clf.solver_result_
    assert r.solver == "cutting_planes" and r.status == "optimal" and clf.fit_report_.certified_by == "cutting_planes"
    assert clf.score_card_.multiplier == multiplier
    best = _brute_force(X, y_pm, 2, [-2] * 5, [2] * 5, multiplier)
    assert clf.objective_ == pytest.approx(best, rel=1e-6)
    assert r.bound <= best + 1e-6


def test_an_auto_multiplier_is_the_best_one_the_card_can_print_for_its_points(data):
    """The solver's points get their exactly best multiplier: no neighbouring multiplier of three
    significant digits (with its best intercept) lowers the training loss."""
    from optitrees.formulations.risk_scores.aggregate_loss import AggregateLoss

    X, y = data
    y_pm = np.where(y == "yes", 1.0, -1.0)
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=30, random_state=0), X, y)
    card = clf.score_card_
    s = np.zeros(X.shape[1])
    s[card.features] = card.points
    m = card.multiplier
    step = 10.0 ** (np.floor(np.log10(m)) - 2)

    def loss(mult):
        at = AggregateLoss.from_data(X, y_pm, mult)
        return at.value(s, at.best_intercept(s, 100.0))

    assert float(f"{m:.3g}") == m and clf.objective_ == pytest.approx(loss(m), rel=1e-6)
    assert loss(m) <= min(loss(m - step), loss(m + step)) + 1e-9
    m_mip = clf.fit_report_.checks["multiplier"]          # the MIP's bound is for its own multiplier
    assert clf.objective_ <= loss(m_mip) * (1 + 1e-6) and clf.solver_result_.bound <= loss(m_mip) + 1e-6


def test_bounds_monotonicity_and_groups_hold_and_are_optimal(data):
    X, y = data
    X = X[:, :5]
    y_pm = np.where(y == "yes", 1.0, -1.0)
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-2, max_score=2, multiplier=1.0, mip_gap=0,
                                        point_bounds={"x0": (0, 1)}, monotone={2: 1}, groups=[["x0", "x1"]],
                                        time_limit=60), X, y)
    s = np.zeros(5)
    s[clf.score_card_.features] = clf.score_card_.points
    assert 0 <= s[0] <= 1 and s[2] >= 0 and np.count_nonzero(s[:2]) <= 1
    best = _brute_force(X, y_pm, 3, [0, -2, 0, -2, -2], [1, 2, 2, 2, 2], 1.0, groups=[(0, 1)])
    assert clf.solver_result_.status == "optimal"
    assert clf.objective_ == pytest.approx(best, rel=1e-6)


def test_integer_features_are_scored_per_unit():
    rng = np.random.default_rng(3)
    n = 300
    X = np.column_stack([rng.integers(1, 11, n), rng.integers(0, 2, n), rng.integers(1, 11, n)])
    y = (0.6 * X[:, 0] + 1.5 * X[:, 1] - 4 + rng.logistic(size=n) > 0).astype(int)
    clf = fit_quiet(RiskScoreClassifier(n_rules=2, min_score=-3, max_score=3, time_limit=30, random_state=0), X, y)
    card = clf.score_card_
    assert set(card.features) == {0, 1}
    assert card.per_unit[list(card.features).index(0)] and not card.per_unit[list(card.features).index(1)]
    rules = clf.score_card()["rule"].tolist()
    assert "each unit of x0" in rules and "x1 = 1" in rules
    assert np.allclose(clf.decision_function(X), (X[:, card.features] @ card.points + card.intercept)
                       / card.multiplier)


@pytest.fixture(scope="module")
def clinical():
    """Continuous age and blood pressure, a binary smoker flag, pure noise; risk rises past thresholds."""
    import pandas as pd

    rng = np.random.default_rng(1)
    n = 120
    X = pd.DataFrame({"age": rng.uniform(30, 90, n).round(), "bp": rng.normal(130, 15, n).round(1),
                      "smoker": rng.integers(0, 2, n), "noise": rng.normal(size=n)})
    logit = 2.0 * (X["age"] >= 65) + 1.5 * X["smoker"] + 1.0 * (X["bp"] >= 140) - 2.0
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), 1, 0)          # classes_[1] = 1 = event
    return X, y


def test_generalized_score_card(clinical):
    X, y = clinical
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=3, max_score=3, tangents="V1", time_limit=6,
                                                   method="tangents", random_state=0), X, y)
    card = clf.score_card_
    assert card.n_rules == 3 and len(set(card.features)) == 3
    assert np.all(card.points >= 0) and np.all(card.points <= 3)          # Corollary 4.1: positive points
    checks = clf.fit_report_.checks
    assert checks["rule_mismatches"] == 0 and checks["objective_discrepancy"] < 1e-6
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9
    rules = clf.score_card()["rule"].tolist()
    assert "smoker = 1" in rules                                         # the planted risk factors
    age = [k for k, j in enumerate(card.features) if X.columns[j] == "age"][0]
    thr = card.thresholds[age]                                           # in years, between data values
    assert card.greater[age] and 55 <= thr <= 75 and not np.any(np.isclose(X["age"], thr))
    manual = sum(p * (X.iloc[:, j].to_numpy() >= t) for j, t, p in zip(card.features, card.thresholds, card.points))
    assert np.allclose(clf.decision_function(X), manual + card.intercept)
    assert json.loads(json.dumps(clf.to_dict()))["rules"][0]["points"] == int(card.points[0])


@pytest.mark.slow
def test_flipped_and_all_positive_models_are_equivalent(clinical, data):
    X, y = clinical
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, max_score=3, tangents="V0", time_limit=10,
                                                   positive_points=False), X, y)
    rng = np.random.default_rng(5)
    import pandas as pd

    Z = pd.DataFrame(np.column_stack([rng.uniform(20, 100, 500), rng.normal(130, 30, 500),
                                      rng.integers(0, 2, 500), rng.normal(size=500)]), columns=X.columns)
    flipped = clf.flip_rule(1)
    assert flipped.score_card_.points[1] == -clf.score_card_.points[1]
    assert flipped.score_card_.intercept == clf.score_card_.intercept + clf.score_card_.points[1]
    assert np.allclose(flipped.decision_function(Z), clf.decision_function(Z))
    assert "<" in flipped.export_text() or "= 0" in flipped.export_text()
    assert clf.score_card_.greater.all()                                  # the MIP's own logic (Corollary 4.2)
    back = flipped.with_positive_points()
    assert np.all(back.score_card_.points >= 0)
    assert np.allclose(back.decision_function(Z), clf.decision_function(Z))
    # an ORS card with negative points
    Xb, yb = data
    ors = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=30), Xb, yb)
    assert np.any(ors.score_card_.points < 0)
    pos = ors.with_positive_points()
    Zb = rng.integers(0, 2, (300, Xb.shape[1]))
    assert np.all(pos.score_card_.points >= 0)
    assert np.allclose(pos.decision_function(Zb), ors.decision_function(Zb))
    with pytest.raises(IndexError):
        clf.flip_rule(5)


@needs_scip
def test_generalized_same_optimum_from_two_backends(clinical):
    X, y = clinical
    X, y = X.iloc[:30], y[:30]
    opts = dict(n_rules=2, max_score=2, tangents="V0", mip_gap=0, time_limit=120, method="tangents")
    a = fit_quiet(GeneralizedRiskScoreClassifier(solver="highs", **opts), X, y)
    b = fit_quiet(GeneralizedRiskScoreClassifier(solver="scip", **opts), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"

    def mip_optimum(clf):   # the card returned may be the warm start (lower exact loss than the V0 optimum)
        r = clf.solver_result_
        return r.checks.get("solver_objective", r.objective)

    assert mip_optimum(b) == pytest.approx(mip_optimum(a), rel=1e-7, abs=1e-7)


def test_generalized_cutting_planes_prove_the_brute_force_optimum():
    """Every distinct value is a candidate threshold here, so the certified optimum is OGRS's own."""
    import itertools

    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 5, 80), rng.integers(0, 4, 80), rng.normal(size=80).round(1)])
    y = (X[:, 0] - 1.5 * (X[:, 1] >= 2) + rng.logistic(size=80) > 1).astype(int)
    y_pm = np.where(y == 1, 1.0, -1.0)
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, max_score=2, mip_gap=0, time_limit=60,
                                                   max_thresholds=100), X, y)
    r = clf.solver_result_
    assert r.solver == "cutting_planes" and r.status == "optimal"
    rules = [(j, b, s) for j in range(2) for b in np.unique(X[:, j])[1:] for s in (-2, -1, 1, 2)]
    best = np.inf
    for pair in itertools.chain([()], ((r1,) for r1 in rules), itertools.combinations(rules, 2)):
        if len({j for j, _, _ in pair}) < len(pair):
            continue
        totals = sum((s * (X[:, j] >= b) for j, b, s in pair), np.zeros(80))
        res = minimize_scalar(lambda c: np.logaddexp(0, -y_pm * (totals + c)).sum(), bounds=(-30, 30),
                              method="bounded", options={"xatol": 1e-10})
        best = min(best, res.fun)
    assert clf.objective_ == pytest.approx(best, rel=1e-6)
    assert 2 not in set(clf.score_card_.features)                     # the noise column is never worth a rule


def test_generalized_bad_parameters(clinical):
    X, y = clinical
    for params, match in [(dict(n_rules=0), "n_rules"), (dict(max_score=0), "max_score"), (dict(eps=0.7), "eps"),
                          (dict(method="cutting_planes", solver="scip"), "HiGHS LPs"),
                          (dict(max_thresholds=0), "max_thresholds"),
                          (dict(n_rules=9), "exceeds the 4 usable features"),
                          (dict(n_rules=4, forbidden_features=["noise"]), "exceeds the 3 usable features")]:
        with pytest.raises(ValueError, match=match):
            GeneralizedRiskScoreClassifier(**params).fit(X, y)


def test_greedy_start_without_time_still_gives_a_complete_card(clinical):
    X, y = clinical
    # a start budget too small for any MIP step falls back to stump rules
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, max_score=2, tangents="V0", time_limit=1e-3,
                                                   method="tangents"), X, y)
    assert clf.score_card_.n_rules == 2


def test_forbidden_features_and_user_constraints(clinical):
    X, y = clinical
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, max_score=3, tangents="V0", time_limit=60,
                                                   solver_options={"mip_max_nodes": 20},
                                                   forbidden_features=["smoker"]), X, y)
    assert "smoker" not in [X.columns[j] for j in clf.score_card_.features]

    def age_rule_with_one_point(f):        # a rule on age, worth at most one point: |s_t| <= 1 where a[age, t] = 1
        a, s = f.variables["a"], f.variables["s"]
        j = f.index("J", "age")
        f.add_constraints("age_points_hi", ("R",), [(s.columns, 1.0), (a.columns[j], 5.0)], upper=6.0)
        f.add_constraints("age_points_lo", ("R",), [(s.columns, 1.0), (a.columns[j], -5.0)], lower=-6.0)
        f.add_constraints("age_used", ("one",), [(a.columns[j][None, :], 1.0)], lower=1.0)

    X, y = X.iloc[:60], y[:60]
    opts = dict(n_rules=2, max_score=3, tangents="V0", time_limit=20, solver_options={"mip_max_nodes": 2},
                method="tangents")
    free = fit_quiet(GeneralizedRiskScoreClassifier(**opts), X, y)
    clf = fit_quiet(GeneralizedRiskScoreClassifier(constraints=age_rule_with_one_point, **opts), X, y)
    card = clf.score_card_
    age = [k for k, j in enumerate(card.features) if X.columns[j] == "age"]
    assert len(age) == 1 and abs(card.points[age[0]]) <= 1
    assert any(abs(p) > 1 for j, p in zip(free.score_card_.features, free.score_card_.points) if X.columns[j] == "age")
    f = clf.build_formulation(X, y)
    assert "age_points_hi" in f.constraints and not hasattr(clf.__class__(), "classes_")


@pytest.mark.parametrize("method", ["tangents", "cutting_planes"])
@pytest.mark.parametrize("n", [2, 40])
def test_generalized_card_on_a_two_valued_feature_not_coded_01(n, method):
    """A feature coded 1/2 (sex) used to get the threshold 0.5 in original units: a wrong card."""
    rng = np.random.default_rng(0)
    sex = np.tile([1, 2], n // 2)
    X = np.column_stack([sex, rng.normal(size=n)])
    y = sex - 1
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=1, max_score=3, tangents="V1", time_limit=20,
                                                   method=method), X, y)
    assert clf.fit_report_.checks.get("rule_mismatches", 0) == 0
    assert (clf.predict(X) == y).mean() == 1.0
    card = clf.score_card_
    assert card.features[0] == 0 and 1 < card.thresholds[0] < 2


def test_time_limit_covers_the_search_and_the_branch_and_cut():
    import time

    rng = np.random.default_rng(5)
    X = (rng.random((4000, 40)) < 0.3).astype(float)
    y = (X[:, :12] @ rng.normal(0, 1, 12) + rng.logistic(size=4000) > 0).astype(int)
    clf = RiskScoreClassifier(n_rules=7, time_limit=2, random_state=0)
    t0 = time.perf_counter()
    fit_quiet(clf, X, y)
    elapsed = time.perf_counter() - t0
    r = clf.solver_result_
    assert within_limit(elapsed, 2.0), elapsed
    assert r.bound is not None and r.bound <= clf.objective_ + 1e-9      # a valid, certified lower bound
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9
