"""Risk-score starts: best intercept, rounded logistic points, stump rules, the greedy rules of OGRS."""

import numpy as np
import pytest

from optitrees.algorithms.risk_scores.card_starts import (best_intercept, greedy_rules_card, rounded_logistic_points, stumps,
                                              stump_card)
from optitrees.formulations.risk_scores.ogrs import OGRSProblem, OGRSSpec, build, start
from optitrees.scaling import ScaledData


@pytest.fixture
def problem():
    rng = np.random.default_rng(1)
    n = 120
    X = np.column_stack([rng.uniform(30, 90, n).round(), rng.normal(130, 15, n).round(1), rng.integers(0, 2, n),
                         rng.normal(size=n)])
    logit = 2.0 * (X[:, 0] >= 65) + 1.5 * X[:, 2] - 1.5
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), 1.0, -1.0)
    return OGRSProblem.create(OGRSSpec.create(2, 3, "V0"), ScaledData.create(X, y, "unit"))


def test_best_intercept_by_grid():
    rng = np.random.default_rng(0)
    totals = rng.integers(-3, 4, 50).astype(float)
    y = np.where(rng.random(50) < 0.6, 1.0, -1.0)
    beta = best_intercept(totals, y, 20.0)
    grid = np.linspace(-5, 5, 20001)
    losses = np.logaddexp(0, -y[None, :] * (totals[None, :] + grid[:, None])).sum(axis=1)
    assert beta == pytest.approx(grid[np.argmin(losses)], abs=1e-3)


def test_rounded_points_are_in_the_score_set_and_sparse(problem):
    X = (problem.data.X > 0.5).astype(float)
    s = rounded_logistic_points(X, problem.data.y, 2, np.arange(-3, 4), allowed=np.array([1, 1, 1, 0], bool))
    assert np.count_nonzero(s) <= 2 and s.min() >= -3 and s.max() <= 3 and s[3] == 0


def test_stumps_split_exactly_at_a_value(problem):
    X01, y = problem.data.X, problem.data.y
    rules = stumps(X01, y)
    assert rules[0][0] in (0, 2)                              # a planted risk factor first
    for j, b, sign in rules:
        sat = X01[:, j] >= b
        assert 0 < sat.sum() < len(y) and b in X01[:, j]
        assert sign == (1.0 if (y[sat] > 0).mean() >= (y > 0).mean() else -1.0)


@pytest.mark.parametrize("make", ["greedy", "stumps"])
def test_ogrs_starts_are_complete_feasible_cards(problem, make):
    card = greedy_rules_card(problem, solver="highs", mip_gap=1e-4, seed=0, verbose=False, solver_options={}) \
        if make == "greedy" else stump_card(problem)
    assert card.n_rules == 2 and len(set(card.features)) == 2
    f = build(problem)
    assert f.violation(start(f, card)) < 1e-7


def test_greedy_rules_fall_back_to_stumps_without_time(problem):
    import time

    card = greedy_rules_card(problem, deadline=time.perf_counter(), solver="highs", mip_gap=1e-4, seed=0,
                             verbose=False, solver_options={})
    assert card.n_rules == 2
    assert [int(j) for j in card.features] == [r[0] for r in stumps(problem.data.X, problem.data.y)[:2]]
