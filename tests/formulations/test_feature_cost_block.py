"""The feature-cost block and FeatureBudget: the MIP optimum under a budget equals the brute-force optimum over
the affordable feature sets; reading, checking and picking the affordable features by hand."""

import itertools

import numpy as np
import pytest

from optitrees.formulations.feature_budget import FeatureBudget, add_feature_budget, features_read
from optitrees.formulations.oct.model import oct, octh
from optitrees.formulations.oct.solution import OCT_FAMILY
from optitrees.scorecard import ScoreCard
from optitrees.solvers import solve
from optitrees.trees import Tree
from _oct_brute import brute_force_oct


def _tiny(seed, n=9, p=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, p)).astype(float) / 5.0
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    return X, y


def _budgeted(f, costs, budget):
    FeatureBudget.create(costs, budget, [str(j) for j in range(len(costs))]).add_to(f, OCT_FAMILY.feature_use(f))
    return f


def _brute_under_budget(X, y, depth, costs, budget):
    """The best tree on any feature set whose costs fit in ``budget`` (brute force per set)."""
    p = X.shape[1]
    best = np.inf
    for k in range(1, p + 1):
        for subset in itertools.combinations(range(p), k):
            if sum(costs[j] for j in subset) <= budget:
                best = min(best, brute_force_oct(X[:, list(subset)], y, depth, 0.0, 1))
    return min(best, brute_force_oct(X[:, :0], y, depth, 0.0, 1)) if p else best


@pytest.mark.parametrize("seed,costs,budget", [(0, [1.0, 1.0, 1.0], 1.0), (1, [3.0, 1.0, 2.0], 3.0),
                                               (2, [2.0, 2.0, 0.0], 2.0)])
