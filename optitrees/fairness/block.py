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
from ..mip.expressions import Data
from ..mip.linearize import add_binary_product
from .cells import ParityCells

__all__ = ["add_group_parity", "add_row_parity", "GROUPS"]

#: The variable groups the block adds.
GROUPS = ("fair_m", "fair_hi", "fair_lo")


def _shares(cells: ParityCells, per_total: bool) -> Data:
    """Each row's weight in each cell (``v_i``, or ``v_i / W_q`` with ``per_total``), zero outside it, over
    ``("FQ", "I")``."""
    weight = cells.member * cells.weight[None, :]
    return Data(weight / cells.totals[:, None] if per_total else weight, ("FQ", "I"))


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
    routing, label = f.variables[z], f.variables[labels]
    if cells.member.shape[1] != routing.shape[0]:
        raise ValueError(f"the parity cells hold {cells.member.shape[1]} rows; the formulation {routing.shape[0]}")
    if label.shape[0] != 2:
        raise ValueError("a parity constraint needs two classes")
    totals = cells.totals
    f.add_set("FQ", safe_labels(cells.cell_labels()))
    leaves = routing.dims[1]
    reach = (routing * _shares(cells, per_total=False)).sum("I").transpose("FQ", leaves)
    W, positive = Data(totals, ("FQ",)), label.isel(**{label.dims[0]: 1})
    m = add_binary_product(f, "fair_m", reach, positive, W, rows=("fair_reach", "fair_label", "fair_both"),
                           equation="fairness, m = reach c")
    _rates_within(f, cells, bound, (m * Data(1.0 / totals, ("FQ",))).sum(leaves))


def _rates_within(f, cells: ParityCells, bound: float, rate) -> None:
    """``fair_hi``, ``fair_lo`` and the rows ``lo <= rate <= hi``, ``hi - lo <= delta`` of every cell, the rates
    an expression over the cells ``FQ``."""
    f.add_set("FC", safe_labels(cells.condition_labels))                   # names an .lp / .mps file can hold
    f.add_set("FQ", safe_labels(cells.cell_labels()))
    hi = f.add_variables("fair_hi", ("FC",), 0.0, 1.0)
    lo = f.add_variables("fair_lo", ("FC",), 0.0, 1.0)
    of_cell = Data(cells.condition[:, None] == np.arange(cells.n_conditions)[None, :], ("FQ", "FC"))
    f.add_constraints("fair_rate_hi", rate - (hi * of_cell).sum("FC") <= 0, equation="fairness: rate <= hi")
    f.add_constraints("fair_rate_lo", rate - (lo * of_cell).sum("FC") >= 0, equation="fairness: rate >= lo")
    f.add_constraints("fair_bound", hi - lo <= float(bound), equation="fairness: hi - lo <= delta")


def add_row_parity(f: Formulation, cells: ParityCells, bound: float, positive) -> None:
    """The block of a family that predicts row by row (module docstring): ``positive`` is the binary group
    ``p[i]`` over the rows ``I``.

    Raises
    ------
    ValueError
        ``positive`` does not hold the cells' rows.
    """
    if cells.member.shape[1] != positive.size:
        raise ValueError(f"the parity cells hold {cells.member.shape[1]} rows; the formulation {positive.size}")
    f.add_set("FQ", safe_labels(cells.cell_labels()))
    _rates_within(f, cells, bound, (positive * _shares(cells, per_total=True)).sum("I"))
