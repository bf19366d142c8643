r"""Optimal classification trees of Bertsimas & Dunn (2017): OCT (axis-aligned) and OCT-H (oblique).

The baseline of seed 002 (3.11 with the misclassification loss and leaf labels).
Features are scaled to ``[0, 1]`` by the caller; ``K`` classes, depth ``D``,
branch nodes ``T_B`` (1-based, breadth first) and leaves ``T_L``::

    min  (1 / L_hat) sum_{l in T_L} loss[l]  +  alpha * complexity
    s.t. sum_{l in T_L} z[i, l] = 1                                     i        (routing)
         z[i, l] <= leaf[l],  sum_i z[i, l] >= N_min leaf[l]              i, l     (leaf size)
         sum_k c[k, l] = leaf[l]                                          l        (one label per used leaf)
         loss[l] >= N_l - N_kl - n (1 - c[k, l]),  loss >= 0               k, l     (misclassified points)
         d[t] <= d[parent(t)]                                              t != 1   (splits form a tree)

with ``N_l = sum_i z[i, l]`` and ``N_kl = sum_{i: y_i = k} z[i, l]``, and the
split constraints aggregated over each subtree (as in 3.7) rather than written
per leaf ancestor (an equivalent, smaller form):

OCT (``a[t, j]`` binary, ``sum_j a[t, j] = d[t]``, ``0 <= b[t] <= d[t]``)::

    a_t (x_i + eps) + eps_min (1 - d[t]) <= b[t] + (1 + eps_max)(1 - sum_{l in L(t)} z[i, l])   (left)
    a_t x_i >= b[t] - (1 - sum_{l in R(t)} z[i, l])                                             (right)

with the per-feature ``eps_j``, the smallest gap between distinct values of
feature ``j``; complexity ``= sum_t d[t]``. The term ``eps_min (1 - d[t])`` is
ours: in the published model ``a_t = 0, b_t = 0`` satisfies both the left and
the right constraint, so an unused node could send points either way while
the fitted tree sends them all right; with it, an unused node sends every
point right, as the prediction does.

OCT-H (``a[t, j]`` in ``[-1, 1]`` with ``||a_t||_1 <= d[t]``, indicators
``delta[t, j]`` (3.14) with ``delta <= d``, ``sum_j delta[t, j] >= d[t]``,
``-d[t] <= b[t] <= d[t]``)::

    a_t x_i + mu <= b[t] + (2 + mu)(1 - sum_{l in L(t)} z[i, l])                               (left)
    a_t x_i >= b[t] - 2 (1 - sum_{l in R(t)} z[i, l])                                          (right)

with ``mu = 0.005``; complexity ``= sum_{t, j} delta[t, j]`` (features used).
Here ``mu`` already forbids the left branch at an unused node.
"""

from __future__ import annotations

import numpy as np

from ..topology import Topology
from ..tree import LabelTree
from .model import Formulation, timed_build
from . import blocks

__all__ = ["oct", "octh", "feature_epsilons", "decode_label_tree", "start_from_label_tree"]

#: OCT-H's split margin (Bertsimas & Dunn use 0.005).
OCTH_MU = 0.005


def feature_epsilons(X01) -> np.ndarray:
    """Smallest positive gap between distinct values of each feature (1 for a constant feature)."""
    X01 = np.asarray(X01, float)
    s = np.sort(X01, axis=0)
    gaps = np.diff(s, axis=0)
    gaps = np.where(gaps > 1e-12, gaps, np.inf)
    eps = gaps.min(axis=0, initial=np.inf)
    return np.where(np.isfinite(eps), eps, 1.0)


