"""The fit template every MIP estimator shares: honest status, the whole-fit time budget, warnings, input checks."""

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, OLCTClassifierCV, RiskScoreClassifier)
from optitrees import FitOutcome
from optitrees.exceptions import FallbackWarning, TimeLimitWarning
from optitrees.solvers.highs import UNTIMED_STEPS_OFF
from optitrees.solvers.plan import SUB_MIP_HEURISTICS_OFF
from _support import fit_quiet, full_mip_only, within_limit


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def test_status_describes_the_returned_model(cancer):
    """The V0 surrogate's optimum at depth 1 is worse in the exact loss than the l1-logistic start; the solver's
    proof is of the surrogate, and the start is proven optimal by the root layer's bound (at depth 1 the whole
    model), not by the solver."""
    X, y = cancer
    X, y = X[:200, :6], y[:200]
    with pytest.warns(FallbackWarning, match="returning the start"):
        clf = OLCTClassifier(max_depth=1, tangents="V0", max_features=None, refine=False, mip_gap=0,
                             time_limit=60).fit(X, y)
    r, report = clf.solver_result_, clf.fit_report_
    assert r.status == "optimal"                     # the solve itself: the surrogate's optimum, proven
    assert report.returned == "start"                # ... but the model returned is the start
    assert report.objectives["solver"] > report.objectives["start"]
    assert clf.objective_ == report.objectives["start"] == report.objectives["returned"]
    assert "returned: start" in str(report) and report.certified_by != "highs"
    assert report.bound_source == "root layer (logistic, all 200 rows)" and report.gap < 1e-4
    assert report.bound >= r.bound                          # the exact loss's bound is above the surrogate's optimum
    assert (report.outcome is FitOutcome.PROVEN_OPTIMAL) == (report.certified_by == report.bound_source)


def test_status_when_the_solver_tree_is_returned(cancer):
    X, y = cancer
    clf = fit_quiet(OCTClassifier(max_depth=1, mip_gap=0, time_limit=60), X[:120, :4], y[:120])
    r, report = clf.solver_result_, clf.fit_report_
    assert r.status == "optimal" and report.returned in ("solver", "start")
    assert clf.objective_ == report.objectives[report.returned] == min(report.objectives[k]
                                                                       for k in ("start", "solver"))


@pytest.mark.parametrize("make", [
    lambda: GeneralizedRiskScoreClassifier(n_rules=3, time_limit=2),
    lambda: OCTHClassifier(max_depth=2, time_limit=2),
    lambda: MARGOTClassifier(max_depth=2, time_limit=2),
    lambda: OLCTClassifier(max_depth=2, time_limit=2),
], ids=["ogrs", "octh", "margot-oa", "olct"])
def test_time_limit_is_the_budget_of_the_whole_fit(cancer, make):
    X, y = cancer
    est = make()
    t0 = time.perf_counter()
    fit_quiet(est, X, y)
    elapsed = time.perf_counter() - t0
    assert within_limit(elapsed, est.time_limit), elapsed
    assert est.fit_report_.seconds == pytest.approx(elapsed, abs=0.5)


@pytest.mark.parametrize("termination, solution, kinds", [
    ("time_limit", "none", {FallbackWarning, TimeLimitWarning}),     # the start is returned, and it is unproven
    ("time_limit", "feasible", {TimeLimitWarning}),
    ("other", "none", {FallbackWarning, TimeLimitWarning}),           # a node limit before any solution
    ("other", "feasible", {TimeLimitWarning}),
    ("optimal", "optimal", set()),
])
def test_status_notes_name_every_unproven_return(termination, solution, kinds):
    from optitrees.estimators.mip_fit.notes import status_notes
    from optitrees.solvers.results import SolutionStatus, SolverResult, TerminationCondition

    result = SolverResult(solver="highs", termination=TerminationCondition(termination),
                          solution_status=SolutionStatus(solution))
    objectives = {"start": 1.0} if solution == "none" else {"start": 1.0, "solver": 1.0}
    returned = "start" if solution == "none" else "solver"
    notes = status_notes(result, returned, objectives, "greedy")
    assert {kind for kind, _ in notes} == kinds
    assert all("not proven optimal" in text for kind, text in notes if kind is TimeLimitWarning)
    if termination == "other":                  # stopped by a node limit: not told as a time limit
        assert all("solver stopped early" in text for kind, text in notes if kind is TimeLimitWarning)


