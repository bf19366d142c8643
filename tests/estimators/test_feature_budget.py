"""A budget of features per split (3.14's HFS) on every oblique and logistic estimator, kept by the MIP, the
starts, TAO and the refits; near-zero weights dropped from the returned model."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from optitrees import (LossOptimalTreeClassifier, MARGOTClassifier, OCTHClassifier, OLCTClassifier, OLCTClassifierCV,
                       TAOClassifier)
from optitrees.algorithms.feature_order import l1_entry_order
from optitrees.algorithms.fold_search import fewest_non_inferior, fewest_within
from optitrees.algorithms.node_fit import fit_l1_logistic, fit_sparse_l1_logistic, top_features
from optitrees.estimators import _auto_budget
from optitrees.formulations.loss_optimal.model import LossOptimalSpec


def tree_wide_choice(results) -> int:
    """The candidate the tree-wide rule takes from a fit's ``total_budget_results_``."""
    return fewest_non_inferior(results["mean_held_out_balanced_accuracy"], 0, _auto_budget.TOTAL_MARGIN,
                               _auto_budget.features(_auto_budget.TOTAL_BUDGETS),
                               results["held_out_balanced_accuracy_per_fold"])


@pytest.fixture
def choice_on_few_rows(monkeypatch):
    """The held-out choices (the loss-optimal trees' budget per hyperplane, every tree-wide budget) made on this
    file's 120 rows (by default they need ``MIN_ROWS_TO_CHOOSE``, and on fewer rows "auto" means no budget: tested
    in ``test_on_too_few_rows_auto_means_no_budget``)."""
    monkeypatch.setattr(_auto_budget, "MIN_ROWS_TO_CHOOSE", 50)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(y), 120, replace=False)
    return X[rows], y[rows]


def _features_per_node(tree):
    return np.count_nonzero(tree.weights, axis=1)


def _the_rule_holds(results, chosen):
    """The budget chosen is within a point of the best held-out balanced accuracy, and every budget of fewer features is
    not (no budget counting as the most)."""
    mean, budgets = results["mean_held_out_balanced_accuracy"], results["max_features"]
    size = [np.inf if b is None else b for b in budgets]
    k = budgets.index(chosen)
    assert mean[k] >= np.nanmax(mean) - 0.01, results
    assert all(mean[j] < np.nanmax(mean) - 0.01 for j in range(len(budgets)) if size[j] < size[k]), results


def test_sparse_fit_keeps_the_largest_terms_and_refits(cancer):
    X, y = cancer
    Xs = (X - X.mean(0)) / X.std(0)
    z = np.where(y == 1, 1.0, -1.0)
    dense, _ = fit_l1_logistic(Xs, z, 10.0)
    assert np.count_nonzero(dense) > 3
    w, b = fit_sparse_l1_logistic(Xs, z, 10.0, max_features=3)
    keep = top_features(dense, Xs, 3)
    assert np.count_nonzero(w) <= 3 and np.all(keep[w != 0])
    w_refit, b_refit = fit_l1_logistic(Xs[:, keep], z, 10.0)
    assert np.allclose(w[keep], w_refit) and b == pytest.approx(b_refit)
    # within the budget the fit is the l1 fit itself
    same, b_same = fit_sparse_l1_logistic(Xs, z, 10.0, max_features=Xs.shape[1])
    assert np.array_equal(same, dense)


def test_top_features_ranks_by_term_and_never_keeps_a_zero():
    X = np.array([[0.0, 0.0, 0.0], [1.0, 10.0, 1.0]])
    keep = top_features(np.array([1.0, 0.5, 0.0]), X, 2)       # terms 0.5, 2.5, 0
    assert keep.tolist() == [True, True, False]
    assert top_features(np.array([1.0, 0.5, 0.0]), X, 1).tolist() == [False, True, False]


@pytest.mark.parametrize("budget", [1, 2])
def test_olct_keeps_its_budget_everywhere(cancer, budget):
    X, y = cancer
    clf = OLCTClassifier(max_depth=2, max_features=budget, time_limit=20, random_state=0, threads=1,
                         solver_options={"mip_max_nodes": 50}).fit(X, y)
    assert np.all(_features_per_node(clf.tree_) <= budget)
    assert "l0_budget" in clf.formulation_summary_
    for name, objective in clf.fit_report_.objectives.items():
        assert objective >= clf.objective_ - 1e-9, name
    assert np.mean(clf.predict(X) == y) > 0.85


