"""The searches of OCT and OCT-H under a parity constraint: the best fair tree of depth 2 over candidate splits
(:mod:`optitrees.algorithms.oct.fair_depth2`), over every threshold an exact search that proves the fair optimum of
depth-2 OCT, and trees from the Lagrangian of the parity rows (:mod:`optitrees.fairness.lagrangian`), each
partition found by the family's own learners on the rows relabelled and weighted by the multipliers."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...algorithms.oct.cart import cart_tree, greedy_oblique_tree
from ...algorithms.oct.contree import contree_tree
from ...algorithms.oct.fair_depth2 import MAX_THRESHOLDS, candidate_splits, fair_depth2_tree
from ...budget import expired, remaining
from ...fairness.lagrangian import lagrangian_trees
from ...solvers.registry import is_default
from .._report import ExactSearch

__all__ = ["ParitySearches", "EVERY_THRESHOLD_CELLS", "EVERY_THRESHOLD_SPLITS"]

#: The fair search of depth 2 tries every threshold when rows x candidate splits is at most this (the split
#: indicators it holds: 160 MB) ...
EVERY_THRESHOLD_CELLS = 20_000_000
#: ... and, for a notion whose pairs are tried one by one (more than one condition or two cells) on more splits than
#: this, it searches the candidates of :func:`~optitrees.algorithms.oct.fair_depth2.candidate_splits` first: their
#: fair tree is the incumbent every threshold must beat, and the start if that search runs out of time.
EVERY_THRESHOLD_SPLITS = 300


class ParitySearches:
    """Mixin of :class:`~._oct._BaseOCT`: its ``_parity_exact`` and ``_parity_starts`` hooks (it reads ``_oblique``,
    ``_allowed``, ``_seed`` and ``_tao`` of the estimator)."""

    def _fair_exact_applies(self, spec) -> bool:
        """Whether :meth:`_parity_exact` searches (axis-aligned depth 2, no minimum leaf size, the exact searches
        on, and nothing else held that the search does not see)."""
        return (not spec.oblique and spec.depth == 2 and spec.min_samples_leaf == 1
                and getattr(self, "exact_search", "mip") == "auto" and is_default(self.solver)
                and self.constraints is None and self._feature_budget() is None and self._monotone() is None)

    def _parity_exact(self, problem, parity, budget, log):
        """The fair search of depth 2 (:func:`~optitrees.algorithms.oct.fair_depth2.fair_depth2_tree`) over every
        threshold where that is affordable (:data:`EVERY_THRESHOLD_CELLS`; above :data:`EVERY_THRESHOLD_SPLITS`, for
        a notion whose pairs are tried one by one, after the fair tree over the thinned candidates, whose objective
        it must beat), in up to half the time left: having tried every root, it is the fair optimum of depth-2 OCT,
        and proves it; else its tree is a start. ``None`` where it does not apply (:meth:`_fair_exact_applies`)."""
        spec, data = problem.spec, problem.data
        if not self._fair_exact_applies(spec):
            return None
        allowed = self._allowed(problem)
        splits = candidate_splits(data.X, allowed, None)
        pairwise = not (parity.cells.n_conditions == 1 and parity.cells.n_cells == 2)
        n_splits = len(splits[0])
        seconds = budget.remaining()
        deadline = None if seconds is None else time.perf_counter() + seconds / 2
        t0 = time.perf_counter()

        def search(candidates, incumbent=np.inf):
            return fair_depth2_tree(data.X, parity.y01, parity.objective_weight, parity.cells, parity.bound,
                                    spec.alpha * problem.L_hat, candidates, deadline, incumbent)

        too_many_cells = n_splits * len(data.y) > EVERY_THRESHOLD_CELLS
        if too_many_cells or (pairwise and n_splits > EVERY_THRESHOLD_SPLITS):
            thinned = candidate_splits(data.X, allowed)     # thinned[2]: no feature had more thresholds
            tree, value, complete = search(thinned)
            if thinned[2] or too_many_cells:
                proof = thinned[2] and complete
                if not thinned[2]:
                    log.note(f"the fair search of depth 2 took at most {MAX_THRESHOLDS} thresholds a feature "
                             f"({n_splits} splits in all were too many): its tree is a start, not a proof")
            else:                                   # every threshold must beat the thinned candidates' tree
                better, _, complete = search(splits, value)
                tree = tree if better is None else better
                proof = complete
        else:
            tree, _, complete = search(splits)
            proof = complete
        if tree is None:
            return None
        if not complete:
            log.note("the fair search of depth 2 did not try every root split in half the time left: its tree is a "
                     "start, not a proof")
        tree = tree.with_counts(data.X, data.y, sample_weight=data.fit_weight)
        return ExactSearch(tree, bool(proof), time.perf_counter() - t0, "fair depth-2 search")

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
        """``{"fair depth 2": tree}`` (``{}`` with a minimum leaf size, when no split is allowed, or where
        :meth:`_parity_exact` searched already)."""
        spec, data = problem.spec, problem.data
        if spec.min_samples_leaf > 1 or spec.depth < 2 or self._fair_exact_applies(spec):
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
