"""The solver's start for a start outside the MIP's class: the same tree scaled into the class.

A start from TAO, TMO or their refinement fits each hyperplane by its own convex problem, with no bound on its
weights: on 4,000 rows of phishing the refit of the last layer (Remark 1 of seed 002) of the best dense OLCT start
put its leaves at ``||w_t||_1`` = 13.1 and 17.5, beyond the ``W = 10`` of 3.16 the big-M values come from, so its
column vector violated the model and the solver started with no incumbent. HiGHS then runs its root's randomized
rounding, a step that checks no time limit, and prunes nothing until a heuristic finds one. The family's
``within_class`` tree routes and labels every training point as the start does; its column vector, when feasible,
is the solver's start. The start itself stays a candidate of the fit, its exact objective unchanged.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import WarmStartWarning
from ...trees import Tree

__all__ = ["start_within_class", "handed_start"]


def start_within_class(family, problem, f, start, vector) -> np.ndarray | None:
    """The column vector (``vector(model)``, ``None`` when it cannot be made) of ``family.within_class`` of the
    tree ``start`` (the problem's units) when it satisfies ``f``; ``None`` when the family has no such map,
    ``start`` is no tree, or the tree scaled into the class still violates ``f`` (a node whose two sides lie
    closer than the class's margin)."""
    if family.within_class is None or not isinstance(start, Tree):
        return None
    x = vector(family.within_class(problem, start))
    return None if x is None or f.violation(x) > 1e-6 else x


def handed_start(fit, problem, f, start, label, others=()):
    """``(x0, feasible, handed)`` for the best start ``start`` of a fit (a :class:`~.pipeline.MIPFit`): its column
    vector (completed for the groups a hook or a parity block added; ``None`` when it cannot be), whether that
    satisfies ``f``, and the vector the solver starts from: ``x0``; else the start scaled into the MIP's class
    (:func:`start_within_class`); else, where the model must be whole (a user's rows or a parity constraint), the
    best of the ``others`` (``(name, start)`` by objective) the MIP can take; else ``None``. A start the user's rows
    refuse is a warning (``fit.notes``); the library's own starts are the report's business (``fit.log``)."""
    x0 = fit.start_vector(f, start, f"{label} start")
    violation = np.inf if x0 is None else f.violation(x0)
    feasible = violation <= 1e-6
    handed = x0 if feasible else start_within_class(
        fit.family, problem, f, start, lambda m: fit.start_vector(f, m, f"{label} start within the class"))
    if handed is None and fit.settings.constraints is not None:
        fit.notes.append((WarmStartWarning, f"the {label} start " + (
            f"could not be completed for the variables the constraints hook added ({', '.join(f.user_groups)})"
            if x0 is None else f"violates the model by {violation:.3g} (a user constraint?)")
            + ": the solver starts without it, and it is not returned"))
    elif not feasible:
        fit.log.note(f"the {label} start " + ("could not be completed for the rows of the parity constraint"
                                              if x0 is None else f"violates the model by {violation:.3g}")
                     + ("; the solver starts without it" if handed is None else "; the solver starts from it "
                        "scaled into the MIP's class (the same routing and labels)"))
    for name, other in others if handed is None and fit.settings.whole_model else ():
        handed = fit.start_vector(f, other, f"{name} start")
        if handed is not None and f.violation(handed) <= 1e-6:
            fit.log.note(f"the solver starts from the {name} start, the best the MIP could take")
            break
        handed = None
    return x0, feasible, handed
