"""feature_costs / max_feature_cost on every MIP classifier: the returned model reads features that fit in the
budget (checked from the model itself, and by scrambling the columns it does not read), the block is in the
formulation and its files, the optimum under a budget is the brute-force one, bad input is named."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.utils._param_validation import InvalidParameterError

from optitrees import (GeneralizedRiskScoreClassifier, LossOptimalTreeClassifier, MARGOTClassifier, OCTClassifier,
                       OCTHClassifier, OLCTClassifier, RiskScoreClassifier)
from optitrees.estimators import FitOutcome
from optitrees.persistence import load_model, save_model
from _oct_brute import brute_force_oct
from _support import NODES, ROOT, fit_quiet

COSTS = [4.0, 1.0, 2.0, 1.0, 3.0]
BUDGET = 3.0


def _data(binary=False, n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + X[:, 4] - 0.6 * X[:, 2] + rng.normal(0, 0.5, n) > 0).astype(int)   # the dear features matter
    return ((X > 0).astype(float) if binary else X), y


def _read(model):
    if getattr(model, "tree_", None) is not None:
        tree = model.tree_
        nodes = ~tree.is_leaf if tree.leaf_model.value == "label" else np.ones(tree.n_nodes, bool)
        return (tree.weights[nodes] != 0).any(axis=0)
    card = model.score_card_
    read = np.zeros(5, bool)
    read[card.features[card.points != 0]] = True
    return read


CASES = [
    (OCTClassifier(max_depth=2, time_limit=20, warm_start="tao", solver_options=NODES), False),
    (OCTHClassifier(max_depth=1, time_limit=20, solver_options=ROOT, warm_start="tao"), False),
    (OLCTClassifier(max_depth=2, time_limit=20, solver_options=ROOT, warm_start="tao"), False),
    (MARGOTClassifier(max_depth=2, time_limit=20, solver_options=ROOT, warm_start="tao"), False),
    (LossOptimalTreeClassifier(max_depth=2, loss="hinge", time_limit=20, solver_options=ROOT, warm_start="tao"),
     False),
    (RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, time_limit=20), True),
    (RiskScoreClassifier(n_rules=3, min_score=-3, max_score=3, method="tangents", time_limit=20,
                         solver_options=NODES), True),
    (GeneralizedRiskScoreClassifier(n_rules=2, time_limit=5), False),
    (GeneralizedRiskScoreClassifier(n_rules=2, method="tangents", time_limit=20, solver_options=NODES), False),
]


@pytest.mark.parametrize("estimator,binary", CASES, ids=lambda c: type(c).__name__ if not isinstance(c, bool) else "")
def test_every_mip_classifier_keeps_the_budget(estimator, binary):
    X, y = _data(binary)
    clf = fit_quiet(estimator.set_params(feature_costs=COSTS, max_feature_cost=BUDGET), X, y)
    read = _read(clf)
    cost = float(np.dot(COSTS, read))
    assert cost <= BUDGET + 1e-9
    report = clf.fit_report_.feature_cost
    assert report["cost"] == pytest.approx(cost) and report["budget"] == BUDGET and report["keeps"]
    assert report["features"] == [f"x{j}" for j in np.flatnonzero(read)]
    assert "feature cost" in str(clf.fit_report_)
    # the columns the model does not read change no prediction
    scrambled = X.copy()
    scrambled[:, ~read] = np.random.default_rng(1).permutation(scrambled[:, ~read])
    np.testing.assert_array_equal(clf.predict(scrambled), clf.predict(X))


def test_without_a_budget_the_dear_features_are_read():
    """The data need x0 and x4 (cost 7 together): without the budget OCT reads a feature the budget forbids."""
    X, y = _data()
    free = fit_quiet(OCTClassifier(max_depth=2, time_limit=20, feature_costs=COSTS), X, y)
    assert free.fit_report_.feature_cost["budget"] is None
    assert free.fit_report_.feature_cost["cost"] > BUDGET


def test_oct_optimum_under_the_budget_is_the_brute_force_one():
    """Depth 1 on tiny data, no time limit: the fit is proven optimal (ConTree's optimum reads a feature over the
    budget, so the MIP decides) and its objective is the best stump on an affordable feature."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(14, 3)).astype(float)
    y = (X[:, 0] >= 2).astype(int)
    y[[1, 5]] = 1 - y[[1, 5]]
    costs, budget = [5.0, 1.0, 1.0], 2.0
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=None, feature_costs=costs, max_feature_cost=budget), X, y)
    assert clf.fit_report_.outcome is FitOutcome.PROVEN_OPTIMAL
    L_hat = len(y) - np.bincount(y).max()
    best = min(brute_force_oct(X[:, list(s)], y, 1, 0.0, 1)
               for k in (1, 2) for s in itertools.combinations(range(3), k) if sum(costs[j] for j in s) <= budget)
    assert clf.objective_ == pytest.approx(best, abs=1e-7)
    assert (clf.predict(X) != y).sum() / L_hat == pytest.approx(best, abs=1e-7)
    assert not _read_tree(clf)[0]
    assert any("over the budget" in note for note in clf.fit_report_.notes)


