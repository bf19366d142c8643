"""The fair depth-2 search is the exact fair optimum: the same errors as enumerating every tree of depth 2 and every
labelling of its leaves (tiny data, every notion), and, with its bounds that leave out roots and pairs, the same
optimum as trying every pair of every root; its tree keeps the bound and predicts with the errors it reports;
thinned candidates and a passed deadline are said."""

import time

import numpy as np
import pytest

from optitrees.algorithms.oct import fair_depth2
from optitrees.algorithms.oct.fair_depth2 import _best_pair, _options, candidate_splits, fair_depth2_tree
from optitrees.fairness import ConditionalStatisticalParity, DemographicParity, EqualizedOdds, \
    FalsePositiveRateParity, ParityCells, TruePositiveRateParity, group_codes
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


def _every_pair(left, right, conditions, bound):
    """The least error over every pair of options whose rates keep the bound (the whole matrix at once)."""
    error = left[0][:, None] + right[0][None, :]
    rates = left[1][:, None, :] + right[1][None, :, :]
    for c in conditions:
        within = rates[:, :, c]
        error[within.max(axis=2) - within.min(axis=2) > bound] = np.inf
    return error.min()


@pytest.mark.parametrize("seed", range(4))
def test_pairs_cheapest_first_find_the_least_error_over_every_pair(seed, monkeypatch):
    monkeypatch.setattr(fair_depth2, "PAIR_BLOCK", 3)           # many blocks, on both sides ...
    monkeypatch.setattr(fair_depth2, "PAIR_FLOATS", 108)        # ... the right ones at most 6 wide (3 x 6 x 6 cells)
    rng = np.random.default_rng(seed)
    n_left, n_right, n_cells = 40, 57, 6
    # options as _options gives them: (error, cell shares, what each is)
    left = (rng.integers(0, 20, n_left).astype(float), rng.uniform(0, 0.5, (n_left, n_cells)), np.arange(n_left))
    right = (rng.integers(0, 20, n_right).astype(float), rng.uniform(0, 0.5, (n_right, n_cells)), np.arange(n_right))
    conditions = [np.array([0, 1, 2]), np.array([3, 4]), np.array([5])]
    for bound in (0.02, 0.1, 0.3, 1.0):
        expected = _every_pair(left, right, conditions, bound)
        value, pair, finished = _best_pair(left, right, conditions, bound)
        assert finished
        if not np.isfinite(expected):
            assert pair is None
            continue
        i, j = pair
        assert value == expected == left[0][i] + right[0][j]
        for c in conditions:
            rates = left[1][i, c] + right[1][j, c]
            assert rates.max() - rates.min() <= bound
        # a cutoff at the optimum leaves nothing; just above, the optimum
        assert _best_pair(left, right, conditions, bound, cutoff=expected)[:2] == (np.inf, None)
        assert _best_pair(left, right, conditions, bound, cutoff=expected + 0.5)[0] == expected


def _every_root(X, y, cells, bound, splits):
    """The least error over every root and every pair of its children's options (no bound leaves any out)."""
    features, thresholds = splits[0], splits[1]
    share = (cells.member * cells.weight) / cells.totals[:, None]
    quantities = np.vstack([1.0 * (y == 1), 1.0 * (y != 1), share])
    goes_left = (X[:, features] <= thresholds[None, :]).astype(float)
    conditions = [c for c in (np.flatnonzero(cells.condition == k) for k in range(cells.n_conditions)) if len(c) > 1]
    best = np.inf
    for r in range(len(features)):
        sides = [_options(quantities * side, goes_left, 0.0) for side in (goes_left[:, r], 1.0 - goes_left[:, r])]
        best = min(best, _every_pair(sides[0], sides[1], conditions, bound))
    return best


@pytest.mark.parametrize("notion", [EqualizedOdds(0.05), FalsePositiveRateParity(0.02), DemographicParity(0.03),
                                    ConditionalStatisticalParity(0.05, legitimate=3)],
                         ids=lambda v: type(v).__name__)
def test_the_bounds_leave_out_no_better_tree(notion, monkeypatch):
    monkeypatch.setattr(fair_depth2, "PAIR_BLOCK", 8)
    rng = np.random.default_rng(3)
    n = 150
    X = np.column_stack([rng.integers(0, 12, n), rng.normal(size=n).round(1), rng.integers(0, 5, n),
                         rng.integers(0, 3, n)]).astype(float)
    groups = rng.choice(["a", "b", "c"], n)
    y = ((X[:, 0] > 5) ^ (rng.uniform(size=n) < 0.2) | ((groups == "a") & (X[:, 1] > 0.5))).astype(int)
    codes, labels = group_codes(groups, n)
    strata = X[:, 3].astype(int) if isinstance(notion, ConditionalStatisticalParity) else None
    cells = ParityCells.create(notion, y, codes, labels, strata=strata)
    splits = candidate_splits(X, max_thresholds=None)
    tree, value, complete = fair_depth2_tree(X, y, np.ones(n), cells, notion.difference_bound, 0.0, splits)
    assert complete
    assert value == _every_root(X, y, cells, notion.difference_bound, splits)
    predicted = tree.predict(X)
    assert np.sum(predicted != y) == value
    assert cells.disparity(predicted == 1) <= notion.difference_bound + 1e-12


def test_a_root_s_pairs_stop_at_the_deadline_once_a_tree_is_found():
    rng = np.random.default_rng(0)
    left = (rng.uniform(size=600), rng.uniform(0, 0.5, (600, 4)), np.arange(600))
    right = (rng.uniform(size=700), rng.uniform(0, 0.5, (700, 4)), np.arange(700))
    conditions = [np.array([0, 1]), np.array([2, 3])]
    assert _best_pair(left, right, conditions, 0.01, deadline=time.perf_counter() - 1) == (np.inf, None, False)
    # in the search the first root is always finished (a tree to return); the deadline then stops it
    X, y, groups = tiny(0, n=60)
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(EqualizedOdds(0.05), y, codes, labels)
    tree, _, complete = fair_depth2_tree(X, y, np.ones(len(y)), cells, 0.05, 0.0, candidate_splits(X, None, None),
                                         deadline=time.perf_counter() - 1)
    assert tree is not None and not complete
    assert cells.disparity(tree.predict(X) == 1) <= 0.05 + 1e-12
