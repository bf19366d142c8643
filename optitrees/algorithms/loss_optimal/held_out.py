"""Settings of a loss-optimal tree chosen on held-out rows: the loss weights ``C_h`` (seed 002, Section 3.3:
"hyperparameters have been tuned by cross-validation over a grid of values", ``C_h in {10^i, i = -2, ..., 2}``)
and the feature budget ``B`` of 3.14 (the fewest features per hyperplane that keep the held-out balanced
accuracy).

Each candidate ``C`` is scored by the greedy tree (:func:`~optitrees.algorithms.loss_optimal.greedy.greedy_tree`,
0.15-0.8 s on 4,000 rows of adult) fitted on ``k - 1`` folds: the weighted mean loss of its last layer, the
layer that predicts, on the held-out fold. The seed cross-validates the final model; the greedy tree is the
affordable proxy inside one fit's budget (at 4,000 rows a MIP fit per candidate and fold would need the whole
budget for each). The folds are taken fold by fold, every candidate on a fold before the next fold, so a search
stopped by its deadline compares every candidate on the same completed folds (or, stopped during the first
fold, the candidates that fold reached: the weakest regularization, the largest ``C``, comes last and its fits are
the slowest; the greedy tree on 30,000 rows of adult took 3.3 s at ``C = 100``, 1.0 s at 1 and 0.5 s at 0.01).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from ...formulations.loss_optimal.solution import layer_loss_functions
from ..fold_search import balanced_accuracy, fewest_within, scores_on_folds
from .greedy import greedy_tree

__all__ = ["HeldOutChoice", "BudgetChoice", "held_out_loss", "held_out_balanced_accuracy", "choose_C",
           "choose_budget"]


@dataclass(frozen=True)
class HeldOutChoice:
    """The outcome of :func:`choose_C`.

    Attributes
    ----------
    C : ndarray of shape (depth,)
        The chosen loss weight of each layer.
    candidates : tuple of ndarray
        Every candidate, per layer, in the order given.
    mean_loss : ndarray of shape (n_candidates,)
        Mean held-out loss of each candidate over the folds compared (``nan``: not compared).
    folds_scored : int
        Folds the compared candidates were all scored on: the folds every candidate completed before the
        deadline, or, when the deadline came during the first fold, that fold (for the candidates it reached);
        ``0`` (no candidate scored, or a class has one row): ``C`` is the fallback given.
    candidates_scored : int
        Candidates compared: all of them, unless the deadline came during the first fold.
    """

    C: np.ndarray
    candidates: tuple
    mean_loss: np.ndarray
    folds_scored: int
    candidates_scored: int


def held_out_loss(problem, tree, rows) -> float:
    """Weighted mean loss of ``tree``'s last layer on ``problem``'s rows ``rows`` (standardized units): the exact
    loss (logistic, hinge or 0/1) of each row's margin ``y_i (w_t x_i + b_t)`` at the last-layer node it reaches,
    weighted by the row's weight (class weight, ``sample_weight``, multiplicity)."""
    data = problem.data
    _, values = tree.path_values(data.X[rows])
    loss = layer_loss_functions(problem, surrogate=False)[-1](data.y[rows] * values[:, -1])
    weight = data.weight[rows]
    return float(loss @ weight / weight.sum())



def held_out_balanced_accuracy(problem, tree, rows) -> float:
    """Balanced accuracy (:func:`~optitrees.algorithms.fold_search.balanced_accuracy`) of ``tree``'s last layer on
    ``problem``'s rows ``rows``: per class, the share of its rows' weight (class weight, ``sample_weight``,
    multiplicity) whose margin ``y_i (w_t x_i + b_t)`` at the last-layer node is positive, as the fitted
    classifier predicts; the mean over the classes."""
    data = problem.data
    _, values = tree.path_values(data.X[rows])
    y = data.y[rows]
    predicted = np.where(y * values[:, -1] > 0, y, -y)
    return balanced_accuracy(y, predicted, data.weight[rows])


def _score_on_folds(problem, problems, fitter_for, score, n_folds, random_state, deadline):
    """Each of ``problems``' greedy trees fitted on ``n_folds - 1`` stratified folds of ``problem``'s rows and
    ``score``d on the held-out fold (:func:`~optitrees.algorithms.fold_search.scores_on_folds`, a
    :class:`~optitrees.algorithms.fold_search.FoldScores`)."""
    fold = {}

    def fit_and_score(k, train, test):
        if fold.get("train") is not train:        # one copy of the fold's rows for every candidate
            fold.update(train=train, rows=problem.on_rows(train))
        sub = replace(fold["rows"], spec=problems[k].spec)
        # the deadline also reaches the greedy tree, so a fit abandoned at it stops after its current node
        return score(problems[k], greedy_tree(sub, fitter_for(sub), deadline), test)

    return scores_on_folds(problem.data.y, len(problems), fit_and_score, n_folds=n_folds,
                           random_state=random_state, deadline=deadline)


