"""The presets of :class:`LossOptimalTreeClassifier`: OLCT (seed 002, 3.17) and MARGOT (3.12-3.13)."""

from __future__ import annotations

import numpy as np

from ._loss_optimal import _MODEL_CONSTRAINTS, LossOptimalTreeClassifier, _fill
from ._template import MIPClassifier

__all__ = ["OLCTClassifier", "MARGOTClassifier"]


class OLCTClassifier(LossOptimalTreeClassifier):
    """Optimal Logistic Classification Tree (seed 002, 3.17): an oblique tree of sparse logistic regressions.

    The preset ``loss="logistic", regularizer="l1", lam=1`` of
    :class:`LossOptimalTreeClassifier`: routing (3.6), big-M forwarding (3.7),
    logistic-loss tangent slacks on every layer (3.15) and l1-regularized
    hyperplanes (3.16), with a greedy warm start, then the exact refit of the
    last layer (Remark 1). The objective is the seed's experimental form
    ``sum_h C_h sum_i logloss_i,h + sum_t ||w_t||_1`` on standardized features.
    :class:`~optitrees.OLCTClassifierCV` chooses ``C`` on held-out folds within the fit, as the seed
    tunes it (``bench/scale.py --part loss`` measures both at 4,000-28,000 rows).

    Parameters
    ----------
    max_depth : int, default=2
        Number of branching layers.
    C : float or sequence of float, default=1.0
        Loss weight per layer ``C_h`` (a scalar applies to every layer).
        It decides whether a fit can be proven optimal. At ``C = 1`` the
        proof needs branch-and-bound nodes that grow steeply with the rows
        once each child's points overlap (depth 2 on haberman: about 1,100
        nodes at 24 rows, 11,800 at 48; not proven at 96 in 120 s). Gurobi
        needs about as many nodes as HiGHS, 2-3 times faster
        (``bench/certify_rows.py``). Cheap lower layers, ``C = (1, 0.01)``,
        let HiGHS prove depth 2 on 9 of Table 3.1's 10 sets in 300 s, for
        about 0.9 points of test balanced accuracy (``bench/layer_weights.py``).
    tangents : {"V0", "V1", "V2", "V3", "adaptive"}, default="V3"
        Tangent set of the logistic-loss underestimator; ``"adaptive"`` adds
        tangents at the solution's margins between re-solves.
    univariate : bool, default=False
        Axis-aligned splits (``||w_t||_0 <= 1``, Remark 2).
    max_features : int, sequence of int, "auto" or None, default="auto"
        At most this many features in each hyperplane (per layer, the last
        layer's being the leaf models): the HFS budget ``||w_t||_0 <= B`` of
        3.14 in the MIP, and in the greedy start, TAO and the refits (each
        keeps its largest terms and refits on them). ``"auto"`` (the
        default): the fewest of ``(2, 3, 5, 8, None)``
        features per hyperplane whose greedy trees' held-out accuracy is
        within a point of the best candidate's, chosen on 4 folds within 15%
        of ``time_limit``, on 400 training rows or more; on fewer, no budget
        (folds that small cost 1-3 points of test balanced accuracy on Table
        3.1's sets; ``fit_report_.plan`` says which) (``max_features_``, ``budget_results_``;
        ``build_formulation`` gives the model before the choice, with no
        budget). ``None``:
        no budget, the l1 penalty alone decides (the seed's OLCT). Why the
        choice and not a fixed budget (``bench/frontier.py``, Table 3.1's ten
        sets at depth 2, 10 s): a budget of 3 keeps the mean test balanced
        accuracy of most sets but costs 33 points on tic-tac-toe (97.6 to
        64.3), whose concept needs a dense hyperplane.
{max_total_features_doc}    weight_bound : float, default=10.0
        ``||w_t||_1 <= weight_bound`` on standardized features; big-M values are
        derived from it.
    refine : bool, default=True
        Remark 1: refit each last-layer node on its points.
{solver_doc}

{attributes_doc}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = OLCTClassifier(max_depth=1).fit(X[:100], y[:100])
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = {**MIPClassifier._parameter_constraints, **_MODEL_CONSTRAINTS,
                              "univariate": ["boolean"],
                              "max_features": LossOptimalTreeClassifier._parameter_constraints["max_features"]}
    l2_tol = 1e-4

    def __init__(self, max_depth=2, *, C=1.0, tangents="V3", univariate=False, max_features="auto",
                 max_total_features=None, weight_bound=10.0, refine=True, warm_start=True, solver="highs",
                 time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False, solver_options=None,
                 forbidden_features=None, constraints=None, class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None, fairness=None):
        self.max_depth = max_depth
        self.C = C
        self.tangents = tangents
        self.univariate = univariate
        self.max_features = max_features
        self.max_total_features = max_total_features
        self.weight_bound = weight_bound
        self.refine = refine
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

    def _loss_weights(self):
        """``C`` of the model to build (:class:`~._held_out_c.OLCTClassifierCV` chooses it in the fit)."""
        return self.C

    def _settings(self):
        given = self.max_features
        if self.univariate and not (given is None or isinstance(given, str)) and np.any(np.asarray(given) != 1):
            raise ValueError(f"univariate=True means one feature per split; max_features={given!r} "
                             "asks for more (leave it None or 'auto')")
        budget = 1 if self.univariate else given
        return dict(loss="logistic", regularizer="l1", C=self._loss_weights(), lam=1.0,
                    feature_selection=None if budget is None else "hard", max_features=budget, alpha=None,
                    tangents=self.tangents)


class MARGOTClassifier(LossOptimalTreeClassifier):
    """Margin Optimal Classification Tree (D'Onofrio et al.; seed 002, 3.12-3.13) and its HFS/SFS variants.

    The preset ``loss="hinge", regularizer="l2", lam=1`` of
    :class:`LossOptimalTreeClassifier`: every branch node is a soft-margin SVM
    on the points that reach it, ``sum_h C_h sum_i zeta_i,h + sum_t ||w_t||^2``
    with the hinge slacks (3.13) of the node each point visits. The squared
    norm is exact on MIQP solvers (``solver="scip"`` or ``"gurobi"``); on HiGHS
    it is outer-approximated by tangent cuts refined in a loop of warm-started
    re-solves until its relative error is at most ``l2_tol``, reported as
    ``solver_result_.checks["l2_relative_error"]``. The warm start is a greedy
    tree of linear SVMs.

    Parameters
    ----------
    max_depth : int, default=2
    C : float or sequence of float, default=1.0
        Hinge-loss weight per layer ``C_h``.
    feature_selection : {None, "hard", "soft"}, default=None
        HFS-MARGOT (``||w_t||_0 <= max_features``) or SFS-MARGOT
        (``alpha_h ||w_t||_0`` in the objective), by the l0 indicators (3.14).
    max_features : int or sequence of int, optional
        The HFS budget per node (per layer); given with ``feature_selection=None`` it means ``"hard"``.
{max_total_features_doc}    alpha : float or sequence of float, optional
    weight_bound : float, default=10.0
    l2_tol : float, default=1e-4
    refine : bool, default=True
{solver_doc}

{attributes_doc}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = MARGOTClassifier(max_depth=1).fit(X[:80, :5], y[:80])
    >>> clf.solver_result_.checks["l2_relative_error"] <= 1e-4
    True
    """

    _parameter_constraints = {key: LossOptimalTreeClassifier._parameter_constraints[key] for key in (
        *MIPClassifier._parameter_constraints, *_MODEL_CONSTRAINTS, "feature_selection", "max_features", "alpha",
        "l2_tol") if key != "tangents"}

    def __init__(self, max_depth=2, *, C=1.0, feature_selection=None, max_features=None, max_total_features=None,
                 alpha=None, weight_bound=10.0, l2_tol=1e-4, refine=True, warm_start=True, solver="highs",
                 time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False, solver_options=None,
                 forbidden_features=None, constraints=None, class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None, fairness=None):
        self.max_depth = max_depth
        self.C = C
        self.feature_selection = feature_selection
        self.max_features = max_features
        self.max_total_features = max_total_features
        self.alpha = alpha
        self.weight_bound = weight_bound
        self.l2_tol = l2_tol
        self.refine = refine
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

    def _settings(self):
        return dict(loss="hinge", regularizer="l2", C=self.C, lam=1.0, feature_selection=self.feature_selection,
                    max_features=self.max_features, alpha=self.alpha, tangents="V0")


for _cls in (OLCTClassifier, MARGOTClassifier):
    _cls.__doc__ = _fill(_cls.__doc__)
