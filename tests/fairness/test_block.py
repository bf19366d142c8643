"""The parity block in the OCT formulation: its columns are the cells' rates of the tree they encode, and the fair
OCT the MIP proves optimal is the best fair tree found by enumerating every tree and every labelling (tiny data)."""

import itertools

import numpy as np
import pytest

from optitrees import OCTClassifier, OCTHClassifier
from optitrees.fairness import DemographicParity, EqualizedOdds, FalsePositiveRateParity, TruePositiveRateParity
from optitrees.solvers.options import SolveOptions
from optitrees.solvers.polish import complete


def tiny(seed=0, n=16):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 2)).astype(float)
    groups = np.where(rng.uniform(size=n) < 0.5, "a", "b")
    y = ((X[:, 0] >= 2) ^ (rng.uniform(size=n) < 0.15) | ((groups == "a") & (X[:, 1] >= 3))).astype(int)
    return X, y, groups


def best_fair_tree(X, y, groups, notion, depth):
    """Least errors / L_hat over every axis-aligned tree of ``depth`` and every labelling of its leaves whose
    disparity is within the bound (a split sends ``x_j >= v`` right; an unused one sends every point right)."""
    from optitrees.fairness import ParityCells, group_codes

    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(notion, y, codes, labels)
    n, p = X.shape
    L_hat = n - np.bincount(y).max()
    options = [None] + [(j, v) for j in range(p) for v in np.unique(X[:, j])]
    n_branch = 2**depth - 1
    best = np.inf
    for combo in itertools.product(options, repeat=n_branch):
        node = np.ones(n, int)
        for _ in range(depth):
            split = [combo[t - 1] for t in node]
            node = 2 * node + np.array([s is None or X[i, s[0]] >= s[1] for i, s in enumerate(split)])
        leaves = np.unique(node)
        for lab in itertools.product((0, 1), repeat=len(leaves)):
            predicted = np.array(lab)[np.searchsorted(leaves, node)]
            if cells.disparity(predicted == 1) <= notion.difference_bound + 1e-9:
                best = min(best, np.sum(predicted != y) / L_hat)
    return best


@pytest.mark.parametrize("notion, seed", [(DemographicParity(0.05), 0), (DemographicParity(0.05), 1),
                                          (TruePositiveRateParity(0.0), 1), (FalsePositiveRateParity(0.0), 0),
                                          (EqualizedOdds(0.1), 0)], ids=lambda v: getattr(type(v), "__name__", v))
def test_proven_fair_optimum_is_the_enumerated_one(notion, seed):
    """Each case binds: the unconstrained optimum is 0.2 (seed 0) or 1/3 (seed 1), the fair one 0.4 to 2/3."""
    X, y, groups = tiny(seed)
    clf = OCTClassifier(max_depth=2, fairness=notion, time_limit=None, warm_start=False).fit(
        X, y, sensitive_features=groups)
    expected = best_fair_tree(X, y, groups, notion, 2)
    assert clf.fit_report_.certified_by == "highs"
    assert clf.objective_ == pytest.approx(expected, abs=1e-9)
    assert clf.fit_report_.fairness["keeps"]
    unconstrained = best_fair_tree(X, y, groups, DemographicParity(1.0), 2)
    assert expected > unconstrained + 0.1                        # the constraint binds


def test_block_columns_are_the_rates_of_the_tree():
    X, y, groups = tiny(2, 40)
    est = OCTHClassifier(max_depth=2, max_features=None, fairness=EqualizedOdds(1.0))
    est._validate_params()
    problem, _, parity = est._prepare(X, y, None, groups)
    f = est._build(problem, parity)
    tree = est._starts(problem, None, ("greedy",))["greedy"]
    x = complete(f, est._family.start(f, tree), SolveOptions())
    assert x is not None and f.violation(x) <= 1e-6
    values = f.values(x)
    rates = values["fair_m"].sum(axis=1) / parity.cells.totals
    np.testing.assert_allclose(rates, parity.cells.rates(tree.predict(problem.data.X) == 1), atol=1e-6)
    spread = [values["fair_hi"][k] - values["fair_lo"][k] for k in range(parity.cells.n_conditions)]
    assert max(spread) >= parity.disparity(tree, problem.data.X) - 1e-6
