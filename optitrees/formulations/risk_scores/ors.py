r"""The optimal risk score (seed 002, 4.5), its spec, decoding and start.

A risk score assigns an integer number of points ``s_j`` to each of at most
(or exactly) ``T`` features; the total score plus an intercept ``beta``,
divided by a multiplier ``m`` (1 in the seed), is the log-odds of the
positive class::

    min  sum_{i in I} xi[i]                                                   (4.5a)
    s.t. sum_j a[j] = T      (or <= T)                                         (4.2)
         l_j a[j] <= s[j] <= u_j a[j]                                          (4.3)
         xi[i] >= f(v_k) + f'(v_k) (y_i (s x_i + beta) / m - v_k)  for v_k in V  (4.4)
         s[j] integer, a binary, xi >= 0                                       (4.5c)

with ``f(v) = log(1 + exp(-v))`` and Sato's tangent sets V0..V3 (the lines at
``+-inf`` are the asymptotes ``xi >= 0`` and ``xi >= -v``). The default set is
V3, which the seed's experiments found best. The bounds ``l_j..u_j`` are
the score set ``A`` (consecutive integers containing 0) unless a feature has
its own (a monotone feature: ``l_j = 0``); groups of features (one-hot
columns of one variable) hold at most one rule each. 0/1 features give rules
``x_j = 1``; integer-valued features (counts, 1-10 scales) score ``s_j`` points
per unit, as FasterRisk scores them. For large data the per-point tangent rows
are replaced by one loss variable and cuts on the aggregate loss
(:mod:`optitrees.formulations.risk_scores.ors_master`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...mip import Formulation, timed_build
from ...mip.expressions import Data
from ...scaling import ScaledData
from ...scorecard import ScoreCard
from ...solvers.strategies import BranchAndCut
from ..family import MIPFamily
from ..feature_budget import FeatureUse
from ..tangents import TANGENT_SETS, TangentLines, logistic_loss, logistic_tangents
from .aggregate_loss import AggregateLoss
from .shared import POSITIVE_MARGIN, add_point_rules, card_loss, check_score_set

__all__ = ["ORSSpec", "ORSProblem", "build", "ors", "card_from_points", "points_of", "decode", "start", "finalize",
           "objective", "predicted_positive", "POSITIVE_MARGIN", "ORS_FAMILY"]


@dataclass(frozen=True)
class ORSSpec:
    """Settings of ORS (4.5); :meth:`create` checks them.

    Attributes
    ----------
    n_rules : int
        ``T``.
    scores : ndarray of int
        The score set ``A`` (the default bounds of every feature's points).
    tangents : str or tuple of float
    exact_rules : bool
        ``sum_j a_j = T`` instead of ``<= T``.
    forbidden : tuple of int
        Features the card may not use.
    bounds : tuple of (int, int, int)
        ``(j, lower, upper)``: feature ``j``'s points lie in ``lower..upper``
        when it is used (``lower >= 0``: never negative).
    groups : tuple of tuple of int
        At most one feature of each group is used (one-hot columns of one variable).
    multiplier : "auto" or float
        The log-odds are ``(total + beta) / multiplier``; ``"auto"``: chosen by
        the warm-start search (:mod:`optitrees.algorithms.risk_scores.beam_search`), then fixed.
    method : {"tangents", "cutting_planes"}
        Per-point tangent lines (4.4) or the aggregate-loss master of
        :mod:`optitrees.formulations.risk_scores.ors_master`.
    """

    n_rules: int
    scores: np.ndarray
    tangents: object = "V3"
    exact_rules: bool = False
    forbidden: tuple = ()
    bounds: tuple = ()
    groups: tuple = ()
    multiplier: object = 1.0
    method: str = "tangents"

    @classmethod
    def create(cls, n_rules=5, scores=range(-5, 6), tangents="V3", exact_rules=False, forbidden=(), bounds=(),
               groups=(), multiplier=1.0, method="tangents") -> "ORSSpec":
        if not isinstance(n_rules, (int, np.integer)) or isinstance(n_rules, bool) or n_rules < 1:
            raise ValueError(f"n_rules must be an integer >= 1, got {n_rules!r}")
        if isinstance(tangents, str) and tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {tangents!r}")
        if method not in ("tangents", "cutting_planes"):
            raise ValueError(f"method must be 'tangents' or 'cutting_planes', got {method!r}")
        if not (multiplier == "auto" or (isinstance(multiplier, (int, float, np.number)) and not
                                         isinstance(multiplier, bool) and np.isfinite(multiplier) and multiplier > 0)):
            raise ValueError(f"multiplier must be 'auto' or a positive number, got {multiplier!r}")
        checked = []
        for entry in bounds:
            j, lo, hi = entry
            if lo != int(lo) or hi != int(hi) or lo > hi:
                raise ValueError(f"the point bounds of feature {j} must be integers lower <= upper, got ({lo}, {hi})")
            checked.append((int(j), int(lo), int(hi)))
        groups = tuple(tuple(int(j) for j in g) for g in groups)
        seen = [j for g in groups for j in g]
        if len(seen) != len(set(seen)):
            raise ValueError("a feature is in more than one group")
        return cls(int(n_rules), check_score_set(scores), tangents, bool(exact_rules),
                   tuple(int(j) for j in forbidden), tuple(checked), groups,
                   multiplier if multiplier == "auto" else float(multiplier), method)


@dataclass(frozen=True)
class ORSProblem:
    """A spec with its data (``data.y`` in ``{-1, +1}``), per-feature point bounds, multiplier and
    intercept bound.

    ``per_unit`` marks the integer-valued features that are not 0/1: they are
    scored as points x value. ``rows`` is the training loss on the distinct
    rows, compressed once (see :attr:`loss`). ``starts`` holds cards found before the build
    (the warm-start search that fixed the multiplier).
    """

    spec: ORSSpec
    data: ScaledData
    lines: TangentLines
    intercept_bound: float
    lower: np.ndarray
    upper: np.ndarray
    per_unit: np.ndarray
    multiplier: float = 1.0
    starts: dict = None
    fixed_intercept_bound: bool = False
    rows: AggregateLoss = None

    @classmethod
    def create(cls, spec: ORSSpec, data: ScaledData, intercept_bound=None) -> "ORSProblem":
        X, y = data.X, np.asarray(data.y, float)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
        if not np.all(np.isfinite(X)) or not np.array_equal(X, np.round(X)):
            raise ValueError("ORS takes binary (0/1) or integer-valued features (scored as points x value); for "
                             "continuous features use the generalized risk score (GeneralizedRiskScoreClassifier, "
                             "model 4.16), or binarize them first")
        if y.shape != (X.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("y must hold one label in {-1, +1} per row of X")
        p = X.shape[1]
        if spec.exact_rules and spec.n_rules > p - len(spec.forbidden):
            raise ValueError(f"exactly {spec.n_rules} rules need at least that many usable features, got "
                             f"{p - len(spec.forbidden)}")
        lower = np.full(p, float(spec.scores.min()))
        upper = np.full(p, float(spec.scores.max()))
        for j, lo, hi in spec.bounds:
            if not 0 <= j < p:
                raise ValueError(f"point bounds given for feature {j}, but X has {p} features")
            lower[j], upper[j] = lo, hi
        for g in spec.groups:
            if any(not 0 <= j < p for j in g):
                raise ValueError(f"group {list(g)} names a feature outside 0..{p - 1}")
        per_unit = ~np.all(np.isin(X, (0.0, 1.0)), axis=0)
        m = 1.0 if spec.multiplier == "auto" else float(spec.multiplier)
        problem = cls(spec, data, logistic_tangents(spec.tangents), 0.0, lower, upper, per_unit, 1.0, {},
                      intercept_bound is not None, AggregateLoss.from_data(X, y, sample_weight=data.weight))
        return problem.with_multiplier(m, intercept_bound=intercept_bound)

    def with_multiplier(self, multiplier: float, starts=None, intercept_bound=None) -> "ORSProblem":
        """The problem at another multiplier (and intercept bound ``10 m + sum of the T largest
        max|points_j| max|x_j|``, beyond which every point's log-odds keep their sign)."""
        if intercept_bound is None and self.fixed_intercept_bound:
            intercept_bound = self.intercept_bound
        if intercept_bound is None:
            reach = np.maximum(np.abs(self.lower), np.abs(self.upper)) * np.abs(self.data.X).max(axis=0)
            intercept_bound = 10.0 * multiplier + float(np.sort(reach)[::-1][: self.spec.n_rules].sum())
        return replace(self, multiplier=float(multiplier), intercept_bound=float(intercept_bound),
                       starts=dict(self.starts or {}) if starts is None else dict(starts))

    @property
    def loss(self) -> AggregateLoss:
        """The exact training loss on the distinct rows, at this multiplier."""
        return self.rows.with_multiplier(self.multiplier)


@timed_build
def build(problem: ORSProblem) -> Formulation:
    """The ORS MILP of ``problem``: the tangent model (4.5), or the aggregate-loss master when
    ``spec.method == "cutting_planes"``."""
    if problem.spec.method == "cutting_planes":
        from .ors_master import build_master

        return build_master(problem)
    spec = problem.spec
    X, y = problem.data.X, np.asarray(problem.data.y, float)
    n, p = X.shape
    lines = problem.lines
    f = Formulation(name=f"ors_T{spec.n_rules}", integrality_tol=1e-6)
    f.problem = problem
    f.add_set("I", np.arange(n))
    f.add_set("V", lines.labels)
    a, s = add_point_rules(f, problem.data.labels, problem.lower, problem.upper, spec.n_rules, spec.exact_rules,
                           spec.groups, spec.forbidden)
    beta = f.add_variables("beta", ("one",), -problem.intercept_bound, problem.intercept_bound)
    xi = f.add_variables("xi", ("I",), 0.0, np.inf)
    # xi_i >= c_k + a_k y_i (x_i s + beta) / m: the multiplier scales every coefficient of the rows (4.4)
    slope = Data(lines.slopes[:, None] * (y / problem.multiplier)[None, :], ("V", "I"))
    score = (s * Data(X, ("I", "J"))).sum("J") + beta.sum()
    rows = xi - slope * score >= Data(lines.intercepts, ("V",))
    f.add_constraints("logistic_tangent", rows.transpose("V", "I"), equation="4.4")
    f.add_objective(xi, problem.data.weight if problem.data.weighted else 1.0)      # sum_i v_i xi_i
    return f


def ors(X, y, n_rules: int = 5, scores=range(-5, 6), tangents="V3", exact_rules: bool = False,
        intercept_bound: float | None = None, forbidden=(), feature_names=None, *, bounds=(), groups=(),
        multiplier: float = 1.0, method: str = "tangents") -> Formulation:
    """Build the Optimal Risk Score MILP (4.5) on binary or integer-valued features.

    Parameters
    ----------
    X : array of shape (n_points, n_features)
        0/1 features (rules ``x_j = 1``) or integer-valued ones (points x value).
    y : array of shape (n_points,), values in {-1, +1}
    n_rules : int, default=5
        ``T``: the number of rules (features with nonzero points).
    scores : iterable of int, default=range(-5, 6)
        The score set ``A`` (consecutive integers containing 0).
    tangents : {"V0", "V1", "V2", "V3"} or sequence of float, default="V3"
    exact_rules : bool, default=False
        ``sum_j a_j = T`` (4.2) instead of ``<= T``. An exact count needs ``T <= p``.
    intercept_bound : float, optional
        ``|beta| <= B``; default ``10 m`` plus the ``T`` largest ``max|points_j| max|x_j|``
        (``max|A| T + 10`` on 0/1 features).
    forbidden : sequence of int, optional
    feature_names : sequence of str, optional
    bounds : sequence of (int, int, int), optional
        ``(j, lower, upper)`` per-feature point bounds.
    groups : sequence of sequence of int, optional
        At most one rule from each group.
    multiplier : float, default=1.0
        The log-odds are ``(x s + beta) / multiplier``.
    method : {"tangents", "cutting_planes"}, default="tangents"
        The tangent model (4.5) or the aggregate-loss master (solve it with
        :func:`optitrees.solvers.solve`, which runs the branch and cut it declares with
        :class:`~optitrees.formulations.risk_scores.ors_master.LossOracle`).

    Returns
    -------
    Formulation
        With ``problem`` an :class:`ORSProblem`.
    """
    spec = ORSSpec.create(n_rules, scores, tangents, exact_rules, forbidden, bounds, groups, multiplier, method)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a non-empty 2-d array, got shape {X.shape}")
    return build(ORSProblem.create(spec, ScaledData.create(X, np.asarray(y, float), None, feature_names),
                                   intercept_bound))


def card_from_points(points, intercept, per_unit=None, multiplier: float = 1.0) -> ScoreCard:
    """The card of points ``s_j`` per feature: rules ``x_j = 1`` on 0/1 features, ``points x x_j`` on the
    features marked ``per_unit``, for the features with nonzero points."""
    points = np.asarray(points, float)
    used = np.flatnonzero(points)
    T = len(used)
    unit = np.zeros(T, bool) if per_unit is None else np.asarray(per_unit, bool)[used]
    return ScoreCard(used, np.full(T, 0.5), np.ones(T, bool), np.round(points[used]), intercept, ~unit, unit,
                     multiplier)


def points_of(problem: ORSProblem, card: ScoreCard) -> tuple[np.ndarray, float]:
    """``(s, beta)`` of a card in the model's variables (rules ``x_j = 0`` flipped back, Theorem 4.1)."""
    s = np.zeros(problem.data.n_features)
    s[card.features] = np.where(card.greater, card.points, -card.points)
    return s, card.intercept + float(card.points[~card.greater].sum())


def decode(f, x) -> tuple[ScoreCard, dict]:
    """The card of a solution, and the MIP objective recomputed from it (the tangent surrogate, or the
    exact loss for the cutting-plane master, whose cuts make it exact at its solutions)."""
    problem = f.problem
    v = f.values(x)
    card = card_from_points(np.round(v["s"]), float(v["beta"][0]), problem.per_unit, problem.multiplier)
    y = np.asarray(problem.data.y, float)
    margins = y * card.decision_function(problem.data.X)
    recomputed = problem.data.weighted_sum(logistic_loss(margins) if _is_master(f) else problem.lines(margins))
    return card, {"objective_recomputed": recomputed, "rules": card.n_rules}


def start(f, card: ScoreCard) -> np.ndarray:
    """Complete assignment for a card (exactly ``T`` rules padded with zero-point features whose bounds
    allow 0 and that are in no group)."""
    problem = f.problem
    X, y = problem.data.X, np.asarray(problem.data.y, float)
    s, beta = points_of(problem, card)
    a = (s != 0).astype(float)
    if problem.spec.exact_rules:
        grouped = [j for g in problem.spec.groups for j in g]
        ok = (problem.lower <= 0) & (problem.upper >= 0) & (a == 0)
        ok[list(problem.spec.forbidden) + grouped] = False
        free = np.flatnonzero(ok)
        a[free[: problem.spec.n_rules - int(a.sum())]] = 1.0
    margins = y * (X @ s + beta) / problem.multiplier
    if _is_master(f):
        return f.vector({"a": a, "s": s, "beta": [beta], "L": [problem.data.weighted_sum(logistic_loss(margins))]})
    return f.vector({"a": a, "s": s, "beta": [beta], "xi": problem.lines(margins)})


def _is_master(f) -> bool:
    """The aggregate-loss master (one loss variable cut by the exact loss), not the tangent model (4.5)."""
    return isinstance(getattr(f, "strategy", None), BranchAndCut)


def objective(problem: ORSProblem, card: ScoreCard) -> float:
    """Exact training logistic loss of a card."""
    return card_loss(card, problem.data.X_original, problem.data.y, problem.data.fit_weight)


def finalize(problem: ORSProblem, card: ScoreCard) -> ScoreCard:
    """The card with a short intercept that changes no training prediction (and the training range of its
    per-unit features)."""
    card = card.with_unit_range(problem.data.X_original) if card.per_unit.any() else card
    return card.with_readable_intercept(problem.data.X_original, problem.data.y, sample_weight=problem.data.weight)


def feature_use(f) -> list[FeatureUse]:
    """A score reads feature ``j`` when it gives it points: ``a[j] = 1`` (4.3)."""
    return [FeatureUse(f.variables["a"])]


def fewest_features(problem: ORSProblem) -> int:
    """With ``exact_rules`` a score has exactly ``n_rules`` rules (4.2), each on its own feature."""
    return problem.spec.n_rules if problem.spec.exact_rules else 0


def monotone(f, signs, features=None) -> None:
    """``monotonic_cst`` held by the MIP: the points of a feature (a column ``k`` scores ``s_k`` times its value,
    which rises with the feature ``features[k]``) take the constraint's sign, ``s_k >= 0`` for +1 and ``<= 0`` for
    -1."""
    s = f.variables["s"]
    signs = np.asarray(signs)[np.arange(s.size) if features is None else np.asarray(features)]
    s.lower[signs > 0] = np.maximum(s.lower[signs > 0], 0.0)
    s.upper[signs < 0] = np.minimum(s.upper[signs < 0], 0.0)
    f.bounds_changed()


def predicted_positive(f):
    """``positive[i]`` binary: the card predicts row ``i`` positive, its score ``x_i s + beta`` above 0. With
    ``M_i = B + sum_j max(|l_j|, |u_j|) |x_ij|`` (the intercept bound ``B``, 4.3's point bounds) and the margin
    ``e`` (:data:`~optitrees.formulations.risk_scores.shared.POSITIVE_MARGIN`)::

        x_i s + beta <= M_i p[i]                                       (positive_upper)
        x_i s + beta >= e - (M_i + e) (1 - p[i])                       (positive_lower)

    A parity block's rates are linear in ``p`` (:func:`optitrees.fairness.block.add_row_parity`). The tangent
    model (4.5) only: the cutting-plane master completes every solution with its loss-optimal intercept, which
    would move the rows across 0.

    Raises
    ------
    ValueError
        ``f`` is the cutting-plane master.
    """
    if _is_master(f):
        raise ValueError("a parity constraint needs the tangent model (method='tangents'): the cutting-plane master "
                         "sets every solution's intercept by the loss alone")
    problem = f.problem
    X = problem.data.X
    M = Data(problem.intercept_bound + np.abs(X) @ np.maximum(np.abs(problem.lower), np.abs(problem.upper)), ("I",))
    positive = f.add_variables("positive", ("I",), 0.0, 1.0, domain="binary")
    score = (f.variables["s"] * Data(X, ("I", "J"))).sum("J") + f.variables["beta"].sum()
    f.add_constraints("positive_upper", score - M * positive <= 0, equation="x s + beta <= M p")
    f.add_constraints("positive_lower", score - (M + POSITIVE_MARGIN) * positive >= -M,
                      equation="x s + beta >= e - (M + e)(1 - p)")
    return positive


ORS_FAMILY = MIPFamily("ors", build=build, start=start, decode=decode, finalize=finalize, objective=objective,
                       feature_use=feature_use, fewest_features=fewest_features, monotone=monotone,
                       predicted_positive=predicted_positive)
