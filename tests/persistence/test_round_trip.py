"""JSON save / load of every estimator: the loaded estimator predicts exactly as the saved one; bad files."""

import io
import json

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.datasets import load_diabetes, load_iris

from _support import estimator_id, fit_quiet, quick_estimators, quick_data_or_missing as data
from optitrees import (C45Classifier, CARTRegressor, ContextualTreeRegressor, OCTClassifier, OCTHClassifier,
                       TAOClassifier, TMOClassifier)
from optitrees.persistence import FORMAT_VERSION, ModelFormatError, load_model, save_model, to_json_dict


def cases():
    """Every estimator (tests/_support.py), plus C4.5 on data with a missing value and under soft evaluation."""
    return quick_estimators() + [(C45Classifier(), "missing"),
                                 (C45Classifier(search_uncertainty=0.1, propagation_uncertainty=0.1,
                                                evaluation_uncertainty=0.1), "missing")]


def round_trip(est):
    buffer = io.StringIO()
    save_model(est, buffer)
    buffer.seek(0)
    return load_model(buffer), json.loads(buffer.getvalue())


@pytest.mark.parametrize("case", cases(), ids=estimator_id)
def test_a_loaded_estimator_predicts_as_the_saved_one(case):
    est, kind = case
    X, y = data(kind)
    est = fit_quiet(est, X, y)
    loaded, document = round_trip(est)
    assert type(loaded) is type(est) and loaded.get_params() == est.get_params()
    assert np.array_equal(loaded.predict(X), est.predict(X))
    try:
        expected = est.predict_proba(X)
    except AttributeError:             # regressors, and trees whose linear leaves give scores only
        expected = None
    if expected is not None:
        assert np.array_equal(loaded.predict_proba(X), expected)
    assert loaded.export_text() == est.export_text()
    assert loaded.fit_report_ == est.fit_report_
    assert document["version"] == FORMAT_VERSION


def test_the_regressor_and_string_classes_round_trip():
    X, y = load_diabetes(return_X_y=True)
    est = ContextualTreeRegressor(n_estimators=3, max_epochs=2, hidden_layer_sizes=(4,), random_state=0)
    est.fit(X[:100], y[:100])
    loaded, document = round_trip(est)
    assert np.array_equal(loaded.predict(X), est.predict(X))
    assert set(document["not_saved"]) == {"cart_", "forest_"}      # scikit-learn's own trees: not used to predict
    Xi, yi = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[yi]
    est = TAOClassifier(max_depth=2, random_state=0).fit(Xi, names)
    loaded, _ = round_trip(est)
    assert loaded.classes_.dtype == est.classes_.dtype and np.array_equal(loaded.predict(Xi), est.predict(Xi))


def test_a_tree_wide_budget_and_its_choice_round_trip():
    X, y = load_iris(return_X_y=True)
    est = TAOClassifier(max_depth=2, oblique=True, max_total_features="auto", random_state=0).fit(X, y)
    loaded, _ = round_trip(est)
    assert loaded.max_total_features_ == est.max_total_features_
    assert loaded.total_budget_results_["max_total_features"] == est.total_budget_results_["max_total_features"]
    assert np.array_equal(loaded.predict(X), est.predict(X))


def test_feature_names_and_exact_floats_survive(tmp_path):
    import pandas as pd

    X, y = load_iris(return_X_y=True, as_frame=True)
    est = OCTHClassifier(max_depth=1, time_limit=20, solver_options={"mip_max_nodes": 0}).fit(X, y)
    path = tmp_path / "model.json"
    save_model(est, path)
    loaded = load_model(path)
    assert list(loaded.feature_names_in_) == list(X.columns)
    assert np.array_equal(loaded.tree_.weights, est.tree_.weights)        # bit for bit
    assert np.array_equal(loaded.predict(pd.DataFrame(X)), est.predict(X))


