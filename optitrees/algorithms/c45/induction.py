"""C4.5 induction with fractional instances and soft training propagation (seed 000, 2.2 and 3.2.2).

Algorithm 1 of seed 000: a node becomes a leaf when its rows are pure, weigh
less than ``2 * min_samples_leaf``, reach ``max_depth``, or no test gains
information (:func:`~optitrees.algorithms.c45.split_search.best_split`); otherwise its
rows are passed to the children through the *gate* of the chosen test:

* a known value goes left when ``x_j <= tau`` (hard split, eq. 2.1; ``tau`` is
  the largest value of ``x_j`` in the whole training set not above the midpoint
  of the cut, as C4.5 release 8 prints it), or, with
  soft training propagation, left with weight ``Phi((tau - x_j) / sigma)`` and
  right with the rest (eq. 3.9);
* a missing value goes to both children with the shares of the known weight
  that went to each (C4.5's fractional instances, 2.2.4).

Nodes are kept as :class:`GrowNode` objects with their rows and weights so the
pessimistic pruning (:mod:`~optitrees.algorithms.c45.pessimistic_pruning`) can
re-distribute a node's rows when it raises a subtree; :func:`to_tree` turns
the result into the library's :class:`~optitrees.trees.Tree`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from ...trees import LEAF, Tree
from ...budget import expired
from ..column_index import ColumnIndex
from .scan_policy import compiled_scan_pays
from .split_search import best_split, choose_tests, hard_candidates, numeric_gains

__all__ = ["GrowNode", "grow_c45", "gate", "distribute", "leaf_counts", "hard_leaf_counts", "to_tree", "c45_threshold",
           "nominal_chain"]

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

    def leaves(self) -> list:
        """The leaves of this subtree, left to right."""
        out, stack = [], [self]
        while stack:
            node = stack.pop()
            if node.left is None:
                out.append(node)
            else:
                stack += [node.right, node.left]
        return out

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


def _children(X, Y, node, sigma, left_share=None):
    """``(rows, weights)`` of the left and the right child of ``node``'s test (``left_share``: of a missing value,
    by default the known share of the node's rows)."""
    x = X[:, node.feature][node.rows]          # a column view, then the rows: 2-3x faster
    if sigma == 0 and left_share is None:
        missing = np.isnan(x)
        if not missing.any():                               # hard test, no missing value: a plain partition
            heavy = node.weights > MIN_ROW_WEIGHT
            go = x <= node.threshold
            return [(node.rows[go & heavy], node.weights[go & heavy]),
                    (node.rows[~go & heavy], node.weights[~go & heavy])]
    if left_share is None:
        left_share = _known_left_share(X, node, sigma)
    g = gate(x, node.threshold, left_share, sigma)
    parts = []
    for share in (g, 1.0 - g):
        w = node.weights * share
        keep = w > MIN_ROW_WEIGHT
        parts.append((node.rows[keep], w[keep]))
    return parts


def _known_left_share(X, node, sigma):
    x = X[:, node.feature][node.rows]
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
    (lr, lw), (rr, rw) = _children(X, Y, node, sigma)
    distribute(X, Y, node.left, lr, lw, propagation_sigma)
    distribute(X, Y, node.right, rr, rw, propagation_sigma)


@dataclass
class _Passing:
    """The rows passing a node's test on their way down (what :func:`_children` reads of a node)."""
    rows: np.ndarray
    weights: np.ndarray
    feature: int
    threshold: float


def leaf_counts(X, Y, node: GrowNode, rows, weights, propagation_sigma=None) -> list:
    """The class weights ``(rows, weights)`` would give each leaf of ``node``'s subtree (in :meth:`GrowNode.leaves`
    order), as :func:`distribute` would set them, without touching the subtree."""
    out, stack = [], [(node, rows, weights)]
    while stack:
        current, rows, weights = stack.pop()
        if current.is_leaf:
            out.append(_class_counts(Y, rows, weights))
            continue
        if not len(rows):                                   # nothing passes: every leaf below gets nothing
            out += [np.zeros(Y.shape[1])] * current.n_leaves()
            continue
        sigma = 0.0 if propagation_sigma is None else propagation_sigma[current.feature]
        (lr, lw), (rr, rw) = _children(X, Y, _Passing(rows, weights, current.feature, current.threshold), sigma)
        stack += [(current.right, rr, rw), (current.left, lr, lw)]
    return out


