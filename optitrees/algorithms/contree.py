"""ConTree (Brita, van der Linden & Demirovic, AAAI 2025; ``pycontree``, MIT) as the exact engine of axis-aligned OCT.

ConTree finds optimal classification trees on continuous features by dynamic
programming with branch-and-bound. Its objective is
``errors + complexity_cost * n * (branching nodes)``, so OCT's
``errors / L_hat + alpha * splits`` is the same problem with
``complexity_cost = alpha * L_hat / n`` (a brute-force test holds the two equal).
ConTree knows no minimum leaf size and no user constraints: those stay with
the MIP. A cost above 1 makes every split dearer than all ``n`` errors, so the
optimum is then the majority leaf, certified without a search.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ..trees import LEAF, Tree

__all__ = ["contree_tree"]


def _convert(node, n_features):
    """ConTree's linked tree as node arrays in depth-first order (children after their parent)."""
    left, right, feature, thr, label = [], [], [], [], []

    def visit(t):
        k = len(left)
        left.append(LEAF), right.append(LEAF), feature.append(-1), thr.append(0.0), label.append(0)
        if t.is_leaf_node():
            label[k] = int(t.get_label())
            return k
        feature[k], thr[k] = int(t.get_split_feature()), float(t.get_split_threshold())
        left[k] = visit(t.get_left())
        right[k] = visit(t.get_right())
        return k

    visit(node)
    n = len(left)
    W = np.zeros((n, n_features))
    inner = np.flatnonzero(np.array(left) != LEAF)
    W[inner, np.array(feature)[inner]] = 1.0
    return Tree(left, right, W, thr, label=label)


def contree_tree(X, y, depth, alpha, L_hat, n_classes, time_limit=None, allowed=None):
    """The optimal axis-aligned tree of depth ``depth`` for ``errors / L_hat + alpha * splits``.

    Returns
    -------
    tree : Tree
        Labels and training counts filled in.
    proven : bool
        ConTree finished within ``time_limit`` (the tree is optimal); otherwise
        it is the best tree ConTree found.
    seconds : float
    """
    from pycontree import ConTree

    X = np.asarray(X, float)
    y = np.asarray(y, np.int64)
    n, p = X.shape
    cols = np.arange(p) if allowed is None else np.flatnonzero(allowed)
    cost = alpha * L_hat / n
    t0 = time.perf_counter()
    if cost > 1.0:                                         # no split can pay for itself: the majority leaf
        tree = Tree([LEAF], [LEAF], np.zeros((1, p)), [0.0], label=[int(np.bincount(y).argmax())])
        return tree.with_counts(X, y), True, time.perf_counter() - t0
    model = ConTree(max_depth=depth, complexity_cost=cost, time_limit=600 if time_limit is None else time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X[:, cols], y)
    seconds = time.perf_counter() - t0
    tree = _convert(model.tree_, len(cols))
    W = np.zeros((tree.n_nodes, p))
    W[:, cols] = tree.weights
    tree.weights = W
    value = np.zeros((tree.n_nodes, n_classes))
    tree.value = value
    return tree.with_counts(X, y), bool(model._config.is_within_time_limit()), seconds
