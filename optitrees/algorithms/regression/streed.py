"""Optimal axis-aligned regression trees by STreeD's dynamic programming (``pystreed``, MIT) on our thresholds.

STreeD searches binary features. We give it one per candidate split ``x_j <= c``
(:func:`candidate_thresholds`: midpoints between consecutive distinct training
values, at most ``n_thresholds`` per feature, spread over the values' ranks),
so the tree it proves optimal is the best tree of its depth over exactly those
splits, with constant leaves (the means of their rows), minimizing the training
squared error (plus ``cost_complexity`` per split). :func:`to_tree` reads its
answer back as a :class:`~optitrees.trees.Tree` in the units of ``X``.
"""

from __future__ import annotations

import time

import numpy as np

from ...trees import LEAF, LeafModel, Tree
from ..forked import call_forked

__all__ = ["candidate_thresholds", "binarize", "fit_streed", "to_tree"]


def candidate_thresholds(X, n_thresholds=None) -> list[np.ndarray]:
    """Per feature, the midpoints between consecutive distinct values of ``X`` (all of them with
    ``n_thresholds=None``, else at most that many, evenly spread over the midpoints' ranks).

    >>> [t.tolist() for t in candidate_thresholds(np.array([[0.0, 5.0], [1.0, 5.0], [3.0, 5.0]]))]
    [[0.5, 2.0], []]
    """
    out = []
    for column in np.asarray(X, float).T:
        values = np.unique(column)
        mid = (values[:-1] + values[1:]) / 2.0
        if n_thresholds is not None and len(mid) > n_thresholds:
            mid = mid[np.unique(np.round(np.linspace(0, len(mid) - 1, n_thresholds)).astype(int))]
        out.append(mid)
    return out


def _split_index(thresholds):
    """``(feature, threshold)`` of every candidate split, feature by feature."""
    feature = np.concatenate([np.full(len(t), j) for j, t in enumerate(thresholds)]).astype(np.int64)
    return feature, (np.concatenate(thresholds) if thresholds else np.zeros(0))


def binarize(X, thresholds):
    """``(B, feature, threshold)``: ``B[:, k] = X[:, feature[k]] <= threshold[k]`` as 0/1 integers."""
    feature, threshold = _split_index(thresholds)
    return (np.asarray(X, float)[:, feature] <= threshold).astype(np.intc), feature, threshold


def fit_streed(X, y, max_depth: int, n_thresholds=None, min_samples_leaf: int = 1, cost_complexity: float = 0.0,
               deadline=None):
    """STreeD's optimal regression tree of ``max_depth`` over the candidate splits: ``(tree, proven)``, or
    ``(None, False)`` when ``deadline`` (a ``time.perf_counter()`` value) passes first. STreeD searches in a
    forked child (:func:`~optitrees.algorithms.forked.call_forked`) that is stopped at the deadline: its own
    time limit (set to the time left) is not kept exactly."""
    X = np.asarray(X, float)
    thresholds = candidate_thresholds(X, n_thresholds)
    feature, threshold = _split_index(thresholds)
    if feature.size == 0:
        mean = float(np.mean(y))
        return Tree([LEAF], [LEAF], np.zeros((1, X.shape[1])), [0.0], intercept=[mean],
                    value=[[len(y)]], leaf_model=LeafModel.VALUE), True
    time_limit = 600.0 if deadline is None else max(0.05, deadline - time.perf_counter())
    # the binary matrix (rows x candidate splits) is built in the child too: it is the search's first cost
    done, result = call_forked(_search, (X, feature, threshold, np.asarray(y, float), max_depth, min_samples_leaf,
                                         cost_complexity, time_limit), deadline, name="optitrees-streed")
    if not done:
        return None, False
    (root_tree, proven) = result
    return to_tree(root_tree, feature, threshold, np.asarray(X).shape[1]), proven


def _search(X, feature, threshold, y, max_depth, min_samples_leaf, cost_complexity, time_limit):
    """STreeD on the binary features ``x_feature <= threshold``: its tree as nested tuples (picklable) and
    whether it is proven."""
    import pandas as pd
    from pystreed import STreeDRegressor

    B = (X[:, feature] <= threshold).astype(np.intc)
    model = STreeDRegressor(max_depth=max_depth, min_leaf_node_size=min_samples_leaf,
                            cost_complexity=cost_complexity, time_limit=time_limit)
    model.fit(pd.DataFrame(B), y)

    def nested(node):
        if node.is_branching_node():
            return (int(node.feature), nested(node.left_child), nested(node.right_child))
        return float(node.label)

    return nested(model.get_tree()), bool(model.fit_result.is_optimal())


def to_tree(root, feature, threshold, n_features: int) -> Tree:
    """A STreeD tree over :func:`binarize`'s features as a :class:`Tree`. ``root`` is nested tuples
    ``(k, not_satisfied, satisfied)`` with a leaf's value at the bottom; binary feature ``k`` satisfied, i.e.
    ``x_j <= c``, is STreeD's right child and our left one."""
    left, right, weights, thr, value = [], [], [], [], []

    def visit(node):
        t = len(left)
        left.append(LEAF)
        right.append(LEAF)
        row = np.zeros(n_features)
        if isinstance(node, tuple):
            k, not_satisfied, satisfied = node
            row[feature[k]] = 1.0
            weights.append(row)
            thr.append(float(threshold[k]))
            value.append(0.0)
            left[t] = visit(satisfied)
            right[t] = visit(not_satisfied)
        else:
            weights.append(row)
            thr.append(0.0)
            value.append(float(node))
        return t

    visit(root)
    return Tree(left, right, np.array(weights), thr, intercept=value, leaf_model=LeafModel.VALUE)
