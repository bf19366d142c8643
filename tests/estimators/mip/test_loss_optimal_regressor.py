"""LossOptimalTreeRegressor: the solver's tree in the user's units, never worse than its start, printed as fitted."""

import json
import sqlite3
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from _support import fit_quiet, within_limit
from export._printed import tree_dict_predictions, tree_text_predictions
from optitrees import LossOptimalTreeRegressor


def _piecewise(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(X[:, 0] + X[:, 1] > 0, 2.0 * X[:, 0], -X[:, 1])
    return X, y


def test_recovers_an_oblique_split_with_linear_leaves_and_proves_it():
    X, y = _piecewise()
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, lam=0.01, time_limit=30), X * 1000.0 + 5.0, y * 3.0)
    assert str(reg.fit_report_.outcome) == "proven optimal" and reg.fit_report_.certified_by == "highs"
    np.testing.assert_allclose(reg.predict(X * 1000.0 + 5.0), y * 3.0, atol=1e-6)
    assert reg.get_depth() == 2 and not reg.tree_.is_axis_aligned
    assert reg.objective_ <= reg.start_objective_


@pytest.mark.parametrize("loss", ["absolute", "squared"])
def test_never_worse_than_the_cart_start_and_keeps_its_budget(loss):
    X, y = load_diabetes(return_X_y=True)
    t0 = time.perf_counter()
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=3, loss=loss, time_limit=3.0), X[:300], y[:300])
    assert within_limit(time.perf_counter() - t0, 3.0)
    report = reg.fit_report_
    assert reg.objective_ <= reg.start_objective_ + 1e-9
    assert report.objectives["returned"] == reg.objective_ and report.starts["cart"] == reg.start_objective_
    assert report.outcome.value in ("proven optimal", "not proven optimal")


def test_the_objective_is_the_absolute_error_plus_the_penalty_in_standardized_units():
    X, y = _piecewise(40, seed=1)
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, lam=0.05, time_limit=30,
                                             solver_options={"mip_max_nodes": 30}), X, y)
    scale = y.std()
    leaves = reg.tree_.is_leaf
    w = np.abs(reg.tree_.weights * X.std(axis=0))                 # weights on the standardized features
    # a leaf predicts the standardized target (its weights over the target's std); a split only routes
    penalty = w[leaves].sum() / scale + w[~leaves].sum()
    loss = np.abs(reg.predict(X) - y).sum() / scale
    assert reg.objective_ == pytest.approx(loss + 0.05 * penalty, rel=1e-9)
    assert reg.objective_ == reg.fit_report_.objective


@pytest.mark.parametrize("loss", ["absolute", "squared"])
def test_printed_tree_dict_and_sql_give_the_predictions(loss):
    X, y = _piecewise(50, seed=2)
    frame = pd.DataFrame(X, columns=["a", "b"])
    # the squared loss's cut loop re-solves until its tangents converge: 3 s is enough for a tree to print
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, loss=loss, lam=0.01, time_limit=30 if loss == "absolute"
                                             else 3, solver_options={"mip_max_nodes": 30}), frame, y)
    predicted = reg.predict(frame)
    np.testing.assert_allclose(tree_text_predictions(reg.export_text(), frame).astype(float), predicted,
                               rtol=1e-9, atol=1e-9)
    d = json.loads(json.dumps(reg.to_dict()))
    np.testing.assert_allclose(tree_dict_predictions(d, frame).astype(float), predicted, rtol=1e-9, atol=1e-9)
    with sqlite3.connect(":memory:") as con:
        frame.to_sql("data", con, index=False)
        got = [r[0] for r in con.execute(f"SELECT {reg.export_sql()} AS prediction FROM data")]
    assert np.array_equal(np.array(got, float), predicted)


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_the_squared_loss_is_the_squared_error_plus_the_penalty_by_tangents_or_as_an_miqp(solver):
    from optitrees.solvers.registry import available

    if solver not in available():
        pytest.skip(f"{solver} is not installed")
    X, y = _piecewise(30, seed=4)
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, loss="squared", lam=0.05, solver=solver, time_limit=30,
                                             solver_options={"mip_max_nodes": 0} if solver == "highs" else None),
                    X, y)
    assert reg.solver_result_.x is not None and reg.objective_ <= reg.start_objective_ + 1e-12
    assert ("oa_rounds" in reg.solver_result_.checks) == (solver == "highs")     # tangents on HiGHS only
    scale = y.std()
    leaves = reg.tree_.is_leaf
    w = np.abs(reg.tree_.weights * X.std(axis=0))
    penalty = w[leaves].sum() / scale + w[~leaves].sum()
    loss = ((reg.predict(X) - y) ** 2).sum() / scale ** 2
    assert reg.objective_ == pytest.approx(loss + 0.05 * penalty, rel=1e-9)
    # the start's leaves are the rows' means: its objective is CART's squared error on the standardized target
    # plus the penalty of its one split (a unit weight on one standardized feature)
    from sklearn.tree import DecisionTreeRegressor

    cart = DecisionTreeRegressor(max_depth=1, random_state=0).fit((X - X.mean(0)) / X.std(0), y)
    cart_loss = ((cart.predict((X - X.mean(0)) / X.std(0)) - y) ** 2).sum() / scale ** 2
    assert reg.start_objective_ == pytest.approx(cart_loss + 0.05, rel=1e-9)


