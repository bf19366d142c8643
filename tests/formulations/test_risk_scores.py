"""ORS (4.5): the MILP optimum equals a brute force over rules, scores and the intercept."""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from optitrees.formulations.risk_scores import check_score_set, ors
from optitrees.formulations.tangents import logistic_tangents
from optitrees.solvers import solve


def _tiny(seed, n=14, p=3):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < 0.5).astype(float)
    logit = X @ np.array([2.0, -1.0, 1.0])[:p] - 1.0
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), 1.0, -1.0)
    return X, y


def best_intercept_loss(margin_wo_beta, y, lines):
    """min over beta of sum_i max_k (c_k + a_k y_i (m_i + beta)), an LP in (beta, xi)."""
    n = len(y)
    K = len(lines.slopes)
    # variables [beta, xi_1..xi_n]; rows: -xi_i + a_k y_i beta <= -c_k - a_k y_i m_i
    A = np.zeros((K * n, n + 1))
    b = np.zeros(K * n)
    for k, (a, c) in enumerate(zip(lines.slopes, lines.intercepts)):
        A[k * n:(k + 1) * n, 0] = a * y
        A[k * n:(k + 1) * n, 1:] = -np.eye(n)
        b[k * n:(k + 1) * n] = -c - a * y * margin_wo_beta
    res = linprog(np.r_[0.0, np.ones(n)], A_ub=A, b_ub=b, bounds=[(-50, 50)] + [(0, None)] * n, method="highs")
    assert res.status == 0
    return res.fun


def brute_force_ors(X, y, T, A, lines):
    """Every score vector with at most T nonzero entries from A, each with its best intercept.

    "Exactly T rules" has the same optimum: 0 is in A, so a selected feature may score 0.
    """
    p = X.shape[1]
    best = np.inf
    for s in itertools.product(A, repeat=p):
        if np.count_nonzero(s) > T:
            continue
        best = min(best, best_intercept_loss(X @ np.array(s, float), y, lines))
    return best


@pytest.mark.parametrize("seed,T,tangents,exact", [(0, 1, "V1", False), (1, 2, "V0", False), (2, 2, "V3", True),
                                                   (3, 3, "V2", False)])
def test_ors_equals_brute_force(seed, T, tangents, exact):
    X, y = _tiny(seed)
    A = range(-2, 3)
    f = ors(X, y, n_rules=T, scores=A, tangents=tangents, exact_rules=exact)
    res = solve(f, mip_gap=0, time_limit=60)
    assert res.status == "optimal"
    expected = brute_force_ors(X, y, T, list(A), logistic_tangents(tangents))
    assert expected < brute_force_ors(X, y, 0, [0], logistic_tangents(tangents)) - 1e-3   # rules do help
    assert res.objective == pytest.approx(expected, abs=1e-6)
    v = f.values(res.x)
    assert np.count_nonzero(np.round(v["s"])) <= T
    if exact:
        assert np.round(v["a"]).sum() == T


def test_bad_input():
    X, y = _tiny(0)
    with pytest.raises(ValueError, match="generalized risk score"):
        ors(X + 0.5, y)
    with pytest.raises(ValueError, match="consecutive integers containing 0"):
        ors(X, y, scores=[1, 2, 3])
    with pytest.raises(ValueError, match="empty"):
        check_score_set([])
    with pytest.raises(ValueError, match="n_rules"):
        ors(X, y, n_rules=0)
    with pytest.raises(ValueError, match="at least that many features"):
        ors(X, y, n_rules=5, exact_rules=True)


def brute_force_ogrs(X, y, T, M, lines):
    """Every set of T distinct features, discriminative thresholds 'x_j >= v' at data values and points -M..M."""
    n, p = X.shape
    best = np.inf
    options = []
    for j in range(p):
        vals = np.unique(X[:, j])
        options.append([X[:, j] >= v for v in vals[1:]])           # satisfied by some but not all points
    for feats in itertools.combinations(range(p), T):
        for rules in itertools.product(*[options[j] for j in feats]):
            R = np.column_stack(rules).astype(float)
            for s in itertools.product(range(-M, M + 1), repeat=T):
                best = min(best, best_intercept_loss(R @ np.array(s, float), y, lines))
    return best


@pytest.mark.parametrize("seed,T,tangents", [(0, 1, "V1"), (1, 2, "V0"), (2, 2, "V2")])
def test_ogrs_equals_brute_force(seed, T, tangents):
    from optitrees.formulations.risk_scores import ogrs

    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 6, 9) / 5.0, rng.integers(0, 6, 9) / 5.0, rng.integers(0, 2, 9)])
    y = np.where(X[:, 0] + X[:, 2] + 0.3 * rng.normal(size=9) > 0.9, 1.0, -1.0)
    f = ogrs(X, y, n_rules=T, max_score=2, tangents=tangents)
    res = solve(f, mip_gap=0, time_limit=120)
    assert res.status == "optimal"
    expected = brute_force_ogrs(X, y, T, 2, logistic_tangents(tangents))
    assert res.objective == pytest.approx(expected, abs=1e-6)
    v = f.values(res.x)
    feats = np.argmax(v["a"], axis=0)
    assert len(set(feats)) == T and np.all(np.diff(feats) > 0)          # each feature once, ordered (4.16e)
    binary_rules = feats == 2
    assert np.allclose(v["b"][binary_rules], 0.5)                        # 4.16p-q
    sat = X[:, feats] >= v["b"][None, :]
    assert np.array_equal(sat, np.round(v["z"]).astype(bool))            # z follows the rules
