r"""Per-layer loss slacks of the oblique trees (seed 002, 3.9, 3.13, 3.15), on the node of each layer a point visits.

==========================================  =========================================  ==========
block                                       adds                                       equations
==========================================  =========================================  ==========
:func:`add_logistic_slacks`                 ``xi[i, h]``, ``logistic_tangent``          3.15
:func:`add_hinge_slacks`                    ``zeta[i, h]``, ``hinge``                   3.13
:func:`add_misclassification_slacks`        ``e[i, h]``, ``misclassification``          3.9
==========================================  =========================================  ==========

A convex piecewise-linear loss ``max_k (c_k + a_k s)`` is written on a point's margin ``s[t, i]`` at the node ``t``
of layer ``h`` it visits in one of two ways (:func:`add_layer_slacks`):

* **per node**: one row per node of the layer and line, deactivated by a big-M when the point goes elsewhere
  (``K 2^(h-1)`` rows per point, each carrying the ``2^(d-h)`` routing binaries below its node);
* **forwarded margin** (non-increasing losses, the logistic tangents): the margin at the visited node is forwarded
  once to a variable ``m[i, h] <= s[t, i] + M (1 - sum_{s in T_d(t)} z[i, s])`` (one big-M row per node) and the
  ``K`` lines are written on ``m[i, h]`` without big-M (``K + 2^(h-1)`` rows per point). As the loss does not
  increase with the margin, the optimum takes ``m`` at the visited node's margin, so both forms have the same
  optima; ``m`` is capped where the loss reaches its floor (:func:`floor_margin`), which keeps its big-M near the
  per-node rows'. :func:`forwarding_pays` says on which layers it makes the model smaller.
"""

from __future__ import annotations

import numpy as np

from ...mip import VariableGroup
from ...mip.expressions import Data
from ..blocks import Scores
from ..tangents import TangentLines
from .. import tree_sets

__all__ = ["add_layer_slacks", "add_logistic_slacks", "add_hinge_slacks", "add_misclassification_slacks",
           "forwarding_pays", "floor_margin", "forwarded_layers"]


def forwarding_pays(n_lines: int, n_nodes: int) -> bool:
    """Whether a layer of ``n_nodes`` nodes takes a loss of ``n_lines`` lines with a forwarded margin: not at the
    root (its rows carry no big-M) and where it has no more rows than the per-node form (``K + nodes <= K nodes``),
    so fewer nonzeros (each per-node row carries the routing binaries below its node).

    >>> forwarding_pays(16, 2), forwarding_pays(2, 2), forwarding_pays(1, 4), forwarding_pays(16, 1)
    (True, True, False, False)
    """
    return n_nodes > 1 and n_lines + n_nodes <= n_lines * n_nodes


def forwarded_layers(n_lines: int, layers) -> np.ndarray:
    """The 1-based ``layers`` (of a binary tree: ``2^(h-1)`` nodes on layer ``h``) on which a loss of ``n_lines``
    non-increasing lines takes a forwarded margin (:func:`forwarding_pays`)."""
    layers = np.asarray(layers, int)
    return layers[[forwarding_pays(n_lines, 2 ** (h - 1)) for h in layers]].astype(int)


def floor_margin(slopes, intercepts) -> float:
    """The least margin from which every line ``c_k + a_k v`` with ``a_k < 0`` is at most 0, so the slack is at its
    lower bound 0 there: ``max_k c_k / |a_k|`` (``-inf`` without a decreasing line).

    >>> from optitrees.formulations.tangents import logistic_tangents
    >>> round(floor_margin(logistic_tangents("V0").slopes, logistic_tangents("V0").intercepts), 4)   # 2 log 2
    1.3863
    """
    slopes, intercepts = np.asarray(slopes, float), np.asarray(intercepts, float)
    down = slopes < 0
    return float(np.max(intercepts[down] / -slopes[down])) if down.any() else -np.inf


def _layer_slack_variables(f, topology, layers, var, C, binary=False, point_weight=None):
    """Slack group ``var[i, h]`` over chosen layers, weighted ``C_h`` (times ``point_weight[i]``) in the objective.

    Declares ``H``/``T`` for the full range of layers, otherwise ``H_<var>`` and
    ``T_<var>`` (the layers and their branch nodes).

    Returns
    -------
    (VariableGroup, layers, h_set, t_set, node_idx, nodes)
        ``node_idx`` are the positions of ``nodes`` in the set ``T``.
    """
    depth = topology.depth
    layers = np.arange(1, depth + 1) if layers is None else np.asarray(layers, int)
    full_range = len(layers) == depth
    h_set = "H" if full_range else f"H_{var}"
    t_set = "T" if full_range else f"T_{var}"
    f.add_set(h_set, layers)
    all_nodes = f.sets["T"]
    node_idx = np.flatnonzero(np.isin(topology.layer_of(all_nodes), layers))
    nodes = f.add_set(t_set, all_nodes[node_idx])
    if binary:
        slack = f.add_variables(var, ("I", h_set), 0.0, 1.0, domain="binary")
    else:
        slack = f.add_variables(var, ("I", h_set), 0.0, np.inf)
    coef = np.asarray(C, float)[layers - 1][None, :]
    if point_weight is not None:
        coef = np.asarray(point_weight, float)[:, None] * coef
    f.add_objective(slack, np.broadcast_to(coef, slack.shape))
    return slack, layers, h_set, t_set, node_idx, nodes


