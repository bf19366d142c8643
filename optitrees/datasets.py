"""Dataset loaders: scikit-learn built-ins and CSV files."""

from __future__ import annotations

import pandas as pd

__all__ = ["load", "BUILTIN"]


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
