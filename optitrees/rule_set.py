"""Decision rules and personalized rule sets (seed 004, II-A to II-D).

A :class:`Rule` is one root-to-leaf path of an axis-aligned tree, read as
"IF the conditions hold THEN the leaf's class (ELSE the other class)"; its
conditions are kept as one interval ``lower < x_j <= upper`` per tested
feature, so two paths with the same conditions in another order are the same
rule. A :class:`RuleSet` holds M selected rules and, per rule, a linear
correctness model (trusted for a point when ``w @ x + b > 0``); the
probability of class 1 is the weighted personalized average of eq. (2),

    P(y = 1 | x) = sum_m w_m(x) r_m(x) / sum_m w_m(x),

where ``r_m(x)`` is 1 when rule m predicts class 1 and ``w_m(x)`` is
``correct_weight`` (2) when rule m is trusted for x and ``incorrect_weight``
(1) otherwise. With equal weights this is the plain average of eq. (1).

>>> import numpy as np
>>> rules = [Rule((0,), (-np.inf,), (0.5,), 1), Rule((0, 1), (0.5, -np.inf), (np.inf, 0.5), 0)]
>>> rule_set = RuleSet(rules, trust_weights=np.zeros((2, 2)), trust_intercept=np.array([1.0, -1.0]))
>>> x = np.array([[0.2, 0.9]])           # rule 1 fires (class 1, trusted), rule 2 does not (ELSE: class 1)
>>> rule_set.outputs(x).tolist(), rule_set.trusted(x).tolist(), rule_set.proba(x).tolist()
([[1, 1]], [[True, False]], [1.0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .linear_form import linear_form, sum_left_to_right
from .readable import format_number

__all__ = ["Rule", "RuleSet", "combine"]


@dataclass(frozen=True)
class Rule:
    """IF ``lower[k] < x[features[k]] <= upper[k]`` for every k THEN class ``then`` (ELSE class ``1 - then``).

    Bounds are ``-inf`` / ``inf`` where a side is open; ``then`` is a class
    index (0 or 1). Features are sorted, so equal conditions give equal rules.
    """

    features: tuple
    lower: tuple
    upper: tuple
    then: int

    def __post_init__(self):
        if not (len(self.features) == len(self.lower) == len(self.upper)):
            raise ValueError("a rule needs one lower and one upper bound per feature it tests")
        if self.then not in (0, 1) or isinstance(self.then, bool):
            raise ValueError(f"a rule predicts class 0 or 1 (its THEN part), got {self.then!r}")

    def fires(self, X) -> np.ndarray:
        """Whether the IF part holds for each row of ``X``."""
        X = np.asarray(X, dtype=float)
        mask = np.ones(len(X), dtype=bool)
        for j, lo, hi in zip(self.features, self.lower, self.upper):
            mask &= (X[:, j] > lo) & (X[:, j] <= hi)
        return mask

    def predict(self, X) -> np.ndarray:
        """``then`` where the rule fires, the other class elsewhere (the ELSE part of II-A)."""
        return np.where(self.fires(X), self.then, 1 - self.then)

    def tests(self) -> list[tuple[int, str, float]]:
        """``(feature, ">", lower)`` and ``(feature, "<=", upper)`` for every finite bound, in feature order."""
        out = []
        for j, lo, hi in zip(self.features, self.lower, self.upper):
            if np.isfinite(lo):
                out.append((j, ">", lo))
            if np.isfinite(hi):
                out.append((j, "<=", hi))
        return out

    def conditions(self, feature_names) -> list[str]:
        """The :meth:`tests` as text, ``name > t`` / ``name <= t``."""
        return [f"{feature_names[j]} {op} {format_number(v)}" for j, op, v in self.tests()]

    @property
    def length(self) -> int:
        """Number of conditions (the AND-ed elements of II-A)."""
        return len(self.tests())


@dataclass
class RuleSet:
    """M rules with one linear correctness model each, combined by eq. (2) of seed 004.

    Parameters
    ----------
    rules : list of Rule
    trust_weights : ndarray of shape (M, n_features)
        Correctness model of each rule on the original feature scale; rule m
        is trusted for x when ``trust_weights[m] @ x + trust_intercept[m] > 0``.
    trust_intercept : ndarray of shape (M,)
    correct_weight, incorrect_weight : float
        Weight of a rule in eq. (2) when it is trusted / not trusted.
    """

    rules: list
    trust_weights: np.ndarray
    trust_intercept: np.ndarray
    correct_weight: float = 2.0
    incorrect_weight: float = 1.0

    def __post_init__(self):
        for name in ("correct_weight", "incorrect_weight"):
            value = float(getattr(self, name))
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number (eq. (2) divides by the sum of the weights), "
                                 f"got {value!r}")
        if any(not isinstance(rule, Rule) for rule in self.rules):
            raise ValueError("every rule of a rule set must be a Rule")
        self.trust_weights = np.atleast_2d(np.asarray(self.trust_weights, dtype=float))
        self.trust_intercept = np.asarray(self.trust_intercept, dtype=float).ravel()
        if not (len(self.rules) == len(self.trust_weights) == len(self.trust_intercept)):
            raise ValueError("rules, trust_weights and trust_intercept must have one entry per rule")

    @property
    def n_rules(self) -> int:
        return len(self.rules)

    def feature_importances(self, X, coefficients, n_features: int) -> np.ndarray:
        """Share of each feature in the rules' selection, summing to 1.

        Rule ``m`` counts ``|coefficients_m| * std(fires_m(x))`` over ``X`` (its LASSO
        coefficient times how much its firing varies), shared equally by the
        features its conditions test.
        """
        out = np.zeros(n_features)
        if not self.rules:
            return out
        influence = np.abs(np.asarray(coefficients, float)) * self.fires(X).std(axis=0)
        for rule, value in zip(self.rules, influence):
            used = sorted(set(rule.features))
            if used:
                out[used] += value / len(used)
        total = out.sum()
        return out / total if total > 0 else out

    def fires(self, X) -> np.ndarray:
        """``(n, M)`` booleans: the IF part of each rule holds."""
        return np.column_stack([r.fires(X) for r in self.rules])

    def outputs(self, X) -> np.ndarray:
        """``(n, M)`` class index each rule predicts (first row of Table I)."""
        return np.column_stack([r.predict(X) for r in self.rules])

    def trust_scores(self, X) -> np.ndarray:
        """``(n, M)`` scores ``w_m @ x + b_m`` of the correctness models, each added left to right as printed
        (:func:`~optitrees.linear_form.linear_form`)."""
        X = np.asarray(X, dtype=float)
        if not self.rules:
            return np.zeros((X.shape[0], 0))
        return np.column_stack([linear_form(X, w, b) for w, b in zip(self.trust_weights, self.trust_intercept)])

    def trusted(self, X) -> np.ndarray:
        """``(n, M)`` booleans: rule m is predicted correct for the point (second row of Table I)."""
        return self.trust_scores(X) > 0

    def weights(self, X) -> np.ndarray:
        """``(n, M)`` weights of eq. (2)."""
        return np.where(self.trusted(X), self.correct_weight, self.incorrect_weight)

    def proba(self, X) -> np.ndarray:
        """Probability of class 1, eq. (2)."""
        return combine(self.outputs(X), self.weights(X))


def combine(outputs, weights) -> np.ndarray:
    """Weighted average of the rules' class-1 votes, eq. (2): ``sum w r / sum w`` per row, each sum added left to
    right as the printed rule set and its SQL read.

    >>> combine(np.array([[1, 0, 1]]), np.array([[2, 2, 1]])).tolist()   # Table I
    [0.6]
    """
    outputs = np.asarray(outputs, dtype=float)
    weights = np.asarray(weights, dtype=float)
    return sum_left_to_right(weights * outputs) / sum_left_to_right(weights)
