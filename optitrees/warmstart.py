"""Greedy top-down warm starts and the last-layer refinement (seed 002, Ch. 3.2).

``greedy_logistic_tree`` follows the seed's "Preliminary experiments": from the
root down, each node gets the l1-regularized logistic regression fitted on the
training points that the nodes above forward to it. The hyperplanes are then
made feasible for the MIP: scaled into ``||w||_1 <= W``, ``|b| <= B`` and, at
inner nodes, shifted so that no training point falls in the open gap
``(0, eps)`` of the forwarding constraints (3.7). The resulting tree maps to a
complete feasible start with
:func:`~optitrees.formulations.loss_optimal.start_from_tree`.

``refine_last_layer`` is Remark 1: refit the l1-logistic regression exactly at
each last-layer node on the points routed there.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from .formulations.tangents import logistic_loss
from .topology import Topology
from .tree import ObliqueTree

__all__ = ["greedy_logistic_tree", "refine_last_layer", "fit_l1_logistic"]


def fit_l1_logistic(X, y, C, random_state=None):
    """Minimize ``||w||_1 + C sum_i log(1 + exp(-y_i (w x_i + b)))``.

    scikit-learn's liblinear solver with a large ``intercept_scaling`` so that
    the intercept is practically unpenalized. A node with one class (or none)
    gets ``w = 0`` and the intercept of its smoothed class ratio.

    Returns
    -------
    (w, b) : ndarray of shape (n_features,), float
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n, p = X.shape
    n_pos = int((y > 0).sum())
    if n == 0 or n_pos in (0, n) or C == 0:
        return np.zeros(p), float(np.log((n_pos + 0.5) / (n - n_pos + 0.5)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lr = LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", intercept_scaling=100.0,
                                tol=1e-6, max_iter=1000, random_state=random_state).fit(X, y)
    return lr.coef_.ravel().copy(), float(lr.intercept_[0])


def _node_objective(X, y, w, b, C):
    return C * logistic_loss(y * (X @ w + b)).sum() + np.abs(w).sum()


def _fit_univariate(X, y, C, random_state=None):
    """Best single-feature l1-logistic regression (Remark 2's ``||w||_0 <= 1``)."""
    n_pos = int((y > 0).sum())
    best = (np.zeros(X.shape[1]), float(np.log((n_pos + 0.5) / (len(y) - n_pos + 0.5))))
    best_obj = _node_objective(X, y, *best, C)
    for j in range(X.shape[1]):
        wj, bj = fit_l1_logistic(X[:, [j]], y, C, random_state)
        w = np.zeros(X.shape[1])
        w[j] = wj[0]
        obj = _node_objective(X, y, w, bj, C)
        if obj < best_obj:
            best, best_obj = (w, bj), obj
    return best


def _within_bounds(w, b, weight_bound, intercept_bound):
    """Scale ``(w, b)`` (the same hyperplane) into ``||w||_1 <= W``, ``|b| <= B``."""
    norm = np.abs(w).sum()
    r = 1.0
    if norm > weight_bound:
        r = weight_bound / norm
    if abs(b) * r > intercept_bound:
        r = intercept_bound / abs(b)
    return w * r, b * r


def clear_gap(values, eps):
    """Smallest shift ``c`` so that no ``values - c`` lies in the open interval ``(0, eps)``.

    Points at or below ``c`` go left (``<= 0``), the others are ``>= eps`` and go
    right, as (3.7) requires.
    """
    a = np.asarray(values, float)
    if a.size == 0 or not np.any((a > 0) & (a < eps)):
        return 0.0
    s = np.sort(a)
    cands = np.concatenate([s[:-1][np.diff(s) >= eps], [s[-1], s[0] - eps]])
    return float(cands[np.argmin(np.abs(cands))])


def greedy_logistic_tree(X, y, depth, C, weight_bound, intercept_bound, eps, univariate=False,
                         random_state=None) -> ObliqueTree:
    """Greedy top-down logistic tree, feasible for the OLCT formulation.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Standardized training features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    depth : int
    C : ndarray of shape (depth,)
        ``C_h`` used as the regularization of each layer's node classifiers.
    weight_bound, intercept_bound, eps : float
        The formulation's ``W``, ``B`` and ``eps`` (see ``olct``).
    univariate : bool
        One feature per node.

    Returns
    -------
    ObliqueTree
        With ``split_margin = eps / 2``.
    """
    topo = Topology(depth)
    n, p = X.shape
    W = np.zeros((len(topo.branch_nodes), p))
    b = np.zeros(len(topo.branch_nodes))
    node_of = np.ones(n, dtype=int)
    fit = _fit_univariate if univariate else fit_l1_logistic
    for h, layer in enumerate(topo.layers):
        for t in layer:
            idx = np.flatnonzero(node_of == t)
            w_t, b_t = fit(X[idx], y[idx], C[h], random_state)
            w_t, b_t = _within_bounds(w_t, b_t, weight_bound, intercept_bound)
            if h < depth - 1:
                b_t -= clear_gap(X[idx] @ w_t + b_t, eps)
                node_of[idx] = 2 * t + (X[idx] @ w_t + b_t > eps / 2)
            W[t - 1], b[t - 1] = w_t, b_t
    return ObliqueTree(W, b, split_margin=eps / 2)


def refine_last_layer(tree: ObliqueTree, X, y, C_last, random_state=None, univariate=False) -> ObliqueTree:
    """Remark 1: exact l1-logistic refit at every last-layer node on its points.

    Routing is unchanged (inner nodes are kept), so each node's exact term of
    the objective can only decrease when the refit converges; callers keep the
    refined tree only if the exact objective did not increase.
    """
    leaf = tree.apply(X)
    last = Topology(tree.depth).last_layer
    fit = _fit_univariate if univariate else fit_l1_logistic
    weights, intercepts = [], []
    for t in last:
        idx = np.flatnonzero(leaf == t)
        if idx.size == 0:
            weights.append(tree.weights[t - 1])
            intercepts.append(tree.intercepts[t - 1])
            continue
        w_t, b_t = fit(X[idx], y[idx], C_last, random_state)
        old = _node_objective(X[idx], y[idx], tree.weights[t - 1], tree.intercepts[t - 1], C_last)
        if _node_objective(X[idx], y[idx], w_t, b_t, C_last) > old:
            w_t, b_t = tree.weights[t - 1], tree.intercepts[t - 1]
        weights.append(w_t)
        intercepts.append(b_t)
    return tree.with_nodes(last, np.array(weights), np.array(intercepts))
