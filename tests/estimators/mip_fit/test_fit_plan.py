"""The plan of a MIP fit (:mod:`optitrees.estimators.mip_fit.fit_plan`): its rules by hand, and fits that follow
it and report it."""

import warnings
from dataclasses import replace

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import OCTHClassifier, OLCTClassifier, load_model, save_model
from optitrees.budget import Shares
from optitrees.estimators import _auto_budget
from optitrees.estimators.mip_fit import FitSettings
from optitrees.estimators.mip_fit.fit_plan import MIN_ROUND_SECONDS, Stage, plan_fit
from optitrees.formulations.loss_optimal.solution import LOSS_OPTIMAL
from optitrees.formulations.oblique_regression import OBLIQUE_REGRESSION


def _settings(**given):
    return FitSettings(**{"estimator": "OLCTClassifier", "family": LOSS_OPTIMAL, "solver": "highs",
                          "start_methods": ("greedy", "tao", "tmo"), **given})


def test_the_default_plan_at_a_minute():
    plan = plan_fit(_settings(), 60.0)
    assert [s.name for s in plan.stages] == ["presolve", "starts", "start refinement", "bound",
                                             "neighbourhood search", "solve", "reserve"]
    shares = Shares()
    assert not plan.runs(Stage.PRESOLVE) and plan.share(Stage.PRESOLVE) == 0.0
    assert plan.share(Stage.STARTS) == shares.tmo_starts and plan.share(Stage.START_REFINEMENT) == shares.start_refinement
    assert plan.share(Stage.BOUND) == shares.bound and plan.runs(Stage.NEIGHBOURHOOD)
    # the solve gets at least what the shares before it and the reserve leave
    assert plan[Stage.SOLVE].share == pytest.approx(1 - shares.tmo_starts - shares.start_refinement - shares.bound
                                                    - shares.reserve)
    assert plan.share(Stage.RESERVE) == shares.reserve
    assert set(plan.as_report()) == {s.name for s in plan.stages}


def test_the_rounds_run_only_where_one_round_fits_in_their_share_of_the_solve():
    shares = Shares()
    solve = 1 - 0.15 - shares.tmo_starts - shares.start_refinement - shares.bound - shares.reserve
    # the limit at which the rounds' share of the solve is exactly one round
    limit = MIN_ROUND_SECONDS / (shares.neighbourhood * solve)
    settings = _settings(presolve_share=0.15)
    assert plan_fit(settings, 1.01 * limit).runs(Stage.NEIGHBOURHOOD)
    short = plan_fit(settings, 0.99 * limit)
    assert not short.runs(Stage.NEIGHBOURHOOD) and "shorter than one round" in short[Stage.NEIGHBOURHOOD].why
    assert short.share(Stage.NEIGHBOURHOOD) == 0.0


@pytest.mark.parametrize("given, off, why", [
    (dict(start_methods=("greedy",)), Stage.START_REFINEMENT, "only the greedy start"),
    (dict(constraints=lambda f, p: None), Stage.START_REFINEMENT, "a user's constraints"),
    (dict(constraints=lambda f, p: None), Stage.NEIGHBOURHOOD, "every row"),
    (dict(parity=object()), Stage.NEIGHBOURHOOD, "every row"),
    (dict(hand_start=False), Stage.NEIGHBOURHOOD, "no start is handed"),
    (dict(shares=replace(Shares(), neighbourhood=0.0)), Stage.NEIGHBOURHOOD, "share is 0"),
    (dict(family=OBLIQUE_REGRESSION), Stage.BOUND, "no bound of its own"),
])
def test_a_stage_is_off_where_its_rule_says_and_the_plan_says_why(given, off, why):
    plan = plan_fit(_settings(**given), 60.0)
    assert not plan.runs(off) and why in plan[off].why and plan.share(off) == 0.0


def test_without_a_time_limit_no_share_applies_and_no_rounds_run():
    plan = plan_fit(_settings(), None)
    assert not plan.runs(Stage.NEIGHBOURHOOD) and not plan.runs(Stage.RESERVE)
    assert plan[Stage.SOLVE].share is None and "without a time limit" in plan[Stage.SOLVE].why


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 420, replace=False)
    return X[rows][:, :8], y[rows]


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


def _ran(report) -> set:
    return set(report.stages)


@pytest.mark.parametrize("rows", [60, 420])
def test_olct_chooses_its_budget_per_split_on_enough_rows_only_as_planned(cancer, rows):
    X, y = cancer
    clf = _fit(OLCTClassifier(max_depth=1, time_limit=None, warm_start="greedy", random_state=0,
                              solver_options={"mip_max_nodes": 5}), X[:rows], y[:rows])
    planned = clf.fit_report_.plan["held-out budget"]
    chooses = rows >= _auto_budget.MIN_ROWS_TO_CHOOSE
    assert planned["runs"] is chooses and ("held-out budget" in _ran(clf.fit_report_)) is chooses
    assert hasattr(clf, "budget_results_") is chooses
    if not chooses:                    # "auto" on too few rows to choose on: no budget, the seed's OLCT
        assert clf.max_features_ is None and planned["share"] is None
    else:
        assert planned["share"] == _auto_budget.SHARE


@pytest.mark.parametrize("make", [
    lambda: OLCTClassifier(max_depth=2, time_limit=3, threads=1, random_state=0, max_features=None),
    lambda: OLCTClassifier(max_depth=1, time_limit=12, threads=1, random_state=0, max_features=None,
                           warm_start="greedy"),
    lambda: OCTHClassifier(max_depth=2, time_limit=3, threads=1, random_state=0, max_features=2),
])
def test_a_fit_runs_no_stage_its_plan_left_out_and_reports_the_plan(cancer, make, tmp_path):
    X, y = cancer
    clf = _fit(make(), X[:80], y[:80])
    report = clf.fit_report_
    for name, planned in report.plan.items():
        if not planned["runs"]:
            assert name not in report.stages, (name, report.stages)
    assert report.plan["starts"]["runs"] and report.plan["solve"]["runs"]
    printed = str(report)
    assert "  plan: " in printed and all(name in printed for name in report.plan)
    save_model(clf, tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").fit_report_.plan == report.plan
