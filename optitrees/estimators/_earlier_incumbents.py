"""The best of a MIP's earlier incumbents by the exact objective.

A loss-optimal tree's MIP minimizes tangent planes of the logistic loss (seed 002, 3.12 with V0-V3): a lower
MIP objective is not always a lower exact one. On spectf at depth 3 with V0, HiGHS's incumbent of 108.37 (MIP
objective) after 60 s is a tree of exact objective 118.99; after 300 s its incumbent of 103.82 is a tree of
135.90, worse than the TMO start. The solver keeps its earlier incumbents
(:attr:`~optitrees.solvers.SolverResult.pool`); the estimator decodes them, newest first while time is left,
and makes the one of least exact objective the solver's model.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["best_earlier_incumbent"]


def best_earlier_incumbent(family, problem, f, pool, than: float, deadline: float | None):
    """``(model, final, objective, age)`` of the earlier incumbent with the least exact objective below
    ``than``, or ``None`` when none is below it.

    ``model`` is the decoded model (the solver's units), ``final`` the model as returned (``family.finalize``),
    ``age`` how many incumbents before the solver's last it was found. Incumbents are decoded newest first
    until ``deadline`` (a ``time.perf_counter()``).
    """
    best = None
    for age, x in enumerate(reversed(pool), start=1):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if not np.all(np.isfinite(x)):
            continue
        model, _ = family.decode(f, x)
        final = family.finalize(problem, model)
        value = family.objective(problem, final)
        limit = than if best is None else best[2]
        if value < limit - 1e-9 * max(1.0, abs(limit)):
            best = (model, final, value, age)
    return best
