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


def test_a_tree_wide_budget_and_its_choice_round_trip(monkeypatch):
    from optitrees.estimators import _auto_budget

    monkeypatch.setattr(_auto_budget, "MIN_ROWS_TO_CHOOSE", 100)          # iris's 150 rows choose
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


def _as_version_1(text: str, rename=lambda name: name) -> str:
    """The document of format version 1 that holds the same model: every class named by the module path it was
    saved under (``module:QualName``), then passed through ``rename`` (a module's older place)."""
    from optitrees.persistence._legacy_names import VERSION_1_NAMES

    path_of = {public: path for path, public in VERSION_1_NAMES.items()}

    def walk(value):
        if isinstance(value, dict):
            return {k: rename(path_of[v]) if k in ("__object__", "__enum__") else walk(v) for k, v in value.items()}
        return [walk(v) for v in value] if isinstance(value, list) else value

    document = walk(json.loads(text))
    document["estimator"], document["version"] = rename(path_of[document["estimator"]]), 1
    return json.dumps(document)


def test_files_name_classes_by_public_names_that_no_module_move_changes():
    """Format version 2 names each class by its public name alone; the names are unique among the classes a file
    may hold, none is a module path, and every class a version-1 file could name has one."""
    from optitrees.persistence._allowed import ENUMS, ESTIMATOR_CLASSES, OBJECTS
    from optitrees.persistence._legacy_names import VERSION_1_NAMES

    names = list(OBJECTS) + list(ENUMS) + list(ESTIMATOR_CLASSES)
    assert len(names) == len(set(names)) and not any(":" in n or "." in n for n in names)
    assert set(VERSION_1_NAMES.values()) == set(names)
    X, y = load_diabetes(return_X_y=True)
    est = OCTClassifier(max_depth=1, time_limit=5, random_state=0).fit(X[:80, :3], (y[:80] > np.median(y)).astype(int))
    text = io.StringIO()
    save_model(est, text)
    document = json.loads(text.getvalue())
    assert document["estimator"] == "OCTClassifier" and document["fitted"]["tree_"]["__object__"] == "Tree"
    assert document["version"] == 2 and "optitrees." not in text.getvalue()


def test_a_file_of_version_1_loads_and_so_does_one_naming_a_module_that_had_moved_before():
    """Version 1 named module paths: the policy network lived in ``optitrees.algorithms.policy_network`` before the
    algorithms were grouped into families; both forms load at the class's place today."""
    X, y = load_diabetes(return_X_y=True)
    est = ContextualTreeRegressor(n_estimators=3, max_epochs=2, hidden_layer_sizes=(4,), random_state=0)
    est.fit(X[:100], y[:100])
    buffer = io.StringIO()
    save_model(est, buffer)
    version_1 = _as_version_1(buffer.getvalue())
    assert "optitrees.algorithms.contextual.policy_network:PolicyNetwork" in version_1
    assert np.array_equal(load_model(io.StringIO(version_1)).predict(X), est.predict(X))
    older = _as_version_1(buffer.getvalue(), lambda name: name.replace("algorithms.contextual.policy_network",
                                                                        "algorithms.policy_network"))
    assert "optitrees.algorithms.policy_network:PolicyNetwork" in older
    assert np.array_equal(load_model(io.StringIO(older)).predict(X), est.predict(X))


@pytest.mark.parametrize("make", [lambda: OCTClassifier(max_depth=2, time_limit=20, random_state=0),
                                  lambda: CARTRegressor(max_depth=3, pruning="t_test", random_state=0),
                                  lambda: TMOClassifier(max_depth=2, n_estimators=4, n_generations=1,
                                                        random_state=0)],
                         ids=["OCTClassifier", "CARTRegressor", "TMOClassifier"])
def test_a_file_naming_an_estimator_module_before_the_families_still_loads(make):
    """The estimators lived in ``optitrees.estimators._oct``, ``._regression_tree`` ... before they were grouped
    into families (``estimators.mip``, ``.search``, ``.forest``), and TMO beside TAO in ``._local_search``; a
    version-1 file written then loads, the regression tree's pruning enum with it."""
    from optitrees.persistence._legacy_names import MOVED_CLASSES, MOVED_MODULES

    X, y = load_diabetes(return_X_y=True)
    est = make()
    target = (y > np.median(y)).astype(int) if is_classifier(est) else y
    est.fit(X[:120, :4], target[:120])
    buffer = io.StringIO()
    save_model(est, buffer)
    back = {new: old for old, new in MOVED_CLASSES.items()}

    def before_the_families(name):
        name = back.get(name, name)                  # TMO left optitrees.estimators.search._local_search after
        for old, new in MOVED_MODULES.items():
            if old.startswith("optitrees.estimators.") and name.startswith(new + ":"):
                return old + name[len(new):]
        return name

    text = _as_version_1(buffer.getvalue(), before_the_families)
    assert "optitrees.estimators.mip." not in text and "optitrees.estimators.search." not in text
    loaded = load_model(io.StringIO(text))
    assert type(loaded) is type(est)
    assert np.array_equal(loaded.predict(X[:, :4]), est.predict(X[:, :4]))
