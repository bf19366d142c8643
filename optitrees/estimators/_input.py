"""The input checks behind the estimators' base (:mod:`._base`): numeric columns, labels, feature names, feature
references by name or index."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["check_numeric_frame", "check_finite", "printed_names", "encode_labels", "feature_names", "resolve_features"]

BINARY_ONLY_HINT = ("use OCTClassifier or OCTHClassifier (multi-class optimal trees), or wrap this estimator in "
                    "sklearn.multiclass.OneVsRestClassifier")


def check_numeric_frame(X) -> None:
    """A DataFrame with string, object or categorical columns gets an error naming them and saying what to do.

    Any dataframe scikit-learn accepts (pandas, polars, pyarrow ... through narwhals) is read by its schema.
    Boolean and numeric (including nullable numeric) columns are accepted.
    scikit-learn would otherwise fail on the first string ("could not convert
    string to float") or silently use the codes of a numeric categorical column.
    """
    import narwhals.stable.v2 as nw
    from narwhals.dependencies import is_into_dataframe

    if not is_into_dataframe(X):
        return
    schema = nw.from_native(X, eager_only=True).schema
    bad = [(c, str(t)) for c, t in schema.items() if not (t.is_numeric() or t == nw.Boolean)]
    if bad:
        names = ", ".join(repr(c) for c, _ in bad)
        kinds = ", ".join(sorted({t for _, t in bad}))
        raise ValueError(
            f"columns {names} are not numeric ({kinds}). Encode them before fitting, for example with a "
            "pipeline: make_pipeline(make_column_transformer((OneHotEncoder(), [" + names + "]), "
            "remainder='passthrough'), estimator) from sklearn.pipeline, sklearn.compose and "
            "sklearn.preprocessing.OneHotEncoder")


def check_finite(X: np.ndarray, names, allow_nan: bool, estimator: str) -> None:
    """An error naming the columns of ``X`` (a float array, columns ``names``) that hold infinite values, or
    missing values (``NaN``) where the estimator does not take them."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(X.sum()):             # the common case, without a mask of X's size
            return

    def listed(mask):
        cols = [str(names[j]) for j in np.flatnonzero(mask)]
        return ", ".join(repr(c) for c in cols[:5]) + (f" and {len(cols) - 5} more" if len(cols) > 5 else "")

    infinite = np.isinf(X)
    if infinite.any():
        raise ValueError(f"X has infinite values in column(s) {listed(infinite.any(axis=0))} "
                         f"({int(infinite.any(axis=1).sum())} rows); replace or drop them")
    missing = np.isnan(X)
    if not allow_nan and missing.any():
        raise ValueError(f"X has missing values (NaN) in column(s) {listed(missing.any(axis=0))} "
                         f"({int(missing.any(axis=1).sum())} rows). {estimator} needs complete rows; of the "
                         "library's estimators only C45Classifier routes missing values itself. Impute them first, "
                         "e.g. make_pipeline(SimpleImputer(), estimator) (sklearn.impute), or drop those rows")


def encode_labels(y, binary: bool, hint: str = BINARY_ONLY_HINT, name: str = "this estimator"):
    """``(classes_, encoded y)``: ``{-1, +1}`` (``classes_[1]`` is +1) for binary models, ``0..K-1`` otherwise."""
    check_classification_targets(y)
    classes, y_idx = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs two")
    if binary:
        if len(classes) > 2:
            raise ValueError(f"Only binary classification is supported: {name} got {len(classes)} classes; {hint}")
        return classes, np.where(y_idx == 1, 1.0, -1.0)
    return classes, y_idx.astype(np.int64)


def feature_names(estimator) -> list[str]:
    """``feature_names_in_`` when ``X`` had string column names, else ``x0, x1, ...``."""
    names = getattr(estimator, "feature_names_in_", None)
    return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(estimator.n_features_in_)]


def printed_names(estimator, given=None) -> list[str]:
    """The feature names a printed model uses: ``given`` (one per feature: what a user passes when the model was
    fitted after a transformer that dropped the names), else :func:`feature_names`."""
    if given is None:
        return feature_names(estimator)
    given = [str(n) for n in given]
    if len(given) != estimator.n_features_in_:
        raise ValueError(f"feature_names has {len(given)} names; the model has {estimator.n_features_in_} features")
    return given


def resolve_features(features, names, what: str = "forbidden feature") -> tuple[int, ...]:
    """Column indices of ``features`` given by name or by index (``None``: none); ``what`` names them in errors."""
    if features is None:
        return ()
    if isinstance(features, (str, int, np.integer)):
        features = [features]
    out = []
    for f in features:
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
            if not 0 <= f < len(names):
                raise ValueError(f"{what} index {f} is out of range (0..{len(names) - 1})")
            out.append(int(f))
        elif str(f) in names:
            out.append(names.index(str(f)))
        else:
            raise ValueError(f"{what} {f!r} is not a feature name; names are {names}")
    return tuple(sorted(set(out)))


def resolve_forbidden(features, names) -> tuple[int, ...]:
    """Column indices of ``forbidden_features`` (:func:`resolve_features`).

    Raises
    ------
    ValueError
        A name or index that is not a feature, or every feature forbidden (the model could read none).
    """
    forbidden = resolve_features(features, names)
    if names and len(forbidden) == len(names):
        raise ValueError(f"forbidden_features forbids every feature ({len(names)}): the model could read none")
    return forbidden
