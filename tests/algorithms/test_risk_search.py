"""The FasterRisk-style search: bounds, groups and forbidden features hold; the loss it reports is the card's."""

import numpy as np
import pytest

from optitrees.algorithms.risk_search import risk_search
from optitrees.formulations.aggregate_loss import AggregateLoss


@pytest.fixture(scope="module")
def loss():
    rng = np.random.default_rng(0)
    X = (rng.random((400, 8)) < 0.4).astype(float)
    logit = X @ np.array([2.0, -1.5, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0]) - 1.0
    y = np.where(rng.random(400) < 1 / (1 + np.exp(-logit)), 1.0, -1.0)
    return AggregateLoss.from_data(X, y)


def test_the_card_is_sparse_bounded_and_its_loss_is_exact(loss):
    lower, upper = np.full(8, -3.0), np.full(8, 3.0)
    r = risk_search(loss, 3, lower, upper)
    assert np.count_nonzero(r.points) <= 3 and np.all(r.points == np.round(r.points))
    assert np.all((r.points >= lower) & (r.points <= upper))
    assert set(np.flatnonzero(r.points)) == {0, 1, 2}
    assert r.loss == pytest.approx(loss.with_multiplier(r.multiplier).value(r.points, r.intercept), rel=1e-12)
    assert float(f"{r.multiplier:.3g}") == r.multiplier        # printed exactly on the card
    intercept_only = loss.value(np.zeros(8), loss.best_intercept(np.zeros(8), 50.0))
    assert r.loss < intercept_only


def test_bounds_signs_groups_and_forbidden_features_hold(loss):
    lower, upper = np.full(8, -3.0), np.full(8, 3.0)
    lower[2] = 0.0          # monotone
    upper[1] = 0.0
    allowed = np.ones(8, bool)
    allowed[0] = False
    r = risk_search(loss, 4, lower, upper, allowed=allowed, groups=[(1, 2)], multiplier=1.0)
    assert r.points[0] == 0 and r.multiplier == 1.0
    assert np.count_nonzero(r.points[[1, 2]]) <= 1 and r.points[2] >= 0 and r.points[1] <= 0
