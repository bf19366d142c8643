"""Feature importances of a fitted tree: what its classifying nodes owe to each feature."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ._tree import LeafModel

__all__ = ["feature_importances", "node_std"]


def feature_importances(tree, X=None) -> np.ndarray:
    """Importance of each feature in ``tree``, shape ``(n_features,)``, summing to 1 (zeros for a single leaf).

    Every node that classifies (each split, and each leaf with a linear model)
    spreads the training weight reaching it (``value[t].sum()``) over the
    features of its hyperplane in proportion to ``|w_{t,j}| s_{t,j}``: the
    weight times the standard deviation of ``x_j`` over the training points
    reaching ``t``, so the share of a feature is its influence on the node's
    score (the ``r_{j,t} = w_{j,t} sigma_{j,t}`` of the loss-optimal trees'
    ``feature_influence``, seed 002, 3.4). An axis-aligned split gives all its
    weight to its feature, so only trees with oblique splits or linear leaves
    need the training data ``X``; for axis-aligned trees the result is the
    weight of the points each feature splits, summed over splits.

    >>> from optitrees.trees import Tree
    >>> t = Tree([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [[1, 0], [0, 1], [0, 0], [0, 0], [0, 0]],
    ...          [0.0, 0.0, 0, 0, 0], value=[[6, 4], [3, 1], [3, 3], [3, 0], [0, 1]])
    >>> feature_importances(t).tolist()        # the root splits 10 points on x0, its left child 4 on x1
    [0.7142857142857143, 0.2857142857142857]
    """
    W = np.abs(tree.weights)
    classifies = ~tree.is_leaf | ((tree.leaf_model in (LeafModel.LINEAR, LeafModel.LINEAR_VALUE))
                                  & np.any(W != 0, axis=1))
    shares = np.zeros_like(W)
    single = classifies & (np.count_nonzero(W, axis=1) == 1)
    shares[single] = W[single] != 0
    several = classifies & ~single & np.any(W != 0, axis=1)
    if X is None:
        if several.any():
            raise ValueError("a tree with oblique splits or linear leaves needs its training data X")
        reach = tree.value.sum(axis=1)
    else:
        reach, std = _reach_and_std(tree, X)
        influence = W[several] * std[several]
        total = influence.sum(axis=1, keepdims=True)
        shares[several] = np.divide(influence, total, out=np.zeros_like(influence), where=total > 0)
    importance = (reach[:, None] * shares).sum(axis=0)
    total = importance.sum()
    return importance / total if total > 0 else importance


def node_std(tree, X) -> np.ndarray:
    """Standard deviation of every feature over the rows of ``X`` reaching every node (zero where none do),
    shape ``(n_nodes, n_features)``."""
    return _reach_and_std(tree, X)[1]


def _reach_and_std(tree, X):
    """Rows of ``X`` reaching every node, and every feature's standard deviation over them (one sparse
    node-by-row indicator: no loop over nodes)."""
    X = np.asarray(X, float)
    path = tree.decision_path(X)
    rows, levels = np.nonzero(path >= 0)
    reach = sparse.csr_matrix((np.ones(len(rows)), (path[rows, levels], rows)), shape=(tree.n_nodes, len(X)))
    count = np.asarray(reach.sum(axis=1)).ravel()
    safe = np.maximum(count, 1.0)[:, None]
    mean = (reach @ X) / safe
    var = np.maximum((reach @ (X * X)) / safe - mean * mean, 0.0)
    return count, np.where(count[:, None] > 0, np.sqrt(var), 0.0)
