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

__all__ = ["greedy_tree", "greedy_logistic_tree", "node_fitter", "refine_last_layer", "fit_l1_logistic",
           "fit_linear_svm", "cart_splits", "greedy_oblique_splits"]


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
    """``C sum logloss + ||w||_1`` on one node's points."""
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


def fit_linear_svm(X, y, C, random_state=None):
    """Minimize ``0.5 ||w||^2 + C sum_i max(0, 1 - y_i (w x_i + b))`` (scikit-learn's LinearSVC).

    A large ``intercept_scaling`` leaves the intercept practically
    unpenalized. A node with one class (or none) gets ``w = 0`` and ``b = +-1``.
    """
    from sklearn.svm import LinearSVC

    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n_pos = int((y > 0).sum())
    if len(y) == 0 or n_pos in (0, len(y)) or C == 0:
        return np.zeros(X.shape[1]), 1.0 if n_pos >= len(y) - n_pos else -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm = LinearSVC(C=C, loss="hinge", dual=True, intercept_scaling=10.0, tol=1e-6, max_iter=20000,
                        random_state=random_state).fit(X, y)
    return svm.coef_.ravel().copy(), float(svm.intercept_[0])


def node_fitter(loss, regularizer, C, lam, budget=None, random_state=None):
    """Per-node classifier of the greedy warm start for a loss-optimal tree (3.12).

    Logistic loss: l1-logistic regression (``regularizer="l1"``, liblinear's
    ``C = C_h / lam_h``) or l2-logistic; hinge and misclassification losses:
    a linear SVM (``C = C_h / (2 lam_h)``, the scaling of ``C_h hinge + lam_h ||w||^2``).
    With an HFS budget ``B`` the node keeps its ``B`` largest weights and is
    refitted on those features (``B = 1`` with the logistic loss tries every
    single feature, Remark 2).

    Returns
    -------
    callable ``fit(X, y, h, support=None) -> (w, b)``
        ``h`` is the 0-based layer; ``support`` restricts the features.
    """
    from sklearn.linear_model import LogisticRegression

    def base(Xn, yn, h):
        Ch = float(C[h])
        lh = float(lam[h]) if regularizer is not None else 0.0
        if loss == "logistic":
            if regularizer == "l1" and lh > 0:
                return fit_l1_logistic(Xn, yn, Ch / lh, random_state)
            n_pos = int((yn > 0).sum())
            if n_pos in (0, len(yn)):
                return np.zeros(Xn.shape[1]), float(np.log((n_pos + 0.5) / (len(yn) - n_pos + 0.5)))
            c = Ch / (2 * lh) if lh > 0 else 1e4
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                lr = LogisticRegression(C=c, max_iter=2000, tol=1e-8).fit(Xn, yn)
            return lr.coef_.ravel().copy(), float(lr.intercept_[0])
        c = Ch / (2 * lh) if lh > 0 else 1e3
        return fit_linear_svm(Xn, yn, c, random_state)

    def fit(Xn, yn, h, support=None):
        p = Xn.shape[1]
        if support is not None:
            cols = np.flatnonzero(support)
            w = np.zeros(p)
            if cols.size == 0:
                w0, b0 = base(Xn[:, :1] * 0.0, yn, h)
                return w, b0
            wc, b0 = base(Xn[:, cols], yn, h)
            w[cols] = wc
            return w, b0
        if budget is not None and loss == "logistic" and regularizer == "l1" and budget[h] == 1:
            return _fit_univariate(Xn, yn, float(C[h]) / max(float(lam[h]), 1e-12), random_state)
        w, b0 = base(Xn, yn, h)
        if budget is not None and np.count_nonzero(w) > budget[h]:
            keep = np.argsort(-np.abs(w))[: int(budget[h])]
            mask = np.zeros(p, bool)
            mask[keep] = True
            return fit(Xn, yn, h, support=mask)
        return w, b0

    return fit