def test_time_limit_warning_is_a_convergence_warning(cancer):
    X, y = cancer
    assert issubclass(TimeLimitWarning, ConvergenceWarning)
    with pytest.warns(TimeLimitWarning, match="not proven optimal"):
        OCTHClassifier(max_depth=2, time_limit=1).fit(X, y)
    # a grid search can silence exactly this kind
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", TimeLimitWarning)
        warnings.simplefilter("ignore", FallbackWarning)
        OCTClassifier(max_depth=2, time_limit=1).fit(X[:200], y[:200])


def test_risk_score_greedy_steps_receive_solver_options(monkeypatch, cancer):
    import optitrees.solvers as solvers_module

    seen = []
    original = solvers_module.solve

    def spy(model, solver="highs", **kwargs):
        seen.append((kwargs.get("solver_options"), kwargs.get("verbose")))
        return original(model, solver, **kwargs)

    monkeypatch.setattr(solvers_module, "solve", spy)
    X, y = cancer
    opts = {"mip_max_nodes": 0}                        # the root only: 0.2 s (5 nodes: 13 s)
    fit_quiet(GeneralizedRiskScoreClassifier(n_rules=2, time_limit=20, solver_options=opts, method="tangents"),
              X[:100, :5], y[:100])
    assert len(seen) >= 3                             # two greedy steps and the final solve
    assert all(o == opts and v is False for o, v in seen)


def test_margot_outer_approximation_is_deterministic_under_a_node_limit(cancer):
    X, y = cancer
    X, y = X[:40, :4], y[:40]
    def make():                     # the full MIP alone (no neighbourhood rounds): its outer-approximation loop
        return full_mip_only(MARGOTClassifier(max_depth=2, time_limit=120, warm_start="tao",
                                              solver_options={"mip_max_nodes": 5}))

    a, b = fit_quiet(make(), X, y), fit_quiet(make(), X, y)
    assert np.array_equal(a.tree_.weights, b.tree_.weights) and a.objective_ == b.objective_
    ra = a.solver_result_
    # rounds continue when a round stops on the node limit; the loop returns its best solution in the exact
    # objective (the squares, not their tangents), not proven optimal
    assert ra.checks["oa_rounds"] > 1 and ra.status == "feasible"
    assert a.fit_report_.outcome.value == "not proven optimal"


@pytest.mark.parametrize("cls", [OLCTClassifier, OCTClassifier, GeneralizedRiskScoreClassifier])
def test_mixed_pandas_input_names_the_columns(cls):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(30, 80, 20), "sex": rng.choice(["f", "m"], 20),
                      "stage": pd.Categorical(rng.choice([1, 2, 3], 20)), "bp": rng.normal(size=20)})
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=r"'sex', 'stage'.*OneHotEncoder"):
        cls(time_limit=5).fit(X, y)


def test_numeric_and_boolean_pandas_columns_are_accepted():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(30, 80, 30), "smoker": rng.random(30) < 0.5,
                      "bp": pd.array(rng.normal(size=30), dtype="Float64")})
    y = (X["age"] > 55).astype(int).to_numpy()
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=10), X, y)
    assert list(clf.feature_names_in_) == ["age", "smoker", "bp"]


@pytest.mark.parametrize("cls", [OLCTClassifier, OCTClassifier, OCTHClassifier])
def test_forbidden_features_are_never_used(cancer, cls):
    X, y = cancer
    clf = fit_quiet(cls(max_depth=2, time_limit=2, solver_options={"mip_max_nodes": 10}, warm_start="tao",
                        forbidden_features=[27, "x22"]), X[:150], y[:150])
    assert np.all(clf.tree_.weights[:, [22, 27]] == 0)


