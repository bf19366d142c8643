"""``fit_report_``: what every fit did, written once at its end (optitrees/estimators/_report.py)."""

import numpy as np
import pytest
from _support import estimator_id, fit_quiet, quick_data, quick_estimators

from optitrees import C45Classifier, FitOutcome, FitReport, OCTClassifier, OLCTClassifier, TAOClassifier


@pytest.mark.parametrize("case", quick_estimators(), ids=estimator_id)
def test_every_fit_writes_one_report(case):
    estimator, kind = case
    X, y = quick_data(kind)
    fitted = fit_quiet(estimator, X, y)
    report = fitted.fit_report_
    assert isinstance(report, FitReport) and report.estimator == type(estimator).__name__
    distinct = len(np.unique(np.column_stack([X, y]), axis=0))          # 0/1 features repeat rows
    assert report.rows == len(y) and report.distinct_rows == distinct and report.weighted == (distinct < len(y))
    assert sum(report.stages.values()) == pytest.approx(report.seconds, abs=0.05)
    assert report.method and type(estimator).__name__ in str(report)
    if hasattr(fitted, "solver_result_"):
        assert report.outcome in (FitOutcome.PROVEN_OPTIMAL, FitOutcome.PROVEN_RESTRICTED, FitOutcome.NOT_PROVEN)
        assert report.objective == fitted.objective_ == report.objectives["returned"]
        assert (report.certified_by is not None) == report.outcome.proven
        # a proof in a problem the fit narrowed names it; the user's own problem is proven without qualification
        assert (report.outcome is FitOutcome.PROVEN_RESTRICTED) == (report.outcome.proven and
                                                                     report.restriction is not None)
    elif type(estimator).__name__ == "OptimalTreeRegressor" and estimator.lasso_penalty > 0:
        # proven in the squared error plus the l1 penalty: not in the reported squared error
        assert report.outcome is FitOutcome.NOT_PROVEN and report.certified_by is None and report.bound is None
        assert report.solved_by == "streed"
    elif type(estimator).__name__ == "OptimalTreeRegressor":          # an exact search, not a MIP
        assert report.outcome is FitOutcome.PROVEN_OPTIMAL and report.certified_by == "streed"
        assert report.bound == report.objective == fitted.objective_
    else:
        assert report.outcome is FitOutcome.HEURISTIC and report.returned == "model"


def test_the_report_says_who_solved_and_who_certified():
    X, y = quick_data("real")
    contree = OCTClassifier(max_depth=2).fit(X, y).fit_report_
    assert contree.outcome is FitOutcome.PROVEN_OPTIMAL and contree.solved_by == contree.certified_by == "contree"
    assert list(contree.stages) == ["validate", "exact search", "starts", "report"]
    mip = fit_quiet(OCTClassifier(max_depth=1, exact_search="mip", mip_gap=0, time_limit=60), X, y).fit_report_
    shallow = OCTClassifier(max_depth=1).fit(X, y).fit_report_
    assert mip.solved_by == "highs" and mip.objective == pytest.approx(shallow.objective)
    # weights with no common unit: ConTree counts them rounded down, which bounds the optimum; the MIP searches
    w = np.linspace(0.5, 1.5, len(y))
    weighted = fit_quiet(OCTClassifier(max_depth=1, time_limit=60), X, y, sample_weight=w).fit_report_
    assert weighted.solved_by == "highs" and any("rounded down" in n for n in weighted.notes)
    assert "contree" in weighted.starts and weighted.bound <= weighted.objective


def test_a_surrogate_optimum_is_not_reported_as_proven():
    X, y = quick_data("real")
    clf = fit_quiet(OLCTClassifier(max_depth=1, tangents="V0", mip_gap=0, time_limit=60), X, y)
    report = clf.fit_report_
    assert clf.solver_result_.status == "optimal" and report.certified_by != "highs"
    if report.outcome.proven:                           # by the root layer's bound on the exact loss (all of depth 1)
        assert report.certified_by.startswith("root layer") and report.returned == "start"
    else:
        assert report.certified_by is None and any("not proven optimal" in n for n in report.notes)


def test_a_heuristic_cut_by_the_time_limit_says_so():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 20))
    y = (X[:, 0] + rng.normal(size=20000) > 0).astype(int)
    report = C45Classifier(time_limit=0.2).fit(X, y).fit_report_
    assert report.outcome is FitOutcome.TRUNCATED and "time limit" in report.notes[-1]
    assert TAOClassifier(max_depth=2).fit(X[:200], y[:200]).fit_report_.outcome is FitOutcome.HEURISTIC


def test_the_solver_result_is_the_solves_own():
    X, y = quick_data("real")
    clf = fit_quiet(OCTClassifier(max_depth=1, exact_search="mip", time_limit=60), X, y)
    r = clf.solver_result_
    assert not hasattr(r, "returned") and not hasattr(r, "certified_by") and "fit" not in r.timings
    assert "routing_mismatches" in clf.fit_report_.checks and "routing_mismatches" not in r.checks


def test_a_long_fit_prints_progress_and_a_solve_inside_speaks_for_it():
    import io
    import time

    from optitrees.budget import Budget
    from optitrees.estimators._report import FitProgress
    from optitrees.solvers.options import ProgressPrinter, SolveOptions

    budget, stream = Budget(30.0), io.StringIO()
    progress = FitProgress("TMOClassifier", budget, stream=stream)
    progress.interval = 0.05
    with progress:
        time.sleep(0.2)
        budget.lap("validate")
        time.sleep(0.2)
        lines = stream.getvalue().splitlines()
        solve_stream = io.StringIO()
        solve = ProgressPrinter("highs", SolveOptions(progress_interval=0.05), stream=solve_stream)
        with solve:
            quiet = len(stream.getvalue().splitlines())
            time.sleep(0.3)
            assert len(stream.getvalue().splitlines()) <= quiet + 1          # the solve's line, not the fit's
        assert solve_stream.getvalue().count("optitrees[highs]") >= 3
    assert lines and all(line.startswith("optitrees[TMOClassifier]") and "of 30 s" in line for line in lines)
    assert any("stages done: validate" in line for line in lines)
