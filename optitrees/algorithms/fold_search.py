"""Settings chosen on held-out rows within a fit: a fold search every family shares.

:func:`scores_on_folds` fits each candidate setting on ``k - 1`` stratified folds and scores it on the held-out
fold, fold by fold (every candidate on a fold before the next fold), so that a search stopped by its deadline
compares every candidate on the same completed folds (or, stopped during the first fold, the candidates that fold
reached). :func:`fewest_within` is the rule of a readable default: the simplest candidate whose score is within a
tolerance of the best, scored by :func:`balanced_accuracy`. The loss-optimal trees choose their
loss weights and feature budget with it (:mod:`.loss_optimal.held_out`), TAO and OCT-H their feature budget.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ..budget import call_until, expired

__all__ = ["FoldScores", "scores_on_folds", "fewest_within", "fewest_non_inferior", "balanced_accuracy"]


class FoldScores(NamedTuple):
    """What :func:`scores_on_folds` returns.

    Attributes
    ----------
    compared : ndarray of shape (n_compared,)
        The mean score of each candidate over the folds every candidate completed before the deadline; when none
        did, the first fold's scores of the candidates it reached (the first ones); empty when nothing was scored.
    folds_scored : int
        How many folds ``compared`` is the mean of (``0``: nothing scored).
    table : ndarray of shape (folds_scored, n_compared)
        The scores ``compared`` is the mean of, one row per fold.
    """

    compared: np.ndarray
    folds_scored: int
    table: np.ndarray


def scores_on_folds(y, n_candidates: int, fit_and_score, *, n_folds=4, random_state=0, deadline=None) -> FoldScores:
    """Each candidate's mean held-out score over stratified folds of the rows labelled ``y``.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        The labels the folds are stratified on.
    n_candidates : int
    fit_and_score : callable ``(candidate, train, test) -> float``
        Fits candidate ``candidate`` (an index) on the rows ``train`` and scores it on the rows ``test``. A call
        running at ``deadline`` is abandoned (:func:`~optitrees.budget.call_until`) and its fold not counted.
    n_folds : int
        Lowered to the rows of the smallest class; with one row there (or one class), no fold is scored.
    random_state : int
        Seed of the fold shuffle.
    deadline : float, optional
        ``time.perf_counter()`` by which the search stops.

    Returns
    -------
    FoldScores
        The mean scores, the folds they are the mean of and the scores per fold.
    """
    y = np.asarray(y)
    counts = np.unique(y, return_counts=True)[1]
    # a class of one row cannot be held out and kept in training, and one class has nothing to tell: no folds
    n_folds = int(min(n_folds, counts.min())) if len(counts) >= 2 else 0
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y) \
        if n_folds >= 2 else ()
    scores = []                                   # one row per fold begun: the candidates scored on it
    for train, test in folds:
        scores.append([])
        for candidate in range(n_candidates):
            done, score = call_until(deadline, fit_and_score, candidate, train, test)
            if not done or expired(deadline):
                break
            scores[-1].append(score)
        if len(scores[-1]) < n_candidates or expired(deadline):
            break
    complete = [row for row in scores if len(row) == n_candidates]
    if complete:
        table = np.asarray(complete, float)
    elif scores and scores[0]:                    # no fold completed: the first fold's candidates it reached
        table = np.asarray(scores[:1], float)
    else:
        table = np.zeros((0, 0))
    return FoldScores(table.mean(axis=0) if len(table) else np.zeros(0), len(table), table)


def fewest_within(compared, tolerance: float, sizes=None, table=None) -> int:
    """Index of the smallest candidate whose score in ``compared`` is within ``tolerance`` of the largest: the one
    of least ``sizes[k]`` (e.g. features per hyperplane; ties go to the earlier one), or without ``sizes`` the
    first. ``compared`` is not empty; ``sizes`` may be longer (the candidates not compared are not taken).

    With ``table`` (the per-fold scores ``compared`` is the mean of, :class:`FoldScores`) of two folds or more, a
    candidate is also within when its shortfall against the best is within one standard error of that shortfall
    over the folds (the folds are shared, so the error is of the paired differences): the one-standard-error rule
    of CART's cost-complexity pruning, paired. On noisy folds (a minority class of a few rows per fold) a larger
    candidate is then taken only where the folds agree it is better.

    >>> fewest_within([0.80, 0.78], 0.01, [9, 2])
    0
    >>> fewest_within([0.80, 0.78], 0.01, [9, 2], table=[[0.70, 0.74], [0.90, 0.82]])   # differences -0.04, 0.08
    1
    """
    compared = np.asarray(compared, float)
    best = int(np.argmax(compared))
    slack = np.full(len(compared), float(tolerance))
    table = None if table is None else np.asarray(table, float)
    if table is not None and table.ndim == 2 and table.shape[0] >= 2 and table.shape[1] == len(compared):
        shortfall = table[:, [best]] - table
        slack = np.maximum(slack, shortfall.std(axis=0, ddof=1) / np.sqrt(len(table)))
    within = np.flatnonzero(compared >= compared[best] - slack)
    if sizes is None:
        return int(within[0])
    size = np.asarray(sizes, float)[within]
    return int(within[np.argmin(size)])


def fewest_non_inferior(compared, reference: int, margin: float, sizes, table=None) -> int:
    """Index of the smallest candidate (least ``sizes[k]``) that is *non-inferior* to the candidate ``reference``
    (the one the user would get without a choice) and within ``margin`` of the best such candidate's mean.

    A candidate is non-inferior when its mean paired difference to ``reference`` over the folds of ``table``,
    less one standard error of that difference, is at least ``-margin``: the folds must show it loses at most
    ``margin``, not only fail to show that it loses more. With fewer than two folds the error is unknown and only
    ``reference`` is non-inferior. On noisy folds (a few hundred rows) a smaller candidate is then taken only where
    every fold agrees it costs little, where the best mean alone took a noisy winner (the winner's curse).

    >>> fewest_non_inferior([0.80, 0.81, 0.79], 0, 0.01, [9, 5, 2], [[0.80, 0.82, 0.70], [0.80, 0.80, 0.88]])
    1
    >>> fewest_non_inferior([0.80, 0.81], 0, 0.01, [9, 2], [[0.80, 0.81]])           # one fold: no error known
    0
    """
    compared = np.asarray(compared, float)
    table = None if table is None else np.asarray(table, float)
    if table is None or table.ndim != 2 or table.shape[0] < 2 or table.shape[1] != len(compared):
        return int(reference)
    difference = table - table[:, [reference]]
    error = difference.std(axis=0, ddof=1) / np.sqrt(len(table))
    kept = np.flatnonzero(difference.mean(axis=0) - error >= -margin)          # the reference is always kept
    close = kept[compared[kept] >= compared[kept].max() - margin]
    return int(close[np.argmin(np.asarray(sizes, float)[close])])


def balanced_accuracy(y_true, y_pred, weight) -> float:
    """The mean over the classes of ``y_true`` of the share of each class's ``weight`` on its rows where ``y_pred``
    equals ``y_true`` (scikit-learn's ``balanced_accuracy_score`` with these sample weights): the held-out score of
    the readable defaults' choices. With balanced class weights it is the weighted accuracy; without them each class
    counts equally, so a choice cannot give up a minority class's recall unseen (on 4,000 rows of adult, 4 folds,
    OLCT's greedy tree with 3 features per split held the dense tree's accuracy within 0.95 points and lost 3.0
    points of its balanced accuracy). A class predicted but absent from ``y_true`` counts for nothing, quietly.

    >>> balanced_accuracy([0, 1, 1], [0, 0, 1], [1.0, 3.0, 1.0])
    0.625
    """
    from sklearn.metrics import balanced_accuracy_score

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="y_pred contains classes not in y_true")
        return float(balanced_accuracy_score(y_true, y_pred, sample_weight=weight))
