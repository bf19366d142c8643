"""OCTClassifier / OCTHClassifier: multi-class, thresholds in original units, backends, reliability."""

import json
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris

from optitrees import OCTClassifier, OCTHClassifier
from optitrees.scaling import scale_unit
from _support import fit_quiet, LOADED_MACHINE_MARGIN, needs_scip




@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    names = np.array(["setosa", "versicolor", "virginica"])
    return X, names[y.to_numpy()]


@pytest.mark.parametrize("cls", [OCTClassifier, OCTHClassifier])
def test_iris_three_classes(iris, cls):
    X, y = iris
    clf = fit_quiet(cls(max_depth=2, alpha=0.01, min_samples_leaf=5, time_limit=15, random_state=0, warm_start="tao",
                        solver_options={"mip_max_nodes": 20}), X, y)
    pred = clf.predict(X)
    assert set(pred) == {"setosa", "versicolor", "virginica"}
    assert (pred == y).mean() >= 0.94
    proba = clf.predict_proba(X)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], pred)
    checks = clf.fit_report_.checks
    assert checks["routing_mismatches"] == 0
    # the tree counts the features it uses; a solver's solution may pay for an indicator delta = 1 at w = 0
    assert checks["objective_recomputed"] <= clf.solver_result_.objective + 1e-9
    if cls is OCTClassifier:
        assert checks["objective_discrepancy"] < 1e-9
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-12
    text = clf.export_text()
    assert "petal" in text and "class: setosa" in text
    json.dumps(clf.to_dict())
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).predict(X), pred)


def test_thresholds_in_original_units():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(1000, 5000, size=20))
    X = np.column_stack([x, rng.normal(size=20)])
    y = (x > 3000).astype(int)
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=20), X, y)
    w, thr = clf.tree_.weights[0], float(clf.tree_.threshold[0])
    assert np.array_equal(w, [1.0, 0.0]) and clf.tree_.feature[0] == 0
    assert x[x <= 3000].max() < thr < x[x > 3000].min()        # between the data values, in original units
    assert len(repr(thr)) <= 6                                  # and a short number
    assert f"x0 <= {repr(thr).removesuffix('.0')}" in clf.export_text()
    assert (clf.predict(X) == y).all()


def test_min_samples_leaf_is_respected(iris):
    X, y = iris
    clf = fit_quiet(OCTClassifier(max_depth=2, min_samples_leaf=40, time_limit=15, random_state=0, warm_start="tao",
                                  solver_options={"mip_max_nodes": 20}), X, y)
    counts = clf.tree_.value[clf.tree_.is_leaf].sum(axis=1)
    assert np.all((counts == 0) | (counts >= 40))


def test_objective_matches_definition(iris):
    X, y = iris
    clf = fit_quiet(OCTClassifier(max_depth=2, alpha=0.05, time_limit=10, random_state=0, warm_start="tao",
                                  solver_options={"mip_max_nodes": 20}), X, y)
    errors = (clf.predict(X) != y).sum()
    assert clf.objective_ == pytest.approx(errors / 100 + 0.05 * clf.tree_.n_splits())
    X01, low, span = scale_unit(X.to_numpy())
    assert np.allclose(X01 * span + low, X)


@needs_scip
@pytest.mark.parametrize("cls", [OCTClassifier, OCTHClassifier])
def test_same_optimum_from_two_backends(cls):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(16, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 0] > 1).astype(int)
    mip = {"exact_search": "mip"} if cls is OCTClassifier else {}
    opts = dict(max_depth=2, alpha=0.02, mip_gap=0, time_limit=120, warm_start="tao", **mip)
    a = fit_quiet(cls(solver="highs", **opts), X, y)
    b = fit_quiet(cls(solver="scip", **opts), X, y)
    assert a.solver_result_.status == b.solver_result_.status == "optimal"
    assert a.solver_result_.objective == pytest.approx(b.solver_result_.objective, abs=1e-7)
    assert b.solver_result_.solver == "scip"


def test_falls_back_to_cart_without_solution(iris):
    X, y = iris
    stop = {"mip_max_nodes": 0, "mip_heuristic_effort": 0.0}
    with pytest.warns(UserWarning, match="no solution.*returning the CART start"):
        clf = OCTClassifier(max_depth=2, time_limit=10, warm_start=False, exact_search="mip",
                            solver_options=stop).fit(X, y)
    r, report = clf.solver_result_, clf.fit_report_
    assert report.returned == "start" and r.objective is None and "solver" not in report.objectives
    assert clf.objective_ == clf.warm_start_objective_ == report.objectives["start"]


@pytest.mark.parametrize("params,match", [(dict(max_depth=0), "max_depth"), (dict(alpha=-0.1), "alpha"),
                                          (dict(min_samples_leaf=0), "min_samples_leaf"),
                                          (dict(min_samples_leaf=500), "exceeds"),
                                          (dict(solver="nonesuch"), "unknown solver")])
def test_bad_parameters(iris, params, match):
    X, y = iris
    with pytest.raises(ValueError, match=match):
        OCTClassifier(**params).fit(X, y)


