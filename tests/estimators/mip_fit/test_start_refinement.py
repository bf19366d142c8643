"""The best start refined on every row before the MIP (:mod:`optitrees.estimators.mip_fit.start_refinement`), a
start of its own."""

import time
import types
from dataclasses import replace

import pytest
from sklearn.datasets import make_classification

from _support import LOADED_MACHINE_MARGIN, ROOT, fit_quiet
from optitrees import OLCTClassifier
from optitrees.budget import Budget, Shares
from optitrees.estimators.mip_fit import MIPFit
from optitrees.estimators.mip_fit.settings import FitHooks, FitSettings

#: A family whose models are their own objective values (the stage's logic without a formulation).
NUMBERS = types.SimpleNamespace(finalize=lambda problem, model: model, objective=lambda problem, model: model,
                                lower_bound=None)


def _fit(refine, seconds=10.0, **settings):
    settings = {"start_methods": ("greedy", "tmo"), **settings}
    return MIPFit(FitSettings("test", NUMBERS, "highs", refine_name="tao", **settings),
                  FitHooks(starts=lambda problem, deadline, methods: {"greedy": 5.0, "tmo": 3.0}, refine=refine),
                  Budget(seconds))


def test_the_best_start_refined_is_a_start_of_its_own_when_it_is_lower():
    calls = []
    fit = _fit(lambda problem, model, deadline: calls.append(model) or model - 1.0)
    starts, finals, objectives, best = fit.starts(None, None, None)
    assert calls == [3.0]                                  # the best start, and only it
    assert best == "tmo+tao" and objectives == {"greedy": 5.0, "tmo": 3.0, "tmo+tao": 2.0}
    assert starts[best] == finals[best] == 2.0 and "start refinement" in fit.budget.stages


@pytest.mark.parametrize("refined", [3.0, 3.5, None], ids=["equal", "worse", "none"])
def test_a_refinement_that_does_not_lower_the_objective_adds_no_start(refined):
    fit = _fit(lambda problem, model, deadline: refined)
    _, _, objectives, best = fit.starts(None, None, None)
    assert best == "tmo" and set(objectives) == {"greedy", "tmo"}


@pytest.mark.parametrize("settings", [dict(start_methods=("greedy",)), dict(constraints=lambda f: None),
                                      dict(shares=replace(Shares(), start_refinement=0.0))],
                         ids=["warm_start=False", "user constraints", "no share"])
def test_the_start_is_not_refined_without_warm_starts_with_user_constraints_or_without_a_share(settings):
    calls = []
    fit = _fit(lambda problem, model, deadline: calls.append(model) or 0.0, **settings)
    _, _, objectives, best = fit.starts(None, None, None)
    assert calls == [] and "start refinement" not in fit.budget.stages
    assert best == min(objectives, key=objectives.get) and "+" not in best


def test_the_refinement_gets_its_share_of_the_budget_and_is_left_when_it_outlasts_it():
    deadlines = []

    def slow(problem, model, deadline):
        deadlines.append(deadline)
        time.sleep(4.0)                                     # checks no deadline: left at it (plus 1% of the budget)
        return 0.0

    fit = _fit(slow, seconds=10.0)
    t0 = time.perf_counter()
    _, _, objectives, best = fit.starts(None, None, None)
    waited = time.perf_counter() - t0
    assert deadlines[0] - t0 == pytest.approx(Shares().start_refinement * 10.0, abs=LOADED_MACHINE_MARGIN / 10)
    assert best == "tmo" and waited < 4.0                  # 1.1 s of 10, not the 4 s of the slow refinement


def test_a_fit_refines_its_greedy_start_on_every_row_and_returns_no_worse(monkeypatch):
    """The starts asked for are left out (the greedy tree alone, as at a deadline): Remark 1 and TAO on every row
    lower its objective, the refined tree is the start handed to the MIP, and the fit returns no worse."""
    X, y = make_classification(200, 6, n_informative=4, random_state=1)
    grown = OLCTClassifier._starts
    monkeypatch.setattr(OLCTClassifier, "_starts",
                        lambda self, problem, deadline, methods: {"greedy": grown(self, problem, deadline,
                                                                                  ("greedy",))["greedy"]})
    est = fit_quiet(OLCTClassifier(max_depth=2, max_features=None, time_limit=60, solver_options=ROOT,
                                   warm_start="tmo", random_state=0), X, y)
    starts = est.fit_report_.starts
    assert set(starts) == {"greedy", "greedy+tao"} and starts["greedy+tao"] < starts["greedy"] - 1.0
    assert est.warm_start_objective_ == starts["greedy+tao"] and est.greedy_objective_ == starts["greedy"]
    assert est.objective_ <= starts["greedy+tao"] + 1e-9 * starts["greedy+tao"]
    assert est.fit_report_.stages["start refinement"] > 0
