"""One solver-independent tree object of parallel node arrays, like scikit-learn's ``tree_``.

Every tree model of the library is a :class:`Tree`: node 0 is the root, an
internal node ``t`` sends a point left when ``weights[t] @ x <= threshold[t]``
and right otherwise, and a leaf either predicts the class ``label[t]`` (label
leaves: OCT, OCT-H, TAO, C4.5 ...) or scores the point with its own linear
model ``weights[t] @ x + intercept[t]``, positive meaning class 1 (linear
leaves: the loss-optimal trees of seed 002, 3.12, whose last branching layer
classifies), or, in regression trees, predicts the number ``intercept[t]``
(value leaves: the regression trees of a forest, seed 002 ch. 5). In linear-model trees every node also keeps the
offset of its own classifier in ``intercept`` (the inner nodes' losses of 3.12 and the path
confidence of Figure 3.6 are computed from ``weights @ x + intercept``).

Views: :attr:`Tree.feature` (the axis-aligned view: the tested feature of a
split with a single unit weight, ``OBLIQUE`` for other splits, ``LEAF`` at
leaves), :attr:`Tree.is_axis_aligned`, and the leaf-label view ``label`` /
``value``. Prediction, export and plotting read only these arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit

from ..enums import TextEnum
from ..linear_form import linear_form

__all__ = ["Tree", "LeafModel", "LEAF", "OBLIQUE"]

#: ``children_left`` / ``children_right`` / ``feature`` value of a leaf.
LEAF = -1
#: ``feature`` value of a split that is not a single unit weight.
OBLIQUE = -2


class LeafModel(TextEnum):
    """What a leaf predicts (equal to its text value, so ``leaf_model="linear"`` works too)."""

    #: a class index (``label[leaf]``)
    LABEL = "label"
    #: the sign (or sigmoid) of the leaf's linear model ``weights[leaf] @ x + intercept[leaf]``
    LINEAR = "linear"
    #: the number ``intercept[leaf]`` (regression)
    VALUE = "value"
    #: the number ``weights[leaf] @ x + intercept[leaf]`` (regression with linear leaves)
    LINEAR_VALUE = "linear value"


@dataclass
class Tree:
    """Binary decision tree as parallel node arrays.

    Parameters
    ----------
    children_left, children_right : ndarray of int of shape (n_nodes,)
        Child node ids; ``LEAF`` (-1) at leaves.
    weights : ndarray of shape (n_nodes, n_features)
        Split hyperplane at internal nodes; the linear model at linear leaves.
    threshold : ndarray of shape (n_nodes,)
        Internal nodes: a point goes left when ``weights @ x <= threshold``.
    intercept : ndarray of shape (n_nodes,)
        Offset of each node's own linear model (linear-model trees); 0 otherwise.
    value : ndarray of shape (n_nodes, n_classes)
        Training points of each class reaching each node.
    label : ndarray of int of shape (n_nodes,)
        Class index predicted at each node (leaves of label trees).
    leaf_model : LeafModel or {"label", "linear", "value"}, default="label"
        ``"value"``: a leaf predicts the number ``intercept[leaf]`` (regression);
        ``value`` then holds the training samples of each node in one column.
    probabilistic : bool, default=False
        Linear leaves give ``sigmoid(score)`` as the probability of class 1.

    Examples
    --------
    >>> import numpy as np
    >>> stump = Tree(children_left=[1, -1, -1], children_right=[2, -1, -1],
    ...              weights=[[1.0, 0.0], [0, 0], [0, 0]], threshold=[2.5, 0, 0],
    ...              value=[[3, 2], [3, 0], [0, 2]], label=[0, 0, 1])
    >>> stump.predict(np.array([[1.0, 9.0], [3.0, 9.0]])).tolist(), stump.feature.tolist()
    ([0, 1], [0, -1, -1])
    """

    children_left: np.ndarray
    children_right: np.ndarray
    weights: np.ndarray
    threshold: np.ndarray
    intercept: np.ndarray | None = None
    value: np.ndarray | None = None
    label: np.ndarray | None = None
    leaf_model: LeafModel = LeafModel.LABEL
    probabilistic: bool = False

    def __post_init__(self):
        self.children_left = np.asarray(self.children_left, dtype=np.int64).ravel()
        self.children_right = np.asarray(self.children_right, dtype=np.int64).ravel()
        self.weights = np.atleast_2d(np.asarray(self.weights, dtype=float))
        n = len(self.children_left)
        self.threshold = np.asarray(self.threshold, dtype=float).ravel()
        self.intercept = np.zeros(n) if self.intercept is None else np.asarray(self.intercept, float).ravel()
        self.value = np.zeros((n, 2)) if self.value is None else np.atleast_2d(np.asarray(self.value, float))
        self.label = np.zeros(n, np.int64) if self.label is None else np.asarray(self.label, np.int64).ravel()
        if self.leaf_model not in tuple(LeafModel):
            raise ValueError(f"leaf_model must be 'label', 'linear' or 'value', got {self.leaf_model!r}")
        self.leaf_model = LeafModel(self.leaf_model)
        shapes = [len(self.children_right), self.weights.shape[0], len(self.threshold), len(self.intercept),
                  self.value.shape[0], len(self.label)]
        if n < 1 or any(s != n for s in shapes):
            raise ValueError("every node array needs one entry per node")
        internal = self.children_left != LEAF
        if np.any(internal != (self.children_right != LEAF)):
            raise ValueError("a node has either two children or none")
        parents = np.flatnonzero(internal)
        kids = np.concatenate([self.children_left[internal], self.children_right[internal]])
        if np.any(kids <= np.tile(parents, 2)) or np.any(kids >= n) or len(np.unique(kids)) != n - 1:
            raise ValueError("every node but the root must be the child of exactly one node with a smaller id")

    # ------------------------------------------------------------- structure
    @property
    def n_nodes(self) -> int:
        return len(self.children_left)

    @property
    def n_features(self) -> int:
        return self.weights.shape[1]

    @property
    def n_classes(self) -> int:
        return self.value.shape[1]

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == LEAF

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def node_depth(self) -> np.ndarray:
        """Depth of every node (the root has depth 0), one vectorized step per level."""
        depth = np.zeros(self.n_nodes, np.int64)
        level = np.zeros(1, np.int64)
        inner = ~self.is_leaf
        d = 0
        while level.size:
            depth[level] = d
            level = level[inner[level]]
            level = np.concatenate([self.children_left[level], self.children_right[level]])
            d += 1
        return depth

    @property
    def max_depth(self) -> int:
        return int(self.node_depth.max())

    @property
    def parent(self) -> np.ndarray:
        """Parent of every node (``-1`` for the root)."""
        parent = np.full(self.n_nodes, -1, np.int64)
        inner = np.flatnonzero(~self.is_leaf)
        parent[self.children_left[inner]] = inner
        parent[self.children_right[inner]] = inner
        return parent

    # ------------------------------------------------------------------ views
    @property
    def feature(self) -> np.ndarray:
        """Axis-aligned view: feature ``j`` where the split is ``x_j <= threshold``, else ``OBLIQUE`` / ``LEAF``."""
        nonzero = self.weights != 0
        single = (nonzero.sum(axis=1) == 1) & (self.weights.max(axis=1) == 1.0)
        out = np.where(single, np.argmax(nonzero, axis=1), OBLIQUE)
        return np.where(self.is_leaf, LEAF, out)

    @property
    def is_axis_aligned(self) -> bool:
        """Whether every split tests a single feature with a unit weight."""
        return bool(np.all(self.feature[~self.is_leaf] >= 0))

    def n_splits(self) -> int:
        return int((~self.is_leaf).sum())

    def n_features_used(self) -> int:
        """Nonzero weights over all splits (OCT-H's complexity)."""
        return int((self.weights[~self.is_leaf] != 0).sum())

    # ---------------------------------------------------------------- routing
    def node_values(self, X, nodes, rows=None) -> np.ndarray:
        """``weights[nodes[k]] @ X[rows[k]]`` for each pair (the one product every routing uses).

        Every product is the node's nonzero terms added left to right in feature order
        (:func:`~optitrees.linear_form.linear_form`), exactly as :func:`~optitrees.export.export_text` and
        :func:`~optitrees.export.export_sql` write it, so a row on a hyperplane goes the same way in every batch
        and in the database. A node with one nonzero weight reads its feature's column; the others are computed
        once per distinct node on that node's rows.
        """
        X = np.asarray(X, dtype=float)
        nodes = np.asarray(nodes, np.int64)
        rows = np.arange(len(nodes)) if rows is None else np.asarray(rows, np.int64)
        return self._node_values(X, nodes, rows, self._split_structure())

    def _split_structure(self):
        """Per node: the first nonzero feature, its weight, and whether the node has more than one."""
        nonzero = self.weights != 0
        feature = np.argmax(nonzero, axis=1)
        coef = self.weights[np.arange(self.n_nodes), feature]
        return feature, coef, nonzero.sum(axis=1) > 1

    def _node_values(self, X, nodes, rows, structure) -> np.ndarray:
        feature, coef, dense = structure
        values = X[rows, feature[nodes]] * coef[nodes]
        values[coef[nodes] == 0] = 0.0            # no term: 0 whatever the row holds (as printed)
        if dense.any():
            for t in np.unique(nodes[dense[nodes]]):
                mine = np.flatnonzero(nodes == t)
                values[mine] = linear_form(X, self.weights[t], rows=rows[mine])
        return values

    def decision_path(self, X) -> np.ndarray:
        """Node ids visited by each point, shape ``(n, max_depth + 1)``, root first, ``-1`` after the leaf."""
        X = np.asarray(X, dtype=float)
        n = X.shape[0]
        path = np.full((n, self.max_depth + 1), -1, np.int64)
        node = np.zeros(n, np.int64)
        rows = np.arange(n)
        structure = self._split_structure()
        for level in range(path.shape[1]):
            path[rows, level] = node
            inner = ~self.is_leaf[node]
            rows, node = rows[inner], node[inner]
            if rows.size == 0:
                break
            left = self._node_values(X, node, rows, structure) <= self.threshold[node]
            node = np.where(left, self.children_left[node], self.children_right[node])
        return path

    def apply(self, X) -> np.ndarray:
        """Leaf id reached by each point."""
        path = self.decision_path(X)
        return path[np.arange(len(path)), (path >= 0).sum(axis=1) - 1]

    def leaf_scores(self, X, leaves=None) -> np.ndarray:
        """``weights @ x + intercept`` of the leaf each point reaches (linear leaves): the terms added one by one
        in feature order, then the intercept, as the printed model and its SQL read (``w1 * x1 + w2 * x2 + c``
        from the left), so both give exactly these floats."""
        leaves = self.apply(X) if leaves is None else leaves
        return self.node_values(X, leaves) + self.intercept[leaves]

    def path_values(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(path, weights @ x + intercept)`` at every node on each point's path (``nan`` after the leaf)."""
        X = np.asarray(X, dtype=float)
        path = self.decision_path(X)
        values = np.full(path.shape, np.nan)
        structure = self._split_structure()
        for level in range(path.shape[1]):
            rows = np.flatnonzero(path[:, level] >= 0)
            nodes = path[rows, level]
            values[rows, level] = self._node_values(X, nodes, rows, structure) + self.intercept[nodes]
        return path, values

    # ------------------------------------------------------------- prediction
    def predict(self, X) -> np.ndarray:
        """Class index of each point (the leaf's number for value leaves)."""
        leaves = self.apply(X)
        if self.leaf_model is LeafModel.VALUE:
            return self.intercept[leaves]
        if self.leaf_model is LeafModel.LINEAR_VALUE:
            return self.leaf_scores(X, leaves)
        if self.leaf_model is LeafModel.LINEAR:
            return (self.leaf_scores(X, leaves) > 0).astype(np.int64)
        return self.label[leaves]

    def decision_function(self, X) -> np.ndarray:
        """Score of the linear leaf each point reaches (log-odds of class 1 for logistic leaves)."""
        if self.leaf_model is not LeafModel.LINEAR:
            raise AttributeError("a tree with label leaves has no decision function")
        return self.leaf_scores(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape ``(n, n_classes)``.

        Label leaves: the training class frequencies of the leaf (a leaf without
        training points gives its label probability 1). Logistic linear leaves:
        ``[1 - sigmoid(score), sigmoid(score)]``.
        """
        if self.leaf_model in (LeafModel.VALUE, LeafModel.LINEAR_VALUE):
            raise AttributeError("a regression tree has no class probabilities")
        if self.leaf_model is LeafModel.LINEAR:
            if not self.probabilistic:
                raise AttributeError("this tree's linear leaves give scores, not probabilities")
            p = expit(self.leaf_scores(X))
            return np.column_stack([1.0 - p, p])
        leaves = self.apply(X)
        counts = self.value.copy()
        empty = counts.sum(axis=1) == 0
        counts[empty] = np.eye(self.n_classes)[self.label[empty]]
        return (counts / counts.sum(axis=1, keepdims=True))[leaves]

    # --------------------------------------------------------------- editing
    def with_counts(self, X, y, relabel: str = "empty", sample_weight=None) -> "Tree":
        """Copy with ``value`` = class counts of ``(X, y)`` at every node (weighted: the rows' total weights).

        ``relabel="empty"`` gives each leaf without points the majority class
        of its nearest populated ancestor (other labels are kept);
        ``"all"`` relabels every node with its majority class.
        """
        y = np.asarray(y, np.int64)
        path = self.decision_path(X)
        rows, levels = np.nonzero(path >= 0)
        counts = np.zeros((self.n_nodes, max(self.n_classes, int(y.max(initial=0)) + 1)))
        np.add.at(counts, (path[rows, levels], y[rows]), 1.0 if sample_weight is None
                  else np.asarray(sample_weight, float)[rows])
        label = self.label.copy()
        populated = counts.sum(axis=1) > 0
        relabelled = populated & (~self.is_leaf | (relabel == "all"))
        label[relabelled] = np.argmax(counts, axis=1)[relabelled]
        parent = self.parent
        for t in range(1, self.n_nodes):        # parents have smaller ids than their children
            if not populated[t]:
                label[t] = label[parent[t]]
        return replace(self, value=counts, label=label)

    def to_original_units(self, data) -> "Tree":
        """The same tree on original features when it was learned on ``data.X``
        (see :class:`~optitrees.scaling.ScaledData`)."""
        W, c = data.to_original(self.weights, -self.threshold)
        _, b = data.to_original(self.weights, self.intercept)
        return replace(self, weights=W, threshold=np.where(self.is_leaf, 0.0, -c), intercept=b)

    def to_scaled_units(self, data) -> "Tree":
        """The inverse of :meth:`to_original_units`."""
        W, c = data.to_scaled(self.weights, -self.threshold)
        _, b = data.to_scaled(self.weights, self.intercept)
        return replace(self, weights=W, threshold=np.where(self.is_leaf, 0.0, -c), intercept=b)

    def with_nodes(self, nodes, weights=None, threshold=None, intercept=None) -> "Tree":
        """Copy with the arrays of ``nodes`` replaced."""
        W, thr, b = self.weights.copy(), self.threshold.copy(), self.intercept.copy()
        nodes = np.asarray(nodes)
        if weights is not None:
            W[nodes] = weights
        if threshold is not None:
            thr[nodes] = threshold
        if intercept is not None:
            b[nodes] = intercept
        return replace(self, weights=W, threshold=thr, intercept=b)
