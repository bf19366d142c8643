"""SQL export: the expression, run in SQLite on every training row, gives ``predict`` for every estimator."""

import sqlite3

import numpy as np
import pandas as pd
import pytest

from _support import estimator_id, fit_quiet, quick_data_or_missing as data, quick_estimators
from optitrees import C45Classifier, export
from optitrees.export._sql import column, literal, number
from optitrees.scorecard import ScoreCard
from optitrees.trees import Tree


def run_sql(expression, X, names):
    frame = pd.DataFrame(X, columns=names)
    with sqlite3.connect(":memory:") as db:
        frame.to_sql("data", db, index=False)
        rows = db.execute(f"SELECT {expression} FROM data").fetchall()
    return np.array([r[0] for r in rows], dtype=object)


#: feature names that are also names the SQL itself uses (the contextual trees' subqueries, argmax's scores), a
#: keyword and quotes
HOSTILE_NAMES = ["optitrees_l0", "p0", 'select "x" from; --']


@pytest.mark.parametrize("case", quick_estimators() + [(C45Classifier(), "missing")], ids=estimator_id)
def test_the_sql_expression_predicts_every_training_row(case):
    est, kind = case
    X, y = data(kind)
    if kind != "target":
        y = np.array(["benign", "malignant's"])[y]          # string labels, one with a quote
    frame = pd.DataFrame(X, columns=HOSTILE_NAMES)
    est = fit_quiet(est, frame, y)
    expected = est.predict(frame)
    for sql in (est.export_sql(), est.export_sql(table="data")):
        got = run_sql(sql, X, HOSTILE_NAMES)
        if kind == "target":
            assert np.array_equal(got.astype(float), expected)
        else:
            assert got.tolist() == expected.tolist()
    # a table without a column the model reads: an error with the table named, never a string literal
    used = [j for j, name in enumerate(HOSTILE_NAMES) if column(name) in est.export_sql()]
    renamed = [f"other {j}" if j == used[0] else n for j, n in enumerate(HOSTILE_NAMES)]
    with pytest.raises(sqlite3.OperationalError, match="no such column"):
        run_sql(est.export_sql(table="data"), X, renamed)


def test_soft_c45_has_no_sql():
    Xc, yc = data("missing")
    soft = C45Classifier(evaluation_uncertainty=0.1).fit(Xc, yc)
    with pytest.raises(ValueError, match="normal distribution function"):
        soft.export_sql()


def test_oblique_splits_and_score_cards_by_hand():
    stump = Tree(children_left=[1, -1, -1], children_right=[2, -1, -1], weights=[[0.5, -0.25], [0, 0], [0, 0]],
                 threshold=[0.1, 0, 0], value=[[3, 2], [3, 0], [0, 2]], label=[0, 0, 1])
    text = export.export_sql(stump, ["a", "b"], ["no", "yes"])
    assert text == """CASE WHEN (0.5 * "a" + (-0.25) * "b") <= 0.1 THEN 'no' ELSE 'yes' END"""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 2.0], [0.2, 0.0]])
    assert run_sql(text, X, ["a", "b"]).tolist() == ["no", "yes", "no", "no"]
    card = ScoreCard(features=[0, 1], thresholds=[1.0, 2.0], greater=[True, False], points=[2, -1], intercept=-1.5)
    sql = export.export_sql(card, ["a", "b"], [0, 1])
    X = np.array([[1.0, 5.0], [1.0, 0.0], [0.0, 0.0], [np.nan, 0.0]])
    assert run_sql(sql, X, ["a", "b"]).tolist() == (card.decision_function(X) > 0).astype(int).tolist() == [1, 0, 0, 0]


def test_literals():
    assert number(0.1) == "0.1" and float(number(1 / 3)) == 1 / 3 and number(-2.0) == "(-2.0)"
    assert number(np.inf) == "9e999" and number(np.nan) == "NULL"
    assert literal("it's") == "'it''s'" and literal(np.int64(3)) == "3" and literal(True) == "1"
