"""The order in which the l1-logistic regression path admits the features: the features a tree-wide feature
budget keeps (``max_total_features``).

Along the path of l1-penalized logistic regressions (Tibshirani's lasso with the log loss; here liblinear's, on
standardized features, ``C`` rising from the all-zero model over four decades), a feature enters when its
coefficient first becomes nonzero. The first ``K`` features to enter are those a sparse linear rule needs most, the
usual screen before a model of ``K`` features is fitted. With more than two classes each class is fitted against
the rest, and a feature enters when it enters one of them. Features entering at the same ``C`` are ordered by their
largest ``|coefficient|`` there (ties: lower index first); features that never enter follow in the order of the
last fit's ``|coefficient|``, and constant features (which cannot split anything) come last.

A continuous target (a regression tree's) takes the lasso path instead: least-angle regression's (``lars_path``
with the lasso modification, on the weighted, standardized rows) admits the features in the order the l1 weight
falling from its all-zero bound lets them in; those it never admits follow by their weighted correlation with the
target.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression, lars_path
from sklearn.utils.multiclass import type_of_target

from ..budget import call_until, expired
from .liblinear import liblinear_fit

__all__ = ["l1_entry_order", "N_CS"]

#: Values of ``C`` on the path (from the all-zero bound up four decades, log-spaced).
N_CS = 40


def _l1_logistic(C):
    return LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", max_iter=2000, random_state=0)


def _c_grid(Z, signs, sample_weight) -> np.ndarray:
    """C values from the largest all-zero bound of the one-vs-rest problems up four decades.

    For each problem with labels ``s_i = +-1``, liblinear's solution is all zero (intercept included, its column
    being 1) for ``C <= 2 / max(max_j |sum_i v_i s_i z_ij|, |sum_i v_i s_i|)`` (scikit-learn's ``l1_min_c`` of the
    weighted rows); the path starts at the smallest such bound, where the first feature can enter.
    """
    v = np.ones(Z.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    weighted = signs * v[:, None]                       # (rows, problems)
    den = np.maximum(np.abs(weighted.T @ Z).max(axis=1, initial=0.0), np.abs(weighted.sum(axis=0)))
    den = den[den > 0]
    start = 2.0 / den.max() if len(den) else 1.0
    return start * np.logspace(0.0, 4.0, N_CS)


def l1_entry_order(X, y, sample_weight=None, allowed=None, most=None, deadline=None) -> np.ndarray:
    """Indices of the features of ``X`` in the order the l1-logistic path admits them (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,)
        Class labels (two or more classes).
    sample_weight : ndarray of shape (n_rows,), optional
        Each row's weight in the log loss.
    allowed : ndarray of bool of shape (n_features,), optional
        Only these features are ordered (and returned).
    most : int, optional
        The path stops once this many features have entered; the rest follow in the order of the last fit.
    deadline : float, optional
        ``time.perf_counter()`` by which the path stops (the features that entered keep their order).

    Returns
    -------
    ndarray of int
        Every allowed feature once.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    candidates = np.arange(X.shape[1]) if allowed is None else np.flatnonzero(allowed)
    Xc = X[:, candidates]
    v = None if sample_weight is None else np.asarray(sample_weight, float)
    mean = np.average(Xc, axis=0, weights=v)
    std = np.sqrt(np.average((Xc - mean) ** 2, axis=0, weights=v))
    live = np.flatnonzero(std > 1e-12 * np.maximum(1.0, np.abs(mean)))
    constant = np.setdiff1d(np.arange(len(candidates)), live)
    if len(live) and type_of_target(y) == "continuous":
        Z = (Xc[:, live] - mean[live]) / std[live]
        order = _lasso_entry_order(Z, y.astype(float), v, len(live) if most is None else int(most))
        return candidates[np.r_[live[order], constant]]
    classes = np.unique(y)
    if len(live) == 0 or len(classes) < 2:
        return candidates[np.r_[live, constant]]
    Z = (Xc[:, live] - mean[live]) / std[live]
    problems = classes[-1:] if len(classes) == 2 else classes          # one-vs-rest: a column of signs each
    signs = np.where(y[:, None] == problems[None, :], 1.0, -1.0)
    most = len(live) if most is None else min(int(most), len(live))
    entered, size = [], np.zeros(len(live))                              # size: largest |coef| of the last fit
    for C in _c_grid(Z, signs, v):
        if len(entered) >= most or expired(deadline):
            break
        size = np.zeros(len(live))
        for k in range(signs.shape[1]):
            done, model = call_until(deadline, liblinear_fit, _l1_logistic(C), Z, signs[:, k], v, deadline)
            if not done:
                break
            size = np.maximum(size, np.abs(model.coef_.ravel()))
        else:
            new = np.setdiff1d(np.flatnonzero(size > 0), entered)
            entered += [int(j) for j in new[np.lexsort((new, -size[new]))]]
            continue
        break
    rest = np.setdiff1d(np.arange(len(live)), entered)
    order = np.r_[np.asarray(entered, int), rest[np.lexsort((rest, -size[rest]))]]
    return candidates[np.r_[live[order], constant]]


def _lasso_entry_order(Z, y, sample_weight, most: int) -> np.ndarray:
    """Positions of the columns of ``Z`` in the order the weighted lasso path admits them (at most ``most`` steps
    of least-angle regression), the rest by their weighted correlation with ``y`` (module docstring)."""
    v = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    root = np.sqrt(v / v.sum())
    centred = y - np.average(y, weights=v)
    _, active, _ = lars_path(Z * root[:, None], centred * root, method="lasso", max_iter=max(1, most))
    entered = [int(j) for j in dict.fromkeys(active)]
    correlation = np.abs(Z.T @ (v * centred))
    rest = np.setdiff1d(np.arange(Z.shape[1]), entered)
    return np.r_[np.asarray(entered, int), rest[np.lexsort((rest, -correlation[rest]))]]
