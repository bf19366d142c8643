"""A loaded model is one model: every field a model uses agrees with every other, or the file is refused; what
predicts is what prints; a file cannot make a later fit write anywhere."""

import base64
import io
import json

import numpy as np
import pytest
import skops.io as sio
from sklearn.datasets import load_iris
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from optitrees import (C45Classifier, GeneralizedRiskScoreClassifier, OLCTClassifier, RuleSetClassifier,
                       TAOClassifier)
from optitrees.persistence import ModelFormatError, load_model, save_model, to_json_dict
from optitrees.rule_set import Rule, RuleSet
from optitrees.scorecard import ScoreCard


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def binary(iris):
    X, y = iris
    return X[y < 2], y[y < 2]


def loads(document):
    return load_model(json.dumps(document).encode())


def refused(document, match):
    with pytest.raises(ModelFormatError, match=match):
        loads(document)


def test_a_second_model_beside_the_first_is_refused(iris, binary):
    X, y = binary
    tao = to_json_dict(TAOClassifier(max_depth=2, random_state=0).fit(X, y))
    card = to_json_dict(GeneralizedRiskScoreClassifier(n_rules=2, time_limit=10).fit(X, y))
    rules = to_json_dict(RuleSetClassifier(n_estimators=5, n_rules=3, random_state=0).fit(X, y))
    for document in (card, rules):
        refused(dict(document, fitted=dict(document["fitted"], tree_=tao["fitted"]["tree_"])), "one model")
    Xi, yi = iris
    ovr = to_json_dict(OLCTClassifier(max_depth=1, time_limit=5).fit(Xi, yi))
    tao3 = to_json_dict(TAOClassifier(max_depth=2, random_state=0).fit(Xi, yi))
    refused(dict(ovr, fitted=dict(ovr["fitted"], tree_=tao3["fitted"]["tree_"])), "one model")
    # a one-vs-rest tree that is not its estimator's
    swapped = json.loads(json.dumps(ovr))
    trees = swapped["fitted"]["one_vs_rest_"]["fields"]["trees"]["__tuple__"]
    trees[0], trees[1] = trees[1], trees[0]
    refused(swapped, "is not the one-vs-rest model's tree")


def test_a_c45_leaf_prints_the_class_it_predicts(binary):
    X, y = binary
    document = to_json_dict(C45Classifier().fit(X, y))
    label = document["fitted"]["tree_"]["fields"]["label"]["__ndarray__"]
    document["fitted"]["tree_"]["fields"]["label"]["__ndarray__"] = [1 - v for v in label]
    refused(document, "printed class is not the class its probabilities predict")


def test_feature_names_and_their_encoding_agree(binary):
    X, y = binary
    est = TAOClassifier(max_depth=1, random_state=0).fit(X, y)
    document = to_json_dict(est)
    names = {"__ndarray__": ["a", "a", "c", "d"], "dtype": "object", "shape": [4]}
    refused(dict(document, fitted=dict(document["fitted"], feature_names_in_=names)), "same name")
    names = {"__ndarray__": ["age", "colour_red", "c", "d"], "dtype": "object", "shape": [4]}
    for encoding, match in (({"colour_red": {"__tuple__": ["income", "red"]}}, "named after its column"),
                            ({"colour_red": {"__tuple__": ["age", "red"]}}, "named after its column"),
                            ({"age": {"__tuple__": ["a", "ge"]}}, "named after its column")):
        refused(dict(document, fitted=dict(document["fitted"], feature_names_in_=names, feature_encoding_=encoding)),
                match)
    good = dict(document, fitted=dict(document["fitted"], feature_names_in_=names,
                                      feature_encoding_={"colour_red": {"__tuple__": ["colour", "red"]}}))
    assert loads(good).feature_encoding_ == {"colour_red": ("colour", "red")}