def test_bad_input():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="one class"):
        OCTClassifier().fit(X, np.zeros(10))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        OCTClassifier().fit(X, np.arange(10) % 2)


def test_label_tree_objective_counts_features_for_octh(iris):
    X, y = iris
    clf = fit_quiet(OCTHClassifier(max_depth=1, alpha=0.01, time_limit=10, random_state=0, warm_start="tao"), X, y)
    assert clone(clf).get_params() == clf.get_params()
    assert clf.objective_ == pytest.approx((clf.predict(X) != y).sum() / 100 + 0.01 * clf.tree_.n_features_used())


@pytest.mark.parametrize("depth,alpha", [(1, 0.0), (2, 0.01), (2, 0.2)])
def test_contree_certifies_the_mip_optimum(depth, alpha):
    rng = np.random.default_rng(depth)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)
    exact = fit_quiet(OCTClassifier(max_depth=depth, alpha=alpha, time_limit=60), X, y)
    mip = fit_quiet(OCTClassifier(max_depth=depth, alpha=alpha, exact_search="mip", mip_gap=0, time_limit=120,
                                  warm_start="tao"), X, y)
    r = exact.solver_result_
    assert exact.fit_report_.certified_by == "contree" and r.status == "optimal" and exact.method_ == "contree"
    assert mip.solver_result_.status == "optimal" and mip.fit_report_.certified_by == "highs"
    assert exact.objective_ == pytest.approx(mip.objective_, abs=1e-9)
    assert exact.objective_ <= exact.greedy_objective_ + 1e-12
    assert "no MIP built" in exact.formulation_summary_


def _three_classes(n=40, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)


def test_contree_certifies_class_weights_in_whole_ratios():
    """Weights that are whole multiples of one unit (here 0.5) are rows repeated: ConTree's optimum is the
    weighted one, the MIP's."""
    X, y = _three_classes()
    weights = {0: 0.5, 1: 1.5, 2: 1.0}
    exact = fit_quiet(OCTClassifier(max_depth=2, alpha=0.01, class_weight=weights, time_limit=60), X, y)
    mip = fit_quiet(OCTClassifier(max_depth=2, alpha=0.01, class_weight=weights, exact_search="mip", mip_gap=0,
                                  time_limit=120, warm_start="tao"), X, y)
    assert exact.fit_report_.certified_by == "contree" and exact.method_ == "contree"
    assert mip.fit_report_.certified_by == "highs"
    assert exact.objective_ == pytest.approx(mip.objective_, abs=1e-9)


def test_contree_on_rounded_weights_gives_a_start_and_a_valid_bound():
    """Weights with no small common unit are rounded down for ConTree: its optimum there is a lower bound on
    the weighted optimum (the MIP's, proven), and its tree a start."""
    X, y = _three_classes()
    w = np.random.default_rng(5).uniform(0.5, 2.0, len(y))
    fit = fit_quiet(OCTClassifier(max_depth=1, alpha=0.01, time_limit=60, warm_start="tao"), X, y, sample_weight=w)
    mip = fit_quiet(OCTClassifier(max_depth=1, alpha=0.01, exact_search="mip", mip_gap=0, time_limit=120,
                                  warm_start="tao"), X, y, sample_weight=w)
    r = fit.fit_report_
    assert mip.fit_report_.certified_by == "highs"
    assert "contree" in r.starts and any("rounded down" in note for note in r.notes)
    assert r.bound <= mip.objective_ + 1e-9 <= fit.objective_ + 2e-9
    assert fit.objective_ == pytest.approx(mip.objective_, abs=1e-9)       # the MIP closes the rest


