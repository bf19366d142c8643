"""A complete tree of fixed depth as breadth-first arrays: the working form of TAO and TMO.

Splits are the breadth-first nodes ``1 .. S`` (``S = 2^D - 1``), leaves the
nodes ``S + 1 .. 2S + 1``; node ``t`` has children ``2t`` and ``2t + 1``. A
point goes left at an active split when ``W[t] @ x <= thr[t]``; an inactive
split sends every point right (so a subtree can be switched off without
changing the array shapes, the encoding TMO crosses over). Leaves hold a class
label (label trees) or a linear model ``leaf_W @ x + leaf_b`` (the last layer
of loss-optimal trees). Converting to and from :class:`~optitrees.trees.Tree`
uses :func:`~optitrees.trees.from_complete` / :func:`~optitrees.trees.to_complete`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..trees import Tree, from_complete, to_complete

__all__ = ["FixedTree"]


@dataclass
class FixedTree:
    """Complete tree of ``depth`` levels of splits (see the module docstring).

    Attributes
    ----------
    W : ndarray of shape (S, p)
    thr : ndarray of shape (S,)
    active : ndarray of bool of shape (S,)
    b : ndarray of shape (S,)
        The splits' own classifier offsets (linear-model trees; 0 otherwise).
    leaf_label : ndarray of int of shape (S + 1,)
    leaf_W, leaf_b : ndarray of shape (S + 1, p) and (S + 1,), or None
        Linear leaves.
    """

    W: np.ndarray
    thr: np.ndarray
    active: np.ndarray
    b: np.ndarray
    leaf_label: np.ndarray
    leaf_W: np.ndarray | None = None
    leaf_b: np.ndarray | None = None

    @property
    def depth(self) -> int:
        return int(np.log2(len(self.thr) + 1))

    @property
    def n_splits(self) -> int:
        return len(self.thr)

    @property
    def linear(self) -> bool:
        return self.leaf_W is not None

    def copy(self) -> "FixedTree":
        return replace(self, W=self.W.copy(), thr=self.thr.copy(), active=self.active.copy(), b=self.b.copy(),
                       leaf_label=self.leaf_label.copy(),
                       leaf_W=None if self.leaf_W is None else self.leaf_W.copy(),
                       leaf_b=None if self.leaf_b is None else self.leaf_b.copy())

    @property
    def axis_aligned(self) -> bool:
        """Every split weighs at most one feature."""
        return bool(np.count_nonzero(self.W, axis=1).max(initial=0) <= 1)

    # --------------------------------------------------------------- routing
    def goes_right(self, X, nodes, rows=None) -> np.ndarray:
        """Whether each row of ``X`` goes right at the split ``nodes`` (breadth-first ids, one per row).

        ``rows``: the rows of ``X`` meant, one per node (default all); an axis-aligned tree reads their one
        feature each in place, with no copy of the rows."""
        nodes = np.asarray(nodes)
        if self.axis_aligned:                     # read one feature per row, no dense weight rows
            feature = np.argmax(self.W != 0, axis=1)
            coef = self.W[np.arange(self.n_splits), feature]
            at = np.arange(X.shape[0]) if rows is None else rows
            values = X[at, feature[nodes - 1]] * coef[nodes - 1]
        else:
            values = np.einsum("ij,ij->i", X if rows is None else X[rows], self.W[nodes - 1])
        return ~self.active[nodes - 1] | (values > self.thr[nodes - 1])

    def path(self, X, start=1, rows=None) -> np.ndarray:
        """Breadth-first ids visited from ``start`` (a node, or one per row, all on one level) down to the leaves.

        Shape ``(n, D - level(start) + 1)``; the last column is the leaf. ``rows``: only these rows of ``X``
        (read in place by an axis-aligned tree).
        """
        X = np.asarray(X, dtype=float)
        n = X.shape[0] if rows is None else len(rows)
        first = int(np.min(start)) if np.ndim(start) and np.size(start) else int(np.max(start, initial=1))
        n_levels = self.depth - int(np.log2(first)) + 1
        node = np.broadcast_to(np.asarray(start, np.int64), (n,)).copy()
        levels = [node.copy()]
        for _ in range(n_levels - 1):
            node = 2 * node + self.goes_right(X, node, rows)
            levels.append(node.copy())
        return np.column_stack(levels)

    def leaf_of(self, X, start=1, rows=None) -> np.ndarray:
        """Leaf position ``0 .. S`` reached by each row (of ``rows``) from ``start``."""
        return self.path(X, start, rows)[:, -1] - (self.n_splits + 1)

    def predict(self, X, start=1, rows=None) -> np.ndarray:
        """Class index (label trees) reached by each row (of ``rows``) from ``start``."""
        return self.leaf_label[self.leaf_of(X, start, rows)]

    def rows_by_node(self, X) -> dict:
        """Rows of ``X`` reaching every node (breadth-first id -> row indices), from one routing pass."""
        path = self.path(X)
        rows = {}
        for level in range(path.shape[1]):
            ids = path[:, level]
            order = np.argsort(ids.astype(np.min_scalar_type(2 * self.n_splits + 1)), kind="stable")  # radix sort
            nodes, starts = np.unique(ids[order], return_index=True)
            for node, part in zip(nodes, np.split(order, starts[1:])):
                rows[int(node)] = part
        return rows

    def subtree(self, t) -> np.ndarray:
        """Breadth-first ids of the splits in the subtree of ``t`` (``t`` included)."""
        out, level = [], np.array([t])
        while level.size and level[0] <= self.n_splits:
            out.append(level)
            level = np.concatenate([2 * level, 2 * level + 1])
        return np.concatenate(out) if out else np.zeros(0, np.int64)

    def subtree_leaves(self, t) -> np.ndarray:
        """Leaf positions below node ``t``."""
        shift = self.depth - (int(np.log2(t)))
        first = t << shift
        return np.arange(first, first + 2**shift) - (self.n_splits + 1)

    # ------------------------------------------------------------ conversion
    @classmethod
    def from_tree(cls, tree: Tree, depth: int) -> "FixedTree":
        """The complete layout of ``tree`` with ``depth`` levels of splits (leaves above it behind unused splits)."""
        c = to_complete(tree, depth)
        linear = tree.leaf_model == "linear"
        return cls(c.split_weights, c.split_threshold, c.active, c.split_intercept, c.leaf_labels,
                   c.leaf_weights if linear else None, c.leaf_intercepts if linear else None)

    def to_tree(self, n_classes: int = 2, probabilistic: bool = False) -> Tree:
        """The compact :class:`~optitrees.trees.Tree` (unused splits dropped)."""
        if self.linear:
            return from_complete(self.W, self.thr, split_intercept=self.b, active=self.active,
                                 leaf_weights=self.leaf_W, leaf_intercepts=self.leaf_b,
                                 probabilistic=probabilistic)[0]
        return from_complete(self.W, self.thr, split_intercept=self.b, active=self.active,
                             leaf_labels=self.leaf_label, n_classes=n_classes)[0]
