"""Polishing: make a MIP solution exactly integral.

A MIP solver accepts an integer variable within its integrality tolerance
(1e-6 for HiGHS), and big-M rows turn that into slack of ``M * 1e-6``: a
forwarding row (3.7b) may then hold a point ``M * 1e-6`` inside the gap
``(0, eps)``, and a tangent row (3.15) may price a slack slightly low. Polishing
rounds the integer variables, fixes them, and re-solves the continuous part
(an LP, or a convex QP) with HiGHS. The polished solution is integral, its
objective is the true objective of that integer assignment, and hyperplanes
decoded from it agree with the routing variables by construction.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..budget import remaining
from .highs import configured_highs
from .highs_run import GRACE, watched_run

__all__ = ["polish", "complete"]


def _solve_with_fixed(formulation, cols, values, options, deadline, relax_integers: bool):
    """HiGHS on ``formulation`` with columns ``cols`` fixed at ``values`` (their integrality dropped when
    ``relax_integers``): its solution with those columns set exactly, or ``None`` (no optimum, or the deadline).

    HiGHS's LP can run past its time_limit (a 2 s polish of adult's depth-2 loss-optimal model took 10 s): the
    run is stopped at the deadline, as a MIP solve is (:mod:`~optitrees.solvers.highs_run`)."""
    import highspy

    h = configured_highs(replace(options, solver_options={}))
    if deadline is not None:
        h.setOptionValue("time_limit", remaining(deadline))
    formulation.to_highs(names=False, highs=h, allow_quadratic=True)
    cols = np.asarray(cols, dtype=np.int32)
    h.changeColsBounds(len(cols), cols, values, values)
    if relax_integers:
        h.changeColsIntegrality(len(cols), cols, np.zeros(len(cols), dtype=np.uint8))
    run = watched_run(h, mip=not relax_integers and bool(formulation.integrality.any()),
                      nonzeros=formulation.matrix.nnz, deadline=deadline is not None)
    if not run.wait(None if deadline is None else remaining(deadline) + GRACE):
        return None
    done = run.outcome()
    if done.model_status != highspy.HighsModelStatus.kOptimal or done.x is None:
        return None
    out = done.x.copy()
    out[cols] = values
    return out


def polish(formulation, x, options, deadline=None):
    """Re-solve ``formulation`` with its integer columns fixed at ``round(x)``.

    Parameters
    ----------
    formulation : Formulation
    x : ndarray of shape (n_cols,)
        A MIP solution.
    options : SolveOptions
        The solve's options (seed, verbose and threads apply).
    deadline : float, optional
        Absolute ``time.perf_counter()`` by which polishing must end.

    Returns
    -------
    (x_polished, objective, seconds) or (None, None, seconds)
        ``None`` when the fixed problem has no optimal solution (then keep ``x``).
    """
    t0 = time.perf_counter()
    cols = np.flatnonzero(formulation.integrality)
    fixed = np.clip(np.round(x[cols]), formulation.col_lower[cols], formulation.col_upper[cols])
    xp = _solve_with_fixed(formulation, cols, fixed, options, deadline, relax_integers=True)
    seconds = time.perf_counter() - t0
    if xp is None:
        return None, None, seconds
    return xp, formulation.objective_value(xp), seconds


def complete(formulation, x, options, deadline=None):
    """Fill the missing (NaN) entries of ``x`` so that the whole vector satisfies ``formulation``.

    A start built by a model family knows only the family's columns; a user's ``constraints`` hook may add
    variable groups (a cap on the features used, a fairness constraint). The family's columns are fixed at
    their start values and HiGHS solves for the rest (a MIP when they are integer), minimizing the objective.

    Returns
    -------
    ndarray or None
        The completed vector, or ``None`` when the start cannot be completed (the fixed columns leave the
        user's rows infeasible, or the deadline came first).
    """
    x = np.asarray(x, dtype=float)
    known = np.flatnonzero(np.isfinite(x))
    if len(known) == len(x):
        return x
    return _solve_with_fixed(formulation, known, x[known], options, deadline, relax_integers=False)
