"""The blocks of Bertsimas & Dunn's OCT and OCT-H (:mod:`~optitrees.formulations.oct.model`), public so that a user can
compose a model of their own from them (``examples/octh_from_blocks.py`` writes OCT-H in one function):

============================  ===========================================================  =========================
block                         adds                                                         rows (``oct`` docstring)
============================  ===========================================================  =========================
:func:`add_leaf_labels`       ``z[I, L]``, ``leaf[L]``, ``c[K, L]``, ``loss[L]``           routing, leaf size, labels,
                                                                                           misclassified points
:func:`add_split_rows`        ``split_left[T, I]``, ``split_right[T, I]``                  left / right, aggregated
:func:`add_split_hierarchy`   ``hierarchy[T_child]``                                       ``d[t] <= d[parent(t)]``
:func:`add_oct_splits`        ``a[T, J]`` binary, ``b``, ``d`` and their rows              OCT's splits
:func:`add_octh_splits`       ``a[T, J]``, ``b``, ``d``, the l1 split (3.16), ``delta``    OCT-H's splits
                              (3.14) and their rows
:func:`add_monotone_order`    sign bounds on ``a``, ``monotone_order[monotone_pairs]``      ``monotonic_cst``
============================  ===========================================================  =========================

Features are in ``[0, 1]``; ``topo`` is a :class:`~optitrees.topology.Topology`.
"""

from __future__ import annotations

import numpy as np

from ...mip.expressions import Data
from .. import blocks
from .. import tree_sets
from ..tree_sets import Side

__all__ = ["add_leaf_labels", "add_split_rows", "add_split_hierarchy", "add_oct_splits", "add_octh_splits",
           "add_monotone_order", "OCTH_MU"]

#: OCT-H's split margin ``mu`` (Bertsimas & Dunn use 0.005).
OCTH_MU = 0.005


def add_leaf_labels(f, X, y, topo, min_samples_leaf, n_classes, point_weight=None):
    """Routing to leaves, used leaves, one label per used leaf and the misclassified points of each leaf: the
    rows (routing), (leaf size), (one label per used leaf) and (misclassified points) of the module docstring.

    Adds the sets ``I``, ``L``, ``K``, the variables ``z[I, L]``, ``leaf[L]``, ``c[K, L]``, ``loss[L]`` (returned
    in that order) and their rows; ``X`` in ``[0, 1]``, ``y`` class indices ``0..K-1``.

    With ``point_weight`` (``v_i``), ``N_l = sum_i v_i z[i, l]`` and ``N_kl`` are
    weighted counts, and ``n`` in the big-M is the total weight; ``N_min`` is a
    weight too, except ``N_min = 1``, which any leaf holding a point satisfies
    (the leaf-size row then counts points).
    """
    n = X.shape[0]
    v = np.ones(n) if point_weight is None else np.asarray(point_weight, float)
    total = float(n) if point_weight is None else float(v.sum())
    leaves = topo.leaves
    z = blocks.add_routing(f, n, leaves, target_set="L")
    f.add_set("K", np.arange(n_classes))
    leaf = f.add_variables("leaf", ("L",), 0.0, 1.0, domain="binary")
    c = f.add_variables("c", ("K", "L"), 0.0, 1.0, domain="binary")
    loss = f.add_variables("loss", ("L",), 0.0, total)
    f.add_constraints("leaf_used", z.sum("I") - float(n) * leaf <= 0, equation="sum_i z <= n leaf")
    points = z.sum("I") if point_weight is None or min_samples_leaf <= 1 else (z * Data(v, ("I",))).sum("I")
    f.add_constraints("min_leaf", points - float(min_samples_leaf) * leaf >= 0, equation="N_l >= N_min leaf")
    f.add_constraints("leaf_label", c.sum("K") - leaf == 0, equation="sum_k c = leaf")
    # loss[l] - N_l + N_kl - n c[k, l] >= -n, rows (k, l); z terms: coefficient -1 + [y_i == k]
    wrong = Data(v * (-1.0 + (y[None, :] == np.arange(n_classes)[:, None])), ("K", "I"))
    rows = loss + (z * wrong).sum("I") - total * c >= -total
    f.add_constraints("leaf_loss", rows.transpose("K", "L"), equation="loss >= N_l - N_kl - n (1 - c)")
    return z, leaf, c, loss