def test_user_constraint_hook_and_a_start_that_violates_it(cancer):
    from optitrees.exceptions import WarmStartWarning

    X, y = cancer
    X, y = X[:150, :6], y[:150]
    free = fit_quiet(OCTClassifier(max_depth=1, time_limit=20), X, y)
    j = int(free.tree_.feature[0])                        # CART's (and the optimum's) root feature

    def not_that_feature(f):
        f.fix("a", 0.0, mask=np.outer(f.sets["T"] == 1, np.arange(len(f.sets["J"])) == j))

    with pytest.warns(WarmStartWarning, match="it is not returned"):
        clf = OCTClassifier(max_depth=1, time_limit=20, constraints=not_that_feature).fit(X, y)
    report = clf.fit_report_
    assert report.returned == "solver" and "start" not in report.objectives
    assert clf.tree_.feature[0] != j and clf.objective_ >= free.objective_


def test_family_solver_defaults_sit_under_the_users_options():
    sub_mips_off = {"mip_heuristic_run_rens": False, "mip_heuristic_run_rins": False,
                    "mip_heuristic_run_root_reduced_cost": False}
    assert OCTHClassifier()._solve_options()["solver_options"] == {"presolve": "off", **sub_mips_off}
    assert OLCTClassifier(solver_options={"presolve": "on", "mip_max_nodes": 3})._solve_options()["solver_options"] \
        == {"presolve": "on", "mip_max_nodes": 3, **sub_mips_off}
    assert MARGOTClassifier()._solve_options()["solver_options"] == {"presolve": "off", **sub_mips_off}
    assert OLCTClassifier(solver_options={"mip_heuristic_run_rins": True})._solve_options()["solver_options"][
        "mip_heuristic_run_rins"] is True                                  # the user's options win
    assert MARGOTClassifier(solver="scip")._solve_options()["solver_options"] == {}
    # RENS / RINS stay on when no start is handed over (none satisfies a user's constraints): they find the first
    # good trees then
    assert OLCTClassifier()._fit_settings().solve_options(with_start=False)["solver_options"] == {"presolve": "off"}
    assert GeneralizedRiskScoreClassifier()._solve_options()["solver_options"] == {}


_SUB_MIPS_OFF = dict(SUB_MIP_HEURISTICS_OFF["highs"])


@pytest.mark.parametrize("limit, given, expected", [
    (0, None, {**UNTIMED_STEPS_OFF, **_SUB_MIPS_OFF}),                        # big: HiGHS's untimed steps off
    (0, {"mip_detect_symmetry": True}, {**UNTIMED_STEPS_OFF, **_SUB_MIPS_OFF, "mip_detect_symmetry": True}),
    (10**9, None, {"presolve": "off", **_SUB_MIPS_OFF}),                      # small: the family's defaults
])
def test_a_big_model_goes_to_highs_without_its_untimed_steps(cancer, monkeypatch, limit, given, expected):
    from optitrees.estimators.mip_fit import solving as pipeline
    from optitrees.solvers import highs

    seen = []
    solve = pipeline._solvers.solve

    def recording(f, **kwargs):
        seen.append(dict(kwargs["solver_options"]))
        return solve(f, **kwargs)

    monkeypatch.setattr(pipeline._solvers, "solve", recording)
    monkeypatch.setattr(highs, "BIG_MODEL_NONZEROS", limit)
    X, y = cancer
    fit_quiet(OCTHClassifier(max_depth=1, time_limit=10, solver_options=given), X[:80, :4], y[:80])
    assert seen and all(options == expected for options in seen)       # the neighbourhood rounds' and the full MIP's


