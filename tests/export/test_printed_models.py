"""What a model prints reproduces its predictions exactly (text and dict, every estimator)."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, RiskScoreClassifier, TAOClassifier, TMOClassifier, C45Classifier,
                       UCTDTClassifier, RuleSetClassifier, ContextualTreeClassifier, ContextualTreeRegressor)
from _support import SHARED_DATASETS, fit_quiet
from export._printed import (card_dict_predictions, card_text_predictions, one_vs_rest_dict_predictions,
                             one_vs_rest_text_predictions, rule_set_dict_predictions, rule_set_text_predictions,
                             tree_dict_predictions, tree_text_predictions)

SHARED = SHARED_DATASETS
NODES = {"mip_max_nodes": 10}
#: the loss-optimal trees: the root node's model from a TAO start, decoded and printed like any other
QUICK = dict(solver_options={"mip_max_nodes": 0}, warm_start="tao", random_state=0)
#: the label trees by MIP: 10 nodes from a TAO start
QUICK_LABEL = dict(solver_options=NODES, warm_start="tao", random_state=0)


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:150, :8]
    y = data.target.iloc[:150].map({0: "malignant", 1: "benign"}).to_numpy()
    return X, y


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, np.array(["setosa", "versicolor", "virginica"])[y.to_numpy()]


def _assert_tree_printed_as_predicted(clf, X):
    predicted = clf.predict(X).astype(str)
    text = clf.export_text()
    assert np.array_equal(tree_text_predictions(text, X).astype(str), predicted), text
    d = json.loads(json.dumps(clf.to_dict()))
    assert np.array_equal(tree_dict_predictions(d, X).astype(str), predicted)


@pytest.mark.parametrize("make", [
    lambda: OLCTClassifier(max_depth=2, time_limit=5, **QUICK),
    lambda: OLCTClassifier(max_depth=2, univariate=True, time_limit=5, **QUICK),
    lambda: MARGOTClassifier(max_depth=2, time_limit=5, **QUICK),
    pytest.param(lambda: LossOptimalTreeClassifier(max_depth=2, loss="misclassification", regularizer=None,
                                                   time_limit=20, solver_options=NODES, random_state=0),
                 marks=pytest.mark.slow),
], ids=["olct", "olct-univariate", "margot", "misclassification"])
def test_loss_optimal_trees_print_their_predictions(cancer, make):
    X, y = cancer
    clf = fit_quiet(make(), X, y)
    _assert_tree_printed_as_predicted(clf, X)


@pytest.mark.parametrize("make", [
    lambda: OLCTClassifier(max_depth=2, time_limit=6, **QUICK),
    lambda: MARGOTClassifier(max_depth=2, time_limit=6, **QUICK),
], ids=["olct", "margot"])
def test_one_vs_rest_trees_print_their_predictions(iris, make):
    """Three classes: the text's and the dict's score trees, argmax over the classes, give ``predict``."""
    X, y = iris
    clf = fit_quiet(make(), X, y)
    assert clf.tree_ is None and len(clf.estimators_) == 3
    predicted = clf.predict(X).astype(str)
    assert np.mean(predicted == y) > 0.9
    text = clf.export_text()
    assert np.array_equal(one_vs_rest_text_predictions(text, X).astype(str), predicted), text
    d = json.loads(json.dumps(clf.to_dict()))
    assert np.array_equal(one_vs_rest_dict_predictions(d, X).astype(str), predicted)


def test_olct_weights_at_feature_scale_1e9_are_printed(cancer):
    X, y = cancer
    big = X * 1e9
    clf = fit_quiet(OLCTClassifier(max_depth=2, time_limit=5, **QUICK), big, y)
    text = clf.export_text()
    assert "e-" in text                                      # weights of order 1e-9 in significant digits
    _assert_tree_printed_as_predicted(clf, big)


@pytest.mark.parametrize("make", [
    lambda: OCTClassifier(max_depth=2, alpha=0.01, time_limit=5, random_state=0),
    lambda: OCTClassifier(max_depth=2, min_samples_leaf=3, time_limit=5, **QUICK_LABEL),
    lambda: OCTHClassifier(max_depth=2, alpha=0.01, time_limit=5, **QUICK_LABEL),
    lambda: TAOClassifier(max_depth=3, oblique=True, random_state=0),
    lambda: TMOClassifier(max_depth=3, n_estimators=6, n_generations=1, random_state=0),
    lambda: C45Classifier(min_samples_leaf=1),
    lambda: C45Classifier(search_uncertainty=0.05, propagation_uncertainty=0.05),
    lambda: UCTDTClassifier(n_iterations=100, random_state=0),
], ids=["oct-contree", "oct-mip", "octh", "tao-oblique", "tmo", "c45", "c45-soft-training", "uct-dt"])
def test_label_trees_print_their_predictions(iris, make):
    X, y = iris
    clf = fit_quiet(make(), X, y)
    _assert_tree_printed_as_predicted(clf, X)


def _assert_card_printed_as_predicted(clf, X):
    predicted = clf.predict(X).astype(str)
    log_odds, labels = card_text_predictions(clf.export_text(), X)
    assert np.array_equal(labels.astype(str), predicted), clf.export_text()
    assert np.array_equal(np.where(log_odds > 0, str(clf.classes_[1]), str(clf.classes_[0])), predicted)
    assert np.allclose(log_odds, clf.decision_function(X), rtol=0, atol=1e-12)
    d = json.loads(json.dumps(clf.to_dict()))
    assert np.array_equal(card_dict_predictions(d, X).astype(str), predicted)


def test_generalized_card_with_integer_features_prints_its_predictions():
    rng = np.random.default_rng(7)
    n = 200
    X = pd.DataFrame({"age": rng.integers(40, 96, n).astype(float), "ejection_fraction": rng.integers(14, 70, n),
                      "serum_sodium": rng.integers(125, 146, n), "smoking": rng.integers(0, 2, n)})
    logit = 1.5 * (X["age"] >= 70) + 1.2 * (X["ejection_fraction"] < 30) - 1.0
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "died", "survived")
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=3, max_score=3, tangents="V1", time_limit=3,
                                                   random_state=0), X, y)
    _assert_card_printed_as_predicted(clf, X)
    card = clf.score_card_
    for j, t in zip(card.features, card.thresholds):      # thresholds sit strictly between training values
        assert not np.any(X.iloc[:, j].to_numpy(float) == t)


def test_risk_score_card_prints_its_predictions():
    rng = np.random.default_rng(0)
    X = pd.DataFrame((rng.random((150, 6)) < 0.4).astype(int), columns=[f"f{j}" for j in range(6)])
    y = np.where(X["f0"] + X["f1"] - X["f2"] + rng.normal(0, 0.7, 150) > 0.5, "yes", "no")
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=5, random_state=0), X, y)
    _assert_card_printed_as_predicted(clf, X)


def test_per_unit_card_with_a_multiplier_prints_its_predictions():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"clump": rng.integers(1, 11, 300), "nuclei": rng.integers(1, 11, 300),
                      "mitoses": rng.integers(0, 2, 300)})
    y = np.where(0.7 * X["clump"] + 0.4 * X["nuclei"] + X["mitoses"] - 6 + rng.logistic(size=300) > 0, "M", "B")
    clf = fit_quiet(RiskScoreClassifier(n_rules=3, min_score=-5, max_score=5, time_limit=10, random_state=0), X, y)
    card = clf.score_card_
    assert card.per_unit.any() and card.multiplier != 1.0 and "multiplier" in clf.export_text()
    _assert_card_printed_as_predicted(clf, X)


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/datasets not available")
def test_heart_failure_card_prints_its_predictions():
    frame = pd.read_csv(SHARED / "heart_failure.csv.gz")
    X, y = frame.drop(columns="target"), frame["target"].to_numpy()
    clf = fit_quiet(GeneralizedRiskScoreClassifier(n_rules=3, max_score=5, time_limit=3, random_state=0), X, y)
    _assert_card_printed_as_predicted(clf, X)


def test_rule_set_prints_its_probabilities_and_predictions(cancer):
    X, y = cancer
    clf = RuleSetClassifier(n_rules=6, n_estimators=20, random_state=0).fit(X, y)
    p, labels = rule_set_text_predictions(clf.export_text(), X)
    assert np.array_equal(p, clf.predict_proba(X)[:, 1])
    assert np.array_equal(labels.astype(str), clf.predict(X).astype(str))
    d = json.loads(json.dumps(clf.to_dict()))
    assert np.array_equal(rule_set_dict_predictions(d, X), clf.predict(X).astype(str))


@pytest.mark.parametrize("regression", [False, True], ids=["cct", "crt"])
def test_chosen_trees_print_the_contextual_predictions(cancer, regression):
    X, y = cancer
    params = {"n_estimators": 6, "max_epochs": 5, "hidden_layer_sizes": (16,), "random_state": 0}
    if regression:
        target = X["mean area"].to_numpy()
        X = X.drop(columns="mean area")
        clf = ContextualTreeRegressor(**params).fit(X, target)
    else:
        clf = ContextualTreeClassifier(**params).fit(X, y)
    predicted, choice = clf.predict(X), clf.choose(X)
    for tree in np.unique(choice):
        rows = choice == tree
        from_text = tree_text_predictions(clf.export_text(int(tree)), X[rows])
        from_dict = tree_dict_predictions(json.loads(json.dumps(clf.to_dict(int(tree)))), X[rows])
        if regression:
            assert np.array_equal(from_text.astype(float), predicted[rows])
            assert np.array_equal(from_dict.astype(float), predicted[rows])
        else:
            assert np.array_equal(from_text.astype(str), predicted[rows].astype(str))
            assert np.array_equal(from_dict.astype(str), predicted[rows].astype(str))
