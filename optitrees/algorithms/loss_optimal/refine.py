"""Remark 1 of seed 002: refit the last layer of a loss-optimal tree on the points routed to it.

Routing is unchanged (inner nodes are kept); each last-layer node is refitted
exactly (a convex problem) and keeps its refit only when its own objective
does not increase, so the tree's exact objective never increases.
"""

from __future__ import annotations

import numpy as np

from ...trees import Tree
from ..node_fit import node_objective

__all__ = ["refine_last_layer"]


def refine_last_layer(tree: Tree, problem, fit, keep_support: bool = False) -> Tree:
    """Refit every leaf (last-layer node) of a loss-optimal tree on its training points (standardized units).

    Parameters
    ----------
    tree : Tree
    problem : LossOptimalProblem
    fit : callable
        From :func:`~optitrees.algorithms.node_fit.node_fitter`.
    keep_support : bool
        Refit on each node's current features only (keeps HFS/SFS counts).
    """
    X, y, v = problem.data.X, np.asarray(problem.data.y, float), problem.data.fit_weight
    h = problem.spec.depth - 1
    objective = node_objective(problem.spec, h)
    leaf_of = tree.apply(X)
    leaves = np.flatnonzero(tree.is_leaf)
    W, b = tree.weights[leaves].copy(), tree.intercept[leaves].copy()
    for k, t in enumerate(leaves):
        idx = np.flatnonzero(leaf_of == t)
        if idx.size == 0:
            continue
        vi = None if v is None else v[idx]
        w_t, b_t = fit(X[idx], y[idx], h, support=(W[k] != 0) if keep_support else None, sample_weight=vi)
        if objective(X[idx], y[idx], w_t, b_t, vi) <= objective(X[idx], y[idx], W[k], b[k], vi):
            W[k], b[k] = w_t, b_t
    return tree.with_nodes(leaves, weights=W, intercept=b)
