"""The warnings a MIP fit raises about its solve: agreement between the solver's solution and the decoded model,
and what the returned model's status is (a start returned, a time limit, a MIP that was not solved).

Each is a ``(warning class, text)`` pair; the fit template raises them at its end (:mod:`optitrees.exceptions`
names the classes, so a grid search can silence one kind). :func:`formulation_summary` is the model's summary
as the fit reports it.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import (AgreementWarning, ApproximationWarning, FallbackWarning, TimeLimitWarning,
                           UnsolvedWarning)
from ...solvers.results import SolveStatus

__all__ = ["agreement_notes", "status_notes", "formulation_summary"]


def agreement_notes(checks: dict) -> list:
    """Notes on a decoded solution: integrality not polished, points routed or rules evaluated differently by the
    model than by the solution, an outer approximation stopped above its tolerance."""
    notes = []
    if checks.get("polished") is False:
        why = "no time was left to polish it" if checks.get("polish_skipped") else "it could not be polished"
        notes.append((AgreementWarning, f"the solver's integer solution relies on integrality tolerances ({why}); "
                      "its solution is used as it is"))
    for key, what in (("routing_mismatches", "training points are routed differently by the decoded model "
                                             "than by z"),
                      ("rule_mismatches", "rule evaluations differ between the decoded card and z")):
        if checks.get(key):
            notes.append((AgreementWarning, f"{checks[key]} {what}; its objective is recomputed from the model"))
    for term, what in (("l2", "||w||^2"), ("logistic", "the logistic loss")):
        error, tol = checks.get(f"{term}_relative_error"), checks.get(f"{term}_tol")
        if error is not None and error > tol:
            notes.append((ApproximationWarning, f"the outer approximation of {what} stopped at relative error "
                          f"{error:.2e} (tolerance {tol:g})"))
    return notes


def status_notes(result, returned: str, objectives: dict, start_name: str, unsolved: str | None = None,
                 time_limited: bool = False) -> list:
    """Notes on the returned model's status: a start returned (the solver found nothing, its model is worse, or
    the MIP was not solved: ``unsolved`` says why), and a model not proven optimal for lack of time (not said
    when the MIP was not solved: the first note says it). A MIP left unsolved in a fit with a time limit
    (``time_limited``: its time went to the starts, or ran out before or while it was built) is an
    :class:`~optitrees.exceptions.UnsolvedWarning`, a ``TimeLimitWarning`` as scikit-learn warns when
    ``max_iter`` stops a fit (the time limit decided the result) and a ``FallbackWarning``. The gap named here
    is the solver's, in the MIP's own objective ("MIP gap"); the fit report's gap is the returned model's, in the
    exact objective."""
    notes = []
    if unsolved is not None:
        kind = UnsolvedWarning if time_limited else FallbackWarning
        notes.append((kind, f"{unsolved}; returning the {start_name} start"))
    elif "solver" not in objectives:
        failed = f": {result.message.split('; ', 1)[1]}" if result.status == SolveStatus.ERROR \
            and "; " in result.message else ""
        notes.append((FallbackWarning, f"solver returned no solution ({result.status}{failed}); returning the "
                      f"{start_name} start"))
    elif returned == "start" and objectives["solver"] > objectives["start"] * (1 + 1e-6) + 1e-6:
        notes.append((FallbackWarning, f"the solver's model has a worse exact objective "
                      f"({objectives['solver']:.6g}) than the {start_name} start ({objectives['start']:.6g}); "
                      "returning the start"))
    stopped = (SolveStatus.TIME_LIMIT_FEASIBLE, SolveStatus.TIME_LIMIT_NO_SOLUTION, SolveStatus.FEASIBLE,
               SolveStatus.STOPPED_NO_SOLUTION)
    claim = str(result.checks.get("optimal_claim", ""))
    if unsolved is None and claim.startswith("rejected"):
        # the solver said optimal, but its bound or its solution does not show it (solvers.verify)
        notes.append((AgreementWarning, f"the solver reported optimal, but {claim[len('rejected: '):]}: the "
                      f"model is not proven optimal; returning the {returned} model"))
    elif unsolved is None and result.status in stopped:
        why = ("solver stopped early" if result.status in (SolveStatus.FEASIBLE, SolveStatus.STOPPED_NO_SOLUTION)
               else "time limit reached")
        gap = "unknown" if result.gap is None or not np.isfinite(result.gap) else f"{100 * result.gap:.2f}%"
        notes.append((TimeLimitWarning, f"{why}: the model is not proven optimal (MIP gap {gap}, in the MIP's "
                      f"own objective); returning the {returned} model"))
    return notes


def formulation_summary(f, size, unsolved) -> str:
    """The formulation's summary as the fit reports it: ``f``'s, else the counted ``size``'s (``not solved``
    added where the MIP was not solved)."""
    if f is not None:
        return f.summary() if unsolved is None else f"{f.summary()}\nnot solved"
    if size is not None:
        return f"{size.summary()}\nnot solved"
    return "no MIP built: the time limit ended while it was built"
