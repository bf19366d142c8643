"""scikit-learn estimators for optimal risk scores (seed 002, Ch. 4): ORS (4.5) and OGRS (4.16)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.risk_scores.beam_search import risk_search
from ...algorithms.risk_scores.card_starts import greedy_rules_card, refit_intercept, rounded_logistic_card, stump_card
from ...budget import Shares
from ...formulations.risk_scores.ogrs import OGRS_FAMILY, OGRSProblem, OGRSSpec
from ...formulations.risk_scores.ogrs_candidates import OGRS_CANDIDATES_FAMILY, OGRSCandidateProblem
from ...formulations.risk_scores.ors import ORS_FAMILY, ORSProblem, ORSSpec, card_from_points, points_of
from ...solvers.registry import get_backend
from .._base import SensitiveFeaturesFit
from .._docs import RISK_SCORE_ATTRIBUTES_DOC, RISK_SCORE_FAIRNESS_DOC, SOLVER_PARAMETERS_DOC
from .._input import resolve_features
from .._views import ScoreCardViews
from ._template import MIPClassifier

__all__ = ["RiskScoreClassifier", "GeneralizedRiskScoreClassifier"]

class _RiskScore(SensitiveFeaturesFit, ScoreCardViews, MIPClassifier):
    _model_shapes = (frozenset({"score_card_"}),)
    _multiclass_hint = "wrap it in sklearn.multiclass.OneVsRestClassifier for more classes"
    _refine_name = "intercept"
    #: What follows the solve (the exact intercept, or multiplier and intercept, of one card: 1-D convex
    #: problems over the distinct rows) takes 0.01 s at 10^6 rows, so the solve keeps 1% of the budget
    #: (at least the solver's allowance of 1 s) rather than 5%: 2 s more search in a minute.
    _shares = Shares(reserve=0.01)

    def _refine(self, problem, card, deadline):
        """The exact intercept for the solver's rules and points (a 1-D convex problem); with
        ``multiplier="auto"``, the exactly best multiplier and intercept for them (convex in ``1/m`` and
        ``beta/m``: :meth:`~optitrees.formulations.risk_scores.aggregate_loss.AggregateLoss.best_multiplier`)."""
        if isinstance(problem, ORSProblem) and problem.spec.multiplier == "auto":
            s, _ = points_of(problem, card)
            m, beta, _ = problem.loss.best_multiplier(s, problem.with_multiplier(1.0).intercept_bound)
            return card_from_points(s, beta, problem.per_unit, m)
        return refit_intercept(card, problem.data.X, problem.data.y, problem.intercept_bound,
                               problem.data.fit_weight)

    def _store(self, problem, card):
        self.score_card_ = card
        # the generalized card's cutting-plane problem holds one column per candidate threshold; its source the features
        data = problem.source.data if getattr(problem, "source", None) is not None else problem.data
        self.feature_importances_ = card.feature_importances(data.X_original, data.n_features)

    #: Whether a ``constraints`` hook makes ``method="auto"`` pick the tangent model.
    _hook_needs_tangents = False

    def _method(self):
        """``method`` resolved: ``"auto"`` is cutting planes with HiGHS (and no hook written for the
        tangent model's variables, no parity constraint), the tangent model otherwise."""
        fair = self.fairness is not None
        if self.method == "auto":
            hook = self._hook_needs_tangents and self.constraints is not None
            return "cutting_planes" if get_backend(self.solver).hosts_lp_search and not (hook or fair) else "tangents"
        if self.method == "cutting_planes" and not get_backend(self.solver).hosts_lp_search:
            raise ValueError(f"method='cutting_planes' runs its own search over HiGHS LPs; use solver='highs' "
                             f"or method='tangents' with solver={self.solver!r}")
        if self.method == "cutting_planes" and fair:
            raise ValueError("fairness needs method='tangents' (or 'auto'): the cutting-plane master sets each "
                             "solution's intercept by the loss alone, which would move rows across the threshold")
        return self.method

    def _presolve_plan(self, n_rows):
        """The beam search of the cutting-plane model (:meth:`_presolve`) within ``Shares.starts``."""
        if self._method() != "cutting_planes":
            return 0.0, ""
        return self._shares.starts, "the beam search that fixes the multiplier and gives a start"

    def _presolve(self, problem, budget):
        """ORS problems (the cutting-plane models): the search of
        :func:`~optitrees.algorithms.risk_scores.beam_search.risk_search`, which fixes an ``"auto"`` multiplier and
        gives a start."""
        if not isinstance(problem, ORSProblem):
            return problem
        allowed = np.ones(problem.data.n_features, bool)
        allowed[list(problem.spec.forbidden)] = False
        fixed = None if problem.spec.multiplier == "auto" else problem.multiplier
        found = risk_search(problem.rows, problem.spec.n_rules, problem.lower, problem.upper,
                            allowed=allowed, groups=problem.spec.groups,
                            intercept_bound=problem.with_multiplier(1.0).intercept_bound, multiplier=fixed,
                            deadline=budget.until(self._shares.starts))
        card = card_from_points(found.points, found.intercept, problem.per_unit, found.multiplier)
        return problem.with_multiplier(found.multiplier, starts={"search": card})

    def _report_checks(self, problem):
        """The multiplier the MIP fixed: the one its bound and gap are for."""
        return {"multiplier": problem.multiplier} if isinstance(problem, ORSProblem) else {}


class RiskScoreClassifier(_RiskScore):
    """Optimal Risk Score (seed 002, model 4.5): a score card learned by MILP, with a certified gap.

    Chooses at most (or exactly) ``n_rules`` features and an integer number
    of points for each from ``min_score..max_score`` (or the feature's own
    bounds); ``(total points + intercept) / multiplier`` is the log-odds of
    ``classes_[1]``. 0/1 features give rules ``x = 1``; integer-valued
    features (counts, 1-10 scales) are scored as points x value.

    The fit (one ``time_limit`` for all of it):

    1. a FasterRisk-style search (:mod:`optitrees.algorithms.risk_scores.beam_search`:
       beam search over supports, ray search of the multiplier, sequential
       rounding, +-1 moves) finds a card and, with ``multiplier="auto"``, fixes
       the multiplier;
    2. the MIP optimizes the points at that multiplier from the better of that
       card and a rounded sparse logistic regression: with
       ``method="cutting_planes"`` the aggregate-loss master
       (:mod:`optitrees.formulations.risk_scores.ors_master`, RiskSLIM's cuts, size
       independent of the number of rows) in one branch-and-cut search over
       HiGHS LPs; with ``method="tangents"`` the per-point tangent model (4.5,
       Sato's lines) on any backend. Both bounds are lower bounds on the exact
       training loss, so the reported gap is certified (for the fixed multiplier);
    3. the solver's card gets the exactly optimal intercept (with
       ``multiplier="auto"``: the exactly optimal multiplier and intercept for
       its points, which may move the multiplier off the one the MIP fixed).

    A fit never returns a card with a higher exact training loss than its start.

    Parameters
    ----------
    n_rules : int, default=5
        ``T``.
    min_score, max_score : int, default=-5, 5
        The score set ``A = {min_score, ..., max_score}`` (must contain 0).
    exact_rules : bool, default=False
        Exactly ``n_rules`` features selected (4.2) instead of at most.
    point_bounds : dict, optional
        ``{feature: (lower, upper)}``: that feature's points, by name or column
        index (``lower >= 0``: only non-negative points).
    monotone : dict, optional
        ``{feature: +1 or -1}``: the feature may only raise (+1) or lower (-1)
        the risk (its points are >= 0 or <= 0), written into the points'
        bounds. ``monotonic_cst`` (below) says the same in scikit-learn's terms
        and is checked on the returned card (``fit_report_.monotonicity``);
        either may be used, and both together hold both.
    groups : list of lists, optional
        At most one rule from each group of features (the one-hot columns of one variable).
    multiplier : "auto" or float, default="auto"
        ``"auto"``: the search's multiplier (FasterRisk's ray: 1 up to what the bounds allow;
        when some continuous points sit at their bounds, 0.5 up to what the others' bounds allow;
        then on until a second coefficient reaches its bound);
        ``1.0``: the seed's plain integer log-odds. The card shows it.
    method : {"auto", "cutting_planes", "tangents"}, default="auto"
        ``"auto"``: cutting planes with HiGHS, the tangent model with other solvers.
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
        Tangent set of ``method="tangents"``.
{fairness_doc}
{solver_doc}
        ``method="cutting_planes"`` reads ``solver_options={"mip_max_nodes": n}`` as its node limit.

{attributes_doc}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((200, 6)) < 0.4).astype(int)
    >>> y = (X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.5, 200) > 0.5).astype(int)
    >>> clf = RiskScoreClassifier(n_rules=3, time_limit=20).fit(X, y)
    >>> clf.score_card_.n_rules <= 3, clf.solver_result_.status
    (True, 'optimal')
    """

    _family = ORS_FAMILY
    _scaling = None
    _greedy_name = "rounded logistic"
    _parameter_constraints = {
        **MIPClassifier._parameter_constraints,
        "warm_start": ["boolean", StrOptions({"greedy"})],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "min_score": [Integral], "max_score": [Integral],
        "exact_rules": ["boolean"],
        "point_bounds": [dict, None],
        "monotone": [dict, None],
        "groups": ["array-like", None],
        "multiplier": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"auto", "cutting_planes", "tangents"})],
        "tangents": [StrOptions({"V0", "V1", "V2", "V3"}), "array-like"],
    }

    def __init__(self, n_rules=5, *, min_score=-5, max_score=5, exact_rules=False, point_bounds=None, monotone=None,
                 groups=None, multiplier="auto", method="auto", tangents="V3", warm_start=True, solver="highs",
                 time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False, solver_options=None,
                 forbidden_features=None, constraints=None, class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None, fairness=None):
        self.n_rules = n_rules
        self.min_score = min_score
        self.max_score = max_score
        self.exact_rules = exact_rules
        self.point_bounds = point_bounds
        self.monotone = monotone
        self.groups = groups
        self.multiplier = multiplier
        self.method = method
        self.tangents = tangents
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options
        self.forbidden_features = forbidden_features
        self.constraints = constraints
        self.class_weight = class_weight
        self.feature_costs = feature_costs
        self.max_feature_cost = max_feature_cost
        self.monotonic_cst = monotonic_cst
        self.fairness = fairness

    def _point_bounds(self, names):
        """``(j, lower, upper)`` per feature with its own bounds or sign."""
        bounds = {}
        for feature, (lo, hi) in (self.point_bounds or {}).items():
            j, = resolve_features([feature], names, "point_bounds feature")
            bounds[j] = (lo, hi)
        for feature, sign in (self.monotone or {}).items():
            j, = resolve_features([feature], names, "monotone feature")
            if sign not in (1, -1):
                raise ValueError(f"monotone[{feature!r}] must be +1 or -1, got {sign!r}")
            lo, hi = bounds.get(j, (self.min_score, self.max_score))
            lo, hi = (max(lo, 0), hi) if sign == 1 else (lo, min(hi, 0))
            if lo > hi:
                raise ValueError(f"monotone[{feature!r}] = {sign} leaves feature {feature!r} no points in "
                                 f"{bounds.get(j, (self.min_score, self.max_score))}")
            bounds[j] = (lo, hi)
        return tuple((j, lo, hi) for j, (lo, hi) in sorted(bounds.items()))

    def _make_spec(self, forbidden, n_classes):
        names = self._feature_names()
        groups = tuple(resolve_features(list(g), names, "group feature") for g in (self.groups or []))
        return ORSSpec.create(self.n_rules, range(self.min_score, self.max_score + 1), self.tangents,
                              self.exact_rules, forbidden, self._point_bounds(names), groups, self.multiplier,
                              self._method())

    def _make_problem(self, spec, data):
        return ORSProblem.create(spec, data)

    @property
    def _refine_name(self):
        return "multiplier" if self.multiplier == "auto" else "intercept"

    def _starts(self, problem, deadline, methods):
        return {"greedy": rounded_logistic_card(problem, self._seed, deadline), **(problem.starts or {})}


