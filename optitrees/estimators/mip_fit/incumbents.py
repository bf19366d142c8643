"""The best of a MIP's earlier incumbents by the exact objective.

A loss-optimal tree's MIP minimizes tangent planes of the logistic loss (seed 002, 3.12 with V0-V3): a lower
MIP objective is not always a lower exact one. On spectf at depth 3 with V0, HiGHS accepts the TMO start (exact
objective 128.67, 108.37 in the MIP's) and, in a 60 s fit, finds nothing better: the start's routing with its
weights re-solved (polished) is a tree of exact objective 125.11, refined to 118.99. In a 300 s fit it finds an
incumbent of 103.82 in the MIP's objective, a tree of exact objective 135.90, and the fit fell back to the start.
The solver keeps its earlier incumbents (:attr:`~optitrees.solvers.SolverResult.pool`, the accepted start
among them); where the exact objective of the solver's model is above its MIP objective, the estimator
polishes and decodes them, newest first while time is left, and makes the one of least exact objective the
solver's model. (Where the two objectives agree, as for OCT, no earlier incumbent can be better.)
"""

from __future__ import annotations


import numpy as np

from ...budget import expired
from ...solvers import SolveOptions
from ...solvers.polish import polish

__all__ = ["best_earlier_incumbent", "polisher"]


def polisher(f, threads=None, seed=0):
    """``(x, deadline) -> x``: a solution of ``f`` with its integers fixed and the rest re-solved, as a solve
    polishes its own (:func:`~optitrees.solvers.polish.polish`; ``None`` when that fails or the deadline passes)."""
    options = SolveOptions(threads=threads, seed=seed)
    return lambda x, deadline: polish(f, x, options, deadline)[0]


def best_earlier_incumbent(family, problem, f, result, than: float, deadline: float | None, polished=None):
    """``(model, final, objective, age)`` of the earlier incumbent (``result.pool``) with the least exact
    objective below ``than`` (the exact objective of the solver's model), or ``None`` when none is below it.

    ``model`` is the decoded model (the solver's units), ``final`` the model as returned (``family.finalize``),
    ``age`` how many incumbents before the solver's last it was found. Incumbents are polished first when
    ``polished`` is given (``polished(x, deadline) -> x`` or ``None`` to keep ``x``) and decoded newest first until
    ``deadline`` (a ``time.perf_counter()``). None is looked at when ``than`` is the MIP's own objective
    (``result.objective``): only where that underestimates the exact one can an earlier incumbent be better.
    """
    if result.objective is None or than <= result.objective + 1e-6 * max(1.0, abs(than)):
        return None
    best = None
    for age, x in enumerate(reversed(result.pool), start=1):
        if expired(deadline):
            break
        if polished is not None:
            better = polished(x, deadline)
            x = x if better is None else better
        if not np.all(np.isfinite(x)):
            continue
        model, _ = family.decode(f, x)
        final = family.finalize(problem, model)
        value = family.objective(problem, final)
        limit = than if best is None else best[2]
        if value < limit - 1e-9 * max(1.0, abs(limit)):
            best = (model, final, value, age)
    return best
