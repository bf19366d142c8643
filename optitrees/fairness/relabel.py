r"""Fair leaf labels for a tree whose routing is fixed: the start every fair fit can fall back on.

With the rows' leaves fixed, each cell's rate (:mod:`.cells`) is linear in the leaves' labels ``c_l`` (1:
positive), ``rate(q) = sum_l c_l A[q, l] / W_q`` with ``A[q, l]`` the weight of the cell's rows at leaf ``l``, and
so is the objective's error, ``sum_l (N0[l] c_l + N1[l] (1 - c_l))`` (the objective's weights ``u``:
``N_k[l] = sum_{i at l, y_i = k} u_i``). The labels are then the small MIP (one binary per leaf, two continuous
variables per condition)::

    min  sum_l (N0[l] - N1[l]) c_l
    s.t. lo[k] <= sum_l c_l A[q, l] / W_q <= hi[k]      q in condition k
         hi[k] - lo[k] <= delta

solved by HiGHS through :func:`scipy.optimize.milp`. Every leaf negative (or every leaf positive) gives each cell
the rate 0 (or 1), so the MIP is always feasible; where HiGHS returns no solution in its limit, the labels of the
better of the two constant trees are returned.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from .cells import ParityCells

__all__ = ["fair_leaf_labels", "fair_leaf_choices", "TIME_LIMIT"]

#: Seconds HiGHS may spend on the labels (2^depth binaries: milliseconds at the depths MIP trees are fitted).
TIME_LIMIT = 10.0


def fair_leaf_labels(leaf, y01, objective_weight, cells: ParityCells, bound: float, n_leaves: int,
                     time_limit: float = TIME_LIMIT) -> np.ndarray:
    """Labels (0/1 per leaf ``0..n_leaves-1``) of least weighted error whose cells' rates differ by at most
    ``bound`` in every condition, for rows at leaves ``leaf`` with labels ``y01`` and objective weights
    ``objective_weight`` (module docstring): :func:`fair_leaf_choices` between a negative and a positive leaf."""
    n = len(np.asarray(leaf))
    options = np.column_stack([np.zeros(n, bool), np.ones(n, bool)])
    return fair_leaf_choices(leaf, options, y01, objective_weight, cells, bound, n_leaves, time_limit)


def fair_leaf_choices(leaf, options, y01, objective_weight, cells: ParityCells, bound: float, n_leaves: int,
                      time_limit: float = TIME_LIMIT) -> np.ndarray:
    """The option (column of ``options``) of each leaf of least weighted error whose cells' rates differ by at
    most ``bound`` in every condition; ``options[i, o]``: whether row ``i`` is predicted positive when its leaf
    takes option ``o`` (label leaves: negative, positive; a linear leaf: its own model, negative, positive).

    The module docstring's MIP with one binary ``x[l, o]`` per leaf and option, ``sum_o x[l, o] = 1``. Options
    that predict every row negative and every row positive must be among them (one of the two constant trees is
    then the fallback: both give every cell the same rate)."""
    leaf, y01 = np.asarray(leaf, np.int64), np.asarray(y01)
    options = np.asarray(options, bool)
    n_options = options.shape[1]
    u = np.asarray(objective_weight, float)
    wrong = options != (y01[:, None] == 1)                                        # (rows, options)
    error = np.zeros((n_leaves, n_options))
    np.add.at(error, leaf, u[:, None] * wrong)
    at_leaf = np.zeros((cells.n_cells, n_leaves, n_options))
    q, i = np.nonzero(cells.member)
    np.add.at(at_leaf, (q, leaf[i]), cells.weight[i][:, None] * options[i])
    share = (at_leaf / cells.totals[:, None, None]).reshape(cells.n_cells, n_leaves * n_options)
    K = cells.n_conditions
    n_x = n_leaves * n_options
    pick = np.zeros((cells.n_cells, K))
    pick[np.arange(cells.n_cells), cells.condition] = 1.0
    one = np.kron(np.eye(n_leaves), np.ones(n_options))                          # sum_o x[l, o] = 1
    rows = np.vstack([np.hstack([share, -pick, np.zeros_like(pick)]),
                      np.hstack([share, np.zeros_like(pick), -pick]),
                      np.hstack([np.zeros((K, n_x)), np.eye(K), -np.eye(K)]),
                      np.hstack([one, np.zeros((n_leaves, 2 * K))])])
    lower = np.r_[np.full(cells.n_cells, -np.inf), np.zeros(cells.n_cells), np.full(K, -np.inf), np.ones(n_leaves)]
    upper = np.r_[np.zeros(cells.n_cells), np.full(cells.n_cells, np.inf), np.full(K, bound), np.ones(n_leaves)]
    cost = np.r_[error.ravel(), np.zeros(2 * K)]
    result = milp(cost, constraints=LinearConstraint(rows, lower, upper),
                  integrality=np.r_[np.ones(n_x), np.zeros(2 * K)],
                  bounds=Bounds(np.zeros(n_x + 2 * K), np.ones(n_x + 2 * K)),
                  options=dict(time_limit=time_limit, mip_rel_gap=0.0))
    negative, positive = int(np.flatnonzero(~options.any(axis=0))[0]), int(np.flatnonzero(options.all(axis=0))[0])
    constant = np.full(n_leaves, positive if u @ (y01 == 1) > u @ (y01 != 1) else negative)
    if result.x is None:
        return constant
    chosen = np.argmax(result.x[:n_x].reshape(n_leaves, n_options), axis=1)
    # the solver's tolerance may pass choices a hair over the bound: the constant tree is the fallback then
    return chosen if cells.disparity(options[np.arange(len(leaf)), chosen[leaf]]) <= bound else constant
