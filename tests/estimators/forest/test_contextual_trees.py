"""CCT / CRT: each point is predicted by the forest tree the trained policy picks (seed 002, ch. 5)."""

import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_friedman1

from _support import within_limit
from optitrees import ContextualTreeClassifier, ContextualTreeRegressor

FAST = {"n_estimators": 10, "max_epochs": 15, "patience": 15, "hidden_layer_sizes": (32,), "random_state": 0}


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, np.array(["malignant", "benign"])[y]


@pytest.fixture(scope="module", params=["bandit", "supervised"])
def cct(request, cancer):
    X, y = cancer
    return ContextualTreeClassifier(policy=request.param, **FAST).fit(X, y)


def test_each_point_is_classified_by_its_chosen_tree(cct, cancer):
    X, y = cancer
    choice = cct.choose(X)
    by_tree = np.array([cct.classes_[cct.trees_[i].predict(x[None])[0]] for x, i in zip(X, choice)])
    assert np.array_equal(cct.predict(X), by_tree)
    assert np.array_equal(choice, np.argmax(cct.policy_proba(X), axis=1))
    proba = cct.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1) and np.array_equal(cct.classes_[proba.argmax(1)], cct.predict(X))
    assert cct.tree_usage_.sum() == len(X) and np.array_equal(np.flatnonzero(cct.tree_usage_), np.unique(choice))
    assert cct.score(X, y) > 0.9


def test_trees_are_the_forest_of_the_validated_depth(cct, cancer):
    X, _ = cancer
    assert cct.max_depth_ in (2, 3, 4) and cct.cart_.get_depth() <= cct.max_depth_
    Xs = X / cct.forest_scale_                            # what the forest and CART were fitted on
    assert set(cct.cart_.predict(Xs)) <= set(cct.classes_) and set(cct.forest_.predict(Xs)) <= set(cct.classes_)
    for tree, est in zip(cct.trees_, cct.forest_.estimators_):
        assert tree.max_depth <= cct.max_depth_
        assert np.array_equal(tree.predict(X), est.predict(Xs).astype(int))


def test_the_best_validation_epoch_is_kept(cct):
    assert cct.validation_score_ >= max(cct.history_.validation) - 1e-12
    assert cct.n_epochs_ == len(cct.history_.train) <= 15


def test_explanation_is_the_chosen_trees_path(cct, cancer):
    X, _ = cancer
    ex = cct.explain(X[:20])
    assert np.array_equal(ex["tree"], cct.choose(X[:20]))
    for x, path in zip(X[:20], ex["path"]):
        for cond in path.split(" AND "):
            name, op, value = cond.split(" ")
            v = x[int(name[1:])]
            assert v <= float(value) if op == "<=" else v > float(value)


def test_regressor_predicts_with_the_chosen_regression_tree():
    X, y = make_friedman1(n_samples=300, noise=0.5, random_state=0)
    crt = ContextualTreeRegressor(**FAST).fit(X, y)
    choice = crt.choose(X)
    expected = np.array([crt.trees_[i].predict(x[None])[0] for x, i in zip(X, choice)])
    assert np.array_equal(crt.predict(X), expected)
    for tree, est in zip(crt.trees_, crt.forest_.estimators_):
        assert np.allclose(tree.predict(X), est.predict(X / crt.forest_scale_))
    assert crt.validation_score_ < 0 and crt.score(X, y) > 0.3      # validation score is -RMSE
    assert "value: " in crt.export_text(int(choice[0]))


def test_time_limit_covers_the_fit(cancer):
    X, y = cancer
    t = time.perf_counter()
    cct = ContextualTreeClassifier(n_estimators=10, max_epochs=10**6, patience=10**6, time_limit=1.0,
                                   random_state=0).fit(X, y)
    assert within_limit(time.perf_counter() - t, 1.0)
    assert cct.history_.stopped == "time_limit"


def test_clear_errors(cancer):
    X, y = cancer
    cct = ContextualTreeClassifier(**FAST).fit(X, y)
    with pytest.raises(ValueError, match="tree must be an index"):
        cct.export_text(10)
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        ContextualTreeClassifier(hidden_layer_sizes=(0,)).fit(X, y)
    with pytest.raises(ValueError, match="policy"):
        ContextualTreeClassifier(policy="greedy").fit(X, y)
    with pytest.raises(ValueError):
        ContextualTreeRegressor(**FAST).fit(X, y)                 # string targets are not numbers


def test_the_whole_model_prints_and_thresholds_are_short(cct, cancer):
    import re

    X, _ = cancer
    text = cct.export_text()
    used = np.flatnonzero(cct.tree_usage_)
    assert text.count("\ntree ") == len(used) and "policy network" in text
    for i in used:
        assert cct.export_text(int(i)) in text
    d = cct.to_dict()
    assert sorted(d["trees"]) == used.tolist() and sum(d["usage"].values()) == len(X)
    numbers = re.findall(r"<= (-?[0-9.e+-]+)", text)
    assert numbers and max(len(n.lstrip("-").replace(".", "")) for n in numbers) <= 8     # no float32 noise


@pytest.mark.parametrize("scale", [1e-12, 1e12])
def test_features_at_any_scale_give_the_same_predictions(cancer, scale):
    # scikit-learn's trees take a feature whose range is under 1e-7 for a constant: the forest learns on
    # power-of-two rescaled features
    from optitrees import RuleSetClassifier

    X, y = cancer
    for est in (ContextualTreeClassifier(**FAST), RuleSetClassifier(n_rules=4, n_estimators=20, random_state=0)):
        reference = est.fit(X, y).predict(X)
        assert np.array_equal(est.fit(X * scale, y).predict(X * scale), reference), type(est).__name__