@pytest.mark.parametrize("params, match", [(dict(max_depth=0), "max_depth"), (dict(lam=-1.0), "lam"),
                                           (dict(weight_bound=0.0), "weight_bound"), (dict(loss="huber"), "loss")])
def test_bad_parameters(params, match):
    X, y = _piecewise(20)
    with pytest.raises(ValueError, match=match):
        LossOptimalTreeRegressor(**params).fit(X, y)


def test_the_start_routes_every_row_as_cart_where_its_gap_is_narrower_than_the_models_eps():
    """CART splits between two values closer than eps; the start scales its split (w = c e_j) instead of moving
    it, so it predicts CART's leaf means on every training row."""
    from sklearn.tree import DecisionTreeRegressor

    from optitrees.estimators.mip._loss_optimal_regressor import _cart_start
    from optitrees.formulations.oblique_regression import ObliqueRegressionProblem, ObliqueRegressionSpec
    from optitrees.scaling import ScaledData

    rng = np.random.default_rng(5)
    X = np.column_stack([np.sort(rng.uniform(size=3000)), 40.0 * rng.standard_t(2, size=3000)])
    y = np.where(X[:, 0] > 0.5, 1.0, 0.0) + np.where(X[:, 0] > 0.8, 0.5, 0.0) + 0.05 * rng.normal(size=3000)
    data = ScaledData.create(X, y, "standard")
    problem = ObliqueRegressionProblem.create(ObliqueRegressionSpec(depth=3, loss="squared"), data, y)
    cart = DecisionTreeRegressor(max_depth=2, random_state=0).fit(data.X, problem.target)
    inner = cart.tree_.children_left >= 0
    gaps = []
    for t in np.flatnonzero(inner):                   # the gap of each of CART's splits on its own rows
        rows = cart.decision_path(data.X)[:, t].toarray().ravel() > 0
        v = data.X[rows, cart.tree_.feature[t]]
        thr = cart.tree_.threshold[t]
        gaps.append(v[v > thr].min() - v[v <= thr].max())
    assert min(gaps) < problem.eps                    # the case: a split inside the model's forbidden gap
    tree = _cart_start(problem)
    np.testing.assert_allclose(tree.predict(data.X), cart.predict(data.X), atol=1e-12)


