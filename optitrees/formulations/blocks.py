"""Shared building blocks of MILP tree formulations (seed 002, Ch. 3.2).

Each block adds named variable and constraint groups to a
:class:`~optitrees.mip.Formulation`, its rows written as expressions over the
index sets (:mod:`optitrees.mip.expressions`: no Python loop over data points
or features), and names the equations it implements:

============================  ======================================  ==========
block                         adds                                    equations
============================  ======================================  ==========
:func:`add_routing`           ``z[i, t]`` and ``routing[i]``           3.6
:func:`add_hyperplanes`       ``w[t, j]``, ``b[t]``                    --
:func:`add_l1_split`          ``w_pos``, ``w_neg``, ``l1_split``       3.16
:class:`Scores`               ``s[t, i] = y_i (w_t x_i + b_t)``        --
:func:`add_forwarding`        ``forward_left``, ``forward_right``      3.7
:func:`add_l0_indicators`     ``delta[t, j]``, ``l0_upper/lower``      3.14
:func:`forbid_features`       bounds ``w[t, j] = 0``                    --
============================  ======================================  ==========

The loss slacks of each layer (3.9, 3.13, 3.15) are in
:mod:`optitrees.formulations.loss_optimal.layer_slacks`; cuts added between solves (tangents
of ``w**2``, tangents of the logistic loss at a solution's margins) are in
:mod:`optitrees.formulations.cuts`.

Big-M values are derived from the data and the variable bounds, one per row:
with ``||w_t||_1 <= W`` (the ``l1_bound`` row) and ``|b_t| <= B`` the score of
point ``i`` is bounded by ``S_i = W ||x_i||_inf + B``, which is the ``M`` of its
forwarding rows.
"""

from __future__ import annotations

import numpy as np

from ..mip import Formulation, VariableGroup
from ..mip.expressions import Data
from . import tree_sets
from .feature_budget import FeatureUse
from .tree_sets import Side

__all__ = [
    "add_routing", "add_hyperplanes", "add_l1_split", "Scores", "add_forwarding", "add_l0_indicators",
    "forbid_features", "score_bounds",
 "oblique_skeleton_size"]


def add_routing(f: Formulation, n_points: int, targets, target_set: str = "T_last") -> VariableGroup:
    """Routing variables and one destination per point (3.6).

    Adds ``z[i, t]`` binary for ``i in I``, ``t in targets`` and the rows
    ``routing[i]: sum_t z[i, t] = 1`` (3.6a). With a single target (depth 1)
    ``z`` is fixed to 1.

    Returns
    -------
    VariableGroup
        ``z`` with shape ``(n_points, len(targets))``.
    """
    f.add_set("I", np.arange(n_points))
    f.add_set(target_set, targets)
    z = f.add_variables("z", ("I", target_set), 0.0, 1.0, domain="binary")
    f.add_constraints("routing", z.sum(target_set) == 1, equation="3.6a")
    return z


def add_hyperplanes(f: Formulation, nodes, features, weight_bound: float, intercept_bound: float):
    """Branching hyperplanes ``w[t, j]`` in ``[-W, W]`` and ``b[t]`` in ``[-B, B]``.

    ``features`` are the labels of the index set ``J`` (feature names, or
    ``range(p)``), so exported files read ``w(1,serum_sodium)``.

    Returns
    -------
    (VariableGroup, VariableGroup)
        ``w`` of shape ``(len(nodes), len(features))`` and ``b`` of shape ``(len(nodes),)``.
    """
    f.add_set("T", nodes)
    f.add_set("J", features)
    w = f.add_variables("w", ("T", "J"), -weight_bound, weight_bound)
    b = f.add_variables("b", ("T",), -intercept_bound, intercept_bound)
    return w, b


def add_l1_split(f: Formulation, w: VariableGroup, weight_bound: float, penalty=1.0):
    """l1 norm of each ``w_t`` by its positive and negative parts (3.16).

    Adds ``w_pos[t, j], w_neg[t, j] >= 0``, the rows
    ``l1_split[t, j]: w - w_pos + w_neg = 0`` (3.16a) and
    ``l1_bound[t]: sum_j (w_pos + w_neg) <= W``, the modelling bound from which
    the big-M values are derived (it plays the role of the seed's ``M = 100``).
    The objective gets ``penalty_t * sum_j (w_pos + w_neg)``, i.e.
    ``penalty_t * ||w_t||_1`` at the optimum.
    """
    wp = f.add_variables("w_pos", w.dims, 0.0, weight_bound)
    wn = f.add_variables("w_neg", w.dims, 0.0, weight_bound)
    f.add_constraints("l1_split", w - wp + wn == 0, equation="3.16a")
    f.add_constraints("l1_bound", (wp + wn).sum(w.dims[1]) <= weight_bound, equation="bound for big-M")
    pen = np.broadcast_to(np.asarray(penalty, float), (w.shape[0],))[:, None]
    f.add_objective(wp, np.broadcast_to(pen, w.shape))
    f.add_objective(wn, np.broadcast_to(pen, w.shape))
    return wp, wn


