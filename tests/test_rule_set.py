"""Rules and rule sets of seed 004: conditions, the ELSE part, eq. (1) and eq. (2) on Table I."""

import numpy as np
import pytest

from optitrees.rule_set import Rule, RuleSet, combine


def test_table_one_weighted_average_is_point_six():
    outputs = np.array([[1, 0, 1]])              # rules 1 and 3 say positive
    trusted = np.array([[True, True, False]])     # rules 1 and 2 predicted correct
    assert combine(outputs, np.where(trusted, 2, 1)) == pytest.approx([0.6])
    assert combine(outputs, np.ones((1, 3))) == pytest.approx([2 / 3])   # eq. (1), the seed's 0.66


def test_rule_set_reproduces_table_one_through_its_models():
    # three one-feature rules on x0; correctness models on x1 only
    rules = [Rule((0,), (-np.inf,), (1.0,), 1), Rule((0,), (2.0,), (np.inf,), 1), Rule((0,), (-np.inf,), (5.0,), 1)]
    W = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, -1.0]])
    rs = RuleSet(rules, W, np.zeros(3))
    x = np.array([[0.5, 3.0]])      # fires rules 1 and 3 -> votes [1, 0, 1]; trust scores [3, 3, -3]
    assert rs.outputs(x).tolist() == [[1, 0, 1]]
    assert rs.trusted(x).tolist() == [[True, True, False]]
    assert rs.proba(x) == pytest.approx([0.6])
    rs_plain = RuleSet(rules, W, np.zeros(3), correct_weight=1.0, incorrect_weight=1.0)
    assert rs_plain.proba(x) == pytest.approx([2 / 3])


def test_rule_conditions_and_else_part():
    rule = Rule((0, 2), (1.5, -np.inf), (4.0, 0.25), 0)
    X = np.array([[2.0, 9.0, 0.0], [1.5, 0.0, 0.0], [2.0, 0.0, 0.3], [4.0, 0.0, 0.25]])
    assert rule.fires(X).tolist() == [True, False, False, True]      # bounds: lower open, upper closed
    assert rule.predict(X).tolist() == [0, 1, 1, 0]                   # ELSE gives the other class
    assert rule.conditions(["a", "b", "c"]) == ["a > 1.5", "a <= 4", "c <= 0.25"]
    assert rule.length == 3


def test_rule_set_needs_one_model_per_rule():
    with pytest.raises(ValueError, match="one entry per rule"):
        RuleSet([Rule((0,), (0.0,), (np.inf,), 1)], np.zeros((2, 1)), np.zeros(2))