@pytest.mark.parametrize("given, presolve", [(None, "off"), ({"presolve": "on"}, "on")])
def test_a_large_model_goes_to_highs_without_the_steps_that_ignore_its_time_limit(monkeypatch, given, presolve):
    """Above BIG_MODEL_ROWS, HiGHS's plan runs it without presolve, feasibility jump and symmetry detection, and
    solves its heuristics' LPs without presolve, unless the user's solver_options say otherwise."""
    from optitrees.estimators.mip_fit import solving as pipeline
    from optitrees.solvers import highs

    seen = []
    solve = pipeline._solvers.solve

    def recording(*args, **kwargs):
        seen.append(dict(kwargs["solver_options"]))
        return solve(*args, **kwargs)

    monkeypatch.setattr(pipeline._solvers, "solve", recording)
    monkeypatch.setattr(highs, "BIG_MODEL_ROWS", 10)
    X, y = _piecewise(20)
    fit_quiet(LossOptimalTreeRegressor(max_depth=2, time_limit=10, solver_options=given), X, y)
    assert seen[0]["presolve"] == presolve
    assert seen[0]["mip_heuristic_run_feasibility_jump"] is False and seen[0]["mip_detect_symmetry"] is False
    assert seen[0]["mip_root_presolve_only"] is True


def test_a_model_whose_root_lp_is_out_of_reach_is_not_solved_and_the_best_start_is_returned(monkeypatch):
    from dataclasses import replace

    from optitrees.estimators.mip import _loss_optimal_regressor as module
    from optitrees.estimators.mip_fit import solving as pipeline
    from optitrees.solvers import highs

    solves = []
    monkeypatch.setattr(pipeline._solvers, "solve", lambda *args, **kwargs: solves.append(1))
    monkeypatch.setattr(module, "OBLIQUE_REGRESSION", replace(
        module.OBLIQUE_REGRESSION, build=lambda *args: pytest.fail("a model out of reach was built")))
    monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6)
    X, y = _piecewise(20)
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, time_limit=10), X, y)
    report = reg.fit_report_
    assert solves == [] and report.returned == "start" and report.solved_by is None and report.mip_rows is None
    assert "build" not in report.stages
    assert reg.solver_result_.status == "time_limit_no_solution" and "root LP" in reg.solver_result_.message
    assert any("the MIP was not solved: HiGHS's root LP" in note for note in report.notes)
    # the best of the CART start and its routing with linear leaves refitted
    assert report.method == "cart, linear leaves" and reg.objective_ < reg.start_objective_
    assert reg.objective_ == report.starts["cart, linear leaves"] == report.objectives["start"]
    assert report.bound == 0.0 and report.bound_source == "non-negative objective"


def test_build_formulation_is_the_model_fit_solves():
    from optitrees import solvers

    X, y = _piecewise(20, seed=1)
    X = pd.DataFrame(X, columns=["age", "dose"])
    est = LossOptimalTreeRegressor(max_depth=1, lam=0.05, mip_gap=0, time_limit=60)
    f = est.build_formulation(X, y)
    assert f.sets["J"].tolist() == ["age", "dose"] and not hasattr(est, "tree_")
    by_hand = solvers.solve(f, mip_gap=0)
    reg = fit_quiet(est, X, y)
    assert by_hand.status == reg.solver_result_.status == "optimal"
    assert reg.solver_result_.objective == pytest.approx(by_hand.objective, rel=1e-6)


def _four_features(n=40, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 4))
    y = 2.0 * X[:, 0] - 1.5 * X[:, 1] + 0.5 * X[:, 2] + 0.05 * rng.normal(size=n)
    return X, y


def _objective(problem, w, b, lam):
    residual = problem.target - problem.data.X @ w - b
    return float(np.abs(residual).sum() + lam * np.abs(w).sum())


def test_one_linear_model_under_a_feature_budget_is_the_best_single_feature_lp():
    """Depth 1 is one linear model: under a budget of one unit-cost feature the MIP's proven optimum is the best of
    the four one-feature linear programs (brute force), and the tree reads that feature only."""
    from optitrees.algorithms.regression.linear_leaves import fit_leaf_model

    X, y = _four_features()
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=1, lam=0.1, max_feature_cost=1, time_limit=30), X, y)
    problem = reg.build_formulation(X, y).problem
    brute = []
    for j in range(4):
        w, b = fit_leaf_model(problem.data.X, problem.target, np.ones(len(y)), 0.1, True, 10.0,
                              allowed=np.arange(4) == j)
        brute.append(_objective(problem, w, b, 0.1))
    assert str(reg.fit_report_.outcome) == "proven optimal"
    assert reg.objective_ == pytest.approx(min(brute), rel=1e-6)
    assert np.flatnonzero(reg.tree_.weights[0]).tolist() == [int(np.argmin(brute))]
    assert reg.fit_report_.feature_cost["keeps"] and reg.fit_report_.feature_cost["cost"] == 1.0


