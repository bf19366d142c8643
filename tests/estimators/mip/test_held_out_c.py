"""OLCTClassifierCV: OLCT with its loss weight C chosen on held-out folds inside the fit."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris

from optitrees import OLCTClassifier, OLCTClassifierCV
from optitrees.algorithms.loss_optimal.held_out import choose_C
from _support import ROOT, fit_quiet

#: The greedy start and no refinement: the choice of C and its hand-over to the fit are what these tests check
QUICK = dict(time_limit=20, solver_options=ROOT, warm_start="greedy", refine=False, random_state=0)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:150, :8], y[:150]


@pytest.fixture(scope="module")
def fitted(cancer):
    X, y = cancer
    return fit_quiet(OLCTClassifierCV(max_depth=2, Cs=(0.01, 1.0, 100.0), **QUICK), X, y)


def test_the_chosen_C_is_the_least_held_out_loss_and_the_fit_is_OLCT_with_it(cancer, fitted):
    X, y = cancer
    clf = fitted
    results = clf.cv_results_
    assert results["folds_scored"] == 4
    best = int(np.argmin(results["mean_held_out_loss"]))
    np.testing.assert_array_equal(clf.C_, results["C"][best])
    # the same choice from the algorithm on the fit's own problem
    olct = OLCTClassifier(max_depth=2, C=1.0, **QUICK)
    olct._validate_params()
    problem, _, _ = olct._prepare(X, y)
    choice = choose_C(problem, [0.01, 1.0, 100.0], lambda p: olct._fitter(p), random_state=0)
    np.testing.assert_allclose(choice.mean_loss, results["mean_held_out_loss"], rtol=1e-12)
    # the whole fit used that C: the greedy start's objective and the returned tree's are OLCT's with C_
    same = fit_quiet(OLCTClassifier(max_depth=2, C=clf.C_, **QUICK), X, y)
    assert clf.fit_report_.starts["greedy"] == pytest.approx(same.fit_report_.starts["greedy"], rel=1e-9)
    assert clf.objective_ == pytest.approx(same.objective_, rel=1e-9)
    np.testing.assert_array_equal(clf.predict(X), same.predict(X))
    assert clf.fit_report_.checks["C"] == list(clf.C_) and clf.fit_report_.checks["cv_folds_scored"] == 4
    assert clf.fit_report_.stages["held-out C and budget"] > 0


def test_the_choice_is_part_of_the_time_limit(cancer):
    X, y = cancer
    # a share too small for one greedy tree: no fold is scored and the middle candidate is used
    clf = fit_quiet(OLCTClassifierCV(max_depth=2, Cs=(0.01, 0.5, 100.0), cv_share=1e-9, **QUICK), X, y)
    assert clf.cv_results_["folds_scored"] == 0 and np.all(np.isnan(clf.cv_results_["mean_held_out_loss"]))
    np.testing.assert_array_equal(clf.C_, [0.5, 0.5])


def test_per_layer_candidates_and_a_refit_forgets_the_earlier_choice(cancer):
    X, y = cancer
    clf = OLCTClassifierCV(max_depth=2, Cs=[(0.1, 10.0)], n_folds=2, **QUICK)
    fit_quiet(clf, X, y)
    np.testing.assert_array_equal(clf.C_, [0.1, 10.0])
    fit_quiet(clf.set_params(Cs=(3.0,)), X, y)
    np.testing.assert_array_equal(clf.C_, [3.0, 3.0])
    assert clf.cv_results_["folds_scored"] == 2


@pytest.mark.parametrize("Cs,match", [((), "at least one candidate"), ((1.0, -1.0), r"Cs\[1\]"),
                                      (((1.0, 2.0, 3.0),), r"Cs\[0\] must be a scalar or have one value per layer")])
def test_bad_candidates_are_named_before_any_solve(cancer, Cs, match):
    X, y = cancer
    with pytest.raises(ValueError, match=match):
        OLCTClassifierCV(max_depth=2, Cs=Cs, **QUICK).fit(X, y)


def test_more_classes_choose_C_per_tree():
    X, y = load_iris(return_X_y=True)
    clf = fit_quiet(OLCTClassifierCV(max_depth=1, Cs=(0.01, 1.0), n_folds=2, **QUICK), X[::2], y[::2])
    assert len(clf.estimators_) == 3
    assert all(float(e.C_[0]) in (0.01, 1.0) and e.cv_results_["folds_scored"] == 2 for e in clf.estimators_)
    assert (clf.predict(X) == y).mean() > 0.8


def test_clone_keeps_the_candidates():
    clf = clone(OLCTClassifierCV(Cs=(0.5, 2.0), n_folds=3, cv_share=0.3))
    assert clf.get_params()["Cs"] == (0.5, 2.0) and clf.n_folds == 3 and clf.cv_share == 0.3
