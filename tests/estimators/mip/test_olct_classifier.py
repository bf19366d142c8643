"""OLCTClassifier behaviour: labels, units, reliability rules, interpretation."""

import json
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer

from optitrees import OLCTClassifier
from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.exceptions import AgreementWarning, FallbackWarning
from optitrees.formulations.tangents import logistic_loss
from _support import fit_quiet, full_mip_only


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:120, :6]
    y = data.target.iloc[:120].map({0: "malignant", 1: "benign"})
    return X, y


@pytest.fixture(scope="module")
def fitted(cancer):
    """One depth-2 fit that the tests of its views share (each ran its own, 3 s apiece)."""
    X, y = cancer
    return fit_quiet(OLCTClassifier(max_depth=2, time_limit=3, random_state=0, warm_start="tao"), X, y)


def test_string_labels_and_dataframe_names(cancer, fitted):
    X, y = cancer
    clf = fitted
    assert list(clf.classes_) == ["benign", "malignant"]
    assert set(clf.predict(X)) <= {"benign", "malignant"}
    assert list(clf.feature_names_in_) == list(X.columns)
    assert "mean radius" in clf.export_text() or "mean texture" in clf.export_text()
    assert list(clf.feature_influence().columns) == list(X.columns)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(clf.predict(X), clf.classes_[(proba[:, 1] > 0.5).astype(int)])
    assert (clf.predict(X) == y).mean() > 0.85


def test_weights_in_original_units(cancer, fitted):
    X, y = cancer
    clf = fitted
    Xv = X.to_numpy()
    mean, std = Xv.mean(0), Xv.std(0)
    # the same hyperplanes on standardized data give the same node values
    Ws = clf.tree_.weights * std
    bs = clf.tree_.intercept + clf.tree_.weights @ mean
    assert np.allclose(((Xv - mean) / std) @ Ws.T + bs, Xv @ clf.tree_.weights.T + clf.tree_.intercept)
    # and the exact objective (3.17a) on standardized data is what the estimator reports
    yp = np.where(y == clf.classes_[1], 1.0, -1.0)
    margins = yp[:, None] * np.column_stack([((Xv - mean) / std) @ (clf.tree_.weights[t] * std) + clf.tree_.intercept[t]
                                             + clf.tree_.weights[t] @ mean for t in (0, 1, 2)])
    path = clf.decision_path(X)
    loss = logistic_loss(np.take_along_axis(margins, path, axis=1)).sum()
    assert loss + np.abs(Ws).sum() == pytest.approx(clf.objective_)


def test_never_worse_than_warm_start_and_fallback_without_incumbent(cancer):
    X, y = cancer
    clf = OLCTClassifier(max_depth=2, tangents="V3", time_limit=0.0, warm_start=False, random_state=0)
    with pytest.warns(FallbackWarning, match="the MIP was not solved: no time is left for it"):
        clf.fit(X, y)
    r = clf.solver_result_
    # the solve is reported as it went; the returned model is the greedy start
    report = clf.fit_report_
    assert r.status == "time_limit_no_solution" and r.x is None and report.returned == "start"
    assert clf.objective_ == clf.warm_start_objective_ == report.objectives["start"] == report.objectives["returned"]
    for kwargs in (dict(time_limit=1.0, warm_start=False), dict(time_limit=3.0), dict(time_limit=3.0, refine=False)):
        clf = fit_quiet(OLCTClassifier(max_depth=2, random_state=0, **kwargs), X, y)
        assert clf.objective_ <= clf.warm_start_objective_ + 1e-9
        assert clf.objective_ == min(clf.fit_report_.objectives.values())


def test_solver_solution_agrees_with_model(cancer):
    X, y = cancer
    clf = fit_quiet(OLCTClassifier(max_depth=2, time_limit=4, refine=False, random_state=0, warm_start="tao"), X, y)
    checks = clf.fit_report_.checks
    assert checks["routing_mismatches"] == 0
    assert checks["objective_discrepancy"] < 1e-6 * max(1.0, abs(checks["objective_recomputed"]))


def test_refinement_never_increases_objective(cancer):
    X, y = cancer[0].iloc[:80], cancer[1].iloc[:80]
    # a node limit and the TAO start (not a wall-clock limit, not TMO's budget-sized population): both fits
    # reach the same solver model, so only the refinement differs; here it improves on it (19.98 -> 19.13)
    settings = dict(max_depth=2, tangents="V1", max_features=None, time_limit=60, warm_start="tao",
                    solver_options={"mip_max_nodes": 20}, random_state=0)
    a = fit_quiet(full_mip_only(OLCTClassifier(refine=False, **settings)), X, y)
    b = fit_quiet(full_mip_only(OLCTClassifier(refine=True, **settings)), X, y)
    assert a.fit_report_.returned == "solver" and b.fit_report_.returned == "refined"
    assert b.objective_ < a.objective_ - 1e-6


