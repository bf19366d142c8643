"""Multi-class loss-optimal trees: one binary tree per class against the rest, checked against K binary fits."""

import io
import sqlite3
import time

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from _support import fit_quiet, within_limit
from optitrees import MARGOTClassifier, OLCTClassifier
from optitrees.persistence import load_model, save_model


def _three_classes(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n), [-0.6, 0.6])
    return pd.DataFrame(X, columns=["a", "b", "c"]), np.array(["low", "mid", "high"])[y]


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_each_tree_is_the_binary_fit_of_its_class_against_the_rest(class_weight):
    """Depth 1 (one logistic leaf, a convex problem): the K trees are the K binary fits, the objective their sum,
    the prediction the argmax of their scores and the probabilities the normalized sigmoids. "balanced" balances
    each binary tree: class k against the rest, as a binary fit with class_weight="balanced" does."""
    X, y = _three_classes()
    params = dict(max_depth=1, C=2.0, random_state=0, class_weight=class_weight)
    clf = fit_quiet(OLCTClassifier(**params), X, y)
    assert list(clf.classes_) == ["high", "low", "mid"] and clf.tree_ is None
    scores = []
    for k, label in enumerate(clf.classes_):
        alone = fit_quiet(OLCTClassifier(**params), X, y == label)
        assert clf.estimators_[k].objective_ == pytest.approx(alone.objective_, rel=1e-6)
        np.testing.assert_allclose(clf.estimators_[k].decision_function(X), alone.decision_function(X), atol=1e-6)
        scores.append(clf.estimators_[k].decision_function(X))
    scores = np.column_stack(scores)
    np.testing.assert_array_equal(clf.decision_function(X), scores)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(scores, axis=1)])
    p = expit(scores)
    np.testing.assert_allclose(clf.predict_proba(X), p / p.sum(axis=1, keepdims=True))
    assert clf.objective_ == pytest.approx(sum(e.objective_ for e in clf.estimators_))
    report = clf.fit_report_
    assert report.method.startswith("one-vs-rest") and report.objective == clf.objective_
    assert clf.score(X, y) > 0.8


def test_sql_and_saved_model_predict_as_the_estimator(tmp_path):
    X, y = _three_classes(seed=1)
    clf = fit_quiet(OLCTClassifier(max_depth=2, time_limit=6, solver_options={"mip_max_nodes": 10},
                                   random_state=0), X, y)
    with sqlite3.connect(":memory:") as con:
        X.to_sql("data", con, index=False)
        got = [r[0] for r in con.execute(f"SELECT {clf.export_sql()} AS prediction FROM data")]
    np.testing.assert_array_equal(np.array(got), clf.predict(X))
    buffer = io.StringIO()
    save_model(clf, buffer)
    buffer.seek(0)
    loaded = load_model(buffer)
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    assert loaded.export_text() == clf.export_text()


def test_one_tree_views_name_the_per_class_trees_and_a_binary_refit_forgets_them():
    X, y = _three_classes(seed=2)
    clf = fit_quiet(MARGOTClassifier(max_depth=1, random_state=0), X, y)
    assert not hasattr(clf, "predict_proba")                           # hinge leaves: scores only
    with pytest.raises(AttributeError, match=r"one tree per class .* estimators_\[k\]"):
        clf.apply(X)
    with pytest.raises(AttributeError, match="one tree per class"):
        clf.get_depth()
    with pytest.raises(TypeError, match="plot_tree on each of estimators_"):
        from optitrees.export import plot_tree
        plot_tree(clf)
    fit_quiet(clf, X, y == "mid")
    assert clf.tree_ is not None and clf.one_vs_rest_ is None and not hasattr(clf, "estimators_")
    assert clf.decision_function(X).shape == (len(y),)


def test_the_classes_share_the_time_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 30))
    y = np.digitize(X[:, :6] @ rng.normal(size=6) + rng.logistic(size=3000), [-2, 0, 2])
    t0 = time.perf_counter()
    clf = fit_quiet(OLCTClassifier(max_depth=3, time_limit=2.0), X, y)
    elapsed = time.perf_counter() - t0
    assert within_limit(elapsed, 2.0), elapsed
    assert len(clf.estimators_) == 4 and clf.fit_report_.time_limit == 2.0
    assert all(e.fit_report_.time_limit <= 2.0 for e in clf.estimators_)       # each a share of what is left
