"""Tree Alternating Optimization (Carreira-Perpinan & Tavallali 2018; seed 002, 3.3) of label trees.

TAO improves a tree of fixed depth on its exact training objective
``errors / L_hat + alpha * complexity`` (errors: their total weight when points
are weighted; complexity: active splits, or features
used over all splits for oblique trees), one node at a time, bottom-up. Nodes
at the same depth see disjoint points, so they are optimized independently:

* a leaf takes the majority class of the points reaching it;
* a split, with everything else fixed, can only change where its own points
  go. For each point the subtree below says whether going left or right
  classifies it correctly; points for which both sides agree ("don't care")
  are left out, the others get the better side as a pseudo-label, and the
  node solves the reduced problem: a split misclassifying as few pseudo-labels
  as possible. For an axis-aligned split this is solved exactly by a sorted
  scan over every feature and threshold; for oblique splits l1-logistic
  surrogate fits (and the best axis-aligned split) are candidates. Making the
  node unused (all points right) or a leaf (its subtree pruned) are
  candidates too.

A move is accepted only when the exact objective strictly decreases, so a
pass never makes the tree worse; passes repeat until none improves. At the
end, splits no training point reaches are switched off (dead branches pruned).
"""

from __future__ import annotations

import numpy as np

from ...budget import expired
from ..column_index import ColumnIndex, cuts
from ..fixed_tree import FixedTree
from ..node_fit import fit_sparse_l1_logistic

__all__ = ["tao_label_tree", "label_objective"]


def label_objective(ft: FixedTree, X, y, L_hat, alpha=0.0, complexity="splits", sample_weight=None) -> float:
    """``errors / L_hat + alpha * complexity`` of a label tree on ``(X, y)`` (errors: their total ``sample_weight``)."""
    wrong = ft.predict(X) != y
    errors = int(np.sum(wrong)) if sample_weight is None else float(np.asarray(sample_weight, float) @ wrong)
    return float(errors / L_hat + alpha * _complexity(ft, ft.active, complexity))


def _complexity(ft, mask, kind):
    if kind == "splits":
        return int(np.sum(mask & ft.active))
    return int(np.sum((ft.W[mask & ft.active]) != 0))


def _scan(index: ColumnIndex, rows, prefer, allowed, gap=0.0, weight=None):
    """Best axis-aligned split ``x_j <= thr`` of a node's ``rows`` for pseudo-labels ``prefer`` (+1 right, -1 left,
    0 don't care).

    Thresholds lie midway between consecutive distinct values of the node at
    least ``gap`` apart (without a gap, of the points that care: the others
    count nowhere). Every cut of every allowed feature is scored at once from
    the training set's :class:`~optitrees.algorithms.column_index.ColumnIndex`
    (value histograms, presorted rows). Returns candidates ``(errors, j, thr, left_count)``
    sorted by errors, then by the rows on the left, then by feature (at most 10);
    ``errors`` counts the pseudo-labels sent the wrong way (their total ``weight`` when given).
    """
    rows, prefer = np.asarray(rows), np.asarray(prefer)
    if gap == 0 and np.any(prefer == 0):
        # points that go either way change no count: without a margin to keep from them, scan the others only
        care = prefer != 0
        rows, prefer = rows[care], prefer[care]
        weight = None if weight is None else weight[care]
    if len(rows) < 2 or not np.any(allowed):
        return []
    weight = np.ones(len(rows)) if weight is None else np.asarray(weight, float)
    labels = np.where(prefer == -1, 0, np.where(prefer == 1, 1, 2))         # left, right, don't care
    found = cuts(index, index.level(rows, weight), labels, 3, np.asarray(allowed, bool))
    total_left = found.known[found.group, 0]
    errors = found.left[:, 1] + (total_left - found.left[:, 0])
    valid = found.upper - found.lower >= gap
    feature = found.group % index.n_features
    best = np.lexsort((feature, found.left_rows, np.where(valid, errors, np.inf)))[:10]
    return [(float(errors[b]), int(feature[b]), float((found.lower[b] + found.upper[b]) / 2), int(found.left_rows[b]))
            for b in best if valid[b]]


def _snap(values, thr, mu):
    """The threshold nearest ``thr`` in a gap of at least ``mu`` between sorted ``values`` (midpoint of the gap)."""
    if mu <= 0 or values.size < 2:
        return thr
    s = np.sort(values)
    gaps = np.flatnonzero(np.diff(s) >= mu)
    cands = np.concatenate([(s[gaps] + s[gaps + 1]) / 2, [s[0] - mu, s[-1] + mu]])
    return float(cands[np.argmin(np.abs(cands - thr))])


