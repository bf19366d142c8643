"""Disparities equal fairlearn's metric functions; bad groups and bounds are refused with a clear error."""

import numpy as np
import pandas as pd
import pytest

from optitrees.fairness import (ConditionalStatisticalParity, DemographicParity, EqualizedOdds,
                                FalsePositiveRateParity, TruePositiveRateParity, disparity)

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")

PAIRS = [(DemographicParity(), "demographic_parity_difference"),
         (TruePositiveRateParity(), "true_positive_rate_difference"),
         (FalsePositiveRateParity(), "false_positive_rate_difference"),
         (EqualizedOdds(), "equalized_odds_difference")]


@pytest.mark.parametrize("notion, metric", PAIRS, ids=[p[1] for p in PAIRS])
@pytest.mark.parametrize("weighted", [False, True])
def test_equal_to_fairlearn(notion, metric, weighted):
    rng = np.random.default_rng(1)
    y, predicted = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    groups = rng.choice(["a", "b", "c"], 300)
    weight = rng.uniform(0.2, 3.0, 300) if weighted else None
    expected = getattr(fairlearn_metrics, metric)(y, predicted, sensitive_features=groups, sample_weight=weight)
    assert disparity(notion, y, predicted, groups, sample_weight=weight) == pytest.approx(expected, abs=1e-12)


def test_several_columns_are_their_combinations_as_in_fairlearn():
    rng = np.random.default_rng(2)
    y, predicted = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 200), "race": rng.choice(["x", "y"], 200)})
    expected = fairlearn_metrics.demographic_parity_difference(y, predicted, sensitive_features=frame)
    assert disparity(DemographicParity(), y, predicted, frame) == pytest.approx(expected, abs=1e-12)


def test_labels_that_are_not_zero_and_one():
    y = np.array(["no", "yes", "yes", "no", "yes", "no"])
    predicted = np.array(["yes", "yes", "no", "no", "yes", "yes"])
    groups = np.array([0, 0, 0, 1, 1, 1])
    # positives predicted: group 0 two of three, group 1 two of three; among the positive rows, 1 of 2 and 1 of 1
    assert disparity(DemographicParity(), y, predicted, groups, pos_label="yes") == 0.0
    assert disparity(TruePositiveRateParity(), y, predicted, groups, pos_label="yes") == pytest.approx(0.5)


def test_conditional_parity_is_parity_within_each_stratum():
    rng = np.random.default_rng(3)
    y, predicted = rng.integers(0, 2, 240), rng.integers(0, 2, 240)
    groups, strata = rng.choice(["a", "b"], 240), rng.integers(0, 3, 240)
    by_stratum = [fairlearn_metrics.demographic_parity_difference(y[strata == s], predicted[strata == s],
                                                                  sensitive_features=groups[strata == s])
                  for s in range(3)]
    got = disparity(ConditionalStatisticalParity(0.1, legitimate=0), y, predicted, groups, legitimate_values=strata)
    assert got == pytest.approx(max(by_stratum), abs=1e-12)


@pytest.mark.parametrize("groups, message", [
    (["a"] * 4, "single group"),
    (["a", "b", None, "a"], "missing values"),
    (["a", "b", "a"], "has 3 rows; X has 4"),
    (None, "needs sensitive_features"),
])
def test_bad_groups(groups, message):
    with pytest.raises(ValueError, match=message):
        disparity(DemographicParity(), [0, 1, 0, 1], [0, 1, 1, 1], groups)


@pytest.mark.parametrize("bound", [-0.1, 1.5, float("nan"), "0.1", True])
def test_bad_bound(bound):
    with pytest.raises(ValueError, match="difference_bound must be a number in"):
        DemographicParity(bound)


def test_conditional_parity_needs_a_legitimate_feature_with_few_values():
    with pytest.raises(ValueError, match="legitimate="):
        ConditionalStatisticalParity(0.1)
    values = np.arange(100.0)
    with pytest.raises(ValueError, match="takes 100 values"):
        disparity(ConditionalStatisticalParity(0.1, legitimate=0), np.zeros(100), np.zeros(100),
                  np.arange(100) % 2, legitimate_values=values)
