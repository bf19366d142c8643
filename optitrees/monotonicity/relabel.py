"""The leaf labels of least error that make a label tree monotone (the repair of a tree that is not).

With ``l_L`` in {0, 1} the positive label of leaf ``L`` and ``w0_L`` / ``w1_L`` the weight of its negative and
positive training rows, the labels solve

    min sum_L ( w0_L l_L + w1_L (1 - l_L) )   s.t.   l_A <= l_B  for every pair with B above A in a +1 feature
                                                    l_A >= l_B  for every pair with B above A in a -1 feature

(:func:`~optitrees.monotonicity.check.ordered_leaf_pairs`; for an oblique tree the pairs its hierarchy orders,
:func:`~optitrees.monotonicity.check.hierarchy_leaf_pairs`, which make it provably monotone). Its rows are those of
a closure problem (each has one +1 and one -1), so the LP relaxation has a 0/1 optimum; scipy's ``milp`` solves it
at once. The constant tree is feasible, so a solution always exists.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.optimize import LinearConstraint, milp

from ..trees import Tree
from .check import monotone_leaf_order

__all__ = ["monotone_leaf_labels", "monotone_relabel"]


def monotone_leaf_labels(tree: Tree, signs, X, y01, weight) -> np.ndarray:
    """Positive labels (0/1) of ``tree``'s leaves (id order) of least weighted error on ``(X, y01)`` under the
    order the signs ``signs`` put on them (:func:`~optitrees.monotonicity.check.monotone_leaf_order`)."""
    leaves = np.flatnonzero(tree.is_leaf)
    position = np.searchsorted(leaves, tree.apply(X))
    weight = np.ones(len(y01)) if weight is None else np.asarray(weight, float)
    w1 = np.bincount(position, weights=weight * (np.asarray(y01) == 1), minlength=len(leaves))
    w0 = np.bincount(position, weights=weight * (np.asarray(y01) != 1), minlength=len(leaves))
    rows = monotone_leaf_order(tree, signs)
    if not len(rows):
        return (w1 > w0).astype(np.int64)
    A = np.zeros((len(rows), len(leaves)))
    A[np.arange(len(rows)), rows[:, 0]] = 1.0
    A[np.arange(len(rows)), rows[:, 1]] = -1.0
    result = milp(w0 - w1, constraints=LinearConstraint(A, -np.inf, 0.0), integrality=np.ones(len(leaves)),
                  bounds=(0, 1))
    if result.x is None:
        raise RuntimeError(f"the monotone relabelling found no solution ({result.message})")
    return np.round(result.x).astype(np.int64)


def monotone_relabel(tree: Tree, signs, X, y01, weight=None, positive: int = 1) -> Tree:
    """``tree`` with the monotone leaf labels of least error (:func:`monotone_leaf_labels`); ``positive`` is the
    class index of the positive class (the other of two is 0 or 1)."""
    labels = monotone_leaf_labels(tree, signs, X, y01, weight)
    label = tree.label.copy()
    label[tree.is_leaf] = np.where(labels == 1, positive, 1 - positive)
    return replace(tree, label=label)