def score_bounds(X: np.ndarray, weight_bound: float, intercept_bound: float) -> np.ndarray:
    """``S_i = W ||x_i||_inf + B``: a bound on ``|w_t x_i + b_t|`` for every node."""
    return weight_bound * np.abs(X).max(axis=1, initial=0.0) + intercept_bound


class Scores:
    """The margins ``s[t, i] = y_i (w_t x_i + b_t)`` as expressions over ``("T", "I")``.

    With ``variables=True`` the block adds ``s[t, i]`` in ``[-S_i, S_i]`` and the
    rows ``score[t, i]: y_i (w_t x_i + b_t) - s[t, i] = 0`` once, so that every
    row using a margin (forwarding, tangents) has a single nonzero for it. With
    ``variables=False`` each such row carries the ``p + 1`` coefficients inline.
    Both give the same feasible set in ``(w, b, z, xi)``.

    Parameters
    ----------
    f : Formulation
    X : ndarray of shape (n_points, n_features)
    y : ndarray of shape (n_points,), values in {-1, +1}
    w, b : VariableGroup
        From :func:`add_hyperplanes`; ``w.shape[0]`` nodes.
    bound : ndarray of shape (n_points,)
        ``S_i`` from :func:`score_bounds`.
    variables : bool
    """

    def __init__(self, f, X, y, w, b, bound, variables=True):
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.w, self.b = w, b
        self.bound = bound
        self.variables = variables
        self.s = None
        if variables:
            self.s = f.add_variables("s", ("T", "I"), -bound[None, :], bound[None, :])
            f.add_constraints("score", self._inline_margin(np.arange(w.shape[0])) - self.s == 0,
                              equation="s = y (w x + b)")

    def _inline_margin(self, node_idx):
        """``y_i (w_t x_i + b_t)`` written out: ``y_i x_i`` once (not ``y_i`` times every product), then ``b``."""
        J = self.w.dims[1]
        return (self.w.isel(T=node_idx) * Data(self.y[:, None] * self.X, ("I", J))).sum(J) \
            + Data(self.y, ("I",)) * self.b.isel(T=node_idx)

    def margin(self, node_idx):
        """``s[t, i] = y_i (w_t x_i + b_t)`` of the nodes at positions ``node_idx`` of ``T`` (over ``("T", "I")``):
        the score variables, or the ``p + 1`` terms inline."""
        return self.s.isel(T=node_idx) if self.variables else self._inline_margin(node_idx)

    def value(self, node_idx):
        """``w_t x_i + b_t = y_i s[t, i]`` of the nodes at positions ``node_idx`` of ``T`` (``y_i = +-1``)."""
        return Data(self.y, ("I",)) * self.margin(node_idx)


def add_forwarding(f, topology, scores: Scores, z: VariableGroup, bound, eps):
    """Big-M forwarding constraints (3.7) at the inner nodes ``T \\ T_d``.

    ``forward_left[t, i]:  w_t x_i + b_t <= M_i (1 - sum_{s in T_d^l(t)} z[i, s])``   (3.7a)

    ``forward_right[t, i]: w_t x_i + b_t >= eps - M_i (1 - sum_{s in T_d^r(t)} z[i, s])``  (3.7b)

    with ``M_i = S_i`` for the left rows and ``S_i + eps`` for the right rows, the
    smallest values that leave a row slack when its subtree is not taken.
    ``w_t x_i + b_t`` is written as ``y_i s[t, i]`` (:meth:`Scores.value`).
    """
    inner = topology.inner_nodes
    if inner.size == 0:
        return
    f.add_set("T_inner", inner)
    targets = z.dims[1]
    value = scores.value(np.searchsorted(f.sets["T"], inner)).rename(T="T_inner")
    left = tree_sets.subtree(f, "T_inner", targets, Side.LEFT)           # T_d^l(t)
    right = tree_sets.subtree(f, "T_inner", targets, Side.RIGHT)         # T_d^r(t)
    M = Data(bound, ("I",))
    f.add_constraints("forward_left", value + M * (z * left).sum(targets) <= M, equation="3.7a")
    f.add_constraints("forward_right", value - (M + eps) * (z * right).sum(targets) >= eps - (M + eps),
                      equation="3.7b")