def _read_tree(clf):
    return (clf.tree_.weights[~clf.tree_.is_leaf] != 0).any(axis=0)


def test_the_block_is_in_the_formulation_and_its_files(tmp_path):
    X, y = _data()
    est = OCTHClassifier(max_depth=1, feature_costs=dict(zip([f"x{j}" for j in range(5)], COSTS)),
                         max_feature_cost=BUDGET)
    f = est.build_formulation(X, y)
    assert {"feature_read", "reads_delta", "feature_cost"} <= set(f.variables) | set(f.constraints)
    assert f.constraints["feature_cost"].upper.tolist() == [BUDGET]
    f.write(tmp_path / "m.lp")
    text = (tmp_path / "m.lp").read_text()
    assert "feature_cost" in text and "feature_read(x4)" in text
    assert "feature_read" not in set(OCTHClassifier(max_depth=1, feature_costs=COSTS).build_formulation(X, y).variables)


def test_one_vs_rest_trees_share_the_budget():
    X, y = load_iris(return_X_y=True)
    clf = fit_quiet(LossOptimalTreeClassifier(max_depth=1, time_limit=30, solver_options=ROOT, warm_start="tao",
                                              feature_costs=[1.0, 1.0, 2.0, 2.0], max_feature_cost=3.0), X, y)
    read = np.any([(est.tree_.weights != 0).any(axis=0) for est in clf.estimators_], axis=0)
    assert np.dot([1.0, 1.0, 2.0, 2.0], read) <= 3.0
    assert clf.fit_report_.feature_cost["keeps"]
    assert "the budget affords together" in clf.fit_report_.restriction
    assert clf.fit_report_.outcome is not FitOutcome.PROVEN_OPTIMAL


def test_the_report_and_parameters_survive_saving(tmp_path):
    X, y = _data()
    clf = fit_quiet(OCTClassifier(max_depth=1, time_limit=20, feature_costs={"x0": 4.0, "x4": 3.0},
                                  max_feature_cost=3.0), X, y)
    save_model(clf, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.fit_report_.feature_cost == clf.fit_report_.feature_cost
    assert loaded.get_params()["feature_costs"] == {"x0": 4.0, "x4": 3.0}
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))


@pytest.mark.parametrize("params,error,message", [
    (dict(feature_costs=[1.0, 2.0], max_feature_cost=1.0), ValueError, "5 features"),
    (dict(feature_costs={"age": 1.0}, max_feature_cost=1.0), ValueError, "do not have"),
    (dict(feature_costs=[1.0, -1.0, 1.0, 1.0, 1.0], max_feature_cost=1.0), ValueError, ">= 0"),
    (dict(max_feature_cost=-1.0), InvalidParameterError, "max_feature_cost"),
    (dict(feature_costs="cheap"), InvalidParameterError, "feature_costs"),
])
def test_bad_costs_are_named_before_any_solve(params, error, message):
    X, y = _data()
    with pytest.raises(error, match=message):
        OCTClassifier(max_depth=1, time_limit=5, **params).fit(X, y)


def test_a_score_whose_rules_cannot_fit_in_the_budget_is_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="2 cheapest allowed cost 2"):
        GeneralizedRiskScoreClassifier(n_rules=2, method="tangents", feature_costs=COSTS,
                                       max_feature_cost=1.5).fit(X, y)
