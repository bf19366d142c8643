r"""The fair threshold of one score: the start every fair score card can fall back on.

A score card predicts row ``i`` positive when its total ``t_i`` passes the threshold ``c = -beta`` (``t_i > c``).
With the points fixed, only the rows' order by total matters: the threshold between the ``k``-th and the
``(k+1)``-th distinct total (``k = 0``: every row positive; ``k = U``: none) gives each cell the rate
``rate_q(k) = sum_{i in q, t_i >= v_k} w_i / W_q`` and the error ``sum_{t_i < v_k, y_i = 1} u_i +
sum_{t_i >= v_k, y_i = 0} u_i``, both read from cumulative sums over the sorted distinct totals ``v``. The threshold
returned is the one of least error whose disparity is within the bound; the two constant options give every cell
the same rate, so there always is one.
"""

from __future__ import annotations

import numpy as np

from .cells import ParityCells

__all__ = ["fair_threshold"]


def fair_threshold(totals, y01, objective_weight, cells: ParityCells, bound: float, current: float) -> float:
    """The threshold ``c`` (rows with ``totals > c`` positive) of least weighted error (objective weights
    ``objective_weight``, labels ``y01``) among those keeping the cells' disparity within ``bound`` (module
    docstring); of equal errors, the one nearest ``current``. It lies halfway between two distinct totals, or one
    below the least (every row positive) or above the greatest (none)."""
    totals = np.asarray(totals, float)
    u, y01 = np.asarray(objective_weight, float), np.asarray(y01)
    values, at = np.unique(totals, return_inverse=True)
    U = len(values)
    positive_label = y01 == 1
    pos = np.bincount(at, u * positive_label, U)
    neg = np.bincount(at, u * ~positive_label, U)
    # option k: rows at distinct totals k.. positive
    error = np.r_[0.0, np.cumsum(pos)] + np.r_[np.cumsum(neg[::-1])[::-1], 0.0]
    weight_at = np.zeros((cells.n_cells, U))
    q, i = np.nonzero(cells.member)
    np.add.at(weight_at, (q, at[i]), cells.weight[i])
    rates = np.c_[np.cumsum(weight_at[:, ::-1], axis=1)[:, ::-1], np.zeros(cells.n_cells)] / cells.totals[:, None]
    hi = np.full((cells.n_conditions, U + 1), -np.inf)
    lo = np.full((cells.n_conditions, U + 1), np.inf)
    np.maximum.at(hi, cells.condition, rates)
    np.minimum.at(lo, cells.condition, rates)
    disparity = np.where(np.isfinite(hi), hi - lo, 0.0).max(axis=0, initial=0.0)
    thresholds = np.r_[values[0] - 1.0, (values[:-1] + values[1:]) / 2, values[-1] + 1.0]
    feasible = disparity <= bound
    feasible[[0, U]] = True                                       # the constants: every cell the same rate
    candidates = np.flatnonzero(feasible)
    best = candidates[np.lexsort((np.abs(thresholds[candidates] - current), error[candidates]))[0]]
    return float(thresholds[best])