def test_model_objects_keep_their_own_invariants():
    with pytest.raises(ValueError, match="threshold must lie in"):
        ScoreCard(features=[0], thresholds=[100.0], greater=[True], points=[2], intercept=-1.0, binary=[True])
    with pytest.raises(ValueError, match="positive number"):
        RuleSet(rules=[Rule((0,), (-np.inf,), (1.0,), 1)], trust_weights=[[1.0]], trust_intercept=[0.0],
                correct_weight=-2.0)
    with pytest.raises(ValueError, match="class 0 or 1"):
        Rule((0,), (-np.inf,), (1.0,), 5)


def test_probabilities_must_be_probabilities_of_the_classes(binary):
    X, y = binary
    document = to_json_dict(TAOClassifier(max_depth=1, random_state=0).fit(X, y))
    value = document["fitted"]["tree_"]["fields"]["value"]
    value["__ndarray__"] = [v + 1 if k % 2 == 0 else -v - 2 for k, v in enumerate(value["__ndarray__"])]
    refused(document, "probabilities outside")                               # counts below zero


def test_a_file_cannot_make_a_later_fit_write_anywhere(binary, tmp_path):
    X, y = binary
    log = tmp_path / "highs.log"
    est = OLCTClassifier(max_depth=1, time_limit=5, solver_options={"log_file": str(log), "mip_max_nodes": 5}
                         ).fit(X, y)
    buffer = io.StringIO()
    save_model(est, buffer)
    document = json.loads(buffer.getvalue())
    assert "params.solver_options.log_file" in document["not_saved"]
    assert loads(document).solver_options == {"mip_max_nodes": 5}
    document["params"]["solver_options"]["log_file"] = str(tmp_path / "elsewhere.log")
    refused(document, "naming a file or folder")


def pipeline_document(est, scaler, memory=None):
    entry = {"final_step": "model", "format": "skops",
             "steps": base64.b64encode(sio.dumps(Pipeline([("scale", scaler)], memory=memory))).decode()}
    return dict(to_json_dict(est), pipeline=entry)


def test_a_pipeline_step_is_what_its_type_says(binary, tmp_path):
    X, y = binary
    scaler = StandardScaler().fit(X)
    est = TAOClassifier(max_depth=1, random_state=0).fit(scaler.transform(X), y)
    assert loads(pipeline_document(est, scaler)).predict(X).tolist() == est.predict(scaler.transform(X)).tolist()
    planted = StandardScaler().fit(X)
    planted.transform = np.negative
    refused(pipeline_document(est, planted), "hiding its own methods")
    refused(pipeline_document(est, scaler, memory=str(tmp_path)), "cache folder")


def test_a_random_generator_state_out_of_range_is_refused(iris):
    from optitrees import ContextualTreeClassifier

    X, y = iris
    est = ContextualTreeClassifier(n_estimators=3, max_epochs=2, hidden_layer_sizes=(4,), random_state=0).fit(X, y)
    document = to_json_dict(est)
    rng = document["fitted"]["policy_"]["fields"]["rng"]
    assert loads(document).predict(X).tolist() == est.predict(X).tolist()
    rng["state"]["has_uint32"] = 9
    refused(document, "out of its range")


def test_the_estimators_of_a_one_vs_rest_model_save_no_file_option_either(iris, tmp_path):
    X, y = iris
    est = OLCTClassifier(max_depth=1, time_limit=5, solver_options={"log_file": str(tmp_path / "h.log")}).fit(X, y)
    buffer = io.StringIO()
    save_model(est, buffer)
    loaded = load_model(buffer.getvalue().encode())
    assert loaded.solver_options == {} and all(sub.solver_options == {} for sub in loaded.estimators_)
    assert loaded.predict(X).tolist() == est.predict(X).tolist()


def test_class_labels_that_read_like_paths_are_kept(binary):
    X, y = binary
    labels = np.array(["file", "dir"])[y]
    est = TAOClassifier(max_depth=1, random_state=0, class_weight={"file": 1.0, "dir": 2.0}).fit(X, labels)
    loaded = loads(to_json_dict(est))
    assert loaded.class_weight == {"file": 1.0, "dir": 2.0}
    assert loaded.predict(X).tolist() == est.predict(X).tolist()
