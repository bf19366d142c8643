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

from ...budget import expired
from .induction import GrowNode, distribute, hard_leaf_counts, leaf_counts

__all__ = ["upper_error_rate", "expected_errors", "collapse", "prune", "SIMPLER_TOLERANCE"]

#: A simpler subtree is preferred when its expected errors exceed the other's by at most this (C4.5's 0.1).
SIMPLER_TOLERANCE = 0.1


def upper_error_rate(n, errors, confidence) -> np.ndarray:
    """``U_CF(E, N)``: the ``p`` with ``P(Binomial(N, p) <= E) = CF``, i.e. ``Beta(E + 1, N - E)``'s ``1 - CF``
    quantile.

    >>> round(float(upper_error_rate(6, 0, 0.25)), 3), round(float(upper_error_rate(1, 0, 0.25)), 3)
    (0.206, 0.75)
    """
    n, errors = np.asarray(n, float), np.asarray(errors, float)
    safe_n = np.where(n > errors, n, errors + 1.0)
    rate = betaincinv(errors + 1.0, safe_n - errors, 1.0 - confidence)
    return np.where(n > 0, np.where(n > errors, rate, 1.0), 0.0)


def _expected_errors(counts, confidence, laplace) -> np.ndarray:
    """``N * U_CF(E, N)`` of each row of class weights ``counts`` (``(k, C)``); 0 for an empty row."""
    counts = np.atleast_2d(np.asarray(counts, float))
    n = counts.sum(axis=1)
    errors = n - counts.max(axis=1)
    if laplace:
        errors = n * (errors + 1.0) / (n + counts.shape[1])
    return np.where(n > 0, n * upper_error_rate(n, errors, confidence), 0.0)


def expected_errors(counts, confidence, laplace=True) -> float:
    """Pessimistic errors ``N * U_CF(E, N)`` of a leaf with class weights ``counts`` (Laplace-corrected ``E``)."""
    return float(_expected_errors(counts, confidence, laplace)[0])


def _nodes(node: GrowNode) -> list:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        if not current.is_leaf:
            stack += [current.right, current.left]
    return out


def _annotate(node: GrowNode, confidence, laplace) -> None:
    """Store every node's own expected errors (as a leaf) in ``extra["errors"]`` and its weight in
    ``extra["weight"]``, each computed in one call."""
    nodes = _nodes(node)
    weights = [n.weights for n in nodes]
    totals = np.add.reduceat(np.concatenate(weights), np.cumsum([0] + [len(w) for w in weights[:-1]])) \
        if all(len(w) for w in weights) else [w.sum() for w in weights]
    errors = _expected_errors([n.counts for n in nodes], confidence, laplace)
    for current, value, total in zip(nodes, errors.tolist(), np.asarray(totals, float).tolist()):
        current.extra["errors"], current.extra["weight"] = value, total


def _leaf_errors(node: GrowNode) -> float:
    return node.extra["errors"]


def _weight(node: GrowNode) -> float:
    return node.extra["weight"]


def _make_leaf(node: GrowNode, errors) -> None:
    """Turn ``node`` into a leaf that keeps its expected errors and weight."""
    weight = node.extra["weight"]
    node.make_leaf()
    node.extra["errors"], node.extra["weight"] = errors, weight


def collapse(node: GrowNode) -> float:
    """Turn splits whose subtree does not lower the training errors into leaves (bottom-up); returns the
    training errors of what remains.

    The tests are visited as :meth:`GrowNode.branches` gives them (a nominal chain is one test), every
    node's own errors computed in one call, then children before parents.
    """
    order, stack = [], [node]
    while stack:                                                # parents before their branches
        current = stack.pop()
        order.append(current)
        if not current.is_leaf:
            stack += current.branches()
    counts = np.array([current.counts for current in order])
    own = (counts.sum(axis=1) - counts.max(axis=1)).tolist()
    position = {id(current): k for k, current in enumerate(order)}
    errors = own[:]
    for k in range(len(order) - 1, -1, -1):                     # every branch before its parent
        current = order[k]
        if current.is_leaf:
            continue
        below = sum(errors[position[id(branch)]] for branch in current.branches())
        if below >= own[k] - 1e-3:
            current.make_leaf()
        else:
            errors[k] = below
    return errors[0]