def hard_leaf_counts(X, labels, n_classes, node: GrowNode, rows, weights) -> list:
    """:func:`leaf_counts` for hard tests and rows with no missing value (``labels``: each row's class): a row
    goes down one branch whole, so each test is a plain partition of the rows reaching it."""
    out, stack = [], [(node, rows, weights)]
    while stack:
        current, rows, weights = stack.pop()
        if current.is_leaf:
            out.append(np.bincount(labels[rows], weights=weights, minlength=n_classes))   # float64
            continue
        if not len(rows):
            out += [np.zeros(n_classes)] * current.n_leaves()
            continue
        go = X[:, current.feature][rows] <= current.threshold
        stay = ~go
        stack += [(current.right, rows[stay], weights[stay]), (current.left, rows[go], weights[go])]
    return out


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
             deadline=None, index: ColumnIndex | None = None, compiled_scan: bool | None = False) -> GrowNode:
    """Grow the unpruned C4.5 tree of ``(X, Y)`` (``Y`` one-hot), Algorithm 1 of seed 000.

    ``search_sigma`` / ``propagation_sigma``: per-feature noise deviations of the
    soft search (3.2.1) and soft training propagation (3.2.2); ``None`` = hard.
    ``rows`` / ``weights``: grow from these rows only (default: all, weight 1).
    ``nominal``: bool mask of nominal features (multiway tests, :func:`nominal_chain`).
    The tree grows breadth-first; once ``deadline`` (a ``time.perf_counter()``
    value) passes, the nodes not yet split stay leaves, so a tree cut short
    is the complete tree's top levels.

    The hard search on numeric features scores all nodes of a level at once
    (:func:`_grow_levels`, on the training set's ``index``, built here unless
    the caller grows many trees on the same ``X``); the soft search and nominal
    features split one node at a time. ``compiled_scan``: score each level by
    the compiled :func:`~optitrees.algorithms.c45.threshold_scan.scan_level`
    (the same scores); ``None``: as
    :func:`~optitrees.algorithms.c45.scan_policy.compiled_scan_pays` decides.
    """
    n = X.shape[0]
    rows = np.arange(n) if rows is None else np.asarray(rows)
    weights = np.ones(len(rows)) if weights is None else np.asarray(weights, float)
    root = GrowNode(rows, weights, _class_counts(Y, rows, weights))
    if search_sigma is None and (nominal is None or not np.any(nominal & allowed)):
        compiled_scan = compiled_scan_pays(len(rows), deadline) if compiled_scan is None else compiled_scan
        _grow_levels(X, Y, root, ColumnIndex(X) if index is None else index, allowed, min_samples_leaf, max_depth,
                     criterion, propagation_sigma, deadline, compiled_scan)
    else:
        _grow_nodes(X, Y, root, allowed, min_samples_leaf, max_depth, criterion, search_sigma, propagation_sigma,
                    window, resolution, nominal, deadline)
    return root


def _splittable(counts, min_samples_leaf, max_depth, depth) -> np.ndarray:
    """Nodes (rows of class weights) that are impure, weigh at least ``2 * min_samples_leaf`` and may deepen."""
    counts = np.atleast_2d(counts)
    open_ = (np.count_nonzero(counts > 1e-9, axis=1) > 1) & (counts.sum(axis=1) >= 2 * min_samples_leaf)
    return open_ & (max_depth is None or depth < max_depth)


