"""The aggregate logistic loss of a score: compression, value, gradient, cuts, the best intercept and multiplier."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from optitrees.formulations.risk_scores.aggregate_loss import AggregateLoss


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (200, 4)).astype(float)
    y = np.where(rng.random(200) < 0.4, 1.0, -1.0)
    return X, y


def direct(X, y, s, beta, m):
    return float(np.log1p(np.exp(-y * (X @ s + beta) / m)).sum())


def test_distinct_rows_with_counts_give_the_full_loss(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y, multiplier=1.7)
    assert len(loss.y) < len(y) and loss.n_points == len(y)
    s, beta = np.array([1.0, -2.0, 0.0, 3.0]), -0.5
    assert loss.value(s, beta) == pytest.approx(direct(X, y, s, beta, 1.7), rel=1e-12)
    S = np.array([s, 2 * s, -s])
    assert np.allclose(loss.value(S, np.array([beta, 0.0, 1.0])),
                       [direct(X, y, v, b, 1.7) for v, b in zip(S, [beta, 0.0, 1.0])])


# 70 columns: too many for one integer key; small integers take a byte a value there, other values their bits
@pytest.mark.parametrize("width,values", [(4, [-2.5, 0.0, 1e300]), (70, [-2.5, -1e-300, -0.0, 0.0, 1e-300, 1e300]),
                                          (70, [-128.0, -1.0, -0.0, 0.0, 3.0, 127.0])])
def test_distinct_rows_are_those_of_numpy_unique_in_the_same_order(width, values):
    from optitrees.formulations.risk_scores.aggregate_loss import _distinct_rows

    rng = np.random.default_rng(width)
    A = np.column_stack([rng.integers(0, 2, (300, width)), rng.choice([-1.0, 2.0, 7.0], 300)]).astype(float)
    A[:, 1] = rng.choice(values, 300) * rng.integers(0, 2, 300)     # signs, extremes and signed zeros keep order
    A = A[rng.integers(0, 300, 900)]
    first, inverse = _distinct_rows(A)
    rows, expected = np.unique(A, axis=0, return_inverse=True)
    assert np.array_equal(A[first], rows) and np.array_equal(inverse, expected.ravel())


def test_the_loss_restricted_to_some_columns_is_the_full_loss_of_scores_on_them(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y, multiplier=1.3, sample_weight=np.linspace(0.5, 2.0, len(y)))
    sub = loss.restricted([3, 1])
    assert len(sub.y) < len(loss.y) and sub.n_points == pytest.approx(loss.n_points)
    assert sub.multiplier == 1.3
    s = np.array([0.0, -2.0, 0.0, 1.5])
    assert sub.value(s[[3, 1]], 0.4) == pytest.approx(loss.value(s, 0.4), rel=1e-12)
    assert np.allclose(sub.gradient(s[[3, 1]], 0.4)[0], loss.gradient(s, 0.4)[0][[3, 1]])


def test_gradient_matches_finite_differences_and_cuts_are_lower_bounds(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y, multiplier=2.0)
    s, beta = np.array([0.5, -1.0, 2.0, 0.0]), 0.3
    g_s, g_b = loss.gradient(s, beta)
    h = 1e-6
    fd = [(loss.value(s + h * e, beta) - loss.value(s - h * e, beta)) / (2 * h) for e in np.eye(4)]
    assert np.allclose(g_s, fd, rtol=1e-6)
    assert g_b == pytest.approx((loss.value(s, beta + h) - loss.value(s, beta - h)) / (2 * h), rel=1e-6)
    value, g_s, g_b, rhs = loss.cut(s, beta)
    rng = np.random.default_rng(1)
    for _ in range(50):                       # convexity: the tangent plane never exceeds the loss
        s2, b2 = rng.normal(0, 3, 4), rng.normal(0, 3)
        assert g_s @ s2 + g_b * b2 + rhs <= loss.value(s2, b2) + 1e-9


def test_best_intercept_is_the_one_dimensional_minimum(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y, multiplier=1.3)
    s = np.array([2.0, 0.0, -1.0, 1.0])
    ref = minimize_scalar(lambda b: loss.value(s, b), bounds=(-20, 20), method="bounded",
                          options={"xatol": 1e-12}).x
    assert loss.best_intercept(s, 20.0) == pytest.approx(ref, abs=1e-6)
    assert loss.best_intercept(s, 0.1) == pytest.approx(np.clip(ref, -0.1, 0.1), abs=1e-9)


def test_best_multiplier_is_the_minimum_over_a_fine_grid():
    rng = np.random.default_rng(3)
    X = (rng.random((300, 4)) < 0.4).astype(float)
    y = np.where(rng.random(300) < 1 / (1 + np.exp(-(X @ [1.0, -1.0, 0.5, 0.0] - 0.2))), 1.0, -1.0)
    loss = AggregateLoss.from_data(X, y, multiplier=1.0)
    s = np.array([2.0, -2.0, 1.0, 0.0])
    m, beta, value = loss.best_multiplier(s, 20.0)
    assert float(f"{m:.3g}") == m                    # three significant digits: the card prints it exactly
    at_m = loss.with_multiplier(m)
    assert value == pytest.approx(at_m.value(s, beta), rel=1e-12)
    assert beta == pytest.approx(at_m.best_intercept(s, 20.0 * m), abs=1e-9)
    printable = [float(f"{k}e-3") for k in range(500, 1000)] + [float(f"{k}e-2") for k in range(100, 601)]
    on_grid = [loss.with_multiplier(g).value(s, loss.with_multiplier(g).best_intercept(s, 20.0 * g))
               for g in printable]
    assert value <= min(on_grid) + 1e-9 and m == printable[int(np.argmin(on_grid))]
    assert 0.6 < m < 5.0                             # an interior minimum, not a bound of the grid


def test_segment_minimum_is_the_least_loss_on_the_segment(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y, multiplier=0.8)
    s0, s1 = np.array([2.0, 0.0, -1.0, 0.0]), np.array([-2.0, 1.0, 0.0, 3.0])
    t = loss.segment_minimum(s0, 1.0, s1, -3.0)
    grid = np.linspace(0, 1, 2001)
    values = loss.value(s0 + grid[:, None] * (s1 - s0), 1.0 + grid * -4.0)
    assert 0 < grid[np.argmin(values)] < 1
    assert loss.value(s0 + t * (s1 - s0), 1.0 - 4.0 * t) <= values.min() + 1e-9


def test_segment_minimum_at_an_end_of_the_segment(data):
    X, y = data
    loss = AggregateLoss.from_data(X, y)
    best = np.zeros(4), loss.best_intercept(np.zeros(4), 10.0)
    far = np.array([5.0, -5.0, 5.0, -5.0]), 8.0
    along = [loss.value(best[0] + t * (far[0] - best[0]), best[1] + t * (far[1] - best[1])) for t in (0.0, 1e-3)]
    assert along[1] > along[0]                                      # precondition: the loss rises from ``best``
    assert loss.segment_minimum(*best, *far) == 0.0
    assert loss.segment_minimum(*far, *best) == 1.0


def test_margins_of_a_sparse_score_read_only_its_columns_and_equal_the_dense_product():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 40)).astype(float)
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    loss = AggregateLoss.from_data(X, y, multiplier=1.5)
    s = np.zeros(40)
    s[[3, 17, 30]] = [2.0, -1.0, 4.0]                                  # 3 of 40 columns: the sparse path
    for point in (s, rng.normal(size=40)):                              # and a dense point
        expected = loss.y * (loss.X @ point + 0.5) / 1.5
        assert np.allclose(loss.margins(point, 0.5), expected, rtol=0, atol=1e-12)
    value, g_s, g_beta, _ = loss.cut(s, 0.5)
    assert value == pytest.approx(float(loss.value(s, 0.5)), rel=1e-14)
    assert np.allclose(g_s, loss.gradient(s, 0.5)[0], atol=1e-12)
