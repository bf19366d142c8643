"""Whether a fit's MIP is solved at all: with HiGHS and a time limit the model is built before the warm starts,
and HiGHS is started only when it could solve the root LP in half the time its solve would get
(:func:`~optitrees.solvers.highs.root_lp_out_of_reach`).

A MIP out of reach gives its time to the starts. Started on it, HiGHS would hold its working memory from the start
(1 GB for OLCT depth 2 on 4,000 rows of adult; 5 GB at 30,000) and, at a deadline its root cannot reach, run on
after the fit in the thread left behind, to return the start it was given. A family that counts its model's size
(``MIPFamily.size``, :mod:`optitrees.formulations.sizes`) builds nothing when the model is out of reach; otherwise
the size is read from the built groups before the matrix is assembled, which a model out of reach never is.
"""

from __future__ import annotations

from ..algorithms.budget import call_until, remaining
from ..mip import BuildInterrupted, build_deadline
from ..solvers.highs import root_lp_out_of_reach

__all__ = ["reach_matters", "build_first"]


def reach_matters(estimator, budget) -> bool:
    """Whether ``estimator``'s fit checks that HiGHS can reach the root in time: HiGHS, a time limit and no user
    ``constraints`` (a user's constraints always get the MIP)."""
    return budget.seconds is not None and estimator.solver == "highs" and estimator.constraints is None


def build_first(estimator, problem, budget):
    """``(f, None, None)``: the MIP of ``problem``, built before the starts; or ``(None, why, its summary)`` when
    it is not to be solved: no time is left for the solve after the starts (nothing is built then), HiGHS's root
    LP (estimated low by :func:`~optitrees.solvers.highs.root_lp_seconds`) would take more than half the time the
    solve would get after the starts (nothing is built when the family counts its size), or the build did not
    finish within the starts' share of the budget."""
    share = estimator._start_share_of_time()
    starts = share * budget.seconds if set(estimator._start_methods) - {"greedy"} else 0.0
    if remaining(budget.solve_deadline(estimator._reserve)) <= starts:     # e.g. an exact search used the budget
        return None, "the MIP was not solved: no time is left for it after the starts", None
    size = estimator._family.size
    if size is not None:
        counted = size(problem)
        unsolved = _out_of_reach(estimator, budget, starts, counted)
        if unsolved is not None:
            return None, unsolved, counted.summary()
    by = estimator._start_deadline(budget)
    late = (f"the MIP was not solved: its build did not finish within the starts' share of the budget "
            f"({share * budget.seconds:.3g} s)")
    built, f = call_until(by, estimator._build_matrix_by, problem, by, False)
    if built and f is not None:
        unsolved = _out_of_reach(estimator, budget, starts, f) if size is None else None
        if unsolved is not None:
            budget.lap("build")
            return None, unsolved, f.summary()
        built, f = call_until(by, _assembled_by, f, by)
    budget.lap("build")
    return (f, None, None) if built and f is not None else (None, late, None)


def _out_of_reach(estimator, budget, starts, model):
    """Why ``model`` (anything with ``n_rows`` and ``n_cols``) is not to be solved, or ``None``."""
    why = root_lp_out_of_reach(model.n_rows, model.n_cols,
                               remaining(budget.solve_deadline(estimator._reserve)) - starts)
    return None if why is None else f"the MIP was not solved: {why}; its time went to the starts"


def _assembled_by(f, deadline):
    """``f`` with its matrix assembled, or ``None`` when ``deadline`` passed first."""
    with build_deadline(deadline):
        try:
            f.matrix
            return f
        except BuildInterrupted:
            return None
