"""The cut loop: re-solve a MILP, adding tangent cuts where its solution underestimates a convex term.

A formulation whose objective has convex terms modelled by tangents (squared
l2 on MILP solvers, the logistic loss at the solution's own margins) declares
:class:`~optitrees.solvers.strategies.CutLoop` with its cutters
(:mod:`optitrees.formulations.cuts`), and :func:`optitrees.solvers.solve`
runs this loop: solve, measure each term's relative error at the solution
(exact minus approximated, over exact), stop when every error is at most its
tolerance (or the time is up, or a round ends without a solution), otherwise
add cuts at the solution and re-solve, warm-started from the previous
solution repaired to satisfy the new cuts; a warm start gets its tangents before the first solve (each
cutter's ``seed``), so the first search measures the term exactly at the start. A round that stops on a node or gap
limit still yields cuts, so the loop is deterministic under a node limit. The
result carries the exact objective of the solution (the terms evaluated, not
their tangents), the best bound over the rounds, the gap, and per term
``checks["<term>_relative_error"]`` / ``checks["<term>_tol"]`` with
``checks["oa_rounds"]``.
"""

from __future__ import annotations


from ..budget import expired
from .results import SolutionStatus, SolveStatus, TerminationCondition, relative_gap

__all__ = ["run_cut_loop"]


def run_cut_loop(formulation, cutters, solve_once, *, max_rounds=50, warm_start=None, deadline=None):
    """Solve by ``solve_once(start)`` (one backend solve of ``formulation`` as it is now), add cuts of each of
    ``cutters`` where the solution is underestimated, re-solve (module docstring).

    Every round after the first starts from the best solution so far in the exact objective (repaired to
    satisfy the new cuts, which costs it nothing), so a round stopped by a node or time limit never loses a
    better earlier solution, and a loop that does not converge returns that best solution.

    Returns
    -------
    SolverResult
        Of the round that found the returned solution, with its exact objective, the best bound of all
        rounds, ``timings`` summed over the rounds and the checks above. Its status is ``optimal`` only when
        that round was solved to optimality and every term is within its tolerance at the solution; a loop
        stopped by the deadline reports ``time_limit_feasible``, one stopped otherwise ``feasible``.
    """
    start = warm_start
    if start is not None:               # the tangents exact at the start (MARGOT's w**2 there), then its values
        start = start.copy()
        for c in cutters:
            c.seed(formulation, start)
            c.repair(formulation, start)
    totals: dict[str, float] = {}
    last, best, best_exact, rounds, best_bound, trace, t0 = None, None, None, 0, None, [], 0.0
    out_of_time = converged = False
    for rounds in range(1, max_rounds + 1):
        if rounds > 1 and expired(deadline):
            rounds -= 1
            out_of_time = True
            break
        current = solve_once(start)
        last = current
        for k, v in current.timings.items():
            totals[k] = totals.get(k, 0.0) + v
        trace += [(t0 + t, inc, bd) for t, inc, bd in current.trace]
        t0 += current.timings.get("solve", 0.0)
        if current.bound is not None:
            best_bound = current.bound if best_bound is None else max(best_bound, current.bound)
        if current.x is None:
            out_of_time = current.status == SolveStatus.TIME_LIMIT_NO_SOLUTION
            break
        x = current.x
        terms = [c.terms(formulation, x) for c in cutters]
        exact = formulation.objective_value(x) + sum(e - a for e, a in terms)
        if best is None or exact < best_exact:
            best, best_exact = current, exact
        errors = [_relative(*t) for t in terms]
        converged = current.status == SolveStatus.OPTIMAL and all(e <= c.tol for e, c in zip(errors, cutters))
        if all(e <= c.tol for e, c in zip(errors, cutters)) or \
                current.status in (SolveStatus.TIME_LIMIT_FEASIBLE, SolveStatus.INFEASIBLE, SolveStatus.ERROR):
            out_of_time = current.status == SolveStatus.TIME_LIMIT_FEASIBLE
            break
        for c, e in zip(cutters, errors):
            if e > c.tol:
                c.add(formulation, x)
        start = best.x.copy()
        for c in cutters:
            c.repair(formulation, start)
    # a converged loop returns its last solution: optimal for tangents within tolerance of the terms, so within
    # that tolerance of the optimum (an earlier round's can be lower in the exact objective only by as much)
    result = last if converged or best is None else best
    result.timings = totals
    result.trace = trace
    result.checks["oa_rounds"] = rounds
    if result.x is not None:
        x = result.x
        terms = [c.terms(formulation, x) for c in cutters]
        errors = [_relative(*t) for t in terms]
        for c, e in zip(cutters, errors):
            result.checks[f"{c.name}_relative_error"] = e
            result.checks[f"{c.name}_tol"] = c.tol
        result.objective = formulation.objective_value(x) + sum(e - a for e, a in terms)
        result.bound = best_bound
        result.gap = relative_gap(result.objective, result.bound)
        if not (result.status == SolveStatus.OPTIMAL and all(e <= c.tol for e, c in zip(errors, cutters))):
            # a round optimal for tangents not yet close enough to their terms, or one stopped early
            result.termination = TerminationCondition.TIME_LIMIT if out_of_time else TerminationCondition.OTHER
            result.solution_status = SolutionStatus.FEASIBLE
        result.message += f"; cut loop: {rounds} round(s), " + ", ".join(
            f"{c.name} relative error {result.checks[f'{c.name}_relative_error']:.2e}" for c in cutters)
    return result


def _relative(exact, approx):
    return max(0.0, exact - approx) / max(exact, 1e-12)
