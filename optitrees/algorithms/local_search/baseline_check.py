"""A search's trees against its baseline's on held-out folds: does the search generalize at least as well?

TMO (Algorithm 3) returns the tree of best training accuracy over every individual of every generation, so its
choice is the best of some hundreds of trees on the rows it is then judged on. On small sets at depth 3 that
choice overfits: on ten binary sets the seed did not use (``bench/tao_tmo.py --datasets unseen``, 5 splits) TMO's
mean test accuracy was at least CART's on 4 of 10 at depth 3 (8 of 10 at depth 2). :func:`check_against_baseline`
fits both on ``k - 1`` stratified folds and scores each on the held-out fold (the rows' weighted accuracy, the
fitness TMO maximizes); the search is kept unless the baseline's mean held-out accuracy is higher.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...budget import remaining
from ..fold_search import scores_on_folds

__all__ = ["BaselineCheck", "check_against_baseline"]


@dataclass(frozen=True)
class BaselineCheck:
    """What :func:`check_against_baseline` found.

    Attributes
    ----------
    baseline, search : float
        Mean held-out accuracy over the folds both completed (``nan``: none).
    folds_scored : int
        The folds both were scored on (``0``: no evidence; the search is kept).
    table : ndarray of shape (folds_scored, 2)
        Per fold, the baseline's and the search's held-out accuracy.
    """

    baseline: float
    search: float
    folds_scored: int
    table: np.ndarray

    @property
    def keeps_search(self) -> bool:
        """The search's trees held out at least as well as the baseline's, or nothing was compared."""
        return self.folds_scored == 0 or self.search >= self.baseline

    def as_dict(self) -> dict:
        return {"baseline_mean_held_out_accuracy": self.baseline, "search_mean_held_out_accuracy": self.search,
                "folds_scored": self.folds_scored, "held_out_accuracy_per_fold": self.table.copy(),
                "keeps_search": self.keeps_search}


def check_against_baseline(y, weight, fit_baseline, fit_search, *, n_folds=4, random_state=0,
                           deadline=None) -> BaselineCheck:
    """Compare ``fit_search``'s trees with ``fit_baseline``'s on ``n_folds`` stratified folds of the rows.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        Class indices (the folds are stratified on them).
    weight : ndarray of shape (n_rows,)
        Each row's weight in the held-out accuracy.
    fit_baseline : callable ``(train) -> predict``
        Fits the baseline (a quick fit: CART) on the rows ``train``; ``predict(rows)`` gives its labels on the
        rows ``rows``.
    fit_search : callable ``(train, deadline) -> predict``
        The same for the search, which stops by ``deadline`` (``None``: none); each fold's search gets an equal
        share of the time left to the check's ``deadline``.
    n_folds : int
    random_state : int
    deadline : float, optional
        ``time.perf_counter()`` by which the check ends; a fold not completed by then is not counted.
    """
    weight = np.asarray(weight, float)
    searched = 0                                  # folds whose search has run

    def fit_and_score(candidate, train, test):
        nonlocal searched
        if candidate == 0:
            predict = fit_baseline(train)
        else:
            left = remaining(deadline)
            share = None if left is None else time.perf_counter() + left / max(n_folds - searched, 1)
            predict = fit_search(train, share)
            searched += 1
        return float(np.average(predict(test) == y[test], weights=weight[test]))

    scores = scores_on_folds(y, 2, fit_and_score, n_folds=n_folds, random_state=random_state, deadline=deadline)
    if scores.folds_scored == 0 or len(scores.compared) < 2:
        return BaselineCheck(np.nan, np.nan, 0, np.zeros((0, 2)))
    return BaselineCheck(float(scores.compared[0]), float(scores.compared[1]), scores.folds_scored, scores.table)
