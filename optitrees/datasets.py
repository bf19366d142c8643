"""Dataset loaders: scikit-learn built-ins and CSV files."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["load", "standardize", "scale_unit", "BUILTIN"]


def standardize(X):
    """``(X - mean) / scale`` with the scale of constant columns set to 1 (seed 002's preprocessing).

    Returns
    -------
    Xs, mean, scale : ndarray
    """
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return (X - mean) / scale, mean, scale

def scale_unit(X):
    """``(X - low) / span`` in [0, 1] with ``span = max - min`` (1 for a constant feature).

    The scaling of OCT / OCT-H (Bertsimas & Dunn) and OGRS (seed 002, 4.3).

    Returns
    -------
    X01, low, span : ndarray
    """
    X = np.asarray(X, dtype=float)
    low = X.min(axis=0)
    span = X.max(axis=0) - low
    span = np.where(span > 0, span, 1.0)
    return np.clip((X - low) / span, 0.0, 1.0), low, span


BUILTIN = ("breast_cancer", "iris")


def load(name=None, csv=None, target=None):
    """Features and labels as ``(DataFrame, Series)``.

    Parameters
    ----------
    name : {"breast_cancer", "iris"}, optional
        A scikit-learn built-in dataset: breast cancer (binary, labels
        "malignant" / "benign") or iris (three species).
    csv : str, optional
        Path of a CSV file (``.gz`` allowed) with a header row.
    target : str, optional
        Label column of the CSV file (default: the last column).
    """
    if (name is None) == (csv is None):
        raise ValueError("give exactly one of a dataset name or a CSV path")
    if name is not None:
        if name not in BUILTIN:
            raise ValueError(f"unknown dataset {name!r}; built-ins: {BUILTIN}")
        from sklearn import datasets as sk

        data = (sk.load_breast_cancer if name == "breast_cancer" else sk.load_iris)(as_frame=True)
        y = data.target.map(dict(enumerate(data.target_names)))
        return data.data, y.rename("diagnosis" if name == "breast_cancer" else "species")
    frame = pd.read_csv(csv)
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"column {target!r} not in {csv}")
    return frame.drop(columns=[target]), frame[target]
