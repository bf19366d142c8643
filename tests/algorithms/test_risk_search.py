"""The FasterRisk-style search: bounds, groups and forbidden features hold; the loss it reports is the card's."""

import numpy as np
import pytest

from optitrees.algorithms.risk_search import _ray, risk_search
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


def test_the_ray_follows_fasterrisk_and_looks_past_coefficients_at_their_bounds():
    lower, upper = np.full(3, -4.0), np.full(3, 4.0)
    inside = _ray(np.array([1.0, -2.0, 0.5]), lower, upper, 7)        # room up to 4 / 2 = 2
    assert inside[0] == 1.0 and inside[-1] == 2.0 and len(inside) == 7
    at_bound = _ray(np.array([-4.0, 0.8, 0.5]), lower, upper, 7)      # the others have room up to 4 / 0.8 = 5
    assert at_bound[0] == 0.5 and at_bound[-1] == 5.0
    all_at_bounds = _ray(np.array([-4.0, 4.0]), lower[:2], upper[:2], 6)   # FasterRisk's 1 .. 0.5, ascending
    np.testing.assert_allclose(all_at_bounds, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0])


def test_a_rule_at_its_bound_does_not_cap_the_multiplier():
    """Feature 0 is rare and only negatives have it: its continuous points sit at the bound -3. Rounding
    at larger multipliers gives the other rules finer points; the ray only down from 1 (FasterRisk's when
    the fit presses on the bounds) finds a worse card."""
    rng = np.random.default_rng(1)
    X = (rng.random((600, 6)) < 0.35).astype(float)
    X[:, 0] = rng.random(600) < 0.03
    logit = X @ np.array([0.0, 0.8, -0.6, 0.5, 0.0, 0.0]) - 0.3
    y = np.where(rng.random(600) < 1 / (1 + np.exp(-logit)), 1.0, -1.0)
    y[X[:, 0] == 1] = -1.0
    loss = AggregateLoss.from_data(X, y)
    lower, upper = np.full(6, -3.0), np.full(6, 3.0)
    r = risk_search(loss, 4, lower, upper)
    assert r.points[0] == -3.0 and r.multiplier > 1.0
    down_from_one = min(risk_search(loss, 4, lower, upper, multiplier=m).loss
                        for m in np.unique(np.round(np.linspace(1.0, 0.5, 20), 3)))
    assert r.loss < down_from_one - 0.5