def test_bad_files_give_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.json")
    (tmp_path / "notjson.json").write_text("{ this is not json")
    with pytest.raises(ModelFormatError, match="not JSON: .* line 1"):
        load_model(tmp_path / "notjson.json")
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(ModelFormatError, match="not a saved optitrees model"):
        load_model(tmp_path / "other.json")
    X, y = load_iris(return_X_y=True)
    document = to_json_dict(TAOClassifier(max_depth=1, random_state=0).fit(X, y))
    newer = dict(document, version=FORMAT_VERSION + 1)
    with pytest.raises(ModelFormatError, match=f"format {FORMAT_VERSION + 1}.*upgrade optitrees"):
        load_model(io.StringIO(json.dumps(newer)))
    foreign = dict(document, estimator="os:system")
    with pytest.raises(ModelFormatError, match="outside optitrees"):
        load_model(io.StringIO(json.dumps(foreign)))
    planted = json.loads(json.dumps(document))
    planted["fitted"]["tree_"]["__object__"] = "subprocess:Popen"
    with pytest.raises(ModelFormatError, match="outside optitrees"):
        load_model(io.StringIO(json.dumps(planted)))
    with pytest.raises(TypeError, match="optitrees estimator"):
        save_model(object(), io.StringIO())
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        save_model(TAOClassifier(), io.StringIO())


def test_non_finite_floats_round_trip_exactly():
    from optitrees.persistence._schema import FLOAT, Array, Reader
    from optitrees.persistence._writer import encode

    a = np.array([[1.5, np.nan], [np.inf, -np.inf], [0.1, -0.0]])
    document = json.loads(json.dumps(encode(a), allow_nan=False))          # valid JSON: no NaN literals
    back = Array("f", 2).read(document, Reader("test"), "a", 0)
    assert back.dtype == a.dtype and back.shape == a.shape
    assert np.array_equal(back, a, equal_nan=True) and np.signbit(back[2, 1])
    assert np.isnan(FLOAT.read(json.loads(json.dumps(encode(float("nan")), allow_nan=False)), Reader("test"), "x", 0))


def test_a_file_naming_a_module_that_has_since_moved_still_loads():
    """The policy network lived in ``optitrees.algorithms.policy_network`` before the algorithms were grouped
    into families; a file written then names that module and loads at the class's new place."""
    X, y = load_diabetes(return_X_y=True)
    est = ContextualTreeRegressor(n_estimators=3, max_epochs=2, hidden_layer_sizes=(4,), random_state=0)
    est.fit(X[:100], y[:100])
    buffer = io.StringIO()
    save_model(est, buffer)
    new = "optitrees.algorithms.contextual.policy_network:PolicyNetwork"
    assert new in buffer.getvalue()
    old_file = buffer.getvalue().replace(new, "optitrees.algorithms.policy_network:PolicyNetwork")
    loaded = load_model(io.StringIO(old_file))
    assert np.array_equal(loaded.predict(X), est.predict(X))


@pytest.mark.parametrize("make", [lambda: OCTClassifier(max_depth=2, time_limit=20, random_state=0),
                                  lambda: CARTRegressor(max_depth=3, pruning="t_test", random_state=0),
                                  lambda: TMOClassifier(max_depth=2, n_estimators=4, n_generations=1,
                                                        random_state=0)],
                         ids=["OCTClassifier", "CARTRegressor", "TMOClassifier"])
def test_a_file_naming_an_estimator_module_before_the_families_still_loads(make):
    """The estimators lived in ``optitrees.estimators._oct``, ``._regression_tree`` ... before they were grouped
    into families (``estimators.mip``, ``.search``, ``.forest``), and TMO beside TAO in ``._local_search``; a file
    written then loads, the regression tree's pruning enum with it."""
    from optitrees.persistence._allowed import MOVED_CLASSES, MOVED_MODULES, qualified

    X, y = load_diabetes(return_X_y=True)
    est = make()
    target = (y > np.median(y)).astype(int) if is_classifier(est) else y
    est.fit(X[:120, :4], target[:120])
    buffer = io.StringIO()
    save_model(est, buffer)
    text = buffer.getvalue()
    for old, new in MOVED_CLASSES.items():          # TMO left optitrees.estimators.search._local_search after
        text = text.replace(f'"{new}"', f'"{old}"')
    assert type(load_model(io.StringIO(text))) is type(est)
    for old, new in MOVED_MODULES.items():
        if old.startswith("optitrees.estimators."):
            text = text.replace(f'"{new}:', f'"{old}:')
    assert qualified(type(est)) not in text
    loaded = load_model(io.StringIO(text))
    assert type(loaded) is type(est)
    assert np.array_equal(loaded.predict(X[:, :4]), est.predict(X[:, :4]))