class _LabelTAO:
    """One TAO run on a label tree (see :func:`tao_label_tree`)."""

    def __init__(self, X, y, L_hat, alpha, complexity, oblique, min_samples_leaf, mu, allowed, random_state,
                 index=None, sample_weight=None, max_features=None):
        self.X, self.y = np.asarray(X, float), np.asarray(y, np.int64)
        self.v = None if sample_weight is None else np.asarray(sample_weight, float)
        self.L_hat, self.alpha, self.kind = float(L_hat), float(alpha), complexity
        self.oblique, self.n_min, self.mu = oblique, int(min_samples_leaf), float(mu)
        self.allowed = np.ones(self.X.shape[1], bool) if allowed is None else np.asarray(allowed, bool)
        self.random_state = random_state
        self.max_features = max_features
        self.n_classes = int(self.y.max()) + 1
        # every column ranked once: a node's cuts are then counted, not sorted
        self.index = ColumnIndex(self.X) if index is None else index

    def count(self, mask, rows):
        """How many of the node's points ``mask`` selects (their total weight when weighted)."""
        # a sum over the selected weights: a float @ bool product is numpy's generic loop (2.6 ms on 30,000 rows),
        # and a float @ float one is BLAS, which took 6-8 ms a call when its threads shared the cores
        return int(np.sum(mask)) if self.v is None else float(self.v[rows][mask].sum())

    def class_counts(self, rows):
        return np.bincount(self.y[rows], weights=None if self.v is None else self.v[rows], minlength=self.n_classes)

    def leaf_step(self, ft, leaf, rows):
        if rows.size == 0:
            return False
        counts = self.class_counts(rows)
        if counts[ft.leaf_label[leaf]] < counts.max():
            ft.leaf_label[leaf] = int(np.argmax(counts))
            return True
        return False

    def _leaf_sizes_ok(self, ft, t, rows):
        if self.n_min <= 1:
            return True
        counts = np.bincount(ft.leaf_of(self.X, start=t, rows=rows), minlength=ft.n_splits + 1,
                             weights=None if self.v is None else self.v[rows])
        counts = counts[ft.subtree_leaves(t)]
        return bool(np.all((counts == 0) | (counts >= self.n_min)))

    def split_step(self, ft, t, rows):
        """Best move at split ``t`` for its ``rows``; applied to ``ft`` when it strictly improves."""
        if rows.size == 0:
            return False
        y = self.y[rows]
        # an axis-aligned tree reads the node's rows in place (one feature per split); an oblique one copies them once
        in_place = not self.oblique and ft.axis_aligned
        X, at = (self.X, rows) if in_place else (self.X[rows], None)
        wrong_left = ft.predict(X, start=2 * t, rows=at) != y
        wrong_right = ft.predict(X, start=2 * t + 1, rows=at) != y
        right_now = ft.goes_right(X, np.full(len(rows), t), at)
        errors_now = self.count(np.where(right_now, wrong_right, wrong_left), rows)
        node_cx = _complexity(ft, np.arange(ft.n_splits) == t - 1, self.kind)
        prefer = np.where(wrong_left & ~wrong_right, 1, np.where(wrong_right & ~wrong_left, -1, 0))
        fixed_errors = self.count(wrong_left & wrong_right, rows)
        moves = []                                     # (delta objective, apply)

        def delta(errors, cx):
            return (errors - errors_now) / self.L_hat + self.alpha * (cx - node_cx)

        if ft.active[t - 1]:
            moves.append((delta(self.count(wrong_right, rows), 0), ("off", None)))
        sub = ft.subtree(t)
        counts = self.class_counts(rows)
        sub_cx = _complexity(ft, np.isin(np.arange(1, ft.n_splits + 1), sub), self.kind)
        leaf_delta = (counts.sum() - counts.max() - errors_now) / self.L_hat - self.alpha * sub_cx
        moves.append((leaf_delta, ("leaf", int(np.argmax(counts)))))
        if np.any(prefer != 0):
            for errs, j, thr, _ in _scan(self.index, rows, prefer, self.allowed, self.mu,
                                         None if self.v is None else self.v[rows]):
                w = np.zeros(self.X.shape[1])
                w[j] = 1.0
                moves.append((delta(fixed_errors + errs, 1), ("split", (w, thr))))
            if self.oblique:
                moves += [(delta(e, c), ("split", (w, thr))) for e, c, w, thr in self._oblique(
                    X, prefer, wrong_left, wrong_right, rows)]
        for d, (kind, arg) in sorted(moves, key=lambda m: m[0]):
            if d >= -1e-12:
                return False
            trial = ft.copy()
            _apply(trial, t, kind, arg, sub)
            if kind == "leaf" or self._leaf_sizes_ok(trial, t, rows):
                _apply(ft, t, kind, arg, sub)
                return True
        return False

    def _oblique(self, X, prefer, wrong_left, wrong_right, rows):
        care = prefer != 0
        z = prefer[care].astype(float)
        if len(np.unique(z)) < 2 or not self.allowed.any():         # (no feature to split on: no oblique move)
            return []
        out = []
        cols = np.flatnonzero(self.allowed)
        care_weight = None if self.v is None else self.v[rows][care]
        for C in (0.1, 1.0, 10.0):
            wc, c = fit_sparse_l1_logistic(X[care][:, cols], z, C, self.max_features, self.random_state, care_weight)
            norm = np.abs(wc).sum()
            if norm == 0:
                continue
            w = np.zeros(X.shape[1])
            w[cols] = wc / norm
            v = X @ w
            thr = _snap(v, -c / norm, self.mu)
            errors = self.count(np.where(v > thr, wrong_right, wrong_left), rows)
            cx = 1 if self.kind == "splits" else int(np.count_nonzero(w))
            out.append((errors, cx, w, thr))
        return out


