"""Linear leaves for a fixed routing (an LP per leaf under the absolute loss, a lasso under the squared loss) and
the l1 weight chosen on held-out folds."""

import numpy as np
import pytest

from optitrees.algorithms.regression.linear_leaves import choose_lam, fit_leaf_model, refit_leaves
from optitrees.trees import LeafModel, Tree


def _objective(X, y, v, w, b, lam, absolute):
    r = y - X @ w - b
    return float(v @ (np.abs(r) if absolute else r ** 2) + lam * np.abs(w).sum())


@pytest.mark.parametrize("absolute", [True, False])
def test_leaf_fit_is_the_minimum_of_its_convex_problem(absolute):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X @ [1.5, -0.5, 0.0] + 0.3 + 0.2 * rng.standard_t(3, size=40)
    v = rng.uniform(0.5, 2.0, size=40)
    lam = 2.0
    w, b = fit_leaf_model(X, y, v, lam, absolute, weight_bound=10.0)
    best = _objective(X, y, v, w, b, lam, absolute)
    # no point near the solution is lower (a convex problem: a local minimum is the minimum)
    for _ in range(300):
        dw, db = rng.normal(scale=0.05, size=3), rng.normal(scale=0.05)
        assert _objective(X, y, v, w + dw, b + db, lam, absolute) >= best - 1e-6 * max(1.0, best)


def test_exact_linear_data_is_recovered_and_a_large_weight_gives_a_constant():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = 2 * X[:, 0] - X[:, 1] + 0.5
    v = np.ones(30)
    w, b = fit_leaf_model(X, y, v, 1e-6, True, weight_bound=10.0)
    assert np.allclose(w, [2.0, -1.0], atol=1e-6) and b == pytest.approx(0.5, abs=1e-6)
    w, b = fit_leaf_model(X, y, v, 1e4, True, weight_bound=10.0)
    middle = np.sort(y)[14:16]                        # 30 rows: every value between the middle two is a median
    assert np.all(w == 0) and middle[0] - 1e-9 <= b <= middle[1] + 1e-9
    w, b = fit_leaf_model(X, y, v, 1e4, False, weight_bound=10.0)
    assert np.all(w == 0) and b == pytest.approx(y.mean())


@pytest.mark.parametrize("absolute", [True, False])
def test_weight_bound_and_feature_budget_hold(absolute):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 4))
    y = X @ [3.0, 2.0, 1.0, 0.5]
    w, _ = fit_leaf_model(X, y, np.ones(50), 0.01, absolute, weight_bound=2.0)
    assert np.abs(w).sum() <= 2.0 + 1e-7
    w, _ = fit_leaf_model(X, y, np.ones(50), 0.01, absolute, weight_bound=10.0, max_features=2)
    assert np.count_nonzero(w) <= 2 and np.all(w[2:] == 0)


def _stump():
    """``x_0 <= 0`` left, else right, both leaves linear value models."""
    return Tree([1, -1, -1], [2, -1, -1], [[1.0, 0.0, 0.0], [0, 0, 0], [0, 0, 0]], [0.0, 0, 0],
                intercept=[0.0, 0.0, 0.0], value=[[3.0], [1.0], [2.0]], leaf_model=LeafModel.LINEAR_VALUE)


def test_refit_keeps_the_routing_and_fits_each_leaf():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] <= 0, X[:, 1], -2 * X[:, 2] + 1)
    tree = refit_leaves(_stump(), X, y, np.ones(60), 1e-6, True, 10.0)
    assert np.array_equal(tree.apply(X), _stump().apply(X)) and tree.threshold[0] == 0.0
    assert np.allclose(tree.predict(X), y, atol=1e-6)


def test_held_out_choice_follows_the_signal():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 3))
    candidates = [200.0, 1.0, 0.01]                     # constant leaves first
    linear = np.where(X[:, 0] <= 0, X[:, 1], -2 * X[:, 2]) + 0.1 * rng.normal(size=200)
    choice = choose_lam(_stump(), X, linear, np.ones(200), candidates, True, 10.0)
    assert choice.lam < 200.0 and choice.folds_scored == 4
    assert np.all(np.isfinite(choice.mean_loss)) and choice.lam == candidates[int(np.argmin(choice.mean_loss))]
    noise = np.where(X[:, 0] <= 0, -1.0, 1.0) + rng.standard_cauchy(size=200)
    assert choose_lam(_stump(), X, noise, np.ones(200), candidates, True, 10.0).lam == 200.0


def test_held_out_choice_falls_back_when_no_fold_is_done():
    X = np.random.default_rng(5).normal(size=(40, 3))
    choice = choose_lam(_stump(), X, X[:, 1], np.ones(40), [5.0, 1.0, 0.1], True, 10.0, fallback=1, deadline=0.0)
    assert choice.lam == 1.0 and choice.folds_scored == 0 and np.all(np.isnan(choice.mean_loss))


@pytest.mark.parametrize("absolute", [True, False])
def test_a_signed_and_restricted_leaf_is_the_minimum_within_its_bounds(absolute):
    """y falls with x0: held to w0 >= 0 the weight is 0; x2 not allowed stays 0; and no feasible point near the
    fit (the signs kept, x2 unread) is lower."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 3))
    y = X @ [-1.0, 0.8, 0.6] + 0.1 * rng.normal(size=50)
    v = np.ones(50)
    signs, allowed = np.array([1, 0, 0]), np.array([True, True, False])
    w, b = fit_leaf_model(X, y, v, 1.0, absolute, 10.0, signs=signs, allowed=allowed)
    assert w[0] >= 0 and w[2] == 0 and w[1] > 0
    best = _objective(X, y, v, w, b, 1.0, absolute)
    for _ in range(300):
        dw, db = rng.normal(scale=0.05, size=3) * [1, 1, 0], rng.normal(scale=0.05)
        moved = w + dw
        moved[0] = max(moved[0], 0.0)
        assert _objective(X, y, v, moved, b + db, 1.0, absolute) >= best - 1e-5 * max(1.0, best)
    free_w, _ = fit_leaf_model(X, y, v, 1.0, absolute, 10.0)
    assert free_w[0] < 0 and free_w[2] != 0                           # the bounds are what moved it


@pytest.mark.parametrize("absolute", [True, False])
def test_signs_the_free_fit_keeps_change_nothing(absolute):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    y = X @ [1.0, -2.0] + 0.1 * rng.normal(size=60)
    v = np.ones(60)
    free = fit_leaf_model(X, y, v, 0.5, absolute, 10.0)
    signed = fit_leaf_model(X, y, v, 0.5, absolute, 10.0, signs=np.array([1, -1]))
    np.testing.assert_allclose(signed[0], free[0], atol=1e-4)
    assert signed[1] == pytest.approx(free[1], abs=1e-4)
