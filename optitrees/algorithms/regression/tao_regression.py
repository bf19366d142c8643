"""TAO for axis-aligned regression trees with constant leaves (the alternation of seed 002, 3.3, on squared loss).

With the rest of the tree fixed, the nodes of one depth are independent:

* a leaf's best value is the (weighted) mean of the points reaching it;
* an inner node ``t`` only decides where its points go. Point ``i`` then pays
  ``L_i`` or ``R_i``, the squared error of the prediction of the left or the
  right subtree (kept as they are). The best split ``x_j <= c`` minimizes
  ``sum_i v_i (L_i if x_ij <= c else R_i)``: for each feature, points sorted by
  ``x_ij``, that is ``sum R + cumsum(v (L - R))`` at every cut between two
  distinct values, all cuts of all features in one vectorized pass.

A step is taken only when it lowers the training squared error, so the tree's
error never increases; passes run bottom-up until none improves, ``max_passes``
or the deadline (checked before every node).
"""

from __future__ import annotations


import numpy as np

from ...budget import expired
from ...trees import LEAF, LeafModel, Tree

__all__ = ["tao_regression_tree", "best_routing_split"]


def best_routing_split(X, loss_left, loss_right, weight, allowed, min_leaf: float):
    """The axis-aligned split ``x_j <= c`` minimizing ``sum v (L if left else R)`` with at least ``min_leaf``
    weight on each side: ``(cost, feature, threshold)``, or ``None`` when no split is allowed.

    The threshold is the midpoint of two consecutive distinct values of the feature.

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> best_routing_split(X, np.array([0, 0, 5, 5.]), np.array([5, 5, 0, 0.]), np.ones(4), np.array([True]), 1)
    (0.0, 0, 1.5)
    """
    d = weight * (loss_left - loss_right)
    base = float(np.dot(weight, loss_right))
    order = np.argsort(X, axis=0, kind="stable")
    xs = np.take_along_axis(X, order, axis=0)
    cum = np.cumsum(d[order], axis=0)                      # cost - base when the first k+1 points go left
    wcum = np.cumsum(weight[order], axis=0)
    total = wcum[-1, 0]
    valid = (xs[1:] > xs[:-1]) & (wcum[:-1] >= min_leaf) & (total - wcum[:-1] >= min_leaf)
    valid &= np.asarray(allowed, bool)[None, :]
    if not valid.any():
        return None
    cost = np.where(valid, cum[:-1], np.inf)
    k, j = np.unravel_index(np.argmin(cost), cost.shape)
    return base + float(cost[k, j]), int(j), float((xs[k, j] + xs[k + 1, j]) / 2.0)


def _predict_from(tree_arrays, X, start):
    """Predictions of the subtree under ``start`` (current arrays) for the rows of ``X``."""
    left, right, feature, threshold, value = tree_arrays
    node = np.full(len(X), start, np.int64)
    rows = np.arange(len(X))
    active = left[node] != LEAF
    while active.any():
        r, n = rows[active], node[active]
        go_left = X[r, feature[n]] <= threshold[n]
        node[r] = np.where(go_left, left[n], right[n])
        active = left[node] != LEAF
    return value[node]


def tao_regression_tree(tree: Tree, X, y, weight=None, allowed=None, min_samples_leaf: float = 1.0,
                        max_passes: int = 20, deadline=None) -> Tree:
    """TAO from ``tree`` (axis-aligned, value leaves): an improved tree, never with a higher training error.

    Parameters
    ----------
    tree : Tree
        The start (e.g. CART's tree); its structure (which nodes split) is kept.
    X, y : ndarray
    weight : ndarray, optional
        The rows' weights (1 by default).
    allowed : ndarray of bool, optional
        The features a split may use.
    min_samples_leaf : float
        Training weight every split leaves on each side.
    deadline : float, optional
        ``time.perf_counter()`` after which no node step starts.
    """
    if not tree.is_axis_aligned or tree.leaf_model is not LeafModel.VALUE:
        raise ValueError("TAO for regression needs an axis-aligned tree with value leaves")
    X, y = np.asarray(X, float), np.asarray(y, float)
    v = np.ones(len(y)) if weight is None else np.asarray(weight, float)
    allowed = np.ones(X.shape[1], bool) if allowed is None else np.asarray(allowed, bool)
    left, right = tree.children_left.copy(), tree.children_right.copy()
    feature = np.where(tree.is_leaf, 0, tree.feature).astype(np.int64)
    threshold, value = tree.threshold.copy(), tree.intercept.copy()
    arrays = (left, right, feature, threshold, value)
    depth = tree.node_depth

    def reaching():
        """Rows reaching each node."""
        rows = {0: np.arange(len(y))}
        for t in np.argsort(depth, kind="stable"):
            if left[t] == LEAF or t not in rows:
                continue
            r = rows[t]
            go = X[r, feature[t]] <= threshold[t]
            rows[left[t]], rows[right[t]] = r[go], r[~go]
        return rows

    for _ in range(max_passes):
        improved = False
        for level in range(int(depth.max()), -1, -1):
            rows = reaching()
            for t in np.flatnonzero(depth == level):
                if expired(deadline):
                    return _tree(tree, arrays, reaching(), v)
                r = rows.get(t, np.zeros(0, np.int64))
                if r.size == 0:
                    continue
                vr, yr = v[r], y[r]
                if left[t] == LEAF:
                    mean = float(np.dot(vr, yr) / vr.sum()) if vr.sum() > 0 else value[t]
                    if np.dot(vr, (yr - mean) ** 2) < np.dot(vr, (yr - value[t]) ** 2) - 1e-12 * (1 + abs(mean)):
                        value[t], improved = mean, True
                    continue
                Xr = X[r]
                loss_left = (yr - _predict_from(arrays, Xr, left[t])) ** 2
                loss_right = (yr - _predict_from(arrays, Xr, right[t])) ** 2
                now = float(np.dot(vr, np.where(Xr[:, feature[t]] <= threshold[t], loss_left, loss_right)))
                best = best_routing_split(Xr, loss_left, loss_right, vr, allowed, min_samples_leaf)
                if best is not None and best[0] < now - 1e-12 * (1.0 + now):
                    feature[t], threshold[t] = best[1], best[2]
                    improved = True
        if not improved:
            break
    return _tree(tree, arrays, reaching(), v)


def _tree(start: Tree, arrays, rows, v) -> Tree:
    """The :class:`Tree` of the current arrays, each node's ``value`` the training weight reaching it."""
    left, right, feature, threshold, value = arrays
    weights = np.zeros_like(start.weights)
    inner = np.flatnonzero(left != LEAF)
    weights[inner, feature[inner]] = 1.0
    counts = np.array([[float(v[rows[t]].sum()) if t in rows else 0.0] for t in range(len(left))])
    return Tree(left, right, weights, np.where(left != LEAF, threshold, 0.0), intercept=value,
                value=counts, leaf_model=LeafModel.VALUE)
