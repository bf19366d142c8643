"""The base every optitrees estimator stands on: what it checks, and the training data it hands its algorithm.

:class:`OptitreesEstimator` is the one place for what all 14 estimators share:

* input checks at ``fit`` (numeric columns, labels, ``sample_weight``,
  ``class_weight``) and at ``predict`` (fitted, same features, numeric
  columns), both through scikit-learn's ``validate_data``;
* label encoding (``{-1, +1}`` for binary-only models, ``0..K-1`` otherwise);
* feature names and the mask of the features a model may use
  (``forbidden_features``);
* the budget of the whole fit (``time_limit``);
* the scikit-learn tags.

Weights
-------
``fit(X, y, sample_weight=None)`` takes a weight per row; ``class_weight``
(``"balanced"`` or ``{label: weight}``) multiplies the weight of every row of a
class. ``"balanced"`` gives each class the same total weight: ``W / (K W_k)``
with ``W`` the total and ``W_k`` the class's total of ``sample_weight`` (so it
is the class weight of scikit-learn's ``compute_class_weight`` when every row
weighs 1). Rows identical in features and label are then merged into one
whose weight is the sum of theirs (:func:`merge_duplicates`), in one
canonical order: a weight is a multiplicity, so fitting with an integer
``sample_weight`` is fitting on the rows repeated (in any order), and every
algorithm sees the same, shorter data either way. Rows of weight 0 are
dropped. Data without duplicate rows whose weights are all 1 is left as it is
(the unweighted fit, in the given order). Every loss, count and split
criterion is weighted (each family's docstring says where).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..budget import Budget
from ._consistency import check_consistent
from ._input import BINARY_ONLY_HINT, check_finite, check_numeric_frame, encode_labels, feature_names, resolve_features
from ._report import FitOutcome, FitProgress, FitReport

__all__ = ["OptitreesEstimator", "OptitreesClassifier", "stratification", "holdout_split", "TrainingData",
           "merge_duplicates", "class_weights", "CLASS_WEIGHT_CONSTRAINT", "SensitiveFeaturesFit"]

#: The ``class_weight`` parameter's validation (``_parameter_constraints``).
CLASS_WEIGHT_CONSTRAINT = [dict, StrOptions({"balanced"}), None]

@dataclass(frozen=True)
class TrainingData:
    """The rows a model is fitted on, after the checks.

    Attributes
    ----------
    X : ndarray of shape (n, p)
        Distinct rows (identical rows of the same label merged), in order of first occurrence.
    y : ndarray of shape (n,)
        Encoded labels (``{-1, +1}``, ``0..K-1``) or regression targets.
    weight : ndarray of shape (n,) or None
        Each row's weight; ``None`` when every input row weighs 1 and no two were merged (the unweighted fit).
    n_input_rows : int
        Rows ``fit`` was given.
    keys : ndarray of shape (n, k) or None
        Codes the rows were merged within besides their features and label (a fairness constraint's group: rows
        of two groups are never merged).
    sample_weight : ndarray of shape (n,) or None
        With ``keys``: each row's total ``sample_weight`` without the class weights (the weights a fairness rate
        counts).
    """

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    n_input_rows: int
    keys: np.ndarray | None = None
    sample_weight: np.ndarray | None = None

    @property
    def weights(self) -> np.ndarray:
        """Each row's weight (ones for the unweighted fit)."""
        return np.ones(len(self.y)) if self.weight is None else self.weight

    @property
    def weighted(self) -> bool:
        return self.weight is not None


def blas_threads(limit):
    """A context in which numpy's BLAS runs at most ``limit`` threads (``None``: as it is).

    An estimator's ``threads`` bounds its whole fit, not only the solver: numpy's
    matrix products inside it (the risk score's loss and gradient at every LP
    point, 6,499 x 113 on rs_mushroom) otherwise start a BLAS thread per core,
    which on a machine with other work spin-waits for a busy core (0.09 ms a
    gradient alone, 1.1 ms beside another process).
    """
    if limit is None:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(limit), user_api="blas")


