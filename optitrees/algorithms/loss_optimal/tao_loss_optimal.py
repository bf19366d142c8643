"""TAO of loss-optimal trees (seed 002, 3.12) on their exact objective.

In a loss-optimal tree each node ``t`` of layer ``h`` is a classifier
``(w_t, b_t)`` that also routes (left when ``w_t x + b_t <= eps / 2``, the middle
of the MIP's gap (0, eps)). With the rest of the tree fixed, node ``t``'s
parameters change only

* its own term ``C_h sum_{i in R_t} loss_h(y_i (w_t x_i + b_t)) + lam_h Omega(w_t) (+ alpha_h ||w_t||_0)``, and
* where its points ``R_t`` go: point ``i`` then pays ``L_left(i)`` or
  ``L_right(i)``, the losses of the nodes it visits below.

Bottom-up, TAO refits the last layer exactly (Remark 1, a convex fit on the
points routed there) and, at an inner node, tries convex weighted fits in
which every point counts once with its label (its own loss) and the points
that care where they go count again with the better side as label and weight
``m |L_left(i) - L_right(i)|`` (a logistic / hinge surrogate of the routing
term), for a few multipliers ``m`` including 0 (the node's own loss only),
the "flip" fit of the routing alone (each point on its better side), and the
node's own hyperplane with its intercept shifted so that a small share of its
points changes sides (:data:`INTERCEPT_SHIFTS`). Each
candidate is made feasible for the MIP (``||w||_1 <= W``, ``|b| <= B``, no point
in the gap) and scored exactly: the node's own term plus its subtree, whose
leaves are refitted to the new routing (a routing change often pays off only
once the leaves follow it). A move is accepted only when that score strictly
decreases, so the tree's exact objective never increases. Nodes no training point
reaches get ``w = 0`` at the end (dead branches pruned: only their
regularizer counted).
"""

from __future__ import annotations

import numpy as np

from ...formulations.loss_optimal.solution import layer_loss_functions
from ...scaling import weighted_sum
from ...trees import Tree
from ...budget import call_until
from ..fixed_tree import FixedTree
from .greedy import clear_gap, within_bounds

__all__ = ["tao_loss_optimal"]

#: Multipliers of the routing term in the surrogate fit of an inner node (0: its own loss only).
ROUTING_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0, 16.0)

#: Intercept moves of an inner node: its hyperplane shifted so that about this share of its points (in either
#: direction) changes sides, at the nearest place no point falls in the gap (0, eps). Its own loss rises a little;
#: the leaves, refitted to the new routing, may gain more (on phishing, 4,000 rows, the surrogate fits keep the
#: greedy root, and a shift of 0.5-1% of its points lowers the exact objective).
INTERCEPT_SHIFTS = (-0.05, -0.02, -0.01, -0.005, 0.005, 0.01, 0.02, 0.05)

#: Stopping tolerance of TAO's candidate node fits (scikit-learn's default). A candidate is kept only when it
#: lowers the exact objective, so a looser fit costs no monotonicity; at 1e-6, liblinear's l1-logistic fits of
#: the heavily weighted routing problems took 1.4 s each on a2a (4,000 x 123), 25 of them in one split step
#: (7.4 s against 0.58 s at 1e-4 on its root node).
CANDIDATE_TOL = 1e-4


