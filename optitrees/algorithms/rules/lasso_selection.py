"""LASSO selection of M rules and the per-rule correctness models (seed 004, II-B and II-C).

Selection (II-B): an L1-regularized logistic regression of the labels on the
binary rule matrix, its strength chosen by ``cv``-fold cross-validation (the
seed's 3-fold LASSO); the M rules of largest absolute coefficient are kept.
When the cross-validated model has fewer than M nonzero coefficients, the
regularization is weakened along the same grid until M rules are nonzero
(or the grid ends; then every nonzero rule is kept).

Correctness (II-C): for each selected rule, an L1 logistic regression (on
standardized features, strength by cross-validation) of "the rule is right
for this row" on the K features used by the selected rules. Its weights are
returned on the original feature scale, so ``w @ x + b > 0`` is the model.

Every fit takes ``sample_weight`` (each row's weight in the loss and in the
cross-validated log loss).
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV

from .. import _fit_warnings  # noqa: F401  (the fits' convergence warnings are silenced there, thread-safely)
from ...budget import call_until
from ..liblinear import liblinear_fit

__all__ = ["lasso_select", "correctness_model", "N_CS"]

#: Values of the inverse regularization strength C tried by cross-validation.
N_CS = 12


#: scikit-learn 1.8 replaced ``penalty`` by ``l1_ratio`` (``l1_ratios`` in the CV class).
_L1_RATIO_API = inspect.signature(LogisticRegression).parameters["penalty"].default == "deprecated"


def _l1_params() -> dict:
    """Keyword arguments that make a ``LogisticRegression`` L1."""
    return {"l1_ratio": 1.0, "solver": "liblinear"} if _L1_RATIO_API else {"penalty": "l1", "solver": "liblinear"}


def log_loss(model, X, y, sample_weight=None) -> float:
    """Mean (weighted) log loss of a fitted classifier on ``(X, y)``: scikit-learn's ``log_loss`` (probabilities
    clipped to ``[eps, 1 - eps]``) without its input checks, which took three quarters of a rule set's fit on
    small data (the cross-validation scores every fold at every ``C``)."""
    eps = np.finfo(float).eps
    proba = np.clip(model.predict_proba(X), eps, 1 - eps)
    column = np.searchsorted(model.classes_, y)
    return float(np.average(-np.log(proba[np.arange(len(column)), column]), weights=sample_weight))


def _neg_log_loss(model, X, y, sample_weight=None) -> float:
    """The scorer ``"neg_log_loss"``, by :func:`log_loss`."""
    return -log_loss(model, X, y, sample_weight)


def _l1_cv(Cs, cv, random_state):
    """A ``LogisticRegressionCV`` over ``Cs`` with the L1 penalty, scored by log loss."""
    params = {"l1_ratios": (1.0,), "use_legacy_attributes": False} if _L1_RATIO_API else {"penalty": "l1"}
    return LogisticRegressionCV(Cs=Cs, cv=cv, scoring=_neg_log_loss, solver="liblinear", random_state=random_state,
                                **params)


def _cv_fit(Z, y, Cs, cv, random_state, deadline, sample_weight=None):
    """The L1 logistic model at the ``C`` of least cross-validated log loss, as ``_l1_cv`` chooses it, with a
    deadline: the grid is walked from the sparsest model up, and a fold fit still running at ``deadline`` is
    abandoned (:func:`~optitrees.budget.call_until`) and ends the walk; the ``C`` s scored in full
    compete. The final fit on all rows at the chosen ``C`` stops at the deadline too; the model is then that
    chosen ``C``'s fold model of least held-out loss (fitted on ``(cv - 1) / cv`` of the rows). When no ``C``
    was scored in full, the model is the sparsest one's fit on all rows (fast: its penalty keeps almost every
    weight at zero). Returns a fitted model with ``coef_``, ``intercept_`` and ``C_``."""
    from sklearn.model_selection import StratifiedKFold

    def l1_fit(C, rows):
        weight = None if sample_weight is None else sample_weight[rows]
        return liblinear_fit(LogisticRegression(C=C, random_state=random_state, **_l1_params()), Z[rows], y[rows],
                             weight, deadline)

    folds = list(StratifiedKFold(cv).split(Z, y))
    losses, fold_models = [], []
    for C in Cs:
        total, scored = 0.0, []
        for train, test in folds:
            done, model = call_until(deadline, l1_fit, C, train)
            if not done:
                break
            loss = log_loss(model, Z[test], y[test], None if sample_weight is None else sample_weight[test])
            total += loss
            scored.append((loss, model))
        else:
            losses.append(total)
            fold_models.append(scored)
            continue
        break
    if not losses:
        best = float(Cs[0])
        model = l1_fit(best, np.arange(len(y)))
    else:
        k = int(np.argmin(losses))
        best = float(Cs[k])
        done, model = call_until(deadline, l1_fit, best, np.arange(len(y)))
        if not done:
            model = min(fold_models[k], key=lambda scored: scored[0])[1]
    model.C_ = np.array([best])
    return model


def _grid(Z, y, sample_weight=None) -> np.ndarray:
    """C values from just above the all-zero model over four decades.

    The all-zero bound is scikit-learn's ``l1_min_c`` (log loss, intercept column 1) of the weighted
    columns ``v_i z_i``: ``2 / max(max_j |sum_i v_i y_i z_ij|, |sum_i y_i|)`` with ``y_i = +-1``, computed
    without forming the weighted matrix (a copy of ``Z``, 0.3-0.7 s on 30,000 rows x 780 rules).
    """
    y = np.asarray(y)
    signs = np.where(y == np.unique(y)[-1], 1.0, -1.0)
    weighted_signs = signs if sample_weight is None else signs * sample_weight
    active = np.ones(len(y), bool) if sample_weight is None else np.asarray(sample_weight) != 0
    if not np.any(Z if active.all() else Z[active]):          # every weighted column is zero
        return np.logspace(0.05, 4, N_CS)
    den = max(float(np.abs(weighted_signs @ Z).max(initial=0.0)), abs(float(signs.sum())))
    if den == 0.0:
        raise ValueError("Ill-posed l1_min_c calculation: l1 will always select zero coefficients for this data")
    return 2.0 / den * np.logspace(0.05, 4, N_CS)


def lasso_select(Z, y, n_rules: int, cv: int = 3, random_state=None, deadline=None,
                 sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, coefficients)`` of the ``n_rules`` columns of the rule matrix ``Z`` kept by LASSO (II-B).

    Indices are ordered by decreasing ``|coefficient|`` (ties: lower index
    first); ``coefficients`` are those of the model that selected them. With
    a ``deadline`` the cross-validation stops scoring the grid and the walk up
    the path towards ``n_rules`` rules stops when it passes (fewer rules are
    kept then).
    """
    Z = np.asarray(Z, dtype=float)
    Cs = _grid(Z, y, sample_weight)
    model = liblinear_fit(_l1_cv(Cs, cv, random_state), Z, y, sample_weight) if deadline is None else \
        _cv_fit(Z, y, Cs, cv, random_state, deadline, sample_weight)
    coef = model.coef_.ravel()
    start = int(np.searchsorted(Cs, float(np.ravel(model.C_)[0])))
    for C in Cs[start + 1:]:
        if np.count_nonzero(coef) >= n_rules:
            break
        model = LogisticRegression(C=C, random_state=random_state, **_l1_params())
        done, model = call_until(deadline, liblinear_fit, model, Z, y, sample_weight, deadline)
        if not done:
            break
        coef = model.coef_.ravel()
    order = np.lexsort((np.arange(len(coef)), -np.abs(coef)))
    keep = order[:min(n_rules, np.count_nonzero(coef))]
    return keep, coef[keep]


