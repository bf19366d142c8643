r"""Optimal risk scores (seed 002, Ch. 4): ORS on binary features (4.5) and OGRS (4.16).

:func:`ogrs` builds the generalized model (4.16) on features scaled to [0, 1]:
``T`` single-clause rules ``x_j >= b_t`` with non-negative points (see its
docstring). :func:`ors` builds the binary-feature model described here.

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

__all__ = ["ors", "ogrs", "check_score_set"]


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


def _binary_columns(X01) -> np.ndarray:
    """Features whose values are only 0 and 1 (the set B_D of 4.15)."""
    return np.all(np.isin(X01, (0.0, 1.0)), axis=0)


@timed_build
def ogrs(X01, y, n_rules: int = 3, max_score: int = 5, tangents="V3", eps: float = 1e-4,
         symmetry_breaking: bool = True, intercept_bound: float | None = None) -> Formulation:
    """Build the Optimal Generalized Risk Score MILP (4.16) on features scaled to ``[0, 1]``.

    ``T`` rules ``x_j >= b_t``, each on one feature (4.16c), each feature at
    most once (4.16d), ordered by feature index (symmetry breaking, 4.16e);
    ``z[i, t]`` is 1 exactly when point ``i`` satisfies rule ``t`` (4.16f-g,
    with the strict side modelled by ``eps``); every rule is satisfied by at
    least one point and not by all (discriminative rules, 4.16h-i); points of
    a satisfied rule ``shat[i, t] = s_t z[i, t]`` linearized with the tightest
    ``M = max|A|`` (4.16j-m); tangent slacks on ``y_i (sum_t shat[i, t] + beta)``
    (4.16n-o); thresholds of binary features fixed at 0.5 (4.16p-q). Points
    are ``s_t`` in ``A = {-max_score, ..., max_score}`` (4.16t): with rules of
    one logic only (Corollary 4.2) the sign carries the direction; Corollary
    4.1 then rewrites the fitted card with non-negative points and rules of
    both logics, which :class:`~optitrees.scorecard.ScoreCard` does.

    Parameters
    ----------
    X01 : array of shape (n_points, n_features), values in [0, 1]
    y : array of shape (n_points,), values in {-1, +1}
    n_rules : int, default=3
        ``T <= p``.
    max_score : int, default=5
        ``M = max|A|``, ``A = {-M, ..., M}``.
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float, default="V3"
    eps : float, default=1e-4
        Strictness of ``x_j < b_t`` (the seed's 1e-4, far above the 1e-6
        integrality tolerance).
    symmetry_breaking : bool, default=True
        Add (4.16e). The greedy warm start drops it to fix earlier rules freely.
    intercept_bound : float, optional
        ``|beta| <= B``; default ``max_score * T + 10``.

    Returns
    -------
    Formulation
    """
    X01 = np.asarray(X01, dtype=float)
    y = np.asarray(y, dtype=float)
    if X01.ndim != 2 or X01.shape[0] < 2 or X01.shape[1] == 0:
        raise ValueError(f"X must be a 2-d array with at least two rows, got shape {X01.shape}")
    if not np.all(np.isfinite(X01)) or X01.min() < 0 or X01.max() > 1:
        raise ValueError("OGRS takes finite features scaled to [0, 1] (the estimator scales them)")
    if y.shape != (X01.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must hold one label in {-1, +1} per row of X")
    n, p = X01.shape
    if not isinstance(n_rules, (int, np.integer)) or isinstance(n_rules, bool) or not 1 <= n_rules <= p:
        raise ValueError(f"n_rules must be an integer in 1..{p} (each feature is used at most once), got {n_rules!r}")
    if not isinstance(max_score, (int, np.integer)) or max_score < 1:
        raise ValueError(f"max_score must be a positive integer, got {max_score!r}")
    if not 0 < eps < 1:
        raise ValueError("eps must be in (0, 1)")
    T, M = int(n_rules), float(max_score)
    B = M * T + 10.0 if intercept_bound is None else float(intercept_bound)
    lines = logistic_tangents(tangents)

    f = Formulation(name=f"ogrs_T{T}", integrality_tol=1e-6)
    f.add_set("I", np.arange(n))
    f.add_set("J", np.arange(p))
    f.add_set("R", np.arange(1, T + 1))
    f.add_set("V", lines.labels)
    f.add_set("one", np.array([0]))
    a = f.add_variables("a", ("J", "R"), 0.0, 1.0, domain="binary")
    b = f.add_variables("b", ("R",), 0.0, 1.0)
    s = f.add_variables("s", ("R",), -M, M, domain="integer")
    z = f.add_variables("z", ("I", "R"), 0.0, 1.0, domain="binary")
    shat = f.add_variables("shat", ("I", "R"), -M, M)
    beta = f.add_variables("beta", ("one",), -B, B)
    zeta = f.add_variables("zeta", ("I",), 0.0, np.inf)

    f.add_constraints("one_feature", ("R",), [(a.columns.T, 1.0)], lower=1.0, upper=1.0, equation="4.16c")
    f.add_constraints("feature_once", ("J",), [(a.columns, 1.0)], upper=1.0, equation="4.16d")
    if symmetry_breaking and T > 1:
        # rows (j, t): sum_{k > j, s < t} a[k, s] + T a[j, t] <= T
        later = (np.arange(p)[None, :] > np.arange(p)[:, None]).astype(float)       # (j, k)
        earlier = (np.arange(T)[None, :] < np.arange(T)[:, None]).astype(float)     # (t, s)
        coef = (later[:, None, :, None] * earlier[None, :, None, :]).reshape(p * T, p * T)
        f.add_constraints("symmetry", ("J", "R"),
                          [(np.broadcast_to(a.columns.ravel(), (p * T, p * T)), coef), (a.columns.ravel(), float(T))],
                          upper=float(T), equation="4.16e")
    # a_t x_i for rows (t, i): p nonzeros each
    ax_cols = np.broadcast_to(a.columns.T[:, None, :], (T, n, p)).reshape(T * n, p)
    ax_vals = np.broadcast_to(X01[None], (T, n, p)).reshape(T * n, p)
    zc = z.columns.T.ravel()
    bc = np.repeat(b.columns, n)
    f.add_constraints("rule_satisfied", ("R", "I"), [(ax_cols, ax_vals), (bc, -1.0), (zc, -1.0)], lower=-1.0,
                      equation="4.16f")
    f.add_constraints("rule_violated", ("R", "I"), [(ax_cols, ax_vals), (bc, -1.0), (zc, -1.0)], upper=-eps,
                      equation="4.16g")
    f.add_constraints("discriminative", ("R",), [(z.columns.T, 1.0)], lower=1.0, upper=float(n - 1),
                      equation="4.16h-i")
    sc = np.repeat(s.columns, n)
    hc = shat.columns.T.ravel()
    f.add_constraints("points_on", ("R", "I"), [(hc, 1.0), (sc, -1.0), (zc, -M)], lower=-M, equation="4.16j")
    f.add_constraints("points_at_most", ("R", "I"), [(hc, 1.0), (sc, -1.0), (zc, M)], upper=M, equation="4.16k")
    f.add_constraints("points_off_low", ("R", "I"), [(hc, 1.0), (zc, M)], lower=0.0, equation="4.16l")
    f.add_constraints("points_off", ("R", "I"), [(hc, 1.0), (zc, -M)], upper=0.0, equation="4.16m")
    # tangent rows (k, i): zeta_i - a_k y_i (sum_t shat[i, t] + beta) >= c_k   (4.16n substituted)
    K = len(lines.slopes)
    coef = -lines.slopes[:, None] * y[None, :]
    f.add_constraints("logistic_tangent", ("V", "I"),
                      [(np.tile(zeta.columns, K), 1.0),
                       (np.tile(shat.columns, (K, 1)), np.repeat(coef.ravel()[:, None], T, axis=1)),
                       (np.full(K * n, beta.columns[0]), coef.ravel())],
                      lower=np.repeat(lines.intercepts, n), equation="4.16o")
    binary = _binary_columns(X01)
    if binary.any():
        jb = np.flatnonzero(binary)
        f.add_set("J_binary", jb)
        # rows (j, t): b_t - a[j, t] >= -0.5  and  b_t + a[j, t] <= 1.5
        f.add_constraints("binary_threshold_low", ("J_binary", "R"),
                          [(np.tile(b.columns, len(jb)), 1.0), (a.columns[jb].ravel(), -1.0)], lower=-0.5,
                          equation="4.16p")
        f.add_constraints("binary_threshold_high", ("J_binary", "R"),
                          [(np.tile(b.columns, len(jb)), 1.0), (a.columns[jb].ravel(), 1.0)], upper=1.5,
                          equation="4.16q")
    f.add_objective(zeta, 1.0)
    f.meta.update(kind="ogrs", X=X01, y=y, n_rules=T, max_score=int(max_score), lines=lines, eps=float(eps),
                  intercept_bound=B, binary=binary)
    return f