def test_olct_budget_and_univariate_conflict(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="univariate=True means one feature"):
        OLCTClassifier(max_depth=1, univariate=True, max_features=3, time_limit=5).fit(X, y)
    # both saying one feature is fine
    clf = OLCTClassifier(max_depth=1, univariate=True, max_features=1, time_limit=5, random_state=0).fit(X, y)
    assert np.all(_features_per_node(clf.tree_) <= 1)


# ------------------------------------------------------------- max_features="auto", OLCT's default
def test_olct_chooses_its_budget_on_held_out_folds_by_default(cancer, choice_on_few_rows):
    X, y = cancer
    X = X[:, :12]
    clf = OLCTClassifier(max_depth=2, time_limit=60, random_state=0, warm_start="tao",
                         solver_options={"mip_max_nodes": 5})
    assert clf.max_features == "auto"
    clf.fit(X, y)
    results = clf.budget_results_
    assert results["max_features"] == list(_auto_budget.BUDGETS) and results["folds_scored"] == 4
    # the rule: the fewest features within a point of the best held-out accuracy
    _the_rule_holds(results, None if clf.max_features_ is None else clf.max_features_[0])
    assert clf.max_features_ is not None, results        # on these data a few features keep the accuracy
    # the whole fit keeps it: every hyperplane (splits and leaf models), the MIP's budget row, the report
    assert np.all(_features_per_node(clf.tree_) <= clf.max_features_[0])
    assert "l0_budget" in clf.formulation_summary_
    assert clf.fit_report_.checks["max_features"] == clf.max_features_
    assert clf.fit_report_.stages["held-out budget"] > 0
    # and is OLCT with that budget given: the same greedy start
    given = OLCTClassifier(max_depth=2, max_features=clf.max_features_[0], time_limit=60, random_state=0,
                           warm_start="tao", solver_options={"mip_max_nodes": 5}).fit(X, y)
    assert clf.fit_report_.starts["greedy"] == pytest.approx(given.fit_report_.starts["greedy"], rel=1e-12)
    assert not hasattr(given, "budget_results_") and given.max_features_ == clf.max_features_


def test_no_budget_and_univariate_choose_nothing(cancer):
    X, y = cancer
    dense = OLCTClassifier(max_depth=1, max_features=None, time_limit=10, random_state=0).fit(X, y)
    assert dense.max_features_ is None and not hasattr(dense, "budget_results_")
    assert "held-out budget" not in dense.fit_report_.stages and "l0_budget" not in dense.formulation_summary_
    axis = OLCTClassifier(max_depth=1, univariate=True, time_limit=10, random_state=0).fit(X, y)
    assert axis.max_features_ == [1] and not hasattr(axis, "budget_results_")


def test_a_choice_with_no_time_uses_the_fallback_budget(cancer, monkeypatch, choice_on_few_rows):
    X, y = cancer
    monkeypatch.setattr(_auto_budget, "SHARE", 1e-9)
    clf = OLCTClassifier(max_depth=1, time_limit=10, random_state=0).fit(X, y)
    results = clf.budget_results_
    assert results["folds_scored"] == 0 and np.all(np.isnan(results["mean_held_out_balanced_accuracy"]))
    assert clf.max_features_ == [_auto_budget.FALLBACK]
    assert np.all(_features_per_node(clf.tree_) <= _auto_budget.FALLBACK)


def test_auto_budget_on_the_general_estimator_and_its_conflicts(cancer, choice_on_few_rows):
    X, y = cancer
    clf = LossOptimalTreeClassifier(max_depth=1, loss="hinge", max_features="auto", time_limit=10,
                                    random_state=0).fit(X, y)
    chosen = None if clf.max_features_ is None else clf.max_features_[0]
    assert chosen in _auto_budget.BUDGETS and clf.budget_results_["folds_scored"] == 4
    # the per-fold scores are those the means are of, and the choice is the rule's on them
    results = clf.budget_results_
    table, scored = results["held_out_balanced_accuracy_per_fold"], results["candidates_scored"]
    assert table.shape == (4, scored)
    np.testing.assert_allclose(table.mean(axis=0), results["mean_held_out_balanced_accuracy"][:scored], rtol=1e-12)
    rule = fewest_within(table.mean(axis=0), _auto_budget.TOLERANCE, _auto_budget.features(_auto_budget.BUDGETS),
                         table)
    assert chosen == _auto_budget.BUDGETS[rule]
    assert np.all(_features_per_node(clf.tree_) <= (X.shape[1] if chosen is None else chosen))
    with pytest.raises(ValueError, match="max_features='auto' chooses an HFS budget"):
        LossOptimalTreeClassifier(max_depth=1, feature_selection="soft", alpha=1.0, max_features="auto").fit(X, y)
    with pytest.raises(ValueError, match="max_features"):
        OLCTClassifier(max_features="some").fit(X, y)