def _apply(ft, t, kind, arg, subtree):
    if kind == "off":
        ft.active[t - 1] = False
    elif kind == "leaf":
        ft.active[subtree - 1] = False
        ft.leaf_label[ft.subtree_leaves(t)[-1]] = arg    # unused splits send every point to the rightmost leaf
    else:
        w, thr = arg
        ft.W[t - 1], ft.thr[t - 1], ft.active[t - 1] = w, thr, True


def tao_label_tree(ft: FixedTree, X, y, *, L_hat=None, alpha=0.0, complexity="splits", oblique=False,
                   min_samples_leaf=1, mu=0.0, allowed=None, max_passes=20, deadline=None,
                   random_state=None, index=None, sample_weight=None, max_features=None) -> FixedTree:
    """TAO of a label tree on ``(X, y)`` (class indices ``0..K-1``); returns an improved copy.

    Parameters
    ----------
    ft : FixedTree
        The start (label leaves).
    L_hat : float, optional
        Loss normalizer (default: errors of the majority class).
    alpha : float, default=0.0
        Complexity weight.
    complexity : {"splits", "features"}, default="splits"
        Active splits (OCT) or nonzero weights over all splits (OCT-H).
    oblique : bool, default=False
        Allow oblique splits (l1-logistic surrogate candidates, ``||w||_1 = 1``).
    min_samples_leaf : int, default=1
        Every leaf that holds points holds at least this many (this much weight).
    mu : float, default=0.0
        Oblique thresholds sit in a gap of at least ``mu`` between the node's
        points (OCT-H's margin, so the tree is a feasible MIP start).
    allowed : ndarray of bool, optional
        Features splits may use.
    max_passes : int, default=20
    deadline : float, optional
        ``time.perf_counter()`` after which no new node is optimized (checked before every node).
    index : ColumnIndex, optional
        The :class:`~optitrees.algorithms.column_index.ColumnIndex` of ``X`` when the caller has it (TMO shares
        one between the runs on the same rows).
    sample_weight : ndarray of shape (n,), optional
        Each point's weight: errors, leaf majorities and leaf sizes are weighted totals.
    max_features : int, optional
        Oblique candidates use at most this many features (3.14's HFS budget per split;
        :func:`~optitrees.algorithms.node_fit.fit_sparse_l1_logistic`). Splits of the start are kept as they
        are: pass a start within the budget.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, np.int64)
    if L_hat is None:
        totals = np.bincount(y, weights=sample_weight)
        L_hat = max(totals.sum() - totals.max(), 1)
    ft = ft.copy()
    if expired(deadline):
        return _prune_dead(ft, X)
    run = _LabelTAO(X, y, L_hat, alpha, complexity, oblique, min_samples_leaf, mu, allowed, random_state,
                    index, sample_weight, max_features)
    S = ft.n_splits
    for _ in range(max_passes):
        improved = False
        rows = ft.rows_by_node(X)
        empty = np.zeros(0, np.int64)
        for level in range(ft.depth, -1, -1):             # bottom-up: the leaves, then each level of splits
            for t in range(2**level, 2 ** (level + 1)):
                if expired(deadline):
                    return _prune_dead(ft, X)
                r = rows.get(t, empty)
                if t > S:
                    improved |= run.leaf_step(ft, t - S - 1, r)
                else:
                    improved |= run.split_step(ft, t, r)
        if not improved:
            break
    return _prune_dead(ft, X)


def _prune_dead(ft, X):
    """Switch off active splits no training point reaches (they only add complexity)."""
    reached = np.unique(ft.path(X)[:, :-1])
    dead = np.setdiff1d(np.flatnonzero(ft.active) + 1, reached)
    ft.active[dead - 1] = False
    return ft
