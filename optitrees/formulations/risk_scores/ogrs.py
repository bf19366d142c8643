r"""The optimal generalized risk score (seed 002, model 4.16): rules ``x_j >= b_t`` learned with their points.

On features scaled to ``[0, 1]``: ``T`` rules ``x_j >= b_t``, each on one
feature (4.16c), each feature at most once (4.16d), ordered by feature index
(symmetry breaking, 4.16e); ``z[i, t]`` is 1 exactly when point ``i``
satisfies rule ``t`` (4.16f-g, the strict side modelled by ``eps``); every
rule is satisfied by at least one point and not by all (discriminative rules,
4.16h-i); points of a satisfied rule ``shat[i, t] = s_t z[i, t]`` linearized
with the tightest ``M = max|A|`` (4.16j-m); tangent slacks on
``y_i (sum_t shat[i, t] + beta)`` (4.16n-o); thresholds of two-valued features
fixed at 0.5 (4.16p-q). Points are ``s_t`` in ``A = {-M, ..., M}`` (4.16t):
with rules of one logic only (Corollary 4.2) the sign carries the direction;
Corollary 4.1 then rewrites the fitted card with non-negative points and
rules of both logics (:meth:`~optitrees.scorecard.ScoreCard.all_positive`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...mip import Formulation, timed_build
from ...mip.expressions import Data
from ...readable import readable_between
from ...scaling import ScaledData
from ...scorecard import ScoreCard
from .. import blocks
from ..family import MIPFamily
from ..feature_budget import FeatureUse
from ..tangents import TANGENT_SETS, TangentLines, logistic_tangents
from .shared import POSITIVE_MARGIN, card_loss, default_intercept_bound

__all__ = ["OGRSSpec", "OGRSProblem", "build", "ogrs", "decode", "start", "finalize", "objective",
           "predicted_positive", "OGRS_FAMILY"]


@dataclass(frozen=True)
class OGRSSpec:
    """Settings of OGRS (4.16); :meth:`create` checks them.

    Attributes
    ----------
    n_rules : int
        ``T``.
    max_score : int
        ``M``; points in ``-M..M``.
    tangents : str or tuple of float
    eps : float
        Strictness of ``x_j < b_t`` on the ``[0, 1]`` scale (the seed's 1e-4).
    symmetry_breaking : bool
        Add (4.16e). The greedy start drops it to fix earlier rules freely.
    positive_points : bool
        Report the card with non-negative points (Corollary 4.1).
    forbidden : tuple of int
    """

    n_rules: int
    max_score: int = 5
    tangents: object = "V3"
    eps: float = 1e-4
    symmetry_breaking: bool = True
    positive_points: bool = True
    forbidden: tuple = ()

    @classmethod
    def create(cls, n_rules=3, max_score=5, tangents="V3", eps=1e-4, symmetry_breaking=True, positive_points=True,
               forbidden=()) -> "OGRSSpec":
        if not isinstance(n_rules, (int, np.integer)) or isinstance(n_rules, bool) or n_rules < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {n_rules!r}")
        if not isinstance(max_score, (int, np.integer)) or isinstance(max_score, bool) or max_score < 1:
            raise ValueError(f"max_score must be a positive integer, got {max_score!r}")
        if not 0 < eps < 0.5:
            raise ValueError(f"eps must be in (0, 0.5), got {eps!r}")
        if isinstance(tangents, str) and tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {tangents!r}")
        return cls(int(n_rules), int(max_score), tangents, float(eps), bool(symmetry_breaking),
                   bool(positive_points), tuple(int(j) for j in forbidden))


@dataclass(frozen=True)
class OGRSProblem:
    """A spec with its data (``data.X`` in ``[0, 1]``, ``data.y`` in ``{-1, +1}``) and derived constants.

    Attributes
    ----------
    binary : ndarray of bool of shape (p,)
        Features with two values, 0 and 1 on the ``[0, 1]`` scale (the set ``B_D`` of 4.15).
    """

    spec: OGRSSpec
    data: ScaledData
    lines: TangentLines
    intercept_bound: float
    binary: np.ndarray

    @classmethod
    def create(cls, spec: OGRSSpec, data: ScaledData, intercept_bound=None) -> "OGRSProblem":
        X01, y = data.X, np.asarray(data.y, float)
        if X01.ndim != 2 or X01.shape[0] < 2 or X01.shape[1] == 0:
            raise ValueError(f"X must be a 2-d array with at least two rows, got shape {X01.shape}")
        if not np.all(np.isfinite(X01)) or X01.min() < 0 or X01.max() > 1:
            raise ValueError("OGRS takes finite features scaled to [0, 1] (the estimator scales them)")
        if y.shape != (X01.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("y must hold one label in {-1, +1} per row of X")
        usable = np.setdiff1d(np.flatnonzero(np.ptp(X01, axis=0) > 0), spec.forbidden)
        if spec.n_rules > len(usable):
            raise ValueError(f"n_rules={spec.n_rules} exceeds the {len(usable)} usable features (non-constant, "
                             "not forbidden); each feature is used at most once")
        B = default_intercept_bound(spec.max_score, spec.n_rules) if intercept_bound is None \
            else float(intercept_bound)
        return cls(spec, data, logistic_tangents(spec.tangents), B, np.all(np.isin(X01, (0.0, 1.0)), axis=0))


@timed_build
def build(problem: OGRSProblem) -> Formulation:
    """The OGRS MILP (4.16) of ``problem`` (see the module docstring)."""
    spec = problem.spec
    X01, y = problem.data.X, np.asarray(problem.data.y, float)
    n, p = X01.shape
    T, M = spec.n_rules, float(spec.max_score)
    lines = problem.lines
    f = Formulation(name=f"ogrs_T{T}", integrality_tol=1e-6)
    f.problem = problem
    f.add_set("I", np.arange(n))
    f.add_set("J", problem.data.labels)
    f.add_set("R", np.arange(1, T + 1))
    f.add_set("V", lines.labels)
    f.add_set("one", np.array([0]))
    a = f.add_variables("a", ("J", "R"), 0.0, 1.0, domain="binary")
    b = f.add_variables("b", ("R",), 0.0, 1.0)
    s = f.add_variables("s", ("R",), -M, M, domain="integer")
    z = f.add_variables("z", ("I", "R"), 0.0, 1.0, domain="binary")
    shat = f.add_variables("shat", ("I", "R"), -M, M)
    beta = f.add_variables("beta", ("one",), -problem.intercept_bound, problem.intercept_bound)
    zeta = f.add_variables("zeta", ("I",), 0.0, np.inf)

    f.add_constraints("one_feature", a.sum("J") == 1, equation="4.16c")
    f.add_constraints("feature_once", a.sum("R") <= 1, equation="4.16d")
    if spec.symmetry_breaking and T > 1:
        # sum_{k > j, s < t} a[k, s] + T a[j, t] <= T: a later feature in an earlier rule rules a[j, t] out
        f.add_set("J_later", f.sets["J"]), f.add_set("R_earlier", f.sets["R"])
        later = np.arange(p)[None, :] > np.arange(p)[:, None]                      # (j, k)
        earlier = np.arange(T)[None, :] < np.arange(T)[:, None]                    # (t, s)
        before = Data(later[:, None, :, None] & earlier[None, :, None, :], ("J", "R", "J_later", "R_earlier"))
        ahead = (a.rename(J="J_later", R="R_earlier") * before).sum("J_later", "R_earlier")
        f.add_constraints("symmetry", ahead + T * a <= T, equation="4.16e")
    x = (a * Data(X01, ("I", "J"))).sum("J")                                       # a_t x_i over (R, I)
    f.add_constraints("rule_satisfied", x - b - z.transpose("R", "I") >= -1.0, equation="4.16f")
    f.add_constraints("rule_violated", x - b - z.transpose("R", "I") <= -spec.eps, equation="4.16g")
    f.add_constraints("discriminative", z.sum("I"), lower=1.0, upper=float(n - 1), equation="4.16h-i")
    on = shat.transpose("R", "I")
    f.add_constraints("points_on", on - s - M * z >= -M, equation="4.16j")
    f.add_constraints("points_at_most", on - s + M * z <= M, equation="4.16k")
    f.add_constraints("points_off_low", on + M * z >= 0, equation="4.16l")
    f.add_constraints("points_off", on - M * z <= 0, equation="4.16m")
    # zeta_i >= c_k + a_k y_i (sum_t shat[i, t] + beta)
    slope = Data(lines.slopes[:, None] * y[None, :], ("V", "I"))
    rows = zeta - slope * (shat.sum("R") + beta.sum()) >= Data(lines.intercepts, ("V",))
    f.add_constraints("logistic_tangent", rows.transpose("V", "I"), equation="4.16o")
    if problem.binary.any():
        # b_t - a[j, t] >= -0.5 and b_t + a[j, t] <= 1.5 on the 0/1 features: the threshold between 0 and 1
        binary = a.isel(J=np.flatnonzero(problem.binary)).rename(J="J_binary")
        f.add_set("J_binary", f.sets["J"][problem.binary])
        f.add_constraints("binary_threshold_low", (b - binary >= -0.5).transpose("J_binary", "R"), equation="4.16p")
        f.add_constraints("binary_threshold_high", (b + binary <= 1.5).transpose("J_binary", "R"), equation="4.16q")
    if spec.forbidden:
        blocks.forbid_features(f, a, spec.forbidden, axis=0)
    f.add_objective(zeta, problem.data.weight if problem.data.weighted else 1.0)      # sum_i v_i zeta_i
    return f


def ogrs(X01, y, n_rules: int = 3, max_score: int = 5, tangents="V3", eps: float = 1e-4,
         symmetry_breaking: bool = True, intercept_bound: float | None = None, forbidden=(),
         feature_names=None) -> Formulation:
    """Build the OGRS MILP (4.16) on features scaled to ``[0, 1]`` (see :class:`OGRSSpec` for the settings).

    Returns
    -------
    Formulation
        With ``problem`` an :class:`OGRSProblem`.
    """
    spec = OGRSSpec.create(n_rules, max_score, tangents, eps, symmetry_breaking, True, forbidden)
    X01 = np.asarray(X01, dtype=float)
    if X01.ndim != 2:
        raise ValueError(f"X must be a 2-d array with at least two rows, got shape {X01.shape}")
    return build(OGRSProblem.create(spec, ScaledData.create(X01, np.asarray(y, float), None, feature_names),
                                    intercept_bound))


def card_from_rules(problem: OGRSProblem, features, b, points, intercept) -> ScoreCard:
    """A card on the ``[0, 1]`` scale from rules ``x_j >= b_t``: the threshold sits in the middle of the gap
    ``eps`` the MIP leaves below ``b_t`` (0.5 on two-valued features)."""
    features = np.asarray(features, int)
    binary = problem.binary[features]
    thr = np.where(binary, 0.5, np.asarray(b, float) - problem.spec.eps / 2)
    return ScoreCard(features, thr, np.ones(len(features), bool), np.round(points), intercept, binary)


def decode(f, x) -> tuple[ScoreCard, dict]:
    """The card of a solution (``[0, 1]`` scale), whether its rules agree with ``z``, and its MIP objective."""
    problem = f.problem
    v = f.values(x)
    card = card_from_rules(problem, np.argmax(v["a"], axis=0), v["b"], v["s"], float(v["beta"][0]))
    X01, y = problem.data.X, np.asarray(problem.data.y, float)
    mismatches = int(np.sum(card.rules(X01) != np.round(v["z"])))
    recomputed = problem.data.weighted_sum(problem.lines(y * card.decision_function(X01)))
    return card, {"rule_mismatches": mismatches, "objective_recomputed": recomputed}


def start(f, card: ScoreCard) -> np.ndarray:
    """Complete assignment for a card of ``T`` rules on distinct features (``[0, 1]`` scale).

    Rules ``x_j < b`` are flipped to ``x_j >= b`` (Theorem 4.1), sorted by
    feature (4.16e); ``b_t`` is the smallest value satisfying the rule (0.5 on
    two-valued features).
    """
    problem = f.problem
    X01, y = problem.data.X, np.asarray(problem.data.y, float)
    for k in np.flatnonzero(~card.greater):
        card = card.flip(int(k))
    order = np.argsort(card.features, kind="stable")
    feats, thr, s = card.features[order], card.thresholds[order], card.points[order].astype(float)
    T, p = len(feats), X01.shape[1]
    z = (X01[:, feats] >= thr[None, :]).astype(float)
    b = np.array([0.5 if problem.binary[j] else X01[z[:, k] > 0, j].min(initial=1.0) for k, j in enumerate(feats)])
    a = np.zeros((p, T))
    a[feats, np.arange(T)] = 1.0
    shat = z * s[None, :]
    zeta = problem.lines(y * (shat.sum(axis=1) + card.intercept))
    return f.vector({"a": a, "b": b, "s": s, "z": z, "shat": shat, "beta": [card.intercept], "zeta": zeta})


def objective(problem: OGRSProblem, card: ScoreCard) -> float:
    """Exact training logistic loss of a card in the user's units."""
    return card_loss(card, problem.data.X_original, problem.data.y, problem.data.fit_weight)


def finalize(problem: OGRSProblem, card: ScoreCard) -> ScoreCard:
    """The card in the user's units: each threshold a short number strictly between the largest training
    value that fails the rule and the smallest that passes it; 0/1 features read ``x = 1``; non-negative
    points (Corollary 4.1) when the spec asks; a short intercept that changes no training prediction."""
    X01, Xo = problem.data.X, problem.data.X_original
    satisfied = card.rules(X01) > 0
    greater_sat = np.where(card.greater[None, :], satisfied, ~satisfied)          # points with x_j >= b
    thresholds = [readable_between(Xo[~greater_sat[:, k], j].max(initial=-np.inf),
                                   Xo[greater_sat[:, k], j].min(initial=np.inf))
                  for k, j in enumerate(card.features)]
    zero_one = np.all(np.isin(Xo[:, card.features], (0.0, 1.0)), axis=0)
    out = ScoreCard(card.features, thresholds, card.greater, card.points, card.intercept, zero_one)
    if problem.spec.positive_points:
        out = out.all_positive()
    return out.with_readable_intercept(Xo, problem.data.y, sample_weight=problem.data.weight)


def feature_use(f) -> list[FeatureUse]:
    """A generalized score reads feature ``j`` when a rule tests it: ``a[j, r] = 1`` (4.16)."""
    return [FeatureUse(f.variables["a"])]


def monotone(f, signs) -> None:
    """``monotonic_cst`` held by the MIP: a rule ``x_j >= b`` on a constrained feature adds points of the
    constraint's sign, ``s_r >= -M (1 - a[j, r])`` for +1 and ``s_r <= M (1 - a[j, r])`` for -1 (4.16's ``s``
    and ``a``, ``M`` the largest score)."""
    a, s = f.variables["a"], f.variables["s"]
    M = float(f.problem.spec.max_score)
    for sign, name in ((1, "monotone_up"), (-1, "monotone_down")):
        features = np.flatnonzero(np.asarray(signs) == sign)
        if len(features) == 0:
            continue
        set_name = f"J_{name}"
        labels = f.add_set(set_name, np.asarray(f.sets["J"])[features])
        rows = float(sign) * s - M * a.sel(J=list(labels)).rename(J=set_name) >= -M
        f.add_constraints(name, rows.transpose(set_name, "R"), equation="monotone rule points")


def predicted_positive(f):
    """``positive[i]`` binary: the card predicts row ``i`` positive, its score ``sum_t shat[i, t] + beta`` (4.16j-m)
    above 0. With ``M = T max_score + B`` (the intercept bound ``B``) and the margin ``e``
    (:data:`~optitrees.formulations.risk_scores.shared.POSITIVE_MARGIN`)::

        sum_t shat[i, t] + beta <= M p[i]                              (positive_upper)
        sum_t shat[i, t] + beta >= e - (M + e) (1 - p[i])              (positive_lower)

    A parity block's rates are linear in ``p`` (:func:`optitrees.fairness.block.add_row_parity`)."""
    problem = f.problem
    shat = f.variables["shat"]
    M = shat.shape[1] * float(problem.spec.max_score) + problem.intercept_bound
    positive = f.add_variables("positive", ("I",), 0.0, 1.0, domain="binary")
    score = shat.sum("R") + f.variables["beta"].sum()
    f.add_constraints("positive_upper", score - M * positive <= 0, equation="sum_t shat + beta <= M p")
    f.add_constraints("positive_lower", score - (M + POSITIVE_MARGIN) * positive >= -M,
                      equation="sum_t shat + beta >= e - (M + e)(1 - p)")
    return positive


OGRS_FAMILY = MIPFamily("ogrs", build=build, start=start, decode=decode, finalize=finalize, objective=objective,
                        feature_use=feature_use, fewest_features=lambda problem: problem.spec.n_rules,
                        monotone=monotone, predicted_positive=predicted_positive)
