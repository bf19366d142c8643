"""What fitted tree and score-card estimators show: predictions, paths, text, dicts, tables and edits.

These read the fitted ``tree_`` (:class:`~optitrees.trees.Tree`) or
``score_card_`` (:class:`~optitrees.scorecard.ScoreCard`) only, never the
solver or the formulation.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import export

__all__ = ["TreeViews", "ScoreCardViews"]


class _Printed:
    """Text and dict of the fitted model; evaluating either gives exactly the predictions."""

    def export_text(self):
        """The fitted model as text (see :func:`optitrees.export.export_text`)."""
        check_is_fitted(self)
        return export.export_text(self)

    def to_dict(self):
        """The fitted model as a JSON-serializable dict (see :func:`optitrees.export.export_dict`)."""
        check_is_fitted(self)
        return export.export_dict(self)

    def export_sql(self, table=None):
        """``predict`` as one SQL expression over columns named by the features, qualified by ``table`` when
        given (see :func:`optitrees.export.export_sql`)."""
        check_is_fitted(self)
        return export.export_sql(self, table=table)


class TreeViews(_Printed):
    """Predictions and views of a fitted ``tree_``."""

    def _one_tree(self):
        """``tree_``; a clear error when the model is one tree per class (``tree_`` is ``None``)."""
        check_is_fitted(self)
        if self.tree_ is None:
            raise AttributeError(f"this {type(self).__name__} has one tree per class ({len(self.classes_)} classes, "
                                 "one against the rest): ask estimators_[k] for the tree of classes_[k]")
        return self.tree_

    def predict(self, X):
        """Predicted class labels."""
        X = self._X(X)
        return self.classes_[self._one_tree().predict(X)]

    def apply(self, X):
        """Id of the leaf each sample reaches (a node of ``tree_``)."""
        X = self._X(X)
        return self._one_tree().apply(X)

    def decision_path(self, X):
        """Node ids visited by each sample, root first, ``-1`` after the leaf; shape ``(n, max_depth + 1)``."""
        X = self._X(X)
        return self._one_tree().decision_path(X)

    def get_depth(self) -> int:
        """Edges on the longest root-to-leaf path of ``tree_`` (0 for a single leaf), as scikit-learn's trees.

        In a loss-optimal tree the linear leaves are the last of its ``max_depth``
        classifying layers, so a full tree has ``get_depth() == max_depth - 1``.
        """
        return self._one_tree().max_depth

    def get_n_leaves(self) -> int:
        """Leaves of ``tree_``."""
        return self._one_tree().n_leaves



class ScoreCardViews(_Printed):
    """Predictions, tables and edits of a fitted ``score_card_``."""

    def decision_function(self, X):
        """Total points of the satisfied rules plus the intercept: the log-odds of ``classes_[1]``."""
        X = self._X(X)
        return self.score_card_.decision_function(X)

    def predict_proba(self, X):
        """``[1 - p, p]`` with ``p = sigmoid(total points + intercept)``."""
        X = self._X(X)
        p = self.score_card_.predict_proba(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """``classes_[1]`` where the log-odds are positive."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def score_card(self):
        """Rules and points as a DataFrame (like the seed's CHADS2 card, Figure 4.1)."""
        import pandas as pd

        check_is_fitted(self)
        rows = export.card_dict(self.score_card_, self._feature_names(), self.classes_)["rules"]
        return pd.DataFrame({"rule": [r["rule"] for r in rows], "points": [r["points"] for r in rows]})

    def risk_table(self):
        """Every reachable total score, its probability of ``classes_[1]`` and the class predicted (DataFrame)."""
        import pandas as pd

        check_is_fitted(self)
        return pd.DataFrame(export.card_dict(self.score_card_, self._feature_names(), self.classes_)["risk"])

    def flip_rule(self, k):
        """Theorem 4.1: a copy whose rule ``k`` tests the opposite condition with negated points.

        The intercept absorbs the change, so the copy's decision function is identical.
        """
        check_is_fitted(self)
        other = copy.deepcopy(self)
        other.score_card_ = self.score_card_.flip(int(k))
        return other

    def with_positive_points(self):
        """Corollary 4.1: an equivalent copy in which every rule has non-negative points."""
        check_is_fitted(self)
        other = copy.deepcopy(self)
        other.score_card_ = self.score_card_.all_positive()
        return other
