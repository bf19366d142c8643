"""Score cards: rules, Theorem 4.1 flips, Corollary 4.1, exact rule text, a readable intercept."""

import numpy as np
import pytest

from optitrees.scorecard import ScoreCard


@pytest.fixture
def card():
    # age >= 65: +2, smoker = 1: +1, bp < 120: -1, intercept -1.5
    return ScoreCard([0, 1, 2], [65.0, 0.5, 120.0], [True, True, False], [2, 1, -1], -1.5, [False, True, False])


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    return np.column_stack([rng.integers(30, 90, 300), rng.integers(0, 2, 300), rng.normal(125, 15, 300)])


def test_rules_and_decision_function(card, X):
    manual = 2 * (X[:, 0] >= 65) + 1 * (X[:, 1] == 1) - 1 * (X[:, 2] < 120) - 1.5
    assert np.array_equal(card.decision_function(X), manual)
    assert np.allclose(card.predict_proba(X), 1 / (1 + np.exp(-manual)))
    assert card.reachable_totals().tolist() == [-1, 0, 1, 2, 3]


def test_flip_and_all_positive_keep_the_model(card, X):
    flipped = card.flip(0)
    assert flipped.points[0] == -2 and not flipped.greater[0] and flipped.intercept == 0.5
    assert np.array_equal(flipped.decision_function(X), card.decision_function(X))
    positive = card.all_positive()
    assert np.all(positive.points >= 0) and np.array_equal(positive.decision_function(X), card.decision_function(X))
    with pytest.raises(IndexError):
        card.flip(3)


def test_rule_text_is_the_rule(card):
    names = ["age", "smoker", "bp"]
    assert [card.rule_text(k, names) for k in range(3)] == ["age >= 65", "smoker = 1", "bp < 120"]
    odd = ScoreCard([0], [70.00275], [True], [1], 0.0)
    assert odd.rule_text(0, names) == "age >= 70.00275"             # never rounded in print


def test_readable_intercept_keeps_classes_and_loss(X):
    card = ScoreCard([0], [65.0], [True], [3], -2.00012345678)
    y = np.where(X[:, 0] >= 60, 1.0, -1.0)
    short = card.with_readable_intercept(X, y)
    assert short.intercept == -2.0 or len(repr(short.intercept)) < len(repr(card.intercept))
    assert np.array_equal(short.decision_function(X) > 0, card.decision_function(X) > 0)
    loss = lambda c: np.logaddexp(0, -y * c.decision_function(X)).sum()
    assert loss(short) <= loss(card) * (1 + 1e-7)
    # an intercept that puts a total score exactly on the boundary keeps its digits
    tie = ScoreCard([0], [65.0], [True], [3], -3.0000000001)
    assert tie.with_readable_intercept(X).intercept == tie.intercept


def test_bad_card():
    with pytest.raises(ValueError, match="one entry per rule"):
        ScoreCard([0, 1], [1.0], [True, True], [1, 1], 0.0)
