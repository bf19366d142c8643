"""Row generation: a formulation solved on a subset of its rows, the rows its solution violates brought back.

The subset and its bookkeeping are :class:`optitrees.mip.row_subset.RowSubset` (which rows are left out, the columns
their equality rows define); this is the loop that solves it.
"""

from __future__ import annotations


from ..budget import expired
from .results import SolutionStatus, TerminationCondition

__all__ = ["solve_by_row_generation"]


def solve_by_row_generation(subset, solve, x0, deadline: float | None):
    """``solve(formulation, start, deadline) -> SolverResult`` on ``subset`` (a
    :class:`~optitrees.mip.row_subset.RowSubset`) from ``x0``; the rows its solution violates brought back and the
    subset solved again, until a solution violates none or ``deadline`` has passed. Rows a solve added to its
    formulation (a cut loop's cuts) are carried into the next.

    Returns the last result, its ``x`` completed (:meth:`~optitrees.mip.row_subset.RowSubset.complete`), with
    ``checks["subset_rows"]``, ``["subset_rows_added"]`` (rows brought back per check) and
    ``["subset_violated_rows"]``: the rows of the whole formulation its solution violated. When the deadline came
    before a solution that violates none, the result has no solution (time limit): a solution of the subset alone
    can be far from one of the formulation (MARGOT on 1,860 representative rows of adult: the subset's objective
    10,748 against the start's 23,967, its tree's exact objective 119,214 against the start's 24,107).
    """
    carried: list = []
    while True:
        g = subset.formulation(carried)
        result = solve(g, x0, deadline)
        carried = [group for name, group in g.constraints.items() if name != "kept_rows"]
        if result.x is None:
            return result
        result.x = subset.complete(result.x)
        bad = subset.violated(result.x)
        result.checks.update(subset_rows=int(subset.keep.sum()), subset_rows_added=list(subset.added),
                             subset_violated_rows=int(bad.sum()))
        if not bad.any():
            return result
        if expired(deadline):
            result.termination, result.solution_status = TerminationCondition.TIME_LIMIT, SolutionStatus.NONE
            result.x = result.objective = result.gap = None
            result.pool = []
            return result
        subset.bring_back(bad)
