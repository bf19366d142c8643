"""Every MIP fit reports a valid lower bound with its source: below its objective, below the brute-force optimum."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeRegressor, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, RiskScoreClassifier)
from _oct_brute import brute_force_oct
from _support import fit_quiet


@pytest.mark.parametrize("estimator, source", [
    (OLCTClassifier(max_depth=2), "root layer (logistic, all 120 rows)"),
    (MARGOTClassifier(max_depth=2), "root layer (hinge, all 120 rows)"),
    (OCTHClassifier(max_depth=2), None),
    (OCTClassifier(max_depth=2, exact_search="mip"), None),
    (RiskScoreClassifier(n_rules=2, min_score=-2, max_score=2), None),
    (GeneralizedRiskScoreClassifier(n_rules=2, max_score=2), None),
], ids=lambda v: type(v).__name__ if not isinstance(v, (str, type(None))) else "")
def test_every_mip_fit_reports_a_bound_below_its_objective(estimator, source):
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:120, :5], y[:120]
    if isinstance(estimator, (RiskScoreClassifier, GeneralizedRiskScoreClassifier)):
        X = (X > np.median(X, axis=0)).astype(float)
    est = fit_quiet(estimator.set_params(time_limit=10, solver_options={"mip_max_nodes": 2}), X, y)
    report = est.fit_report_
    assert report.bound is not None and report.bound_source is not None
    assert report.bound <= report.objective + 1e-9 * max(1.0, abs(report.objective))
    if source is not None and report.certified_by is None:
        # the MIP stopped at its root: the root layer's bound is the larger one
        assert report.bound_source in (source, "highs")
        assert report.bound >= est.solver_result_.bound - 1e-9 or report.bound_source == "highs"
    if report.bound_source == "non-negative objective":
        assert report.bound == 0.0 and report.certified_by in (None, "non-negative objective")


def test_the_regressor_reports_the_solvers_bound_or_zero():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.where(X[:, 0] > 0, X[:, 1], -X[:, 1]) + 0.1 * rng.normal(size=40)
    est = fit_quiet(LossOptimalTreeRegressor(max_depth=2, time_limit=10, solver_options={"mip_max_nodes": 0}), X, y)
    report = est.fit_report_
    assert report.bound_source in ("highs", "non-negative objective")
    assert 0.0 <= report.bound <= report.objective + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_the_bound_is_at_most_the_brute_force_optimum(seed):
    """OCT by its MIP (ConTree off), stopped after a few nodes: its bound never exceeds the optimum found by
    enumerating every tree."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(10, 2)).astype(float) / 5.0
    y = rng.integers(0, 2, size=10)
    y[:2] = [0, 1]
    est = fit_quiet(OCTClassifier(max_depth=2, alpha=0.05, exact_search="mip", time_limit=10,
                                  solver_options={"mip_max_nodes": int(seed)}), X, y)
    optimum = brute_force_oct(X, y, 2, 0.05, 1)
    assert est.fit_report_.bound <= optimum + 1e-9
    assert est.objective_ >= optimum - 1e-9


def test_a_model_outside_the_mips_class_is_not_proven_by_that_classs_bound():
    """A weight bound W so small that the refined start's unconstrained leaf fits leave the MIP's class: the solver's
    and the root layer's bounds hold over the class and exceed the start's objective; the fit claimed that start
    proven optimal (its gap clipped at 0) until those bounds were set aside."""
    from optitrees import LossOptimalTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    est = fit_quiet(LossOptimalTreeClassifier(max_depth=1, weight_bound=0.05, time_limit=20, threads=1,
                                              random_state=0), X[:80, :3], y[:80])
    report = est.fit_report_
    assert est.solver_result_.status == "optimal" and est.solver_result_.bound > report.objective
    assert report.returned == "start" and report.outcome.value == "not proven optimal" and report.certified_by is None
    assert report.bound <= report.objective and report.bound_source == "non-negative objective"
    assert any("outside" in note and "highs bound" in note for note in report.notes)
    assert not any("underestimates the exact one" in note for note in report.notes)    # it does not: it is above


def test_a_fit_is_proven_within_the_gap_it_asked_for_and_reports_its_true_bound():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:120, :5], y[:120]
    # a gap of 90%: the root layer's bound alone proves any tree whose objective is within it
    est = fit_quiet(OLCTClassifier(max_depth=2, max_features=None, mip_gap=0.9, time_limit=10,
                                   solver_options={"mip_max_nodes": 2}), X, y)
    report = est.fit_report_
    assert report.bound <= report.objective
    assert (report.objective - report.bound) <= 0.9 * report.objective
    assert report.outcome.value == "proven optimal" and report.certified_by == report.bound_source
    # the bound reported is the bound found, not the objective: the gap within the tolerance stays visible
    assert report.gap > 1e-4