def test_the_cv_estimator_chooses_C_then_the_budget_with_it(cancer, choice_on_few_rows):
    X, y = cancer
    clf = OLCTClassifierCV(max_depth=1, Cs=(0.1, 1.0), time_limit=30, random_state=0).fit(X, y)
    assert clf.cv_results_["folds_scored"] == 4 and clf.budget_results_["folds_scored"] == 4
    assert np.all(_features_per_node(clf.tree_) <= clf.max_features_[0])
    olct = OLCTClassifier(max_depth=1, C=clf.C_, time_limit=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(olct.budget_results_["mean_held_out_balanced_accuracy"],
                               clf.budget_results_["mean_held_out_balanced_accuracy"], rtol=1e-12)
    assert olct.max_features_ == clf.max_features_


def test_cv_estimator_takes_the_budget(cancer):
    X, y = cancer
    clf = OLCTClassifierCV(max_depth=1, Cs=(0.1, 1.0), max_features=2, time_limit=10, random_state=0).fit(X, y)
    assert np.all(_features_per_node(clf.tree_) <= 2)


def test_a_budget_given_alone_is_the_hard_budget():
    spec = LossOptimalSpec.create(depth=2, loss="hinge", regularizer="l2", max_features=3)
    assert spec.feature_selection == "hard" and spec.budget.tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="feature_selection='soft' prices features by alpha"):
        LossOptimalSpec.create(depth=1, feature_selection="soft", alpha=1.0, max_features=2)


def test_margot_budget_without_feature_selection(cancer):
    X, y = cancer
    clf = MARGOTClassifier(max_depth=1, max_features=2, time_limit=10, random_state=0).fit(X[:, :8], y)
    assert np.all(_features_per_node(clf.tree_) <= 2)
    assert "l0_budget" in clf.formulation_summary_


@pytest.mark.parametrize("budget", [1, 2])
def test_octh_keeps_its_budget(cancer, budget):
    X, y = cancer
    clf = OCTHClassifier(max_depth=2, max_features=budget, time_limit=20, random_state=0,
                         solver_options={"mip_max_nodes": 50}).fit(X[:80, :10], y[:80])
    assert np.all(_features_per_node(clf.tree_) <= budget)
    assert "l0_budget" in clf.formulation_summary_


def test_octh_rejects_a_bad_budget(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="max_features"):
        OCTHClassifier(max_features=0, time_limit=5).fit(X, y)


@pytest.mark.parametrize("budget", [1, 3])
def test_tao_oblique_keeps_its_budget(cancer, budget):
    X, y = cancer
    clf = TAOClassifier(max_depth=2, oblique=True, max_features=budget, random_state=0).fit(X, y)
    assert np.all(_features_per_node(clf.tree_) <= budget)
    assert clf.objective_ <= clf.start_objective_




