"""The end of a MIP fit whose model a dedicated exact search (ConTree for OCT) proved optimal: no MIP is built."""

from __future__ import annotations

from dataclasses import replace

from ...solvers import SolverResult
from ...solvers.results import SolutionStatus, TerminationCondition
from .._report import ExactSearch, FitReport
from .feature_costs import budget_report, keeps
from .monotone import monotone_keeps, monotone_report
from .outcome import MIPFitOutcome
from .restriction import certificate, claimed_outcome

__all__ = ["certified", "unconstrained_optimum"]


def certified(fit, problem, training, exact: ExactSearch, restricted: str | None = None) -> MIPFitOutcome:
    """Finish a fit whose model an exact search proved optimal: no MIP is built (``restricted``: the problem the
    fit narrowed, :func:`~.restriction.restriction_of`, named in the claim). Under a parity constraint the model is
    the constrained optimum only where it keeps the constraint (:func:`unconstrained_optimum`)."""
    family, budget = fit.family, fit.budget
    model, seconds, engine = exact.model, exact.seconds, exact.engine
    final = family.finalize(problem, model)
    greedy = family.finalize(problem, fit.hooks.starts(problem, None, ("greedy",))["greedy"])
    objective = family.objective(problem, final)
    greedy_objective = family.objective(problem, greedy)
    budget.lap("starts")
    result = SolverResult(
        solver=engine, solver_version=_version(engine), termination=TerminationCondition.OPTIMAL,
        solution_status=SolutionStatus.OPTIMAL, objective=objective, bound=objective, gap=0.0,
        timings={"solve": seconds}, solution_source="solver", message=f"optimal, certified by {engine}",
        trace=[(seconds, objective, objective)])
    budget.lap("report")
    report = FitReport(
        estimator=fit.settings.estimator, outcome=claimed_outcome(True, restricted), restriction=restricted,
        method=engine, returned="solver",
        objective=objective, seconds=budget.elapsed, time_limit=budget.seconds, rows=training.n_input_rows,
        distinct_rows=len(training.y), weighted=training.weighted, starts={"greedy": greedy_objective},
        objectives={"start": greedy_objective, "solver": objective, "returned": objective}, solved_by=engine,
        certified_by=certificate(engine, restricted), bound=objective, bound_source=engine, stages=dict(budget.stages),
        plan=fit.plan.as_report(),
        checks=fit.hooks.report_checks(problem), notes=tuple(fit.log.notes + [f"optimal, certified by {engine}"]),
        fairness=None if fit.settings.parity is None else fit.settings.parity.report(final, problem.data.X_original),
        feature_cost=budget_report(fit.settings.feature_budget, final),
        monotonicity=monotone_report(fit.settings.monotone, final, problem))
    return MIPFitOutcome(problem=problem, model=final, objective=objective,
                         start_objectives={"greedy": greedy_objective}, start_name="greedy", method=engine,
                         solver_result=result,
                         formulation_summary=f"no MIP built: {engine} found the optimum and proved it",
                         report=report)


def _version(engine):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version({"contree": "pycontree"}.get(engine, engine))
    except PackageNotFoundError:
        return ""


def unconstrained_optimum(fit, problem, exact: ExactSearch) -> tuple[bool, ExactSearch]:
    """``(certifies, exact)`` for an exact search that ignores a fit's parity constraint and feature budget
    (ConTree): its proven optimum is the constrained one when it keeps them (``certifies``); otherwise its objective
    is a lower bound on the constrained optimum (every fair or affordable tree is a tree) and its tree a start
    (relabelled where it is unfair, left out where it reads features over the budget)."""
    parity, costs, monotone = fit.settings.parity, fit.settings.feature_budget, fit.settings.monotone
    if (parity is None and costs is None and monotone is None) or not exact.proven:
        return exact.proven, exact
    final = fit.family.finalize(problem, exact.model)
    fair = parity is None or parity.keeps(final, problem.data.X_original)
    if fair and keeps(costs, final) and monotone_keeps(monotone, final, problem):
        return True, exact
    if not monotone_keeps(monotone, final, problem):
        fit.log.note(f"the optimal tree without monotonicity ({exact.engine}) is not monotone; its objective bounds "
                     "the monotone optimum")
    elif not fair:
        fit.log.note(f"the optimal tree without the parity constraint ({exact.engine}) does not keep it (disparity "
                     f"{parity.disparity(final, problem.data.X_original):.4g}); its objective bounds the fair optimum")
    else:
        fit.log.note(f"the optimal tree without the feature budget ({exact.engine}) reads features costing "
                     f"{costs.cost(final):.6g}, over the budget {costs.budget:g}; its objective bounds the optimum "
                     "within it")
    bound = fit.family.objective(problem, final)
    return False, replace(exact, proven=False, bound=bound if exact.bound is None else max(bound, exact.bound))
