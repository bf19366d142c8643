"""What the two risk-score models share: the score set, the exact loss of a card, the tangent slack rows.

:mod:`optitrees.formulations.risk_scores.ors` builds the optimal risk score on binary
features (4.5); :mod:`optitrees.formulations.risk_scores.ogrs` the generalized risk score
with learned thresholds (4.16). Both model the logistic loss of the log-odds
``y_i (total points_i + beta)`` by Sato's tangent lines (4.4, 4.16o).
"""

from __future__ import annotations

import numpy as np

from ...mip.expressions import Data
from ...scaling import weighted_sum
from ..tangents import logistic_loss

__all__ = ["check_score_set", "card_loss", "default_intercept_bound", "add_point_rules",
           "POSITIVE_MARGIN"]

#: The least score (points plus intercept) of a row a MIP's ``positive[i]`` says is predicted positive (the
#: ``predicted_positive`` rows of both models): a row at 0 is predicted negative, as the card predicts.
POSITIVE_MARGIN = 1e-3


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


def card_loss(card, X, y, sample_weight=None) -> float:
    """Exact training logistic loss ``sum_i v_i log(1 + exp(-y_i (total_i + beta)))`` of a score card (``v_i``:
    ``sample_weight``, 1 by default)."""
    losses = logistic_loss(np.asarray(y, float) * card.decision_function(X))
    return weighted_sum(losses, sample_weight)


def add_point_rules(f, labels, lower, upper, n_rules, exact_rules=False, groups=(), forbidden=()):
    """Integer points ``s_j`` in ``[lower_j, upper_j]`` on at most (exactly) ``n_rules`` features (4.2-4.3).

    Adds the binaries ``a_j`` (feature ``j`` is used) and ``s_j`` with

        sum_j a_j <= T   (= T with ``exact_rules``)                          (4.2)
        lower_j a_j <= s_j <= upper_j a_j                                     (4.3, per feature)
        sum_{j in g} a_j <= 1   for every group g (one rule per group)

    so an unused feature scores 0 and a used one scores within its own
    bounds (``lower_j >= 0``: a monotone, non-negative feature). ``labels``
    names the features (the index set ``J``). Returns ``(a, s)``.
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    f.add_set("J", labels)
    a = f.add_variables("a", ("J",), 0.0, 1.0, domain="binary")
    s = f.add_variables("s", ("J",), np.minimum(lower, 0.0), np.maximum(upper, 0.0), domain="integer")
    if "one" not in f.sets:
        f.add_set("one", np.array([0]))
    count = a.sum("J") * Data(np.ones(1), ("one",))                     # one row, over the set "one"
    f.add_constraints("rule_count", count == n_rules if exact_rules else count <= n_rules, equation="4.2")
    f.add_constraints("score_upper", s - Data(upper, ("J",)) * a <= 0, equation="4.3a")
    f.add_constraints("score_lower", s - Data(lower, ("J",)) * a >= 0, equation="4.3b")
    if groups:
        f.add_set("G", np.arange(len(groups)))
        member = np.zeros((len(groups), len(labels)), bool)
        for k, g in enumerate(groups):                                  # a few groups of a few columns
            member[k, list(g)] = True
        f.add_constraints("one_rule_per_group", (a * Data(member, ("G", "J"))).sum("J") <= 1)
    if forbidden:
        from ..blocks import forbid_features

        forbid_features(f, a, forbidden)
    return a, s
