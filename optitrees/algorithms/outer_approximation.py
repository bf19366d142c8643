"""Outer approximation of squared terms for MILP solvers (HiGHS cannot solve MIQP).

A formulation built with ``l2_method="outer"`` replaces every ``w[t, j]**2`` of
the objective by a variable ``q[t, j]`` bounded below by tangent cuts
``q >= 2 a w - a**2``. Each cut underestimates the square, so every MILP's
bound is a lower bound of the quadratic problem's optimum. The loop

1. solves the MILP (warm-started from the previous solution with ``q = w**2``,
   which satisfies every cut);
2. measures the relative error of the quadratic term,
   ``(sum lam w**2 - sum lam q) / max(sum lam w**2, 1e-12)``;
3. stops when it is at most ``tol`` (or the time is up, or a round ends
   without a solution), otherwise adds one cut at every ``w[t, j]`` whose square
   is underestimated and repeats. A round that stops on a node or gap limit
   still yields cuts, so the loop is deterministic under a node limit.

The returned result carries the exact objective of the solution (squares
evaluated, not the cuts), the best bound over the rounds, the gap between
them, and ``checks["l2_relative_error"]`` / ``checks["oa_rounds"]``.
"""

from __future__ import annotations

import numpy as np

from .. import solvers as _solvers
from ..formulations.blocks import add_square_cuts
from ..solvers.results import relative_gap

__all__ = ["solve_outer_approximation", "squares_error"]


def squares_error(formulation, x) -> tuple[float, float, float]:
    """``(exact, approximated, relative error)`` of ``sum lam_t w[t, j]**2`` at ``x``."""
    v = formulation.values(x)
    lam = formulation.cost[formulation.variables["q"].columns]
    exact = float(np.sum(lam * v["w"] ** 2))
    approx = float(np.sum(lam * v["q"]))
    return exact, approx, max(0.0, exact - approx) / max(exact, 1e-12)


def solve_outer_approximation(formulation, solver="highs", *, tol=1e-4, max_rounds=50, warm_start=None,
                              deadline=None, polish_deadline=None, **options):
    """Solve a formulation with ``q`` outer-approximating ``w**2`` to a relative error ``tol``.

    Parameters
    ----------
    formulation : Formulation
        Built with ``l2_method="outer"`` (has groups ``q`` and ``w``).
    solver : str, default="highs"
    tol : float, default=1e-4
        Relative error of the quadratic term at which the loop stops.
    max_rounds : int, default=50
        Most MILP solves.
    warm_start : array of shape (n_cols,), optional
        Start of the first round.
    deadline, polish_deadline : float, optional
        Absolute ``time.perf_counter()`` by which all rounds end, and by which
        their polishing must end (default ``deadline``).
    **options
        Passed to :func:`optitrees.solvers.solve` for every round (``time_limit``
        applies per round, ``mip_gap``, ``threads``, ``seed``, ``solver_options`` ...).

    Returns
    -------
    SolverResult
        Of the last round, with ``objective`` the exact (squared) objective,
        ``checks["l2_relative_error"]``, ``checks["oa_rounds"]`` and
        ``timings`` summed over the rounds.
    """
    import time

    if "q" not in formulation.variables or "w" not in formulation.variables:
        raise ValueError("the formulation has no outer approximation (build it with l2_method='outer')")
    if not tol > 0:
        raise ValueError("tol must be positive")
    q, w = formulation.variables["q"], formulation.variables["w"]
    start = warm_start
    totals: dict[str, float] = {}
    result, rounds, best_bound, trace, t0 = None, 0, None, [], 0.0
    for rounds in range(1, max_rounds + 1):
        if rounds > 1 and deadline is not None and time.perf_counter() >= deadline:
            rounds -= 1
            break
        current = _solvers.solve(formulation, solver, warm_start=start, deadline=deadline,
                                 polish_deadline=polish_deadline, **options)
        for k, v in current.timings.items():
            totals[k] = totals.get(k, 0.0) + v
        trace += [(t0 + t, inc, bd) for t, inc, bd in current.trace]
        t0 += current.timings.get("solve", 0.0)
        if current.bound is not None:
            best_bound = current.bound if best_bound is None else max(best_bound, current.bound)
        if current.x is None:
            result = result or current
            break
        result = current
        x = current.x
        _, _, error = squares_error(formulation, x)
        if error <= tol or current.status in ("time_limit_feasible", "infeasible", "error"):
            break
        wv = x[w.columns]
        below = (wv * wv - x[q.columns]) > tol * np.abs(wv * wv).clip(min=1e-12)
        add_square_cuts(formulation, q, w, np.where(below, wv, 0.0))   # a cut at 0 is q >= 0, already implied
        start = x.copy()
        start[q.columns] = wv * wv
    result.timings = totals
    result.trace = trace
    result.checks["oa_rounds"] = rounds
    result.checks["l2_tol"] = tol
    if result.x is not None:
        exact, approx, error = squares_error(formulation, result.x)
        result.objective = formulation.objective_value(result.x) + exact - approx
        result.bound = best_bound
        result.gap = relative_gap(result.objective, result.bound)
        result.checks["l2_relative_error"] = error
        result.message += f"; outer approximation of w**2: {rounds} round(s), relative error {error:.2e}"
    return result
