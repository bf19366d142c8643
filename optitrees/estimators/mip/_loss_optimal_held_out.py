"""The settings the loss-optimal trees choose on held-out folds before the MIP is built: the feature budget per
hyperplane (``max_features="auto"``) and the tree-wide budget (``max_total_features``), both scored by greedy
trees (:mod:`optitrees.estimators._auto_budget`)."""

from __future__ import annotations

import numpy as np

from ...algorithms.loss_optimal.greedy import greedy_tree
from ...algorithms.loss_optimal.held_out import choose_budget, held_out_balanced_accuracy
from .. import _auto_budget as auto

__all__ = ["HeldOutChoices"]


class HeldOutChoices:
    """The ``_presolve`` stage of :class:`~._loss_optimal.LossOptimalTreeClassifier` and its presets (which give
    ``_auto_budget``, ``_fitter`` and ``_seed``)."""

    def _presolve_plan(self, n_rows):
        """The share of the choices :meth:`_presolve` makes on ``n_rows`` rows (:func:`._auto_budget.planned_share`;
        the budget per hyperplane is chosen on :data:`._auto_budget.MIN_ROWS_TO_CHOOSE` rows or more)."""
        return auto.planned_share(auto.chooses_per_split(self._settings()["max_features"], n_rows),
                                  auto.chooses_tree_wide(self.max_total_features, n_rows))

    def _presolve(self, problem, budget):
        """With ``max_features="auto"``: the problem with the budget chosen on held-out folds
        (:meth:`_choose_budget`); then the tree-wide budget (:meth:`_tree_wide`)."""
        return self._tree_wide(self._choose_budget(problem, budget), budget)

    def _tree_wide(self, problem, budget):
        """``max_total_features``: the problem with every feature but the first ones of the l1-logistic path
        forbidden, their number chosen with ``"auto"`` by the greedy trees on held-out folds (on at most
        ``_auto_budget.LOSS_OPTIMAL_ROWS`` rows, as the budget per hyperplane;
        :func:`._auto_budget.tree_wide_features`)."""
        data = problem.data

        def fit_and_score(kept, train, test, deadline):
            rows = auto.with_features(problem.on_rows(train), kept)
            tree = greedy_tree(rows, self._fitter(rows, deadline=deadline), deadline=deadline)
            return held_out_balanced_accuracy(problem, tree, test)

        allowed = np.ones(data.n_features, bool)
        allowed[list(problem.spec.forbidden)] = False
        kept = auto.tree_wide_features(self, data.X, data.y, data.fit_weight, allowed, fit_and_score, budget,
                                       self._seed, most=auto.LOSS_OPTIMAL_ROWS)
        return problem if kept.sum() == allowed.sum() else auto.with_features(problem, kept)

    def _choose_budget(self, problem, budget):
        """The problem with the feature budget of ``max_features="auto"``, chosen on held-out folds within
        ``_auto_budget.SHARE`` of the time limit (``problem`` itself otherwise, and on fewer than
        ``_auto_budget.MIN_ROWS_TO_CHOOSE`` rows: no budget); sets ``max_features_`` (the budget of the
        returned problem's spec, per layer, or ``None``) and, when chosen, ``budget_results_``."""
        self.__dict__.pop("budget_results_", None)
        if auto.chooses_per_split(self._settings()["max_features"], len(problem.data.y)):
            deadline = budget.until(auto.SHARE)
            rows = auto.sample(problem.data.y, self._seed, auto.LOSS_OPTIMAL_ROWS)
            choice = choose_budget(problem if rows is None else problem.on_rows(rows), auto.BUDGETS,
                                   lambda p: self._fitter(p, deadline=deadline),
                                   tolerance=auto.TOLERANCE, n_folds=auto.FOLDS,
                                   fallback=auto.BUDGETS.index(auto.FALLBACK), random_state=self._seed,
                                   deadline=deadline)
            problem = problem.with_budget(choice.budget)
            scored = choice.mean_balanced_accuracy[:choice.candidates_scored]
            self.budget_results_ = auto.results(choice.candidates, scored, choice.folds_scored, choice.fold_scores)
        spec_budget = problem.spec.budget
        self.max_features_ = None if spec_budget is None else [int(b) for b in spec_budget]
        return problem
