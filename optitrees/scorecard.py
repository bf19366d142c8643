"""Score cards of risk-score models: rules, points, intercept, and their edits.

A :class:`ScoreCard` is a generalized risk score (seed 002, 4.7)
``R(x) = sum_t s_t r_t(x) + beta`` with single-clause rules
``r_t(x) = 1{x_j >= b_t}`` or ``1{x_j < b_t}``, or per-unit rules
``r_t(x) = x_j`` for integer-valued features (counts, 1-10 scales: ``s_t`` points
per unit, as FasterRisk scores them); ``R(x) / multiplier`` is the log-odds of
the positive class (``multiplier = 1`` unless the card was rounded from a
scaled solution, as FasterRisk's cards are). Rules on 0/1 features read
``x_j = 1`` / ``x_j = 0``.
Theorem 4.1 (flip one rule's logic and sign, update the intercept) and
Corollary 4.1 (an equivalent card with non-negative points) are
:meth:`ScoreCard.flip` and :meth:`ScoreCard.all_positive`. Text, tables,
dicts and figures of a card are in :mod:`optitrees.export`; every number they
show is the card's own (see :mod:`optitrees.readable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import expit

from .linear_form import sum_left_to_right
from .readable import format_number, round_significant

__all__ = ["ScoreCard"]


@dataclass
class ScoreCard:
    """Rules and integer points of a (generalized) risk score.

    Parameters
    ----------
    features : ndarray of int of shape (T,)
        Column of ``X`` each rule tests.
    thresholds : ndarray of shape (T,)
        ``b_t`` in the units of ``X`` (0.5 for 0/1 features).
    greater : ndarray of bool of shape (T,)
        True for ``x_j >= b_t``, False for ``x_j < b_t``.
    points : ndarray of int of shape (T,)
    intercept : float
    binary : ndarray of bool of shape (T,)
        The tested feature only takes the values 0 and 1 (the rule reads ``x_j = 1``).
    per_unit : ndarray of bool of shape (T,), optional
        The rule scores ``points`` per unit of ``x_j`` (``thresholds`` and
        ``greater`` are then unused).
    multiplier : float, default=1.0
        The log-odds are ``(total + intercept) / multiplier``.
    unit_range : ndarray of shape (T, 2), optional
        Lowest and highest training value of each per-unit rule's feature
        (for the range of reachable totals).
    """

    features: np.ndarray
    thresholds: np.ndarray
    greater: np.ndarray
    points: np.ndarray
    intercept: float
    binary: np.ndarray = field(default=None)
    per_unit: np.ndarray = field(default=None)
    multiplier: float = 1.0
    unit_range: np.ndarray = field(default=None)

    def __post_init__(self):
        self.features = np.asarray(self.features, int).ravel()
        self.thresholds = np.asarray(self.thresholds, float).ravel()
        self.greater = np.asarray(self.greater, bool).ravel()
        self.points = np.asarray(self.points, int).ravel()
        T = len(self.features)
        self.binary = np.zeros(T, bool) if self.binary is None else np.asarray(self.binary, bool).ravel()
        self.per_unit = np.zeros(T, bool) if self.per_unit is None else np.asarray(self.per_unit, bool).ravel()
        self.intercept = float(self.intercept)
        self.multiplier = float(self.multiplier)
        self.unit_range = np.zeros((T, 2)) if self.unit_range is None else np.asarray(self.unit_range, float)
        if not all(len(a) == T for a in (self.thresholds, self.greater, self.points, self.binary, self.per_unit)):
            raise ValueError("features, thresholds, greater, points, binary and per_unit need one entry per rule")
        if self.unit_range.shape != (T, 2):
            raise ValueError(f"unit_range needs a (low, high) pair per rule, got shape {self.unit_range.shape}")
        if not np.isfinite(self.intercept):
            raise ValueError(f"the intercept must be a finite number, got {self.intercept!r}")
        # a binary rule reads "x = 1" (or "x = 0"): on 0/1 values that is x >= t (x < t) only for 0 < t <= 1
        flagged = self.binary & ~self.per_unit
        if np.any((self.thresholds[flagged] <= 0) | (self.thresholds[flagged] > 1)):
            raise ValueError("a rule on a binary feature reads x = 1 or x = 0: its threshold must lie in (0, 1]")
        if not (np.isfinite(self.multiplier) and self.multiplier > 0):
            raise ValueError(f"the multiplier must be positive, got {self.multiplier!r}")

    @property
    def n_rules(self) -> int:
        return len(self.features)

    def rules(self, X) -> np.ndarray:
        """``r_t(x_i)`` for every point and rule, shape ``(n, T)``: 0/1, or the value for per-unit rules."""
        X = np.asarray(X, float)
        values = X[:, self.features]
        ge = values >= self.thresholds[None, :]
        hit = np.where(self.greater[None, :], ge, ~ge).astype(float)
        return np.where(self.per_unit[None, :], values, hit)

    def feature_importances(self, X, n_features: int) -> np.ndarray:
        """Share of each feature in the spread of the total score over ``X``, summing to 1 (zeros without rules).

        Rule ``k`` counts ``|points_k| * std(r_k(x))`` over ``X`` (its points times
        how much its value varies: a rule every point satisfies moves nobody's
        score), credited to the feature it tests.
        """
        influence = np.abs(self.points) * self.rules(X).std(axis=0)
        out = np.bincount(np.asarray(self.features, int), weights=influence, minlength=n_features).astype(float)
        total = out.sum()
        return out / total if total > 0 else out

    def totals(self, X) -> np.ndarray:
        """Total points of each point (integers for integer-valued features): ``r_1 * points_1 + r_2 * points_2
        + ...`` added left to right, as the card's SQL reads it."""
        return sum_left_to_right(self.rules(X) * self.points)

    def decision_function(self, X) -> np.ndarray:
        """``(total points + intercept) / multiplier``: the log-odds of the positive class."""
        return (self.totals(X) + self.intercept) / self.multiplier

    def predict_proba(self, X) -> np.ndarray:
        """Probability of the positive class, ``sigmoid(total + intercept)``."""
        return expit(self.decision_function(X))

    # ----------------------------------------------------------- editing
    def flip(self, k: int) -> "ScoreCard":
        """Theorem 4.1: rule ``k`` tests the opposite condition, its points change sign, ``beta += s_k``."""
        if not 0 <= k < self.n_rules:
            raise IndexError(f"rule {k} out of range (the card has {self.n_rules} rules)")
        if self.per_unit[k]:
            raise ValueError(f"rule {k} scores per unit of a feature; it has no opposite condition")
        greater, points = self.greater.copy(), self.points.copy()
        greater[k] = not greater[k]
        intercept = self.intercept + points[k]
        points[k] = -points[k]
        return replace(self, greater=greater, points=points, intercept=intercept)

    def all_positive(self) -> "ScoreCard":
        """Corollary 4.1: flip every rule with negative points (per-unit rules keep their sign)."""
        card = self
        for k in np.flatnonzero((self.points < 0) & ~self.per_unit):
            card = card.flip(int(k))
        return card

    def with_readable_intercept(self, X, y=None, tol: float = 1e-7, sample_weight=None) -> "ScoreCard":
        """The intercept rounded to the fewest significant digits (from 3) that keep every training point's
        class and keep its log-odds off 0 (the card's risk table then reads exactly as it predicts); given
        the labels ``y`` in ``{-1, +1}``, also keeping the logistic loss (weighted by ``sample_weight``) within
        ``tol`` (relative)."""
        totals = self.totals(X)
        positive = totals + self.intercept > 0
        m = self.multiplier
        v = np.ones(len(totals)) if sample_weight is None else np.asarray(sample_weight, float)
        loss = None if y is None else (lambda b: float(np.logaddexp(0.0, -np.asarray(y, float) * (totals + b) / m)
                                                       @ v))
        for digits in range(3, 18):
            b = float(round_significant(self.intercept, digits))
            score = totals + b
            if not (np.array_equal(score > 0, positive) and np.all(np.abs(score) > 1e-9)):
                continue
            if loss is None or loss(b) <= loss(self.intercept) + tol * max(1.0, loss(self.intercept)):
                return replace(self, intercept=b)
        return self

    # ----------------------------------------------------------- reading
    def total_range(self) -> tuple[int, int]:
        """The lowest and highest total score the rules can add up to (per-unit rules over their feature's
        training range), rounded out to integers."""
        pts = self.points.astype(float)
        lo = np.where(self.per_unit, pts * self.unit_range[:, 0], np.minimum(pts, 0))
        hi = np.where(self.per_unit, pts * self.unit_range[:, 1], np.maximum(pts, 0))
        return int(np.floor(np.minimum(lo, hi).sum())), int(np.ceil(np.maximum(lo, hi).sum()))

    def reachable_totals(self, max_rows: int | None = None) -> np.ndarray:
        """Every total score from the lowest to the highest (:meth:`total_range`); with ``max_rows``, at most
        that many consecutive totals, centred where the predicted class changes (``total = -intercept``: the
        log-odds rise with the total, so every total below the ones returned predicts the class of the first,
        every total above them that of the last)."""
        low, high = self.total_range()
        if max_rows is None or high - low + 1 <= max_rows:
            return np.arange(low, high + 1)
        change = min(max(float(np.floor(-self.intercept)), low), high)
        start = min(max(int(change) - max_rows // 2, low), high - max_rows + 1)
        return np.arange(start, start + max_rows)

    def with_unit_range(self, X) -> "ScoreCard":
        """The card with the training range of its per-unit rules' features recorded."""
        values = np.asarray(X, float)[:, self.features]
        return replace(self, unit_range=np.column_stack([values.min(axis=0), values.max(axis=0)]))

    def rule_text(self, k: int, feature_names) -> str:
        """``age >= 62.5``, ``smoker = 1``, ``each unit of clump_thickness``: the rule exactly as the card
        evaluates it."""
        name = feature_names[self.features[k]]
        if self.per_unit[k]:
            return f"each unit of {name}"
        if self.binary[k]:
            return f"{name} = {1 if self.greater[k] else 0}"
        return f"{name} {'>=' if self.greater[k] else '<'} {format_number(self.thresholds[k])}"
