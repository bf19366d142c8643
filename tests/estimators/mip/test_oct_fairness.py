"""OCT and OCT-H held to a fairness notion: the returned tree keeps it on the training rows whatever stopped the
fit, ``fit_report_.fairness`` equals fairlearn's metrics, groups travel through pipelines by metadata routing, and
bad input is refused before any solver runs."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from optitrees import OCTClassifier, OCTHClassifier
from optitrees.estimators.mip import _oct_parity
from optitrees.exceptions import TimeLimitWarning
from optitrees.fairness import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds,
                                FalsePositiveRateParity, TruePositiveRateParity, disparities)
from optitrees.persistence import load_model, save_model
from _support import fit_quiet

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")

METRIC = {"demographic_parity": "demographic_parity_difference",
          "true_positive_rate_parity": "true_positive_rate_difference",
          "false_positive_rate_parity": "false_positive_rate_difference",
          "equalized_odds": "equalized_odds_difference"}
#: a node limit, no time limit: the same fit on any machine
QUICK = dict(time_limit=None, warm_start="greedy", solver_options={"mip_max_nodes": 50}, random_state=0)


def biased(n=120, seed=0):
    """Rows whose label leans on a feature that tracks the group: an unconstrained tree is unfair."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["f", "m"], n, p=[0.4, 0.6])
    X = np.column_stack([rng.normal(size=n) + (group == "m"), rng.normal(size=n), rng.integers(0, 2, n)])
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.5, n) > 0.6).astype(int)
    return X, y, group


def check_report(clf, X, y, groups, weight=None):
    report = clf.fit_report_.fairness
    predicted = clf.predict(X)
    for name, metric in METRIC.items():
        expected = getattr(fairlearn_metrics, metric)(y, predicted, sensitive_features=groups, sample_weight=weight)
        assert report[name] == pytest.approx(expected, abs=1e-12), name
    held = report["held"]
    assert report["keeps"] and report[held] <= report["bound"] + 1e-9


@pytest.mark.parametrize("cls", [OCTClassifier, OCTHClassifier])
@pytest.mark.parametrize("notion", [DemographicParity(0.1), TruePositiveRateParity(0.05),
                                    FalsePositiveRateParity(0.1), EqualizedOdds(0.1)],
                         ids=lambda n: type(n).__name__)
def test_every_notion_is_kept_on_the_training_rows(cls, notion):
    from sklearn.tree import DecisionTreeClassifier

    X, y, groups = biased()
    budget = dict(max_features=2) if cls is OCTHClassifier else {}
    clf = cls(max_depth=2, fairness=notion, **budget, **QUICK).fit(X, y, sensitive_features=groups)
    check_report(clf, X, y, groups)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    metric = getattr(fairlearn_metrics, METRIC[notion.name])
    assert metric(y, cart.predict(X), sensitive_features=groups) > notion.difference_bound   # the bound binds
    assert np.mean(clf.predict(X) == y) > max(np.mean(y), 1 - np.mean(y))       # better than the constant


def test_conditional_parity_and_several_group_columns():
    X, y, groups = biased(seed=1)
    frame = pd.DataFrame({"sex": groups, "band": np.where(X[:, 1] > 0, "hi", "lo")})
    notion = ConditionalStatisticalParity(0.05, legitimate=2)
    clf = OCTClassifier(max_depth=2, fairness=notion, **QUICK).fit(X, y, sensitive_features=frame)
    report = clf.fit_report_.fairness
    predicted = clf.predict(X)
    within = [fairlearn_metrics.demographic_parity_difference(y[X[:, 2] == v], predicted[X[:, 2] == v],
                                                              sensitive_features=frame[X[:, 2] == v])
              for v in (0, 1)]
    assert report["conditional_statistical_parity"] == pytest.approx(max(within), abs=1e-12)
    assert max(within) <= 0.05 + 1e-9


def test_weights_count_in_the_rates_and_class_weights_do_not():
    X, y, groups = biased(seed=2)
    weight = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    clf = OCTClassifier(max_depth=2, fairness=DemographicParity(0.02), class_weight="balanced", **QUICK).fit(
        X, y, sample_weight=weight, sensitive_features=groups)
    check_report(clf, X, y, groups, weight)


