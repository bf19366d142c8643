"""Whether and on which rows a fit's MIP is solved: a model the backend's plan puts out of reach is solved on weighted
representative rows in reach; when none are, it is not solved and its time goes to the starts; user constraints
and fits without a time limit always get the full model."""

import time
from dataclasses import replace

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import OCTHClassifier, OLCTClassifier
from optitrees.budget import Budget
from optitrees.estimators.mip_fit import FitHooks, MIPFit
from optitrees.estimators.mip_fit import solving as pipeline
from optitrees.exceptions import FallbackWarning
from optitrees.solvers import highs
from _support import fit_quiet


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def _watch_the_solver_and_starts(monkeypatch, estimator):
    """Record the data rows every MIP solve models (a neighbourhood round's model keeps only some of its rows, of
    the same data) and the deadline the starts get."""
    solves, starts_by = [], []
    solve, starts = pipeline._solvers.solve, estimator._starts

    def recording_solve(f, **kwargs):
        solves.append(f.problem.data.X.shape[0])
        return solve(f, **kwargs)

    def recording_starts(self, problem, deadline, methods):
        starts_by.append(deadline)
        return starts(self, problem, deadline, methods)

    monkeypatch.setattr(pipeline._solvers, "solve", recording_solve)
    monkeypatch.setattr(estimator, "_starts", recording_starts)
    return solves, starts_by


@pytest.mark.parametrize("counted", [True, False], ids=["size counted", "size read from the groups"])
def test_a_mip_out_of_reach_even_reduced_is_not_solved_and_its_time_goes_to_the_starts(cancer, monkeypatch, counted):
    X, y = cancer
    solves, starts_by = _watch_the_solver_and_starts(monkeypatch, OLCTClassifier)
    monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6)
    built = []
    family = OLCTClassifier._family
    monkeypatch.setattr(OLCTClassifier, "_family", replace(
        family, build=lambda problem: built.append(len(problem.data.y)) or family.build(problem),
        size=family.size if counted else None))
    est = OLCTClassifier(max_depth=1, max_features=None, time_limit=8, warm_start="tao")   # no held-out stage
    t0 = time.perf_counter()
    with pytest.warns(FallbackWarning, match="root LP of .* rows x .* columns needs 1e.06 s or more"):
        est.fit(X[:150, :5], y[:150])
    assert solves == []                                               # HiGHS never ran
    report = est.fit_report_
    assert report.returned == "start" and report.solved_by is None and report.mip_rows is None
    assert report.bound_source.startswith("root layer")              # a bound all the same
    assert est.solver_result_.status == "time_limit_no_solution"
    assert "root LP" in est.solver_result_.message and any("root LP" in note for note in report.notes)
    assert est.formulation_summary_.endswith("not solved")
    assert est.objective_ == report.objectives["start"] == min(est.start_objectives_.values())
    if counted:
        # nothing was built: not the full model, and not the 100 representative rows tried (also out of reach)
        assert built == [] and list(report.stages)[:5] == ["validate", "reduce", "starts", "start refinement", "bound"]
        assert "so is the MIP of 100 representative rows" in est.solver_result_.message
        assert est.formulation_summary_.startswith("466 variables, 2706 rows (counted from the problem")
        # the starts could use the whole budget but what is kept to make them readable (10%), not their share
        assert starts_by[0] - t0 == pytest.approx((1 - est._shares.after_starts) * 8, abs=0.3)
    else:                                                            # built, its size read, the matrix not assembled
        assert built == [150] and list(report.stages)[:5] == ["validate", "starts", "start refinement", "bound",
                                                             "build"]
        assert "coefficients (matrix not assembled)" in est.formulation_summary_


def test_a_full_mip_out_of_reach_is_solved_on_weighted_representative_rows(cancer, monkeypatch):
    """The full model of 300 rows is out of reach, that of about 200 rows in reach: the MIP sees those rows with
    weights, its tree is scored (and refined) on every row, and the fit is never worse than its best start."""
    X, y = cancer
    solves, _ = _watch_the_solver_and_starts(monkeypatch, OLCTClassifier)
    full = OLCTClassifier._family.size(_problem(OLCTClassifier(max_depth=2), X[:300, :6], y[:300]))
    monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6 if n_rows >= 0.8 * full.n_rows else 0.0)
    est = fit_quiet(OLCTClassifier(max_depth=2, time_limit=20, solver_options={"mip_max_nodes": 5}),
                    X[:300, :6], y[:300])
    report = est.fit_report_
    assert report.mip_rows == 210 and report.distinct_rows == 300        # 70% of the rows, per class
    # the neighbourhood rounds and the full MIP, all on the reduced model
    assert solves and set(solves) == {210}
    assert "the MIP was solved on 210 of 300 rows (weighted representatives)" in " ".join(report.notes)
    assert report.solved_by == "highs" and report.bound_source != "highs"    # the reduced MIP's bound is not used
    assert est.objective_ <= min(est.start_objectives_.values()) + 1e-9
    assert est.objective_ == pytest.approx(OLCTClassifier._family.objective(
        _problem(est, X[:300, :6], y[:300]), est.tree_), rel=1e-9)


