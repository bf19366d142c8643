"""What a MIP fit returns to its estimator (:class:`MIPFitOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...solvers import SolverResult
from .._report import FitReport

__all__ = ["MIPFitOutcome"]


@dataclass
class MIPFitOutcome:
    """What the fit returns to its estimator: the returned model (the family's, finalized) and everything the
    estimator's fitted attributes are read from."""

    problem: object
    model: object
    objective: float
    start_objectives: dict
    start_name: str
    method: str
    solver_result: SolverResult
    formulation_summary: str
    report: FitReport