def _check(X01, y, depth, alpha, min_samples_leaf):
    X01 = np.asarray(X01, float)
    y = np.asarray(y)
    if X01.ndim != 2 or X01.shape[0] == 0 or X01.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X01.shape}")
    if not np.all(np.isfinite(X01)):
        raise ValueError("X contains NaN or infinite values")
    if X01.min() < -1e-9 or X01.max() > 1 + 1e-9:
        raise ValueError("OCT formulations take features scaled to [0, 1] (the estimators scale them)")
    if y.shape != (X01.shape[0],) or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
        raise ValueError("y must hold class indices 0..K-1, one per row of X")
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    if not (np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be finite and non-negative, got {alpha!r}")
    if not isinstance(min_samples_leaf, (int, np.integer)) or min_samples_leaf < 1:
        raise ValueError(f"min_samples_leaf must be an integer >= 1, got {min_samples_leaf!r}")
    if min_samples_leaf > X01.shape[0]:
        raise ValueError(f"min_samples_leaf={min_samples_leaf} exceeds the number of points ({X01.shape[0]})")
    return np.clip(X01, 0.0, 1.0), y.astype(int)


def _inline_split_terms(w, X, node_idx, extra=None):
    """Terms of ``sum_j w[t, j] (x_ij + extra_j)`` for rows ordered ``(t, i)``."""
    n, p = X.shape
    k = len(node_idx)
    cols = np.broadcast_to(w.columns[node_idx][:, None, :], (k, n, p)).reshape(k * n, p)
    vals = X if extra is None else X + extra[None, :]
    return [(cols, np.broadcast_to(vals[None], (k, n, p)).reshape(k * n, p))]


def _tree_skeleton(f, X, y, topo, min_samples_leaf, n_classes):
    n = X.shape[0]
    leaves = topo.leaves
    z = blocks.add_routing(f, n, leaves, target_set="L")
    f.add_set("K", np.arange(n_classes))
    leaf = f.add_variables("leaf", ("L",), 0.0, 1.0, domain="binary")
    c = f.add_variables("c", ("K", "L"), 0.0, 1.0, domain="binary")
    loss = f.add_variables("loss", ("L",), 0.0, float(n))
    f.add_constraints("leaf_used", ("I", "L"), [(z.columns, 1.0), (np.broadcast_to(leaf.columns, z.shape), -1.0)],
                      upper=0.0, equation="z <= leaf")
    f.add_constraints("min_leaf", ("L",), [(z.columns.T, 1.0), (leaf.columns, -float(min_samples_leaf))],
                      lower=0.0, equation="N_l >= N_min leaf")
    f.add_constraints("leaf_label", ("L",), [(c.columns.T, 1.0), (leaf.columns, -1.0)], lower=0.0, upper=0.0,
                      equation="sum_k c = leaf")
    # loss[l] - N_l + N_kl - n c[k, l] >= -n, rows (k, l); z terms: coefficient -1 + [y_i == k]
    L = len(leaves)
    zc = np.broadcast_to(z.columns.T[None], (n_classes, L, n)).reshape(n_classes * L, n)
    zv = np.broadcast_to((-1.0 + (y[None, :] == np.arange(n_classes)[:, None]))[:, None, :],
                         (n_classes, L, n)).reshape(n_classes * L, n)
    f.add_constraints("leaf_loss", ("K", "L"),
                      [(np.tile(loss.columns, n_classes), 1.0), (zc, zv), (c.columns.ravel(), -float(n))],
                      lower=-float(n), equation="loss >= N_l - N_kl - n (1 - c)")
    return z, leaf, c, loss


def _hierarchy(f, topo, d):
    nodes = topo.branch_nodes
    if len(nodes) > 1:
        f.add_set("T_child", nodes[1:])
        f.add_constraints("hierarchy", ("T_child",), [(d.columns[1:], 1.0), (d.columns[nodes[1:] // 2 - 1], -1.0)],
                          upper=0.0, equation="d_t <= d_parent")


def _baseline(y, n_classes):
    counts = np.bincount(y, minlength=n_classes)
    base = len(y) - counts.max()
    return float(base) if base > 0 else 1.0


def _add_split_rows(f, topo, w, b, z, X, left_extra, left_M, left_upper, right_M, unused=None):
    """Split rows of every branch node for every point, aggregated over the subtrees.

    ``split_left[t, i]:  w_t (x_i + left_extra) - b_t [+ c d_t] + left_M sum_{l in L(t)} z[i, l] <= left_upper``

    ``split_right[t, i]: w_t x_i - b_t - right_M sum_{l in R(t)} z[i, l] >= -right_M``

    ``unused=(d, c)`` adds the term ``c d_t`` to the left rows.
    """
    T, n = len(topo.branch_nodes), X.shape[0]
    idx = np.arange(T)
    left = topo.left_mask(topo.leaves, topo.branch_nodes).astype(float)
    right = topo.right_mask(topo.leaves, topo.branch_nodes).astype(float)
    bterm = [(np.repeat(b.columns, n), -1.0)]
    extra = [] if unused is None else [(np.repeat(unused[0].columns, n), unused[1])]
    f.add_constraints("split_left", ("T", "I"),
                      _inline_split_terms(w, X, idx, left_extra) + bterm + extra
                      + blocks._subset_sum_terms(z, left, np.full((T, n), float(left_M))),
                      upper=float(left_upper), equation="B&D left, aggregated")
    f.add_constraints("split_right", ("T", "I"),
                      _inline_split_terms(w, X, idx) + bterm
                      + blocks._subset_sum_terms(z, right, np.full((T, n), -float(right_M))),
                      lower=-float(right_M), equation="B&D right, aggregated")


@timed_build
def oct(X01, y, depth: int = 2, alpha: float = 0.0, min_samples_leaf: int = 1, n_classes: int | None = None
        ) -> Formulation:
    """Axis-aligned OCT (Bertsimas & Dunn 2017) on features scaled to ``[0, 1]``.

    Parameters
    ----------
    X01 : array of shape (n, p), values in [0, 1]
    y : array of int of shape (n,)
        Class indices ``0..K-1``.
    depth : int, default=2
    alpha : float, default=0.0
        Complexity weight: ``alpha`` per split used.
    min_samples_leaf : int, default=1
        ``N_min``: a leaf holding points holds at least this many.
    n_classes : int, optional
        ``K``; default ``max(y) + 1``.

    Returns
    -------
    Formulation
        ``meta`` holds the data, topology, ``eps_j``, ``L_hat`` and ``kind="oct"``.
    """
    X01, y = _check(X01, y, depth, alpha, min_samples_leaf)
    K = int(y.max() + 1 if n_classes is None else n_classes)
    topo = Topology(int(depth))
    n, p = X01.shape
    eps = feature_epsilons(X01)
    eps_max, eps_min = float(eps.max()), float(eps.min())
    L_hat = _baseline(y, K)

    f = Formulation(name=f"oct_d{topo.depth}", integrality_tol=1e-6)
    z, leaf, c, loss = _tree_skeleton(f, X01, y, topo, int(min_samples_leaf), K)
    f.add_set("T", topo.branch_nodes)
    f.add_set("J", np.arange(p))
    a = f.add_variables("a", ("T", "J"), 0.0, 1.0, domain="binary")
    b = f.add_variables("b", ("T",), 0.0, 1.0)
    d = f.add_variables("d", ("T",), 0.0, 1.0, domain="binary")
    f.add_constraints("one_feature", ("T",), [(a.columns, 1.0), (d.columns, -1.0)], lower=0.0, upper=0.0,
                      equation="sum_j a = d")
    f.add_constraints("threshold_used", ("T",), [(b.columns, 1.0), (d.columns, -1.0)], upper=0.0,
                      equation="b <= d")
    _hierarchy(f, topo, d)
    Ml = 1.0 + eps_max
    _add_split_rows(f, topo, a, b, z, X01, left_extra=eps, left_M=Ml, left_upper=Ml - eps_min, right_M=1.0,
                    unused=(d, -eps_min))
    f.add_objective(loss, 1.0 / L_hat)
    f.add_objective(d, float(alpha))
    f.meta.update(kind="oct", X=X01, y=y, topology=topo, n_classes=K, eps=eps, L_hat=L_hat, alpha=float(alpha),
                  min_samples_leaf=int(min_samples_leaf), margin=eps_min)
    return f


@timed_build
def octh(X01, y, depth: int = 2, alpha: float = 0.0, min_samples_leaf: int = 1, n_classes: int | None = None,
         mu: float = OCTH_MU) -> Formulation:
    """Oblique OCT-H (Bertsimas & Dunn 2017) on features scaled to ``[0, 1]``.

    Parameters are those of :func:`oct`; ``alpha`` weighs the number of
    features used over all splits, ``mu`` is the left-branch margin.
    """
    X01, y = _check(X01, y, depth, alpha, min_samples_leaf)
    if not 0 < mu < 1:
        raise ValueError("mu must be in (0, 1)")
    K = int(y.max() + 1 if n_classes is None else n_classes)
    topo = Topology(int(depth))
    n, p = X01.shape
    L_hat = _baseline(y, K)

    f = Formulation(name=f"octh_d{topo.depth}", integrality_tol=1e-6)
    z, leaf, c, loss = _tree_skeleton(f, X01, y, topo, int(min_samples_leaf), K)
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, p, 1.0, 1.0)
    d = f.add_variables("d", ("T",), 0.0, 1.0, domain="binary")
    wp = f.add_variables("w_pos", w.dims, 0.0, 1.0)
    wn = f.add_variables("w_neg", w.dims, 0.0, 1.0)
    f.add_constraints("l1_split", w.dims, [(w.columns, 1.0), (wp.columns, -1.0), (wn.columns, 1.0)],
                      lower=0.0, upper=0.0, equation="3.16a")
    f.add_constraints("l1_used", ("T",), [(wp.columns, 1.0), (wn.columns, 1.0), (d.columns, -1.0)], upper=0.0,
                      equation="||a_t||_1 <= d_t")
    delta = blocks.add_l0_indicators(f, w, 1.0, penalty=float(alpha))
    f.add_constraints("feature_used", w.dims, [(delta.columns, 1.0), (np.repeat(d.columns, p), -1.0)], upper=0.0,
                      equation="delta <= d")
    f.add_constraints("node_features", ("T",), [(delta.columns, 1.0), (d.columns, -1.0)], lower=0.0,
                      equation="sum_j delta >= d")
    f.add_constraints("intercept_used", ("T",), [(b.columns, 1.0), (d.columns, -1.0)], upper=0.0, equation="b <= d")
    f.add_constraints("intercept_used_neg", ("T",), [(b.columns, 1.0), (d.columns, 1.0)], lower=0.0,
                      equation="b >= -d")
    _hierarchy(f, topo, d)
    _add_split_rows(f, topo, w, b, z, X01, left_extra=None, left_M=2.0 + mu, left_upper=2.0, right_M=2.0)
    f.add_objective(loss, 1.0 / L_hat)
    f.meta.update(kind="octh", X=X01, y=y, topology=topo, n_classes=K, L_hat=L_hat, alpha=float(alpha),
                  min_samples_leaf=int(min_samples_leaf), margin=float(mu))
    return f


def _split_weights(f, v):
    return v["a"] if f.meta["kind"] == "oct" else v["w"]


def decode_label_tree(f: Formulation, x) -> tuple[LabelTree, np.ndarray]:
    """Tree (in ``[0, 1]`` units) and leaf of each training point from a solution vector.

    The tree sends a point right when ``a_t x >= threshold_t``: for OCT-H
    ``threshold = b_t - mu / 2``; for OCT the midpoint between ``b_t`` and the
    largest training value of the split feature below it (as CART reports
    thresholds). Either routes every training point as the MIP's constraints
    do, with room to spare.
    """
    v = f.values(x)
    meta = f.meta
    active = v["d"] > 0.5
    W = np.where(active[:, None], _split_weights(f, v), 0.0)
    if meta["kind"] == "oct":
        W = np.round(W)
    thr = np.where(active, v["b"] - meta["margin"] / 2, 0.0)
    if meta["kind"] == "oct":
        # midway between b and the largest training value of the feature below it, as CART reports
        X = meta["X"]
        for t in np.flatnonzero(active):
            col = X[:, int(np.argmax(W[t]))]
            below = col[col <= v["b"][t] - meta["eps"][int(np.argmax(W[t]))] / 2]
            if below.size:
                thr[t] = (below.max() + v["b"][t]) / 2
    routing = f.sets["L"][np.argmax(v["z"], axis=1)]
    labels = np.argmax(v["c"], axis=0)
    tree = LabelTree(W, thr, active, labels, meta["n_classes"])
    tree = tree.with_counts(meta["X"], meta["y"])
    return tree, routing


def start_from_label_tree(f: Formulation, weights, b, active) -> np.ndarray:
    """Complete assignment of every variable for splits ``right iff a_t x >= b_t`` at active nodes.

    Leaves get their majority class; the caller makes sure the splits respect
    the margins (``eps_j`` / ``mu``) and ``N_min`` for the start to be feasible
    (``solve`` checks it and drops an infeasible start with a warning).
    """
    meta = f.meta
    X, y, K = meta["X"], meta["y"], meta["n_classes"]
    weights = np.asarray(weights, float)
    active = np.asarray(active, bool)
    b = np.where(active, np.asarray(b, float), 0.0)
    W = np.where(active[:, None], weights, 0.0)
    probe = LabelTree(W, b, active, np.zeros(len(meta["topology"].leaves), int), K)
    leaf_of = probe.apply(X)
    leaves = f.sets["L"]
    z = (leaf_of[:, None] == leaves[None, :]).astype(float)
    counts = np.stack([z[y == k].sum(axis=0) for k in range(K)])         # (K, L)
    used = counts.sum(axis=0) > 0
    label = np.argmax(counts, axis=0)
    c = np.zeros((K, len(leaves)))
    c[label[used], np.flatnonzero(used)] = 1.0
    loss = counts.sum(axis=0) - counts.max(axis=0)
    values = {"z": z, "leaf": used.astype(float), "c": c, "loss": loss, "d": active.astype(float), "b": b}
    if meta["kind"] == "oct":
        values["a"] = W
    else:
        values.update(w=W, w_pos=np.maximum(W, 0), w_neg=np.maximum(-W, 0), delta=(W != 0).astype(float))
    return f.vector(values)
