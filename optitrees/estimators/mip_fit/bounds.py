"""The fit's lower bound: the best of every valid bound it knows, with its source.

``fit_report_.bound`` is a lower bound on the exact training objective of every model of the family's class (the
MIP's, e.g. ``||w_t||_1 <= W``), so ``fit_report_.gap`` says how far the returned model can be from optimal. Its
sources, the largest kept:

* an exact search's bound (ConTree on OCT);
* the solver's best bound, when the MIP saw every row with its own weight (a reduced MIP's bound bounds only the
  reduced objective). The MIP's objective underestimates the exact one (tangents of the logistic loss), so its
  bound is a bound on the exact objective too;
* the family's own bound (``MIPFamily.lower_bound``), at any size and without the MIP: the loss-optimal trees'
  root layer and the rows identical in features with both labels below it
  (:mod:`optitrees.formulations.loss_optimal.root_bounds`); for OCT and OCT-H the weight of such rows every tree
  misclassifies
  (:func:`optitrees.formulations.oct.solution.identical_rows_bound`);
* ``0``: every family's objective is a sum of non-negative losses and penalties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LowerBound", "best_bound", "bounds_of", "fit_bound", "NON_NEGATIVE"]

#: The source named for the bound every fit has.
NON_NEGATIVE = "non-negative objective"


@dataclass(frozen=True)
class LowerBound:
    """A valid lower bound on the exact training objective and who found it."""

    value: float
    source: str


def best_bound(known) -> LowerBound:
    """The largest of ``known`` (a list of :class:`LowerBound`) and ``0``; on a tie the first of them (a solver's
    proof is named before the family's bound and before ``0``).

    >>> best_bound([LowerBound(2.0, "highs"), LowerBound(2.0, "root layer")]).source
    'highs'
    >>> best_bound([]).source
    'non-negative objective'
    """
    return max([*known, LowerBound(0.0, NON_NEGATIVE)], key=lambda b: b.value)


def bounds_of(value: float, known) -> tuple[LowerBound, list]:
    """``(best bound, notes)``: :func:`best_bound` of the bounds of ``known`` that a model of exact objective
    ``value`` respects, and a note for each one above it (beyond a relative ``1e-6``), set aside. A bound holds over
    the MIP's model class; a model below one lies outside that class (a refined start or a round's tree with weights
    beyond the bound ``W`` the big-M values come from, held in its rounds), so that bound says nothing of it and
    proves nothing.

    >>> best, notes = bounds_of(9.0, [LowerBound(9.5, "highs"), LowerBound(4.0, "root layer")])
    >>> best.source, len(notes)
    ('root layer', 1)
    >>> bounds_of(9.0, [LowerBound(9.0 + 1e-9, "highs")])[0].source
    'highs'
    """
    above = [b for b in known if b.value > value + 1e-6 * max(1.0, abs(value))]
    notes = [f"the returned model's objective {value:.6g} is below the {b.source} bound {b.value:.6g}, which holds "
             "over the MIP's model class: the model lies outside it (weights beyond the bound its big-M values come "
             "from), so that bound is not reported for it" for b in above]
    return best_bound([b for b in known if b not in above]), notes


def fit_bound(value: float, result, whole_rows: bool, exact=None, own: LowerBound | None = None) -> tuple:
    """``(bound, notes)`` of a fit whose returned model has exact objective ``value``: :func:`bounds_of` an exact
    search's bound (``exact.bound``, named by ``exact.engine``), the solver's (``result.bound``) when the MIP saw every
    row with its own weight (``whole_rows``), and the family's own ``own``."""
    known = []
    if exact is not None and exact.bound is not None:
        known.append(LowerBound(exact.bound, exact.engine))
    if result.bound is not None and whole_rows and np.isfinite(result.bound):
        known.append(LowerBound(float(result.bound), result.solver))
    return bounds_of(value, known + ([] if own is None else [own]))
