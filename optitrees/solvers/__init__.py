"""Solving formulations and Pyomo models with HiGHS (direct) or any Pyomo solver.

>>> from optitrees import solvers
>>> "highs" in solvers.available()
True
"""

from __future__ import annotations


import numpy as np

from ..budget import expired
from .options import SolveOptions
from .registry import SolverNotAvailableError, available, get_backend, solver_names
from .results import SolutionStatus, SolverResult, SolveStatus, TerminationCondition
from .strategies import BranchAndCut, CutLoop
from .verify import check_optimal_claim

__all__ = ["solve", "available", "solver_names", "SolveOptions", "SolverResult", "TerminationCondition",
           "SolutionStatus", "SolveStatus", "SolverNotAvailableError", "CutLoop", "BranchAndCut"]


def solve(model, solver: str = "highs", *, time_limit=None, mip_gap=None, threads=None, seed=0,
          verbose=False, warm_start=None, progress=True, polish=True, solver_options=None,
          deadline=None, polish_deadline=None) -> SolverResult:
    """Solve a formulation or a Pyomo model: the one way into solving.

    A formulation that declares a strategy (``formulation.strategy``, see
    :mod:`optitrees.solvers.strategies`: a cut loop, branch and cut) is solved
    by it, with the same options, progress line, trace and result.

    Parameters
    ----------
    model : Formulation or pyomo ConcreteModel
        A formulation (compiled for the chosen backend) or a Pyomo model, for
        example one returned by ``Formulation.to_pyomo()`` and then extended.
    solver : str, default="highs"
        ``"highs"`` (direct highspy for formulations), ``"pyomo:highs"``,
        ``"scip"``, ``"gurobi"``, ``"cplex"``, ``"cbc"``, ``"glpk"``.
    time_limit : float, optional
        Seconds.
    mip_gap : float, optional
        Relative gap to stop at (default :data:`~optitrees.solvers.options.DEFAULT_MIP_GAP`, 1e-4, on every
        backend). A backend's "optimal" is passed on only when its own bound is within this gap of the
        objective and the (polished) solution satisfies every row (:mod:`optitrees.solvers.verify`); otherwise
        the status is ``feasible``, with the gap.
    threads : int, optional
    seed : int, default=0
    verbose : bool, default=False
        Show the solver log; otherwise a concise progress line every 10 s of a
        long solve (``progress=False`` silences it).
    warm_start : array of shape (n_cols,) or bool, optional
        A complete start (column order of the formulation); ``True`` for a Pyomo
        model uses the variables' current values. A start that violates the
        model is not handed over (with a warning).
    polish : bool, default=True
        For a formulation with integer variables: round and fix them, then
        re-solve the continuous part with HiGHS (see
        :mod:`optitrees.solvers.polish`), so the returned solution is exactly
        integral and its objective is that of the returned integer assignment.
        The bound stays the MIP's; the gap is recomputed. Not applied to Pyomo
        models, which the user may have changed.
    solver_options : dict, optional
        Raw solver options, applied last.
    deadline : float, optional
        Absolute ``time.perf_counter()`` by which the solve must end (how an
        estimator passes the rest of its budget).
    polish_deadline : float, optional
        By when polishing must end (default ``deadline``); past it the
        solution is returned unpolished (``checks["polish_skipped"]``).

    Returns
    -------
    SolverResult
    """
    from ..exceptions import WarmStartWarning, warn
    from ..mip import Formulation

    opts = SolveOptions(time_limit=time_limit, mip_gap=mip_gap, threads=threads, seed=seed, verbose=verbose,
                        progress=progress, solver_options=solver_options or {}, deadline=deadline)
    is_formulation = isinstance(model, Formulation)
    if not is_formulation and not hasattr(model, "component_data_objects"):
        raise TypeError(f"solve() takes a Formulation or a Pyomo model, got {type(model).__name__}")
    backend = get_backend(solver, pyomo_model=not is_formulation)
    formulation = model if is_formulation else getattr(model, "_optitrees_formulation", None)
    if formulation is not None:
        opts.integrality_tol = formulation.integrality_tol
    if is_formulation and model.is_quadratic and model.integrality.any() and not backend.supports_miqp:
        raise ValueError(f"solver {solver!r} cannot solve mixed-integer quadratic programs; use 'scip' or 'gurobi'")
    if expired(deadline):
        # handing a large model to the solver alone can take seconds: do not start a solve with no time left
        return SolverResult(solver=solver, termination=TerminationCondition.TIME_LIMIT,
                            timings={"solve": 0.0}, message="the time budget ran out before the solve started")

    start = None
    if warm_start is not None and warm_start is not False:
        if warm_start is True:
            if is_formulation:
                raise ValueError("warm_start=True is for Pyomo models; pass a start vector for a formulation")
            start = True
        else:
            start = np.asarray(warm_start, dtype=float)
            if formulation is None:
                raise ValueError("a start vector needs a Formulation or a model built by Formulation.to_pyomo()")
            if start.shape != (formulation.n_cols,):
                raise ValueError(f"warm start must have {formulation.n_cols} entries, got {start.shape}")
            worst = formulation.violation(start)
            if worst > 1e-6:
                warn(f"warm start violates the model by {worst:.3g}; solving without it", WarmStartWarning)
                start = None
    strategy = getattr(model, "strategy", None) if is_formulation else None
    polish_by = deadline if polish_deadline is None else polish_deadline

    def solve_once(begin):
        """One backend solve of the model as it is now, polished."""
        result = backend.solve(model, opts, start=begin)
        # a solver not started for lack of time returns the start: nothing to polish, and no time for an LP
        if polish and is_formulation and result.x is not None and model.integrality.any() \
                and not result.checks.get("not_started"):
            _polish_result(model, result, opts, polish_by)
        integer = bool(formulation.integrality.any()) if formulation is not None else _has_integers(model)
        check_optimal_claim(result, opts.mip_gap, formulation if is_formulation else None, integer=integer)
        return result

    if strategy is None:
        return solve_once(start)
    if strategy.backends is not None and solver not in strategy.backends:
        raise ValueError(f"{type(strategy).__name__} runs on {', '.join(strategy.backends)}, not {solver!r}")
    return strategy.run(model, solve_once, opts, start)


def _has_integers(model) -> bool:
    """Whether a Pyomo model has an active integer or binary variable."""
    import pyomo.environ as pyo

    return any(v.is_integer() or v.is_binary() for v in model.component_data_objects(pyo.Var, active=True))


def _polish_result(formulation, result, opts, deadline):
    from .polish import polish as run_polish
    from .results import relative_gap

    if expired(deadline):
        result.checks.update(polished=False, polish_skipped=True)
        result.message += "; not polished: the time budget ran out"
        return
    x, objective, seconds = run_polish(formulation, result.x, opts, deadline)
    result.timings["polish"] = seconds
    result.checks["polished"] = x is not None
    if x is None and expired(deadline):
        result.checks["polish_skipped"] = True
        result.message += "; not polished: the time budget ran out during polishing"
        return
    if x is None:
        result.message += ("; polishing failed: with the integers rounded the problem has no optimal solution, so "
                           "the solution relies on integrality tolerances (unpolished solution kept)")
        return
    if result.bound is not None and objective < result.bound - 1e-9 * max(1.0, abs(result.bound)):
        # cannot beat a valid bound: the MIP's bound was computed within tolerances
        result.bound = objective
    result.x, result.objective = x, objective
    result.gap = relative_gap(objective, result.bound)