def add_layer_slacks(f, topology, scores: Scores, z: VariableGroup, slopes, intercepts, C, *, var="xi",
                     layers=None, row_name="logistic_tangent", labels=None, equation="3.15", point_weight=None,
                     forward=False):
    """Convex piecewise-linear slacks ``var[i, h] >= max_k (c_k + a_k s[t, i])`` on chosen layers.

    The common form of the logistic tangent slacks (3.15) and of the hinge
    slacks (3.13, a single line ``1 - s``). Adds ``var[i, h] >= 0`` over the
    layers ``h`` in ``layers`` with objective weight ``C_h`` and, for every branch
    node ``t`` of those layers and every line ``k``:

    ``row_name[t, k, i]: var[i, h] >= c_k + a_k s[t, i] - M_ik (1 - sum_{s in T_d(t)} z[i, s])``

    with ``M_ik = max(0, c_k + |a_k| S_i)``, the smallest value that deactivates
    the row. At the root ``sum z = 1`` by (3.6a), so its rows carry no big-M
    term. With ``labels=None`` (one line) the rows are indexed ``(t, i)``.

    Parameters
    ----------
    slopes, intercepts : array of shape (K,)
        ``a_k`` and ``c_k``.
    C : array of shape (depth,)
        Loss weight ``C_h`` per layer.
    point_weight : array of shape (n,), optional
        Each point's weight: its slack costs ``C_h point_weight[i]`` (a weighted loss; default 1).
    var : str
        Name of the slack group (``xi`` logistic, ``zeta`` hinge).
    layers : array of int, optional
        1-based layers carrying this loss; default all. Sets ``H`` and ``T``
        name the full ranges, otherwise ``H_<var>`` and ``T_<var>`` are declared.
    forward : bool
        Forward the visited node's margin to ``<var>_margin[i, h]`` on the layers where
        :func:`forwarding_pays` (the lines must not increase: ``a_k <= 0``); see the module's docstring. The
        per-node rows of the other layers are then indexed by the set ``T_<row_name>``.
    """
    slack, layers, h_set, t_set, node_idx, nodes = _layer_slack_variables(f, topology, layers, var, C,
                                                                          point_weight=point_weight)
    node_layer = topology.layer_of(f.sets["T"])

    slopes = np.asarray(slopes, float)
    intercepts = np.asarray(intercepts, float)
    if labels is not None:
        f.add_set("V", labels)
    if forward:
        if np.any(slopes > 0):
            raise ValueError("a forwarded margin needs lines that do not increase with it (slopes <= 0)")
        ahead = forwarded_layers(len(slopes), layers)
        if ahead.size:
            _add_forwarded_rows(f, topology, scores, z, slack, layers, ahead, slopes, intercepts, var, row_name,
                                labels, equation)
            direct = ~np.isin(topology.layer_of(nodes), ahead)
            if not direct.any():
                return slack
            node_idx, nodes = node_idx[direct], f.add_set(f"T_{row_name}", nodes[direct])
            t_set = f"T_{row_name}"
    targets = z.dims[1]
    below = tree_sets.subtree(f, t_set, targets)                         # T_d(t)
    full = below.values.all(axis=1)                                      # rows without big-M
    # M[t, k, i] = max(0, c_k + |a_k| S_i): 0 at the nodes every point passes
    M = np.maximum(0.0, intercepts[None, :, None] + np.abs(slopes)[None, :, None] * scores.bound[None, None, :])
    M = Data(np.where(full[:, None, None], 0.0, M), (t_set, "V", "I"))
    at_layer = np.searchsorted(layers, node_layer[node_idx])[:, None] == np.arange(len(layers))[None, :]
    slack_at_node = (slack * Data(at_layer, (t_set, h_set))).sum(h_set)
    margin = scores.margin(node_idx).rename(T=t_set)
    a, c = Data(slopes, ("V",)), Data(intercepts, ("V",))
    rows = slack_at_node - a * margin - M * (z * below).sum(targets) >= c - M
    if labels is None and len(slopes) != 1:
        raise ValueError("labels are needed for more than one line")
    rows = rows.isel(V=0).transpose(t_set, "I") if labels is None else rows.transpose(t_set, "V", "I")
    f.add_constraints(row_name, rows, equation=equation)
    return slack


