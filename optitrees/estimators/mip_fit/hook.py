"""The user's ``constraints`` hook: applied to the family's formulation, checked, and the starts completed for it.

A hook may add rows and variable groups (a cap on the features a tree uses, a fairness constraint). The fit runs
it before any start is computed (:func:`build_with_hook`), so a hook that fails does so first, and completes
each start for the hook's variable groups (:func:`completed_start`): the family's columns fixed at the start,
HiGHS solving for the rest.
"""

from __future__ import annotations

import numpy as np

from ...formulations.family import MIPFamily
from ...solvers.options import SolveOptions
from ...solvers.polish import complete

__all__ = ["build_with_hook", "completed_start"]


def build_with_hook(family: MIPFamily, problem, constraints=None, parity=None, feature_budget=None, monotone=None):
    """The family's formulation of ``problem`` with a parity constraint's block (``parity``, a
    :class:`~optitrees.fairness.GroupParity`), a feature budget's (``feature_budget``, a
    :class:`~optitrees.formulations.feature_budget.FeatureBudget`), ``monotonic_cst``'s (``monotone``, a
    :class:`~optitrees.monotonicity.MonotoneConstraint`) and the user's ``constraints`` hook applied to it.

    The hook may add variable groups as well as rows (a cap on the features used needs one indicator per
    feature); they are recorded in ``f.user_groups``, so a family's start leaves them to be completed. The hook
    is checked here, before any start is computed: an exception in it, or rows that do not assemble, is a
    ``ValueError`` naming the hook.

    Raises
    ------
    ValueError
        The hook raised, or removed a group of the family's, or its rows do not assemble.
    """
    f = family.build(problem)
    budgeted = feature_budget is not None and feature_budget.holds
    if monotone is not None:
        monotone.add_to(f, family)                 # bounds and rows on the family's own groups: no group added
    if constraints is None and parity is None and not budgeted:
        return f
    own = set(f.variables)
    if parity is not None:
        parity.add_to(f, family)
    if budgeted:
        if family.feature_use is None:
            raise ValueError(f"the {family.name} models take no feature budget")
        feature_budget.add_to(f, family.feature_use(f))
    try:
        if constraints is not None:
            constraints(f)
    except Exception as exc:
        raise ValueError(f"the constraints hook failed on the formulation {f.name!r}: {type(exc).__name__}: "
                         f"{exc}") from exc
    lost = own - set(f.variables)
    if lost:
        raise ValueError(f"the constraints hook removed variable group(s) {sorted(lost)} of the model")
    f.user_groups = tuple(name for name in f.variables if name not in own)
    try:
        f.matrix
    except Exception as exc:
        raise ValueError(f"the rows the constraints hook added do not assemble: {type(exc).__name__}: {exc}") \
            from exc
    return f


def completed_start(family: MIPFamily, f, model, threads=None, seed=0, deadline=None) -> np.ndarray | None:
    """The column vector of ``model`` in ``f``, its entries for the groups a hook added (``f.user_groups``)
    completed by fixing the family's columns and solving for the rest; ``None`` when they cannot be (the start
    violates the hook's rows whatever they are, or the deadline came first)."""
    x = family.start(f, model)
    if not f.user_groups:
        return x
    return complete(f, x, SolveOptions(threads=threads, seed=seed), deadline)
