"""Printed = predicted on the boundary itself: integer rows lying exactly on hyperplanes with short decimal weights
go the same way in ``predict`` (in any batch size), in the printed text, the dict and the SQL run by SQLite."""

import sqlite3
from fractions import Fraction

import numpy as np
import pandas as pd

from export._printed import tree_dict_predictions, tree_text_predictions
from optitrees import export
from optitrees.rule_set import Rule, RuleSet
from optitrees.scorecard import ScoreCard
from optitrees.trees import Tree

NAMES = ["a", "b", "c", "d"]
CLASSES = ["no", "yes"]


def run_sql(expression, X):
    with sqlite3.connect(":memory:") as db:
        pd.DataFrame(X, columns=NAMES).to_sql("data", db, index=False)
        return np.array([r[0] for r in db.execute(f"SELECT {expression} FROM data").fetchall()], dtype=object)


def on_the_plane(X, weights, threshold):
    """Rows whose exact (rational) weighted sum equals the threshold's decimal."""
    w = [Fraction(repr(float(v))) for v in weights]
    t = Fraction(repr(float(threshold)))
    return np.array([sum(wj * int(xj) for wj, xj in zip(w, row)) == t for row in X])


def boundary_tree(rng):
    """Depth 2, oblique splits with weights of one decimal, linear leaves, thresholds the exact sums of rows."""
    W = rng.choice([-0.7, -0.3, -0.1, 0.1, 0.2, 0.3, 0.6, 0.7, 0.9], size=(7, 4))
    W[1, 2] = 0.0                                       # a zero weight inside an oblique split
    return Tree(children_left=[1, 3, 5, -1, -1, -1, -1], children_right=[2, 4, 6, -1, -1, -1, -1], weights=W,
                threshold=np.zeros(7), intercept=np.round(rng.uniform(-2, 2, 7), 1), leaf_model="linear",
                probabilistic=True)


def test_rows_on_a_hyperplane_go_one_way_in_predict_text_dict_and_sql():
    rng = np.random.default_rng(0)
    tree = boundary_tree(rng)
    X = rng.integers(-4, 5, size=(3000, 4)).astype(float)
    # each split's threshold: the decimal of the real weighted sum of many rows, so they lie on the plane
    for t in range(3):
        tree.threshold[t] = float(round(sum(Fraction(repr(float(w))) * 2 for w in tree.weights[t]), 6))
    X[:600] = 2.0                                       # 600 rows exactly on every split's hyperplane
    # and leaf scores of exactly 0 for rows of a leaf whose intercept cancels the sum
    for t in range(3, 7):
        tree.intercept[t] = -float(sum(Fraction(repr(float(w))) * 2 for w in tree.weights[t]))
    assert all(on_the_plane(X[:600], tree.weights[t], tree.threshold[t]).all() for t in range(3))

    expected = tree.predict(X)
    one_by_one = np.concatenate([tree.predict(X[i:i + 1]) for i in range(len(X))])
    assert np.array_equal(one_by_one, expected)
    for size in (2, 7, 64):
        assert np.array_equal(np.concatenate([tree.predict(X[i:i + size]) for i in range(0, len(X), size)]),
                              expected)
    labels = np.array(CLASSES, dtype=object)[expected]
    frame = pd.DataFrame(X, columns=NAMES)
    assert run_sql(export.export_sql(tree, NAMES, CLASSES), X).tolist() == labels.tolist()
    assert tree_text_predictions(export.export_text(tree, NAMES, CLASSES), frame).tolist() == labels.tolist()
    assert tree_dict_predictions(export.export_dict(tree, NAMES, CLASSES), frame).tolist() == labels.tolist()


def test_trust_models_and_per_unit_points_on_their_boundary():
    rng = np.random.default_rng(1)
    X = rng.integers(-3, 4, size=(2000, 4)).astype(float)
    X[:300] = 1.0
    weights = rng.choice([-0.3, 0.1, 0.2, 0.7], size=(3, 4))
    rules = [Rule((0,), (-np.inf,), (0.0,), 1), Rule((1, 2), (-1.0, -np.inf), (np.inf, 1.0), 0),
             Rule((3,), (0.0,), (np.inf,), 1)]
    intercepts = [-float(sum(Fraction(repr(float(w))) for w in row)) for row in weights]     # 0 at x = 1
    rule_set = RuleSet(rules=rules, trust_weights=weights, trust_intercept=intercepts, correct_weight=0.7,
                       incorrect_weight=0.1)
    predicted = (rule_set.proba(X) > 0.5).astype(int)
    assert np.array_equal(np.concatenate([(rule_set.proba(X[i:i + 1]) > 0.5).astype(int) for i in range(500)]),
                          predicted[:500])
    assert run_sql(export.export_sql(rule_set, NAMES, [0, 1]), X).tolist() == predicted.tolist()

    Xd = X / 10                                          # decimal values, per-unit points
    card = ScoreCard(features=[0, 1, 2], thresholds=[0.0, 0.0, 0.0], greater=[True, False, True],
                     points=[3, -2, 1], intercept=-0.2, per_unit=[True, True, False],
                     unit_range=[[-1, 1], [-1, 1], [-1, 1]])
    decided = (card.decision_function(Xd) > 0).astype(int)
    assert np.array_equal(np.concatenate([(card.decision_function(Xd[i:i + 1]) > 0).astype(int)
                                          for i in range(500)]), decided[:500])
    assert run_sql(export.export_sql(card, NAMES, [0, 1]), Xd).tolist() == decided.tolist()
