"""TAOClassifier and TMOClassifier as a user meets them; MIP estimators starting from TAO and TMO."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.tree import DecisionTreeClassifier

from optitrees import (LossOptimalTreeClassifier, OCTClassifier, OCTHClassifier, OLCTClassifier, TAOClassifier,
                       TMOClassifier)
from _support import fit_quiet


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer(as_frame=True)
    return data.data.iloc[:300], data.target.iloc[:300].map({0: "malignant", 1: "benign"}).to_numpy()


@pytest.mark.parametrize("oblique", [False, True])
def test_tao_classifier_improves_cart(cancer, oblique):
    X, y = cancer
    clf = TAOClassifier(max_depth=3, oblique=oblique, alpha=0.001, random_state=0).fit(X, y)
    assert clf.objective_ <= clf.start_objective_
    assert set(clf.predict(X)) <= set(clf.classes_) and clf.predict_proba(X).shape == (300, 2)
    errors = (clf.predict(X) != y).sum()
    L_hat = min((y == c).sum() for c in clf.classes_)
    complexity = clf.tree_.n_features_used() if oblique else clf.tree_.n_splits()
    assert clf.objective_ == pytest.approx(errors / L_hat + 0.001 * complexity)
    assert list(clf.feature_names_in_) == list(X.columns)


def test_weighted_objective_is_the_weighted_errors_of_the_returned_tree(cancer):
    X, y = cancer
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    for clf in (TAOClassifier(max_depth=2, alpha=0.01), TMOClassifier(max_depth=2, n_estimators=6, random_state=0)):
        clf.fit(X, y, sample_weight=w)
        totals = np.array([w[y == c].sum() for c in clf.classes_])
        expected = w @ (clf.predict(X) != y) / (totals.sum() - totals.max()) + clf.alpha * clf.tree_.n_splits()
        assert clf.objective_ == pytest.approx(expected, rel=1e-12)


def test_tmo_classifier_is_reproducible_and_reports_its_evolution():
    X, y = load_iris(return_X_y=True)
    a = TMOClassifier(max_depth=2, n_estimators=8, n_generations=2, random_state=3, cart_check_folds=0).fit(X, y)
    b = TMOClassifier(max_depth=2, n_estimators=8, n_generations=2, random_state=3, n_jobs=2,
                      cart_check_folds=0).fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X)) and a.fitness_history_ == b.fitness_history_
    assert len(a.fitness_history_) == 3 and a.fitness_history_[-1] == pytest.approx((a.predict(X) == y).mean())
    assert a.cart_check_ is None and "cart check" not in a.fit_report_.stages


def _noisy(n=160, seed=0):
    from sklearn.datasets import make_classification

    return make_classification(n, 6, n_informative=2, flip_y=0.3, random_state=seed)


def test_tmo_compares_its_trees_with_carts_on_held_out_folds():
    """The check's CART column by hand: CART fitted on three of four stratified folds (the fit's seed), its
    accuracy on the fourth; the search is returned when its mean is at least CART's."""
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    X, y = _noisy()
    clf = TMOClassifier(max_depth=2, n_estimators=6, n_generations=1, random_state=5).fit(X, y)
    check = clf.cart_check_
    by_hand = []
    for train, test in StratifiedKFold(4, shuffle=True, random_state=5).split(X, y):
        cart = DecisionTreeClassifier(max_depth=2, random_state=5).fit(X[train], y[train])
        by_hand.append((cart.predict(X[test]) == y[test]).mean())
    assert check["folds_scored"] == 4
    assert np.allclose(check["held_out_accuracy_per_fold"][:, 0], by_hand)
    table = check["held_out_accuracy_per_fold"]
    cart_mean, tmo_mean = table.mean(axis=0)
    assert (check["baseline_mean_held_out_accuracy"], check["search_mean_held_out_accuracy"]) == \
        pytest.approx((cart_mean, tmo_mean))
    # the fit's decision follows the fold means: TMO unless CART held out better
    assert clf.fit_report_.method == ("tmo" if tmo_mean >= cart_mean else "cart")
    assert (clf.fitness_history_ == []) == (tmo_mean < cart_mean)
    assert "cart check" in clf.fit_report_.stages


def test_tmo_returns_carts_tree_when_cart_holds_out_better(monkeypatch):
    import optitrees.estimators.search._tmo as tmo_module
    from optitrees.algorithms.local_search.baseline_check import BaselineCheck
    from sklearn.tree import DecisionTreeClassifier

    X, y = _noisy()
    lost = BaselineCheck(0.75, 0.70, 4, np.array([[0.75, 0.70]] * 4))
    monkeypatch.setattr(tmo_module, "check_against_baseline", lambda *args, **kwargs: lost)
    clf = TMOClassifier(max_depth=3, n_estimators=6, n_generations=1, random_state=0).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert np.array_equal(clf.predict(X), cart.predict(X))
    assert clf.fit_report_.method == "cart" and clf.fitness_history_ == [] and not clf.cart_check_["keeps_search"]
    assert any("CART's tree is returned" in note for note in clf.fit_report_.notes)
    errors = (clf.predict(X) != y).sum()
    assert clf.objective_ == pytest.approx(errors / min(np.bincount(y)))      # the returned tree's objective


def test_bad_parameters_are_named():
    X, y = load_iris(return_X_y=True)
    for est, match in [(TAOClassifier(max_depth=0), "max_depth"), (TMOClassifier(cross_rate=1.5), "cross_rate"),
                       (TMOClassifier(n_estimators=1), "n_estimators"),
                       (TMOClassifier(cart_check_folds=1), "cart_check_folds"),
                       (TAOClassifier(forbidden_features=[0, 1, 2, 3]), "every feature is forbidden")]:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