def test_identical_rows_of_two_groups_are_not_merged():
    X, y, groups = biased(60, seed=3)
    X2, y2, g2 = np.vstack([X, X]), np.r_[y, y], np.r_[groups, np.where(groups == "f", "m", "f")]
    clf = OCTClassifier(max_depth=1, fairness=DemographicParity(0.05), **QUICK).fit(X2, y2, sensitive_features=g2)
    assert clf.fit_report_.distinct_rows == 120
    check_report(clf, X2, y2, g2)


def test_no_time_for_the_mip_still_returns_a_fair_tree():
    X, y, groups = biased(seed=4)
    with pytest.warns(TimeLimitWarning):
        clf = OCTHClassifier(max_depth=2, fairness=EqualizedOdds(0.02), time_limit=0, random_state=0).fit(
            X, y, sensitive_features=groups)
    check_report(clf, X, y, groups)


def test_disparities_on_new_rows_equal_fairlearn():
    X, y, groups = biased(seed=5)
    clf = OCTClassifier(max_depth=2, fairness=TruePositiveRateParity(0.05), **QUICK).fit(
        X[:80], y[:80], sensitive_features=groups[:80])
    got = disparities(clf, X[80:], y[80:], groups[80:])
    predicted = clf.predict(X[80:])
    for name, metric in METRIC.items():
        assert got[name] == pytest.approx(getattr(fairlearn_metrics, metric)(
            y[80:], predicted, sensitive_features=groups[80:]), abs=1e-12)


def test_groups_routed_through_a_pipeline_and_a_search():
    X, y, groups = biased(seed=6)
    with sklearn.config_context(enable_metadata_routing=True):
        tree = OCTClassifier(fairness=DemographicParity(0.02), **QUICK).set_fit_request(sensitive_features=True)
        pipe = make_pipeline(StandardScaler(), tree).fit(X, y, sensitive_features=groups)
        check_report(pipe[-1], StandardScaler().fit_transform(X), y, groups)
        search = GridSearchCV(tree, {"max_depth": [1]}, cv=2).fit(X, y, sensitive_features=groups)
        check_report(search.best_estimator_, X, y, groups)


def test_the_block_is_in_the_formulation_and_its_files(tmp_path):
    X, y, groups = biased(80, seed=7)
    f = OCTClassifier(fairness=EqualizedOdds(0.05)).build_formulation(X, y, sensitive_features=groups)
    assert {"fair_m", "fair_hi", "fair_lo"} <= set(f.variables) and "fair_bound" in f.summary()
    np.testing.assert_array_equal(f.constraints["fair_bound"].upper, [0.05, 0.05])
    assert "fair_bound" in f.write(tmp_path / "fair.lp").read_text()


def test_saved_and_loaded(tmp_path):
    X, y, groups = biased(seed=8)
    clf = OCTClassifier(max_depth=1, fairness=ConditionalStatisticalParity(0.1, legitimate=2), **QUICK).fit(
        X, y, sensitive_features=groups)
    save_model(clf, tmp_path / "fair.json")
    loaded = load_model(tmp_path / "fair.json")
    assert loaded.fairness == clf.fairness
    assert loaded.fit_report_.fairness == clf.fit_report_.fairness
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))


@pytest.mark.parametrize("case, error, message", [
    ("no groups", ValueError, "needs sensitive_features"),
    ("three classes", ValueError, "needs two classes"),
    ("a string", InvalidParameterError, "fairness"),
    ("short groups", ValueError, "has 10 rows"),
    ("unknown legitimate", ValueError, "legitimate feature"),
])
def test_bad_input_is_refused_before_any_solver_runs(case, error, message, monkeypatch):
    import optitrees.solvers as solvers

    monkeypatch.setattr(solvers, "solve", lambda *a, **k: pytest.fail("a solver ran"))
    X, y, groups = biased(60, seed=9)
    notion = DemographicParity(0.05)
    kwargs = dict(sensitive_features=groups)
    if case == "no groups":
        kwargs = {}
    elif case == "three classes":
        y = np.arange(len(y)) % 3
    elif case == "a string":
        notion = "demographic_parity"
    elif case == "short groups":
        kwargs = dict(sensitive_features=groups[:10])
    elif case == "unknown legitimate":
        notion = ConditionalStatisticalParity(0.05, legitimate="age")
    with pytest.raises(error, match=message):
        OCTClassifier(fairness=notion, **QUICK).fit(X, y, **kwargs)


