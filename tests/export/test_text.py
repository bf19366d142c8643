"""Text and dict of trees and score cards, on hand-made models."""

import json

import numpy as np
import pandas as pd
import pytest

from optitrees import export
from optitrees.scorecard import ScoreCard
from optitrees.trees import Tree, from_complete
from export._printed import card_text_predictions, tree_dict_predictions, tree_text_predictions


def test_linear_text_keeps_every_nonzero_weight_exactly():
    names = ["a", "b", "c", "d"]
    assert export.linear_text(np.array([0.53, -1.2, 0.0, 3.2e-9]), names, 0.31) == \
        "0.53 * a - 1.2 * b + 3.2e-09 * d + 0.31"
    assert export.linear_text(np.array([-1.0, 0, 0, 0]), names) == "-1 * a"
    assert export.linear_text(np.array([1.0, 0, 0, 0]), names) == "a"
    assert export.linear_text(np.zeros(4), names) == "0"


@pytest.fixture
def label_tree():
    # x0 <= 2.5 -> class 0; else 0.5 x0 - 0.25 x1 <= 1 -> class 1, else class 2
    return Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1],
                [[1.0, 0.0], [0, 0], [0.5, -0.25], [0, 0], [0, 0]], [2.5, 0, 1.0, 0, 0],
                value=[[3, 2, 2], [3, 0, 0], [0, 2, 2], [0, 2, 0], [0, 0, 2]], label=[0, 0, 1, 1, 2])


def test_label_tree_text(label_tree):
    text = export.tree_text(label_tree, ["x0", "x1"], ["a", "b", "c"])
    assert text.splitlines() == [
        "|--- x0 <= 2.5",
        "|   |--- class: a  (training counts: a 3, b 0, c 0)",
        "|--- x0 >  2.5",
        "|   |--- h1 <= 1    where h1 = 0.5 * x0 - 0.25 * x1",
        "|   |   |--- class: b  (training counts: a 0, b 2, c 0)",
        "|   |--- h1 >  1",
        "|   |   |--- class: c  (training counts: a 0, b 0, c 2)",
    ]
    X = pd.DataFrame(np.random.default_rng(0).normal(3, 2, size=(100, 2)), columns=["x0", "x1"])
    expected = np.array(["a", "b", "c"])[label_tree.predict(X.to_numpy())]
    assert np.array_equal(tree_text_predictions(text, X), expected)
    d = json.loads(json.dumps(export.tree_dict(label_tree, ["x0", "x1"], ["a", "b", "c"])))
    assert np.array_equal(tree_dict_predictions(d, X), expected)


def test_linear_tree_text_and_dict():
    tree, _ = from_complete(np.array([[1.0, 0.0]]), [0.5], split_intercept=[-0.5],
                            leaf_weights=[[0.0, 2.0], [1.5, -1.0]], leaf_intercepts=[0.25, -3.0], probabilistic=True)
    text = export.tree_text(tree, ["u", "v"], ["no", "yes"])
    assert "|   |--- score = 2 * v + 0.25" in text
    assert "|   |   |--- P(yes) = sigmoid(score); class: yes if score > 0, else no" in text
    d = export.tree_dict(tree, ["u", "v"], ["no", "yes"])
    assert d["nodes"][0]["node_intercept"] == -0.5 and d["nodes"][2]["probability"] == "sigmoid"
    X = pd.DataFrame(np.random.default_rng(1).normal(size=(100, 2)), columns=["u", "v"])
    expected = np.array(["no", "yes"])[tree.predict(X.to_numpy())]
    assert np.array_equal(tree_text_predictions(text, X), expected)
    assert np.array_equal(tree_dict_predictions(d, X), expected)


def test_card_text_and_dict():
    card = ScoreCard([0, 1], [65.5, 0.5], [True, False], [2, 1], -1.25, [False, True])
    text = export.card_text(card, ["age", "smoker"], ["low", "high"])
    lines = text.splitlines()
    assert lines[:4] == ["rule         points", "age >= 65.5  +2", "smoker = 0   +1", "intercept    -1.25"]
    assert lines[5].split() == ["score", "P(high)", "class"] and lines[6].split()[0] == "0"
    X = pd.DataFrame({"age": [40.0, 70.0, 66.0, 65.5, 65.4], "smoker": [1, 0, 1, 0, 0]})
    log_odds, labels = card_text_predictions(text, X)
    assert np.allclose(log_odds, card.decision_function(X.to_numpy()))
    assert labels.tolist() == ["low", "high", "high", "high", "low"]
    d = export.card_dict(card, ["age", "smoker"], ["low", "high"])
    assert [r["class"] for r in d["risk"]] == ["low", "low", "high", "high"]


def test_export_accepts_estimators_and_models(label_tree):
    with pytest.raises(TypeError, match="fitted optitrees estimator"):
        export.export_text(object())
    assert export.export_text(label_tree).startswith("|--- x0 <= 2.5")
    card = ScoreCard([0], [0.5], [True], [1], 0.5, [True])
    with pytest.raises(TypeError, match="score card"):
        export.plot_tree(card)