def _grow_levels(X, Y, root, index, allowed, min_samples_leaf, max_depth, criterion, propagation_sigma, deadline,
                 compiled_scan=False):
    """Hard C4.5 growth, one level of nodes per pass: score every node's cuts together
    (:func:`~optitrees.algorithms.c45.split_search.hard_candidates`), choose each node's test, pass the rows on."""
    level, nodes, depth = index.level(root.rows, root.weights), [root], 0
    counts = np.asarray(root.counts, float)[None]                  # each node's class weights, in ``nodes`` order
    labels = np.argmax(Y, axis=1)
    while nodes and not expired(deadline):
        open_ = _splittable(counts, min_samples_leaf, max_depth, depth)
        if not open_.any():
            return
        if not open_.all():
            level, nodes, counts = level.subset(open_), [nd for nd, o in zip(nodes, open_) if o], counts[open_]
        total = counts.sum(axis=1)
        candidates = hard_candidates(index, level, labels[level.rows], Y.shape[1], allowed, min_samples_leaf,
                                     compiled=compiled_scan)
        gain, info = numeric_gains(candidates, total)
        gain = np.where(allowed[None], gain, -np.inf)
        feature, _ = choose_tests(gain, info, np.isfinite(gain) & (gain > 0), criterion)
        splitting = np.flatnonzero(feature >= 0)
        if not len(splitting):
            return
        f = feature[splitting]
        midpoint = (candidates.lower[splitting, f] + candidates.upper[splitting, f]) / 2
        node_feature, node_threshold = np.full(len(nodes), -1), np.full(len(nodes), np.nan)
        node_feature[splitting], node_threshold[splitting] = f, index.largest_values_not_above(f, midpoint)
        left_weights, right_weights = _gate_level(X, level, node_feature, node_threshold, propagation_sigma)
        level, split_nodes = level.split(left_weights, right_weights, MIN_ROW_WEIGHT)
        counts = level.node_sums(Y[level.rows] * level.weights[:, None])
        bounds = np.cumsum(level.sizes).tolist()
        rows, weights = level.rows, level.weights
        children = []
        for s, (k, feature_k, threshold_k) in enumerate(zip(split_nodes.tolist(), node_feature[split_nodes].tolist(),
                                                             node_threshold[split_nodes].tolist())):
            node = nodes[k]
            node.feature, node.threshold = feature_k, threshold_k
            start, middle, end = bounds[2 * s - 1] if s else 0, bounds[2 * s], bounds[2 * s + 1]
            node.left = GrowNode(rows[start:middle], weights[start:middle], counts[2 * s])
            node.right = GrowNode(rows[middle:end], weights[middle:end], counts[2 * s + 1])
            children += [node.left, node.right]
        nodes, depth = children, depth + 1


def _gate_level(X, level, node_feature, node_threshold, propagation_sigma):
    """Each entry's weight going left and right through its node's test (``nan`` where the node has none):
    the gate of :func:`gate`, missing values with the node's known left share (2.2.4). A test that would
    send (almost) no weight to one side is dropped, its node stays a leaf."""
    m = len(level.rows)
    left, right = np.full(m, np.nan), np.full(m, np.nan)
    split_entry = node_feature[level.node] >= 0
    entry_node = level.node[split_entry]
    f = node_feature[entry_node]
    x = X[level.rows[split_entry], f]
    w = level.weights[split_entry]
    missing = np.isnan(x)
    go = x <= node_threshold[entry_node]
    if propagation_sigma is None and not missing.any():     # hard tests, every value known: each entry goes one way
        left_w, right_w = np.where(go, w, 0.0), np.where(go, 0.0, w)
    else:
        g = go.astype(float)
        if propagation_sigma is not None:
            sigma = np.asarray(propagation_sigma, float)[f]
            with np.errstate(invalid="ignore", divide="ignore"):
                g = np.where(sigma > 0, ndtr((node_threshold[entry_node] - x) / np.where(sigma > 0, sigma, 1.0)), g)
        known_w = np.bincount(entry_node, weights=np.where(missing, 0.0, w), minlength=level.n_nodes)
        known_left = np.bincount(entry_node, weights=np.where(missing, 0.0, w * g), minlength=level.n_nodes)
        share = np.divide(known_left, known_w, out=np.full(level.n_nodes, 0.5), where=known_w > 0)
        g = np.where(missing, share[entry_node], g)
        left_w, right_w = w * g, w * (1.0 - g)
    left[split_entry], right[split_entry] = left_w, right_w
    side_weights = np.minimum(np.bincount(entry_node, weights=left_w, minlength=level.n_nodes),
                              np.bincount(entry_node, weights=right_w, minlength=level.n_nodes))
    one_sided = (side_weights < MIN_ROW_WEIGHT)[level.node]
    left[one_sided], right[one_sided] = np.nan, np.nan
    return left, right


def _grow_nodes(X, Y, root, allowed, min_samples_leaf, max_depth, criterion, search_sigma, propagation_sigma,
                window, resolution, nominal, deadline):
    """C4.5 growth one node at a time, breadth-first (the soft search and nominal multiway tests)."""
    index = ColumnIndex(X) if search_sigma is None else None
    stack = deque([(root, 0)])
    while stack and not expired(deadline):
        node, depth = stack.popleft()
        if not _splittable(node.counts, min_samples_leaf, max_depth, depth)[0]:
            continue
        split = best_split(X[node.rows], Y[node.rows], node.weights, allowed=allowed,
                           min_samples_leaf=min_samples_leaf, criterion=criterion, search_sigma=search_sigma,
                           window=window, resolution=resolution, nominal=nominal, index=index, rows=node.rows)
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
