r"""The optimal risk score on binary features (seed 002, 4.5), its spec, decoding and start.

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

from dataclasses import dataclass

import numpy as np

from ..mip import Formulation, timed_build
from ..scaling import ScaledData
from ..scorecard import ScoreCard
from . import blocks
from .family import MIPFamily
from .risk_scores import card_loss, check_score_set, default_intercept_bound, tangent_terms
from .tangents import TANGENT_SETS, TangentLines, logistic_tangents

__all__ = ["ORSSpec", "ORSProblem", "build", "ors", "decode", "start", "finalize", "objective", "ORS_FAMILY"]


@dataclass(frozen=True)
class ORSSpec:
    """Settings of ORS (4.5); :meth:`create` checks them.

    Attributes
    ----------
    n_rules : int
        ``T``.
    scores : ndarray of int
        The score set ``A``.
    tangents : str or tuple of float
    exact_rules : bool
        ``sum_j a_j = T`` instead of ``<= T``.
    forbidden : tuple of int
        Features the card may not use.
    """

    n_rules: int
    scores: np.ndarray
    tangents: object = "V3"
    exact_rules: bool = False
    forbidden: tuple = ()

    @classmethod
    def create(cls, n_rules=5, scores=range(-5, 6), tangents="V3", exact_rules=False, forbidden=()) -> "ORSSpec":
        if not isinstance(n_rules, (int, np.integer)) or isinstance(n_rules, bool) or n_rules < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {n_rules!r}")
        if isinstance(tangents, str) and tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {tangents!r}")
        return cls(int(n_rules), check_score_set(scores), tangents, bool(exact_rules),
                   tuple(int(j) for j in forbidden))


@dataclass(frozen=True)
class ORSProblem:
    """A spec with its binary data (``data.y`` in ``{-1, +1}``), tangent lines and intercept bound."""

    spec: ORSSpec
    data: ScaledData
    lines: TangentLines
    intercept_bound: float

    @classmethod
    def create(cls, spec: ORSSpec, data: ScaledData, intercept_bound=None) -> "ORSProblem":
        X, y = data.X, np.asarray(data.y, float)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
        if not np.all(np.isin(X, (0.0, 1.0))):
            raise ValueError("ORS takes binary (0/1) features; for continuous features use the generalized risk "
                             "score (GeneralizedRiskScoreClassifier, model 4.16), or binarize them first")
        if y.shape != (X.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("y must hold one label in {-1, +1} per row of X")
        if spec.exact_rules and spec.n_rules > X.shape[1] - len(spec.forbidden):
            raise ValueError(f"exactly {spec.n_rules} rules need at least that many usable features, got "
                             f"{X.shape[1] - len(spec.forbidden)}")
        B = default_intercept_bound(np.abs(spec.scores).max(), spec.n_rules) if intercept_bound is None \
            else float(intercept_bound)
        return cls(spec, data, logistic_tangents(spec.tangents), B)


@timed_build
def build(problem: ORSProblem) -> Formulation:
    """The ORS MILP (4.5) of ``problem``."""
    spec = problem.spec
    X, y = problem.data.X, np.asarray(problem.data.y, float)
    n, p = X.shape
    A = spec.scores
    M = float(np.abs(A).max())
    lines = problem.lines
    f = Formulation(name=f"ors_T{spec.n_rules}", integrality_tol=1e-6)
    f.problem = problem
    f.add_set("I", np.arange(n))
    f.add_set("J", problem.data.labels)
    f.add_set("V", lines.labels)
    a = f.add_variables("a", ("J",), 0.0, 1.0, domain="binary")
    s = f.add_variables("s", ("J",), float(A.min()), float(A.max()), domain="integer")
    f.add_set("one", np.array([0]))
    beta = f.add_variables("beta", ("one",), -problem.intercept_bound, problem.intercept_bound)
    xi = f.add_variables("xi", ("I",), 0.0, np.inf)
    f.add_constraints("rule_count", ("one",), [(a.columns[None, :], 1.0)],
                      lower=float(spec.n_rules) if spec.exact_rules else -np.inf, upper=float(spec.n_rules),
                      equation="4.2")
    f.add_constraints("score_upper", ("J",), [(s.columns, 1.0), (a.columns, -M)], upper=0.0, equation="4.3a")
    f.add_constraints("score_lower", ("J",), [(s.columns, 1.0), (a.columns, M)], lower=0.0, equation="4.3b")
    K = len(lines.slopes)

    def score_terms(coef):                    # sum_j coef[k, i] x_ij s_j, p nonzeros per row
        return [(np.broadcast_to(s.columns, (K * n, p)), (coef[:, :, None] * X[None, :, :]).reshape(K * n, p))]

    terms, lower = tangent_terms(lines, y, xi, score_terms, beta)
    f.add_constraints("logistic_tangent", ("V", "I"), terms, lower=lower, equation="4.4")
    f.add_objective(xi, 1.0)
    if spec.forbidden:
        blocks.forbid_features(f, a, spec.forbidden)
    return f


def ors(X, y, n_rules: int = 5, scores=range(-5, 6), tangents="V3", exact_rules: bool = False,
        intercept_bound: float | None = None, forbidden=(), feature_names=None) -> Formulation:
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
        ``|beta| <= B``; default ``max|A| * T + 10``.
    forbidden : sequence of int, optional
    feature_names : sequence of str, optional

    Returns
    -------
    Formulation
        With ``problem`` an :class:`ORSProblem`.
    """
    spec = ORSSpec.create(n_rules, scores, tangents, exact_rules, forbidden)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    return build(ORSProblem.create(spec, ScaledData.create(X, np.asarray(y, float), None, feature_names),
                                   intercept_bound))


