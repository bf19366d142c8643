"""Feature scaling the models are formulated on, and the way back to the user's units.

Loss-optimal trees work on standardized features (seed 002's preprocessing; columns that are at least half
zeros only divided by their deviation, so that one-hot and sparse data keep their zeros), OCT / OCT-H and OGRS on
features scaled to ``[0, 1]`` (Bertsimas & Dunn; seed 002, 4.3), ORS on the raw binary features.
:class:`ScaledData` holds the scaled training data with the original and the affine map between them, so fitted
models are reported in original units.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .enums import TextEnum

__all__ = ["Scaling", "standardize", "scale_unit", "scale_small_spans", "power_of_two_scale", "weighted_sum",
           "ScaledData"]


class Scaling(TextEnum):
    """How :meth:`ScaledData.create` scales the features (``None``: not at all)."""

    #: ``(x - mean) / std`` (:func:`standardize`; seed 002's preprocessing): the loss-optimal regressor.
    STANDARD = "standard"
    #: :data:`STANDARD`, except that a column at least half zeros (weighted) is only divided by its deviation
    #: (:func:`standardize` with ``keep_sparse=True``): the loss-optimal trees. Their hyperplanes have a free
    #: intercept, so centring moves only their offsets (``w (x - mean) / std + b = w x / std + b - w mean / std``),
    #: and without it a zero stays zero: one-hot and sparse columns keep the model's margin rows sparse (a2a's 123
    #: binary columns, 11% nonzero, are 98% nonzero once centred). A column of zero share ``z >= 1/2`` has
    #: ``|mean| / std <= sqrt((1 - z) / z) <= 1``, so its largest scaled magnitude (the big-M values and the
    #: intercept bound grow with it) is at most 1 above the centred one.
    STANDARD_SPARSE = "standard_sparse"
    #: ``(x - min) / (max - min)`` in ``[0, 1]`` (:func:`scale_unit`): OCT / OCT-H, OGRS, oblique TAO.
    UNIT = "unit"
    #: Only features whose span is under 1, each by a power of two (:func:`scale_small_spans`): axis-aligned
    #: trees grown by scikit-learn, which would take a feature whose values differ by less than 1e-7 as constant.
    SMALL_SPANS = "small_spans"


def weighted_sum(values, weight=None) -> float:
    """``sum_i weight_i values_i``; the plain sum without weights (every row weighs 1).

    >>> weighted_sum([1.0, 2.0]), weighted_sum([1.0, 2.0], [3.0, 0.5])
    (3.0, 4.0)
    """
    values = np.asarray(values, dtype=float)
    return float(values.sum() if weight is None else np.asarray(weight, dtype=float) @ values)


def standardize(X, sample_weight=None, keep_sparse: bool = False):
    """``(X - mean) / scale`` with the scale of constant columns set to 1; with ``keep_sparse``, a column whose
    (weighted) share of zeros is at least 1/2 is ``X / scale`` (its returned mean is 0; the scale is still the
    deviation about the mean).

    With ``sample_weight`` the mean and the deviation are weighted (a row of
    weight 2 counts as the row twice). The moments are taken of each column
    divided by the power of two nearest its largest magnitude
    (:func:`power_of_two_scale`; exact, so the result is the same to the bit),
    so a column of values near 1e300 (whose squares overflow) or 1e-300 (whose
    squares underflow) standardizes as one near 1 does.

    Returns
    -------
    Xs, mean, scale : ndarray
    """
    X = np.asarray(X, dtype=float)
    unit = power_of_two_scale(X)
    Xu = X / unit
    if sample_weight is None:
        mean, scale = Xu.mean(axis=0), Xu.std(axis=0)
    else:
        mean = np.average(Xu, axis=0, weights=sample_weight)
        scale = np.sqrt(np.average((Xu - mean) ** 2, axis=0, weights=sample_weight))
    # constant columns (a deviation at rounding level of the values); relative, so features in any units scale
    constant = scale <= 1e-12 * np.abs(Xu).max(axis=0, initial=0.0)
    if keep_sparse:
        zero = (Xu == 0)
        share = zero.mean(axis=0) if sample_weight is None else (sample_weight @ zero) / np.sum(sample_weight)
        mean = np.where(share >= 0.5, 0.0, mean)
    out = np.subtract(Xu, mean, out=Xu)
    out /= np.where(constant, 1.0 / unit, scale)
    return out, mean * unit, np.where(constant, 1.0, scale * unit)


def power_of_two_scale(X) -> np.ndarray:
    """Per feature, the power of two nearest its largest magnitude (1 for an all-zero feature).

    ``X / scale`` puts every feature near ``[-1, 1]`` exactly (dividing by a power
    of two changes no mantissa), so a scikit-learn tree grown on it splits as on
    ``X`` (the same thresholds times ``scale``) while its rule that a node whose
    feature range is under 1e-7 is constant no longer erases features measured
    in tiny units.

    >>> power_of_two_scale(np.array([[3e-12, 0.0], [-1e-12, 0.0]])).tolist()
    [3.637978807091713e-12, 1.0]
    """
    top = np.max(np.abs(np.asarray(X, float)), axis=0)
    return np.where(top > 0, np.exp2(np.round(np.log2(np.where(top > 0, top, 1.0)))), 1.0)


def scale_unit(X):
    """``(X - low) / span`` in ``[0, 1]`` with ``span = max - min`` (1 for a constant feature).

    Returns
    -------
    X01, low, span : ndarray
    """
    X = np.asarray(X, dtype=float)
    low = X.min(axis=0)
    span = X.max(axis=0) - low
    span = np.where(span > 0, span, 1.0)
    out = np.subtract(X, low)                       # one array of X's size, then in place (no temporaries)
    out /= span
    return np.clip(out, 0.0, 1.0, out=out), low, span


def scale_small_spans(X):
    """``X / scale`` where ``scale`` is, for a feature whose span ``max - min`` lies in ``(0, 1)``, the largest
    power of two not above the span (so its scaled span is in ``[1, 2)``), else 1.

    Dividing by a power of two changes no mantissa, so an axis-aligned split on the scaled data routes every
    row as the same split in original units; ``X`` itself is returned (no copy) when every scale is 1.

    Returns
    -------
    Xs, shift, scale : ndarray
        ``shift`` is zero.

    >>> Xs, shift, scale = scale_small_spans(np.array([[0.0, 5.0], [3e-9, 7.0]]))
    >>> scale.tolist(), (Xs[:, 0] * scale[0]).tolist()
    ([1.862645149230957e-09, 1.0], [0.0, 3e-09])
    """
    X = np.asarray(X, dtype=float)
    # fmax / fmin: no NaN to propagate (3x faster than max / min at 30,000 x 104)
    span = np.fmax.reduce(X, axis=0) - np.fmin.reduce(X, axis=0) if len(X) else np.zeros(X.shape[1])
    small = (span > 0) & (span < 1)
    scale = np.ones(X.shape[1])
    scale[small] = np.exp2(np.floor(np.log2(span[small])))
    return (X / scale if small.any() else X), np.zeros(X.shape[1]), scale


@dataclass(frozen=True)
class ScaledData:
    """Training data on the scale a model is formulated on: ``X = (X_original - shift) / scale``.

    Attributes
    ----------
    X : ndarray of shape (n, p)
        Scaled features.
    y : ndarray of shape (n,)
        Encoded labels (``{-1, +1}`` for binary models, ``0..K-1`` otherwise).
    X_original : ndarray of shape (n, p)
    shift, scale : ndarray of shape (p,)
    feature_names : tuple of str or None
        Names of the features (``None``: index sets of formulations use ``0 .. p-1``).
    weight : ndarray of shape (n,)
        Each row's weight in every loss and count (``sample_weight`` times the
        class weight times the row's multiplicity; ones when unweighted).
    """

    X: np.ndarray
    y: np.ndarray
    X_original: np.ndarray
    shift: np.ndarray
    scale: np.ndarray
    feature_names: tuple | None
    weight: np.ndarray = None

    def __post_init__(self):
        if self.weight is None:
            object.__setattr__(self, "weight", np.ones(len(self.y)))

    @cached_property
    def weighted(self) -> bool:
        """Some row weighs other than 1."""
        return bool(np.any(self.weight != 1.0))

    @property
    def fit_weight(self):
        """``weight`` for a fit that takes ``sample_weight``: ``None`` when every row weighs 1."""
        return self.weight if self.weighted else None

    def weighted_sum(self, values, rows=None) -> float:
        """``sum_i weight_i values_i`` over ``rows`` (all rows by default); the plain sum when unweighted."""
        if not self.weighted:
            return weighted_sum(values)
        return weighted_sum(values, self.weight if rows is None else self.weight[rows])

    def on_rows(self, rows, weight=None) -> "ScaledData":
        """The data of ``rows`` with the same scaling (``weight``: their new weights, default their own)."""
        rows = np.asarray(rows)
        return replace(self, X=self.X[rows], y=self.y[rows], X_original=self.X_original[rows],
                       weight=self.weight[rows] if weight is None else np.asarray(weight, dtype=float))

    @property
    def labels(self) -> np.ndarray:
        """Index-set labels of the features: safe names, or ``0 .. p-1`` without names."""
        from .mip import safe_labels

        return np.arange(self.n_features) if self.feature_names is None else safe_labels(self.feature_names)

    @classmethod
    def create(cls, X, y, how, feature_names=None, weight=None):
        """Scale ``X`` by ``how``, a :class:`Scaling` or ``None`` (``weight``: each row's weight, default 1)."""
        X = np.asarray(X, dtype=float)
        p = X.shape[1]
        weight = None if weight is None else np.asarray(weight, dtype=float)
        if how is not None and how not in set(Scaling):
            raise ValueError(f"unknown scaling {how!r}; one of {[m.value for m in Scaling]} or None")
        how = None if how is None else Scaling(how)
        if how is Scaling.STANDARD:
            Xs, shift, scale = standardize(X, weight)
        elif how is Scaling.STANDARD_SPARSE:
            Xs, shift, scale = standardize(X, weight, keep_sparse=True)
        elif how is Scaling.UNIT:
            Xs, shift, scale = scale_unit(X)
        elif how is Scaling.SMALL_SPANS:
            Xs, shift, scale = scale_small_spans(X)
        else:
            Xs, shift, scale = X, np.zeros(p), np.ones(p)
        names = None if feature_names is None else tuple(str(n) for n in feature_names)
        return cls(Xs, np.asarray(y), X, shift, scale, names, weight)

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def to_original(self, weights, offsets):
        """Hyperplanes ``w x_scaled + c`` as ``w' x_original + c'`` (rows of ``weights``).

        ``w (x - shift) / scale + c = (w / scale) x + (c - (w / scale) shift)``.
        """
        w = np.asarray(weights, float) / self.scale
        return w, np.asarray(offsets, float) - w @ self.shift

    def to_scaled(self, weights, offsets):
        """The inverse of :meth:`to_original`."""
        w = np.asarray(weights, float)
        return w * self.scale, np.asarray(offsets, float) + w @ self.shift
