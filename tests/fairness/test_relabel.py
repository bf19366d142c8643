"""Fair leaf labels: the least error among every labelling of the leaves that keeps the bound (checked by
enumeration), and always within the bound."""

import itertools

import numpy as np
import pytest

from optitrees.fairness import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds, ParityCells,
                                TruePositiveRateParity)
from optitrees.fairness.relabel import fair_leaf_labels

NOTIONS = [DemographicParity, TruePositiveRateParity, EqualizedOdds]


def brute_force(leaf, y01, weight, cells, bound, n_leaves):
    best = np.inf
    for labels in itertools.product((0, 1), repeat=n_leaves):
        labels = np.array(labels)
        predicted = labels[leaf]
        if cells.disparity(predicted == 1) <= bound + 1e-9:
            best = min(best, float(weight @ (predicted != y01)))
    return best


@pytest.mark.parametrize("notion", NOTIONS, ids=lambda n: n.__name__)
@pytest.mark.parametrize("bound", [0.0, 0.05, 0.2])
@pytest.mark.parametrize("seed", [0, 1])
def test_least_error_among_fair_labellings(notion, bound, seed):
    rng = np.random.default_rng(seed)
    n, n_leaves = 80, 6
    leaf = rng.integers(0, n_leaves, n)
    groups = rng.integers(0, 3, n)
    # labels that depend on the leaf and the group: the unconstrained labelling is unfair
    y01 = (rng.uniform(size=n) < 0.2 + 0.5 * (leaf % 2) + 0.2 * (groups == 0)).astype(int)
    sample = rng.uniform(0.5, 2.0, n)
    objective = sample * np.where(y01 == 1, 2.0, 1.0)          # class weights in the objective only
    cells = ParityCells.create(notion(bound), y01, groups, ["a", "b", "c"], sample)
    labels = fair_leaf_labels(leaf, y01, objective, cells, bound, n_leaves)
    assert cells.disparity(labels[leaf] == 1) <= bound + 1e-9
    assert float(objective @ (labels[leaf] != y01)) == pytest.approx(
        brute_force(leaf, y01, objective, cells, bound, n_leaves), abs=1e-9)


def test_conditional_parity_labels():
    rng = np.random.default_rng(5)
    leaf, groups, strata = rng.integers(0, 4, 60), rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    y01 = (rng.uniform(size=60) < 0.3 + 0.4 * (groups == 1)).astype(int)
    cells = ParityCells.create(ConditionalStatisticalParity(0.1, legitimate=0), y01, groups, ["a", "b"], None, strata)
    labels = fair_leaf_labels(leaf, y01, np.ones(60), cells, 0.1, 4)
    assert cells.disparity(labels[leaf] == 1) <= 0.1 + 1e-9
    assert float(np.sum(labels[leaf] != y01)) == brute_force(leaf, y01, np.ones(60), cells, 0.1, 4)


@pytest.mark.parametrize("notion", NOTIONS, ids=lambda n: n.__name__)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_least_error_among_fair_choices_of_options(notion, seed):
    """Each leaf picks one of several options (its own rows' predictions under each): the least error among every
    fair choice, by enumeration."""
    from optitrees.fairness.relabel import fair_leaf_choices

    rng = np.random.default_rng(10 + seed)
    n, n_leaves, bound = 60, 4, 0.05
    leaf = rng.integers(0, n_leaves, n)
    groups = rng.integers(0, 2, n)
    y01 = (rng.uniform(size=n) < 0.3 + 0.4 * (groups == 1)).astype(int)
    own = rng.uniform(size=n) < 0.5
    shifted = rng.uniform(size=n) < 0.3
    options = np.column_stack([own, np.zeros(n, bool), np.ones(n, bool), shifted])
    weight = rng.uniform(0.5, 2.0, n)
    cells = ParityCells.create(notion(bound), y01, groups, ["a", "b"], weight)
    chosen = fair_leaf_choices(leaf, options, y01, weight, cells, bound, n_leaves)
    predicted = options[np.arange(n), chosen[leaf]]
    assert cells.disparity(predicted) <= bound + 1e-9
    best = np.inf
    for combo in itertools.product(range(4), repeat=n_leaves):
        p = options[np.arange(n), np.array(combo)[leaf]]
        if cells.disparity(p) <= bound + 1e-9:
            best = min(best, float(weight @ (p != (y01 == 1))))
    assert float(weight @ (predicted != (y01 == 1))) == pytest.approx(best, abs=1e-9)
