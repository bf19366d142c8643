"""Pipelines ending in an optitrees estimator: saved without pickle (the steps by skops, trusting scikit-learn's
own types only), loaded back predicting the same, feature names carried by ``set_output(transform="pandas")``."""

import base64
import io
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from _support import quick_data
from optitrees import TAOClassifier
from optitrees.cli import main
from optitrees.persistence import ModelFormatError, load_model, save_model, to_json_dict


def _frame():
    X, y = quick_data("real", n=90)
    frame = pd.DataFrame(X, columns=["age", "dose", "weight"])
    frame["ward"] = np.array(["north", "south", "east"])[np.arange(90) % 3]
    frame.loc[5, "dose"] = np.nan
    return frame, y


def _pipeline(*steps):
    encode = make_column_transformer((OneHotEncoder(sparse_output=False), ["ward"]), remainder=SimpleImputer(),
                                     verbose_feature_names_out=False)
    return make_pipeline(encode, *steps, TAOClassifier(max_depth=2, random_state=0)).set_output(transform="pandas")


def test_a_pipeline_saves_loads_and_prints_the_columns_names(tmp_path):
    frame, y = _frame()
    pipe = _pipeline(StandardScaler()).fit(frame, y)
    assert "x0" not in pipe[-1].export_text() and "ward_" in "".join(pipe[-1].feature_names_in_)
    path = tmp_path / "pipe.json"
    save_model(pipe, path)
    loaded = load_model(path)
    assert [type(s).__name__ for _, s in loaded.steps] == ["ColumnTransformer", "StandardScaler", "TAOClassifier"]
    assert np.array_equal(loaded.predict(frame), pipe.predict(frame))
    assert loaded[-1].export_text() == pipe[-1].export_text()
    assert main(["load", str(path)]) == 0
    assert main(["export", str(path), "--format", "sql"]) == 2           # its SQL would read transformed columns
    csv = tmp_path / "rows.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / "predictions.csv"
    assert main(["predict", str(path), "--csv", str(csv), "--output", str(out)]) == 0
    assert pd.read_csv(out)["prediction"].tolist() == pipe.predict(frame).tolist()


class Shift(TransformerMixin, BaseEstimator):
    """A user's own transformer: not one of scikit-learn's trusted types."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X + 1.0


def test_a_step_outside_scikit_learns_trusted_types_is_refused_by_name():
    X, y = quick_data("real")
    document = to_json_dict(make_pipeline(StandardScaler(), Shift(), TAOClassifier(max_depth=1)).fit(X, y))
    with pytest.raises(ModelFormatError, match="outside scikit-learn's trusted ones: .*Shift"):
        load_model(io.StringIO(json.dumps(document)))


def test_tampered_steps_end_in_the_format_error():
    frame, y = _frame()
    document = to_json_dict(_pipeline().fit(frame, y))
    for steps in ("not base64!", base64.b64encode(b"PK\x03\x04 not a zip").decode(), 7):
        bad = json.loads(json.dumps(document))
        bad["pipeline"]["steps"] = steps
        with pytest.raises(ModelFormatError, match="pipeline"):
            load_model(io.StringIO(json.dumps(bad)))
    bad = json.loads(json.dumps(document))
    bad["pipeline"]["planted"] = 1
    with pytest.raises(ModelFormatError, match="pipeline"):
        load_model(io.StringIO(json.dumps(bad)))


def test_a_pipeline_must_end_in_an_optitrees_estimator():
    from sklearn.tree import DecisionTreeClassifier

    X, y = quick_data("real")
    with pytest.raises(TypeError, match="ending in DecisionTreeClassifier"):
        save_model(make_pipeline(StandardScaler(), DecisionTreeClassifier()).fit(X, y), io.StringIO())
