"""What a backend will do with a model of a given size in a given time: its :class:`SolvePlan`.

A fit asks its backend before it builds or solves anything (``backend.plan(n_rows, n_cols, nnz, seconds)``):
whether the backend can get past the root of such a model in the time the solve would get, and which options the
backend adds for a model of that size. The policy belongs to the backend (HiGHS's root-LP estimate and its steps
that check no time limit, :mod:`optitrees.solvers.highs`); an estimator only reads the plan. Options an estimator
chooses per backend for its family (measured by ``bench/solver_settings.py``) are looked up the same way
(:func:`family_options`), so no estimator tests a solver's name.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["SolvePlan", "family_options", "SUB_MIP_HEURISTICS_OFF"]

#: Per backend, the options that turn off the primal heuristics which solve a sub-MIP (HiGHS: RENS, RINS and the
#: root's reduced-cost heuristic), for a tree family's solve handed a start. The family's own neighbourhood rounds
#: (:mod:`optitrees.estimators.mip_fit.neighbourhood`) search near the start instead. HiGHS 1.16 runs a sub-MIP's
#: presolve without checking its time limit: OCT-H on 222 rows of heart (depth 2, 30 s) left HiGHS in RINS's
#: presolve (``HPresolve::strengthenInequalities``) for over 6 minutes after the fit returned, its process kept
#: alive at exit; with OLCT they took 14-35 s of a 60 s fit's root (``bench/mip_strength.py``).
SUB_MIP_HEURISTICS_OFF = types.MappingProxyType({"highs": types.MappingProxyType({
    "mip_heuristic_run_rens": False, "mip_heuristic_run_rins": False, "mip_heuristic_run_root_reduced_cost": False})})


@dataclass(frozen=True)
class SolvePlan:
    """A backend's answer for one model and one time budget.

    Attributes
    ----------
    reachable : bool
        Whether the solve is worth starting: the backend expects to get past the model's root within the
        seconds it would get (always ``True`` without a time limit or where the backend has no estimate).
    why : str or None
        Why not, when ``reachable`` is ``False`` (a sentence the fit reports).
    options : Mapping
        Solver options the backend adds for a model of this size; the user's ``solver_options`` win over them.
    """

    reachable: bool = True
    why: str | None = None
    options: Mapping = field(default_factory=lambda: types.MappingProxyType({}))


def family_options(backend, per_backend: Mapping[str, Mapping]) -> dict:
    """The options a family chose for ``backend`` (``per_backend`` maps a backend's ``name`` to its options;
    another backend gets none).

    >>> class B: name = "highs"
    >>> family_options(B(), {"highs": {"presolve": "off"}})
    {'presolve': 'off'}
    >>> family_options(B(), {"scip": {"limits/nodes": 10}})
    {}
    """
    return dict(per_backend.get(backend.name, {}))
