"""Whether a fit's MIP is solved at all: a model whose root LP HiGHS could not solve in half the solve's time is
not solved, and its time goes to the starts; in reach, with user constraints or without a time limit it is."""

import time
from dataclasses import replace

import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import OLCTClassifier
from optitrees.exceptions import FallbackWarning
from optitrees.solvers import highs
from _support import fit_quiet


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def _watch_the_solver_and_starts(monkeypatch, estimator):
    """Record every MIP solve and the deadline the starts get."""
    from optitrees.estimators import _template

    solves, starts_by = [], []
    solve, starts = _template._solvers.solve, estimator._starts

    def recording_solve(f, **kwargs):
        solves.append(f.n_rows)
        return solve(f, **kwargs)

    def recording_starts(self, problem, deadline, methods):
        starts_by.append(deadline)
        return starts(self, problem, deadline, methods)

    monkeypatch.setattr(_template._solvers, "solve", recording_solve)
    monkeypatch.setattr(estimator, "_starts", recording_starts)
    return _template, solves, starts_by


@pytest.mark.parametrize("counted", [True, False], ids=["size counted", "size read from the groups"])
def test_a_mip_whose_root_lp_is_out_of_reach_is_not_solved_and_its_time_goes_to_the_starts(cancer, monkeypatch,
                                                                                            counted):
    X, y = cancer
    template, solves, starts_by = _watch_the_solver_and_starts(monkeypatch, OLCTClassifier)
    monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6)
    built = []
    build = OLCTClassifier._build
    monkeypatch.setattr(OLCTClassifier, "_build", lambda self, problem: built.append(1) or build(self, problem))
    if not counted:                                                  # a family that cannot count its model
        monkeypatch.setattr(OLCTClassifier, "_family", replace(OLCTClassifier._family, size=None))
    est = OLCTClassifier(max_depth=1, time_limit=8, warm_start="tao")
    t0 = time.perf_counter()
    with pytest.warns(FallbackWarning, match="root LP of .* rows x .* columns needs 1e.06 s or more"):
        est.fit(X[:150, :5], y[:150])
    assert solves == []                                               # HiGHS never ran
    # the starts could use the whole budget but what is kept to make them readable (10%), not their 25% share
    assert starts_by[0] - t0 == pytest.approx((1 - est._reserve_after_starts) * 8, abs=0.3)
    assert est._reserve_after_starts == 0.1
    report = est.fit_report_
    assert report.returned == "start" and report.solved_by is None and report.bound is None
    assert est.solver_result_.status == "time_limit_no_solution"
    assert "root LP" in est.solver_result_.message and any("root LP" in note for note in report.notes)
    assert est.formulation_summary_.endswith("not solved")
    assert est.objective_ == report.objectives["start"] == min(est.start_objectives_.values())
    if counted:                                                      # nothing was built
        assert built == [] and list(report.stages)[:2] == ["validate", "starts"]
        assert est.formulation_summary_.startswith("466 variables, 2706 rows (counted from the problem")
    else:                                                            # built, its size read, the matrix not assembled
        assert built == [1] and list(report.stages)[:3] == ["validate", "build", "starts"]
        assert "coefficients (matrix not assembled)" in est.formulation_summary_


@pytest.mark.parametrize("case", ["in reach", "user constraints", "no time limit"])
def test_the_mip_is_solved_in_reach_with_user_constraints_or_without_a_time_limit(cancer, monkeypatch, case):
    X, y = cancer
    template, solves, starts_by = _watch_the_solver_and_starts(monkeypatch, OLCTClassifier)
    if case != "in reach":                                           # estimated out of reach, solved all the same
        monkeypatch.setattr(highs, "root_lp_seconds", lambda n_rows, n_cols: 1e6)
    est = OLCTClassifier(max_depth=1, time_limit=None if case == "no time limit" else 20,
                         constraints=(lambda f: None) if case == "user constraints" else None)
    t0 = time.perf_counter()
    fit_quiet(est, X[:150, :5], y[:150])
    assert len(solves) == 1 and est.fit_report_.solved_by == "highs"
    if case == "in reach":                                           # the starts keep their share (TMO's: 40%)
        assert est._start_share_of_time() == 0.4 and starts_by[0] - t0 <= 0.4 * 20 + 0.5


def test_nothing_is_built_when_no_time_is_left_for_the_solve(cancer, monkeypatch):
    """An exact search (ConTree) that used the budget leaves no time to solve a MIP: none is built."""
    from optitrees.algorithms.budget import Budget
    from optitrees.estimators._mip_reach import build_first

    X, y = cancer
    est = OLCTClassifier(max_depth=1, time_limit=10)
    est._validate_params()
    problem, _ = est._prepare(X[:150, :5], y[:150])
    monkeypatch.setattr(OLCTClassifier, "_build_matrix_by", lambda *args: pytest.fail("the MIP was built"))
    budget = Budget(10.0)
    budget.start -= 9.0                                   # 1 s left: less than the reserve and the starts' share
    f, why, summary = build_first(est, problem, budget)
    assert f is None and summary is None and why == "the MIP was not solved: no time is left for it after the starts"
    fresh = Budget(10.0)
    monkeypatch.undo()
    f, why, _ = build_first(est, problem, fresh)          # with the time: built (small models are in reach)
    assert why is None and f is not None and "A" in f._cache
