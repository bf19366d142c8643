"""scikit-learn estimator for oblique regression trees with linear leaves by MILP or MIQP
(:mod:`optitrees.formulations.oblique_regression`)."""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.base import RegressorMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.loss_optimal.greedy import clear_gap
from ...algorithms.regression.linear_leaves import LAM_SHARES, choose_lam, refit_leaves, weighted_median
from ...budget import Shares
from ...exceptions import warn
from ...formulations.oblique_regression import (OBLIQUE_REGRESSION, ObliqueRegressionProblem, ObliqueRegressionSpec,
                                               RegressionLoss)
from ...scaling import ScaledData
from ...solvers.plan import SUB_MIP_HEURISTICS_OFF
from ...solvers.registry import get_backend
from ...trees import LeafModel, feature_importances
from .._base import OptitreesEstimator
from .._views import TreeViews
from .._input import resolve_forbidden
from ..mip_fit import FitHooks, FitSettings, MIPFit
from ..mip_fit.hook import build_with_hook
from ._model_constraints import ModelConstraints
from ._template import MIPClassifier

__all__ = ["LossOptimalTreeRegressor"]

#: Share of the time limit ``lam="auto"`` may spend choosing ``lam`` on held-out folds, and the most rows it
#: uses (a sample of them beyond).
CV_SHARE = 0.2
CV_ROWS = 5000