def _add_forwarded_rows(f, topology, scores: Scores, z: VariableGroup, slack, layers, ahead, slopes, intercepts,
                        var, row_name, labels, equation):
    """The forwarded form on layers ``ahead`` (a subset of the slack's ``layers``): ``m = <var>_margin[i, h]`` in
    ``[-S_i, min(S_i, v*)]``, ``v*`` the :func:`floor_margin`,

    ``<var>_margin_link[t, i]: m[i, h] - s[t, i] <= M_i (1 - sum_{s in T_d(t)} z[i, s])``, ``M_i = min(S_i, v*) + S_i``
    for every node ``t`` of those layers, and ``<row_name>_forwarded[h, k, i]: <var>[i, h] >= c_k + a_k m[i, h]``."""
    S = np.asarray(scores.bound, float)
    top = np.clip(floor_margin(slopes, intercepts), -S, S)                   # (n,)
    h_set = f"H_{var}_forwarded"
    ahead_layers = f.add_set(h_set, ahead)
    m = f.add_variables(f"{var}_margin", ("I", h_set), -S[:, None], top[:, None])
    all_nodes = f.sets["T"]
    node_idx = np.flatnonzero(np.isin(topology.layer_of(all_nodes), ahead))
    t_set = f"T_{var}_forwarded"
    nodes = f.add_set(t_set, all_nodes[node_idx])
    targets = z.dims[1]
    below = tree_sets.subtree(f, t_set, targets)                                              # T_d(t)
    M = Data(top + S, ("I",))
    at_layer = np.searchsorted(ahead_layers, topology.layer_of(nodes))[:, None] == np.arange(len(ahead))[None, :]
    m_at_node = (m * Data(at_layer, (t_set, h_set))).sum(h_set)
    link = m_at_node - scores.margin(node_idx).rename(T=t_set) + M * (z * below).sum(targets) <= M
    f.add_constraints(f"{var}_margin_link", link.transpose(t_set, "I"), equation=f"{equation}, margin forwarded")
    # rows ordered (h, k, i)
    on_ahead = slack.sel(**{slack.dims[1]: list(ahead)}).rename(**{slack.dims[1]: h_set})
    rows = on_ahead - Data(slopes, ("V",)) * m >= Data(intercepts, ("V",))
    rows = rows.isel(V=0).transpose(h_set, "I") if labels is None else rows.transpose(h_set, "V", "I")
    f.add_constraints(f"{row_name}_forwarded", rows, equation=equation)


def add_logistic_slacks(f, topology, scores: Scores, z: VariableGroup, lines: TangentLines, C, layers=None,
                        point_weight=None, forward=True):
    """Logistic-loss slacks ``xi[i, h]`` by the tangent lines of ``lines`` (3.15).

    See :func:`add_layer_slacks`; the line at ``+inf`` is the bound ``xi >= 0``
    and the line at ``-inf`` is ``xi >= -s``. The loss does not increase with the margin, so by default the
    margin is forwarded on the layers where that makes the model smaller (``forward``).
    """
    return add_layer_slacks(f, topology, scores, z, lines.slopes, lines.intercepts, C, var="xi", layers=layers,
                            row_name="logistic_tangent", labels=lines.labels, equation="3.15",
                            point_weight=point_weight, forward=forward)


def add_hinge_slacks(f, topology, scores: Scores, z: VariableGroup, C, layers=None, point_weight=None):
    """Hinge-loss slacks ``zeta[i, h] >= max(0, 1 - s[t, i])`` on the node of layer ``h`` a point visits (3.13)."""
    return add_layer_slacks(f, topology, scores, z, [-1.0], [1.0], C, var="zeta", layers=layers,
                            row_name="hinge", labels=None, equation="3.13", point_weight=point_weight)


def add_misclassification_slacks(f, topology, scores: Scores, z: VariableGroup, C, eps, layers=None,
                                 point_weight=None):
    """Misclassification indicators ``e[i, h]`` binary (3.9, written on the margins).

    For every node ``t`` of a chosen layer ``h``:

    ``misclassification[t, i]: s[t, i] + M_i e[i, h] >= eps - M_i (1 - sum_{s in T_d(t)} z[i, s])``

    with ``M_i = S_i + eps``: a point that reaches ``t`` and has ``e = 0`` is on
    its class's side with margin ``eps`` (``y_i (w_t x_i + b_t) >= eps``). This is
    (3.9a-c) with ``yhat_i = y_i (1 - 2 e_i)`` substituted, so ``xi = e``; the
    margin ``eps`` (the forwarding margin of 3.7b) keeps ``w = 0, b = 0`` from
    classifying every point "correctly" on the boundary, as ``yhat`` may do in
    (3.9a-b).
    """
    e, layers, h_set, t_set, node_idx, nodes = _layer_slack_variables(f, topology, layers, "e", C, binary=True,
                                                                      point_weight=point_weight)
    node_layer = topology.layer_of(f.sets["T"])
    targets = z.dims[1]
    below = tree_sets.subtree(f, t_set, targets)                         # T_d(t)
    full = below.values.all(axis=1)
    M = Data(scores.bound + eps, ("I",))
    Mz = Data(np.where(full[:, None], 0.0, scores.bound[None, :] + eps), (t_set, "I"))
    at_layer = np.searchsorted(layers, node_layer[node_idx])[:, None] == np.arange(len(layers))[None, :]
    e_at_node = (e * Data(at_layer, (t_set, h_set))).sum(h_set)
    rows = (M * e_at_node + scores.margin(node_idx).rename(T=t_set)
            - Mz * (z * below).sum(targets) >= eps - Mz)
    f.add_constraints("misclassification", rows.transpose(t_set, "I"), equation="3.9")
    return e
