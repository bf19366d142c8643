"""K binary trees, one per class against the rest: the multi-class form of the loss-optimal trees.

Tree ``k`` scores class ``k`` against all others by the linear model of the
leaf a point reaches (its log-odds for logistic leaves). The prediction is the
first class with the largest score (numpy's ``argmax``); probabilities, where
every tree's leaves are logistic, are ``sigmoid(score_k)`` normalized to sum
to one (as scikit-learn's one-vs-rest classifiers do).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._tree import Tree

__all__ = ["OneVsRestTrees"]


@dataclass(frozen=True)
class OneVsRestTrees:
    """``trees[k]``: the binary tree of class ``k`` against the rest (its positive class is ``k``)."""

    trees: tuple

    def __post_init__(self):
        if len(self.trees) < 3 or not all(isinstance(t, Tree) for t in self.trees):
            raise ValueError("one-vs-rest needs a Tree for each of at least 3 classes")

    @property
    def n_classes(self) -> int:
        return len(self.trees)

    @property
    def n_features(self) -> int:
        return self.trees[0].n_features

    @property
    def probabilistic(self) -> bool:
        return all(t.probabilistic for t in self.trees)

    def decision_function(self, X) -> np.ndarray:
        """Scores of shape ``(n_samples, n_classes)``: column ``k`` is tree ``k``'s leaf score."""
        return np.column_stack([t.decision_function(X) for t in self.trees])

    def predict(self, X) -> np.ndarray:
        """Index of the first class with the largest score."""
        return np.argmax(self.decision_function(X), axis=1)

    def predict_proba(self, X) -> np.ndarray:
        """``sigmoid(score_k)`` normalized over the classes (logistic leaves only)."""
        if not self.probabilistic:
            raise ValueError("probabilities need logistic leaves in every tree")
        p = expit(self.decision_function(X))
        return p / p.sum(axis=1, keepdims=True)