def test_tao_oblique_chooses_its_budget_on_held_out_folds_by_default(cancer):
    X, y = cancer
    clf = TAOClassifier(max_depth=2, oblique=True, random_state=0).fit(X, y)
    assert clf.budget_results_["folds_scored"] == 4 and clf.budget_results_["max_features"] == list(
        _auto_budget.BUDGETS)
    _the_rule_holds(clf.budget_results_, clf.max_features_)
    assert clf.max_features_ is not None and np.all(_features_per_node(clf.tree_) <= clf.max_features_)
    assert clf.fit_report_.stages["held-out budget"] > 0
    # the fit after the choice is TAO with that budget given
    given = TAOClassifier(max_depth=2, oblique=True, max_features=clf.max_features_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(given.tree_.weights, clf.tree_.weights)
    assert given.max_features_ == clf.max_features_ and not hasattr(given, "budget_results_")
    # axis-aligned TAO chooses nothing
    axis = TAOClassifier(max_depth=2, random_state=0).fit(X, y)
    assert not hasattr(axis, "budget_results_") and not hasattr(axis, "max_features_")


def _features_read(tree):
    return set(np.flatnonzero((tree.weights != 0).any(axis=0)).tolist())


@pytest.mark.parametrize("oblique", [True, False])
def test_tao_reads_at_most_its_tree_wide_budget_the_first_features_of_the_l1_path(cancer, oblique):
    X, y = cancer
    first = l1_entry_order(X, y)[:2].tolist()
    clf = TAOClassifier(max_depth=3, oblique=oblique, max_features=3, max_total_features=2, random_state=0).fit(X, y)
    assert clf.max_total_features_ == 2 and _features_read(clf.tree_) <= set(first)
    assert clf.objective_ <= clf.start_objective_ and clf.fit_report_.stages["tree-wide features"] >= 0
    # forbidden features stay out: the budget takes the next ones of the path
    allowed = np.ones(X.shape[1], bool)
    allowed[first[0]] = False
    kept = l1_entry_order(X, y, allowed=allowed)[:2].tolist()
    clf = TAOClassifier(max_depth=3, oblique=oblique, max_features=3, max_total_features=2, random_state=0,
                        forbidden_features=[first[0]]).fit(X, y)
    assert _features_read(clf.tree_) <= set(kept) and first[0] not in _features_read(clf.tree_)
    # a budget of every feature changes nothing
    every = TAOClassifier(max_depth=3, oblique=oblique, max_features=3, max_total_features=X.shape[1],
                          random_state=0).fit(X, y)
    none = TAOClassifier(max_depth=3, oblique=oblique, max_features=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(every.tree_.weights, none.tree_.weights)
    assert none.max_total_features_ is None and not hasattr(none, "total_budget_results_")


def test_tao_chooses_its_tree_wide_budget_on_held_out_folds(cancer, choice_on_few_rows):
    X, y = cancer
    clf = TAOClassifier(max_depth=2, oblique=True, max_features=3, max_total_features="auto", random_state=0)
    clf.fit(X, y)
    results = clf.total_budget_results_
    assert results["max_total_features"] == list(_auto_budget.TOTAL_BUDGETS) and results["folds_scored"] == 4
    k = tree_wide_choice(results)
    assert clf.max_total_features_ == _auto_budget.TOTAL_BUDGETS[k]
    assert clf.fit_report_.stages["held-out tree-wide budget"] > 0
    if clf.max_total_features_ is not None:
        assert len(_features_read(clf.tree_)) <= clf.max_total_features_
    # the fit after the choice is TAO with that budget given
    given = TAOClassifier(max_depth=2, oblique=True, max_features=3, max_total_features=clf.max_total_features_,
                          random_state=0).fit(X, y)
    np.testing.assert_array_equal(given.tree_.weights, clf.tree_.weights)


def test_the_tree_wide_order_is_fitted_on_a_stratified_sample_of_at_most_order_rows(cancer, monkeypatch):
    X, y = cancer
    seen = []
    order = _auto_budget.l1_entry_order
    monkeypatch.setattr(_auto_budget, "l1_entry_order", lambda X, y, *a, **kw: (seen.append(np.asarray(y)),
                                                                                  order(X, y, *a, **kw))[1])
    monkeypatch.setattr(_auto_budget, "ORDER_ROWS", 50)
    kept = _auto_budget.first_features(X, y, None, np.ones(X.shape[1], bool), 3)
    assert kept.sum() == 3 and len(seen) == 1 and len(seen[0]) == 50
    # stratified: each class keeps its share of the rows, to a row
    assert abs(seen[0].mean() - y.mean()) <= 1 / 50
    monkeypatch.setattr(_auto_budget, "ORDER_ROWS", len(y))
    _auto_budget.first_features(X, y, None, np.ones(X.shape[1], bool), 3)
    assert len(seen[1]) == len(y)


@pytest.mark.parametrize("bad", [0, -2, "all", 2.5])
def test_tao_rejects_a_bad_tree_wide_budget(cancer, bad):
    X, y = cancer
    with pytest.raises(ValueError, match="max_total_features"):
        TAOClassifier(max_total_features=bad).fit(X, y)


def test_octh_chooses_its_tree_wide_budget_on_held_out_folds(cancer, choice_on_few_rows):
    X, y = cancer[0][:80, :10], cancer[1][:80]
    clf = OCTHClassifier(max_depth=2, max_features=3, max_total_features="auto", time_limit=60, random_state=0,
                         warm_start="tao", solver_options={"mip_max_nodes": 0}).fit(X, y)
    results = clf.total_budget_results_
    assert results["max_total_features"] == list(_auto_budget.TOTAL_BUDGETS) and results["folds_scored"] == 4
    k = tree_wide_choice(results)
    assert clf.max_total_features_ == _auto_budget.TOTAL_BUDGETS[k]
    if clf.max_total_features_ is not None:
        assert len(_features_read(clf.tree_)) <= clf.max_total_features_
    with pytest.raises(ValueError, match="max_total_features"):
        OCTHClassifier(max_total_features=0).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda **kw: OCTHClassifier(max_features=2, **kw),
    lambda **kw: OLCTClassifier(max_features=3, **kw),
    lambda **kw: MARGOTClassifier(max_features=3, **kw),
    lambda **kw: OLCTClassifierCV(Cs=(0.1, 1.0), max_features=3, **kw),
], ids=["OCTH", "OLCT", "MARGOT", "OLCTCV"])
def test_mip_trees_read_at_most_their_tree_wide_budget_and_the_mip_is_held_to_it(cancer, monkeypatch, make):
    from optitrees.formulations import blocks

    X, y = cancer[0][:80, :10], cancer[1][:80]
    first = l1_entry_order(X, y)[:2].tolist()
    forbidden_in_mip = []
    forbid = blocks.forbid_features
    monkeypatch.setattr(blocks, "forbid_features",
                        lambda f, group, features, **kw: (forbidden_in_mip.append(sorted(features)),
                                                          forbid(f, group, features, **kw))[1])
    clf = make(max_depth=2, max_total_features=2, time_limit=60, random_state=0, warm_start="tao",
               solver_options={"mip_max_nodes": 5}).fit(X, y)
    assert clf.max_total_features_ == 2 and _features_read(clf.tree_) <= set(first)
    # every MIP built fixes w[t, j] = 0 on every other feature (splits and, in OLCT / MARGOT, leaf models)
    assert forbidden_in_mip and all(f == sorted(set(range(10)) - set(first)) for f in forbidden_in_mip)
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-9