def _problem(est, X, y):
    est._validate_params()
    return est._prepare(X, y)[0]


@pytest.mark.parametrize("case", ["in reach", "user constraints", "no time limit"])
def test_the_full_mip_is_solved_in_reach_with_user_constraints_or_without_a_time_limit(cancer, monkeypatch, case):
    X, y = cancer
    solves, starts_by = _watch_the_solver_and_starts(monkeypatch, OLCTClassifier)
    if case != "in reach":                                           # estimated out of reach, solved all the same
        monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6)
    est = OLCTClassifier(max_depth=1, time_limit=None if case == "no time limit" else 20, max_features=None,
                         constraints=(lambda f: None) if case == "user constraints" else None)
    t0 = time.perf_counter()
    fit_quiet(est, X[:150, :5], y[:150])
    # with a time limit and no user constraints, neighbourhood rounds come first: every solve is of the full model
    assert solves and set(solves) == {150} and est.fit_report_.solved_by == "highs" \
        and est.fit_report_.mip_rows == 150
    assert (len(solves) > 1) == (case == "in reach")
    if case == "in reach":                                           # the starts keep their share (TMO's: 40%)
        assert est._shares.of_starts(est._start_methods) == 0.4 and starts_by[0] - t0 <= 0.4 * 20 + 0.5


def test_nothing_is_built_when_no_time_is_left_for_the_solve(cancer, monkeypatch):
    """An exact search that used the budget leaves no time to solve a MIP: none is built, the greedy start is
    returned."""
    X, y = cancer
    est = OCTHClassifier(max_depth=1, time_limit=10, warm_start="tao")
    prepared, training, _ = est._validate_params() or est._prepare(X[:150, :5], y[:150])
    family = OCTHClassifier._family
    settings = replace(est._fit_settings(), family=replace(family, build=lambda p: pytest.fail("the MIP was built")))
    budget = Budget(10.0)
    budget.start -= 9.0                                   # 1 s left: less than the reserve and the starts' share
    fit = MIPFit(settings, FitHooks(starts=est._starts), budget)
    outcome = fit.run(prepared, training)
    assert outcome.report.returned == "start" and outcome.report.mip_rows is None
    assert outcome.solver_result.message == "the MIP was not solved: no time is left for it after the starts"
    assert np.isfinite(outcome.objective)


@pytest.mark.parametrize("share", [0.5, 0.0])
def test_representative_rows_are_sized_for_a_neighbourhood_round_when_rounds_run(cancer, share):
    """With neighbourhood rounds, the reduced MIP is sized for one round (its share of the rounds' share of the
    solve's time); without them, for the whole solve."""
    from optitrees.estimators.mip_fit.neighbourhood import ROUND_SHARE

    X, y = cancer
    est = OLCTClassifier(max_depth=2, time_limit=20, max_features=None)
    est._shares = replace(est._shares, neighbourhood=share)
    prepared, training, _ = est._validate_params() or est._prepare(X[:300, :6], y[:300])
    fit = MIPFit(est._fit_settings(), FitHooks(starts=est._starts), Budget(20.0))
    asked = []

    class Recording:
        name = "highs"

        @staticmethod
        def plan(n_rows, n_cols, nnz=None, seconds=None):
            asked.append(seconds)
            return highs.HighsBackend.plan(n_rows, n_cols, nnz, 0.0 if len(asked) == 1 else 1e9)

    fit.backend = Recording()
    whole = fit.solve_seconds(fit._start_share_if_any())
    rows = fit.reduce(prepared, *fit.backend_plan(prepared))
    assert rows.n_rows < 300 and len(asked) == 2              # the full model out of reach, the first sample in it
    expected = whole * (share * ROUND_SHARE if share else 1.0)
    assert asked[1] == pytest.approx(expected, rel=0.02)
