"""The fair depth-2 search is the exact fair optimum: the same errors as enumerating every tree of depth 2 and every
labelling of its leaves (tiny data, every notion), its tree keeps the bound and predicts with the errors it
reports; thinned candidates and a passed deadline are said."""

import time

import numpy as np
import pytest

from optitrees.algorithms.oct.fair_depth2 import candidate_splits, fair_depth2_tree
from optitrees.fairness import DemographicParity, EqualizedOdds, FalsePositiveRateParity, ParityCells, \
    TruePositiveRateParity, group_codes
from _fair_brute import best_fair_tree, tiny


@pytest.mark.parametrize("notion, seed", [(DemographicParity(0.05), 0), (DemographicParity(0.05), 1),
                                          (TruePositiveRateParity(0.0), 1), (FalsePositiveRateParity(0.0), 0),
                                          (EqualizedOdds(0.1), 0), (DemographicParity(1.0), 2)],
                         ids=lambda v: getattr(type(v), "__name__", v))
def test_the_search_finds_the_enumerated_fair_optimum(notion, seed):
    X, y, groups = tiny(seed)
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(notion, y, codes, labels)
    splits = candidate_splits(X, max_thresholds=None)
    assert splits[2]
    tree, value, complete = fair_depth2_tree(X, y, np.ones(len(y)), cells, notion.difference_bound, 0.0, splits)
    L_hat = len(y) - np.bincount(y).max()
    assert complete
    assert value == pytest.approx(best_fair_tree(X, y, groups, notion, 2) * L_hat, abs=1e-9)
    predicted = tree.predict(X)
    assert np.sum(predicted != y) == pytest.approx(value)
    assert cells.disparity(predicted == 1) <= notion.difference_bound + 1e-12


def test_split_costs_count_every_split_of_the_returned_tree():
    X, y, groups = tiny(0)
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(DemographicParity(0.2), y, codes, labels)
    splits = candidate_splits(X, max_thresholds=None)
    tree, value, _ = fair_depth2_tree(X, y, np.ones(len(y)), cells, 0.2, 0.75, splits)
    assert value == pytest.approx(np.sum(tree.predict(X) != y) + 0.75 * tree.n_splits())


def test_thinned_candidates_and_a_passed_deadline_are_said():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    features, thresholds, every = candidate_splits(X, np.array([True, False, True]), max_thresholds=5)
    assert not every and set(features) == {0, 2} and np.bincount(features, minlength=3).max() <= 5
    codes, labels = group_codes(np.where(X[:, 1] > 0, "a", "b"), len(y))
    cells = ParityCells.create(DemographicParity(0.1), y, codes, labels)
    tree, _, complete = fair_depth2_tree(X, y, np.ones(len(y)), cells, 0.1, 0.0, (features, thresholds),
                                         deadline=time.perf_counter() - 1)
    assert not complete and tree is not None                     # one root is always tried
    assert cells.disparity(tree.predict(X) == 1) <= 0.1 + 1e-12
