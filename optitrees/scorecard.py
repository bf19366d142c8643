"""Score cards of risk-score models: rules, points, intercept, risk table, and their edits.

A :class:`ScoreCard` is a generalized risk score (seed 002, 4.7)
``R(x) = sum_t s_t r_t(x) + beta`` with single-clause rules
``r_t(x) = 1{x_j >= b_t}`` or ``1{x_j < b_t}``; ``R(x)`` is the log-odds of the
positive class. Binary features are shown as ``x_j = 1`` / ``x_j = 0``.
Theorem 4.1 (flip one rule's logic and sign, update the intercept) and
Corollary 4.1 (an equivalent card with non-negative points) are
:meth:`ScoreCard.flip` and :meth:`ScoreCard.all_positive`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import expit

__all__ = ["ScoreCard"]


@dataclass
class ScoreCard:
    """Rules and integer points of a (generalized) risk score.

    Parameters
    ----------
    features : ndarray of int of shape (T,)
        Column of ``X`` each rule tests.
    thresholds : ndarray of shape (T,)
        ``b_t`` in the user's units (0.5 for binary features).
    greater : ndarray of bool of shape (T,)
        True for ``x_j >= b_t``, False for ``x_j < b_t``.
    points : ndarray of int of shape (T,)
    intercept : float
    feature_names : list of str
    binary : ndarray of bool of shape (T,)
        Whether the tested feature is binary (changes only how rules read).
    classes : sequence, optional
        ``(negative, positive)`` labels for display.
    """

    features: np.ndarray
    thresholds: np.ndarray
    greater: np.ndarray
    points: np.ndarray
    intercept: float
    feature_names: list
    binary: np.ndarray
    classes: tuple = field(default=(0, 1))

    def __post_init__(self):
        self.features = np.asarray(self.features, int).ravel()
        self.thresholds = np.asarray(self.thresholds, float).ravel()
        self.greater = np.asarray(self.greater, bool).ravel()
        self.points = np.asarray(self.points, int).ravel()
        self.binary = np.asarray(self.binary, bool).ravel()
        self.intercept = float(self.intercept)
        T = len(self.features)
        if not all(len(a) == T for a in (self.thresholds, self.greater, self.points, self.binary)):
            raise ValueError("features, thresholds, greater, points and binary need one entry per rule")

    @property
    def n_rules(self) -> int:
        return len(self.features)

    def rules(self, X) -> np.ndarray:
        """``r_t(x_i)`` for every point and rule, shape ``(n, T)``, values 0/1."""
        X = np.asarray(X, float)
        ge = X[:, self.features] >= self.thresholds[None, :]
        return np.where(self.greater[None, :], ge, ~ge).astype(float)

    def decision_function(self, X) -> np.ndarray:
        """Total points plus intercept."""
        return self.rules(X) @ self.points + self.intercept

    def predict_proba(self, X) -> np.ndarray:
        """Probability of the positive class, ``sigmoid(total + intercept)``."""
        return expit(self.decision_function(X))

    # ----------------------------------------------------------- editing
    def flip(self, k: int) -> "ScoreCard":
        """Theorem 4.1: rule ``k`` tests the opposite condition, its points change sign, ``beta += s_k``."""
        if not 0 <= k < self.n_rules:
            raise IndexError(f"rule {k} out of range (the card has {self.n_rules} rules)")
        greater, points = self.greater.copy(), self.points.copy()
        greater[k] = not greater[k]
        intercept = self.intercept + points[k]
        points[k] = -points[k]
        return replace(self, greater=greater, points=points, intercept=intercept)

    def all_positive(self) -> "ScoreCard":
        """Corollary 4.1: flip every rule with negative points; an equivalent card with points >= 0."""
        card = self
        for k in np.flatnonzero(self.points < 0):
            card = card.flip(int(k))
        return card

    # ----------------------------------------------------------- reading
    def rule_text(self, k: int, decimals: int = 3) -> str:
        """``age >= 62.5``, ``smoker = 1`` ..."""
        name = self.feature_names[self.features[k]]
        if self.binary[k]:
            return f"{name} = {1 if self.greater[k] else 0}"
        return f"{name} {'>=' if self.greater[k] else '<'} {self.thresholds[k]:.{decimals}g}"

    def to_frame(self, decimals: int = 3):
        """The rules and their points as a DataFrame (the seed's CHADS2-style card)."""
        import pandas as pd

        return pd.DataFrame({"rule": [self.rule_text(k, decimals) for k in range(self.n_rules)],
                             "points": self.points})

    def risk_table(self):
        """Every reachable total score and its predicted probability, as a DataFrame."""
        import pandas as pd

        low, high = self.points[self.points < 0].sum(), self.points[self.points > 0].sum()
        totals = np.arange(low, high + 1)
        return pd.DataFrame({"score": totals, "probability": expit(totals + self.intercept)})

    def to_text(self, decimals: int = 3) -> str:
        """The card (rules and points, intercept) followed by its risk table."""
        card, risk = self.to_frame(decimals), self.risk_table()
        width = max([len(r) for r in card["rule"]] + [len("intercept")])
        lines = [f"{'rule':<{width}}  points"]
        lines += [f"{r:<{width}}  {p:+d}" for r, p in zip(card["rule"], card["points"])]
        lines += [f"{'intercept':<{width}}  {self.intercept:+.{decimals}f}", "",
                  f"score  P({self.classes[1]})"]
        lines += [f"{t:>5d}  {p:.{decimals}f}" for t, p in zip(risk["score"], risk["probability"])]
        return "\n".join(lines)

    def to_dict(self, decimals: int = 3) -> dict:
        """JSON-serializable card: rules, points, intercept and risk table."""
        risk = self.risk_table()
        return {"model": "risk_score", "positive_class": _jsonable(self.classes[1]),
                "negative_class": _jsonable(self.classes[0]),
                "rules": [{"rule": self.rule_text(k, decimals), "feature": str(self.feature_names[self.features[k]]),
                           "threshold": float(self.thresholds[k]), "greater_or_equal": bool(self.greater[k]),
                           "points": int(self.points[k])} for k in range(self.n_rules)],
                "intercept": self.intercept,
                "risk": [{"score": int(t), "probability": float(p)}
                         for t, p in zip(risk["score"], risk["probability"])]}


def _jsonable(v):
    return v.item() if hasattr(v, "item") else v
