"""Greedy warm starts of OCT and OCT-H: CART, and a greedy oblique tree (Bertsimas & Dunn start from CART)."""

from __future__ import annotations

import numpy as np

from ...trees import Tree, from_complete, from_sklearn
from ...budget import call_until
from ..node_fit import fit_sparse_l1_logistic

__all__ = ["cart_tree", "greedy_oblique_tree", "best_clear_split"]


def cart_tree(X, y, depth, min_samples_leaf=1, random_state=None, allowed=None, sample_weight=None) -> Tree:
    """scikit-learn's CART of depth ``depth`` (Gini) as a :class:`Tree`; ``allowed`` masks out forbidden features.

    ``y`` holds class indices ``0..K-1``, all present. With ``sample_weight``
    the criterion is weighted and ``min_samples_leaf`` above 1 is a weight (each
    leaf holds at least that total weight, up to half a unit).
    """
    from sklearn.tree import DecisionTreeClassifier

    X = np.asarray(X, float)
    cols = np.arange(X.shape[1]) if allowed is None else np.flatnonzero(allowed)
    if sample_weight is None:
        size = dict(min_samples_leaf=min_samples_leaf)
    else:
        total = float(np.sum(sample_weight))
        size = dict(min_weight_fraction_leaf=min(0.5, max(0.0, min_samples_leaf - 0.5) / total)) \
            if min_samples_leaf > 1 else {}
    shown = X if len(cols) == X.shape[1] else X[:, cols]           # no copy of X when every feature is allowed
    cart = DecisionTreeClassifier(max_depth=depth, random_state=random_state, **size).fit(shown, y, sample_weight)
    tree = from_sklearn(cart)
    weights = np.zeros((tree.n_nodes, X.shape[1]))
    weights[:, cols] = tree.weights
    tree.weights = weights
    return tree


def best_clear_split(values, y, weight, mu, min_samples_leaf=1):
    """``(weighted errors, threshold)`` of the best split ``values >= threshold`` (right) of the points labelled
    ``y`` that leaves no value in the margin ``(threshold - mu, threshold)`` (OCT-H's rows 3.7 with margin ``mu``),
    ``|threshold| <= 1``, both sides nonempty and (``min_samples_leaf`` above 1) each side's weight at least
    ``min_samples_leaf``; the errors are those of the two sides' weighted majority labels. ``None`` when no
    threshold qualifies.

    The thresholds are the values with a gap of at least ``mu`` below them: on features whose unit-scaled values
    crowd near 0 (spambase's word frequencies, 1e-4 apart), the gap nearest a stump's threshold can be every value
    (all points right), where a gap further along still splits well.

    >>> best_clear_split(np.array([0.0, 0.001, 0.3, 0.302, 0.6]), np.array([0, 0, 1, 0, 1]), np.ones(5), 0.005)
    (1.0, 0.3)
    """
    values, y, weight = np.asarray(values, float), np.asarray(y), np.asarray(weight, float)
    if len(values) < 2:
        return None
    order = np.argsort(values, kind="stable")
    s, labels, v = values[order], np.unique(y[order], return_inverse=True)[1], weight[order]
    counts = np.zeros((len(s), labels.max() + 1))
    counts[np.arange(len(s)), labels] = v
    left = np.cumsum(counts, axis=0)[:-1]                  # left[k]: the first k + 1 points go left
    right = left[-1] + counts[-1] - left if len(s) > 1 else left
    err = (left.sum(1) - left.max(1)) + (right.sum(1) - right.max(1))
    ok = (np.diff(s) >= mu) & (np.abs(s[1:]) <= 1)
    if min_samples_leaf > 1:
        ok &= (left.sum(1) >= min_samples_leaf) & (right.sum(1) >= min_samples_leaf)
    if not ok.any():
        return None
    k = np.flatnonzero(ok)[np.argmin(err[ok])]
    return float(err[k]), float(s[k + 1])


def greedy_oblique_tree(X01, y, depth, n_classes, min_samples_leaf=1, mu=0.005, random_state=None,
                        allowed=None, deadline=None, sample_weight=None, max_features=None) -> Tree:
    """Greedy top-down oblique tree for OCT-H: splits ``a_t x >= b_t`` (right) with ``||a_t||_1 <= 1``.

    At each node the candidates are CART's best stump and one l1-logistic
    hyperplane per class (that class against the rest) fitted on the node's
    points; each direction is normalized to ``||a||_1 = 1`` and given the
    threshold ``b`` of fewest misclassifications of the two children's majority
    labels among those that leave no point in the margin ``(b - mu, b)``
    (:func:`best_clear_split`). The node splits with the best candidate
    that lowers the node's error and leaves ``min_samples_leaf`` points on each
    side, and is unused (all points right) otherwise. Leaves get their majority class.
    Once ``deadline`` (a ``time.perf_counter()`` value) passes, the nodes left
    consider CART's stump only (the l1-logistic fits are what takes time; one
    still running then is abandoned, :func:`~optitrees.budget.call_until`).
    With ``sample_weight`` errors, fits and leaf sizes are weighted. With
    ``max_features`` each hyperplane uses at most that many features
    (:func:`~optitrees.algorithms.node_fit.fit_sparse_l1_logistic`).
    """
    X01 = np.asarray(X01, float)
    y = np.asarray(y, int)
    n, p = X01.shape
    cols = np.arange(p) if allowed is None else np.flatnonzero(allowed)
    n_nodes = 2**depth - 1
    W = np.zeros((n_nodes, p))
    b = np.zeros(n_nodes)
    active = np.zeros(n_nodes, bool)
    node_of = np.ones(n, dtype=int)

    v = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)

    def errors(labels, weights):
        if not labels.size:
            return 0
        totals = np.bincount(labels, weights=None if sample_weight is None else weights)
        return totals.sum() - totals.max()

    for node in range(1, n_nodes + 1):
        idx = np.flatnonzero(node_of == node)
        Xn, yn, vn = X01[idx][:, cols], y[idx], v[idx]
        base = errors(yn, vn)
        best = None
        if base > 0 and len(idx) >= 2 and (min_samples_leaf <= 1 or vn.sum() >= 2 * min_samples_leaf):
            cands = []
            stump = cart_tree(Xn, yn, 1, min_samples_leaf, random_state,
                              sample_weight=None if sample_weight is None else vn)
            if not stump.is_leaf[0]:
                cands.append(stump.weights[0])
            classes = np.unique(yn)
            for k in (classes if len(classes) > 2 else classes[1:]):
                done, fitted = call_until(deadline, fit_sparse_l1_logistic, Xn, np.where(yn == k, 1.0, -1.0), 10.0,
                                          max_features, random_state, None if sample_weight is None else vn)
                if not done:
                    break
                w_k = fitted[0]
                norm = np.abs(w_k).sum()
                if norm > 0:
                    cands.append(w_k / norm)
            for a in cands:
                found = best_clear_split(Xn @ a, yn, vn, mu, min_samples_leaf)
                if found is not None and found[0] < base and (best is None or found[0] < best[0]):
                    best = (found[0], a, found[1])
        if best is not None:
            _, W[node - 1, cols], b[node - 1] = best
            active[node - 1] = True
        goes_right = (X01[idx] @ W[node - 1] >= b[node - 1]) if active[node - 1] else np.ones(len(idx), bool)
        node_of[idx] = 2 * node + goes_right
    tree, _ = from_complete(W, b - mu / 2, active=active, leaf_labels=np.zeros(2**depth, int), n_classes=n_classes)
    return tree.with_counts(X01, y, relabel="all", sample_weight=sample_weight)
