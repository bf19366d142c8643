"""C45Classifier: predictions with missing values and soft evaluation by hand, pruning, input errors."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import cross_val_score

from optitrees import C45Classifier


@pytest.fixture(scope="module")
def stump():
    """One split x0 <= 3 with 4 + 1 training rows on the left and 5 on the right."""
    X = np.array([[0.0], [1], [2], [3], [3], [4], [5], [6], [7], [8]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    return X, y, C45Classifier(min_samples_leaf=1, max_depth=1, pruning=False).fit(X, y)


def test_leaf_probabilities_are_laplace_smoothed(stump):
    X, y, clf = stump
    assert clf.tree_.threshold[0] == 3.0 and clf.n_leaves_ == 2
    np.testing.assert_allclose(clf.predict_proba([[1.0]]), [[5 / 7, 2 / 7]])  # (4 + 1) / (5 + 2), (1 + 1) / 7
    np.testing.assert_allclose(clf.predict_proba([[7.0]]), [[1 / 7, 6 / 7]])
    plain = C45Classifier(min_samples_leaf=1, max_depth=1, pruning=False, laplace=False).fit(X, y)
    np.testing.assert_allclose(plain.predict_proba([[1.0]]), [[4 / 5, 1 / 5]])


def test_a_missing_value_mixes_both_leaves_with_the_training_shares(stump):
    _, _, clf = stump
    want = 0.5 * np.array([5 / 7, 2 / 7]) + 0.5 * np.array([1 / 7, 6 / 7])   # 5 of 10 training rows went left
    np.testing.assert_allclose(clf.predict_proba([[np.nan]]), [want])


def test_soft_evaluation_is_eq_3_10(stump):
    X, y, _ = stump
    clf = C45Classifier(min_samples_leaf=1, max_depth=1, pruning=False, evaluation_uncertainty=0.2).fit(X, y)
    sigma = 0.2 * X.mean()
    g = norm.cdf((3.0 - 3.5) / sigma)
    np.testing.assert_allclose(clf.predict_proba([[3.5]]), [g * np.array([5, 2]) / 7 + (1 - g) * np.array([1, 6]) / 7])


def test_missing_values_in_training_and_prediction_keep_accuracy():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    holes = X.copy()
    holes[rng.random(X.shape) < 0.1] = np.nan
    clf = C45Classifier().fit(holes, y)
    proba = clf.predict_proba(holes)
    assert np.allclose(proba.sum(axis=1), 1) and clf.score(holes, y) > 0.93


def test_pruning_shrinks_the_tree_and_confidence_orders_the_size():
    X, y = load_breast_cancer(return_X_y=True)
    full = C45Classifier(pruning=False).fit(X, y)
    sizes = [C45Classifier(confidence_factor=cf).fit(X, y).n_leaves_ for cf in (0.01, 0.25, 0.5)]
    assert sizes[0] <= sizes[1] <= sizes[2] <= full.n_leaves_ and sizes[0] < full.n_leaves_


def test_accuracy_is_that_of_a_decision_tree_on_iris():
    X, y = load_iris(return_X_y=True)
    assert cross_val_score(C45Classifier(), X, y, cv=5).mean() > 0.92


def test_frames_give_feature_names_and_strings_get_a_clear_error():
    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = C45Classifier().fit(X, y)
    assert "petal" in clf.export_text()
    bad = X.assign(colour="red")
    with pytest.raises(ValueError, match="colour"):
        C45Classifier().fit(bad, y)
    with pytest.raises(ValueError, match="every feature is forbidden"):
        C45Classifier(forbidden_features=list(X.columns)).fit(X, y)
    with pytest.raises(ValueError, match="infinity|inf"):
        C45Classifier().fit(X.assign(**{"sepal length (cm)": np.inf}), y)


def test_soft_components_fit_alone_and_together():
    X, y = load_breast_cancer(return_X_y=True)
    hard = C45Classifier().fit(X, y)
    for kw in ({"search_uncertainty": 0.1}, {"propagation_uncertainty": 0.1},
               {"search_uncertainty": 0.1, "propagation_uncertainty": 0.1, "evaluation_uncertainty": 0.1}):
        clf = C45Classifier(**kw).fit(X, y)
        assert clf.score(X, y) > 0.9 and clf.n_leaves_ <= hard.n_leaves_


def test_iris_tree_is_j48s():
    """Weka 3.6.14's J48 (C4.5 release 8, -C 0.25 -M 2) on iris, all 150 rows, prints:

    x3 <= 0.6: c0 (50.0)
    x3 > 0.6
    |   x3 <= 1.7
    |   |   x2 <= 4.9: c1 (48.0/1.0)
    |   |   x2 > 4.9
    |   |   |   x3 <= 1.5: c2 (3.0)
    |   |   |   x3 > 1.5: c1 (3.0/1.0)
    |   x3 > 1.7: c2 (46.0/1.0)
    """
    X, y = load_iris(return_X_y=True)
    tree = C45Classifier(laplace=False).fit(X, y).tree_
    inner = ~tree.is_leaf
    assert list(zip(tree.feature[inner], tree.threshold[inner])) == [(3, 0.6), (3, 1.7), (2, 4.9), (3, 1.5)]
    leaves = tree.value[tree.is_leaf]
    assert sorted(map(tuple, leaves.tolist())) == sorted([(50, 0, 0), (0, 47, 1), (0, 0, 3), (0, 2, 1), (0, 1, 45)])


WEATHER = """sunny,85,85,0,no sunny,80,90,1,no overcast,83,86,0,yes rainy,70,96,0,yes rainy,68,80,0,yes
rainy,65,70,1,no overcast,64,65,1,yes sunny,72,95,0,no sunny,69,70,0,yes rainy,75,80,0,yes sunny,75,70,1,yes
overcast,72,90,1,yes overcast,81,75,0,yes rainy,71,91,1,no"""


def test_quinlans_weather_tree_with_nominal_features_is_j48s():
    """Weka 3.6.14's J48 on weather.numeric (outlook, windy nominal) prints:

    outlook = sunny
    |   humidity <= 75: yes (2.0)
    |   humidity > 75: no (3.0)
    outlook = overcast: yes (4.0)
    outlook = rainy
    |   windy = TRUE: no (2.0)
    |   windy = FALSE: yes (3.0)
    """
    rows = [r.split(",") for r in WEATHER.split()]
    codes = {"sunny": 0, "overcast": 1, "rainy": 2}
    X = pd.DataFrame({"outlook": [codes[r[0]] for r in rows], "temperature": [float(r[1]) for r in rows],
                      "humidity": [float(r[2]) for r in rows], "windy": [int(r[3]) for r in rows]})
    y = np.array([r[4] for r in rows])
    clf = C45Classifier(laplace=False, categorical_features=["outlook", "windy"]).fit(X, y)
    assert clf.n_leaves_ == 5 and clf.nominal_.tolist() == [True, False, False, True]
    tree = clf.tree_
    assert (clf.predict(X) == y).all()                                            # J48's tree has no error
    by_leaf = sorted(map(tuple, tree.value[tree.is_leaf].tolist()))
    assert by_leaf == sorted([(0, 2), (3, 0), (0, 4), (2, 0), (0, 3)])           # classes_ = [no, yes]
    assert set(tree.feature[~tree.is_leaf].tolist()) == {0, 2, 3}


def test_a_missing_nominal_value_goes_down_every_branch_with_the_known_shares():
    X = np.array([[0.0], [0], [1], [1], [1], [2], [2], [2], [2], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 0])
    clf = C45Classifier(min_samples_leaf=1, pruning=False, laplace=False, categorical_features=[0]).fit(X, y)
    assert clf.n_leaves_ == 3
    proba = clf.predict_proba([[np.nan]])[0]
    shares = np.array([2, 3, 4]) / 9                            # known weights of the three values
    leaves = clf.tree_.value[clf.tree_.is_leaf]
    want = sum(s * leaf / leaf.sum() for s, leaf in zip(shares, leaves))
    np.testing.assert_allclose(proba, want)