def test_a_build_the_budget_cannot_finish_is_left_and_the_start_returned(cancer, monkeypatch):
    X, y = cancer
    from dataclasses import replace

    est = OCTHClassifier(max_depth=2, time_limit=1.0)
    family = OCTHClassifier._family

    def slow_build(problem):
        time.sleep(3.0)
        return family.build(problem)

    monkeypatch.setattr(OCTHClassifier, "_family", replace(family, build=slow_build))
    t0 = time.perf_counter()
    with pytest.warns(FallbackWarning, match="not solved.*returning the") as record:
        est.fit(X, y)
    assert within_limit(time.perf_counter() - t0, 1.0)
    # one note, said once: no time-limit note about a MIP that never ran
    assert len(record) == 1 and len(est.fit_report_.notes) == len(set(est.fit_report_.notes))
    assert record[0].filename == __file__              # the warning points at the user's call, not the library
    r, report = est.solver_result_, est.fit_report_
    assert r.status == "time_limit_no_solution" and report.returned == "start"
    assert est.objective_ == report.objectives["start"] and "while it was built" in est.formulation_summary_
    assert est.predict(X).shape == y.shape


def test_node_fits_left_behind_do_not_undo_the_callers_warning_filters(cancer):
    """Abandoned node fits end in their worker threads after the fit; they must not touch the warning filters
    (``warnings.catch_warnings`` there undid the caller's block: this fit's warning went unrecorded)."""
    import threading

    X, y = cancer
    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        OCTHClassifier(max_depth=2, time_limit=0.05).fit(X, y)
    assert any(issubclass(w.category, FallbackWarning) for w in caught)
    for thread in threading.enumerate():
        if thread.name == "optitrees-deadline":
            thread.join()
    assert warnings.filters == before


def test_threads_bound_numpys_blas_during_the_fit_and_are_restored_after(cancer):
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    before = blas_threads()
    if not before:
        pytest.skip("numpy's BLAS exposes no thread pool here")
    seen = []

    def record(f):                                          # the user hook runs inside the fit
        seen.extend(blas_threads())

    X, y = cancer
    fit_quiet(OCTClassifier(max_depth=1, threads=1, constraints=record, time_limit=20,
                            solver_options={"mip_max_nodes": 0}), X[:60, :4], y[:60])
    assert seen and set(seen) == {1}
    assert blas_threads() == before


@pytest.mark.parametrize("time_limit", [0.0, 0.01])
@pytest.mark.parametrize("make", [OLCTClassifier, MARGOTClassifier, LossOptimalTreeClassifier, OCTClassifier,
                                  OCTHClassifier, GeneralizedRiskScoreClassifier, RiskScoreClassifier,
                                  OLCTClassifierCV], ids=lambda c: c.__name__)
def test_a_fit_whose_time_ends_before_its_mip_warns_once_that_the_time_limit_decided(cancer, make, time_limit):
    X, y = cancer
    if make is RiskScoreClassifier:
        X = (X > np.median(X, axis=0)).astype(float)          # ORS scores binary features
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=ConvergenceWarning, module="sklearn")
        est = make(time_limit=time_limit).fit(X[:200], y[:200])
    timed = [w for w in record if issubclass(w.category, TimeLimitWarning)]
    assert est.fit_report_.returned == "start" and est.solver_result_.x is None
    assert len(timed) == 1 and issubclass(timed[0].category, FallbackWarning), [str(w.message) for w in record]
    assert "not solved" in str(timed[0].message)


def test_a_start_of_the_librarys_own_that_the_mip_cannot_take_is_a_note_not_a_warning(cancer, monkeypatch):
    """Without a user's constraints, a start the MIP's rows do not admit is the library's business: the fit report
    says it, no WarmStartWarning reaches the user (with the user's hook it is a warning: the test above)."""
    from optitrees.estimators.mip_fit.pipeline import MIPFit
    from optitrees.exceptions import WarmStartWarning

    X, y = cancer
    original = MIPFit.start_vector

    def off_by_one(self, f, model, label):
        x = original(self, f, model, label)
        return None if x is None else x + 1.0            # every variable moved: the rows no longer hold

    monkeypatch.setattr(MIPFit, "start_vector", off_by_one)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf = OCTHClassifier(max_depth=1, time_limit=20, solver_options={"mip_max_nodes": 0}).fit(X[:100], y[:100])
    assert not [w for w in record if issubclass(w.category, WarmStartWarning)]
    assert any("start violates the model by" in note for note in clf.fit_report_.notes)
