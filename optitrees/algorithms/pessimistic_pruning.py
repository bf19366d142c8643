"""C4.5's error-based (pessimistic) pruning with the Laplace correction (seed 000, 2.2.3).

A leaf that sees ``N`` training weight with ``E`` errors is charged
``N * U_CF(E, N)`` expected errors, where ``U_CF`` is the upper limit of the
Clopper-Pearson interval for the binomial error rate, ``P(p > U_CF) = CF``
(Quinlan's confidence factor; the seed's two-tailed level is ``c = 2 CF``).
With the Laplace correction ``E`` is first replaced by ``N (E + 1) / (N + C)``.

Bottom-up, from the lowest left-most node, each split compares the expected
errors of (1) keeping it, (2) a leaf, (3) its largest branch raised into its
place with all of the node's rows passed through it (subtree raising), and
takes the smallest (a nominal chain is one test with one branch per value), preferring the simpler one when it is within
:data:`SIMPLER_TOLERANCE` (0.1) expected errors, as C4.5's code does. A raised branch is pruned
again with its new rows, as C4.5 does. Before that, :func:`collapse` removes
splits that do not lower the training errors.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv

from .budget import expired
from .c45 import GrowNode, distribute

__all__ = ["upper_error_rate", "expected_errors", "collapse", "prune", "SIMPLER_TOLERANCE"]

#: A simpler subtree is preferred when its expected errors exceed the other's by at most this (C4.5's 0.1).
SIMPLER_TOLERANCE = 0.1


def upper_error_rate(n, errors, confidence) -> np.ndarray:
    """``U_CF(E, N)``: the ``p`` with ``P(Binomial(N, p) <= E) = CF``, i.e. ``Beta(E + 1, N - E)``'s ``1 - CF`` quantile.

    >>> round(float(upper_error_rate(6, 0, 0.25)), 3), round(float(upper_error_rate(1, 0, 0.25)), 3)
    (0.206, 0.75)
    """
    n, errors = np.asarray(n, float), np.asarray(errors, float)
    safe_n = np.where(n > errors, n, errors + 1.0)
    rate = betaincinv(errors + 1.0, safe_n - errors, 1.0 - confidence)
    return np.where(n > 0, np.where(n > errors, rate, 1.0), 0.0)


def expected_errors(counts, confidence, laplace=True) -> float:
    """Pessimistic errors ``N * U_CF(E, N)`` of a leaf with class weights ``counts`` (Laplace-corrected ``E``)."""
    counts = np.asarray(counts, float)
    n = counts.sum()
    if n <= 0:
        return 0.0
    errors = n - counts.max()
    if laplace:
        errors = n * (errors + 1.0) / (n + len(counts))
    return float(n * upper_error_rate(n, errors, confidence))


def _subtree_errors(node: GrowNode, confidence, laplace) -> float:
    return sum(expected_errors(leaf.counts, confidence, laplace) for leaf in node.leaves())


def _training_errors(node: GrowNode) -> float:
    return sum(leaf.counts.sum() - leaf.counts.max() for leaf in node.leaves())


def collapse(node: GrowNode) -> None:
    """Turn splits whose subtree does not lower the training errors into leaves (bottom-up)."""
    if node.is_leaf:
        return
    for branch in node.branches():
        collapse(branch)
    if _training_errors(node) >= node.counts.sum() - node.counts.max() - 1e-3:
        node.make_leaf()


def _copy_tests(node: GrowNode) -> GrowNode:
    out = GrowNode(node.rows, node.weights, node.counts, node.feature, node.threshold, extra=dict(node.extra))
    if not node.is_leaf:
        out.left, out.right = _copy_tests(node.left), _copy_tests(node.right)
    return out


def prune(X, Y, node: GrowNode, confidence=0.25, laplace=True, subtree_raising=True,
          propagation_sigma=None, deadline=None) -> None:
    """Error-based pruning of the subtree of ``node`` in place (seed 000, 2.2.3: keep / leaf / raise).

    Once ``deadline`` (a ``time.perf_counter()`` value) passes, nodes still to
    be pruned only choose between keeping the subtree and a leaf (the re-distribution
    of subtree raising is what takes time).
    """
    if node.is_leaf:
        return
    branches = node.branches()
    for branch in branches:
        prune(X, Y, branch, confidence, laplace, subtree_raising, propagation_sigma, deadline)
    leaf = expected_errors(node.counts, confidence, laplace)
    keep = _subtree_errors(node, confidence, laplace)
    raised, branch = None, np.inf
    if subtree_raising and not expired(deadline):
        largest = max(branches, key=lambda b: b.weights.sum())
        raised = _copy_tests(largest)
        distribute(X, Y, raised, node.rows, node.weights, propagation_sigma)
        branch = _subtree_errors(raised, confidence, laplace)
    tol = SIMPLER_TOLERANCE
    if leaf <= min(keep, branch) + tol:
        node.make_leaf()
    elif branch <= keep + tol:
        node.feature, node.threshold, node.left, node.right = raised.feature, raised.threshold, raised.left, \
            raised.right
        node.extra = dict(raised.extra)
        if raised.is_leaf:
            node.make_leaf()
        else:
            prune(X, Y, node, confidence, laplace, subtree_raising, propagation_sigma, deadline)
