"""The fair starts of OCT and OCT-H: the best fair tree of depth 2 over candidate splits
(:mod:`optitrees.algorithms.oct.fair_depth2`), and trees from the Lagrangian of the parity rows
(:mod:`optitrees.fairness.lagrangian`), each partition found by the family's own learners on the rows relabelled
and weighted by the multipliers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...algorithms.oct.cart import cart_tree, greedy_oblique_tree
from ...algorithms.oct.contree import contree_tree
from ...algorithms.oct.fair_depth2 import candidate_splits, fair_depth2_tree
from ...budget import expired, remaining
from ...fairness.lagrangian import lagrangian_trees

__all__ = ["LagrangianStarts"]


class LagrangianStarts:
    """Mixin of :class:`~._oct._BaseOCT`: its ``_parity_starts`` hook (it reads ``_oblique``, ``_allowed``,
    ``_seed`` and ``_tao`` of the estimator)."""

    def _parity_starts(self, problem, parity, deadline):
        """``{"fair depth 2": tree, "lagrangian": tree}``: the best fair axis-aligned tree of depth at most 2 over
        candidate splits (:func:`~optitrees.algorithms.oct.fair_depth2.fair_depth2_tree`, in up to half the time
        left; a tree of every depth's class, without a minimum leaf size), and the fair tree of least training
        objective among those of the parity rows' Lagrangian (:func:`optitrees.fairness.lagrangian.lagrangian_trees`),
        each partition found on the rows relabelled and weighted by the multipliers by ConTree (OCT with its exact
        search) or by the greedy start and TAO (OCT-H, and OCT without it), its leaves labelled fairly."""
        starts = self._fair_depth2_start(problem, parity, deadline)
        starts.update(self._lagrangian_start(problem, parity, deadline))
        return starts

    def _fair_depth2_start(self, problem, parity, deadline) -> dict:
        """``{"fair depth 2": tree}`` (``{}`` with a minimum leaf size, or when no split is allowed)."""
        spec, data = problem.spec, problem.data
        if spec.min_samples_leaf > 1 or spec.depth < 2:
            return {}
        splits = candidate_splits(data.X, self._allowed(problem))
        half = None if deadline is None else deadline - remaining(deadline) / 2
        tree, _, _ = fair_depth2_tree(data.X, parity.y01, parity.objective_weight, parity.cells, parity.bound,
                                      spec.alpha * problem.L_hat, splits, half)
        if tree is None:
            return {}
        return {"fair depth 2": tree.with_counts(data.X, data.y, sample_weight=data.fit_weight)}

    def _lagrangian_start(self, problem, parity, deadline) -> dict:
        """``{"lagrangian": tree}`` (:meth:`_parity_starts`)."""
        spec, data = problem.spec, problem.data
        allowed = self._allowed(problem)

        def fit_tree(labels, weight):
            rows = np.flatnonzero(weight > 0)
            if len(rows) == 0:
                return None
            sub = replace(problem, data=replace(data.on_rows(rows, weight[rows]), y=labels[rows]))
            if self._oblique:
                tree = greedy_oblique_tree(sub.data.X, sub.data.y, spec.depth, spec.n_classes, spec.min_samples_leaf,
                                           spec.mu, self._seed, allowed, deadline=deadline,
                                           sample_weight=sub.data.weight, max_features=spec.max_features)
            elif self._exact_lagrangian(spec):
                # ConTree on the weights as whole rows: about 3 rows a row (the partition it finds is relabelled)
                counts = np.round(sub.data.weight * 3 * len(rows) / sub.data.weight.sum())
                kept = counts > 0
                seconds = None if deadline is None else max(0.05, remaining(deadline) / 4)
                tree, _, _ = contree_tree(sub.data.X[kept], sub.data.y[kept], spec.depth, spec.alpha, problem.L_hat,
                                          spec.n_classes, seconds, allowed, counts[kept])
                return tree.with_counts(sub.data.X, sub.data.y, sample_weight=sub.data.weight)
            else:
                tree = cart_tree(sub.data.X, sub.data.y, spec.depth, spec.min_samples_leaf, self._seed, allowed,
                                 sub.data.weight)
            tree = tree.with_counts(sub.data.X, sub.data.y, sample_weight=sub.data.weight)
            return tree if expired(deadline) else self._tao(sub, tree, deadline)

        trees = lagrangian_trees(parity, fit_tree, data.X, deadline)
        if not trees:
            return {}
        errors = [parity.objective_weight @ (t.predict(data.X) != data.y) + spec.alpha * problem.L_hat * t.n_splits()
                  for t in trees]
        best = trees[int(np.argmin(errors))]
        return {"lagrangian": best.with_counts(data.X, data.y, sample_weight=data.fit_weight)}

    def _exact_lagrangian(self, spec) -> bool:
        """Whether the Lagrangian's trees are ConTree's (axis-aligned, no minimum leaf size, depth at most 4, the
        default solver settings that let the exact search run)."""
        return (not spec.oblique and spec.min_samples_leaf == 1 and spec.depth <= 4
                and getattr(self, "exact_search", "mip") == "auto")
