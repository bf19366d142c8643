"""Greedy top-down warm start of loss-optimal trees (seed 002, Ch. 3.2, "Preliminary experiments").

From the root down, each node gets the classifier of its layer (see
:func:`~optitrees.algorithms.node_fit.node_fitter`) fitted on the training
points that the nodes above forward to it. The hyperplanes are made feasible
for the MIP: scaled into ``||w||_1 <= W``, ``|b| <= B`` and, at inner nodes,
shifted so that no training point falls in the open gap ``(0, eps)`` of the
forwarding constraints (3.7). The tree maps to a complete feasible start with
:func:`~optitrees.formulations.loss_optimal.solution.start`.
"""

from __future__ import annotations

import numpy as np

from ...formulations.loss_optimal.solution import tree_from_hyperplanes
from ...trees import Tree
from ...budget import call_until
from ..node_fit import constant_fit

__all__ = ["greedy_tree", "clear_gap", "within_bounds"]


def within_bounds(w, b, weight_bound, intercept_bound):
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


def greedy_tree(problem, fit, deadline=None) -> Tree:
    """Greedy top-down loss-optimal tree on ``problem.data`` (standardized units), feasible for its MIP.

    Parameters
    ----------
    problem : LossOptimalProblem
    fit : callable ``(X, y, h, sample_weight=None) -> (w, b)``
        From :func:`~optitrees.algorithms.node_fit.node_fitter`; each node is fitted on its points with their
        weights (``problem.data.weight``).
    deadline : float, optional
        ``time.perf_counter()`` by which node fits end (a fit still running then
        is abandoned, :func:`~optitrees.budget.call_until`): the nodes
        left get :func:`~optitrees.algorithms.node_fit.constant_fit` (``w = 0``),
        so the tree is still complete and feasible.
    """
    X, y, v = problem.data.X, np.asarray(problem.data.y, float), problem.data.fit_weight
    topo = problem.topology
    depth = topo.depth
    W = np.zeros((len(topo.branch_nodes), X.shape[1]))
    b = np.zeros(len(topo.branch_nodes))
    node_of = np.ones(len(y), dtype=int)
    for h, layer in enumerate(topo.layers):
        for t in layer:
            idx = np.flatnonzero(node_of == t)
            vi = None if v is None else v[idx]
            done, fitted = call_until(deadline, fit, X[idx], y[idx], h, sample_weight=vi)
            w_t, b_t = fitted if done else constant_fit(y[idx], problem.spec.losses[h], X.shape[1], vi)
            w_t, b_t = within_bounds(w_t, b_t, problem.spec.weight_bound, problem.intercept_bound)
            if h < depth - 1:
                b_t -= clear_gap(X[idx] @ w_t + b_t, problem.eps)
                node_of[idx] = 2 * t + (X[idx] @ w_t + b_t > problem.eps / 2)
            W[t - 1], b[t - 1] = w_t, b_t
    return tree_from_hyperplanes(problem, W, b)