@pytest.mark.slow
def test_deterministic(cancer):
    X, y = cancer
    a = fit_quiet(OLCTClassifier(max_depth=2, time_limit=None, mip_gap=0.05, random_state=1), X.iloc[:60], y.iloc[:60])
    b = fit_quiet(OLCTClassifier(max_depth=2, time_limit=None, mip_gap=0.05, random_state=1), X.iloc[:60], y.iloc[:60])
    assert np.array_equal(a.tree_.weights, b.tree_.weights) and np.array_equal(a.tree_.intercept, b.tree_.intercept) and np.array_equal(a.tree_.threshold, b.tree_.threshold)


def test_univariate_splits(cancer):
    X, y = cancer
    clf = fit_quiet(OLCTClassifier(max_depth=2, univariate=True, time_limit=3, random_state=0, warm_start="tao"), X, y)
    assert ((np.abs(clf.tree_.weights) > 0).sum(axis=1) <= 1).all()
    assert clf.tree_.feature[0] == -2       # the inner node keeps its logistic weight: an "oblique" view of one feature


def test_pickle_clone_and_dict(cancer):
    X, y = cancer
    clf = fit_quiet(OLCTClassifier(max_depth=1, time_limit=5), X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(again.predict(X), clf.predict(X))
    assert clone(clf).get_params() == clf.get_params()
    d = json.loads(json.dumps(clf.to_dict()))
    assert d["max_depth"] == 0 and d["classes"] == ["benign", "malignant"] and d["leaf_model"] == "linear"


def test_interpretation(cancer, fitted):
    X, y = cancer
    clf = fitted
    infl = clf.feature_influence()
    assert infl.shape == (3, X.shape[1])
    assert np.allclose(infl.to_numpy(), clf.tree_.weights * clf.node_std_)
    nodes, conf = clf.path_confidence(X)
    assert nodes.shape == conf.shape == (len(X), 2) and (nodes[:, 0] == 0).all()
    assert np.array_equal(nodes[:, 1], clf.apply(X))
    # the inner node routes by its own classifier's sign (up to the split margin): confidence >= 1/2 but at ties
    assert (conf[:, 0] >= 0.5 - 1e-3).all() and (conf[:, 1] >= 0.5).all()
    # last-layer confidence is the probability of the predicted class
    assert np.allclose(conf[:, 1], clf.predict_proba(X).max(axis=1))


@pytest.mark.parametrize("X,y,match", [
    (np.array([[np.nan, 1.0], [0.0, 1.0]]), [0, 1], "NaN"),
    (np.array([[np.inf, 1.0], [0.0, 1.0]]), [0, 1], "infinite values in column"),
    (np.zeros((4, 2)), [1, 1, 1, 1], "one class"),
    (np.zeros((3, 2)), [0, 1], "inconsistent"),
    (np.array([["a", "b"], ["c", "d"]], dtype=object), [0, 1], "could not convert|string"),
])
def test_bad_input(X, y, match, monkeypatch):
    _no_solve(monkeypatch)
    with pytest.raises(ValueError, match=match):
        OLCTClassifier(time_limit=1).fit(X, y)


def _no_solve(monkeypatch):
    """Fail the test if a model is built or solved: bad input must be caught before."""
    import optitrees.estimators.mip_fit.pipeline as pipeline
    import optitrees.estimators.mip_fit.solving as solving

    def refuse(*args, **kwargs):
        raise AssertionError("a model was built or solved before the input was checked")

    monkeypatch.setattr(pipeline, "build_with_hook", refuse)
    monkeypatch.setattr(solving._solvers, "solve", refuse)


@pytest.mark.parametrize("params,match", [
    (dict(max_depth=0), "max_depth"), (dict(max_depth=2.5), "max_depth"), (dict(C=[1, 2, 3]), "C must"),
    (dict(tangents="V5"), "tangents"), (dict(weight_bound=-1), "weight_bound"), (dict(time_limit=-1), "time_limit"),
    (dict(solver="nonesuch"), "unknown solver"), (dict(mip_gap=2.0), "mip_gap"), (dict(threads=0), "threads"),
    (dict(forbidden_features=["height"]), "not a feature name"), (dict(constraints=3), "constraints"),
])
def test_bad_parameters(params, match, monkeypatch):
    _no_solve(monkeypatch)
    X = np.random.default_rng(0).normal(size=(10, 2))
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match=match):
        OLCTClassifier(**params).fit(X, y)


