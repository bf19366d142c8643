"""Outer approximation of squared terms for MILP solvers (HiGHS cannot solve MIQP).

A formulation built with ``l2_method="outer"`` replaces every ``w[t, j]**2`` of
the objective by a variable ``q[t, j]`` bounded below by tangent cuts
``q >= 2 a w - a**2``. Each cut underestimates the square, so the MILP's optimum
(and its bound) is a lower bound of the quadratic problem's optimum. The loop

1. solves the MILP (warm-started from the previous solution with ``q = w**2``,
   which satisfies every cut);
2. measures the relative error of the quadratic term,
   ``(sum lam w**2 - sum lam q) / max(sum lam w**2, 1e-12)``;
3. stops when it is at most ``tol``, otherwise adds one cut at every ``w[t, j]``
   whose square is underestimated and repeats.

The returned result carries the exact objective of the solution (squares
evaluated, not the cuts), the last MILP's bound (a valid lower bound of the
quadratic optimum when that MILP was solved to optimality), the gap between
them, and ``checks["l2_relative_error"]`` / ``checks["oa_rounds"]``.
"""

from __future__ import annotations

import time

import numpy as np

from . import solve
from .results import relative_gap

__all__ = ["solve_outer_approximation", "squares_error"]


def squares_error(formulation, x) -> tuple[float, float, float]:
    """``(exact, approximated, relative error)`` of ``sum lam_t w[t, j]**2`` at ``x``."""
    v = formulation.values(x)
    lam = _q_weights(formulation)
    exact = float(np.sum(lam * v["w"] ** 2))
    approx = float(np.sum(lam * v["q"]))
    return exact, approx, max(0.0, exact - approx) / max(exact, 1e-12)


def _q_weights(formulation):
    q = formulation.variables["q"]
    return formulation.cost[q.columns]


def solve_outer_approximation(formulation, solver="highs", *, tol=1e-4, max_rounds=50, time_limit=None,
                              warm_start=None, **options):
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
    time_limit : float, optional
        Total seconds over all rounds.
    warm_start : array of shape (n_cols,), optional
        Start of the first round.
    **options
        Passed to :func:`optitrees.solvers.solve` (``mip_gap``, ``threads``, ``seed``, ...).

    Returns
    -------
    SolverResult
        Of the last round, with ``objective`` the exact (squared) objective,
        ``checks["l2_relative_error"]``, ``checks["oa_rounds"]`` and
        ``timings`` summed over the rounds.
    """
    if "q" not in formulation.variables or "w" not in formulation.variables:
        raise ValueError("the formulation has no outer approximation (build it with l2_method='outer')")
    if not tol > 0:
        raise ValueError("tol must be positive")
    q, w = formulation.variables["q"], formulation.variables["w"]
    from ..formulations.blocks import add_square_cuts

    t0 = time.perf_counter()
    start = warm_start
    totals: dict[str, float] = {}
    result, error, rounds = None, np.inf, 0
    for rounds in range(1, max_rounds + 1):
        remaining = None
        if time_limit is not None:
            remaining = max(0.0, time_limit - (time.perf_counter() - t0))
            if rounds > 1 and remaining <= 0:
                rounds -= 1
                break
        current = solve(formulation, solver, time_limit=remaining, warm_start=start, **options)
        for k, v in current.timings.items():
            totals[k] = totals.get(k, 0.0) + v
        if current.x is None:
            if result is None:
                result = current
            break
        result = current
        x = current.x
        _, _, error = squares_error(formulation, x)
        if error <= tol or current.status not in ("optimal",):
            break
        wv = x[w.columns]
        below = (wv * wv - x[q.columns]) > tol * np.abs(wv * wv).clip(min=1e-12)
        at = np.where(below, wv, 0.0)       # a cut at 0 is q >= 0, already implied
        add_square_cuts(formulation, q, w, at)
        start = x.copy()
        start[q.columns] = wv * wv
    result.timings = totals
    result.checks["oa_rounds"] = rounds
    if result.x is not None:
        x = result.x
        exact, approx, error = squares_error(formulation, x)
        result.objective = formulation.objective_value(x) + exact - approx
        result.gap = relative_gap(result.objective, result.bound)
        result.checks["l2_relative_error"] = error
        result.message += f"; outer approximation of w**2: {rounds} round(s), relative error {error:.2e}"
    return result