class _LossTAO:
    def __init__(self, problem, fit):
        self.problem, self.fit = problem, fit
        self.X, self.y = problem.data.X, np.asarray(problem.data.y, float)
        self.v = problem.data.fit_weight                    # the points' weights (None: all 1)
        self.spec = problem.spec
        self.losses = layer_loss_functions(problem, surrogate=False)
        self.eps = problem.eps

    def weights(self, rows):
        """The weights of ``rows`` (``None``: unweighted)."""
        return None if self.v is None else self.v[rows]

    def points(self, rows):
        """``(X, y, weights)`` of ``rows`` (sorted, as :meth:`FixedTree.rows_by_node` gives them); at the root,
        where ``rows`` is every row, the arrays themselves rather than a copy of ``X``."""
        if rows.size == len(self.y):
            return self.X, self.y, self.v
        return self.X[rows], self.y[rows], self.weights(rows)

    def own(self, h, Xr, yr, w, b, vr=None):
        """``C_h sum v_i loss_h(y_i (w x_i + b)) + lam_h Omega(w) + alpha_h ||w||_0`` of one node (``vr``: the
        points' weights, ``None`` for 1)."""
        spec = self.spec
        losses = self.losses[h](yr * (Xr @ w + b))
        value = spec.C[h] * weighted_sum(losses, vr)
        if spec.regularizer == "l1":
            value += spec.lam[h] * np.abs(w).sum()
        elif spec.regularizer == "l2":
            value += spec.lam[h] * (w * w).sum()
        if spec.alpha is not None:
            value += spec.alpha[h] * np.count_nonzero(w)
        return float(value)

    def below(self, ft, Xr, yr, start):
        """Per-point loss of the nodes visited from ``start`` down to the last layer."""
        path = ft.path(Xr, start)
        level0 = int(np.log2(start))
        S = ft.n_splits
        total = np.zeros(len(yr))
        for col in range(path.shape[1]):
            ids, h = path[:, col], level0 + col
            if col < path.shape[1] - 1:
                v = np.einsum("ij,ij->i", Xr, ft.W[ids - 1]) + ft.b[ids - 1]
            else:
                k = ids - S - 1
                v = np.einsum("ij,ij->i", Xr, ft.leaf_W[k]) + ft.leaf_b[k]
            total += self.spec.C[h] * self.losses[h](yr * v)
        return total

    def feasible(self, w, b, Xr):
        """The same hyperplane scaled into the MIP's bounds and shifted so no point lies in (0, eps)."""
        w, b = within_bounds(w, b, self.spec.weight_bound, self.problem.intercept_bound)
        return w, b - clear_gap(Xr @ w + b, self.eps)

    def leaf_step(self, ft, k, rows):
        if rows.size == 0:
            return False
        h = self.spec.depth - 1
        Xr, yr, vr = self.points(rows)
        keep = (ft.leaf_W[k] != 0) if self.spec.feature_selection is not None else None
        w, b = within_bounds(*self.fit(Xr, yr, h, support=keep, sample_weight=vr), self.spec.weight_bound,
                             self.problem.intercept_bound)
        now = self.own(h, Xr, yr, ft.leaf_W[k], ft.leaf_b[k], vr)
        if self.own(h, Xr, yr, w, b, vr) < now - 1e-9 * max(1.0, abs(now)):
            ft.leaf_W[k], ft.leaf_b[k] = w, b
            return True
        return False

    def refit_below(self, ft, start, Xs, ys, vs=None):
        """Objective of the subtree under ``start`` for the points ``(Xs, ys)`` (weights ``vs``) sent there, with
        every leaf below refitted on its new points (kept where the refit is not better); returns
        ``(value, leaves)``."""
        S, h_leaf = ft.n_splits, self.spec.depth - 1
        leaves = ft.subtree_leaves(start)
        value, updates = 0.0, {}
        if len(ys):
            path = ft.path(Xs, start)
            level0 = int(np.log2(start))
            for col in range(path.shape[1] - 1):              # the inner nodes on the way: fixed
                ids, h = path[:, col], level0 + col
                v = np.einsum("ij,ij->i", Xs, ft.W[ids - 1]) + ft.b[ids - 1]
                losses = self.losses[h](ys * v)
                value += float(self.spec.C[h] * weighted_sum(losses, vs))
            reached = path[:, -1] - S - 1
        else:
            reached = np.zeros(0, np.int64)
        for k in leaves:
            mine = reached == k
            vm = None if vs is None else vs[mine]
            w, b = ft.leaf_W[k], ft.leaf_b[k]
            current = self.own(h_leaf, Xs[mine], ys[mine], w, b, vm)
            if mine.any():
                keep = (w != 0) if self.spec.feature_selection is not None else None
                w2, b2 = within_bounds(*self.fit(Xs[mine], ys[mine], h_leaf, support=keep, sample_weight=vm,
                                                 tol=CANDIDATE_TOL),
                                       self.spec.weight_bound, self.problem.intercept_bound)
                refit = self.own(h_leaf, Xs[mine], ys[mine], w2, b2, vm)
                if refit < current:
                    current, updates[k] = refit, (w2, b2)
            value += current
        return value, updates

    def split_step(self, ft, t, rows):
        if rows.size == 0:
            return False
        h = int(np.log2(t))
        Xr, yr, vr = self.points(rows)
        loss_left, loss_right = self.below(ft, Xr, yr, 2 * t), self.below(ft, Xr, yr, 2 * t + 1)
        diff = loss_left - loss_right                  # > 0: the point is better off going right
        if vr is not None:
            diff = vr * diff
        care = np.abs(diff) > 1e-12
        right_now = Xr @ ft.W[t - 1] + ft.b[t - 1] > self.eps / 2
        # the side each point should take: the better one, its current one where both are equal
        side = np.where(care, np.sign(diff), np.where(right_now, 1.0, -1.0))

        def value(w, b):
            """Node ``t``'s own term plus its whole subtree, the leaves refitted to the new routing."""
            right = Xr @ w + b > self.eps / 2
            below_left = self.refit_below(ft, 2 * t, Xr[~right], yr[~right], None if vr is None else vr[~right])
            below_right = self.refit_below(ft, 2 * t + 1, Xr[right], yr[right], None if vr is None else vr[right])
            return self.own(h, Xr, yr, w, b, vr) + below_left[0] + below_right[0], {**below_left[1], **below_right[1]}

        now, _ = value(ft.W[t - 1], ft.b[t - 1])
        fits = [(Xr, yr, vr, False)] if 0.0 in ROUTING_WEIGHTS else []
        if care.any():                  # the points that care, once more: one stacked copy for every weight m
            Xa, ya = np.vstack([Xr, Xr[care]]), np.concatenate([yr, side[care]])
            own = np.ones(len(yr)) if vr is None else vr
            fits += [(Xa, ya, np.concatenate([own, m * np.abs(diff[care]) / self.spec.C[h]]), True)
                     for m in ROUTING_WEIGHTS if m > 0]
        if len(np.unique(side)) == 2:   # the "flip" move: a fit of the routing alone, each point on its better side
            fits.append((Xr, side, vr, False))
        best, best_value = None, now

        def consider(w, b):
            nonlocal best, best_value
            v, leaves = value(w, b)
            if v < best_value - 1e-9 * max(1.0, abs(now)):
                best, best_value = (w, b, leaves), v

        for Xa, ya, sw, routing in fits:
            consider(*self.feasible(*self.fit(Xa, ya, h, sample_weight=sw, routing=routing, tol=CANDIDATE_TOL), Xr))
        # intercept moves: the node's own hyperplane shifted so that a few of its points change sides. The
        # boundary can sit only where consecutive scores are at least eps apart (no point in (0, eps)): after
        # point i, that point moved to 0
        w0, b0 = ft.W[t - 1], ft.b[t - 1]
        scores = np.sort(Xr @ w0 + b0)
        left = int(np.searchsorted(scores, self.eps / 2, side="right"))      # points going left now
        cuts = np.flatnonzero(np.diff(scores) >= self.eps)
        if cuts.size:
            targets = np.array([left - 1 + round(d * len(scores)) for d in INTERCEPT_SHIFTS], dtype=np.int64)
            nearest = cuts[np.abs(cuts[None, :] - targets[:, None]).argmin(axis=1)] if targets.size else cuts[:0]
            for i in sorted(set(nearest.tolist()) - {left - 1}):
                consider(*self.feasible(w0, b0 - scores[i], Xr))
        if best is None:
            return False
        w, b, leaves = best
        ft.W[t - 1], ft.b[t - 1], ft.thr[t - 1] = w, b, self.eps / 2 - b
        for k, (wk, bk) in leaves.items():
            ft.leaf_W[k], ft.leaf_b[k] = wk, bk
        return True