def choose_C(problem, candidates, fitter_for, *, n_folds=4, fallback=0, random_state=0,
             deadline=None) -> HeldOutChoice:
    """The candidate ``C`` whose greedy trees have the least mean held-out loss (:func:`held_out_loss`) over
    stratified folds.

    Parameters
    ----------
    problem : LossOptimalProblem
        The whole training problem (its rows are the merged, weighted rows of the fit).
    candidates : sequence
        Loss weights: each a scalar (every layer) or one value per layer.
    fitter_for : callable ``(problem) -> fit``
        The node fitter of a problem (:func:`~optitrees.algorithms.node_fit.node_fitter` of its spec).
    n_folds : int
        Folds of the cross-validation (the seed: 4).
    fallback : int
        Index of the candidate returned when none is scored (the deadline came before the first greedy tree
        was done, or a class has one row).
    random_state : int
        Seed of the fold shuffle.
    deadline : float, optional
        ``time.perf_counter()`` by which the search stops; a greedy fit running then is abandoned
        (:func:`~optitrees.budget.call_until`) and its fold is not counted (the first fold's
        scored candidates are compared when no fold completed).

    Ties go to the earlier candidate (give them from the strongest regularization, the smallest ``C``, up).
    ``n_folds`` is lowered to the rows of the smaller class; with one row there, no fold is scored.
    """
    problems = [problem.with_C(C) for C in candidates]
    compared, folds_scored, _ = _score_on_folds(problem, problems, fitter_for, held_out_loss, n_folds, random_state,
                                                deadline)
    mean = np.full(len(problems), np.nan)
    mean[:len(compared)] = compared
    best = int(np.argmin(compared)) if len(compared) else int(fallback)
    return HeldOutChoice(problems[best].spec.C, tuple(p.spec.C for p in problems), mean, folds_scored,
                         len(compared))


@dataclass(frozen=True)
class BudgetChoice:
    """The outcome of :func:`choose_budget`.

    Attributes
    ----------
    budget : int or None
        The chosen features per hyperplane (``None``: no budget).
    candidates : tuple
        Every candidate, in the order given.
    mean_balanced_accuracy : ndarray of shape (n_candidates,)
        Mean held-out balanced accuracy of each candidate over the folds compared (``nan``: not compared).
    folds_scored, candidates_scored : int
        As in :class:`HeldOutChoice` (``0`` folds: the fallback was used).
    fold_scores : ndarray of shape (folds_scored, candidates_scored)
        The held-out balanced accuracy of each candidate compared on each fold compared.
    """

    budget: int | None
    candidates: tuple
    mean_balanced_accuracy: np.ndarray
    folds_scored: int
    candidates_scored: int
    fold_scores: np.ndarray


def choose_budget(problem, candidates, fitter_for, *, tolerance=0.01, n_folds=4, fallback=0, random_state=0,
                  deadline=None) -> BudgetChoice:
    """The fewest features per hyperplane whose greedy trees keep the held-out balanced accuracy: the candidate of
    fewest features (``None`` counting as infinitely many) whose mean held-out balanced accuracy
    (:func:`held_out_balanced_accuracy`) is within ``tolerance`` of the best candidate's, or within one standard
    error of its paired shortfall over the folds (:func:`~optitrees.algorithms.fold_search.fewest_within`).

    Each candidate budget ``B`` is the HFS budget of 3.14 on every layer (``None``: no budget), and is scored
    by the greedy tree of ``problem`` with it (the greedy fits keep at most ``B`` features per node,
    :func:`~optitrees.algorithms.node_fit.fit_sparse_l1_logistic`), fitted and scored fold by fold as
    :func:`choose_C` does, in the order given: a deadline during the first fold compares the candidates that fold
    reached (give ``None`` first to compare them with the dense tree). ``fallback`` is the index returned when none
    is scored.
    """
    candidates = tuple(candidates)
    if not candidates:
        raise ValueError("at least one candidate budget is needed")
    problems = [problem.with_budget(b) for b in candidates]
    compared, folds_scored, table = _score_on_folds(problem, problems, fitter_for, held_out_balanced_accuracy,
                                                    n_folds, random_state, deadline)
    mean = np.full(len(problems), np.nan)
    mean[:len(compared)] = compared
    sizes = [np.inf if b is None else np.max(b) for b in candidates]
    chosen = fewest_within(compared, tolerance, sizes, table) if len(compared) else int(fallback)
    return BudgetChoice(candidates[chosen], candidates, mean, folds_scored, len(compared), table)
