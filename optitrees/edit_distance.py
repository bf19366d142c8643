"""Edit distance between decision trees (seed 000, ch. 5), computed by APTED (the ``apted`` package).

Procedure of 5.3: (1) sort every tree's nodes (5.3.1): classes are ranked by
their training prevalence, and at each split the child with the larger share of
the top-ranked class goes left; on a tie the child with the larger share of the
second class goes right, then the third left, the fourth right, and so on (a
swapped split reads ``x_j > tau`` on the left); (2) give the edit operations
costs (5.3.2): deleting or inserting a node costs 1, and substituting split
``n`` by split ``v`` costs

* ``"A1"`` (eq. 5.2): 2 for different features, ``1 + min(1, |tau_n - tau_v| / IQR(x_j))`` for the same;
* ``"A2"`` (eq. 5.3): as A1, but ``2 - |rho(x_jn, x_jv)|`` for different features;
* ``"B1"`` (eq. 5.4), ``"B2"`` (eq. 5.5): the A costs minus 1;

then (3) APTED computes the least-cost edit script between the ordered trees.
Leaves are nodes too, labelled by their predicted class: two leaves of the same
class cost 0 to substitute, anything else (other class, leaf for split) the
different-feature cost of A1/B1 (the seed counts leaves as nodes, a stump has 3,
but does not price them). :func:`normalized` is eq. 5.6. Statistics (class
ranking, IQR, correlations) come from the training data and must be the same
for every distance of a study: compute them once with :func:`tree_statistics`.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from apted import APTED, Config

from .trees import Tree, from_sklearn

__all__ = ["TreeStatistics", "tree_statistics", "as_tree", "sorted_nodes", "tree_edit_distance",
           "edit_distance_matrix", "normalized", "COSTS"]

COSTS = ("A1", "A2", "B1", "B2")


@dataclass
class TreeStatistics:
    """Training statistics the sorting and the costs use (one set for all trees compared)."""

    class_rank: np.ndarray                 # class indices, most prevalent first
    iqr: np.ndarray                        # interquartile range of each feature
    correlation: np.ndarray | None = None  # |feature correlation| matrix (A2, B2)


def tree_statistics(X, y, correlation="spearman") -> TreeStatistics:
    """Class ranking, IQRs and ``correlation`` ("pearson", "spearman", "kendall" or ``None``) of ``(X, y)``.

    ``y`` holds the class labels (any type); they are ranked as the trees
    index them, in sorted order (``classes_`` of the estimators).
    """
    X = np.asarray(X, float)
    _, y_idx = np.unique(np.asarray(y), return_inverse=True)
    counts = np.bincount(y_idx.ravel())
    rank = np.argsort(-counts, kind="stable")
    q75, q25 = np.nanpercentile(X, [75, 25], axis=0)
    corr = None
    if correlation is not None:
        if correlation not in ("pearson", "spearman", "kendall"):
            raise ValueError(f"correlation must be 'pearson', 'spearman', 'kendall' or None, got {correlation!r}")
        corr = np.nan_to_num(np.abs(pd.DataFrame(X).corr(method=correlation).to_numpy()))
    return TreeStatistics(rank, q75 - q25, corr)


def as_tree(model) -> Tree:
    """The :class:`~optitrees.trees.Tree` of a library estimator, a scikit-learn tree or a ``Tree``."""
    if isinstance(model, Tree):
        tree = model
    elif isinstance(getattr(model, "tree_", None), Tree):
        tree = model.tree_
    elif hasattr(model, "tree_") and hasattr(model.tree_, "children_left"):
        tree = from_sklearn(model)
    else:
        raise TypeError(f"expected a fitted tree estimator or a Tree, got {type(model).__name__}")
    if tree.leaf_model != "label" or not tree.is_axis_aligned:
        raise ValueError("the decision-tree edit distance compares axis-aligned trees with class leaves")
    return tree


@dataclass
class _Node:
    feature: int            # -1 at leaves
    threshold: float
    label: int              # predicted class at leaves
    flipped: bool = False   # the left child holds x_j > threshold
    children: list = field(default_factory=list)


def _order_key(share_left, share_right, rank) -> bool:
    """Whether the two children swap: rank 1, 3, ... prefer the larger share on the left, 2, 4, ... on the right."""
    for r, k in enumerate(rank):
        a, b = share_left[k], share_right[k]
        if not np.isclose(a, b):
            return (a < b) if r % 2 == 0 else (a > b)
    return False


def sorted_nodes(model, statistics: TreeStatistics) -> _Node:
    """The ordered labelled tree of 5.3.1 (nested nodes with ``children``), as APTED reads it."""
    tree = as_tree(model)
    if tree.n_features > len(statistics.iqr):
        raise ValueError(f"the tree has {tree.n_features} features and the statistics {len(statistics.iqr)}: "
                         "build tree_statistics from the data the trees were fitted on")
    share = tree.value / np.maximum(tree.value.sum(axis=1, keepdims=True), 1e-300)
    feature = tree.feature

    def build(t):
        if tree.is_leaf[t]:
            return _Node(-1, 0.0, int(tree.label[t]))
        left, right = tree.children_left[t], tree.children_right[t]
        swap = _order_key(share[left], share[right], statistics.class_rank)
        if swap:
            left, right = right, left
        return _Node(int(feature[t]), float(tree.threshold[t]), -1, swap, [build(left), build(right)])

    return build(0)


class _DecisionTreeCosts(Config):
    valuecls = float

    def __init__(self, cost: str, statistics: TreeStatistics):
        if cost not in COSTS:
            raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
        if cost.endswith("2") and statistics.correlation is None:
            raise ValueError(f"cost {cost} needs feature correlations: tree_statistics(..., correlation=...)")
        self.offset = 1.0 if cost.startswith("A") else 0.0
        self.correlated = cost.endswith("2")
        self.statistics = statistics

    def delete(self, node):
        return 1.0

    def insert(self, node):
        return 1.0

    def rename(self, n, v):
        if n.feature < 0 or v.feature < 0:                         # a leaf on either side
            return 0.0 if (n.feature < 0 and v.feature < 0 and n.label == v.label) else 1.0 + self.offset
        if n.feature != v.feature:
            rho = self.statistics.correlation[n.feature, v.feature] if self.correlated else 0.0
            return 1.0 + self.offset - rho
        if n.threshold == v.threshold:                             # the same test function
            return 0.0
        iqr = self.statistics.iqr[n.feature]
        gap = abs(n.threshold - v.threshold) / iqr if iqr > 0 else 1.0
        return self.offset + min(1.0, gap)

    def children(self, node):
        return node.children


@contextmanager
def _deep_trees(*models):
    """Python's recursion limit raised to fit the deepest of ``models`` while they are compared: APTED indexes
    a tree recursively, and an unpruned tree can be hundreds of levels deep (depth 999 raised RecursionError)."""
    depth = max(as_tree(m).max_depth for m in models) if models else 0
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * depth + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _size(node: _Node) -> int:
    return 1 + sum(_size(c) for c in node.children)


def normalized(distance: float, size_a: int, size_b: int) -> float:
    """Eq. 5.6: ``d / (|t1| + |t2|)`` with ``|t|`` the number of nodes."""
    return distance / (size_a + size_b)


def tree_edit_distance(a, b, statistics: TreeStatistics, cost="B2", normalize=False) -> float:
    """Edit distance ``d_A1 / d_A2 / d_B1 / d_B2`` (seed 000, 5.3) between two fitted trees.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> stats = tree_statistics(X, y)
    >>> t1 = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    >>> t2 = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> tree_edit_distance(t1, t1, stats), tree_edit_distance(t1, t2, stats, cost="B1")  # insert a split and a leaf
    (0.0, 2.0)
    """
    with _deep_trees(a, b):
        na, nb = sorted_nodes(a, statistics), sorted_nodes(b, statistics)
        d = float(APTED(na, nb, _DecisionTreeCosts(cost, statistics)).compute_edit_distance())
        return normalized(d, _size(na), _size(nb)) if normalize else d


def edit_distance_matrix(models, statistics: TreeStatistics, cost="B2", normalize=False, n_jobs=None) -> np.ndarray:
    """Symmetric matrix of :func:`tree_edit_distance` between every pair of ``models``."""
    from joblib import Parallel, delayed

    with _deep_trees(*models):
        nodes = [sorted_nodes(m, statistics) for m in models]
        sizes = [_size(n) for n in nodes]
        need = sys.getrecursionlimit()
    config = _DecisionTreeCosts(cost, statistics)
    pairs = [(i, j) for i in range(len(nodes)) for j in range(i + 1, len(nodes))]

    def one(i, j):
        sys.setrecursionlimit(max(sys.getrecursionlimit(), need))     # in a joblib worker process too
        return float(APTED(nodes[i], nodes[j], config).compute_edit_distance())

    with _deep_trees(*models):
        values = Parallel(n_jobs=n_jobs)(delayed(one)(i, j) for i, j in pairs) if n_jobs not in (None, 1) \
            else [one(i, j) for i, j in pairs]
    D = np.zeros((len(nodes), len(nodes)))
    for (i, j), d in zip(pairs, values):
        D[i, j] = D[j, i] = normalized(d, sizes[i], sizes[j]) if normalize else d
    return D
