"""LossOptimalTreeClassifier and MARGOTClassifier: presets, backends, l2 by MIQP and outer approximation."""


import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import LossOptimalTreeClassifier, MARGOTClassifier, OLCTClassifier
from _support import fit_quiet, needs_scip




@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.choice(len(y), 40, replace=False)
    return X[idx][:, [0, 1, 7, 21]], y[idx]


@needs_scip
def test_margot_same_optimum_exact_and_outer(cancer):
    X, y = cancer
    a = fit_quiet(MARGOTClassifier(max_depth=2, C=2.0, solver="scip", mip_gap=0, time_limit=120, refine=False,
                                   warm_start="tao"), X, y)
    b = fit_quiet(MARGOTClassifier(max_depth=2, C=2.0, solver="highs", mip_gap=0, time_limit=120, refine=False,
                                   warm_start="tao"), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"
    assert "l2_relative_error" not in a.solver_result_.checks
    err = b.solver_result_.checks["l2_relative_error"]
    assert err <= 1e-4
    assert b.solver_result_.objective == pytest.approx(a.solver_result_.objective, rel=2e-4)
    # refine off: the solver's tree, rounded, unless a neighbourhood round's tree is better in the exact objective
    # (the outer approximation's optimum is within l2_tol of the l2 term, not exact)
    if b.fit_report_.returned == "solver":
        assert b.objective_ == pytest.approx(b.solver_result_.objective, rel=1e-6)
    else:
        assert b.fit_report_.returned == "neighbourhood" and b.objective_ < b.solver_result_.objective
    for clf in (a, b):
        checks = clf.fit_report_.checks
        assert checks["routing_mismatches"] == 0
        assert checks["objective_discrepancy"] <= 1e-6 * checks["objective_recomputed"]


@pytest.mark.slow
def test_margot_hfs_budget_in_fitted_tree(cancer):
    X, y = cancer
    clf = fit_quiet(MARGOTClassifier(max_depth=2, feature_selection="hard", max_features=1, time_limit=30,
                                     random_state=0), X, y)
    assert np.all((clf.tree_.weights != 0).sum(axis=1) <= 1)
    assert not hasattr(clf, "predict_proba")          # hinge loss: scores, no probabilities
    assert clf.decision_function(X).shape == (len(y),)
    assert "score =" in clf.export_text() and "sigmoid" not in clf.export_text()


def test_margot_sfs_penalty_reduces_features(cancer):
    X, y = cancer
    loose = fit_quiet(MARGOTClassifier(max_depth=1, feature_selection="soft", alpha=0.0, time_limit=30), X, y)
    tight = fit_quiet(MARGOTClassifier(max_depth=1, feature_selection="soft", alpha=50.0, time_limit=30), X, y)
    assert (tight.tree_.weights != 0).sum() < (loose.tree_.weights != 0).sum()


@needs_scip
@pytest.mark.parametrize("params", [dict(loss="misclassification", regularizer=None),
                                    dict(loss=["hinge", "logistic"], regularizer="l1", tangents="V1")])
def test_same_optimum_from_two_backends(cancer, params):
    X, y = cancer
    X, y = X[:24], y[:24]
    # the TAO start: the default's TMO population takes 5-13 s of these 0.1-0.7 s solves
    opts = dict(max_depth=2, mip_gap=0, time_limit=120, warm_start="tao", **params)
    a = fit_quiet(LossOptimalTreeClassifier(solver="highs", **opts), X, y)
    b = fit_quiet(LossOptimalTreeClassifier(solver="scip", **opts), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"
    assert a.solver_result_.objective == pytest.approx(b.solver_result_.objective, rel=1e-6, abs=1e-6)


def test_olct_is_a_preset_of_the_general_estimator(cancer):
    X, y = cancer
    opts = dict(max_depth=2, C=1.0, tangents="V1", max_features=None, time_limit=30, random_state=0, warm_start="tao",
                solver_options={"mip_max_nodes": 50})
    a = fit_quiet(OLCTClassifier(**opts), X, y)
    b = fit_quiet(LossOptimalTreeClassifier(loss="logistic", regularizer="l1", lam=1.0, **opts), X, y)
    assert np.allclose(a.tree_.weights, b.tree_.weights) and a.objective_ == b.objective_
    assert hasattr(a, "predict_proba") and hasattr(b, "predict_proba")


def test_never_worse_than_warm_start(cancer):
    X, y = cancer
    clf = fit_quiet(LossOptimalTreeClassifier(max_depth=2, loss="hinge", regularizer="l1", time_limit=5,
                                              random_state=0), X, y)
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9


@pytest.mark.parametrize("params,match", [
    (dict(loss="squared"), "loss"), (dict(loss=["hinge", "squared"]), "loss must be"),
    (dict(regularizer="l3"), "regularizer"),
    (dict(feature_selection="hard"), "max_features"), (dict(feature_selection="soft"), "alpha"),
    (dict(feature_selection="both"), "feature_selection"), (dict(l2_tol=0), "l2_tol"),
    (dict(lam=[1, 2, 3]), "lam"), (dict(max_features=0, feature_selection="hard"), "max_features"),
])
def test_bad_parameters(params, match, monkeypatch):
    import optitrees.estimators.mip_fit.pipeline as template

    def no_build(*args, **kwargs):
        raise AssertionError("a model was built before the parameters were checked")

    monkeypatch.setattr(template, "build_with_hook", no_build)
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match=match):
        LossOptimalTreeClassifier(**params).fit(X, np.arange(10) % 2)


def test_no_start_begins_after_the_starts_deadline():
    """TAO and TMO are not begun once the deadline has passed (TMO would still fit its first trees: 0.4-0.7 s
    past a 5 s budget on 30k rows); the greedy start is always made."""
    import time

    X, y = load_breast_cancer(return_X_y=True)
    estimator = OLCTClassifier(max_depth=2)
    estimator._validate_params()
    problem, _, _ = estimator._prepare(X[:150], y[:150], None)
    late = estimator._starts(problem, time.perf_counter() - 1.0, ("greedy", "tao", "tmo"))
    assert list(late) == ["greedy"]
    in_time = estimator._starts(problem, time.perf_counter() + 30.0, ("greedy", "tao"))
    assert list(in_time) == ["greedy", "tao"]
