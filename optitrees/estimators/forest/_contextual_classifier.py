"""CCT: the contextual classification tree (seed 002, ch. 5)."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ...algorithms.contextual.bandit import classification_rewards, supervised_targets
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._docs import CLASS_WEIGHT_DOC
from ._contextual_trees import _ContextualTrees

__all__ = ["ContextualTreeClassifier"]


class ContextualTreeClassifier(OptitreesClassifier, _ContextualTrees):
    """Contextual Classification Tree, CCT (seed 002, ch. 5): the policy picks the forest tree that classifies each
    point.

    The training rows are split into a training and a validation part
    (``validation_fraction``; the seed's 64/16 of a 64/16/20 split). CART's
    depth is chosen in {2, 3, 4} on the validation part (or fixed by
    ``max_depth``); a random forest of ``n_estimators`` trees of that depth is
    grown on the training part; a policy network (ReLU layers
    ``hidden_layer_sizes``, dropout, softmax over the trees) is trained by
    Algorithm 4 with reward (5.4) and entropy weight lambda
    (``policy="bandit"``) or by cross-entropy on the seed's supervised labels
    (``policy="supervised"``), with Adam, a cosine learning-rate schedule per
    epoch and early stopping on the validation accuracy of the chosen trees.
    A point is classified by the tree ``argmax pi(. | x)``, which is its
    explanation (:meth:`explain`, :meth:`export_text`).

    Parameters
    ----------
    n_estimators : int, default=50
    max_depth : int, optional
        Depth of CART and of the forest's trees; default: validated in {2, 3, 4}.
    policy : {"bandit", "supervised"}, default="bandit"
    hidden_layer_sizes : tuple of int, default=(128, 128)
    dropout : float, default=0.2
    entropy_weight : float, default=1e-4
        lambda of Algorithm 4.
    learning_rate : float, default=1e-3
        Initial Adam step, annealed by a cosine over ``max_epochs``.
    batch_size : int, default=64
    max_epochs : int, default=1000
        The seed's rewards stop rising after about 2000 epochs.
    patience : int, default=150
        Epochs without a better validation score before stopping (on
        spambase, a2a and phishing, 2 seeds each, 150 / 1000 gave 0.4 to 2.4
        points more test accuracy than 30 / 300).
    validation_fraction : float, default=0.2
    time_limit : float, optional
        Seconds for the whole fit; training stops at the first batch past it
        and keeps the parameters of the best validated epoch.
    random_state : int, optional
{class_weight}

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    trees_ : list of Tree
        The forest's trees (leaf labels index ``classes_``).
    forest_ : RandomForestClassifier
        The forest on the training part (predicts the original labels), fitted on ``X / forest_scale_``.
    cart_ : DecisionTreeClassifier
        CART of the validated depth (the seed's baseline), on the training part
        (fitted on ``X / forest_scale_``, as ``forest_``).
    forest_scale_ : ndarray of shape (n_features,)
        Powers of two (:func:`optitrees.scaling.power_of_two_scale`); ``trees_``
        are in the units of ``X``.
    max_depth_ : int
    policy_ : PolicyNetwork
    history_ : TrainingHistory
        Mean reward (bandit) or loss (supervised) and validation accuracy per epoch.
    validation_score_ : float
    n_epochs_ : int
    feature_importances_ : ndarray of shape (n_features,)
        The forest trees' impurity-based importances averaged with the weights
        ``tree_usage_`` (what explains the training points the policy routes).
    tree_usage_ : ndarray
        How many training rows (their total weight) the policy sends to each tree.
    input_mean_, input_scale_ : ndarray
        The policy sees ``(x - input_mean_) / input_scale_`` (training-part statistics).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cct = ContextualTreeClassifier(n_estimators=10, max_epochs=20, random_state=0).fit(X, y)
    >>> bool(cct.score(X, y) > 0.9), int(cct.choose(X[:1])[0]) in range(10)
    (True, True)
    """

    _is_classifier = True
    _parameter_constraints = {**_ContextualTrees._parameter_constraints, "class_weight": CLASS_WEIGHT_CONSTRAINT}

    def __init__(self, n_estimators=50, *, max_depth=None, policy="bandit", hidden_layer_sizes=(128, 128),
                 dropout=0.2, entropy_weight=1e-4, learning_rate=1e-3, batch_size=64, max_epochs=1000, patience=150,
                 validation_fraction=0.2, time_limit=None, random_state=None, class_weight=None):
        super().__init__(n_estimators, max_depth=max_depth, policy=policy, hidden_layer_sizes=hidden_layer_sizes,
                         dropout=dropout, entropy_weight=entropy_weight, learning_rate=learning_rate,
                         batch_size=batch_size, max_epochs=max_epochs, patience=patience,
                         validation_fraction=validation_fraction, time_limit=time_limit, random_state=random_state)
        self.class_weight = class_weight

    def _decode(self, y_idx):
        return self.classes_[y_idx]

    def _encode_predictions(self, labels):
        return np.searchsorted(self.classes_, labels)

    def _cart(self, depth):
        return DecisionTreeClassifier(max_depth=depth, random_state=self.random_state)

    def _rewards(self, P, y):
        return classification_rewards(P, y)

    def _supervised_targets(self, X, P, y, rng):
        proba = np.column_stack([t.predict_proba(X)[np.arange(len(X)), y] for t in self.trees_])
        return supervised_targets(P, y, rng, true_class_proba=proba)

    @staticmethod
    def _choice_score(predictions, y, sample_weight=None):
        return float(np.average(predictions == y, weights=sample_weight))

    def _class_names(self):
        return list(self.classes_)

    def predict(self, X):
        """The label the chosen tree gives each point."""
        return self._predict_array(self._X(X))

    def _predict_array(self, X):
        return self.classes_[self._chosen_predictions(X).astype(np.int64)]

    def predict_proba(self, X):
        """Class frequencies (training part) of the leaf of the chosen tree."""
        X = self._X(X)
        choice = self._choose(X)
        out = np.zeros((len(X), len(self.classes_)))
        for i in np.unique(choice):
            rows = choice == i
            p = self.trees_[i].predict_proba(X[rows])
            out[np.ix_(rows, np.arange(p.shape[1]))] = p
        return out


ContextualTreeClassifier.__doc__ = ContextualTreeClassifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
