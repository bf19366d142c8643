"""The fair threshold of a score card is the one of least error among every threshold that keeps the bound, found by
trying each one; a card repaired by it keeps the bound and predicts as the threshold says."""

import numpy as np
import pytest

from optitrees.fairness import DemographicParity, EqualizedOdds, GroupParity, ParityCells, TruePositiveRateParity, \
    group_codes
from optitrees.fairness.threshold import fair_threshold
from optitrees.scorecard import ScoreCard


def scored_rows(seed, n=60):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c"], n)
    totals = rng.integers(-4, 5, n) + (groups == "a") * 2.0
    y = (totals + rng.normal(0, 2, n) > 0).astype(int)
    weight = rng.uniform(0.5, 2.0, n)
    return totals, y, groups, weight


@pytest.mark.parametrize("notion", [DemographicParity(0.1), TruePositiveRateParity(0.05), EqualizedOdds(0.2)],
                         ids=lambda n: type(n).__name__)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_threshold_is_the_best_fair_one_by_enumeration(notion, seed):
    totals, y, groups, weight = scored_rows(seed)
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(notion, y, codes, labels, weight)
    values = np.unique(totals)
    tried = np.r_[values[0] - 1, values, values[-1] + 1]                    # rows with totals > c positive
    best = min(weight @ ((totals > c) != (y == 1)) for c in tried
               if cells.disparity(totals > c) <= notion.difference_bound)
    c = fair_threshold(totals, y, weight, cells, notion.difference_bound, current=0.0)
    assert cells.disparity(totals > c) <= notion.difference_bound
    assert weight @ ((totals > c) != (y == 1)) == pytest.approx(best, abs=1e-12)
    assert not np.any(totals == c)                                            # never on a row's total


def test_a_bound_no_threshold_keeps_gives_a_constant_prediction():
    totals, y, groups, weight = scored_rows(0)
    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(DemographicParity(0.0), y, codes, labels, weight)
    c = fair_threshold(totals, y, weight, cells, 0.0, current=0.0)
    positive = totals > c
    assert positive.all() or not positive.any()
    assert positive.all() == (weight @ (y == 1) > weight @ (y == 0))           # the constant of least error


def test_a_repaired_card_keeps_the_bound_and_moves_only_its_intercept():
    rng = np.random.default_rng(3)
    n = 80
    groups = rng.choice(["f", "m"], n)
    X = np.column_stack([(rng.random(n) < 0.3 + 0.4 * (groups == "m")), rng.random(n) < 0.5]).astype(float)
    y = (X[:, 0] + rng.normal(0, 0.4, n) > 0.5).astype(int)
    card = ScoreCard(np.array([0, 1]), np.full(2, 0.5), np.ones(2, bool), np.array([3.0, 1.0]), -2.5,
                     np.ones(2, bool))
    codes, labels = group_codes(groups, n)
    parity = GroupParity.create(DemographicParity(0.05), y, codes, labels, np.ones(n), np.ones(n))
    assert not parity.keeps(card, X)
    fixed = parity.repair(card, X)
    assert parity.keeps(fixed, X)
    np.testing.assert_array_equal(fixed.points, card.points)
    np.testing.assert_array_equal(fixed.features, card.features)
    assert fixed.intercept != card.intercept
    assert np.all(np.abs(fixed.decision_function(X)) > 1e-9)                   # no row left on the threshold
    assert parity.repair_text(fixed) == "its intercept was moved"
