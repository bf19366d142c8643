"""Candidate rules of the generalized risk score: every distinct value above the minimum, thinned by quantiles."""

import numpy as np

from optitrees.formulations.risk_scores.ogrs_candidates import CandidateRules, OGRSCandidateProblem
from optitrees.formulations.risk_scores.ogrs import OGRSSpec
from optitrees.scaling import ScaledData


def test_every_distinct_value_above_the_minimum_is_a_threshold():
    X = np.array([[0.0, 0.0], [0.5, 1.0], [1.0, 1.0], [0.5, 0.0]])
    rules = CandidateRules.from_data(X, max_thresholds=10)
    assert rules.features.tolist() == [0, 0, 1] and rules.thresholds.tolist() == [0.5, 1.0, 1.0]
    B = rules.transform(X)
    assert B.tolist() == [[0, 0, 0], [1, 0, 1], [1, 1, 1], [1, 0, 0]]
    assert rules.groups() == ((0, 1), (2,))


def test_many_values_are_thinned_to_quantiles_and_forbidden_features_skipped():
    X = np.column_stack([np.linspace(0, 1, 101), np.linspace(0, 1, 101) ** 2])
    rules = CandidateRules.from_data(X, max_thresholds=4, allowed=np.array([True, False]))
    assert set(rules.features) == {0} and len(rules.thresholds) == 4
    assert np.allclose(rules.thresholds, [0.2, 0.4, 0.6, 0.8])


def test_a_rules_smallest_passing_value_is_the_least_original_value_of_the_rows_it_holds():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=200), rng.integers(-2, 3, 200), rng.exponential(size=200)])
    X01 = (X - X.min(axis=0)) / np.ptp(X, axis=0)
    for max_thresholds in (100, 6):                     # every value, and thinned thresholds
        rules = CandidateRules.from_data(X01, max_thresholds)
        expected = [X[X01[:, j] >= b, j].min() for j, b in zip(rules.features, rules.thresholds)]
        assert rules.smallest_passing(X01, X).tolist() == expected


def test_the_problem_groups_each_feature_and_keeps_the_source():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 30), rng.integers(0, 2, 30)]).astype(float)
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    data = ScaledData.create(X, y, "unit", ["a", "b"])
    problem = OGRSCandidateProblem.from_ogrs(OGRSSpec.create(2, 3), data, 8)
    assert problem.data.labels.tolist() == ["a__1", "a__2", "b__1"]          # "a>=1", made safe for .lp names
    assert problem.spec.groups == ((0, 1), (2,)) and problem.spec.method == "cutting_planes"
    assert problem.source.data is data and problem.lower.min() == -3 and problem.upper.max() == 3
