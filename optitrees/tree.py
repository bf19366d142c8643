"""Fitted trees: small, solver-independent objects.

:class:`LabelTree` (OCT, OCT-H) has splits at branch nodes and class labels at
the leaves; :class:`ObliqueTree` (loss-optimal trees) classifies with the
hyperplanes of its last branching layer.

An :class:`ObliqueTree` of depth ``d`` holds one hyperplane ``(w_t, b_t)`` per
branch node (rows ordered by node id ``t = 1 .. 2^d - 1``). A point goes right
at an inner node when ``w_t x + b_t > split_margin`` and left otherwise; the
last-layer node it reaches classifies it with ``sign(w_t x + b_t)`` and, for
logistic trees, the probability ``sigmoid(w_t x + b_t)``.

``split_margin`` is the middle of the gap ``(0, eps)`` that the forwarding
constraints (3.7) leave open: the MIP sends a training point left only when
``w_t x + b_t <= 0`` and right only when it is ``>= eps``, so the decision at
``eps / 2`` reproduces the solver's routing even when the solver returns values
within its feasibility tolerance of the bounds.

Predictions, exports, plots and objective evaluations read this object, never
the Pyomo model or the solver.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import expit

__all__ = ["ObliqueTree", "LabelTree"]


@dataclass
class ObliqueTree:
    """Oblique binary tree of linear classifiers.

    Parameters
    ----------
    weights : ndarray of shape (n_nodes, n_features)
        ``w_t`` for node ``t`` at row ``t - 1``; ``n_nodes = 2^d - 1``.
    intercepts : ndarray of shape (n_nodes,)
        ``b_t``.
    split_margin : float, default=0.0
        Inner nodes send a point right when ``w_t x + b_t > split_margin``.
    feature_names : ndarray of str, optional
    """

    weights: np.ndarray
    intercepts: np.ndarray
    split_margin: float = 0.0
    feature_names: np.ndarray | None = field(default=None)

    def __post_init__(self):
        self.weights = np.asarray(self.weights, dtype=float)
        self.intercepts = np.asarray(self.intercepts, dtype=float).ravel()
        n_nodes = self.weights.shape[0]
        depth = int(np.log2(n_nodes + 1))
        if n_nodes < 1 or 2**depth - 1 != n_nodes or self.intercepts.shape != (n_nodes,):
            raise ValueError("weights must have 2^d - 1 rows and intercepts one entry per row")

    @property
    def depth(self) -> int:
        return int(np.log2(self.weights.shape[0] + 1))

    @property
    def n_features(self) -> int:
        return self.weights.shape[1]

    @property
    def nodes(self) -> np.ndarray:
        return np.arange(1, self.weights.shape[0] + 1)

    # -------------------------------------------------------------- routing
    def node_values(self, X) -> np.ndarray:
        """``w_t x_i + b_t`` for every point and node, shape ``(n, n_nodes)``."""
        return np.asarray(X, dtype=float) @ self.weights.T + self.intercepts

    def decision_path(self, X, values=None) -> np.ndarray:
        """Node visited at each layer, shape ``(n, depth)``; column ``h-1`` is layer ``h``."""
        a = self.node_values(X) if values is None else values
        n = a.shape[0]
        path = np.empty((n, self.depth), dtype=int)
        node = np.ones(n, dtype=int)
        rows = np.arange(n)
        for h in range(self.depth):
            path[:, h] = node
            if h < self.depth - 1:
                node = 2 * node + (a[rows, node - 1] > self.split_margin)
        return path

    def apply(self, X) -> np.ndarray:
        """Last-layer node id reached by each point."""
        return self.decision_path(X)[:, -1]

    def path_values(self, X, values=None) -> np.ndarray:
        """``w_t x_i + b_t`` at the node of each layer on the point's path, ``(n, depth)``."""
        a = self.node_values(X) if values is None else values
        path = self.decision_path(X, a)
        return np.take_along_axis(a, path - 1, axis=1)

    def decision_function(self, X) -> np.ndarray:
        """``w_t x + b_t`` of the last-layer node each point reaches."""
        return self.path_values(X)[:, -1]

    def predict_proba(self, X) -> np.ndarray:
        """``sigmoid(w_t x + b_t)`` at the last-layer node: P(y = +1 | x)."""
        return expit(self.decision_function(X))

    def predict(self, X) -> np.ndarray:
        """Labels in {-1, +1}: ``+1`` where ``w_t x + b_t > 0``."""
        return np.where(self.decision_function(X) > 0, 1, -1)

    def confidence(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Per-node confidence along each point's path (seed 002, Figure 3.6).

        At an inner node the confidence of the forwarding decision taken is
        ``sigmoid(a)`` when going right and ``1 - sigmoid(a)`` when going left; at
        the last-layer node it is the probability of the predicted class.

        Returns
        -------
        path : ndarray of shape (n, depth)
            Node ids on the path.
        confidence : ndarray of shape (n, depth)
        """
        a = self.node_values(X)
        path = self.decision_path(X, a)
        v = np.take_along_axis(a, path - 1, axis=1)
        p = expit(v)
        right = np.empty_like(v, dtype=bool)
        right[:, :-1] = (path[:, 1:] % 2) == 1
        right[:, -1] = v[:, -1] > 0
        return path, np.where(right, p, 1.0 - p)

    # ------------------------------------------------------------- objectives
    def margins(self, X, y) -> np.ndarray:
        """``y_i (w_t x_i + b_t)`` at each layer's node on the path, ``(n, depth)``."""
        return np.asarray(y, float)[:, None] * self.path_values(X)

    def objective(self, X, y, C, loss, penalty=1.0) -> float:
        """``sum_h C_h sum_i loss(y_i (w_t x_i + b_t)) + sum_t penalty * ||w_t||_1``.

        This is the objective of the seed's experiments (3.17a with ``lambda``
        moved to the loss); ``loss`` is the exact logistic loss or its tangent
        underestimator.
        """
        C = np.broadcast_to(np.asarray(C, float), (self.depth,))
        per_layer = loss(self.margins(X, y)).sum(axis=0)
        return float(per_layer @ C + penalty * np.abs(self.weights).sum())

    # ---------------------------------------------------------------- units
    def unscaled(self, mean, scale) -> "ObliqueTree":
        """The same tree on raw features when it was learned on ``(x - mean) / scale``.

        ``w (x - mu) / sigma + b = (w / sigma) x + (b - w mu / sigma)``.
        """
        w = self.weights / scale[None, :]
        return replace(self, weights=w, intercepts=self.intercepts - w @ mean)

    def with_nodes(self, nodes, weights, intercepts) -> "ObliqueTree":
        """Copy with the hyperplanes of ``nodes`` replaced."""
        W = self.weights.copy()
        b = self.intercepts.copy()
        idx = np.asarray(nodes) - 1
        W[idx] = weights
        b[idx] = intercepts
        return replace(self, weights=W, intercepts=b)


@dataclass
class LabelTree:
    """Binary tree with splits at the branch nodes and a class label at each leaf (OCT, OCT-H).

    A point goes right at an active branch node ``t`` when
    ``w_t x >= thresholds_t`` and left otherwise; an inactive node (a pruned
    split) sends every point right. Leaves are nodes ``2^d .. 2^(d+1) - 1``.

    Parameters
    ----------
    weights : ndarray of shape (n_branch, n_features)
        ``w_t`` for node ``t`` at row ``t - 1`` (one nonzero for axis-aligned splits).
    thresholds : ndarray of shape (n_branch,)
    active : ndarray of bool of shape (n_branch,)
    leaf_labels : ndarray of int of shape (n_leaves,)
        Class index of each leaf, left to right.
    n_classes : int
    leaf_counts : ndarray of shape (n_leaves, n_classes), optional
        Training points of each class per leaf (for ``predict_proba``); see
        :meth:`with_counts`.
    feature_names : ndarray of str, optional
    """

    weights: np.ndarray
    thresholds: np.ndarray
    active: np.ndarray
    leaf_labels: np.ndarray
    n_classes: int
    leaf_counts: np.ndarray | None = None
    feature_names: np.ndarray | None = field(default=None)

    def __post_init__(self):
        self.weights = np.asarray(self.weights, dtype=float)
        self.thresholds = np.asarray(self.thresholds, dtype=float).ravel()
        self.active = np.asarray(self.active, dtype=bool).ravel()
        self.leaf_labels = np.asarray(self.leaf_labels, dtype=int).ravel()
        n_nodes = self.weights.shape[0]
        depth = int(np.log2(n_nodes + 1))
        if n_nodes < 1 or 2**depth - 1 != n_nodes or self.thresholds.shape != (n_nodes,) \
                or self.active.shape != (n_nodes,) or self.leaf_labels.shape != (n_nodes + 1,):
            raise ValueError("a depth-d tree needs 2^d - 1 splits and 2^d leaf labels")

    @property
    def depth(self) -> int:
        return int(np.log2(self.weights.shape[0] + 1))

    @property
    def nodes(self) -> np.ndarray:
        return np.arange(1, self.weights.shape[0] + 1)

    @property
    def leaves(self) -> np.ndarray:
        n = self.weights.shape[0] + 1
        return np.arange(n, 2 * n)

    def decision_path(self, X) -> np.ndarray:
        """Node ids visited by each point, shape ``(n, depth + 1)``, root first, leaf last."""
        X = np.asarray(X, float)
        goes_right = ~self.active[None, :] | (X @ self.weights.T >= self.thresholds[None, :])
        path = np.ones((X.shape[0], self.depth + 1), dtype=int)
        for h in range(1, self.depth + 1):
            prev = path[:, h - 1]
            path[:, h] = 2 * prev + goes_right[np.arange(X.shape[0]), prev - 1]
        return path

    def apply(self, X) -> np.ndarray:
        """Leaf id reached by each point."""
        return self.decision_path(X)[:, -1]

    def predict(self, X) -> np.ndarray:
        """Class index of the leaf each point reaches."""
        return self.leaf_labels[self.apply(X) - self.leaves[0]]

    def predict_proba(self, X) -> np.ndarray:
        """Class frequencies of the training points in each point's leaf, shape ``(n, n_classes)``.

        A leaf without training points predicts its label with probability 1.
        """
        idx = self.apply(X) - self.leaves[0]
        if self.leaf_counts is None:
            return np.eye(self.n_classes)[self.leaf_labels[idx]]
        counts = self.leaf_counts.astype(float)
        empty = counts.sum(axis=1) == 0
        counts[empty] = np.eye(self.n_classes)[self.leaf_labels[empty]]
        return (counts / counts.sum(axis=1, keepdims=True))[idx]

    def with_counts(self, X, y) -> "LabelTree":
        """Copy with ``leaf_counts`` of ``(X, y)``; empty leaves take their nearest non-empty ancestor's majority."""
        leaf_idx = self.apply(X) - self.leaves[0]
        counts = np.zeros((len(self.leaves), self.n_classes))
        np.add.at(counts, (leaf_idx, np.asarray(y, int)), 1.0)
        labels = self.leaf_labels.copy()
        # aggregate counts bottom-up so an empty leaf can use its closest populated ancestor
        node_counts = {int(l): counts[k] for k, l in enumerate(self.leaves)}
        for t in self.nodes[::-1]:
            node_counts[int(t)] = node_counts[2 * int(t)] + node_counts[2 * int(t) + 1]
        for k, l in enumerate(self.leaves):
            if counts[k].sum() == 0:
                t = int(l) // 2
                while t > 1 and node_counts[t].sum() == 0:
                    t //= 2
                labels[k] = int(np.argmax(node_counts[t]))
        return replace(self, leaf_labels=labels, leaf_counts=counts)

    def n_splits(self) -> int:
        """Number of active splits."""
        return int(self.active.sum())

    def n_features_used(self) -> int:
        """Nonzero weights over all active splits (OCT-H's complexity)."""
        return int((self.weights[self.active] != 0).sum())

    def unscaled(self, low, span) -> "LabelTree":
        """The same tree on raw features when it was learned on ``(x - low) / span``.

        ``w (x - low) / span >= c  <=>  (w / span) x >= c + w low / span``.
        """
        w = self.weights / span[None, :]
        thr = np.where(self.active, self.thresholds + w @ low, 0.0)
        # a single positive weight reads best as "x_j >= threshold": divide the rule by it
        single = ((w != 0).sum(axis=1) == 1) & (w.max(axis=1) > 0)
        scale = np.where(single, w.max(axis=1), 1.0)
        return replace(self, weights=w / scale[:, None], thresholds=thr / scale)