def add_l0_indicators(f, w: VariableGroup, weight_bound: float, budget=None, penalty=None):
    """l0 indicators of the weights (3.14) with a budget (HFS) and/or a penalty (SFS).

    Adds ``delta[t, j]`` binary and ``l0_upper[t, j]: w - W delta <= 0``,
    ``l0_lower[t, j]: w + W delta >= 0``. With ``budget`` it adds
    ``l0_budget[t]: sum_j delta[t, j] <= B_t`` (``B = 1`` gives univariate splits,
    Remark 2); with ``penalty`` the objective gets ``alpha_t sum_j delta[t, j]``.
    """
    d = f.add_variables("delta", w.dims, 0.0, 1.0, domain="binary")
    f.add_constraints("l0_upper", w - weight_bound * d <= 0, equation="3.14")
    f.add_constraints("l0_lower", w + weight_bound * d >= 0, equation="3.14")
    if budget is not None:
        per_node = Data(np.broadcast_to(np.asarray(budget, float), (w.shape[0],)), w.dims[:1])
        f.add_constraints("l0_budget", d.sum(w.dims[1]) <= per_node, equation="3.14")
    if penalty is not None:
        per_node = np.broadcast_to(np.asarray(penalty, float), (w.shape[0],))
        f.add_objective(d, np.broadcast_to(per_node[:, None], w.shape))
    return d


def indicated_weights(values: dict, weights: str = "w") -> np.ndarray:
    """The weights of a solution's ``values`` (``f.values(x)``) with every weight whose l0 indicator ``delta``
    (:func:`add_l0_indicators`) is off set to 0; without indicators, the weights as solved.

    A solver leaves such weights within its tolerance of 0 (HiGHS: near 1e-9). Kept in a decoded tree, a hyperplane
    would read more features than its budget, and a start built from the tree would count them as features.
    """
    w = values[weights]
    return w if "delta" not in values else np.where(values["delta"] > 0.5, w, 0.0)


def forbid_features(f, group: VariableGroup, features, axis: int = -1) -> None:
    """Fix ``group`` at 0 for the given feature positions along ``axis`` (``w[t, j] = 0``, ``a[j, t] = 0``).

    The hook behind the estimators' ``forbidden_features``: no split or rule may use them.
    """
    mask = np.zeros(group.shape, bool)
    index = [slice(None)] * len(group.shape)
    index[axis] = np.asarray(list(features), dtype=int)
    mask[tuple(index)] = True
    f.fix(group, 0.0, mask)


def monotone_hyperplanes(f, w: VariableGroup, topology, signs) -> None:
    """``monotonic_cst`` on hyperplanes whose last layer is the leaves' linear models: no split reads a constrained
    feature (``w[t, j] = 0`` at the inner nodes, so a point's route does not move with ``x_j``) and each leaf's
    model weighs it with the constraint's sign (``w[t, j] >= 0`` for +1, ``<= 0`` for -1), so its score or value
    moves the constraint's way. Every model of the MIP is then monotone
    (:func:`optitrees.monotonicity.check_monotonic` proves it)."""
    signs = np.asarray(signs)
    leaf = np.isin(topology.branch_nodes, topology.last_layer)[:, None]
    f.fix(w, 0.0, ~leaf & (signs != 0)[None, :])
    lower, upper = w.lower.reshape(w.shape), w.upper.reshape(w.shape)
    lower[leaf[:, 0][:, None] & (signs > 0)[None, :]] = 0.0
    upper[leaf[:, 0][:, None] & (signs < 0)[None, :]] = 0.0
    f.bounds_changed()


def hyperplane_feature_use(f, weight_bound: float) -> list[FeatureUse]:
    """The family's ``feature_use`` for hyperplanes ``w[t, j]`` (splits, and in the last layer the leaves' linear
    models): a hyperplane reads feature ``j`` when its l0 indicator ``delta[t, j]`` is on (3.14), or, without
    indicators, when ``w[t, j] != 0`` (``|w| <= W``)."""
    if "delta" in f.variables:
        return [FeatureUse(f.variables["delta"])]
    return [FeatureUse(f.variables["w"], weight_bound)]


def oblique_skeleton_size(n: int, p: int, depth: int) -> tuple[int, int]:
    """Rows and columns shared by the oblique trees: routing (3.6a), hyperplanes with their l1 split (3.16),
    margins ``s`` (one row each) and forwarding (3.7a-b) at the ``2^(d-1) - 1`` inner nodes."""
    t, targets, inner = 2**depth - 1, 2 ** (depth - 1), 2 ** (depth - 1) - 1
    cols = n * targets + t * p + t + 2 * t * p + t * n          # z, w, b, w_pos / w_neg, s
    rows = n + t * p + t + t * n + 2 * inner * n                # routing, l1_split, l1_bound, score, forwarding
    return rows, cols
