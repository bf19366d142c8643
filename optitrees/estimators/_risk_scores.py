"""scikit-learn estimators for optimal risk scores (seed 002, Ch. 4): ORS (4.5) and OGRS (4.16)."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..algorithms.risk_scores import greedy_rules_card, refit_intercept, rounded_logistic_card, stump_card
from ..formulations.ogrs import OGRS_FAMILY, OGRSProblem, OGRSSpec
from ..formulations.ors import ORS_FAMILY, ORSProblem, ORSSpec
from ._template import SOLVER_PARAMETERS_DOC, MIPClassifier
from ._views import ScoreCardViews

__all__ = ["RiskScoreClassifier", "GeneralizedRiskScoreClassifier"]

_ATTRIBUTES_DOC = """    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when ``X`` had string column names.
    score_card_ : ScoreCard
        {card}
    objective_ : float
        Exact training logistic loss of the returned model.
    warm_start_objective_ : float
    solver_result_ : SolverResult
        The solve, ``checks`` ({checks}), ``returned`` and the exact ``objectives``.
    formulation_summary_ : str"""


class _RiskScore(ScoreCardViews, MIPClassifier):
    _multiclass_hint = "wrap it in sklearn.multiclass.OneVsRestClassifier for more classes"
    _refine_name = "intercept"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _refine(self, problem, card, budget):
        """The exact intercept for the solver's rules and points (a 1-D convex problem)."""
        return refit_intercept(card, problem.data.X, problem.data.y, problem.intercept_bound)

    def _store(self, problem, card):
        self.score_card_ = card


class RiskScoreClassifier(_RiskScore):
    """Optimal Risk Score on binary features (seed 002, model 4.5): a score card learned by MILP.

    Chooses at most (or exactly) ``n_rules`` binary features and an integer
    number of points for each from ``min_score..max_score``; the total
    points plus an intercept is the log-odds of ``classes_[1]``. The logistic
    loss is modelled by Sato's tangent lines (4.4), V3 by default as in the
    seed's experiments. The warm start is a rounded sparse logistic
    regression; the solver's card gets the exactly optimal intercept for its
    points. A fit never returns a model with a higher exact training loss
    than its warm start.

    Parameters
    ----------
    n_rules : int, default=5
        ``T``.
    min_score, max_score : int, default=-5, 5
        The score set ``A = {min_score, ..., max_score}`` (must contain 0).
    exact_rules : bool, default=False
        Exactly ``n_rules`` features selected (4.2) instead of at most.
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
{solver_doc}

{attributes_doc}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((200, 6)) < 0.4).astype(int)
    >>> y = (X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.5, 200) > 0.5).astype(int)
    >>> clf = RiskScoreClassifier(n_rules=3, time_limit=20).fit(X, y)
    >>> clf.score_card_.n_rules <= 3
    True
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
        "tangents": [StrOptions({"V0", "V1", "V2", "V3"}), "array-like"],
    }

    def __init__(self, n_rules=5, *, min_score=-5, max_score=5, exact_rules=False, tangents="V3", warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, constraints=None):
        self.n_rules = n_rules
        self.min_score = min_score
        self.max_score = max_score
        self.exact_rules = exact_rules
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

    def _make_spec(self, forbidden, n_classes):
        return ORSSpec.create(self.n_rules, range(self.min_score, self.max_score + 1), self.tangents,
                              self.exact_rules, forbidden)

    def _make_problem(self, spec, data):
        return ORSProblem.create(spec, data)

    def _starts(self, problem, deadline):
        return {"greedy": rounded_logistic_card(problem, self._seed)}


class GeneralizedRiskScoreClassifier(_RiskScore):
    """Optimal Generalized Risk Score (seed 002, model 4.16): rules ``x_j >= b`` learned with their points.

    Continuous and binary features are scaled to [0, 1] internally. The MILP
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

    Parameters
    ----------
    n_rules : int, default=3
    max_score : int, default=5
        Points are in ``-max_score..max_score`` (the tightest big-M is ``max_score``).
    positive_points : bool, default=True
        Report the equivalent card with non-negative points (Corollary 4.1).
    tangents : {"V0", "V1", "V2", "V3"}, default="V3"
    eps : float, default=1e-4
        Strictness of ``x_j < b_t`` on the [0, 1] scale.
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

    _family = OGRS_FAMILY
    _scaling = "unit"
    _greedy_name = "greedy rules"
    _parameter_constraints = {
        **MIPClassifier._parameter_constraints,
        "warm_start": ["boolean", StrOptions({"greedy"})],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "max_score": [Interval(Integral, 1, None, closed="left")],
        "positive_points": ["boolean"],
        "tangents": [StrOptions({"V0", "V1", "V2", "V3"}), "array-like"],
        "eps": [Interval(Real, 0, 0.5, closed="neither")],
    }

    def __init__(self, n_rules=3, *, max_score=5, positive_points=True, tangents="V3", eps=1e-4, warm_start=True,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, constraints=None):
        self.n_rules = n_rules
        self.max_score = max_score
        self.positive_points = positive_points
        self.tangents = tangents
        self.eps = eps
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

    def _make_spec(self, forbidden, n_classes):
        return OGRSSpec.create(self.n_rules, self.max_score, self.tangents, float(self.eps),
                               positive_points=self.positive_points, forbidden=forbidden)

    def _make_problem(self, spec, data):
        return OGRSProblem.create(spec, data)

    def _starts(self, problem, deadline):
        starts = {"greedy": greedy_rules_card(problem, deadline=deadline, **self._solve_options())}
        stumps = stump_card(problem, self._seed)
        if stumps is not None:
            starts["stump rules"] = stumps
        return starts


RiskScoreClassifier.__doc__ = RiskScoreClassifier.__doc__.replace("{solver_doc}", SOLVER_PARAMETERS_DOC).replace(
    "{attributes_doc}", _ATTRIBUTES_DOC.format(card="Rules ``feature = 1`` with their points, and the intercept.",
                                               checks="the recomputed objective"))
GeneralizedRiskScoreClassifier.__doc__ = GeneralizedRiskScoreClassifier.__doc__.replace(
    "{solver_doc}", SOLVER_PARAMETERS_DOC).replace("{attributes_doc}", _ATTRIBUTES_DOC.format(
        card="Rules ``x_j >= threshold`` / ``x_j < threshold`` (original units) with their points, and the "
             "intercept.", checks="rule satisfaction against ``z``, the recomputed objective"))
