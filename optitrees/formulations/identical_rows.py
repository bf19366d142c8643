"""Rows identical in every feature: every tree routes them to the same node at every layer, so where they carry
different labels no model of any family fits them all. What that costs, per loss, is a lower bound on any tree's
objective that needs no solve (:mod:`.root_bounds` for the loss-optimal trees' layers below the root,
:func:`misclassified_weight` for OCT and OCT-H).

For two labels with weights ``a`` (``y = +1``) and ``b`` (``y = -1``) on rows sharing one node value ``s``, the
node's loss ``a loss(s) + b loss(-s)`` is at least (the least over every ``s``):

* logistic: ``a log((a + b) / a) + b log((a + b) / b)``, at ``s = log(a / b)``;
* hinge: ``2 min(a, b)``, at ``s = +-1``;
* misclassification (a point is correct only at margin ``>= eps / 2 > 0``): ``min(a, b)``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["label_weights", "misclassified_weight", "least_node_loss"]


def label_weights(X, y, weight=None) -> np.ndarray:
    """``(groups, labels)`` array: the weight of each label (in ``np.unique(y)`` order) among each group of rows
    identical in ``X`` (a group per distinct row).

    >>> label_weights([[0.0], [0.0], [1.0]], [1, -1, 1], [2.0, 3.0, 1.0]).tolist()
    [[3.0, 2.0], [0.0, 1.0]]
    """
    X = np.asarray(X, dtype=float) + 0.0                  # -0.0 and 0.0 are one value
    _, group = np.unique(X, axis=0, return_inverse=True)
    _, label = np.unique(np.asarray(y), return_inverse=True)
    weight = np.ones(len(label)) if weight is None else np.asarray(weight, dtype=float)
    out = np.zeros((int(group.max()) + 1 if len(label) else 0, int(label.max()) + 1 if len(label) else 0))
    np.add.at(out, (group.ravel(), label.ravel()), weight)
    return out


def misclassified_weight(X, y, weight=None) -> float:
    """The weight every classifier of ``X`` misclassifies: in each group of identical rows, all but its heaviest
    label (``0`` when no two rows with different labels coincide).

    >>> misclassified_weight([[0.0], [0.0], [0.0], [1.0]], [0, 1, 2, 1], [1.0, 2.0, 0.5, 4.0])
    1.5
    """
    counts = label_weights(X, y, weight)
    return float((counts.sum(axis=1) - counts.max(axis=1, initial=0.0)).sum()) if counts.size else 0.0


def least_node_loss(counts: np.ndarray, loss: str) -> float:
    """The least total ``loss`` of two-label groups ``counts`` (``(groups, 2)``, any label order) over every node
    value of each group (module docstring); ``0`` for a group of one label.

    >>> round(least_node_loss(np.array([[1.0, 1.0], [2.0, 0.0]]), "logistic"), 6)    # 2 log 2
    1.386294
    >>> least_node_loss(np.array([[1.0, 3.0]]), "hinge"), least_node_loss(np.array([[1.0, 3.0]]), "misclassification")
    (2.0, 1.0)
    """
    if counts.size == 0 or counts.shape[1] < 2:
        return 0.0
    a, b = counts[:, 0], counts[:, -1]
    both = (a > 0) & (b > 0)
    a, b = a[both], b[both]
    if loss == "logistic":
        return float((a * np.log((a + b) / a) + b * np.log((a + b) / b)).sum())
    if loss == "hinge":
        return float(2.0 * np.minimum(a, b).sum())
    if loss == "misclassification":
        return float(np.minimum(a, b).sum())
    raise ValueError(f"unknown loss {loss!r}")
