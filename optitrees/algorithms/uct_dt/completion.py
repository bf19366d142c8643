"""C4.5's completion of a partial decision tree, UCT-DT's simulation (seed 000, 4.4.3-4.4.4).

A state of the search is a tree whose leaves hold induction and validation
rows. Completing it grows every leaf that can still be split by C4.5 on the
induction rows; with DT-based pruning the completed tree is then pruned
pessimistically (2.2.3, without subtree raising), and the split that created
the state must survive. Because that pruning is bottom-up and local, the
completion of each leaf is computed once and cached
(:meth:`C45Completion.leaf_completion`), and a state's figures follow from its
own splits (:meth:`C45Completion.simulate`); :meth:`C45Completion.complete`
builds the whole tree (for bootstrap samples, and as the reference the cache
is tested against).
"""

from __future__ import annotations

import numpy as np

from ..c45.induction import GrowNode, grow_c45, to_tree
from ..c45.pessimistic_pruning import SIMPLER_TOLERANCE, collapse, expected_errors, prune

__all__ = ["macro_f1", "C45Completion"]


def macro_f1(confusion) -> float:
    """Average over classes of ``2 PPV sensitivity / (PPV + sensitivity)`` from a confusion matrix
    (true x predicted)."""
    confusion = np.asarray(confusion, float)
    tp = np.diag(confusion)
    denominator = confusion.sum(axis=0) + confusion.sum(axis=1)
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)
    return float(f1.mean())