class _OutOfTime(Exception):
    """The deadline passed before a node fit."""


def tao_loss_optimal(tree: Tree, problem, fit, max_passes: int = 10, deadline=None) -> Tree:
    """TAO of a loss-optimal tree in standardized units; returns an improved tree (never a worse one).

    Parameters
    ----------
    tree : Tree
        A loss-optimal tree of ``problem.spec.depth`` layers (linear leaves).
    problem : LossOptimalProblem
    fit : callable
        From :func:`~optitrees.algorithms.node_fit.node_fitter` (with ``sample_weight``).
    max_passes : int, default=10
    deadline : float, optional
        ``time.perf_counter()`` by which node fits end (none starts after it, one still
        running then is abandoned; a step cut short leaves the tree as the last
        completed step left it).
    """

    def fit_in_time(*args, **kwargs):
        done, fitted = call_until(deadline, fit, *args, **kwargs)
        if not done:
            raise _OutOfTime
        return fitted

    run = _LossTAO(problem, fit_in_time)
    ft = FixedTree.from_tree(tree, problem.spec.depth - 1)
    X = run.X
    S = ft.n_splits
    empty = np.zeros(0, np.int64)
    try:
        for _ in range(max_passes):
            improved = False
            rows = ft.rows_by_node(X)
            for level in range(ft.depth, -1, -1):
                for t in range(2**level, 2 ** (level + 1)):
                    r = rows.get(t, empty)
                    improved |= run.leaf_step(ft, t - S - 1, r) if t > S else run.split_step(ft, t, r)
            if not improved:
                break
    except _OutOfTime:         # steps write the tree only when complete: it is consistent here
        pass
    reached = set(np.unique(ft.path(X)).tolist())
    for t in range(1, 2 * S + 2):
        if t not in reached:                                 # dead: only its regularizer counts
            if t <= S:
                ft.W[t - 1] = 0.0
            else:
                ft.leaf_W[t - S - 1] = 0.0
    return ft.to_tree(probabilistic=problem.spec.probabilistic)
