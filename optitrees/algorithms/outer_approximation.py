"""Outer-approximation loops: re-solve a MILP, adding tangent cuts where its solution is underestimated.

Two convex terms of the loss-optimal trees are modelled by tangents, which
underestimate them, so every MILP's bound is a lower bound of the true optimum:

* :class:`SquareCuts` -- ``q[t, j] >= 2 a w - a**2`` for ``w[t, j]**2`` (squared
  l2 on MILP solvers such as HiGHS, which cannot solve MIQP);
* :class:`LogisticCuts` -- the tangent of the logistic loss at each point's own
  margin on the node it visits (``tangents="adaptive"``), so the surrogate
  tracks the exact loss where the solution lies instead of at Sato's fixed
  points.

:func:`solve_with_cuts` solves, measures each term's relative error at the
solution (exact minus approximated, over exact), stops when every error is at
most its tolerance (or the time is up, or a round ends without a solution),
otherwise adds cuts at the solution and re-solves, warm-started from the
previous solution repaired to satisfy the new cuts. A round that stops on a
node or gap limit still yields cuts, so the loop is deterministic under a node
limit. The result carries the exact objective of the solution (the terms
evaluated, not their tangents), the best bound over the rounds, the gap, and
per term ``checks["<term>_relative_error"]`` / ``checks["<term>_tol"]`` with
``checks["oa_rounds"]``.
"""

from __future__ import annotations

import time

import numpy as np

from .. import solvers as _solvers
from ..formulations.cuts import add_logistic_cuts, add_square_cuts
from ..formulations.tangents import logistic_loss
from ..solvers.results import relative_gap

__all__ = ["solve_with_cuts", "solve_outer_approximation", "SquareCuts", "LogisticCuts", "squares_error"]


def squares_error(formulation, x) -> tuple[float, float, float]:
    """``(exact, approximated, relative error)`` of ``sum lam_t w[t, j]**2`` at ``x``."""
    v = formulation.values(x)
    lam = formulation.cost[formulation.variables["q"].columns]
    exact = float(np.sum(lam * v["w"] ** 2))
    approx = float(np.sum(lam * v["q"]))
    return exact, approx, max(0.0, exact - approx) / max(exact, 1e-12)


class SquareCuts:
    """Tangent cuts of ``w**2`` (the group ``q`` of ``l2_method="outer"``)."""

    name = "l2"

    def __init__(self, tol=1e-4):
        self.tol = tol

    def terms(self, f, x):
        """``(exact, approximated)`` value of the term in the objective."""
        exact, approx, _ = squares_error(f, x)
        return exact, approx

    def add(self, f, x):
        q, w = f.variables["q"], f.variables["w"]
        wv = x[w.columns]
        below = (wv * wv - x[q.columns]) > self.tol * np.abs(wv * wv).clip(min=1e-12)
        add_square_cuts(f, q, w, np.where(below, wv, 0.0))   # a cut at 0 is q >= 0, already implied

    def repair(self, f, x):
        x[f.variables["q"].columns] = x[f.variables["w"].columns] ** 2


class LogisticCuts:
    """Tangents of the logistic loss at each point's margin on the node it visits (logistic layers)."""

    name = "logistic"

    def __init__(self, tol=1e-3):
        self.tol = tol

    def _visited(self, f, x):
        """``(nodes, points, margins, slack columns, weights)`` of every (point, logistic layer) pair."""
        problem = f.problem
        v = f.values(x)
        xi = f.variables["xi"]
        layers = f.sets[xi.dims[1]]
        leaf = f.sets[f.variables["z"].dims[1]][np.argmax(v["z"], axis=1)]     # last-layer node of each point
        n = len(leaf)
        nodes = (leaf[None, :] >> (problem.spec.depth - layers)[:, None]).ravel()   # (layers, n) ancestors
        points = np.tile(np.arange(n), len(layers))
        margins = v["s"][np.searchsorted(f.sets["T"], nodes), points]
        cols = xi.columns[points, np.repeat(np.arange(len(layers)), n)]
        weights = problem.spec.C[np.repeat(layers - 1, n)]
        return nodes, points, margins, cols, weights

    def terms(self, f, x):
        _, _, margins, cols, weights = self._visited(f, x)
        return float(weights @ logistic_loss(margins)), float(weights @ x[cols])

    def add(self, f, x):
        nodes, points, margins, cols, _ = self._visited(f, x)
        exact = logistic_loss(margins)
        under = exact - x[cols] > self.tol * np.maximum(exact, 1e-12)
        if under.any():
            add_logistic_cuts(f, nodes[under], points[under], margins[under])

    def repair(self, f, x):
        _, _, margins, cols, _ = self._visited(f, x)
        x[cols] = np.maximum(x[cols], logistic_loss(margins))


def solve_with_cuts(formulation, cutters, solver="highs", *, max_rounds=50, warm_start=None, deadline=None,
                    polish_deadline=None, **options):
    """Solve, add cuts of each of ``cutters`` where the solution is underestimated, re-solve (module docstring).

    Parameters
    ----------
    formulation : Formulation
    cutters : sequence of SquareCuts / LogisticCuts
    solver : str, default="highs"
    max_rounds : int, default=50
        Most MILP solves.
    warm_start : array of shape (n_cols,), optional
        Start of the first round.
    deadline, polish_deadline : float, optional
        Absolute ``time.perf_counter()`` by which all rounds end, and by which
        their polishing must end (default ``deadline``).
    **options
        Passed to :func:`optitrees.solvers.solve` for every round.

    Returns
    -------
    SolverResult
        Of the last round, with the exact objective, the best bound of all
        rounds, ``timings`` summed over the rounds and the checks above.
    """
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
        errors = [_relative(*c.terms(formulation, x)) for c in cutters]
        if all(e <= c.tol for e, c in zip(errors, cutters)) or \
                current.status in ("time_limit_feasible", "infeasible", "error"):
            break
        for c, e in zip(cutters, errors):
            if e > c.tol:
                c.add(formulation, x)
        start = x.copy()
        for c in cutters:
            c.repair(formulation, start)
    result.timings = totals
    result.trace = trace
    result.checks["oa_rounds"] = rounds
    if result.x is not None:
        x = result.x
        correction = 0.0
        for c in cutters:
            exact, approx = c.terms(formulation, x)
            correction += exact - approx
            result.checks[f"{c.name}_relative_error"] = _relative(exact, approx)
            result.checks[f"{c.name}_tol"] = c.tol
        result.objective = formulation.objective_value(x) + correction
        result.bound = best_bound
        result.gap = relative_gap(result.objective, result.bound)
        result.message += f"; cut loop: {rounds} round(s), " + ", ".join(
            f"{c.name} relative error {result.checks[f'{c.name}_relative_error']:.2e}" for c in cutters)
    return result


def _relative(exact, approx):
    return max(0.0, exact - approx) / max(exact, 1e-12)


def solve_outer_approximation(formulation, solver="highs", *, tol=1e-4, **options):
    """:func:`solve_with_cuts` with the squares of ``w`` outer-approximated to a relative error ``tol``."""
    if "q" not in formulation.variables or "w" not in formulation.variables:
        raise ValueError("the formulation has no outer approximation (build it with l2_method='outer')")
    if not tol > 0:
        raise ValueError("tol must be positive")
    return solve_with_cuts(formulation, [SquareCuts(tol)], solver, **options)