class C45Completion:
    """Completion of search states by C4.5 on ``(X, y)`` (class indices), with induction rows ``ind`` (and each
    row's weight ``sample_weight``, default 1)."""

    def __init__(self, X, y, ind, *, n_classes, allowed, max_depth, min_samples_split=4, confidence_factor=0.25,
                 dt_pruning=True, sample_weight=None):
        self.X, self.y, self.ind, self.K = X, y, ind, n_classes
        self.v = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        self.Y = np.eye(n_classes)[y]
        self.allowed, self.max_depth, self.min_samples_split = allowed, max_depth, min_samples_split
        self.confidence_factor, self.dt_pruning = confidence_factor, dt_pruning
        self._completions = {}

    def complete(self, state, rows=None):
        """The state's tree with every splittable leaf grown by C4.5 (on ``rows``, default the induction rows)."""
        rows = self.ind if rows is None else rows
        skeleton = {}

        def build(t, node_rows, depth):
            if t in state.splits:
                f, tau, lt, rt = state.splits[t]
                go = self.X[node_rows, f] <= tau
                node = GrowNode(node_rows, self.v[node_rows], self._counts(node_rows), f, tau,
                                build(lt, node_rows[go], depth + 1), build(rt, node_rows[~go], depth + 1))
            elif self.v[node_rows].sum() >= self.min_samples_split and depth < self.max_depth:
                node = grow_c45(self.X, self.Y, allowed=self.allowed, max_depth=self.max_depth - depth,
                                rows=node_rows, weights=self.v[node_rows])
            else:
                node = GrowNode(node_rows, self.v[node_rows], self._counts(node_rows))
            skeleton[t] = node
            return node

        root = build(0, rows, 0)
        if self.dt_pruning:
            collapse(root)
            prune(self.X, self.Y, root, self.confidence_factor, laplace=True, subtree_raising=False)
        return root, skeleton

    def _counts(self, rows):
        """Class totals (weights) of ``rows``."""
        return self.v[rows] @ self.Y[rows]

    @staticmethod
    def survives(root, target) -> bool:
        """Whether ``target`` is still a split reachable from ``root``."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node is target:
                return not node.is_leaf
            if not node.is_leaf:
                stack += [node.left, node.right]
        return False

    def grown_f1(self, root, val_rows) -> float:
        pred = to_tree(root, self.X.shape[1]).predict(self.X[val_rows])
        confusion = np.zeros((self.K, self.K))
        np.add.at(confusion, (self.y[val_rows], pred), self.v[val_rows])
        return macro_f1(confusion)

    def _leaf_confusion(self, node, rows, label, out):
        """Add the predictions of a grown subtree on validation ``rows`` to the confusion matrix ``out``."""
        own = int(np.argmax(node.counts)) if node.counts.sum() > 0 else label
        if node.is_leaf:
            out[:, own] += np.bincount(self.y[rows], weights=self.v[rows], minlength=self.K)
            return
        go = self.X[rows, node.feature] <= node.threshold
        self._leaf_confusion(node.left, rows[go], own, out)
        self._leaf_confusion(node.right, rows[~go], own, out)

    def leaf_completion(self, leaf):
        """C4.5's completion of one leaf, cached: training errors, pruned pessimistic errors, validation confusions.

        Pruning is bottom-up and local (without subtree raising), so a state's
        completed-and-pruned tree is decided by these per-leaf figures and its
        own splits (:meth:`simulate`).
        """
        key = (leaf.depth, leaf.rows.tobytes(), leaf.val_rows.tobytes())
        if key in self._completions:
            return self._completions[key]
        weights = self.v[leaf.rows]
        if weights.sum() >= self.min_samples_split and leaf.depth < self.max_depth:
            root = grow_c45(self.X, self.Y, allowed=self.allowed, max_depth=self.max_depth - leaf.depth,
                            rows=leaf.rows, weights=weights)
        else:
            root = GrowNode(leaf.rows, weights, self._counts(leaf.rows))
        full = np.zeros((self.K, self.K))
        self._leaf_confusion(root, leaf.val_rows, leaf.label, full)
        train = sum(lf.counts.sum() - lf.counts.max() for lf in root.leaves())
        collapse(root)
        prune(self.X, self.Y, root, self.confidence_factor, laplace=True, subtree_raising=False)
        estimate = sum(expected_errors(lf.counts, self.confidence_factor) for lf in root.leaves())
        pruned = np.zeros((self.K, self.K))
        self._leaf_confusion(root, leaf.val_rows, leaf.label, pruned)
        self._completions[key] = out = (train, estimate, full, pruned)
        return out

    def simulate(self, state, target):
        """``(keep, confusion)`` of the state completed by C4.5 (pruned when DT-based pruning is on).

        Equal to completing the whole tree and pruning it (:meth:`complete`), from cached leaf completions.
        """
        pruned_nodes = set()

        def visit(t):
            if t in state.leaves:
                leaf = state.leaves[t]
                train, estimate, full, pruned = self.leaf_completion(leaf)
                val_counts = np.bincount(self.y[leaf.val_rows], weights=self.v[leaf.val_rows], minlength=self.K)
                return leaf.counts, train, estimate, (pruned if self.dt_pruning else full), val_counts
            _, _, lt, rt = state.splits[t]
            a, b = visit(lt), visit(rt)
            counts, train, estimate = a[0] + b[0], a[1] + b[1], a[2] + b[2]
            confusion, val_counts = a[3] + b[3], a[4] + b[4]
            if self.dt_pruning:
                own_train = counts.sum() - counts.max()
                leaf_estimate = expected_errors(counts, self.confidence_factor)
                if train >= own_train - 1e-3 or leaf_estimate <= estimate + SIMPLER_TOLERANCE:
                    pruned_nodes.add(t)
                    confusion = np.zeros((self.K, self.K))
                    confusion[:, int(np.argmax(counts))] = val_counts
                    estimate, train = leaf_estimate, own_train
            return counts, train, estimate, confusion, val_counts

        confusion = visit(0)[3]
        keep = True
        if target is not None:
            parent = {c: t for t, (_, _, lt, rt) in state.splits.items() for c in (lt, rt)}
            t = target
            while True:
                if t in pruned_nodes:
                    keep = False
                    break
                if t == 0:
                    break
                t = parent[t]
        return keep, confusion