def test_the_unconstrained_optimum_certifies_when_fair_and_bounds_when_not():
    X, y, groups = biased(seed=10)
    loose = OCTClassifier(max_depth=2, fairness=DemographicParity(1.0), **QUICK).fit(X, y, sensitive_features=groups)
    free = OCTClassifier(max_depth=2, **QUICK).fit(X, y)
    assert loose.fit_report_.certified_by == "contree" and loose.objective_ == pytest.approx(free.objective_)
    # depth 3: no fair search proves it, ConTree's optimum bounds it
    free3 = OCTClassifier(max_depth=3, **QUICK).fit(X, y)
    tight = OCTClassifier(max_depth=3, fairness=DemographicParity(0.05), **QUICK).fit(
        X, y, sensitive_features=groups)
    report = tight.fit_report_
    assert report.bound_source == "contree" and report.bound == pytest.approx(free3.objective_)
    assert report.fairness["keeps"] and tight.objective_ >= free3.objective_
    assert any("does not keep it" in note for note in report.notes)


def test_the_fair_search_of_depth_2_proves_the_fair_optimum():
    """Over every threshold the fair search of depth 2 is exact: the fit ends with its proof, no MIP built; with the
    exact searches off the MIP runs, and finds no better tree."""
    X, y, groups = biased(seed=10)
    notion = DemographicParity(0.05)
    proven = OCTClassifier(max_depth=2, fairness=notion, **QUICK).fit(X, y, sensitive_features=groups)
    report = proven.fit_report_
    assert report.certified_by == "fair depth-2 search" and report.fairness["keeps"]
    assert proven.formulation_summary_.startswith("no MIP built")
    mip = fit_quiet(OCTClassifier(max_depth=2, fairness=notion, exact_search="mip", **QUICK), X, y,
                    sensitive_features=groups)
    assert mip.objective_ >= proven.objective_ - 1e-9


@pytest.mark.parametrize("notion", [EqualizedOdds(0.05), FalsePositiveRateParity(0.02)], ids=lambda n: n.name)
def test_over_many_splits_every_threshold_must_beat_the_thinned_tree(notion, monkeypatch):
    """A notion whose pairs are tried one by one, on more splits than ``EVERY_THRESHOLD_SPLITS``: the fair tree over
    the thinned candidates first, then every threshold against it; tried to the end, that proves the optimum of the
    search over every threshold at once (on these rows the thinned candidates alone give 19 / 16 errors, every
    threshold 16 / 14: a fit that stopped at the thinned tree would fail)."""
    X, y, groups = biased(seed=10)
    groups = np.where(X[:, 2] > 0, groups, "other")                 # three groups: FPR parity pairs one by one too
    direct = OCTClassifier(max_depth=2, fairness=notion, **QUICK).fit(X, y, sensitive_features=groups)
    monkeypatch.setattr(_oct_parity, "EVERY_THRESHOLD_SPLITS", 10)
    thinned_first = OCTClassifier(max_depth=2, fairness=notion, **QUICK).fit(X, y, sensitive_features=groups)
    for clf in (direct, thinned_first):
        assert clf.fit_report_.certified_by == "fair depth-2 search" and clf.fit_report_.fairness["keeps"]
    assert thinned_first.objective_ == pytest.approx(direct.objective_, abs=1e-12)


def test_a_search_thinned_for_size_proves_only_where_nothing_was_thinned(monkeypatch):
    X, y, groups = biased(seed=10)
    monkeypatch.setattr(_oct_parity, "EVERY_THRESHOLD_CELLS", 1)      # every threshold is "too many" rows x splits
    notion = DemographicParity(0.05)
    coarse = np.round(X)                                           # at most 16 values a feature: nothing is thinned
    proven = fit_quiet(OCTClassifier(max_depth=2, fairness=notion, **QUICK), coarse, y, sensitive_features=groups)
    assert proven.fit_report_.certified_by == "fair depth-2 search"
    thinned = fit_quiet(OCTClassifier(max_depth=2, fairness=notion, **QUICK), X, y, sensitive_features=groups)
    assert thinned.fit_report_.certified_by != "fair depth-2 search" and thinned.fit_report_.fairness["keeps"]
    assert any("took at most 16 thresholds a feature" in note for note in thinned.fit_report_.notes)
