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
from ._input import printed_names

__all__ = ["TreeViews", "ScoreCardViews"]


class _Printed:
    """Text and dict of the fitted model; evaluating either gives exactly the predictions."""

    def export_text(self, feature_names=None):
        """The fitted model as text (see :func:`optitrees.export.export_text`); ``feature_names`` (one per
        feature) replaces the names seen in ``fit`` (``x0, x1, ...`` after a transformer that returns arrays)."""
        check_is_fitted(self)
        return export.export_text(self, printed_names(self, feature_names))

    def to_dict(self, feature_names=None):
        """The fitted model as a JSON-serializable dict (see :func:`optitrees.export.export_dict`), with
        ``feature_names`` as in :meth:`export_text`."""
        check_is_fitted(self)
        return export.export_dict(self, printed_names(self, feature_names))

    def export_sql(self, table=None, feature_names=None):
        """``predict`` as one SQL expression over columns named by the features (``feature_names`` as in
        :meth:`export_text`), qualified by ``table`` when given (see :func:`optitrees.export.export_sql`)."""
        check_is_fitted(self)
        return export.export_sql(self, printed_names(self, feature_names), table=table)


class TreeViews(_Printed):
    """Predictions and views of a fitted ``tree_``."""

    #: The leaves' linear models are the last layer of ``max_depth`` (the loss-optimal trees, seed 002's 3.12:
    #: the last branching layer's hyperplanes decide the class, or give the value, at the leaves).
    _leaf_models_are_a_layer = False

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
        """The layers of decisions on the longest path, the measure ``max_depth`` bounds: a full tree has
        ``get_depth() == max_depth`` in every estimator.

        For label and value leaves, the edges on the longest root-to-leaf path of ``tree_`` (0 for a single
        leaf), as scikit-learn's trees. In the loss-optimal trees (seed 002, 3.12) the leaves' linear models are
        the last of the ``max_depth`` layers of hyperplanes (a leaf's sign is a last split into two classes), so
        they count: ``OLCTClassifier(max_depth=2)`` and ``OCTClassifier(max_depth=2)`` both give 2. Trees whose
        linear leaves come after ``max_depth`` split levels (``OptimalTreeRegressor(linear_leaves=True)``) count
        the split levels.
        """
        return self._one_tree().max_depth + int(self._leaf_models_are_a_layer)

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
        """Every reachable total score, its probability of ``classes_[1]`` and the class predicted (DataFrame; at
        most :data:`~optitrees.export._text.RISK_TABLE_ROWS` totals, those nearest the change of class)."""
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
