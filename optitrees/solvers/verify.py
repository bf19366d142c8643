"""A backend's "optimal" is a claim: it is passed on only when the solver's own bound and the rows support it.

Solvers do get this wrong. CBC reported an oblique regression tree optimal at 15.022 with its own bound at
11.285 (the optimum is 13.286); GLPK reported a misclassification + logistic tree optimal at a point that
violates a forwarding row by 2.6e-4; highspy 1.14.0 reports sub-optimal MIP solutions optimal with a 0% gap.
:func:`check_optimal_claim` runs after every backend solve (and after polishing): a result whose status is
``optimal`` keeps it only when

- the model has no integer columns (an LP's optimum is the solver's own duality claim), or the objective (after
  polishing) and the bound agree within the requested relative gap (or the tolerances :data:`ABSOLUTE_GAP`
  and :data:`NUMERICAL_GAP`), and
- the returned solution satisfies every bound and row of the formulation within :data:`ROW_TOLERANCE`
  (integrality too, within the formulation's integrality tolerance).

Otherwise the result says ``feasible``, with its gap, and its message says why the claim was not passed on.
"""

from __future__ import annotations

import math

import numpy as np

from .results import SolutionStatus, SolveStatus, TerminationCondition, relative_gap

__all__ = ["check_optimal_claim", "gap_closed", "ABSOLUTE_GAP", "NUMERICAL_GAP", "ROW_TOLERANCE"]

#: Absolute objective gap accepted as closed (HiGHS's ``mip_abs_gap``): a bound this close to the objective
#: proves it optimal whatever the relative gap.
ABSOLUTE_GAP = 1e-6
#: Gap accepted as closed, relative to ``max(1, |objective|)``, whatever gap was asked for: a solver's bound
#: and objective agree only to its tolerances, and polishing (which makes the solution exact) moves the
#: objective by up to a big-M times the integrality tolerance (1.5e-6 relative on OLCT; GLPK's 20% is not).
NUMERICAL_GAP = 1e-5
#: Largest violation of a bound or row accepted in an optimal solution (a polished solution is exact to about
#: 1e-9; an unpolished one may use its integrality tolerance times a big-M).
ROW_TOLERANCE = 1e-5


def gap_closed(objective: float, bound: float, mip_gap: float) -> bool:
    """Whether ``bound`` proves ``objective`` optimal within the relative gap ``mip_gap`` (or within
    :data:`ABSOLUTE_GAP` or :data:`NUMERICAL_GAP`, whichever is largest).

    >>> gap_closed(15.022, 11.285, 1e-4), gap_closed(100.0, 99.995, 1e-4), gap_closed(1e-7, 0.0, 0.0)
    (False, True, True)
    >>> gap_closed(3.95e-4, 3.14e-4, 0.0), gap_closed(14.4207152, 14.4206938, 0.0)
    (False, True)
    """
    slack = objective - bound
    allowed = max(mip_gap * max(abs(objective), 1e-10), ABSOLUTE_GAP, NUMERICAL_GAP * max(1.0, abs(objective)))
    return slack <= allowed * (1 + 1e-9) + 1e-12 * max(1.0, abs(objective))


def check_optimal_claim(result, mip_gap: float, formulation=None, integer: bool = True):
    """Downgrade ``result`` (a :class:`~optitrees.solvers.SolverResult`) from optimal to feasible when its bound
    or its solution does not support the claim; return what was found (``None``: the claim stands or was not
    made).

    Parameters
    ----------
    result : SolverResult
        Changed in place: ``termination`` becomes ``OTHER`` and ``solution_status`` ``FEASIBLE``, the message
        and ``checks["optimal_claim"]`` say why.
    mip_gap : float
        The relative gap the solve asked for.
    formulation : Formulation, optional
        When given (and the result has a solution vector), its rows are checked at the solution.
    integer : bool
        Whether the model has integer columns (an LP's optimum carries no separate bound).
    """
    if result.status != SolveStatus.OPTIMAL:
        return None
    why = None
    if integer:
        if result.bound is None or result.objective is None or not math.isfinite(result.bound):
            why = "it reports no bound"
        elif not gap_closed(result.objective, result.bound, mip_gap):
            gap = relative_gap(result.objective, result.bound)
            why = (f"its bound {result.bound:.8g} is {100 * gap:.3g}% below the objective {result.objective:.8g} "
                   f"(the gap asked for: {100 * mip_gap:.3g}%)")
    if why is None and formulation is not None and result.x is not None:
        rows = formulation.violation(result.x, integrality=False)
        integers = result.x[formulation.integrality]
        whole = float(np.max(np.abs(integers - np.round(integers)), initial=0.0))
        tol = formulation.integrality_tol or 1e-6
        if not rows <= ROW_TOLERANCE:
            why = f"its solution violates a bound or row of the model by {rows:.3g}"
        elif not whole <= tol * (1 + 1e-9):
            why = f"its solution is {whole:.3g} from integral (tolerance {tol:.3g})"
    if why is None:
        result.checks["optimal_claim"] = "verified"
        return None
    result.termination = TerminationCondition.OTHER
    result.solution_status = SolutionStatus.FEASIBLE
    result.checks["optimal_claim"] = f"rejected: {why}"
    result.message = (result.message + "; " if result.message else "") + \
        f"{result.solver} reported optimal, but {why}: reported as feasible"
    return why
