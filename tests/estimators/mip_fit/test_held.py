"""The fit's handling of a feature budget and of monotonicity, stage by stage: the problem the starts are grown
on, the starts and candidates left out or repaired (with a note), and one check of every constraint."""

import numpy as np

from optitrees import OCTClassifier
from optitrees.estimators._report import FitLog
from optitrees.estimators.mip_fit.feature_costs import affordable_models, refine_problem, start_problem
from optitrees.estimators.mip_fit.held import keeps_every_constraint
from optitrees.estimators.mip_fit.monotone import monotone_models
from optitrees.formulations.feature_budget import FeatureBudget
from optitrees.formulations.oct.solution import OCT_FAMILY
from optitrees.monotonicity import MonotoneConstraint, check_monotonic
from optitrees.trees import Tree


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] - X[:, 3] + rng.normal(0, 0.3, 80) > 0).astype(int)
    est = OCTClassifier(max_depth=1)
    est._validate_params()
    problem, _, _ = est._prepare(X, y)
    return problem


def _stump(feature, left, right, p=4, threshold=0.5):
    weights = np.zeros((3, p))
    weights[0, feature] = 1.0
    return Tree(children_left=[1, -1, -1], children_right=[2, -1, -1], weights=weights,
                threshold=[threshold, 0, 0], value=np.ones((3, 2)), label=[left, left, right])


def test_the_starts_are_grown_on_the_affordable_features():
    problem = _problem()
    budget = FeatureBudget.create([5.0, 1.0, 1.0, 5.0], 6.0, ["x0", "x1", "x2", "x3"])
    grown_on = start_problem(OCT_FAMILY, budget, problem, None)
    kept = np.setdiff1d(np.arange(4), grown_on.spec.forbidden)
    assert budget.costs[kept].sum() <= 6.0 and len(kept) >= 1
    assert grown_on.data is problem.data                       # the same rows: a start is a start of the problem
    assert start_problem(OCT_FAMILY, None, problem, None) is problem
    assert refine_problem(OCT_FAMILY, budget, problem, _stump(1, 0, 1)).spec.forbidden == (0, 2, 3)


def test_models_over_the_budget_are_left_out_with_a_note():
    budget = FeatureBudget.create([5.0, 1.0, 1.0, 5.0], 2.0, ["x0", "x1", "x2", "x3"])
    log = FitLog()
    models = {"cheap": _stump(1, 0, 1), "dear": _stump(0, 0, 1)}
    kept, finals = affordable_models(budget, models, dict(models), log)
    assert list(kept) == list(finals) == ["cheap"]
    assert any("the dear start reads features costing 5" in n for n in log.notes)


def test_a_start_that_is_not_monotone_is_relabelled_in_both_units():
    problem = _problem()
    monotone = MonotoneConstraint(np.array([1, 0, 0, 0]), ("x0", "x1", "x2", "x3"))
    log = FitLog()
    falling = _stump(0, 1, 0, threshold=0.5)                   # class 1 left of the split on x0: falls with x0
    kept, finals = monotone_models(monotone, OCT_FAMILY, problem, {"greedy": falling},
                                   {"greedy": OCT_FAMILY.finalize(problem, falling)}, log)
    assert check_monotonic(kept["greedy"], [1, 0, 0, 0]).proven
    assert check_monotonic(finals["greedy"], [1, 0, 0, 0]).proven
    assert any("the greedy start was not monotone" in n for n in log.notes)


def test_one_check_of_every_constraint():
    problem = _problem()

    class Settings:
        parity = None
        feature_budget = FeatureBudget.create([5.0, 1.0, 1.0, 5.0], 2.0, ["x0", "x1", "x2", "x3"])
        monotone = MonotoneConstraint(np.array([0, 1, 0, 0]), ("x0", "x1", "x2", "x3"))

    assert keeps_every_constraint(Settings, _stump(1, 0, 1), problem)
    assert not keeps_every_constraint(Settings, _stump(1, 1, 0), problem)        # falls with x1
    assert not keeps_every_constraint(Settings, _stump(0, 0, 1), problem)        # x0 costs 5
