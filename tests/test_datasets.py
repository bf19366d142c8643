"""Dataset loaders: scikit-learn built-ins and CSV files."""

import pandas as pd
import pytest

from optitrees.datasets import load


def test_builtin_datasets_have_named_labels():
    X, y = load("breast_cancer")
    assert X.shape == (569, 30) and set(y) == {"malignant", "benign"} and y.name == "diagnosis"
    X, y = load("iris")
    assert X.shape == (150, 4) and set(y) == {"setosa", "versicolor", "virginica"}


def test_csv_with_and_without_target(tmp_path):
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": [1, 2, 3], "label": ["x", "y", "x"], "b": [0.5, 0.1, 0.2]}).to_csv(path, index=False)
    X, y = load(csv=path, target="label")
    assert list(X.columns) == ["a", "b"] and y.tolist() == ["x", "y", "x"]
    X, y = load(csv=path)
    assert list(X.columns) == ["a", "label"] and y.name == "b"
    with pytest.raises(ValueError, match="not in"):
        load(csv=path, target="nope")


def test_bad_requests():
    with pytest.raises(ValueError, match="exactly one"):
        load()
    with pytest.raises(ValueError, match="unknown dataset"):
        load("mnist")