@pytest.mark.parametrize("warm_start", ["greedy", "tao", "tmo", "best", True, False])
def test_mip_estimators_start_from_greedy_tao_or_tmo(cancer, warm_start):
    X, y = cancer
    X = X.iloc[:150, :6]
    y = y[:150]
    # no held-out budget stage, and a share of 10 s for the starts: TMO begins after TAO even on a loaded machine
    clf = fit_quiet(OLCTClassifier(max_depth=2, warm_start=warm_start, max_features=None, time_limit=10,
                                   solver_options={"mip_max_nodes": 5}), X, y)
    starts = clf.start_objectives_
    kind = {True: "best", False: "greedy"}.get(warm_start, warm_start)     # True: the default, "best"
    assert set(starts) == {"greedy", *({"tao"} if kind in ("tao", "best") else set()),
                           *({"tmo"} if kind in ("tmo", "best") else set())}
    assert clf.greedy_objective_ == starts["greedy"] and clf.warm_start_objective_ == min(starts.values())
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9
    assert clf.method_ in {"greedy", "tao", "tmo", "mip", "mip+tao", "mip neighbourhood"}
    r = clf.fit_report_
    assert clf.objective_ == r.objectives["returned"]


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
def test_a_depth_1_loss_optimal_tree_starts_from_its_greedy_fit_alone(cancer, loss):
    """One node, no split: TAO's only step refits the greedy node on all points, and so does TMO's on every
    individual; the fit computes the greedy start alone, which TAO leaves as it is."""
    from optitrees.algorithms.loss_optimal.greedy import greedy_tree
    from optitrees.algorithms.loss_optimal.tao_loss_optimal import tao_loss_optimal
    from optitrees.formulations.loss_optimal.solution import objective

    X, y = cancer
    X, y = X.iloc[:150, :6], y[:150]
    clf = fit_quiet(LossOptimalTreeClassifier(max_depth=1, loss=loss, warm_start="best", time_limit=30,
                                              solver_options={"mip_max_nodes": 5}), X, y)
    assert set(clf.start_objectives_) == {"greedy"}
    problem = clf.build_formulation(X, y).problem
    fit = clf._fitter(problem)
    greedy = greedy_tree(problem, fit)
    assert objective(problem, tao_loss_optimal(greedy, problem, fit)) == pytest.approx(objective(problem, greedy),
                                                                                     rel=1e-12)


def test_oct_from_tmo_and_octh_refined_by_tao():
    X, y = load_iris(return_X_y=True)
    oct_ = fit_quiet(OCTClassifier(max_depth=3, min_samples_leaf=3, warm_start="tmo", time_limit=5,
                                   solver_options={"mip_max_nodes": 0}), X, y)
    assert "tmo" in oct_.start_objectives_ and oct_.objective_ <= min(oct_.start_objectives_.values()) + 1e-12
    octh = fit_quiet(OCTHClassifier(max_depth=2, alpha=0.01, time_limit=20, warm_start="tao",
                                    solver_options={"mip_max_nodes": 5}), X, y)
    r = octh.fit_report_
    assert octh.objective_ <= r.objectives["solver"] + 1e-12 and octh.objective_ <= octh.greedy_objective_


@pytest.mark.parametrize("scale", [1e-12, 1e12])
def test_features_at_any_scale_give_the_same_predictions(scale):
    # scikit-learn's trees inside (the CART start, TMO's forest) treat a range under 1e-7 as constant: both
    # learn on features whose span is under 1 scaled up by powers of two and report thresholds in the user's units
    X, y = load_breast_cancer(return_X_y=True)
    for est in (TAOClassifier(max_depth=2), TMOClassifier(max_depth=2, n_estimators=10, random_state=0)):
        reference = clone(est).fit(X, y).predict(X)
        scaled = clone(est).fit(X * scale, y)
        assert np.array_equal(scaled.predict(X * scale), reference)
        assert scaled.tree_.is_axis_aligned


def test_tao_under_monotonic_cst_returns_a_proved_monotone_tree_no_worse_than_cart_relabelled():
    from optitrees.monotonicity import check_monotonic, monotone_relabel

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    score = np.where(X[:, 0] < 0.5, 1.5 * X[:, 0] + 0.25, 1.5 - 2.0 * X[:, 0]) - 0.5 * X[:, 1] + rng.normal(0, .3, 300)
    y = (score > 0).astype(int)
    free = TAOClassifier(max_depth=3).fit(X, y)
    assert not check_monotonic(free, [1, -1, 0]).keeps
    clf = TAOClassifier(max_depth=3, monotonic_cst={"x0": 1, "x1": -1}).fit(X, y)
    assert check_monotonic(clf, [1, -1, 0]).proven
    assert clf.fit_report_.monotonicity["keeps"] and clf.fit_report_.monotonicity["exact"]
    errors = (clf.predict(X) != y).sum()
    L_hat = len(y) - np.bincount(y).max()
    assert clf.objective_ == pytest.approx(errors / L_hat)
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    from optitrees.trees import from_sklearn

    relabelled = monotone_relabel(from_sklearn(cart), np.array([1, -1, 0]), X, y)
    assert errors <= (relabelled.predict(X) != y).sum()
    with pytest.raises(ValueError, match="axis-aligned splits"):
        TAOClassifier(max_depth=2, oblique=True, monotonic_cst=[1, 0, 0]).fit(X, y)