def correctness_model(X, correct, cv: int = 3, random_state=None, deadline=None,
                      sample_weight=None) -> tuple[np.ndarray, float]:
    """``(weights, intercept)`` on the original scale of ``X`` of an L1 logistic model of ``correct`` (II-C).

    When one outcome has fewer than ``cv`` rows (no stratified cross-validation
    possible) the model is the constant majority: zero weights and intercept
    +1 (always trusted) or -1 (never trusted).
    """
    X = np.asarray(X, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    n_correct = int(correct.sum())
    if min(n_correct, len(correct) - n_correct) < cv or X.shape[1] == 0:
        v = np.ones(len(correct)) if sample_weight is None else sample_weight
        return np.zeros(X.shape[1]), 1.0 if 2 * v[correct].sum() >= v.sum() else -1.0
    if sample_weight is None:
        mean, scale = X.mean(axis=0), X.std(axis=0)
    else:
        mean = np.average(X, axis=0, weights=sample_weight)
        scale = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=sample_weight))
    scale[scale == 0] = 1.0
    Xs = (X - mean) / scale
    Cs = _grid(Xs, correct, sample_weight)
    model = liblinear_fit(_l1_cv(Cs, cv, random_state), Xs, correct, sample_weight) if deadline is None else \
        _cv_fit(Xs, correct, Cs, cv, random_state, deadline, sample_weight)
    w = model.coef_.ravel() / scale
    return w, float(model.intercept_[0] - w @ mean)
