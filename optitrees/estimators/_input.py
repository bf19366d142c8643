"""The input checks behind the estimators' base (:mod:`._base`): numeric columns, labels, feature names, feature
references by name or index."""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

__all__ = ["check_numeric_frame", "encode_labels", "feature_names", "resolve_features"]

BINARY_ONLY_HINT = ("use OCTClassifier or OCTHClassifier (multi-class optimal trees), or wrap this estimator in "
                    "sklearn.multiclass.OneVsRestClassifier")


def check_numeric_frame(X) -> None:
    """A DataFrame with string, object or categorical columns gets an error naming them and saying what to do.

    Boolean and numeric (including nullable numeric) columns are accepted.
    scikit-learn would otherwise fail on the first string ("could not convert
    string to float") or silently use the codes of a numeric categorical column.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return
    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    bad = [(c, str(t)) for c, t in dtypes.items()
           if isinstance(t, pd.CategoricalDtype) or not (is_numeric_dtype(t) or is_bool_dtype(t))]
    if bad:
        names = ", ".join(repr(c) for c, _ in bad)
        kinds = ", ".join(sorted({t for _, t in bad}))
        raise ValueError(
            f"columns {names} are not numeric ({kinds}). Encode them before fitting, for example with a "
            "pipeline: make_pipeline(make_column_transformer((OneHotEncoder(), [" + names + "]), "
            "remainder='passthrough'), estimator) from sklearn.pipeline, sklearn.compose and "
            "sklearn.preprocessing.OneHotEncoder")


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