class GeneralizedRiskScoreClassifier(_RiskScore):
    """Optimal Generalized Risk Score (seed 002, model 4.16): rules ``x_j >= b`` learned with their points.

    Continuous and binary features are scaled to [0, 1] internally. The model
    picks ``n_rules`` single-clause rules ``x_j >= b_t``, each feature at most
    once (rules of one logic lose no generality, Corollary 4.2), with integer
    points in ``-max_score..max_score``; the fitted card is then rewritten with
    non-negative points (Corollary 4.1, ``positive_points=True``), flipping a
    rule to ``x_j < b`` where its points were negative. Symmetry breaking
    (4.10), discriminative rules (4.12), thresholds 0.5 on two-valued features
    (4.15) and the tightest big-M ``max_score``; the logistic loss is modelled
    by tangent lines (4.16o). The warm start adds one rule at a time, solving
    for the new rule with the earlier ones fixed, as the seed's experiments
    do; a second start binarizes every feature at its best stump and picks
    points by a rounded sparse logistic fit (the seed's baseline, mapped to
    4.16); the better one is kept. Each threshold is reported in the original
    units as a short number strictly between the largest training value that
    fails the rule and the smallest that passes it.

    Two ways to solve it (``method``): the 4.16 MILP above on any backend
    (``"tangents"``), or, with HiGHS, the same model over candidate thresholds
    (``"cutting_planes"``, :mod:`optitrees.formulations.risk_scores.ogrs_candidates`): each
    distinct training value of a feature (at most ``max_thresholds`` per
    feature) gives a 0/1 column ``x_j >= b``, one rule per feature, scored by
    the aggregate-loss cutting planes of ORS from a beam-search start, with a
    gap certified on the exact training loss (over those candidates: exact
    OGRS when no feature has more distinct values than ``max_thresholds``).

    Parameters
    ----------
    n_rules : int, default=3
        The most rules (``method="tangents"``: exactly).
    max_score : int, default=5
        Points are in ``-max_score..max_score`` (the tightest big-M is ``max_score``).
    positive_points : bool, default=True
        Report the equivalent card with non-negative points (Corollary 4.1).
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
    eps : float, default=1e-4
        Strictness of ``x_j < b_t`` on the [0, 1] scale (``method="tangents"``).
    method : {"auto", "cutting_planes", "tangents"}, default="auto"
        ``"auto"``: cutting planes with HiGHS, unless a ``constraints`` hook is
        given (it is written for the 4.16 variables) or another solver is chosen.
    max_thresholds : int, default=64
        Candidate thresholds per feature for ``method="cutting_planes"``.
{fairness_doc}
{solver_doc}
        The greedy start may use up to a quarter of ``time_limit``.

{attributes_doc}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GeneralizedRiskScoreClassifier(n_rules=2, max_score=3, time_limit=5).fit(X[:100, :4], y[:100])
    >>> clf.score_card_.n_rules
    2
    """

    _scaling = "unit"
    _parameter_constraints = {
        **MIPClassifier._parameter_constraints,
        "warm_start": ["boolean", StrOptions({"greedy"})],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "max_score": [Interval(Integral, 1, None, closed="left")],
        "positive_points": ["boolean"],
        "tangents": [StrOptions({"V0", "V1", "V2", "V3"}), "array-like"],
        "eps": [Interval(Real, 0, 0.5, closed="neither")],
        "method": [StrOptions({"auto", "cutting_planes", "tangents"})],
        "max_thresholds": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_rules=3, *, max_score=5, positive_points=True, tangents="V3", eps=1e-4, method="auto",
                 max_thresholds=64, warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None,
                 random_state=None, verbose=False, solver_options=None, forbidden_features=None, constraints=None,
                 class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None, fairness=None):
        self.n_rules = n_rules
        self.max_score = max_score
        self.positive_points = positive_points
        self.tangents = tangents
        self.eps = eps
        self.method = method
        self.max_thresholds = max_thresholds
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options
        self.forbidden_features = forbidden_features
        self.constraints = constraints
        self.class_weight = class_weight
        self.feature_costs = feature_costs
        self.max_feature_cost = max_feature_cost
        self.monotonic_cst = monotonic_cst
        self.fairness = fairness

    def _make_spec(self, forbidden, n_classes):
        return OGRSSpec.create(self.n_rules, self.max_score, self.tangents, float(self.eps),
                               positive_points=self.positive_points, forbidden=forbidden)

    #: A ``constraints`` hook is written for the 4.16 variables, which only the tangent model has.
    _hook_needs_tangents = True

    @property
    def _family(self):
        return OGRS_CANDIDATES_FAMILY if self._method() == "cutting_planes" else OGRS_FAMILY

    @property
    def _greedy_name(self):
        return "rounded logistic" if self._method() == "cutting_planes" else "greedy rules"

    def _make_problem(self, spec, data):
        if self._method() == "cutting_planes":
            return OGRSCandidateProblem.from_ogrs(spec, data, self.max_thresholds)
        return OGRSProblem.create(spec, data)

    def _starts(self, problem, deadline, methods):
        if isinstance(problem, OGRSCandidateProblem):
            return {"greedy": rounded_logistic_card(problem, self._seed, deadline), **(problem.starts or {})}
        starts = {"greedy": greedy_rules_card(problem, deadline=deadline, **self._solve_options())}
        stumps = stump_card(problem, self._seed)
        if stumps is not None:
            starts["stump rules"] = stumps
        return starts


RiskScoreClassifier.__doc__ = RiskScoreClassifier.__doc__.replace("{solver_doc}", SOLVER_PARAMETERS_DOC).replace(
    "{fairness_doc}", RISK_SCORE_FAIRNESS_DOC).replace(
    "{attributes_doc}", RISK_SCORE_ATTRIBUTES_DOC.format(card="Rules ``feature = 1`` with their points, and the intercept.",
                                               checks="the recomputed objective; ``multiplier``: the one "
                                                      "the MIP fixed, which its bound and gap are for"))
GeneralizedRiskScoreClassifier.__doc__ = GeneralizedRiskScoreClassifier.__doc__.replace(
    "{solver_doc}", SOLVER_PARAMETERS_DOC).replace("{fairness_doc}", RISK_SCORE_FAIRNESS_DOC).replace(
    "{attributes_doc}", RISK_SCORE_ATTRIBUTES_DOC.format(
        card="Rules ``x_j >= threshold`` / ``x_j < threshold`` (original units) with their points, and the "
             "intercept.", checks="rule satisfaction against ``z``, the recomputed objective"))
