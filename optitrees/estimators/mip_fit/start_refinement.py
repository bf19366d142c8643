"""The best start refined on every row before the MIP: a start of its own (:func:`refined_start`).

At the users' sizes a start is cut by its deadline before its local search converges: TMO's individuals are TAO
trees whose TAO stopped early, on every row. The family's refinement (Remark 1 of seed 002 and TAO for the
loss-optimal trees, TAO for OCT and OCT-H, the leaves refit for the oblique regressor) of the best start, on every
row and with its own share of the budget, is what the neighbourhood rounds and the full MIP then start from; the
fit's report counts it among the starts (``"<start>+<refinement>"``), so the MIP is credited only with what it
adds to it.
"""

from __future__ import annotations


from ...budget import call_until, expired
from .feature_costs import refine_problem
from .fit_plan import Stage

__all__ = ["refined_start"]


def refined_start(fit, problem, name, model, value):
    """``(name, model, final, objective)`` of the family's refinement (``fit.hooks.refine``) of the best start
    ``model`` (named ``name``) on every row, named ``"<start>+<refinement>"``, when its exact objective is lower
    than ``value``; ``None`` otherwise, with ``warm_start=False`` (the greedy fallback alone) or a user's
    constraints (a start that satisfies them stays the start). Within ``Shares.start_refinement`` of the budget
    from now, taken from the solve's time."""
    settings = fit.settings
    if not fit.plan.runs(Stage.START_REFINEMENT):
        return None
    by = fit.budget.until(fit.plan.share(Stage.START_REFINEMENT))
    end = fit.budget.before_end(fit.plan.share(Stage.RESERVE))
    if by is not None:
        by = min(by, end)
        if expired(by):
            return None
    # the refinement checks ``by`` between its steps; it is left 1% of the budget after it (one step of TAO
    # checks no deadline)
    done, refined = call_until(None if by is None else min(by + 0.01 * fit.budget.seconds, end),
                               fit.hooks.refine, refine_problem(fit.family, settings.feature_budget, problem, model),
                               model, by)
    fit.budget.lap("start refinement")
    if not done or refined is None:
        return None
    final = fit.family.finalize(problem, refined)
    objective = fit.family.objective(problem, final)
    if not objective < value - 1e-9 * max(1.0, abs(value)):
        return None
    label = settings.greedy_name if name == "greedy" else name
    return f"{label}+{settings.refine_name}", refined, final, objective