def _copy_tests(node: GrowNode) -> GrowNode:
    out = GrowNode(node.rows, node.weights, node.counts, node.feature, node.threshold, extra=dict(node.extra))
    if not node.is_leaf:
        out.left, out.right = _copy_tests(node.left), _copy_tests(node.right)
    return out


def prune(X, Y, node: GrowNode, confidence=0.25, laplace=True, subtree_raising=True,
          propagation_sigma=None, deadline=None) -> float:
    """Error-based pruning of the subtree of ``node`` in place (seed 000, 2.2.3: keep / leaf / raise); returns
    the expected errors of the pruned subtree.

    Once ``deadline`` (a ``time.perf_counter()`` value) passes, nodes still to
    be pruned only choose between keeping the subtree and a leaf (the re-distribution
    of subtree raising is what takes time). Each node's expected errors as a
    leaf are computed once, for all nodes together, and again for a raised
    branch after its rows change. A raised branch is judged by its leaves'
    new counts (:func:`~.induction.leaf_counts`); without missing values or
    soft propagation only the other branches' rows are routed, as the largest
    branch's own rows stay at its leaves. The branch is copied and its rows
    re-distributed only when raising wins.
    """
    _annotate(node, confidence, laplace)
    hard = propagation_sigma is None and not np.isnan(X[node.rows]).any()
    labels = np.argmax(Y, axis=1) if hard else None         # hard tests, no missing value: rows move whole
    return _prune(X, Y, node, confidence, laplace, subtree_raising, propagation_sigma, deadline, labels)


def _prune(X, Y, node, confidence, laplace, subtree_raising, propagation_sigma, deadline, labels) -> float:
    if node.is_leaf:
        return _leaf_errors(node)
    branches = node.branches()
    keep = sum(_prune(X, Y, branch, confidence, laplace, subtree_raising, propagation_sigma, deadline, labels)
               for branch in branches)
    leaf = _leaf_errors(node)
    raised, branch = None, np.inf
    if subtree_raising and not expired(deadline):
        # the raised branch's errors from its leaves' new counts; the branch is copied and re-distributed only
        # when it wins
        largest = max(branches, key=_weight)
        if largest.is_leaf:             # a raised leaf holds all of the node's rows: it is the node as a leaf
            branch = leaf
        else:
            if labels is not None:      # the largest branch's rows stay where they are: only the others' move
                others = [b for b in branches if b is not largest]
                moved = hard_leaf_counts(X, labels, Y.shape[1], largest, np.concatenate([b.rows for b in others]),
                                         np.concatenate([b.weights for b in others]))
                counts = [end.counts + c for end, c in zip(largest.leaves(), moved)]
            else:
                counts = leaf_counts(X, Y, largest, node.rows, node.weights, propagation_sigma)
            branch = sum(float(e) for e in _expected_errors(counts, confidence, laplace))
    tol = SIMPLER_TOLERANCE
    if leaf <= min(keep, branch) + tol:
        _make_leaf(node, leaf)
        return leaf
    if branch <= keep + tol:
        raised = _copy_tests(largest)
        distribute(X, Y, raised, node.rows, node.weights, propagation_sigma)
        _annotate(raised, confidence, laplace)
        node.feature, node.threshold, node.left, node.right = raised.feature, raised.threshold, raised.left, \
            raised.right
        node.extra = dict(raised.extra, errors=leaf)
        if raised.is_leaf:
            _make_leaf(node, leaf)
            return leaf
        return _prune(X, Y, node, confidence, laplace, subtree_raising, propagation_sigma, deadline, labels)
    return keep
