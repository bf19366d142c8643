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

from ...trees import Tree

__all__ = ["start_within_class"]


def start_within_class(family, problem, f, start, vector) -> np.ndarray | None:
    """The column vector (``vector(model)``, ``None`` when it cannot be made) of ``family.within_class`` of the
    tree ``start`` (the problem's units) when it satisfies ``f``; ``None`` when the family has no such map,
    ``start`` is no tree, or the tree scaled into the class still violates ``f`` (a node whose two sides lie
    closer than the class's margin)."""
    if family.within_class is None or not isinstance(start, Tree):
        return None
    x = vector(family.within_class(problem, start))
    return None if x is None or f.violation(x) > 1e-6 else x
