r"""The group-parity block of a leaf-labelled tree's formulation (OCT, OCT-H): every cell's rate of rows predicted
positive written in the routing ``z[i, l]`` and the leaves' positive labels ``c[1, l]``, and the bound on the
largest difference between the cells of a condition (:mod:`.notions`).

For each cell ``q`` (a condition and a group, :class:`~.cells.ParityCells`) and leaf ``l``, ``m[q, l]`` is the
weight of the cell's rows at ``l`` when ``l`` predicts positive, ``m = (sum_{i in q} v_i z[i, l]) c[1, l]``,
exactly linearized with ``W_q = sum_{i in q} v_i``::

    m[q, l] <= sum_{i in q} v_i z[i, l]                                    (fair_reach)
    m[q, l] <= W_q c[1, l]                                                 (fair_label)
    m[q, l] >= sum_{i in q} v_i z[i, l] - W_q (1 - c[1, l]),  m >= 0       (fair_both)
    lo[k] <= (1 / W_q) sum_l m[q, l] <= hi[k]                              q in condition k   (fair_rate_lo, _hi)
    hi[k] - lo[k] <= delta                                                 (fair_bound)

``G x L`` products of a group's total with a binary label, instead of one per row and leaf: the same integer
model with ``n / G`` times fewer columns. Only the columns ``z`` and ``c`` of the family are read.

A family whose leaves are linear models (the loss-optimal trees) predicts row by row; its formulation gives a
binary ``p[i]`` for "row ``i`` is predicted positive" (``MIPFamily.predicted_positive``), and the rates are then
linear in it, :func:`add_row_parity`::

    lo[k] <= (1 / W_q) sum_{i in q} v_i p[i] <= hi[k]                     q in condition k   (fair_rate_lo, _hi)
    hi[k] - lo[k] <= delta                                                 (fair_bound)
"""

from __future__ import annotations

import numpy as np

from ..mip import Formulation, safe_labels
from .cells import ParityCells

__all__ = ["add_group_parity", "add_row_parity", "GROUPS"]

#: The variable groups the block adds.
GROUPS = ("fair_m", "fair_hi", "fair_lo")


def _padded_members(cells: ParityCells) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, weight)`` of shape ``(n_cells, most rows of a cell)``: each cell's rows and their weights, padded
    with row 0 of weight 0 (entries of coefficient 0 are dropped from the rows)."""
    counts = cells.member.sum(axis=1)
    width = max(int(counts.max(initial=0)), 1)
    rows = np.zeros((cells.n_cells, width), np.int64)
    weight = np.zeros((cells.n_cells, width))
    q, i = np.nonzero(cells.member)
    slot = np.arange(len(q)) - np.repeat(np.cumsum(counts) - counts, counts)
    rows[q, slot] = i
    weight[q, slot] = cells.weight[i]
    return rows, weight


def add_group_parity(f: Formulation, cells: ParityCells, bound: float, z: str = "z", labels: str = "c") -> None:
    """Add the block (module docstring) to ``f`` for ``cells`` with ``delta = bound``; ``z`` (rows x leaves) and
    ``labels`` (classes x leaves; class 1 is the positive one) name the family's groups.

    Raises
    ------
    ValueError
        ``f`` has no such groups, or its rows are not the cells' rows.
    """
    if z not in f.variables or labels not in f.variables:
        raise ValueError(f"the parity block needs the groups {z!r} and {labels!r} of a leaf-labelled tree")
    Z, C = f.variables[z].columns, f.variables[labels].columns
    n, n_leaves = Z.shape
    if cells.member.shape[1] != n:
        raise ValueError(f"the parity cells hold {cells.member.shape[1]} rows; the formulation {n}")
    if C.shape[0] != 2:
        raise ValueError("a parity constraint needs two classes")
    totals = cells.totals
    f.add_set("FQ", safe_labels(cells.cell_labels()))
    m = f.add_variables("fair_m", ("FQ", "L"), 0.0, totals[:, None])
    rows, weight = _padded_members(cells)
    reach_cols = Z[rows].transpose(0, 2, 1)                                 # (cells, leaves, width)
    reach_coefs = np.broadcast_to(weight[:, None, :], reach_cols.shape)
    positive = np.broadcast_to(C[1][None, :], (cells.n_cells, n_leaves))
    total = np.broadcast_to(totals[:, None], (cells.n_cells, n_leaves))
    f.add_constraints("fair_reach", ("FQ", "L"), [(m.columns, 1.0), (reach_cols, -reach_coefs)], upper=0.0,
                      equation="fairness: m <= reach")
    f.add_constraints("fair_label", ("FQ", "L"), [(m.columns, 1.0), (positive, -total)], upper=0.0,
                      equation="fairness: m <= W c")
    f.add_constraints("fair_both", ("FQ", "L"), [(m.columns, 1.0), (reach_cols, -reach_coefs), (positive, -total)],
                      lower=-total.ravel(), equation="fairness: m >= reach - W (1 - c)")
    _rates_within(f, cells, bound, [(m.columns, np.broadcast_to(1.0 / totals[:, None], m.columns.shape))])


def _rates_within(f, cells: ParityCells, bound: float, rate_terms) -> None:
    """``fair_hi``, ``fair_lo`` and the rows ``lo <= rate <= hi``, ``hi - lo <= delta`` of every cell, the rates
    given as terms over the cells (``rate_terms``)."""
    f.add_set("FC", safe_labels(cells.condition_labels))                   # names an .lp / .mps file can hold
    f.add_set("FQ", safe_labels(cells.cell_labels()))
    hi = f.add_variables("fair_hi", ("FC",), 0.0, 1.0)
    lo = f.add_variables("fair_lo", ("FC",), 0.0, 1.0)
    f.add_constraints("fair_rate_hi", ("FQ",), rate_terms + [(hi.columns[cells.condition], -1.0)], upper=0.0,
                      equation="fairness: rate <= hi")
    f.add_constraints("fair_rate_lo", ("FQ",), rate_terms + [(lo.columns[cells.condition], -1.0)], lower=0.0,
                      equation="fairness: rate >= lo")
    f.add_constraints("fair_bound", ("FC",), [(hi.columns, 1.0), (lo.columns, -1.0)], upper=float(bound),
                      equation="fairness: hi - lo <= delta")


def add_row_parity(f: Formulation, cells: ParityCells, bound: float, positive) -> None:
    """The block of a family that predicts row by row (module docstring): ``positive`` is the binary group
    ``p[i]`` over the rows ``I``.

    Raises
    ------
    ValueError
        ``positive`` does not hold the cells' rows.
    """
    P = positive.columns
    if cells.member.shape[1] != P.size:
        raise ValueError(f"the parity cells hold {cells.member.shape[1]} rows; the formulation {P.size}")
    rows, weight = _padded_members(cells)
    _rates_within(f, cells, bound, [(P[rows], weight / cells.totals[:, None])])
