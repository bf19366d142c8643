r"""Optimal risk scores (seed 002, Ch. 4): ORS on binary features (model 4.5).

A risk score assigns an integer number of points ``s_j`` from a user set
``A`` to each of at most (or exactly) ``T`` binary features; the total score
plus an intercept ``beta`` is the log-odds of the positive class::

    min  sum_{i in I} xi[i]                                                   (4.5a)
    s.t. sum_j a[j] = T      (or <= T)                                         (4.2)
         -M a[j] <= s[j] <= M a[j],   M = max |A|                              (4.3)
         xi[i] >= f(v_k) + f'(v_k) (y_i (s x_i + beta) - v_k)   for v_k in V   (4.4)
         s[j] integer in [min A, max A], a binary, xi >= 0                     (4.5c)

with ``f(v) = log(1 + exp(-v))`` and Sato's tangent sets V0..V3 (the lines at
``+-inf`` are the asymptotes ``xi >= 0`` and ``xi >= -v``). The default set is
V3, which the seed's experiments found best. ``A`` must be a range of
consecutive integers containing 0, so that the integer bounds of ``s`` are
the set itself and an unselected feature scores 0.
"""

from __future__ import annotations

import numpy as np

from .model import Formulation, timed_build
from .tangents import logistic_tangents

__all__ = ["ors", "check_score_set"]


def check_score_set(scores) -> np.ndarray:
    """The score set ``A`` as a sorted integer array; consecutive integers containing 0."""
    A = np.unique(np.asarray(list(scores), dtype=float))
    if A.size == 0:
        raise ValueError("the score set A is empty")
    if np.any(A != np.round(A)):
        raise ValueError("scores must be integers")
    A = A.astype(int)
    if 0 not in A or not np.array_equal(A, np.arange(A.min(), A.max() + 1)):
        raise ValueError(f"the score set must be consecutive integers containing 0, got {A.tolist()}")
    if A.size == 1:
        raise ValueError("the score set must contain a nonzero score")
    return A


@timed_build
def ors(X, y, n_rules: int = 5, scores=range(-5, 6), tangents="V3", exact_rules: bool = False,
        intercept_bound: float | None = None) -> Formulation:
    """Build the Optimal Risk Score MILP (4.5) on binary features.

    Parameters
    ----------
    X : array of shape (n_points, n_features), values in {0, 1}
    y : array of shape (n_points,), values in {-1, +1}
    n_rules : int, default=5
        ``T``: the number of rules (features with nonzero points).
    scores : iterable of int, default=range(-5, 6)
        The score set ``A`` (consecutive integers containing 0).
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float, default="V3"
    exact_rules : bool, default=False
        ``sum_j a_j = T`` (4.2) instead of ``<= T``. An exact count needs ``T <= p``.
    intercept_bound : float, optional
        ``|beta| <= B``; default ``max|A| * T + 10``, beyond which every tangent
        line is flat for any total score.

    Returns
    -------
    Formulation
        ``meta`` holds the data, ``A``, ``T`` and the tangent lines.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    if not np.all(np.isin(X, (0.0, 1.0))):
        raise ValueError("ORS takes binary (0/1) features; for continuous features use the generalized risk score")
    if y.shape != (X.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold one label in {-1, +1} per row of X")
    if not isinstance(n_rules, (int, np.integer)) or isinstance(n_rules, bool) or n_rules < 1:
        raise ValueError(f"n_rules must be an integer >= 1, got {n_rules!r}")
    n, p = X.shape
    if exact_rules and n_rules > p:
        raise ValueError(f"exactly {n_rules} rules need at least that many features, got {p}")
    A = check_score_set(scores)
    M = float(np.abs(A).max())
    B = M * n_rules + 10.0 if intercept_bound is None else float(intercept_bound)
    lines = logistic_tangents(tangents)

    f = Formulation(name=f"ors_T{n_rules}", integrality_tol=1e-6)
    f.add_set("I", np.arange(n))
    f.add_set("J", np.arange(p))
    f.add_set("V", lines.labels)
    a = f.add_variables("a", ("J",), 0.0, 1.0, domain="binary")
    s = f.add_variables("s", ("J",), float(A.min()), float(A.max()), domain="integer")
    f.add_set("one", np.array([0]))
    beta = f.add_variables("beta", ("one",), -B, B)
    xi = f.add_variables("xi", ("I",), 0.0, np.inf)
    f.add_constraints("rule_count", ("one",), [(a.columns[None, :], 1.0)], lower=float(n_rules) if exact_rules
                      else -np.inf, upper=float(n_rules), equation="4.2")
    f.add_constraints("score_upper", ("J",), [(s.columns, 1.0), (a.columns, -M)], upper=0.0, equation="4.3a")
    f.add_constraints("score_lower", ("J",), [(s.columns, 1.0), (a.columns, M)], lower=0.0, equation="4.3b")
    # xi_i - a_k y_i (s x_i + beta) >= c_k, rows ordered (k, i)
    K = len(lines.slopes)
    coef = -lines.slopes[:, None] * y[None, :]                                 # (K, n)
    s_vals = (coef[:, :, None] * X[None, :, :]).reshape(K * n, p)
    terms = [(np.tile(xi.columns, K), 1.0),
             (np.broadcast_to(s.columns, (K * n, p)), s_vals),
             (np.full(K * n, beta.columns[0]), coef.ravel())]
    f.add_constraints("logistic_tangent", ("V", "I"), terms, lower=np.repeat(lines.intercepts, n), equation="4.4")
    f.add_objective(xi, 1.0)
    f.meta.update(kind="ors", X=X, y=y, scores=A, n_rules=int(n_rules), exact_rules=bool(exact_rules), lines=lines,
                  intercept_bound=B)
    return f
