"""What the two risk-score models share: the score set, the exact loss of a card, the tangent slack rows.

:mod:`optitrees.formulations.ors` builds the optimal risk score on binary
features (4.5); :mod:`optitrees.formulations.ogrs` the generalized risk score
with learned thresholds (4.16). Both model the logistic loss of the log-odds
``y_i (total points_i + beta)`` by Sato's tangent lines (4.4, 4.16o).
"""

from __future__ import annotations

import numpy as np

from .tangents import logistic_loss

__all__ = ["check_score_set", "card_loss", "tangent_terms", "default_intercept_bound"]


def check_score_set(scores) -> np.ndarray:
    """The score set ``A`` as a sorted integer array; consecutive integers containing 0."""
    A = np.unique(np.asarray(list(scores), dtype=float))
    if A.size == 0:
        raise ValueError("the score set A is empty")
    if np.any(A != np.round(A)):
        raise ValueError("scores must be integers")
    A = A.astype(int)
    if 0 not in A or not np.array_equal(A, np.arange(A.min(), A.max() + 1)):
        raise ValueError(f"the score set must be consecutive integers containing 0, got {A.tolist()}")
    if A.size == 1:
        raise ValueError("the score set must contain a nonzero score")
    return A


def default_intercept_bound(max_points: float, n_rules: int) -> float:
    """``|beta| <= max|A| T + 10``: beyond it every tangent line is flat for any total score."""
    return float(max_points) * int(n_rules) + 10.0


def card_loss(card, X, y) -> float:
    """Exact training logistic loss ``sum_i log(1 + exp(-y_i (total_i + beta)))`` of a score card."""
    return float(logistic_loss(np.asarray(y, float) * card.decision_function(X)).sum())


def tangent_terms(lines, y, slack, score_terms, beta):
    """Terms and lower bounds of the rows ``slack_i - a_k y_i (score_i + beta) >= c_k`` ordered ``(k, i)``.

    ``score_terms(coef)`` returns the terms of ``sum coef[k, i] * score_i`` for
    rows ``(k, i)`` given ``coef`` of shape ``(K, n)``.
    """
    K, n = len(lines.slopes), len(y)
    coef = -lines.slopes[:, None] * np.asarray(y, float)[None, :]                   # (K, n)
    terms = [(np.tile(slack.columns, K), 1.0)] + score_terms(coef) + \
        [(np.full(K * n, beta.columns[0]), coef.ravel())]
    return terms, np.repeat(lines.intercepts, n)