def card_from_points(points, intercept) -> ScoreCard:
    """The card of points ``s_j`` per binary feature (rules ``x_j = 1`` on the features with nonzero points)."""
    points = np.asarray(points, float)
    used = np.flatnonzero(points)
    T = len(used)
    return ScoreCard(used, np.full(T, 0.5), np.ones(T, bool), np.round(points[used]), intercept, np.ones(T, bool))


def decode(f, x) -> tuple[ScoreCard, dict]:
    """The card of a solution, and the MIP objective recomputed from it."""
    problem = f.problem
    v = f.values(x)
    card = card_from_points(np.round(v["s"]), float(v["beta"][0]))
    y = np.asarray(problem.data.y, float)
    recomputed = float(problem.lines(y * card.decision_function(problem.data.X)).sum())
    return card, {"objective_recomputed": recomputed, "rules": card.n_rules}


def start(f, card: ScoreCard) -> np.ndarray:
    """Complete assignment for a card of rules ``x_j = 1`` (exactly ``T`` rules padded with zero-point features)."""
    problem = f.problem
    X, y = problem.data.X, np.asarray(problem.data.y, float)
    p = X.shape[1]
    s = np.zeros(p)
    s[card.features] = np.where(card.greater, card.points, -card.points)
    beta = card.intercept + float(card.points[~card.greater].sum())   # x = 0 rules flipped back (Theorem 4.1)
    a = (s != 0).astype(float)
    if problem.spec.exact_rules:
        free = np.setdiff1d(np.flatnonzero(a == 0), problem.spec.forbidden)
        a[free[: problem.spec.n_rules - int(a.sum())]] = 1.0
    return f.vector({"a": a, "s": s, "beta": [beta], "xi": problem.lines(y * (X @ s + beta))})


def objective(problem: ORSProblem, card: ScoreCard) -> float:
    """Exact training logistic loss of a card."""
    return card_loss(card, problem.data.X_original, problem.data.y)


def finalize(problem: ORSProblem, card: ScoreCard) -> ScoreCard:
    """The card with a short intercept that changes no training prediction."""
    return card.with_readable_intercept(problem.data.X_original, problem.data.y)


ORS_FAMILY = MIPFamily("ors", build=build, start=start, decode=decode, finalize=finalize, objective=objective)
