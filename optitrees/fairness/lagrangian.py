r"""Fair trees found through the Lagrangian of the parity rows: the search that gives a fair fit its starts.

Every cell's rate is linear in the rows' predictions ``p_i`` (:mod:`.cells`), so with a multiplier ``mu_q`` per
cell the Lagrangian of the objective and the parity terms,

    sum_i u_i [p_i != y_i]  +  sum_q mu_q rate(q)
        = const + sum_i |a_i - b_i| [p_i != y'_i],    a_i = u_i [y_i = 0] + sum_q mu_q v_i [i in q] / W_q,
                                                      b_i = u_i [y_i = 1],  y'_i = [a_i < b_i],

is an ordinary weighted classification problem: the rows relabelled ``y'`` and weighted ``|a - b|``, which any
tree learner solves (the terms decompose over the leaves). Each multiplier vector gives a partition of the rows
(the learner's tree); its leaves then get the fair labels of least error (:func:`.relabel.fair_leaf_labels`), a
feasible tree. The multipliers follow the subgradient of the dual: where a condition's rates spread beyond the
bound, its highest cell's multiplier rises and its lowest one's falls; where they are within it, the condition's
multipliers shrink. The step starts at a quarter of the objective's total weight per unit of rate and decays.
"""

from __future__ import annotations

import numpy as np

from ..budget import expired
from .constraint import GroupParity

__all__ = ["lagrangian_trees", "ITERATIONS", "FIRST_STEP", "DECAY"]

#: Multiplier vectors tried.
ITERATIONS = 12
#: The first step, a share of the objective's total weight per unit of rate.
FIRST_STEP = 0.25
#: The step's decay per iteration.
DECAY = 0.7


def lagrangian_trees(parity: GroupParity, fit_tree, X, deadline=None, iterations: int = ITERATIONS) -> list:
    """Fair trees (their leaves labelled by :meth:`GroupParity.relabel`), one per multiplier vector tried before
    ``deadline``: ``fit_tree(labels, weight)`` fits a tree to the rows ``X`` relabelled and weighted (zero-weight
    rows may be left out by it) and returns it; the first vector is zero (the unconstrained learner's tree)."""
    cells, u = parity.cells, parity.objective_weight
    y = parity.y01
    share = (cells.member * cells.weight) / cells.totals[:, None]            # (cells, rows): v_i / W_q
    mu = np.zeros(cells.n_cells)
    step = FIRST_STEP * float(u.sum())
    trees = []
    for _ in range(iterations):
        if trees and expired(deadline):
            break
        a = u * (y == 0) + mu @ share
        b = u * (y == 1)
        tree = fit_tree((a < b).astype(np.int64), np.abs(a - b))
        if tree is None:
            break
        trees.append(parity.relabel(tree, X))
        rates = cells.rates(tree.predict(X) == 1)                  # the Lagrangian minimizer's own predictions
        for k in range(cells.n_conditions):
            in_k = np.flatnonzero(cells.condition == k)
            if len(in_k) < 2:
                continue
            hi, lo = in_k[np.argmax(rates[in_k])], in_k[np.argmin(rates[in_k])]
            if rates[hi] - rates[lo] > parity.bound:
                mu[hi] += step
                mu[lo] -= step
            else:
                mu[in_k] *= 0.5
        step *= DECAY
    return trees
