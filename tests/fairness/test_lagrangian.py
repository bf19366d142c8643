"""The Lagrangian search of fair partitions: every tree it returns keeps the bound, and moving the multipliers
finds fair trees of fewer errors than relabelling the unconstrained tree's leaves."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from optitrees.fairness import DemographicParity, EqualizedOdds, GroupParity
from optitrees.fairness.lagrangian import lagrangian_trees
from optitrees.trees import from_sklearn


def biased(n=400, seed=0):
    rng = np.random.default_rng(seed)
    group = (rng.uniform(size=n) < 0.4).astype(int)
    X = np.column_stack([rng.normal(size=n) + group, rng.normal(size=n), rng.normal(size=n) - 0.5 * group])
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.5, n) > 0.6).astype(int)
    return X, y, group


@pytest.mark.parametrize("notion", [DemographicParity(0.05), EqualizedOdds(0.05)], ids=lambda n: type(n).__name__)
def test_every_tree_keeps_the_bound_and_the_multipliers_pay(notion):
    X, y, group = biased()
    parity = GroupParity.create(notion, y, group, ["a", "b"], None, np.ones(len(y)))

    def fit_tree(labels, weight):
        cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, labels, sample_weight=weight)
        return from_sklearn(cart)

    trees = lagrangian_trees(parity, fit_tree, X)
    assert len(trees) > 1
    errors = [int(np.sum(t.predict(X) != y)) for t in trees]
    for tree in trees:
        assert parity.keeps(tree, X)
    assert min(errors) < errors[0]          # better than the unconstrained tree's leaves relabelled
