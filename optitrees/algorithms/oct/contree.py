"""ConTree (Brita, van der Linden & Demirovic, AAAI 2025; ``pycontree``, MIT) as the exact engine of axis-aligned OCT.

ConTree finds optimal classification trees on continuous features by dynamic
programming with branch-and-bound. Its objective is
``errors + complexity_cost * n * (branching nodes)``, so OCT's
``errors / L_hat + alpha * splits`` is the same problem with
``complexity_cost = alpha * L_hat / n`` (a brute-force test holds the two equal).
ConTree knows no minimum leaf size, no user constraints and no weights: those
stay with the MIP, except whole-number weights (merged duplicate rows), which
are given to ConTree as the rows repeated (:func:`repeatable`). A cost above 1
makes every split dearer than all ``n`` errors, so the
optimum is then the majority leaf, certified without a search.

pycontree holds the GIL for its whole search, so Python could not see a
Ctrl-C until the search ended (10.5 s measured). Where processes can be
forked, the search runs in a child process the caller waits for in short
polls: Ctrl-C stops the child and reaches the caller at once.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from ...trees import LEAF, Tree
from ..forked import call_forked

__all__ = ["contree_tree", "repeatable", "inseparable_weight"]

#: Whole-number weights are handed to ConTree as repeated rows up to this many rows in all.
MAX_REPEATED_ROWS = 2_000_000


def repeatable(sample_weight) -> bool:
    """The weights are whole numbers whose rows ConTree can take repeated (at most :data:`MAX_REPEATED_ROWS`)."""
    if sample_weight is None:
        return True
    w = np.asarray(sample_weight, float)
    return bool(np.all(w == np.round(w)) and w.sum() <= MAX_REPEATED_ROWS)


def inseparable_weight(X, y, sample_weight=None) -> float:
    """The weight every classifier on ``X`` misclassifies: of rows identical in ``X``, all but the heaviest label.

    A lower bound on any tree's errors (0 when no two rows with different labels coincide); what OCT
    reports as its bound when ConTree stops before its proof.
    """
    X, y = np.asarray(X, float), np.asarray(y)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    frame = pd.DataFrame(X + 0.0)
    group = frame.groupby(list(frame.columns), sort=False, dropna=False).ngroup().to_numpy()
    per_label = pd.DataFrame({"group": group, "label": y, "weight": weight}).groupby(["group", "label"])["weight"].sum()
    by_group = per_label.groupby(level=0)
    return float((by_group.sum() - by_group.max()).sum())


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


def contree_tree(X, y, depth, alpha, L_hat, n_classes, time_limit=None, allowed=None, sample_weight=None):
    """The optimal axis-aligned tree of depth ``depth`` for ``errors / L_hat + alpha * splits`` (the search runs
    in a child process where processes can be forked, see the module docstring).

    ``sample_weight`` (whole numbers, :func:`repeatable`) counts each row that many times.

    Returns
    -------
    tree : Tree
        Labels and training counts filled in.
    proven : bool
        ConTree finished within ``time_limit`` (the tree is optimal); otherwise
        it is the best tree ConTree found.
    seconds : float
    """
    X = np.asarray(X, float)
    y = np.asarray(y, np.int64)
    if not repeatable(sample_weight):
        raise ValueError("ConTree takes whole-number weights only (rows repeated); fit weighted trees by the MIP")
    times = None if sample_weight is None else np.round(sample_weight).astype(np.int64)
    Xr, yr = (X, y) if times is None else (np.repeat(X, times, axis=0), np.repeat(y, times))
    n, p = Xr.shape
    cols = np.arange(p) if allowed is None else np.flatnonzero(allowed)
    cost = alpha * L_hat / n
    t0 = time.perf_counter()
    if cost > 1.0:                                         # no split can pay for itself: the majority leaf
        tree = Tree([LEAF], [LEAF], np.zeros((1, p)), [0.0], label=[int(np.bincount(yr).argmax())])
        return tree.with_counts(X, y, sample_weight=sample_weight), True, time.perf_counter() - t0
    tree, proven = _search(Xr[:, cols], yr, depth, cost, 600 if time_limit is None else time_limit)
    seconds = time.perf_counter() - t0
    W = np.zeros((tree.n_nodes, p))
    W[:, cols] = tree.weights
    tree.weights = W
    value = np.zeros((tree.n_nodes, n_classes))
    tree.value = value
    return tree.with_counts(X, y, sample_weight=sample_weight), proven, seconds


def _fit(X, y, depth, cost, time_limit):
    """ConTree's tree (on the columns of ``X``) and whether it finished within ``time_limit``."""
    from pycontree import ConTree

    model = ConTree(max_depth=depth, complexity_cost=cost, time_limit=time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return _convert(model.tree_, X.shape[1]), bool(model._config.is_within_time_limit())


def _search(X, y, depth, cost, time_limit):
    """:func:`_fit` in a forked child process (interruptible; :func:`~optitrees.algorithms.forked.call_forked`)."""
    return call_forked(_fit, (X, y, depth, cost, time_limit), name="optitrees-contree")[1]
