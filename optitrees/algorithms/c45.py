"""C4.5 induction with fractional instances and soft training propagation (seed 000, 2.2 and 3.2.2).

Algorithm 1 of seed 000: a node becomes a leaf when its rows are pure, weigh
less than ``2 * min_samples_leaf``, reach ``max_depth``, or no test gains
information (:func:`~optitrees.algorithms.c45_split.best_split`); otherwise its
rows are passed to the children through the *gate* of the chosen test:

* a known value goes left when ``x_j <= tau`` (hard split, eq. 2.1; ``tau`` is
  the largest value of ``x_j`` in the whole training set not above the midpoint
  of the cut, as C4.5 release 8 prints it), or, with
  soft training propagation, left with weight ``Phi((tau - x_j) / sigma)`` and
  right with the rest (eq. 3.9);
* a missing value goes to both children with the shares of the known weight
  that went to each (C4.5's fractional instances, 2.2.4).

Nodes are kept as :class:`GrowNode` objects with their rows and weights so the
pessimistic pruning (:mod:`~optitrees.algorithms.pessimistic_pruning`) can
re-distribute a node's rows when it raises a subtree; :func:`to_tree` turns
the result into the library's :class:`~optitrees.trees.Tree`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from ..trees import LEAF, Tree
from .budget import expired
from .c45_split import best_split

__all__ = ["GrowNode", "grow_c45", "gate", "distribute", "to_tree", "c45_threshold", "nominal_chain"]

#: Rows whose weight falls below this after soft propagation are dropped.
MIN_ROW_WEIGHT = 1e-6


@dataclass
class GrowNode:
    rows: np.ndarray
    weights: np.ndarray
    counts: np.ndarray
    feature: int = LEAF
    threshold: float = 0.0
    left: "GrowNode | None" = None
    right: "GrowNode | None" = None
    extra: dict = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    def make_leaf(self) -> None:
        self.feature, self.threshold, self.left, self.right, self.extra = LEAF, 0.0, None, None, {}

    def branches(self) -> list:
        """The children of this test: two, or one per value when it heads a nominal chain (:func:`grow_c45`)."""
        if not self.extra.get("nominal"):
            return [self.left, self.right]
        out, node = [], self
        while True:
            out.append(node.left)
            if not node.right.extra.get("member"):
                return out + [node.right]
            node = node.right

    def leaves(self):
        return [self] if self.is_leaf else self.left.leaves() + self.right.leaves()

    def n_leaves(self) -> int:
        return len(self.leaves())


def gate(x, threshold, left_share, sigma=0.0) -> np.ndarray:
    """Probability of going left: hard ``x <= tau`` or ``Phi((tau - x) / sigma)``; ``left_share`` for ``nan``."""
    x = np.asarray(x, float)
    with np.errstate(invalid="ignore"):
        g = ndtr((threshold - x) / sigma) if sigma > 0 else (x <= threshold).astype(float)
    return np.where(np.isnan(x), left_share, g)


def _class_counts(Y, rows, weights):
    return Y[rows].T @ weights


def _children(X, Y, node, sigma, left_share):
    g = gate(X[node.rows, node.feature], node.threshold, left_share, sigma)
    parts = []
    for share in (g, 1.0 - g):
        w = node.weights * share
        keep = w > MIN_ROW_WEIGHT
        parts.append((node.rows[keep], w[keep]))
    return parts


def _known_left_share(X, node, sigma):
    x = X[node.rows, node.feature]
    known = ~np.isnan(x)
    wk = node.weights[known].sum()
    if wk <= 0:
        return 0.5
    return float((node.weights[known] * gate(x[known], node.threshold, 0.0, sigma)).sum() / wk)


def distribute(X, Y, node: GrowNode, rows, weights, propagation_sigma=None) -> None:
    """Pass ``(rows, weights)`` through the subtree of ``node``, resetting every node's rows and counts.

    Splits keep their tests; missing values follow the known shares of the new rows.
    """
    node.rows, node.weights, node.counts = rows, weights, _class_counts(Y, rows, weights)
    if node.is_leaf:
        return
    sigma = 0.0 if propagation_sigma is None else propagation_sigma[node.feature]
    share = _known_left_share(X, node, sigma)
    (lr, lw), (rr, rw) = _children(X, Y, node, sigma, share)
    distribute(X, Y, node.left, lr, lw, propagation_sigma)
    distribute(X, Y, node.right, rr, rw, propagation_sigma)


def c45_threshold(column, node_values, lower) -> float:
    """C4.5's threshold for a cut above ``lower``: the largest training value (of all rows) not above the
    midpoint between ``lower`` and the node's next larger value; the node's rows split the same way."""
    upper = node_values[node_values > lower].min()
    midpoint = (lower + upper) / 2
    return float(column[column <= midpoint].max())


def nominal_chain(X, Y, node: GrowNode, feature, values) -> list:
    """Split ``node`` into one branch per value of a nominal feature, as a chain of binary tests.

    The multiway test of C4.5 on ``values`` (ascending) becomes ``x <= v_1``
    (branch ``v_1``), then on the right ``x <= v_2`` (branch ``v_2``) ... and
    the last right child (branch ``v_m``). Missing values go down every branch
    with the known shares (the chain's gates multiply to them). The head is
    flagged ``extra["nominal"]``, the other chain tests ``extra["member"]``, so
    pruning treats the chain as one test. Returns the branch nodes.
    """
    node.extra["nominal"] = True
    current, branches = node, []
    for k, v in enumerate(values[:-1]):
        current.feature, current.threshold = feature, float(v)
        if k:
            current.extra["member"] = True
        (lr, lw), (rr, rw) = _children(X, Y, current, 0.0, _known_left_share(X, current, 0.0))
        current.left = GrowNode(lr, lw, _class_counts(Y, lr, lw))
        current.right = GrowNode(rr, rw, _class_counts(Y, rr, rw))
        branches.append(current.left)
        current = current.right
    return branches + [current]


def grow_c45(X, Y, *, allowed, min_samples_leaf=2, max_depth=None, criterion="gain_ratio", search_sigma=None,
             propagation_sigma=None, window=6.0, resolution=0.1, rows=None, weights=None, nominal=None,
             deadline=None) -> GrowNode:
    """Grow the unpruned C4.5 tree of ``(X, Y)`` (``Y`` one-hot), Algorithm 1 of seed 000.

    ``search_sigma`` / ``propagation_sigma``: per-feature noise deviations of the
    soft search (3.2.1) and soft training propagation (3.2.2); ``None`` = hard.
    ``rows`` / ``weights``: grow from these rows only (default: all, weight 1).
    ``nominal``: bool mask of nominal features (multiway tests, :func:`nominal_chain`).
    Nodes are split breadth-first; once ``deadline`` (a ``time.perf_counter()``
    value) passes, the nodes not yet split stay leaves, so a tree cut short
    is the complete tree's top levels.
    """
    n = X.shape[0]
    rows = np.arange(n) if rows is None else np.asarray(rows)
    weights = np.ones(len(rows)) if weights is None else np.asarray(weights, float)
    root = GrowNode(rows, weights, _class_counts(Y, rows, weights))
    stack = deque([(root, 0)])
    while stack and not expired(deadline):
        node, depth = stack.popleft()
        total = node.weights.sum()
        if (np.count_nonzero(node.counts > 1e-9) <= 1 or total < 2 * min_samples_leaf
                or (max_depth is not None and depth >= max_depth)):
            continue
        split = best_split(X[node.rows], Y[node.rows], node.weights, allowed=allowed,
                           min_samples_leaf=min_samples_leaf, criterion=criterion, search_sigma=search_sigma,
                           window=window, resolution=resolution, nominal=nominal)
        if split is None:
            continue
        if split.values is not None:
            branches = nominal_chain(X, Y, node, split.feature, split.values)
            stack += [(b, depth + 1) for b in branches]
            continue
        node.feature, node.threshold = split.feature, split.threshold
        if search_sigma is None:
            node.threshold = c45_threshold(X[:, split.feature], X[node.rows, split.feature], split.threshold)
        sigma = 0.0 if propagation_sigma is None else propagation_sigma[split.feature]
        (lr, lw), (rr, rw) = _children(X, Y, node, sigma, _known_left_share(X, node, sigma))
        if min(lw.sum(), rw.sum()) < MIN_ROW_WEIGHT:        # a soft-search threshold outside the node's rows
            node.make_leaf()
            continue
        node.left = GrowNode(lr, lw, _class_counts(Y, lr, lw))
        node.right = GrowNode(rr, rw, _class_counts(Y, rr, rw))
        stack += [(node.left, depth + 1), (node.right, depth + 1)]
    return root


def to_tree(root: GrowNode, n_features: int) -> Tree:
    """The :class:`Tree` of a grown (and pruned) C4.5 tree: node ids in breadth-first order.

    ``value`` holds each node's (fractional) training class weights; a leaf
    without training weight takes its parent's counts, as C4.5 does.
    """
    order, queue = [], [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        if not node.is_leaf:
            queue += [node.left, node.right]
    index = {id(node): i for i, node in enumerate(order)}
    n, C = len(order), len(root.counts)
    left, right = np.full(n, LEAF), np.full(n, LEAF)
    weights, threshold, value = np.zeros((n, n_features)), np.zeros(n), np.zeros((n, C))
    for i, node in enumerate(order):
        value[i] = node.counts
        if not node.is_leaf:
            left[i], right[i] = index[id(node.left)], index[id(node.right)]
            weights[i, node.feature], threshold[i] = 1.0, node.threshold
    parent = np.full(n, -1)
    inner = left != LEAF
    parent[left[inner]], parent[right[inner]] = np.flatnonzero(inner), np.flatnonzero(inner)
    for i in range(1, n):                                       # parents come first in breadth-first order
        if value[i].sum() <= 0:
            value[i] = value[parent[i]]
    return Tree(left, right, weights, threshold, value=value, label=np.argmax(value, axis=1))
