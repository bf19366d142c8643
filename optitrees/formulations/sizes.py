"""The size of a family's MIP, counted from its problem without building it.

Whether HiGHS is started on a model at all depends on the rows and columns of its root LP
(:func:`~optitrees.solvers.highs.root_lp_out_of_reach`). Building the groups to learn them costs what the model
costs: 3.4 s and 0.5 GB for OLCT at depth 3 on 30,000 rows of adult, most of a 10 s fit, for a model HiGHS is then
not given. These functions count the rows and columns of the model their family's ``build`` makes, before any cut
a cut loop adds, group by group in the order the builder adds them; the tests compare each with its builder over
every option.

Notation: ``N`` points (distinct rows), ``P`` features, depth ``d``, ``T = 2^d - 1`` branch nodes, ``T_d = 2^(d-1)``
nodes in the last branching layer (the routing targets of the oblique trees), ``2^d`` leaves (OCT).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .loss_optimal.layer_slacks import forwarded_layers
from .loss_optimal.model import SQUARE_POINTS, LossOptimalProblem
from .oblique_regression import RESIDUAL_POINTS, ObliqueRegressionProblem, RegressionLoss
from .oct.model import OCTProblem

__all__ = ["ModelSize", "loss_optimal_size", "oct_size", "oblique_regression_size"]


@dataclass(frozen=True)
class ModelSize:
    """Rows and columns of a model that was counted, not built."""

    n_rows: int
    n_cols: int

    def summary(self) -> str:
        """What the fit reports for a model it did not build."""
        return f"{self.n_cols} variables, {self.n_rows} rows (counted from the problem; the model was not built)"


def _oblique_skeleton(n: int, p: int, depth: int) -> tuple[int, int]:
    """Rows and columns shared by the oblique trees: routing (3.6a), hyperplanes with their l1 split (3.16),
    margins ``s`` (one row each) and forwarding (3.7a-b) at the ``2^(d-1) - 1`` inner nodes."""
    t, targets, inner = 2**depth - 1, 2 ** (depth - 1), 2 ** (depth - 1) - 1
    cols = n * targets + t * p + t + 2 * t * p + t * n          # z, w, b, w_pos / w_neg, s
    rows = n + t * p + t + t * n + 2 * inner * n                # routing, l1_split, l1_bound, score, forwarding
    return rows, cols


def loss_optimal_size(problem: LossOptimalProblem) -> ModelSize:
    """Rows and columns of :func:`~optitrees.formulations.loss_optimal.model.build` (3.12) for ``problem``.

    Beyond the skeleton: the squared l2 by tangents (``q`` and one cut per point of ``SQUARE_POINTS``), the l0
    indicators (3.14: ``delta``, two rows per weight and a budget row per node), ``s`` inlined when
    ``score_variables`` is off, and per loss one slack per point and layer with, per node of its layers, one row
    per tangent line (3.15) or one row (hinge 3.13, misclassification 3.9); a logistic layer with a forwarded
    margin (:func:`~optitrees.formulations.loss_optimal.layer_slacks.forwarded_layers`) has instead ``m[i, h]``,
    one link row per node and one row per line.
    """
    spec = problem.spec
    n, p = problem.data.X.shape
    t = 2**spec.depth - 1
    rows, cols = _oblique_skeleton(n, p, spec.depth)
    if not spec.score_variables:
        rows, cols = rows - t * n, cols - t * n
    if spec.regularizer == "l2" and spec.l2_method == "outer":
        cols += t * p
        rows += len(SQUARE_POINTS) * t * p
    if spec.feature_selection is not None:
        cols += t * p
        rows += 2 * t * p + (t if spec.budget is not None else 0)
    losses = np.asarray(spec.losses)
    layer_nodes = 2 ** np.arange(spec.depth)                    # nodes of layers 1..d
    for kind in set(spec.losses):
        mine = losses == kind
        lines = len(problem.lines.slopes) if kind == "logistic" else 1
        cols += n * int(mine.sum())
        ahead = np.zeros(spec.depth, bool)
        if kind == "logistic" and spec.forward_margins:      # m[i, h], a link row per node, the lines on m
            ahead[forwarded_layers(lines, np.flatnonzero(mine) + 1) - 1] = True
            cols += n * int(ahead.sum())
            rows += n * int(layer_nodes[ahead].sum()) + lines * n * int(ahead.sum())
        rows += lines * n * int(layer_nodes[mine & ~ahead].sum())
    return ModelSize(int(rows), int(cols))


def oct_size(problem: OCTProblem) -> ModelSize:
    """Rows and columns of :func:`~optitrees.formulations.oct.model.build` (OCT or OCT-H) for ``problem``.

    The skeleton: routing to the ``2^d`` leaves, ``leaf``, ``c``, ``loss`` and their rows (``sum_i z <= n leaf``
    per leaf, ``N_min``, one label, the loss per class and leaf); per branch node its split variables and
    rows (OCT: ``a``, ``b``, ``d``; OCT-H: ``w``, ``b``, ``d``, ``w_pos`` / ``w_neg``, ``delta`` and the mirror
    row), the hierarchy, and a left and a right split row per node and point.
    """
    spec = problem.spec
    n, p = problem.data.X.shape
    t, leaves, k = 2**spec.depth - 1, 2**spec.depth, spec.n_classes
    cols = n * leaves + leaves + k * leaves + leaves                     # z, leaf, c, loss
    rows = n + leaves + leaves + leaves + k * leaves                     # routing, leaf_used, min_leaf, label, loss
    if spec.oblique:
        cols += t * p + t + t + 2 * t * p + t * p                        # w, b, d, w_pos / w_neg, delta
        rows += t * p + t + 2 * t * p + t * p + t + 2 * t + t            # l1_split, l1_used, l0, used, node,
        #                                                                  b <= |d|, mirror
        rows += t if spec.max_features is not None else 0                # the budget row per split (3.14)
    else:
        cols += t * p + t + t                                            # a, b, d
        rows += 2 * t                                                    # one_feature, threshold_used
    rows += (t - 1) + 2 * t * n                                          # hierarchy, split_left / split_right
    return ModelSize(int(rows), int(cols))


def oblique_regression_size(problem: ObliqueRegressionProblem) -> ModelSize:
    """Rows and columns of :func:`~optitrees.formulations.oblique_regression.build` for ``problem``: the
    skeleton, ``e`` with two rows per point and leaf model (R1-R2), a mirror row per inner node and, for the
    squared loss by tangents (R3'),
    ``e_sq`` with one cut per point of ``RESIDUAL_POINTS``, and with a feature budget the l0 indicators (3.14)."""
    spec = problem.spec
    n, p = problem.data.X.shape
    rows, cols = _oblique_skeleton(n, p, spec.depth)
    cols += n
    rows += 2 * 2 ** (spec.depth - 1) * n + 2 ** (spec.depth - 1) - 1      # R1-R2, mirror at the inner nodes
    if spec.loss == RegressionLoss.SQUARED and not spec.quadratic:
        cols += n
        rows += len(RESIDUAL_POINTS) * n
    if spec.max_features is not None:                                      # delta, l0_upper / l0_lower, budget
        t = 2**spec.depth - 1
        cols += t * p
        rows += 2 * t * p + t
    return ModelSize(int(rows), int(cols))