def test_a_rounded_search_that_meets_its_bound_is_certified():
    """On separable data no row is misclassified, so dropping weight costs nothing: the bound is the objective."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0.1).astype(int)
    w = rng.uniform(0.5, 2.0, 60)
    fit = fit_quiet(OCTClassifier(max_depth=1, alpha=0.01, time_limit=30), X, y, sample_weight=w)
    r = fit.fit_report_
    assert r.outcome == "proven optimal" and r.certified_by == "contree"
    assert r.bound == pytest.approx(0.01) and fit.objective_ == pytest.approx(0.01)


def test_a_certified_fit_computes_only_the_greedy_tree_beside_contree(monkeypatch):
    import optitrees.estimators.mip._oct as oct_estimators

    def no_search(*args, **kwargs):
        raise AssertionError("TAO / TMO ran although ConTree had proved the optimum")

    monkeypatch.setattr(oct_estimators, "tmo_label_tree", no_search)
    monkeypatch.setattr(OCTClassifier, "_tao", no_search)
    X, y = load_iris(return_X_y=True)
    clf = fit_quiet(OCTClassifier(max_depth=2, time_limit=30), X, y)
    assert clf.method_ == "contree" and clf.greedy_objective_ >= clf.objective_


def test_contree_gets_the_budget_first_and_an_unfinished_search_reports_its_bound(monkeypatch):
    """ConTree may use the whole budget but a reserve; when it stops before its proof, its tree is a start
    and the report carries a valid lower bound (rows identical in X with another label: any tree errs there)."""
    import optitrees.estimators.mip._oct as oct_estimators
    from optitrees.algorithms.oct.contree import contree_tree

    X, y = load_iris(return_X_y=True)
    X = np.vstack([X, X[:5]])
    y = np.r_[y, [1, 1, 1, 1, 2]]                       # five rows repeated with another label: 5 errors at least
    limits = []

    def unfinished(*args, **kwargs):
        limits.append(args[6])
        tree, _, seconds = contree_tree(*args, **kwargs)
        return tree, False, seconds

    monkeypatch.setattr(oct_estimators, "contree_tree", unfinished)
    clf = fit_quiet(OCTClassifier(max_depth=2, time_limit=20, solver_options={"mip_max_nodes": 1}), X, y)
    assert limits[0] >= 20 - 1.0 - 0.5                   # all of the budget but the reserve (5%, at least 0.5 s)
    r = clf.fit_report_
    L_hat = 155 - 54                                     # weight outside the largest class (classes 50, 54, 51)
    assert r.outcome == "not proven optimal" and r.certified_by is None
    assert r.bound == pytest.approx(max(5 / L_hat, clf.solver_result_.bound or 0)) and r.bound <= r.objective
    family = r.bound == pytest.approx(5 / L_hat)          # the family's bound, unless HiGHS proved more
    assert r.bound_source == ("rows identical in features with different labels" if family else "highs")
    assert "contree" in r.starts and any("ConTree's search ended" in n for n in r.notes)
    assert "lower bound" in str(r)


def test_contree_is_not_used_where_it_cannot_express_the_model():
    X, y = load_iris(return_X_y=True)
    clf = fit_quiet(OCTClassifier(max_depth=2, min_samples_leaf=10, time_limit=10, warm_start="tao",
                                  solver_options={"mip_max_nodes": 10}), X, y)
    assert clf.solver_result_.solver == "highs" and clf.method_ != "contree"


@needs_scip
def test_a_named_solver_is_the_one_that_solves():
    X, y = load_iris(return_X_y=True)
    X, y = X[::3], y[::3]
    clf = fit_quiet(OCTClassifier(max_depth=1, solver="scip", time_limit=30, mip_gap=0), X, y)
    assert clf.solver_result_.solver == "scip" and clf.method_ != "contree"
    default = fit_quiet(OCTClassifier(max_depth=1, time_limit=30), X, y)
    assert default.fit_report_.certified_by == "contree"
    assert clf.objective_ == pytest.approx(default.objective_)        # SCIP proves the same optimum


def test_ctrl_c_stops_the_exact_search_at_once():
    """pycontree holds the GIL for its whole search (10.5 s to stop measured); it runs in a child process now."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import numpy as np\n"
        "from optitrees import OCTClassifier\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(20000, 20)); y = (X[:, 0] + rng.normal(size=20000) > 0).astype(int)\n"
        "print('fitting', flush=True)\n"
        "OCTClassifier(max_depth=3, time_limit=60).fit(X, y)\n"       # ConTree alone: > 6 s on these data
        "print('finished', flush=True)\n")
    # a test worker may run with SIGINT ignored, which a child inherits: give it the default back
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline().strip() == "fitting"
    # inside ConTree's search once the fit has forked its child (Linux lists it; elsewhere: 2 s, as before)
    children = f"/proc/{proc.pid}/task/{proc.pid}/children"
    waited = time.perf_counter()
    while os.path.exists(children) and time.perf_counter() - waited < 30:
        with open(children) as fh:
            if fh.read().strip():
                break
        time.sleep(0.05)
    time.sleep(0.5 if os.path.exists(children) else 2.0)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert time.perf_counter() - t0 < 1.0 + LOADED_MACHINE_MARGIN and "KeyboardInterrupt" in err and "finished" not in out


def test_no_start_begins_after_the_starts_deadline():
    """TAO and TMO are not begun once the deadline has passed; the greedy start is always made."""
    import time

    X, y = load_iris(return_X_y=True)
    estimator = OCTHClassifier(max_depth=2)
    estimator._validate_params()
    problem, _, _ = estimator._prepare(X, y, None)
    assert list(estimator._starts(problem, time.perf_counter() - 1.0, ("greedy", "tao", "tmo"))) == ["greedy"]
    assert list(estimator._starts(problem, time.perf_counter() + 30.0, ("greedy", "tao"))) == ["greedy", "tao"]


def test_an_unfinished_search_without_a_time_limit_says_how_long_it_ran(monkeypatch):
    import optitrees.estimators.mip._oct as oct_estimators
    from optitrees.algorithms.oct.contree import contree_tree

    def unfinished(*args, **kwargs):
        tree, _, seconds = contree_tree(*args, **kwargs)
        return tree, False, seconds

    monkeypatch.setattr(oct_estimators, "contree_tree", unfinished)
    X, y = load_iris(return_X_y=True)
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=None, solver_options={"mip_max_nodes": 1}), X, y)
    assert any("(600 s, with no time limit)" in note for note in clf.fit_report_.notes)