def test_olct_chooses_its_tree_wide_budget_with_its_greedy_trees_on_held_out_folds(cancer, choice_on_few_rows):
    X, y = cancer[0][:100], cancer[1][:100]
    clf = OLCTClassifier(max_depth=2, max_features=3, max_total_features="auto", time_limit=60, random_state=0,
                         warm_start="greedy", solver_options={"mip_max_nodes": 0}).fit(X, y)
    results = clf.total_budget_results_
    assert results["max_total_features"] == list(_auto_budget.TOTAL_BUDGETS) and results["folds_scored"] == 4
    k = tree_wide_choice(results)
    assert clf.max_total_features_ == _auto_budget.TOTAL_BUDGETS[k]
    if clf.max_total_features_ is not None:
        assert len(_features_read(clf.tree_)) <= clf.max_total_features_
    assert clf.fit_report_.stages["held-out tree-wide budget"] > 0
    with pytest.raises(ValueError, match="max_total_features"):
        OLCTClassifier(max_total_features="all").fit(X, y)


def test_octh_chooses_its_budget_on_held_out_folds_by_default(cancer):
    X, y = cancer
    clf = OCTHClassifier(max_depth=2, time_limit=60, random_state=0, warm_start="tao",
                         solver_options={"mip_max_nodes": 20})
    clf.fit(X[:80, :10], y[:80])
    assert clf.budget_results_["folds_scored"] == 4
    _the_rule_holds(clf.budget_results_, clf.max_features_)
    if clf.max_features_ is not None:
        assert np.all(_features_per_node(clf.tree_) <= clf.max_features_) and "l0_budget" in clf.formulation_summary_
    dense = OCTHClassifier(max_depth=1, max_features=None, time_limit=10, random_state=0).fit(X[:80, :10], y[:80])
    assert dense.max_features_ is None and not hasattr(dense, "budget_results_")


