"""Disparities of predictions, and of a fitted model on new rows: the figures ``fit_report_.fairness`` gives on
the training rows, equal to fairlearn's metric functions on the same rows (``demographic_parity_difference``,
``true_positive_rate_difference``, ``false_positive_rate_difference``, ``equalized_odds_difference``)."""

from __future__ import annotations

import numpy as np

from .cells import ParityCells, group_codes, stratum_codes
from .notions import REPORTED, ConditionalStatisticalParity, ParityNotion

__all__ = ["disparity", "disparities", "positive_labels"]


def positive_labels(values, pos_label) -> np.ndarray:
    """``values == pos_label`` as 0/1."""
    return (np.asarray(values) == pos_label).astype(np.int64)


def disparity(notion: ParityNotion, y_true, y_pred, sensitive_features, pos_label=1, sample_weight=None,
              legitimate_values=None) -> float:
    """The largest difference between two groups' rates of ``notion`` (see :mod:`.notions`): 0 for predictions
    that treat every group alike, up to 1.

    Parameters
    ----------
    notion : ParityNotion
        Its ``difference_bound`` is not used here.
    y_true, y_pred : array-like of shape (n,)
    sensitive_features : array-like of shape (n,) or (n, m)
        The group of each row (several columns: their combinations).
    pos_label : default=1
        The positive class.
    sample_weight : array-like of shape (n,), optional
    legitimate_values : array-like of shape (n,), optional
        :class:`~.notions.ConditionalStatisticalParity`: the legitimate feature's value of each row.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-d of one length, got {y_true.shape} and {y_pred.shape}")
    groups, labels = group_codes(sensitive_features, len(y_true))
    strata = None if legitimate_values is None else stratum_codes(legitimate_values)
    cells = ParityCells.create(notion, positive_labels(y_true, pos_label), groups, labels, sample_weight, strata)
    return cells.disparity(positive_labels(y_pred, pos_label) == 1)


def disparities(estimator, X, y, sensitive_features, sample_weight=None) -> dict:
    """``{notion name: disparity}`` of a fitted binary classifier's predictions on ``(X, y)``: demographic parity,
    true- and false-positive rate parity and equalized odds, and the notion the estimator was held to
    (``estimator.fairness``) when it is another one. The positive class is ``estimator.classes_[1]``."""
    classes = getattr(estimator, "classes_", None)
    if classes is None or len(classes) != 2:
        raise ValueError("disparities are measured for a fitted binary classifier")
    predicted = estimator.predict(X)
    notions = [kind() for kind in REPORTED]
    own = getattr(estimator, "fairness", None)
    if own is not None and not isinstance(own, REPORTED):
        notions.append(own)
    out = {}
    for notion in notions:
        legitimate = None
        if isinstance(notion, ConditionalStatisticalParity):
            legitimate = _column(estimator, X, notion.legitimate)
        out[notion.name] = disparity(notion, y, predicted, sensitive_features, classes[1], sample_weight, legitimate)
    return out


def _column(estimator, X, feature):
    """The column ``feature`` (a name of ``estimator.feature_names_in_`` or an index) of ``X``."""
    names = [str(v) for v in getattr(estimator, "feature_names_in_", range(estimator.n_features_in_))]
    if isinstance(feature, str) and feature in names:
        j = names.index(feature)
    elif not isinstance(feature, str) and 0 <= int(feature) < len(names):
        j = int(feature)
    else:
        raise ValueError(f"the legitimate feature {feature!r} is not a column of X ({len(names)} columns)")
    return np.asarray(X.iloc[:, j] if hasattr(X, "iloc") else np.asarray(X)[:, j], dtype=float)