def add_split_hierarchy(f, topo, d):
    """``d[t] <= d[parent(t)]`` for every branch node but the root: the splits used form a tree."""
    nodes = topo.branch_nodes
    if len(nodes) > 1:
        f.add_set("T_child", nodes[1:])
        child = Data(nodes[1:, None] == nodes[None, :], ("T_child", "T"))   # the node itself
        parent = tree_sets.parent(f, "T_child", "T")
        f.add_constraints("hierarchy", (d * child).sum("T") - (d * parent).sum("T") <= 0, equation="d_t <= d_parent")


def add_split_rows(f, topo, w, b, z, X, left_extra, left_M, left_upper, right_M, unused=None):
    """Split rows of every branch node for every point, aggregated over the subtrees.

    ``split_left[t, i]:  w_t (x_i + left_extra) - b_t [+ c d_t] + left_M sum_{l in L(t)} z[i, l] <= left_upper``

    ``split_right[t, i]: w_t x_i - b_t - right_M sum_{l in R(t)} z[i, l] >= -right_M``

    ``unused=(d, c)`` adds the term ``c d_t`` to the left rows.
    """
    J, L = w.dims[1], z.dims[1]
    left = tree_sets.subtree(f, "T", L, Side.LEFT)                        # L^l(t)
    right = tree_sets.subtree(f, "T", L, Side.RIGHT)                      # L^r(t)
    shifted = (w * Data(X if left_extra is None else X + left_extra[None, :], ("I", J))).sum(J) - b
    if unused is not None:
        shifted = shifted + unused[1] * unused[0]
    f.add_constraints("split_left", shifted + float(left_M) * (z * left).sum(L) <= float(left_upper),
                      equation="B&D left, aggregated")
    f.add_constraints("split_right", (w * Data(X, ("I", J))).sum(J) - b - float(right_M) * (z * right).sum(L)
                      >= -float(right_M), equation="B&D right, aggregated")


def _feature_labels(f, p):
    """The labels of ``J``: as declared, else the problem's feature names, else ``0..p-1``."""
    if "J" in f.sets:
        return f.sets["J"]
    problem = getattr(f, "problem", None)
    return problem.data.labels if problem is not None else np.arange(p)


def add_oct_splits(f, topo, X01, eps):
    """OCT's axis-aligned splits: ``a[t, j]`` binary, ``sum_j a = d``, ``b <= d``, rows with the margins ``eps_j``
    (:func:`~optitrees.formulations.oct.model.feature_epsilons`); returns ``(a, b, d)``."""
    eps_max, eps_min = float(eps.max()), float(eps.min())
    f.add_set("T", topo.branch_nodes)
    f.add_set("J", _feature_labels(f, X01.shape[1]))
    a = f.add_variables("a", ("T", "J"), 0.0, 1.0, domain="binary")
    b = f.add_variables("b", ("T",), 0.0, 1.0)
    d = f.add_variables("d", ("T",), 0.0, 1.0, domain="binary")
    f.add_constraints("one_feature", a.sum("J") - d == 0, equation="sum_j a = d")
    f.add_constraints("threshold_used", b - d <= 0, equation="b <= d")
    Ml = 1.0 + eps_max
    add_split_rows(f, topo, a, b, f.variables["z"], X01, left_extra=eps, left_M=Ml, left_upper=Ml - eps_min,
                    right_M=1.0, unused=(d, -eps_min))
    return a, b, d