def test_regressor_keeps_its_budget_in_splits_and_leaf_models():
    from optitrees import LossOptimalTreeRegressor

    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(50, 5))
    y = np.where(X[:, 0] > 0, X[:, 1] + X[:, 2] + X[:, 3], -X[:, 4]) + 0.05 * rng.normal(size=50)
    reg = LossOptimalTreeRegressor(max_depth=2, lam=0.01, max_features=2, time_limit=20, random_state=0,
                                   solver_options={"mip_max_nodes": 200}).fit(X, y)
    assert np.all(_features_per_node(reg.tree_) <= 2)
    assert reg.objective_ <= reg.start_objective_ + 1e-9
    f = LossOptimalTreeRegressor(max_depth=2, max_features=2).build_formulation(X, y)
    assert np.all(np.asarray(f.constraints["l0_budget"].upper) == 2)


def test_the_choice_fits_on_a_stratified_sample_of_at_most_rows_rows(cancer, monkeypatch):
    y = np.array([0] * 700 + [1] * 300)
    monkeypatch.setattr(_auto_budget, "ROWS", 100)
    rows = _auto_budget.sample(y, 0)
    assert len(rows) == 100 and np.all(np.diff(rows) > 0) and np.bincount(y[rows]).tolist() == [70, 30]
    np.testing.assert_array_equal(rows, _auto_budget.sample(y, 0))
    assert _auto_budget.sample(y[:100], 0) is None
    lonely = np.array([0] * 199 + [1])                        # a class of one row: a uniform sample
    assert len(_auto_budget.sample(lonely, 0)) == 100
    # a fit on more rows chooses on the sample: TAO's folds see 25 rows each
    X, yc = cancer
    seen = []
    real = _auto_budget.scores_on_folds
    monkeypatch.setattr(_auto_budget, "scores_on_folds",
                        lambda y_, *a, **k: seen.append(len(y_)) or real(y_, *a, **k))
    clf = TAOClassifier(max_depth=2, oblique=True, random_state=0).fit(X, yc)
    assert seen == [100] and clf.budget_results_["folds_scored"] == 4


def test_the_loss_optimal_choice_fits_on_at_most_its_own_rows(cancer, monkeypatch, choice_on_few_rows):
    from optitrees.estimators.mip import _loss_optimal_held_out

    X, y = cancer
    seen = []
    real = _loss_optimal_held_out.choose_budget
    monkeypatch.setattr(_loss_optimal_held_out, "choose_budget", lambda problem, *a, **k: seen.append(
        (len(problem.data.y), problem.data.weight.sum())) or real(problem, *a, **k))
    # every row up to LOSS_OPTIMAL_ROWS, beyond the families' ROWS
    monkeypatch.setattr(_auto_budget, "ROWS", 50)
    OLCTClassifier(max_depth=1, time_limit=10, random_state=0).fit(X, y)
    assert seen[-1] == (len(y), pytest.approx(len(y)))
    monkeypatch.setattr(_auto_budget, "LOSS_OPTIMAL_ROWS", 60)
    clf = OLCTClassifier(max_depth=1, time_limit=10, random_state=0).fit(X, y)
    assert seen[-1] == (60, pytest.approx(60)) and clf.budget_results_["folds_scored"] == 4


@pytest.mark.parametrize("make", [
    lambda: TAOClassifier(max_depth=2, oblique=True, max_features=3, max_total_features="auto", random_state=0),
    lambda: OCTHClassifier(max_depth=1, max_features=3, max_total_features="auto", time_limit=None, random_state=0,
                           warm_start="greedy", solver_options={"mip_max_nodes": 5}),
    lambda: OLCTClassifier(max_depth=1, max_total_features="auto", time_limit=None, random_state=0,
                           warm_start="greedy", solver_options={"mip_max_nodes": 5}),
])
def test_on_too_few_rows_auto_means_no_budget(cancer, make):
    """Held-out folds of fewer than ``MIN_ROWS_TO_CHOOSE`` rows choose no budget (tree-wide, and OLCT's per
    hyperplane): every allowed feature, no choice made, and the MIP estimators' plan says the presolve is off."""
    X, y = cancer
    assert len(y) < _auto_budget.MIN_ROWS_TO_CHOOSE
    clf = make().fit(X, y)
    assert clf.max_total_features_ is None and not hasattr(clf, "total_budget_results_")
    if isinstance(clf, OLCTClassifier):
        assert clf.max_features_ is None and not hasattr(clf, "budget_results_")
    plan = getattr(clf.fit_report_, "plan", None)
    if plan is not None:            # the MIP estimators (OCT-H's budget per split is given: nothing to choose)
        assert not plan["held-out budget"]["runs"] and plan["held-out budget"]["share"] is None
