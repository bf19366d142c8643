"""scikit-learn's fitted decision trees as :class:`Tree` objects."""

from __future__ import annotations

import numpy as np

from ._tree import LeafModel, Tree

__all__ = ["from_sklearn"]


def from_sklearn(estimator, feature_scale=None) -> Tree:
    """The :class:`Tree` of a fitted ``DecisionTreeClassifier`` or ``DecisionTreeRegressor`` (splits
    ``x_j <= threshold`` go left).

    Classifiers: leaf labels are indices into ``estimator.classes_``; ``value``
    holds the (weighted) training class counts of every node. Regressors
    (one output): value leaves predicting the node mean ``intercept``, with
    the (weighted) training samples in ``value``. ``feature_scale``: the
    estimator was fitted on ``X / feature_scale`` (per feature); the tree is
    returned in the units of ``X`` (each threshold times its feature's scale).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> tree = from_sklearn(cart)
    >>> bool((tree.predict(X) == cart.predict(X)).all()), tree.n_leaves
    (True, 3)
    """
    t = estimator.tree_
    n = t.node_count
    weights = np.zeros((n, t.n_features))
    inner = np.flatnonzero(t.children_left >= 0)
    weights[inner, t.feature[inner]] = 1.0
    threshold = np.where(t.children_left >= 0, t.threshold, 0.0)
    if feature_scale is not None:
        threshold[inner] *= np.asarray(feature_scale, float)[t.feature[inner]]
    if not hasattr(estimator, "classes_"):
        if t.n_outputs != 1:
            raise ValueError("only single-output regression trees convert to a Tree")
        return Tree(t.children_left, t.children_right, weights, threshold, intercept=t.value[:, 0, 0],
                    value=t.weighted_n_node_samples[:, None], leaf_model=LeafModel.VALUE)
    counts = t.value[:, 0, :] * t.weighted_n_node_samples[:, None] if np.all(t.value.sum(axis=2) <= 1 + 1e-9) \
        else t.value[:, 0, :]
    return Tree(t.children_left, t.children_right, weights, threshold,
                value=counts, label=np.argmax(t.value[:, 0, :], axis=1))
