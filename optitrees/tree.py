"""The fitted oblique tree: a small, solver-independent object.

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

__all__ = ["ObliqueTree"]


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
