"""Linear leaves of an oblique regression tree with its routing fixed, and the l1 weight chosen on held-out rows.

With every split fixed, the oblique regression tree's objective (R) of
:mod:`optitrees.formulations.oblique_regression`,
``sum_i v_i loss(y_i - w_t x_i - b_t) + lam sum_t ||w_t||_1`` with ``||w_t||_1 <= W``, separates into one convex
problem per leaf ``t`` on the rows routed to it:

* absolute loss: the linear program ``min sum_i v_i (e+_i + e-_i) + lam 1'(w+ + w-)`` s.t.
  ``X w+ - X w- + b + e-_i - e+_i = y_i``, ``1'(w+ + w-) <= W`` (HiGHS through scipy);
* squared loss: the weighted lasso ``min sum_i v_i r_i^2 + lam ||w||_1`` (scikit-learn's coordinate descent,
  ``alpha = lam / (2 sum_i v_i)``), kept only within ``||w||_1 <= W``.

Features a leaf may not read (``allowed``) have ``w_j = 0``, and ``monotonic_cst``'s signs bound the others
(``w_j >= 0`` for +1, ``<= 0`` for -1): in the linear program as bounds on ``w+`` / ``w-``; in the lasso by its
columns, ``s_j x_j`` with ``w_j >= 0`` for a signed feature and ``x_j``, ``-x_j`` both with ``w >= 0`` for a free
one (``positive=True``; the l1 weight leaves at most one of the pair nonzero).

:func:`refit_leaves` solves them (the regression analogue of Remark 1 of seed 002: the exact last layer for a
routing) and :func:`choose_lam` picks, among candidate weights, the one whose leaves fitted on ``k - 1`` folds
have the least held-out loss on the last: the linear leaves that generalize, with constant leaves (a weight
that zeroes every ``w``) among the candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...budget import expired, remaining
from ...trees import Tree

__all__ = ["fit_leaf_model", "refit_leaves", "choose_lam", "LamChoice", "LAM_SHARES", "weighted_median"]

#: Candidate l1 weights as shares of the total row weight (standardized units: a share of about 1 zeroes
#: every weight, a constant leaf), from the strongest regularization down.
LAM_SHARES = (1.0, 0.1, 0.03, 0.01, 0.001, 1e-4)


def fit_leaf_model(X, y, v, lam: float, absolute: bool, weight_bound: float,
                   max_features=None, deadline=None, signs=None, allowed=None) -> tuple[np.ndarray, float]:
    """``(w, b)`` of one leaf's convex problem (module docstring); a leaf without rows gets ``(0, 0)``. With
    ``max_features`` a fit using more keeps its largest terms ``|w_j| std(x_j)`` and is refitted on them (3.14's
    budget, a heuristic). ``signs`` (-1 / 0 / +1 per feature) bound the weights' signs and ``allowed`` (a mask)
    the features read. The linear program stops at ``deadline`` (HiGHS's time limit; one on 24,000 rows took
    seconds), and the leaf is then its best constant."""
    from ..node_fit import top_features

    X, y, v = np.asarray(X, float), np.asarray(y, float), np.asarray(v, float)
    n, p = X.shape
    if n == 0 or v.sum() <= 0:
        return np.zeros(p), 0.0
    signs = np.zeros(p, np.int64) if signs is None else np.asarray(signs, np.int64)
    allowed = np.ones(p, bool) if allowed is None else np.asarray(allowed, bool)

    def fit(keep):
        Xc, sc = X[:, keep], signs[keep]
        w_keep, b = _absolute_leaf(Xc, y, v, lam, weight_bound, deadline, sc) if absolute else \
            _squared_leaf(Xc, y, v, lam, weight_bound, sc)
        w = np.zeros(p)
        w[keep] = w_keep
        return w, b

    w, b = fit(np.flatnonzero(allowed))
    if max_features is None or np.count_nonzero(w) <= max_features:
        return w, b
    return fit(np.flatnonzero(top_features(w, X, max_features)))


def _absolute_leaf(X, y, v, lam, weight_bound, deadline=None, signs=None):
    import scipy.sparse as sp
    from scipy.optimize import linprog

    n, p = X.shape
    # columns: w+ (p), w- (p), b (1), e+ (n), e- (n)
    cost = np.concatenate([np.full(2 * p, lam), [0.0], v, v])
    eye = sp.identity(n, format="csr")
    A_eq = sp.hstack([sp.csr_matrix(X), sp.csr_matrix(-X), sp.csr_matrix(np.ones((n, 1))), -eye, eye], format="csr")
    A_ub = sp.csr_matrix(np.concatenate([np.ones(2 * p), np.zeros(1 + 2 * n)])[None, :])
    signs = np.zeros(p) if signs is None else np.asarray(signs)
    bounds = [(0, 0 if s < 0 else None) for s in signs] + [(0, 0 if s > 0 else None) for s in signs] + \
        [(None, None)] + [(0, None)] * (2 * n)
    left = remaining(deadline)
    if left is not None and left <= 0:
        return np.zeros(p), float(weighted_median(y, v))
    res = linprog(cost, A_ub=A_ub, b_ub=[weight_bound], A_eq=A_eq, b_eq=y, bounds=bounds, method="highs",
                  options={} if left is None else {"time_limit": left})
    if res.status != 0:
        return np.zeros(p), float(weighted_median(y, v))
    w = res.x[:p] - res.x[p:2 * p]
    return np.where(np.abs(w) > 1e-12, w, 0.0), float(res.x[2 * p])


def _squared_leaf(X, y, v, lam, weight_bound, signs=None):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Lasso

    mean = float(np.average(y, weights=v))
    if lam <= 0 or X.shape[1] == 0:
        return np.zeros(X.shape[1]), mean
    signed = signs is not None and np.any(signs)
    lasso = Lasso(alpha=lam / (2 * v.sum()), max_iter=5000, positive=bool(signed))
    if signed:                              # the module docstring's columns: s_j x_j, or x_j and -x_j
        free = np.flatnonzero(np.asarray(signs) == 0)
        columns = np.hstack([X * np.where(signs == 0, 1.0, signs), -X[:, free]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = lasso.fit(columns if signed else X, y, sample_weight=v * len(v) / v.sum())
    w = np.asarray(model.coef_, float)
    if signed:
        w = w[:X.shape[1]] * np.where(signs == 0, 1.0, signs)
        w[free] -= np.asarray(model.coef_, float)[X.shape[1]:]
    if np.abs(w).sum() > weight_bound:
        return np.zeros(X.shape[1]), mean
    return w, float(model.intercept_)


def weighted_median(values, weights) -> float:
    """The smallest value at which the sorted weights reach half their total (a minimizer of
    ``sum_i weights_i |values_i - m|``)."""
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, cum[-1] / 2)])


def refit_leaves(tree: Tree, X, y, v, lam: float, absolute: bool, weight_bound: float,
                 deadline=None, max_features=None, signs=None, allowed=None) -> Tree:
    """``tree`` with each leaf's linear model ``(weights, intercept)`` the optimum of its convex problem on the
    rows routed to it (splits unchanged; ``signs`` and ``allowed`` as :func:`fit_leaf_model` takes them); leaves
    not reached before ``deadline`` keep their model."""
    leaf_of = tree.apply(X)
    weights, intercept = tree.weights.copy(), tree.intercept.copy()
    for t in np.flatnonzero(tree.is_leaf):
        if expired(deadline):
            break
        rows = leaf_of == t
        if rows.any():
            weights[t], intercept[t] = fit_leaf_model(X[rows], y[rows], v[rows], lam, absolute, weight_bound,
                                                      max_features, deadline, signs, allowed)
    return replace(tree, weights=weights, intercept=intercept)


@dataclass(frozen=True)
class LamChoice:
    """The outcome of :func:`choose_lam`: the chosen ``lam``, the candidates, each one's mean held-out loss
    over the folds every candidate completed (``nan``: not compared) and how many folds that was (``0``: none
    completed before the deadline, and ``lam`` is the fallback)."""

    lam: float
    candidates: tuple
    mean_loss: np.ndarray
    folds_scored: int


def choose_lam(tree: Tree, X, y, v, candidates, absolute: bool, weight_bound: float, *, n_folds=4,
               random_state=0, fallback=0, deadline=None, max_features=None, signs=None,
               allowed=None) -> LamChoice:
    """The candidate ``lam`` whose leaves, refitted on ``n_folds - 1`` folds with ``tree``'s routing, have the
    least weighted mean held-out loss (absolute or squared error) on the remaining fold (each leaf fitted with
    ``signs`` and ``allowed`` as :func:`fit_leaf_model` takes them).

    Folds are shuffled (``random_state``) and drawn within deciles of ``y``. Ties go to the earlier candidate
    (give them from the strongest regularization down). The search stops at ``deadline``; the folds every
    candidate completed are compared, and with none ``candidates[fallback]`` is returned.
    """
    from sklearn.model_selection import StratifiedKFold

    X, y, v = np.asarray(X, float), np.asarray(y, float), np.asarray(v, float)
    candidates = tuple(float(c) for c in candidates)
    n_folds = int(min(n_folds, len(y)))
    deciles = np.searchsorted(np.quantile(y, np.linspace(0.1, 0.9, 9)), y) if n_folds >= 2 else None
    splitter = StratifiedKFold(n_folds, shuffle=True, random_state=random_state) if n_folds >= 2 else None
    losses = []
    if splitter is not None:
        counts = np.bincount(deciles)
        strata = deciles if counts[counts > 0].min() >= n_folds else np.zeros(len(y), int)
        for train, test in splitter.split(X, strata):
            row = []
            for lam in candidates:
                if expired(deadline):
                    break
                fitted = refit_leaves(tree, X[train], y[train], v[train], lam, absolute, weight_bound, deadline,
                                      max_features, signs, allowed)
                if expired(deadline):
                    break
                r = y[test] - fitted.predict(X[test])
                err = np.abs(r) if absolute else r ** 2
                row.append(float(v[test] @ err / v[test].sum()))
            if len(row) < len(candidates):
                break
            losses.append(row)
    mean = np.mean(losses, axis=0) if losses else np.full(len(candidates), np.nan)
    best = int(np.argmin(mean)) if losses else int(fallback)
    return LamChoice(candidates[best], candidates, mean, len(losses))