def test_oct_optimum_under_a_budget_is_the_brute_force_one(seed, costs, budget):
    X, y = _tiny(seed)
    f = _budgeted(oct(X, y, depth=2), costs, budget)
    res = solve(f, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(_brute_under_budget(X, y, 2, costs, budget), abs=1e-7)
    read = f.values(res.x)["feature_read"] > 0.5
    assert np.dot(costs, read) <= budget + 1e-9
    used = f.values(res.x)["a"].max(axis=0) > 0.5
    assert not np.any(used & ~read)                                   # every feature split on is paid for


def test_octh_budget_reads_no_unpaid_weight():
    X, y = _tiny(3, p=3)
    f = octh(X, y, depth=2)
    FeatureBudget.create([1.0, 1.0, 1.0], 1.0, ["a", "b", "c"]).add_to(f, OCT_FAMILY.feature_use(f))
    res = solve(f, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    w = f.values(res.x)["w"]
    assert np.count_nonzero((np.abs(w) > 1e-7).any(axis=0)) <= 1
    # one feature in all is at most one per split, and as good as the best single-feature OCT-H
    one = solve(octh(X, y, depth=2, max_features=1), mip_gap=0, time_limit=120)
    assert res.objective >= one.objective - 1e-7
    singles = [solve(octh(X[:, [j]], y, depth=2), mip_gap=0, time_limit=120).objective for j in range(3)]
    assert res.objective == pytest.approx(min(singles), abs=1e-6)


def test_bounded_weights_are_linked_both_ways():
    """A weight in [-M, M] reads its feature when it is nonzero on either side: the rows w - M u <= 0 and
    -w - M u <= 0 are there, and the cost row holds the costs."""
    X, y = _tiny(4, p=2)
    from optitrees.formulations.feature_budget import FeatureUse
    f = octh(X, y, depth=1)
    w = f.variables["w"]
    add_feature_budget(f, [FeatureUse(w, 2.5)], [1.0, 4.0], 3.0, ["a", "b"])
    assert {"feature_read", "reads_w", "reads_w_neg", "feature_cost"} <= set(f.variables) | set(f.constraints)
    A = f.matrix.tocsr()
    cost = f.constraints["feature_cost"]
    u = f.variables["feature_read"].columns
    assert A[cost.start, u].toarray().ravel().tolist() == [1.0, 4.0]
    assert cost.upper.tolist() == [3.0]
    pos, neg = f.constraints["reads_w"].start, f.constraints["reads_w_neg"].start
    assert A[pos, w.columns[0, 0]] == 1.0 and A[pos, u[0]] == -2.5
    assert A[pos + 1, w.columns[0, 1]] == 1.0 and A[pos + 1, u[1]] == -2.5
    assert A[neg, w.columns[0, 0]] == -1.0 and A[neg, u[0]] == -2.5


def test_features_read_by_trees_and_cards():
    oblique = Tree(children_left=[1, -1, -1], children_right=[2, -1, -1],
                   weights=[[1.0, 0.0, -2.0, 0.0], [0, 0, 0, 0], [0, 0, 0, 0]], threshold=[0.5, 0, 0],
                   value=[[2, 2], [2, 0], [0, 2]], label=[0, 0, 1])
    assert features_read(oblique, 4).tolist() == [True, False, True, False]
    linear = Tree(children_left=[1, -1, -1], children_right=[2, -1, -1],
                  weights=[[1.0, 0, 0, 0], [0, 0, 0, 3.0], [0, 0.5, 0, 0]], threshold=[0.5, 0, 0],
                  intercept=[0.0, 0.1, -0.2], leaf_model="linear")
    assert features_read(linear, 4).tolist() == [True, True, False, True]         # the leaf models read too
    card = ScoreCard(features=[0, 2, 3], thresholds=[0.5, 0.5, 0.5], greater=[True, True, True],
                     points=[2, 0, -1], intercept=-1.0)
    assert features_read(card, 4).tolist() == [True, False, False, True]          # a rule of 0 points reads nothing
    with pytest.raises(TypeError, match="cannot read"):
        features_read(object(), 4)


def test_budget_checks_and_affordable_features_by_hand():
    budget = FeatureBudget.create({"b": 2.0, "c": 5.0, "d": 1.0}, 3.0, ["a", "b", "c", "d"])
    assert budget.costs.tolist() == [0.0, 2.0, 5.0, 1.0]                          # unnamed features are free
    # along the order c, b, d, a: c does not fit, b does (1 left), d does (0 left), a is free
    assert budget.affordable([2, 1, 3, 0]).tolist() == [True, True, False, True]
    assert budget.affordable([2, 1, 3, 0], allowed=[True, False, True, True]).tolist() == [True, False, False, True]
    unit = FeatureBudget.create(None, 2, ["a", "b", "c"])
    assert unit.affordable([2, 0, 1]).tolist() == [True, False, True]             # max_total_features's case
    dear = FeatureBudget.create([3.0, 1.0, 1.0, 4.0], 4.0, list("abcd"))
    # the three cheapest (b, c, a) cost 5: no model of three features keeps a budget of 4
    with pytest.raises(ValueError, match="3 cheapest allowed cost 5"):
        dear.check_reachable(3)
    dear.check_reachable(2)
    # along a, d, b, c: a (3 left 1), b (0 left): two features, enough
    assert dear.affordable([0, 3, 1, 2], fewest=2).tolist() == [True, True, False, False]
    # along d, a, b, c: d alone (4); two are needed, so the two cheapest (b, c) come first and nothing else fits
    assert dear.affordable([3, 0, 1, 2], fewest=2).tolist() == [False, True, True, False]
    assert dear.affordable([3, 0, 1, 2]).tolist() == [False, False, False, True]
    assert FeatureBudget.create(None, None, ["a"]) is None
    reported = FeatureBudget.create([1.0, 2.0], None, ["a", "b"])
    assert not reported.holds and reported.keeps(_stump(1))
    assert reported.report(_stump(1)) == {"cost": 2.0, "budget": None, "keeps": True, "features": ["b"]}


def _stump(feature, p=2):
    weights = np.zeros((3, p))
    weights[0, feature] = 1.0
    return Tree(children_left=[1, -1, -1], children_right=[2, -1, -1], weights=weights, threshold=[0.5, 0, 0],
                value=[[2, 2], [2, 0], [0, 2]], label=[0, 0, 1])


@pytest.mark.parametrize("costs,budget,message", [
    ([1.0, -1.0], 1.0, "finite and >= 0"), ([1.0, np.nan], 1.0, "finite and >= 0"), ([1.0], 1.0, "2 features"),
    ({"z": 1.0}, 1.0, "do not have"), ([True, 1.0], 1.0, "numbers, one per feature"),
    ([1.0, 1.0], -1.0, "max_feature_cost"),
    ([1.0, 1.0], np.inf, "max_feature_cost"), ("cheap", 1.0, "numbers, one per feature"),
])
def test_bad_costs_are_named(costs, budget, message):
    with pytest.raises(ValueError, match=message):
        FeatureBudget.create(costs, budget, ["a", "b"])


def test_most_affordable_counts_the_cheapest_that_fit():
    budget = FeatureBudget.create([3.0, 0.0, 2.0, 2.0, 5.0], 4.0, list("abcde"))
    assert budget.most_affordable() == 3                                    # b (0), c (2), d (2)
    assert budget.most_affordable(allowed=[True, True, False, True, True]) == 2   # b, d; then a (3) would be 5
    assert FeatureBudget.create([1.0, 1.0], None, ["a", "b"]).most_affordable() == 2