def test_multiclass_fit_predicts_as_scikit_learns_one_vs_rest():
    """Three classes at depth 1 (convex): the built-in one tree per class predicts as scikit-learn's
    OneVsRestClassifier around the binary estimator (both take the argmax of the trees' scores)."""
    from sklearn.multiclass import OneVsRestClassifier

    X = np.random.default_rng(0).normal(size=(60, 2))
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    ours = OLCTClassifier(max_depth=1).fit(X, y)
    theirs = OneVsRestClassifier(OLCTClassifier(max_depth=1)).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_other_backend(cancer):
    X, y = cancer
    a = fit_quiet(OLCTClassifier(max_depth=1, solver="scip", random_state=0), X, y)
    b = fit_quiet(OLCTClassifier(max_depth=1, solver="highs", random_state=0), X, y)
    assert a.solver_result_.solver == "scip"
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-4)


def test_unpolishable_solution_is_reported(tiny_xor, monkeypatch):
    import optitrees.estimators.mip_fit.solving as template

    # the solver's earlier incumbents (the polished start among them) would stand in for its last solution
    # here; that is tested on its own below
    monkeypatch.setattr(template, "best_earlier_incumbent", lambda *args, **kwargs: None)
    X, y = tiny_xor
    clf = OLCTClassifier(max_depth=2, tangents="V1", C=[2.0, 1.0], mip_gap=0.0, refine=False, warm_start="tao",
                         solver_options={"mip_feasibility_tolerance": 1e-4})
    with pytest.warns(UserWarning) as record:
        clf.fit(X, y)
    messages = " | ".join(str(w.message) for w in record)
    kinds = {w.category for w in record}
    # the whole chain: unpolishable, routing disagrees with z, the solver's "optimal" not passed on (its solution
    # is not integral within the model's tolerance), fall back to the warm start; the warnings speak of the
    # returned model only (the start), the checks keep what happened to the solver's
    assert "returning the start" in messages and kinds == {FallbackWarning, AgreementWarning}
    assert "the solver reported optimal, but its solution is" in messages and "from integral" in messages
    r = clf.fit_report_
    assert r.checks["polished"] is False and r.checks["routing_mismatches"] > 0
    assert r.returned == "start" and r.objectives["solver"] > r.objectives["start"]
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9


def test_an_earlier_incumbent_of_lower_exact_objective_is_the_solvers_model(monkeypatch):
    """The MIP's objective (tangents of the loss) can rank two trees in the other order than the exact one:
    the solver's earlier incumbents are judged by the exact objective. Here the solve's last solution is
    made the greedy start's and its real solution put among the earlier ones; the fit returns the real one."""
    import optitrees.estimators.mip_fit.solving as template
    from optitrees.formulations.loss_optimal.solution import start as start_from_tree

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=40) > 0, 1, 0)
    # HiGHS's RENS / RINS on (OLCT turns them off): on these 40 rows they find the tree the test needs
    make = lambda: full_mip_only(OLCTClassifier(
        max_depth=2, tangents="V0", max_features=None, refine=False, warm_start="greedy",
        solver_options={"mip_max_nodes": 200, "mip_heuristic_run_rens": True, "mip_heuristic_run_rins": True}))
    honest = fit_quiet(make(), X, y)
    assert honest.method_ == "mip" and honest.objective_ < honest.greedy_objective_ - 1e-6
    real = template._solvers.solve

    def swapped(f, **kwargs):
        result = real(f, **kwargs)
        greedy = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
        result.pool, result.x = [result.x], start_from_tree(f, greedy)
        return result

    monkeypatch.setattr(template._solvers, "solve", swapped)
    fitted = fit_quiet(make(), X, y)
    assert fitted.method_ == "mip" and fitted.objective_ == pytest.approx(honest.objective_, rel=1e-12)
    assert any("found 1 before its last" in note for note in fitted.fit_report_.notes)
    np.testing.assert_array_equal(fitted.predict(X), honest.predict(X))


def test_remark_1_refit_then_tao_each_reported_with_its_objective():
    """After the MIP each last-layer node is refit on its routed points (seed 002, Remark 1), kept only where the
    exact objective does not increase; TAO refines from there; the report shows both."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1, 0)
    clf = fit_quiet(OLCTClassifier(max_depth=2, time_limit=20, random_state=0, warm_start=False,
                                   solver_options={"mip_max_nodes": 20}), X, y)
    checks, objectives = clf.fit_report_.checks, clf.fit_report_.objectives
    assert checks["refined_from_objective"] == pytest.approx(objectives["solver"], rel=1e-9)
    assert checks["last_layer_refit_objective"] <= checks["refined_from_objective"] + 1e-9
    assert checks["tao_objective"] <= checks["last_layer_refit_objective"] + 1e-9
    assert objectives["refined"] == pytest.approx(checks["tao_objective"], rel=1e-9)
    unrefined = fit_quiet(OLCTClassifier(max_depth=2, time_limit=20, random_state=0, refine=False,
                                         warm_start=False, solver_options={"mip_max_nodes": 20}), X, y)
    assert "tao_objective" not in unrefined.fit_report_.checks