def greedy_tree(X, y, depth, fit, weight_bound, intercept_bound, eps) -> ObliqueTree:
    """Greedy top-down oblique tree, feasible for the loss-optimal formulations.

    Each node is fitted by ``fit(X_node, y_node, h)`` on the points that reach
    it, scaled into ``||w||_1 <= W`` and ``|b| <= B``, and (at inner nodes)
    shifted so that no point lies in the forwarding gap ``(0, eps)`` of (3.7).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Standardized training features.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    depth : int
    fit : callable
        From :func:`node_fitter`.
    weight_bound, intercept_bound, eps : float
        The formulation's ``W``, ``B`` and ``eps``.

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
    for h, layer in enumerate(topo.layers):
        for t in layer:
            idx = np.flatnonzero(node_of == t)
            w_t, b_t = fit(X[idx], y[idx], h)
            w_t, b_t = _within_bounds(w_t, b_t, weight_bound, intercept_bound)
            if h < depth - 1:
                b_t -= clear_gap(X[idx] @ w_t + b_t, eps)
                node_of[idx] = 2 * t + (X[idx] @ w_t + b_t > eps / 2)
            W[t - 1], b[t - 1] = w_t, b_t
    return ObliqueTree(W, b, split_margin=eps / 2)


def greedy_logistic_tree(X, y, depth, C, weight_bound, intercept_bound, eps, univariate=False,
                         random_state=None) -> ObliqueTree:
    """Greedy OLCT start: an l1-logistic regression per node (see :func:`greedy_tree`)."""
    fit = node_fitter("logistic", "l1", C, np.ones(depth), np.ones(depth) if univariate else None, random_state)
    return greedy_tree(X, y, depth, fit, weight_bound, intercept_bound, eps)


def refine_last_layer(tree: ObliqueTree, X, y, fit, objective, keep_support=False) -> ObliqueTree:
    """Remark 1: refit every last-layer node on the points routed to it.

    Routing is unchanged (inner nodes are kept). A node keeps its refit only
    when ``objective(X_node, y_node, w, b)`` does not increase; callers keep the
    refined tree only if the whole exact objective did not increase.

    Parameters
    ----------
    fit : callable
        From :func:`node_fitter`.
    objective : callable ``(X, y, w, b) -> float``
        The last layer's exact per-node objective.
    keep_support : bool
        Refit on each node's current features only (keeps HFS/SFS counts).
    """
    leaf = tree.apply(X)
    last = Topology(tree.depth).last_layer
    h = tree.depth - 1
    weights, intercepts = [], []
    for t in last:
        idx = np.flatnonzero(leaf == t)
        w_old, b_old = tree.weights[t - 1], tree.intercepts[t - 1]
        if idx.size == 0:
            weights.append(w_old)
            intercepts.append(b_old)
            continue
        w_t, b_t = fit(X[idx], y[idx], h, support=(w_old != 0) if keep_support else None)
        if objective(X[idx], y[idx], w_t, b_t) > objective(X[idx], y[idx], w_old, b_old):
            w_t, b_t = w_old, b_old
        weights.append(w_t)
        intercepts.append(b_t)
    return tree.with_nodes(last, np.array(weights), np.array(intercepts))


def cart_splits(X01, y, depth, min_samples_leaf=1, random_state=None):
    """scikit-learn's CART of the same depth as OCT splits ``right iff x_j >= b_t`` on ``[0, 1]`` features.

    CART sends ``x_j <= thr`` left; the threshold becomes the smallest training
    value above ``thr``, so every training point is routed as by CART and the
    left points keep the per-feature margin ``eps_j`` of OCT. A CART leaf above
    the last layer becomes an unused node (its points all go right).

    Returns
    -------
    weights : ndarray of shape (2^depth - 1, p)
        One-hot rows at active nodes.
    thresholds : ndarray of shape (2^depth - 1,)
    active : ndarray of bool
    """
    from sklearn.tree import DecisionTreeClassifier

    X01 = np.asarray(X01, float)
    cart = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=min_samples_leaf,
                                  random_state=random_state).fit(X01, y)
    t_ = cart.tree_
    n_nodes = 2**depth - 1
    W = np.zeros((n_nodes, X01.shape[1]))
    b = np.zeros(n_nodes)
    active = np.zeros(n_nodes, bool)
    stack = [(1, 0)]                      # (our node id, CART node id)
    while stack:
        node, c = stack.pop()
        if node > n_nodes or c < 0 or t_.children_left[c] < 0:
            continue
        j, thr = int(t_.feature[c]), float(t_.threshold[c])
        above = X01[:, j][X01[:, j] > thr]
        if above.size == 0:
            continue
        W[node - 1, j], b[node - 1], active[node - 1] = 1.0, float(above.min()), True
        stack += [(2 * node, int(t_.children_left[c])), (2 * node + 1, int(t_.children_right[c]))]
    return W, b, active


def greedy_oblique_splits(X01, y, depth, min_samples_leaf=1, mu=0.005, random_state=None):
    """Greedy top-down oblique splits for OCT-H: ``right iff a_t x >= b_t`` with ``||a_t||_1 <= 1``.

    At each node the candidates are CART's best stump and one l1-logistic
    hyperplane per class (that class against the rest) fitted on the node's
    points; each is normalized to ``||a||_1 = 1``, shifted so that no point lies
    in the margin ``(b - mu, b)``, and scored by the misclassification of the
    two children's majority labels. The node splits with the best candidate
    that lowers the node's error and leaves ``min_samples_leaf`` points on each
    side, and is unused otherwise.

    Returns
    -------
    weights, thresholds, active : as :func:`cart_splits`
    """
    X01 = np.asarray(X01, float)
    y = np.asarray(y, int)
    n, p = X01.shape
    n_nodes = 2**depth - 1
    W = np.zeros((n_nodes, p))
    b = np.zeros(n_nodes)
    active = np.zeros(n_nodes, bool)
    node_of = np.ones(n, dtype=int)

    def errors(labels):
        return labels.size - np.bincount(labels).max() if labels.size else 0

    for node in range(1, n_nodes + 1):
        idx = np.flatnonzero(node_of == node)
        Xn, yn = X01[idx], y[idx]
        if node > 1 and not active[node // 2 - 1] and node % 2 == 0:
            continue                      # left child of an unused node: no points
        base = errors(yn)
        best = None
        if base > 0 and len(idx) >= 2 * min_samples_leaf:
            cands = []
            sw, sb, sa = cart_splits(Xn, yn, 1, min_samples_leaf, random_state)
            if sa[0]:
                cands.append((sw[0], sb[0]))
            classes = np.unique(yn)
            for k in (classes if len(classes) > 2 else classes[1:]):
                w_k, c_k = fit_l1_logistic(Xn, np.where(yn == k, 1.0, -1.0), 10.0, random_state)
                norm = np.abs(w_k).sum()
                if norm > 0:
                    cands.append((w_k / norm, -c_k / norm))
            for a, thr in cands:
                u = Xn @ a - thr
                thr = thr + clear_gap(u + mu, mu)
                if abs(thr) > 1:
                    continue
                right = Xn @ a >= thr
                if min(right.sum(), (~right).sum()) < min_samples_leaf:
                    continue
                err = errors(yn[right]) + errors(yn[~right])
                if err < base and (best is None or err < best[0]):
                    best = (err, a, thr)
        if best is not None:
            _, W[node - 1], b[node - 1] = best
            active[node - 1] = True
        goes_right = (Xn @ W[node - 1] >= b[node - 1]) if active[node - 1] else np.ones(len(idx), bool)
        node_of[idx] = 2 * node + goes_right
    return W, b, active
