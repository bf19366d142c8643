"""One result type for every backend.

Following Pyomo's newer solver interface, *why the solver stopped*
(:class:`TerminationCondition`) and *what solution there is*
(:class:`SolutionStatus`) are kept apart; :attr:`SolverResult.status` combines
them into the five outcomes the estimators act on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..enums import TextEnum

__all__ = ["TerminationCondition", "SolutionStatus", "SolveStatus", "SolverResult", "relative_gap",
           "classify_solution"]


class TerminationCondition(str, Enum):
    """Why the solver stopped."""

    OPTIMAL = "optimal"
    TIME_LIMIT = "time_limit"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    OTHER = "other"


class SolutionStatus(str, Enum):
    """What solution the solver returned."""

    NONE = "none"
    FEASIBLE = "feasible"
    OPTIMAL = "optimal"


class SolveStatus(TextEnum):
    """The outcome of a solve the estimators act on (:attr:`SolverResult.status`); equal to its text value."""

    OPTIMAL = "optimal"
    TIME_LIMIT_FEASIBLE = "time_limit_feasible"
    TIME_LIMIT_NO_SOLUTION = "time_limit_no_solution"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    #: Stopped otherwise (node limit, interrupted) with a solution.
    FEASIBLE = "feasible"
    #: Stopped otherwise (node limit, interrupted) before any solution was found.
    STOPPED_NO_SOLUTION = "stopped_no_solution"
    #: The solver failed (no solution).
    ERROR = "error"


def relative_gap(objective, bound) -> float | None:
    """``|objective - bound| / max(|objective|, 1e-10)`` (HiGHS's and Gurobi's definition)."""
    if objective is None or bound is None or not (math.isfinite(objective) and math.isfinite(bound)):
        return None if objective is None else math.inf
    return abs(objective - bound) / max(abs(objective), 1e-10)


def classify_solution(has_solution: bool, termination, x=None, start=None):
    """``(SolutionStatus, source)`` of a returned solution.

    The source is ``"warm_start"`` when the returned vector is the start that was
    handed over (the solver found nothing better), ``"solver"`` otherwise, and
    ``None`` without a solution.
    """
    if not has_solution:
        return SolutionStatus.NONE, None
    status = SolutionStatus.OPTIMAL if termination == TerminationCondition.OPTIMAL else SolutionStatus.FEASIBLE
    same = (x is not None and isinstance(start, np.ndarray) and start.shape == x.shape
            and np.allclose(x, start, atol=1e-9, rtol=0))
    return status, "warm_start" if same else "solver"


@dataclass
class SolverResult:
    """Outcome of a solve, the same for every backend.

    Attributes
    ----------
    solver : str
        Backend name (``"highs"``, ``"scip"`` ...).
    solver_version : str
    termination : TerminationCondition
    solution_status : SolutionStatus
    objective : float or None
        Objective of the returned solution.
    bound : float or None
        Best proven lower bound (minimization).
    gap : float or None
        Relative gap ``|objective - bound| / |objective|``.
    node_count : int or None
        Branch-and-bound nodes, when the backend reports them.
    timings : dict
        Seconds for ``build`` (formulation), ``handoff`` (loading the model into
        the solver; for Pyomo backends this includes ``to_pyomo()``), ``solve``
        and, when a MIP solution was polished, ``polish``.
    solution_source : {"solver", "warm_start"} or None
        Whether the returned solution is the solver's own incumbent or the warm
        start it was handed (kept because nothing better was found, or because
        the estimator fell back to it). After polishing, it names where the
        integer assignment came from; the continuous part is re-optimized.
    x : ndarray or None
        Column values in the formulation's order.
    message : str
        Free text from the backend or the caller (warnings, fallbacks).
    checks : dict
        What the solve checked of its solution: ``polished`` (whether the
        integer-fixed re-solve succeeded), ``polish_skipped``, and the cut loops'
        ``<term>_relative_error`` / ``<term>_tol`` / ``oa_rounds``. The
        estimators' agreement checks of the decoded model are in ``fit_report_.checks``.
    trace : list of (float, float or None, float or None)
        ``(seconds, incumbent, bound)`` whenever either changed during the
        solve (HiGHS; other backends report the end point).
    pool : list of ndarray
        The solver's earlier incumbents, oldest first (HiGHS: the last
        :data:`~optitrees.solvers.highs_run.POOL_SIZE` before ``x``, unpolished, the
        warm start among them when the solver accepted it; not ``x``). Where the
        model's objective only approximates the exact one (tangent planes of a
        loss), an earlier incumbent can be the better model; estimators judge
        them, polished, by the exact objective.

    Written by the solver interface only (:func:`optitrees.solvers.solve` and
    the cut loops it runs); what an estimator made of it -- the model it
    returned, the exact objective of each candidate, who certified it -- is in
    the estimator's ``fit_report_``.
    """

    solver: str
    solver_version: str = ""
    termination: TerminationCondition = TerminationCondition.OTHER
    solution_status: SolutionStatus = SolutionStatus.NONE
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    node_count: int | None = None
    timings: dict = field(default_factory=dict)
    solution_source: str | None = None
    x: np.ndarray | None = field(default=None, repr=False)
    message: str = ""
    checks: dict = field(default_factory=dict)
    trace: list = field(default_factory=list, repr=False)
    pool: list = field(default_factory=list, repr=False)

    @property
    def has_solution(self) -> bool:
        return self.solution_status != SolutionStatus.NONE

    @property
    def status(self) -> SolveStatus:
        """:class:`SolveStatus` (a ``str``): ``optimal``, ``time_limit_feasible``, ``time_limit_no_solution``,
        ``infeasible``, ``unbounded``, ``feasible`` (stopped otherwise with a solution),
        ``stopped_no_solution`` (stopped by a node limit or an interrupt before any solution) or ``error``."""
        t = self.termination
        if t == TerminationCondition.OPTIMAL and self.has_solution:
            return SolveStatus.OPTIMAL
        if t == TerminationCondition.TIME_LIMIT:
            return SolveStatus.TIME_LIMIT_FEASIBLE if self.has_solution else SolveStatus.TIME_LIMIT_NO_SOLUTION
        if t in (TerminationCondition.INFEASIBLE, TerminationCondition.UNBOUNDED):
            return SolveStatus(t.value)
        if self.has_solution:
            return SolveStatus.FEASIBLE
        stopped = t in (TerminationCondition.OTHER, TerminationCondition.INTERRUPTED)
        return SolveStatus.STOPPED_NO_SOLUTION if stopped else SolveStatus.ERROR

    def summary(self) -> str:
        """One line: the solve's status, objective, bound, gap, nodes and time."""
        def fmt(v):
            return "-" if v is None else f"{v:.6g}"
        gap = "-" if self.gap is None or not math.isfinite(self.gap) else f"{100 * self.gap:.2f}%"
        return (f"{self.solver} {self.solver_version}: {self.status}, objective {fmt(self.objective)}, "
                f"bound {fmt(self.bound)}, gap {gap}, nodes {fmt(self.node_count)}, "
                f"{sum(self.timings.values()):.2f}s, solution from {self.solution_source or '-'}")

    def __str__(self):
        return self.summary()
