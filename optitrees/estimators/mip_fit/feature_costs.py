"""A fit held to a feature budget (:class:`~optitrees.formulations.feature_budget.FeatureBudget`).

The budget's block is in the formulation (the MIP keeps it and its bound is the constrained problem's). The starts
are grown on *affordable* features, the first ones the l1-logistic path admits whose costs fit in the budget
(:func:`start_problem`), so every start keeps it; a start found otherwise (an exact search that ignores the budget,
a fair start) and any candidate (the solver's model within its tolerances, a refinement) that reads more than the
budget pays for is not returned (:func:`affordable_models`). Where an exact search (ConTree) ignores the budget,
its search on the affordable features gives one more start (:func:`affordable_exact`). The refinements of a tree
are run on the features it already reads (:func:`refine_problem`).
"""

from __future__ import annotations

import numpy as np

from ...algorithms.feature_order import l1_entry_order
from ...trees import Tree
from .._auto_budget import ORDER_ROWS, sample

__all__ = ["holds", "keeps", "start_problem", "affordable_features", "affordable_exact", "refine_problem", "affordable_models",
           "budget_report"]


def holds(budget) -> bool:
    """Whether a fit's ``feature_budget`` (``None`` or a FeatureBudget) has a budget to keep."""
    return budget is not None and budget.holds


def _source(problem):
    """The problem whose rows are the features' (a generalized score's candidate-column problem keeps its
    ``source``)."""
    return getattr(problem, "source", None) or problem


def start_problem(family, budget, problem, deadline, seed=0):
    """``problem`` narrowed (``family.narrowed``) to the affordable features: along the l1-logistic path of its
    rows (a stratified sample of :data:`~optitrees.estimators._auto_budget.ORDER_ROWS` beyond that), each allowed
    feature whose cost fits in what the budget has left; ``problem`` itself without a budget."""
    if not holds(budget):
        return problem
    data = _source(problem).data
    allowed = np.ones(data.n_features, bool)
    allowed[list(_source(problem).spec.forbidden)] = False
    kept = affordable_features(budget, data.X, data.y, data.fit_weight, allowed, seed,
                               family.fewest_features(problem), deadline)
    return family.narrowed(problem, kept)


def affordable_features(budget, X, y, weight, allowed, seed=0, fewest=0, deadline=None) -> np.ndarray:
    """Mask of the allowed features a model under ``budget`` is first grown on: along the l1-logistic path of the
    rows (a stratified sample of :data:`~optitrees.estimators._auto_budget.ORDER_ROWS` beyond that), each feature
    whose cost fits in what the budget has left (at least the ``fewest`` cheapest)."""
    y = np.asarray(y)
    rows = sample(y, seed, ORDER_ROWS)
    if rows is not None:
        X, y, weight = X[rows], y[rows], None if weight is None else np.asarray(weight)[rows]
    # the path stops once as many features have entered as the budget can pay for (on every row of 8,000 of adult
    # the whole path took 27.6 s, its first 8 features 0.5 s)
    order = l1_entry_order(X, y, weight, allowed, most=max(budget.most_affordable(allowed), fewest), deadline=deadline)
    return budget.affordable(order, allowed, fewest)


def affordable_exact(fit, problem, narrowed, exact) -> dict:
    """``{name: model}``: where a fit's exact search (ConTree) found a tree over the budget, its search on the
    affordable features (``narrowed``, :func:`start_problem`) within what is left of the fit's budget: a start
    (its proof holds among those features only, so it certifies nothing); ``{}`` otherwise."""
    budget = fit.settings.feature_budget
    if exact is None or not holds(budget) or budget.keeps(fit.family.finalize(problem, exact.model)):
        return {}
    found = fit.hooks.exact_search(narrowed, fit.budget, fit.log)
    return {} if found is None else {f"{found.engine} on affordable features": found.model}


def refine_problem(family, budget, problem, model):
    """The problem a refinement of ``model`` runs on: under a budget, a tree's own features only (a refinement
    may move its weights, not read another feature); ``problem`` otherwise."""
    if not holds(budget) or not isinstance(model, Tree):
        return problem
    return family.narrowed(problem, budget.read(model))


def keeps(budget, final) -> bool:
    """Whether ``final`` (a model in the user's units) keeps ``budget`` (``True`` without one)."""
    return not holds(budget) or budget.keeps(final)


def affordable_models(budget, models: dict, finals: dict, log, what: str = "start") -> tuple[dict, dict]:
    """``(models, finals)`` without those whose final form (``finals``, the user's units, by name) reads features
    over ``budget``; each one left out is noted in ``log`` as a ``what``."""
    if not holds(budget):
        return models, finals
    over = [name for name, final in finals.items() if not budget.keeps(final)]
    for name in over:
        log.note(f"the {name} {what} reads features costing {budget.cost(finals[name]):.6g}, over the budget "
                 f"{budget.budget:g}: it is not returned")
    return ({k: v for k, v in models.items() if k not in over}, {k: v for k, v in finals.items() if k not in over})


def budget_report(budget, model) -> dict | None:
    """The report's ``feature_cost`` of ``model``: ``None`` without costs."""
    return None if budget is None else budget.report(model)