class LossOptimalTreeRegressor(ModelConstraints, TreeViews, RegressorMixin, OptitreesEstimator):
    """Oblique regression tree with linear leaves: the loss-optimal tree (seed 002, 3.12) with a regression loss.

    ``max_depth`` layers of hyperplanes: the first ``max_depth - 1`` route a
    point left when ``w_t x + b_t <= 0`` (3.6-3.7), each node of the last layer
    predicts ``w_t x + b_t`` for the points routed to it. The model minimizes
    ``sum_i v_i loss(y_i - f(x_i)) + lam sum_t ||w_t||_1`` on standardized
    features and target (:mod:`optitrees.formulations.oblique_regression`,
    equations 3.6a, 3.7a-b, 3.16, R1-R3), from a start: scikit-learn's CART of
    depth ``max_depth - 1`` with each leaf at its rows' weighted median
    (absolute loss) or mean (squared loss), and the same routing with each leaf's
    linear model refitted exactly (an LP per leaf, or a lasso; the solver's tree
    is refitted so too). The absolute loss is a MILP; the
    squared loss is an MIQP on a solver that takes one (``"scip"``,
    ``"gurobi"``) and a MILP with tangent cuts refined at each solution's
    residuals otherwise (HiGHS, R3'). The returned tree is the better of the
    start and the solver's tree in the exact objective.

    Parameters
    ----------
    max_depth : int, default=2
        Layers of hyperplanes, the last one the leaves' linear models (a full tree has ``get_depth() == max_depth``).
    loss : {"absolute", "squared"}, default="absolute"
        The loss of the leaves' predictions.
    lam : float or "auto", default="auto"
        l1 weight on every hyperplane's and leaf model's ``w`` (standardized units): larger values give
        sparser splits and leaves. ``"auto"`` chooses it within the fit (at most ``CV_SHARE`` = 20% of
        ``time_limit``) among ``LAM_SHARES`` times the total row weight (from ``1``, which zeroes every leaf's
        weights, down to ``1e-4``): on 4 folds drawn within deciles of the target, the CART start's leaves are
        refitted on three folds with each candidate and scored by their loss on the fourth
        (:func:`~optitrees.algorithms.regression.linear_leaves.choose_lam`); the least mean held-out loss
        wins, and ``lam_`` and ``cv_results_`` say which. Why: with a fixed ``0.1`` the linear leaves
        overfit under the absolute loss (diabetes, depth 3: test RMSE 69.3 against CART's 67.3; with
        ``"auto"`` 67.2).
    weight_bound : float, default=10.0
        Bound ``W`` on each ``||w_t||_1`` (standardized units), from which the big-M values are derived.
    max_features : int, optional
        At most this many features in each split and each leaf model (the l0 indicators and budget row of
        3.14). ``None``: the l1 weight ``lam`` alone decides.
    solver : str, default="highs"
        A MILP solver of :func:`optitrees.solvers.solve` (``"highs"``, ``"scip"``, ``"gurobi"`` ...).
    time_limit : float, default=60.0
        Seconds for the whole fit. Where the backend could not get past the root of the full model in time
        (HiGHS: its root LP would take more than half the solve's time,
        :meth:`optitrees.solvers.highs.HighsBackend.plan`, its size counted by
        :func:`~optitrees.formulations.oblique_regression.oblique_regression_size`), the MIP is solved on weighted
        representative rows (``fit_report_.mip_rows``); when not even those are in reach, the CART start is
        returned.
    mip_gap : float, default=1e-4
    threads : int, optional
        Solver threads; also the most threads numpy's BLAS runs during the fit.
    random_state : int, optional
        The solver's seed.
    verbose : bool, default=False
    solver_options : dict, optional
        Raw solver options (``{"mip_max_nodes": 100}`` ...). HiGHS's presolve, feasibility jump and symmetry
        detection are off for models of more than 20,000 rows or 300,000 nonzeros, and its sub-problems are
        solved without presolve (``mip_root_presolve_only``): these steps do not keep the time limit on them
        (:meth:`optitrees.solvers.highs.HighsBackend.plan`). Options given here win (``{"presolve": "on"}`` ...).
    forbidden_features : array-like of int or str, optional
        Features no split and no leaf model reads (``w[t, j] = 0``).
    feature_costs : array-like or dict, optional
        The cost of measuring each feature (one per feature, or ``{name: cost}`` with the others at 0); ``None``
        with ``max_feature_cost``: a unit cost each.
    max_feature_cost : float, optional
        The most the features the tree reads (any split or leaf model with a nonzero weight on them) may cost
        (:mod:`optitrees.formulations.feature_budget`: its block is in the MIP; the starts are grown on the
        affordable features first along the lasso path, and a tree over the budget is never returned).
    monotonic_cst : array-like or dict, optional
        scikit-learn's meaning: per feature +1 / -1 / 0 (or ``{name: sign}``), the prediction never falls /
        rises as the feature rises, all else fixed. Held by the MIP (no split reads a constrained feature, each
        leaf's weight on it has its sign: :func:`~optitrees.formulations.blocks.monotone_hyperplanes`), by the
        CART start (grown on the other features) and by every leaf refit, so the returned tree is monotone over
        all of feature space (``fit_report_.monotonicity`` proves it).

    Attributes
    ----------
    tree_ : Tree
        Oblique splits and linear value leaves, in the user's units.
    objective_ : float
        The exact training objective of the returned tree (standardized units).
    start_objective_ : float
        That of the CART start.
    lam_ : float
        The l1 weight of the fit (chosen with ``lam="auto"``).
    cv_results_ : dict
        With ``lam="auto"``: ``"lam"`` (the candidates), ``"mean_held_out_loss"`` (per candidate, ``nan`` when not
        compared), ``"folds_scored"`` and ``"rows"`` (the rows the choice saw: at most ``CV_ROWS``, a sample).
    solver_result_ : SolverResult
    fit_report_ : FitReport

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(60, 2))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 2 * X[:, 0], -X[:, 1])
    >>> reg = LossOptimalTreeRegressor(max_depth=2, lam=0.01, time_limit=20).fit(X, y)
    >>> float(np.abs(reg.predict(X) - y).mean()) < 0.05
    True
    """

    _leaf_models_are_a_layer = True

    _is_classifier = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "loss": [StrOptions({m.value for m in RegressionLoss})],
        "lam": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "weight_bound": [Interval(Real, 0, None, closed="neither")],
        "max_features": [Interval(Integral, 1, None, closed="left"), None],
        **{key: MIPClassifier._parameter_constraints[key] for key in (
            "solver", "time_limit", "mip_gap", "threads", "random_state", "verbose", "solver_options",
            "forbidden_features")},
        **ModelConstraints.PARAMETERS,
    }

    def __init__(self, max_depth=2, *, loss="absolute", lam="auto", weight_bound=10.0, max_features=None,
                 solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, feature_costs=None, max_feature_cost=None,
                 monotonic_cst=None):
        self.max_depth = max_depth
        self.loss = loss
        self.lam = lam
        self.weight_bound = weight_bound
        self.max_features = max_features
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options
        self.forbidden_features = forbidden_features
        self.feature_costs = feature_costs
        self.max_feature_cost = max_feature_cost
        self.monotonic_cst = monotonic_cst

    def _problem(self, training) -> ObliqueRegressionProblem:
        """The problem of ``training``; with ``lam="auto"`` its ``lam`` is the middle candidate until
        :meth:`_choose_lam` sets it."""
        data = ScaledData.create(training.X, training.y, "standard", self._feature_names(), training.weight)
        total = float(training.weight.sum()) if training.weight is not None else float(len(training.y))
        lam = LAM_SHARES[len(LAM_SHARES) // 2] * total if self.lam == "auto" else float(self.lam)
        spec = ObliqueRegressionSpec(depth=int(self.max_depth), lam=lam,
                                     weight_bound=float(self.weight_bound), loss=RegressionLoss(self.loss),
                                     max_features=self.max_features,
                                     quadratic=get_backend(self.solver).supports_miqp,
                                     forbidden=resolve_forbidden(self.forbidden_features, self._feature_names()),
                                     monotone=self._monotone_signs())
        return ObliqueRegressionProblem.create(spec, data, training.y)

    def _checked_problem(self, training) -> ObliqueRegressionProblem:
        """:meth:`_problem`, its feature budget checked (reachable with the features allowed) before anything is
        built."""
        problem = self._problem(training)
        costs = self._feature_budget()
        if costs is not None and costs.holds:
            costs.check_reachable(0, _allowed(problem))
        return problem

    def build_formulation(self, X, y, sample_weight=None):
        """The formulation ``fit`` would solve for ``(X, y)`` (features standardized, as ``fit`` does).

        Its index set ``J`` holds the feature names, so exported files read ``w(1,age)``. The estimator itself is
        left unfitted.

        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(size=(20, 2)); y = np.abs(X[:, 0])
        >>> f = LossOptimalTreeRegressor(max_depth=1).build_formulation(X, y)
        >>> f.name, sorted(f.variables)
        ('oblique_regression_d1', ['b', 'e', 's', 'w', 'w_neg', 'w_pos', 'z'])
        """
        est = clone(self)
        est._validate_params()
        problem = est._checked_problem(est._fit_data(X, y, sample_weight))
        return build_with_hook(OBLIQUE_REGRESSION, problem, feature_budget=est._feature_budget(),
                               monotone=est._monotone())

    def _fit(self, X, y, sample_weight, budget):
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        problem = self._checked_problem(training)
        budget.lap("validate")
        settings = FitSettings(
            estimator=type(self).__name__, family=OBLIQUE_REGRESSION, solver=self.solver, mip_gap=self.mip_gap,
            threads=self.threads, seed=0 if self.random_state is None else int(self.random_state),
            verbose=bool(self.verbose), solver_options=dict(self.solver_options or {}), shares=Shares(),
            family_options_with_start=SUB_MIP_HEURISTICS_OFF, greedy_name="cart", refine_name="refit",
            presolve_stage="held-out lam", presolve_share=CV_SHARE if self.lam == "auto" else 0.0,
            presolve_why="the l1 weight lam chosen on held-out folds" if self.lam == "auto" else "",
            feature_budget=self._feature_budget(), monotone=self._monotone())
        for name in ("lam_", "cv_results_"):           # an earlier fit's choice is not this one's
            self.__dict__.pop(name, None)
        fit = MIPFit(settings, FitHooks(starts=_starts, presolve=self._choose_lam, refine=_refine), budget)
        outcome = fit.run(problem, training)
        for kind, note in fit.notes:
            warn(note, kind)
        if self.lam != "auto":
            self.lam_ = float(self.lam)
        self.objective_ = outcome.objective
        self.start_objective_ = outcome.start_objectives["cart"]
        self.solver_result_ = outcome.solver_result
        self.tree_ = _to_user_units(outcome.model, problem).with_counts(
            training.X, np.zeros(len(training.y), np.int64), sample_weight=training.weights)
        self.feature_importances_ = feature_importances(self.tree_, training.X)
        self.fit_report_ = outcome.report
        return self

    def _choose_lam(self, problem, budget):
        """With ``lam="auto"``: the l1 weight whose leaves, refitted on held-out folds with the CART start's
        routing, generalize best (:func:`~optitrees.algorithms.regression.linear_leaves.choose_lam`, at most
        ``CV_SHARE`` of the budget); the problem with it."""
        if self.lam != "auto":
            return problem
        data, spec = problem.data, problem.spec
        v = data.weight if data.weight is not None else np.ones(len(problem.target))
        rows = np.arange(len(v))
        if len(rows) > CV_ROWS:                 # the choice on a sample: one leaf LP on 24,000 rows took seconds
            rows = np.sort(np.random.default_rng(self.random_state).choice(len(v), CV_ROWS, replace=False))
        # each candidate is a share of the total weight, so the sample's weight scales it
        choice = choose_lam(_cart_start(problem), data.X[rows], problem.target[rows], v[rows],
                            [share * float(v[rows].sum()) for share in LAM_SHARES],
                            spec.loss == RegressionLoss.ABSOLUTE, spec.weight_bound,
                            random_state=0 if self.random_state is None else int(self.random_state),
                            fallback=len(LAM_SHARES) // 2, deadline=budget.until(CV_SHARE),
                            max_features=spec.max_features, **_leaf_features(problem))
        lams = np.array(LAM_SHARES) * float(v.sum())
        self.lam_ = float(lams[choice.candidates.index(choice.lam)])
        self.cv_results_ = {"lam": lams, "mean_held_out_loss": choice.mean_loss, "folds_scored": choice.folds_scored,
                            "rows": len(rows)}
        budget.lap("held-out lam")
        return replace(problem, spec=replace(spec, lam=self.lam_))

    def predict(self, X):
        """``w x + b`` of the leaf each row reaches."""
        X = self._X(X)
        return self.tree_.predict(X)


def _leaf_fit_args(problem: ObliqueRegressionProblem):
    data, spec = problem.data, problem.spec
    v = data.weight if data.weight is not None else np.ones(len(problem.target))
    return data.X, problem.target, v, spec.lam, spec.loss == RegressionLoss.ABSOLUTE, spec.weight_bound


def _allowed(problem: ObliqueRegressionProblem) -> np.ndarray:
    """Mask of the features a hyperplane may read (not forbidden, nor left out of a budget's start problem)."""
    allowed = np.ones(problem.data.n_features, bool)
    allowed[list(problem.spec.forbidden)] = False
    return allowed


def _signs(problem: ObliqueRegressionProblem) -> np.ndarray:
    """``monotonic_cst``'s sign per feature (zeros without one)."""
    return np.asarray(problem.spec.monotone or np.zeros(problem.data.n_features), np.int64)


def _leaf_features(problem: ObliqueRegressionProblem) -> dict:
    """What a leaf's linear model may read, as :func:`refit_leaves` takes it: the allowed features, each
    constrained one with its sign."""
    return {"signs": _signs(problem), "allowed": _allowed(problem)}


def _starts(problem: ObliqueRegressionProblem, deadline, methods):
    """The CART start with constant leaves, and the same routing with each leaf's linear model refitted
    (:func:`~optitrees.algorithms.regression.linear_leaves.refit_leaves`: the exact last layer for that routing)."""
    cart = _cart_start(problem)
    return {"cart": cart, "cart, linear leaves": refit_leaves(cart, *_leaf_fit_args(problem), deadline=deadline,
                                                               max_features=problem.spec.max_features,
                                                               **_leaf_features(problem))}


def _refine(problem: ObliqueRegressionProblem, model, deadline):
    """The solver's tree with each leaf's linear model refitted on its routed rows (kept by the fit only when its
    exact objective is lower)."""
    return refit_leaves(model, *_leaf_fit_args(problem), deadline=deadline,
                        max_features=problem.spec.max_features, **_leaf_features(problem))


def _cart_start(problem: ObliqueRegressionProblem):
    """scikit-learn's CART of depth ``d - 1`` on the scaled data, each leaf the best constant of its rows (their
    weighted median under the absolute loss, their weighted mean under the squared loss), every split scaled (or,
    past the weight bound, moved) so each point is at least ``eps / 2`` from it (:func:`_keep_routing`). Its
    splits read neither a forbidden feature nor one ``monotonic_cst`` constrains (those columns are held constant
    for CART, which then cannot split on them)."""
    from sklearn.tree import DecisionTreeRegressor

    from ...trees import LEAF, Tree, from_sklearn

    X, y = problem.data.X, problem.target
    v = problem.data.weight if problem.data.weight is not None else np.ones(len(y))
    depth = problem.spec.depth - 1
    if depth == 0:                                      # one leaf: the linear model alone
        tree = Tree([LEAF], [LEAF], np.zeros((1, X.shape[1])), [0.0], intercept=[0.0], value=[[v.sum()]],
                    leaf_model=LeafModel.VALUE)
    else:
        splittable = np.where(_allowed(problem) & (_signs(problem) == 0), X, 0.0)
        tree = from_sklearn(DecisionTreeRegressor(max_depth=depth, random_state=0).fit(splittable, y, v))
    weights, thr = _keep_routing(tree, X, problem.eps, problem.spec.weight_bound)
    leaf_of = replace(tree, weights=weights, threshold=thr).apply(X)
    intercept = tree.intercept.copy()
    for t in np.flatnonzero(tree.is_leaf):
        rows = leaf_of == t
        if not rows.any():
            intercept[t] = 0.0
        elif problem.spec.loss == RegressionLoss.ABSOLUTE:
            intercept[t] = weighted_median(y[rows], v[rows])
        else:
            intercept[t] = float(np.average(y[rows], weights=v[rows]))
    weights = np.where(tree.is_leaf[:, None], 0.0, weights)
    return replace(tree, threshold=thr, intercept=intercept, weights=weights, leaf_model=LeafModel.LINEAR_VALUE)


def _keep_routing(tree, X, eps, weight_bound):
    """CART's splits ``x_j <= m`` as the model's hyperplanes, which leave no point within ``eps`` of a split
    (3.7b): CART's threshold ``m`` is the midpoint of the gap ``g`` between the two sides' nearest values, so the
    split ``c x_j <= c m`` with ``c = max(1, eps / g)`` keeps CART's routing exactly; only where ``c`` would
    exceed the bound ``W`` on ``||w_t||_1`` is the threshold moved to the nearest gap of width ``eps``."""
    weights, thr = tree.weights.copy(), tree.threshold.copy()
    scores = X @ tree.weights.T                                       # (n, nodes)
    path = tree.decision_path(X)                                     # (3.7) binds the rows reaching t only
    for t in np.flatnonzero(~tree.is_leaf):
        v = scores[(path == t).any(axis=1), t]
        left, right = v[v <= thr[t]], v[v > thr[t]]
        gap = (right.min() - left.max()) if left.size and right.size else np.inf
        scale = 1.0 if gap >= eps else (1.001 * eps / gap if gap > 0 else np.inf)
        if scale * np.abs(weights[t]).sum() <= weight_bound:
            mid = (right.min() + left.max()) / 2 if np.isfinite(gap) else thr[t]
            weights[t] *= scale
            thr[t] = scale * mid
        else:                                      # w x + b with b = eps / 2 - t stays out of (0, eps)
            thr[t] += clear_gap(scores[:, t] + eps / 2 - thr[t], eps)
    return weights, thr


def _to_user_units(tree, problem):
    """A tree of the scaled features and target in the user's: splits and leaves through the features'
    scaling, then each leaf's ``w x + b`` times the target's scale plus its shift."""
    tree = tree.to_original_units(problem.data)
    leaf = tree.is_leaf
    weights, intercept = tree.weights.copy(), tree.intercept.copy()
    weights[leaf] *= problem.y_scale
    intercept[leaf] = intercept[leaf] * problem.y_scale + problem.y_shift
    return replace(tree, weights=weights, intercept=intercept)
