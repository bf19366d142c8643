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
  (:mod:`optitrees.formulations.root_bounds`); for OCT and OCT-H the weight of such rows every tree misclassifies
  (:func:`optitrees.formulations.oct_solution.identical_rows_bound`);
* ``0``: every family's objective is a sum of non-negative losses and penalties.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LowerBound", "best_bound", "NON_NEGATIVE"]

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