def add_octh_splits(f, topo, X01, alpha, mu=OCTH_MU, max_features=None):
    """OCT-H's oblique splits: ``||a_t||_1 <= d_t``, features used ``delta`` (3.14) weighted ``alpha``, margin ``mu``
    (the OCT-H rows of the module docstring), and with ``max_features`` at most that many features per split
    (3.14's budget row); returns ``(w, b, d)``."""
    p = X01.shape[1]
    w, b = blocks.add_hyperplanes(f, topo.branch_nodes, _feature_labels(f, p), 1.0, 1.0)
    d = f.add_variables("d", ("T",), 0.0, 1.0, domain="binary")
    wp = f.add_variables("w_pos", w.dims, 0.0, 1.0)
    wn = f.add_variables("w_neg", w.dims, 0.0, 1.0)
    f.add_constraints("l1_split", w - wp + wn == 0, equation="3.16a")
    f.add_constraints("l1_used", (wp + wn).sum("J") - d <= 0, equation="||a_t||_1 <= d_t")
    delta = blocks.add_l0_indicators(f, w, 1.0, budget=max_features, penalty=alpha)
    f.add_constraints("feature_used", delta - d <= 0, equation="delta <= d")
    f.add_constraints("node_features", delta.sum("J") - d >= 0, equation="sum_j delta >= d")
    f.add_constraints("intercept_used", b - d <= 0, equation="b <= d")
    f.add_constraints("intercept_used_neg", b + d >= 0, equation="b >= -d")
    add_split_rows(f, topo, w, b, f.variables["z"], X01, left_extra=None, left_M=2.0 + mu, left_upper=2.0,
                    right_M=2.0)
    return w, b, d


def add_monotone_order(f, topo, w, delta, c, leaf, signs, positive: int = 1) -> None:
    r"""``monotonic_cst`` on oblique splits with label leaves (two classes): every model of the MIP is monotone.

    Each split weighs a constrained feature with its sign, ``s_j a[t, j] >= 0``, so raising ``x_j`` alone can only
    move a point from the left of a split to its right (a split sends ``a_t x >= b_t`` right). Where a split reads
    such a feature (``delta[t, j] = 1``), no leaf of its left subtree may predict the positive class above a used
    leaf of its right subtree::

        c[+, l] - c[+, r] + delta[t, j] + leaf[r] <= 2      t in T, s_j != 0, l in L^l(t), r in L^r(t)

    (``c[+, l]``: leaf ``l`` predicts the positive class ``positive``; an empty leaf ``r`` has no label, and its
    row is slack). Along ``x_j`` a point's route then changes only from a left subtree to the right one, whose
    labels are no lower: its prediction never falls (for ``s_j = -1`` it never rises, the split moving the other
    way). This is sufficient for monotonicity, not necessary: a split on ``x_j`` whose subtrees each read another
    feature the same way (left ``[1, 0]``, right ``[1, 0]`` along it) is monotone but not of this form. The checker
    proves every tree of this form monotone (:func:`optitrees.monotonicity.check_monotonic`, its ``"hierarchy"``
    proof).
    """
    signs = np.asarray(signs, np.int64)
    constrained = np.flatnonzero(signs)
    lower, upper = w.lower.reshape(w.shape), w.upper.reshape(w.shape)
    lower[:, signs > 0] = 0.0
    upper[:, signs < 0] = 0.0
    f.bounds_changed()
    nodes, leaves = f.sets[w.dims[0]], f.sets[leaf.dims[0]]
    left = tree_sets.subtree(f, w.dims[0], leaf.dims[0], Side.LEFT).values.astype(bool)
    right = tree_sets.subtree(f, w.dims[0], leaf.dims[0], Side.RIGHT).values.astype(bool)
    t, low, high = np.nonzero(left[:, :, None] & right[:, None, :])          # node, left leaf, right leaf
    k = len(constrained)
    t, low, high, j = np.repeat(t, k), np.repeat(low, k), np.repeat(high, k), np.tile(constrained, len(t))
    if len(t) == 0:
        return
    f.add_set("monotone_pairs", np.array([f"{nodes[a]}:{f.sets[w.dims[1]][b]}:{leaves[lo]}<={leaves[hi]}"
                                          for a, b, lo, hi in zip(t, j, low, high)]))
    cols = np.column_stack([c.columns[positive, low], c.columns[positive, high], delta.columns[t, j],
                            leaf.columns[high]])
    coefs = np.broadcast_to([1.0, -1.0, 1.0, 1.0], cols.shape)
    f.add_constraints("monotone_order", ("monotone_pairs",), [(cols, coefs)], upper=2.0,
                      equation="c[+, l] - c[+, r] + delta[t, j] + leaf[r] <= 2")
