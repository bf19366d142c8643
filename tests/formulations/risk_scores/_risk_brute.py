"""Brute-force references for the risk-score formulations (independent of the library)."""

import numpy as np
from scipy.optimize import linprog


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