def merge_duplicates(X, y, weight):
    """``(X, y, weight, merged)``: rows identical in features and label merged (weights summed) and sorted into one
    canonical order, so the result depends only on the multiset of weighted rows.

    Rows of weight 0 are dropped. ``NaN`` equals ``NaN`` here (the same missing
    value), ``-0.0`` equals ``0.0``. When no two rows coincide and every weight
    is 1, the rows are returned as given (``merged`` is ``False``).

    Rows are compared through one random projection of ``(x, y)``: equal rows
    project equally, and rows with equal projections are then checked value
    by value (distinct rows that project equally, which floating point makes
    all but impossible, send the data to an exact grouping by pandas' hash
    tables). The canonical order is ascending projection.

    >>> X = np.array([[2.0, 3.0], [0.0, 1.0], [2.0, 3.0]])
    >>> Xm, ym, wm, merged = merge_duplicates(X, np.array([1, 0, 1]), np.ones(3))
    >>> Xm.tolist(), ym.tolist(), wm.tolist(), merged
    ([[0.0, 1.0], [2.0, 3.0]], [0, 1], [1.0, 2.0], True)
    """
    keep = weight > 0
    if not keep.all():
        X, y, weight = X[keep], y[keep], weight[keep]
    labels = np.asarray(y, dtype=float)
    direction = np.random.default_rng(0).uniform(1.0, 2.0, X.shape[1] + 1)
    missing = np.isnan(X).any()
    # column by column, so every row's sum is made in the same order (a BLAS product may accumulate rows at
    # different positions differently, and equal rows must project bit for bit equally)
    projection = labels * direction[-1]
    for j in range(X.shape[1]):
        column = np.nan_to_num(X[:, j], nan=np.pi) if missing else X[:, j]
        projection += column * direction[j]
    order = np.argsort(projection, kind="stable")
    ordered = projection[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    if starts.all() and np.all(weight == 1.0):
        return X, y, weight, False
    group = np.cumsum(starts) - 1
    first = order[starts]
    repeat, representative = order[~starts], first[group[~starts]]
    a, b = X[repeat], X[representative]
    if not (((a == b) | (np.isnan(a) & np.isnan(b))).all() and np.all(labels[repeat] == labels[representative])):
        return _merge_exactly(X, y, weight, labels)
    summed = np.bincount(group, weights=weight[order], minlength=len(first))
    return np.take(X, first, axis=0), y[first], summed, True          # take: 1.6x faster than X[first] here


def _merge_exactly(X, y, weight, labels):
    """:func:`merge_duplicates` by pandas' grouping of whole rows (lexicographic order, missing last)."""
    rows = np.column_stack([X, labels]) + 0.0                               # -0.0 + 0.0 is 0.0
    group = pd.DataFrame(rows).groupby(list(range(rows.shape[1])), sort=True, dropna=False).ngroup().to_numpy()
    n_groups = int(group.max()) + 1
    if n_groups == len(group) and np.all(weight == 1.0):
        return X, y, weight, False
    order = np.argsort(group, kind="stable")
    first = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    return X[first], y[first], np.bincount(group, weights=weight, minlength=n_groups), True


def stratification(y_idx, test_fraction: float):
    """``y_idx`` when ``train_test_split(test_size=test_fraction, stratify=y_idx)`` can stratify (every class has
    two rows and both parts room for every class), else ``None``."""
    counts = np.bincount(y_idx)
    n, K = len(y_idx), np.count_nonzero(counts)
    n_test = int(np.ceil(test_fraction * n))
    return y_idx if counts[counts > 0].min() >= 2 and min(n_test, n - n_test) >= K else None


def holdout_split(n_rows: int, y_idx, fraction: float, random_state):
    """``(training rows, validation rows)`` of a learner that validates on rows it holds out (UCT-DT, the contextual
    trees): stratified by ``y_idx`` (classes; ``None`` for a regression target) where :func:`stratification` can.

    Where a class has fewer than two distinct rows (duplicates are merged into one weighted row first, so all-
    constant features leave one row per class), holding rows out would take a whole class from the training
    part, and the model would be learned without it (it then predicted the minority class everywhere): every
    row is then both a training and a validation row.
    """
    from sklearn.model_selection import train_test_split

    rows = np.arange(n_rows)
    stratify = None if y_idx is None else stratification(y_idx, fraction)
    if (y_idx is not None and stratify is None) or n_rows < 2:
        return rows, rows
    train, val = train_test_split(rows, test_size=fraction, stratify=stratify, random_state=random_state)
    return (rows, rows) if len(train) == 0 or len(val) == 0 else (train, val)


def class_weights(class_weight, classes, y_idx, sample_weight) -> np.ndarray:
    """The weight of each class (``classes`` order) for ``class_weight`` in ``{None, "balanced", dict}``."""
    K = len(classes)
    if class_weight is None:
        return np.ones(K)
    if isinstance(class_weight, str):                      # "balanced" (the parameter validation allows no other)
        totals = np.bincount(y_idx, weights=sample_weight, minlength=K)
        return np.where(totals > 0, totals.sum() / (K * np.where(totals > 0, totals, 1.0)), 0.0)
    out = np.ones(K)
    labels = list(classes)
    for label, value in class_weight.items():
        if label not in labels:
            raise ValueError(f"class_weight names the label {label!r}, which is not in y (labels: {labels})")
        if not isinstance(value, Real) or not np.isfinite(value) or value < 0:
            raise ValueError(f"class_weight[{label!r}] must be a finite number >= 0, got {value!r}")
        out[labels.index(label)] = float(value)
    return out


class OptitreesEstimator(BaseEstimator):
    """What every optitrees estimator shares (see the module docstring).

    A subclass sets the class attributes below and calls :meth:`_fit_data`
    first thing in ``fit`` (after ``_validate_params``); predictions read
    ``_X(X)``.
    """

    #: A classifier (labels encoded, ``class_weight``) or a regressor (numeric ``y``).
    _is_classifier = True
    #: Binary-only models encode labels as -1 / +1 and reject more classes.
    _binary = False
    #: What the error for multi-class labels suggests instead (binary-only models).
    _multiclass_hint = BINARY_ONLY_HINT
    #: Missing values (``NaN``) are part of the model (C4.5).
    _allow_nan = False
    #: The attributes that hold the fitted model, one set of them (the consistency check holds a fit or a file to
    #: one of these sets, :mod:`._consistency`).
    _model_shapes = (frozenset({"tree_"}),)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Fit the model (the class docstring says how) within ``time_limit``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features.
        y : array-like of shape (n_samples,)
            Class labels (any type), or the regression target.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weight of each row in every loss and count (times
            ``class_weight``); an integer weight is the row repeated.

        Returns
        -------
        self
            With ``fit_report_``: what the fit did. A fit of more than 10 s
            prints a progress line every 10 s on stderr.
        """
        return self._fit_in_budget(X, y, sample_weight)

    def _fit_in_budget(self, X, y, sample_weight=None, **metadata):
        """:meth:`fit` with the fit's ``metadata`` (``sensitive_features``) passed on to ``_fit`` when given."""
        budget = self._budget()
        with FitProgress(type(self).__name__, budget), blas_threads(getattr(self, "threads", None)):
            fitted = self._fit(X, y, sample_weight, budget, **{k: v for k, v in metadata.items() if v is not None})
        check_consistent(self)          # one model: what predicts is what prints (the check a loaded file passes)
        return fitted

    def _fit(self, X, y, sample_weight, budget):
        """The family's fit within ``budget``; ends with ``fit_report_`` written."""
        raise NotImplementedError(f"{type(self).__name__} must define _fit")

    def _fit_data(self, X, y, sample_weight=None, binary=None, class_weight=True, keys=None) -> TrainingData:
        """Check ``X``, ``y`` and the weights, set ``n_features_in_``, ``feature_names_in_`` and ``classes_``.

        Labels are encoded, ``class_weight`` applied (unless ``class_weight=False``: a one-vs-rest fit that
        balances each of its binary trees itself) and duplicate rows merged (see the module docstring);
        ``binary`` overrides the class's ``_binary`` (a one-vs-rest fit encodes ``0..K-1``); ``keys`` (integer
        codes per row, shape ``(n, k)``) are merged within as well (:attr:`TrainingData.keys`).
        """
        binary = self._binary if binary is None else binary
        check_numeric_frame(X)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=not self._is_classifier,
                             ensure_all_finite=False)
        check_finite(X, self._feature_names(), self._allow_nan, type(self).__name__)
        given = sample_weight is not None
        weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True) if given \
            else np.ones(len(X))
        if given and not np.all(np.isfinite(weight)):
            raise ValueError("sample_weight contains NaN or infinite values")
        if self._is_classifier:
            self.classes_, y_enc = encode_labels(y, binary, self._multiclass_hint, type(self).__name__)
            y_idx = (y_enc > 0).astype(np.int64) if binary else y_enc
            per_class = class_weights(getattr(self, "class_weight", None) if class_weight else None, self.classes_,
                                      y_idx, weight)
            weight = weight * per_class[y_idx]
            totals = np.bincount(y_idx, weights=weight, minlength=len(self.classes_))
            if np.count_nonzero(totals) < 2:
                raise ValueError("the weights leave fewer than two classes with positive weight; "
                                 f"class totals {dict(zip(self.classes_.tolist(), totals.tolist()))}")
        else:
            y_enc = np.asarray(y, dtype=np.float64)
        if keys is None:
            Xm, ym, wm, merged = merge_duplicates(X, y_enc, weight)
        else:
            keys = np.asarray(keys, np.int64).reshape(len(X), -1)
            merged_columns, ym, wm, merged = merge_duplicates(np.column_stack([X, keys]), y_enc, weight)
            Xm, keys = merged_columns[:, :X.shape[1]], merged_columns[:, X.shape[1]:].astype(np.int64)
        if len(ym) < 2:
            raise ValueError("fewer than 2 distinct rows of positive weight are left to fit")
        if keys is None:
            return TrainingData(Xm, ym, wm if merged else None, len(X))
        y_index = (ym > 0).astype(np.int64) if self._is_classifier and binary else np.asarray(ym, np.int64)
        sample = wm / per_class[y_index] if self._is_classifier else wm
        return TrainingData(Xm, ym, wm if merged else None, len(X), keys, sample)

    def _allowed_features(self) -> np.ndarray:
        """``True`` for each feature a split or rule may use (all but ``forbidden_features``)."""
        allowed = np.ones(self.n_features_in_, bool)
        allowed[list(resolve_features(getattr(self, "forbidden_features", None), self._feature_names()))] = False
        if not allowed.any():
            raise ValueError("every feature is forbidden")
        return allowed

    def _budget(self) -> Budget:
        """The budget of this fit, started now (``time_limit`` seconds, or unlimited)."""
        return Budget(getattr(self, "time_limit", None))

    def _write_report(self, budget: Budget, training: TrainingData, method: str, *, objective=None,
                      truncated: bool = False, starts=None, notes=(), monotonicity=None) -> None:
        """``fit_report_`` of a heuristic fit (the MIP template writes its own), as the last step of ``fit``."""
        self.fit_report_ = FitReport(
            estimator=type(self).__name__, outcome=FitOutcome.TRUNCATED if truncated else FitOutcome.HEURISTIC,
            method=method, returned="model", objective=objective, seconds=budget.elapsed,
            time_limit=budget.seconds, rows=training.n_input_rows, distinct_rows=len(training.y),
            weighted=training.weighted, starts=dict(starts or {}),
            objectives={} if objective is None else {"returned": objective}, stages=dict(budget.stages),
            notes=tuple(notes) + (("the time limit ended a stage early; its best result so far is used",)
                                  if truncated else ()), monotonicity=monotonicity)

    # -------------------------------------------------------------- predict
    def _X(self, X):
        """``X`` for prediction: the estimator is fitted, and ``X`` has its numeric features."""
        check_is_fitted(self)
        check_numeric_frame(X)
        X = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=False)
        check_finite(X, self._feature_names(), self._allow_nan, type(self).__name__)
        return X

    def _feature_names(self) -> list[str]:
        """``feature_names_in_`` when ``X`` had string column names, else ``x0, x1, ...``."""
        return feature_names(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._allow_nan
        return tags


class OptitreesClassifier(ClassifierMixin, OptitreesEstimator):
    """The base of every optitrees classifier (binary-only ones say so in their tags)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary
        return tags


class SensitiveFeaturesFit:
    """Mixin of the estimators that take ``fairness``: their ``fit`` also takes the group of each row. It only
    forwards to the base's fit (:meth:`OptitreesEstimator._fit_in_budget`): the input checks stay in the base."""

    def fit(self, X, y, sample_weight=None, sensitive_features=None):
        """Fit the model (the class docstring says how) within ``time_limit``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        sensitive_features : array-like of shape (n_samples,) or (n_samples, k), optional
            The group of each row (several columns: their combinations), as fairlearn takes them; needed with
            ``fairness`` and unused without it. scikit-learn's metadata routing carries it through pipelines and
            searches (``set_fit_request(sensitive_features=True)``).

        Returns
        -------
        self
        """
        return self._fit_in_budget(X, y, sample_weight, sensitive_features=sensitive_features)
