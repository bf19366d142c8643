"""CRT: the contextual regression tree (seed 002, ch. 5)."""

from __future__ import annotations

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.tree import DecisionTreeRegressor

from ...algorithms.contextual.bandit import regression_rewards, supervised_targets
from ._contextual_trees import _ContextualTrees

__all__ = ["ContextualTreeRegressor"]


class ContextualTreeRegressor(RegressorMixin, _ContextualTrees):
    """Contextual Regression Tree, CRT (seed 002, ch. 5): the policy picks the forest tree that predicts each point.

    As :class:`ContextualTreeClassifier`, with regression trees, reward (5.5)
    (``1 - 2 d``, d the squared error scaled between the best and the worst
    tree on the point), the supervised label "tree of least squared error",
    and early stopping on the validation RMSE. Same parameters.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> X, y = make_friedman1(n_samples=400, random_state=0)
    >>> crt = ContextualTreeRegressor(n_estimators=10, max_epochs=20, random_state=0).fit(X, y)
    >>> bool(crt.score(X, y) > 0.3), crt.max_depth_ in (2, 3, 4)
    (True, True)
    """

    _is_classifier = False

    def _decode(self, y):
        return y

    def _encode_predictions(self, values):
        return values

    def _cart(self, depth):
        return DecisionTreeRegressor(max_depth=depth, random_state=self.random_state)

    def _rewards(self, P, y):
        return regression_rewards(P, y)

    def _supervised_targets(self, X, P, y, rng):
        return supervised_targets(P, y, rng)

    @staticmethod
    def _choice_score(predictions, y, sample_weight=None):
        return -float(np.sqrt(np.average((predictions - y) ** 2, weights=sample_weight)))

    def _class_names(self):
        return None

    def predict(self, X):
        """The value the chosen tree gives each point."""
        return self._predict_array(self._X(X))

    def _predict_array(self, X):
        return self._chosen_predictions(X)