def test_one_linear_model_under_monotonic_cst_is_the_sign_bounded_lp():
    """y falls with x1: asked to rise with it, the proven optimum is the linear program with w1 >= 0 (its weight
    0) and the same with w0 <= 0 against a rising x0."""
    from optitrees.algorithms.regression.linear_leaves import fit_leaf_model

    X, y = _four_features()
    signs = np.array([-1, 1, 0, 0])
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=1, lam=0.1, monotonic_cst=signs, time_limit=30), X, y)
    problem = reg.build_formulation(X, y).problem
    w, b = fit_leaf_model(problem.data.X, problem.target, np.ones(len(y)), 0.1, True, 10.0, signs=signs)
    assert str(reg.fit_report_.outcome) == "proven optimal"
    assert reg.objective_ == pytest.approx(_objective(problem, w, b, 0.1), rel=1e-6)
    assert reg.tree_.weights[0, 0] <= 0 and reg.tree_.weights[0, 1] >= 0


@pytest.mark.parametrize("loss", ["absolute", "squared"])
def test_a_monotone_tree_is_proved_monotone_and_its_predictions_rise(loss):
    from optitrees.monotonicity import check_monotonic

    X, y = _piecewise(60, seed=2)
    y = y + 0.5 * X[:, 1]
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, loss=loss, lam=0.01, monotonic_cst={"x1": 1},
                                             time_limit=10, solver_options={"mip_max_nodes": 30}), X, y)
    tree = reg.tree_
    assert not (tree.weights[~tree.is_leaf][:, 1] != 0).any() and (tree.weights[tree.is_leaf][:, 1] >= 0).all()
    found = check_monotonic(reg, [0, 1])
    assert found.proven and reg.fit_report_.monotonicity == {"signs": {"x1": 1}, "exact": True, "keeps": True,
                                                             "violations": 0}
    grid = np.repeat(X[:20], 9, axis=0)
    grid[:, 1] = np.tile(np.linspace(-3, 3, 9), 20)
    assert (np.diff(reg.predict(grid).reshape(20, 9), axis=1) >= -1e-9).all()


def test_a_budgeted_tree_keeps_it_and_its_block_is_in_the_formulation_and_its_files(tmp_path):
    X, y = _four_features(60)
    costs = [4.0, 1.0, 1.0, 1.0]
    reg = fit_quiet(LossOptimalTreeRegressor(max_depth=2, lam=0.01, feature_costs=costs, max_feature_cost=2,
                                             time_limit=10, solver_options={"mip_max_nodes": 30}), X, y)
    read = (reg.tree_.weights != 0).any(axis=0)
    assert np.dot(costs, read) <= 2 and not read[0]
    f = LossOptimalTreeRegressor(max_depth=2, feature_costs=costs, max_feature_cost=2).build_formulation(X, y)
    assert "feature_cost" in f.constraints and "feature_read" in f.variables
    f.write(tmp_path / "budget.lp")
    assert "feature_cost" in (tmp_path / "budget.lp").read_text()


@pytest.mark.parametrize("params, error, match", [
    (dict(feature_costs=[1.0, 2.0], max_feature_cost=1.0), ValueError, "4 features"),
    (dict(monotonic_cst=[1, 0]), ValueError, "monotonic_cst"),
    (dict(monotonic_cst={"age": 1}), ValueError, "age"),
    (dict(forbidden_features=[0, 1, 2, 3]), ValueError, "every feature"),
])
def test_bad_costs_and_constraints_are_named_before_any_solve(params, error, match):
    X, y = _four_features()
    with pytest.raises(error, match=match):
        LossOptimalTreeRegressor(max_depth=1, time_limit=5, **params).fit(X, y)
