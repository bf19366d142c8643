"""scikit-learn estimator for loss-optimal oblique trees (seed 002, 3.12); its presets OLCT and MARGOT are in
:mod:`._loss_optimal_presets`."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from ...algorithms.local_search.tmo import tmo_loss_optimal
from ...algorithms.loss_optimal.greedy import greedy_tree
from ...algorithms.loss_optimal.refine import refine_last_layer
from ...algorithms.loss_optimal.tao_loss_optimal import tao_loss_optimal
from ...algorithms.node_fit import node_fitter
from ...budget import expired
from ...formulations.loss_optimal.model import LossOptimalProblem, LossOptimalSpec, layer_losses
from ...formulations.loss_optimal.solution import LOSS_OPTIMAL
from ...scaling import Scaling
from ...solvers.plan import SUB_MIP_HEURISTICS_OFF
from ...solvers.registry import get_backend
from ...trees import feature_importances, node_std
from .. import _auto_budget as auto
from .._docs import (LOSS_OPTIMAL_ATTRIBUTES_DOC as _ATTRIBUTES_DOC, LOSS_OPTIMAL_FAIRNESS_DOC, LOSS_OPTIMAL_TREE_WIDE_DOC,
                     SOLVER_PARAMETERS_DOC)
from .._base import SensitiveFeaturesFit
from .._one_vs_rest import fit_one_vs_rest, more_than_two_classes
from .._views import TreeViews
from ._loss_optimal_held_out import HeldOutChoices
from ._template import MIPClassifier

__all__ = ["LossOptimalTreeClassifier"]

_MODEL_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 1, None, closed="left")],
    "C": [Interval(Real, 0, None, closed="left"), "array-like"],
    "tangents": [StrOptions({"V0", "V1", "V2", "V3", "adaptive"}), "array-like"],
    "weight_bound": [Interval(Real, 0, None, closed="neither")],
    "refine": ["boolean"],
    "max_total_features": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
}


class LossOptimalTreeClassifier(SensitiveFeaturesFit, HeldOutChoices, TreeViews, MIPClassifier):
    """Loss-optimal oblique classification tree (seed 002, 3.12), composed from the shared blocks.

    Every branch node holds a linear classifier ``(w_t, b_t)``; a point goes
    right when ``w_t x + b_t > 0`` and the last-layer node it reaches classifies
    it. The MIP minimizes, on standardized features,
    ``sum_h (C_h sum_i loss_h(y_i (w_t x_i + b_t)) + lam_h sum_t Omega(w_t))``
    plus ``alpha_h ||w_t||_0`` for soft feature selection, where ``t`` is the
    node of layer ``h`` that point ``i`` visits: routing (3.6), big-M
    forwarding (3.7), the loss of each layer (misclassification 3.9, hinge
    3.13, logistic by tangents 3.15), ``Omega`` = l1 (3.16), squared l2 or none,
    l0 indicators (3.14). :class:`OLCTClassifier` and :class:`MARGOTClassifier`
    are presets.

    Parameters
    ----------
    max_depth : int, default=2
        Number of branching layers.
    loss : str or sequence of str, default="logistic"
        ``"logistic"``, ``"hinge"`` or ``"misclassification"``, for all layers
        or one per layer.
    regularizer : {"l1", "l2", None}, default="l1"
        Squared l2 is solved exactly by MIQP solvers (``"scip"``, ``"gurobi"``)
        and by an outer approximation refined to ``l2_tol`` on the others
        (HiGHS).
    C : float or sequence of float, default=1.0
        Loss weight per layer ``C_h``.
    lam : float or sequence of float, default=1.0
        Regularization weight per layer ``lam_h``.
    feature_selection : {None, "hard", "soft"}, default=None
        HFS: ``||w_t||_0 <= max_features``; SFS: ``alpha_h ||w_t||_0`` in the objective.
    max_features : int, sequence of int, "auto" or None, default=None
        HFS budget per node (per layer); ``1`` gives univariate splits. Given
        with ``feature_selection=None`` it means ``"hard"``. The greedy start,
        TAO and the refits keep to it too. ``"auto"``: chosen on held-out
        folds within the fit, the fewest of ``(2, 3, 5, 8, None)`` features per
        hyperplane whose greedy trees keep the held-out balanced accuracy
        (:mod:`optitrees.estimators._auto_budget`,
        :func:`~optitrees.algorithms.loss_optimal.held_out.choose_budget`);
        ``max_features_`` and ``budget_results_`` report the choice. On
        fewer than 400 training rows (``MIN_ROWS_TO_CHOOSE``) there is
        no choice and no budget: held-out folds that small cost accuracy.
{max_total_features_doc}    alpha : float or sequence of float, optional
        SFS penalty per feature used (per layer).
    tangents : {"V0", "V1", "V2", "V3", "adaptive"}, default="V3"
        Tangent set of the logistic-loss underestimator; ``"adaptive"`` starts
        from V1 and adds, between warm-started re-solves, the tangent at each
        point's own margin where the solution is underestimated (the loss is
        then tracked where the tree lies; the loop's relative error is in
        ``solver_result_.checks["logistic_relative_error"]``). V3 is the
        default: of V0, V1, V3 and adaptive it was the set whose solver trees
        most often beat the greedy tree in the exact loss within 10 s
        (``bench/solver_settings.py``; V0's trees were 12% worse than greedy
        at the median).
    weight_bound : float, default=10.0
        ``||w_t||_1 <= weight_bound`` on standardized features; big-M values are
        derived from it.
    l2_tol : float, default=1e-4
        Relative error of the outer approximation of ``||w||^2`` at which the
        re-solve loop stops (reported in ``solver_result_.checks``).
    refine : bool, default=True
        Improve the solver's tree: first each last-layer node refit by its own
        convex problem on the points routed to it (Remark 1 of seed 002), kept
        where the exact objective does not increase; then TAO on the exact
        objective (which moves inner nodes when the exact objective drops).
        The result is kept only when better; ``fit_report_.checks`` has both
        objectives (``last_layer_refit_objective``, ``tao_objective``).
{solver_doc}

{attributes_doc}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = LossOptimalTreeClassifier(max_depth=1, loss="hinge", regularizer="l1").fit(X[:80], y[:80])
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    #: one tree, or one tree per class against the rest (more than two classes)
    _model_shapes = (frozenset({"tree_"}), frozenset({"one_vs_rest_"}))

    _leaf_models_are_a_layer = True

    _family = LOSS_OPTIMAL
    #: standardized, sparse columns only divided by their deviation (:data:`~optitrees.scaling.Scaling.STANDARD_SPARSE`)
    _scaling = Scaling.STANDARD_SPARSE
    _default_start = "best"
    _refine_name = "tao"
    _presolve_stage = "held-out budget"

    @property
    def _solver_defaults(self) -> dict:
        """HiGHS's presolve off: the solver's tree beat the greedy one more often for OLCT (V3) and MARGOT
        (``bench/solver_settings.py``; OCT and OCT-H turn it off too, see ``_oct.py``)."""
        return {"highs": {"presolve": "off"}}

    #: With a start handed over, HiGHS's sub-MIP heuristics are off
    #: (:data:`~optitrees.solvers.plan.SUB_MIP_HEURISTICS_OFF`): with the logistic loss on every layer they took
    #: 14-35 s of a 60 s fit's ~45 s solve at the root and HiGHS explored no node on 8 of Table 3.1's 10 sets at
    #: depth 2 (without them 101-613 nodes on each of 5, the bound 0.2-2.3% higher); MARGOT's trees were worse
    #: without them on 2 of 5 sets before the neighbourhood rounds, which now search near the start instead
    #: (``bench/neighbourhood.py``). Without a start (none satisfies a user's constraints) they stay on and find
    #: HiGHS's first good trees: 57 rows of breast cancer with two features at
    #: most, 10 s: 75.5 without them, 27.1 with.
    _solver_defaults_with_start = SUB_MIP_HEURISTICS_OFF

    _parameter_constraints = {
        **MIPClassifier._parameter_constraints, **_MODEL_CONSTRAINTS,
        "loss": [StrOptions({"logistic", "hinge", "misclassification"}), "array-like"],
        "regularizer": [StrOptions({"l1", "l2"}), None],
        "lam": [Interval(Real, 0, None, closed="left"), "array-like"],
        "feature_selection": [StrOptions({"hard", "soft"}), None],
        "max_features": [Interval(Integral, 1, None, closed="left"), "array-like", StrOptions({"auto"}), None],
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like", None],
        "l2_tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, max_depth=2, *, loss="logistic", regularizer="l1", C=1.0, lam=1.0, feature_selection=None,
                 max_features=None, max_total_features=None, alpha=None, tangents="V3", weight_bound=10.0, l2_tol=1e-4,
                 refine=True, warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None,
                 random_state=None, verbose=False, solver_options=None, forbidden_features=None, constraints=None,
                 class_weight=None, feature_costs=None,
                 max_feature_cost=None, monotonic_cst=None, fairness=None):
        self.max_depth = max_depth
        self.loss = loss
        self.regularizer = regularizer
        self.C = C
        self.lam = lam
        self.feature_selection = feature_selection
        self.max_features = max_features
        self.max_total_features = max_total_features
        self.alpha = alpha
        self.tangents = tangents
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

    # ---------------------------------------------------------------- fit
    def _fit(self, X, y, sample_weight, budget, sensitive_features=None):
        """Two classes: the MIP template. More: one tree per class against the rest, sharing the budget
        (:func:`~optitrees.estimators._one_vs_rest.fit_one_vs_rest`)."""
        if more_than_two_classes(y):
            if getattr(self, "fairness", None) is not None:
                raise ValueError(f"a fairness constraint needs two classes; y has {len(np.unique(y))}")
            return fit_one_vs_rest(self, X, y, sample_weight, budget)
        self.__dict__.pop("estimators_", None)
        self.one_vs_rest_ = None
        return super()._fit(X, y, sample_weight, budget, sensitive_features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    # ------------------------------------------------------------ the family
    def _settings(self) -> dict:
        """Model settings of :meth:`LossOptimalSpec.create` (presets override this)."""
        return dict(loss=self.loss, regularizer=self.regularizer, C=self.C, lam=self.lam,
                    feature_selection=self.feature_selection, max_features=self.max_features, alpha=self.alpha,
                    tangents=self.tangents)

    def _auto_budget(self) -> bool:
        """Whether the feature budget is to be chosen on held-out folds (``max_features="auto"``)."""
        return auto.is_auto(self._settings()["max_features"])

    def _make_spec(self, forbidden, n_classes):
        settings = self._settings()
        if self._auto_budget():                   # the spec of the dense tree; _presolve sets the budget
            if settings["feature_selection"] == "soft":
                raise ValueError("max_features='auto' chooses an HFS budget; feature_selection='soft' prices "
                                 "features by alpha")
            settings.update(feature_selection=None, max_features=None)
        outer = settings["regularizer"] == "l2" and not get_backend(self.solver).supports_miqp
        return LossOptimalSpec.create(depth=self.max_depth, weight_bound=float(self.weight_bound),
                                      l2_method="outer" if outer else "exact", l2_tol=float(self.l2_tol),
                                      forbidden=forbidden, monotone=self._monotone_signs(), **settings)

    def _make_problem(self, spec, data):
        return LossOptimalProblem.create(spec, data)

    def _fitter(self, problem, allowed=None, deadline=None):
        mask = np.ones(problem.data.n_features, bool) if allowed is None else np.asarray(allowed, bool).copy()
        mask[list(problem.spec.forbidden)] = False
        return node_fitter(problem.spec, self._seed, mask, deadline=deadline)

    def _starts(self, problem, deadline, methods):
        fit = self._fitter(problem, deadline=deadline)
        starts = {"greedy": greedy_tree(problem, fit, deadline=deadline)}
        if problem.spec.depth == 1:
            # one node and no split: TAO's only step and every TMO individual's is the greedy node fit on all
            # points again (a depth-1 fit on 240 rows spent 2.1 s of its 2.4 s in TMO to get the greedy tree back)
            return starts
        # a start begun after the deadline would still fit its first trees (TMO on 30k rows: 0.4-0.7 s past it)
        if "tao" in methods and not expired(deadline):
            starts["tao"] = tao_loss_optimal(starts["greedy"], problem, fit, deadline=deadline)
        if "tmo" in methods and not expired(deadline):
            starts["tmo"], _ = tmo_loss_optimal(problem, lambda allowed: self._fitter(problem, allowed, deadline),
                                                random_state=self._seed, deadline=deadline)
        return starts

    def _refine(self, problem, model, deadline):
        """Remark 1 of seed 002, then TAO: each last-layer node refit by its own convex problem (l1-logistic,
        hinge + l2 ...) on the points routed to it, kept only where the exact objective does not increase; then
        TAO from that tree, the broader refinement. Both objectives go to ``fit_report_.checks``
        (``last_layer_refit_objective``, ``tao_objective``; ``refined_from_objective`` is the solver's model)."""
        if not self.refine:
            return None
        fitter = self._fitter(problem, deadline=deadline)

        def exact(tree):            # as the fit scores its candidates: the tree as it would be returned
            return LOSS_OPTIMAL.objective(problem, LOSS_OPTIMAL.finalize(problem, tree))

        before = exact(model)
        refit = refine_last_layer(model, problem, fitter)
        after = exact(refit)
        if not after <= before:
            refit, after = model, before
        tao = tao_loss_optimal(refit, problem, fitter, deadline=deadline)
        # kept with its problem: a refinement left at the deadline (call_until) may end after its fit did
        self._refinements = (problem, {"refined_from_objective": before, "last_layer_refit_objective": after,
                                       "tao_objective": exact(tao)})
        return tao

    def _report_checks(self, problem):
        """The refinements' objectives of this fit's last refinement (:meth:`_refine`: of the solver's model, or of
        the last neighbourhood round's tree, or of the best start, when nothing after it was refined), when it ran
        to its end."""
        of, objectives = self.__dict__.pop("_refinements", (None, {}))
        chosen = {} if "budget_results_" not in self.__dict__ else {
            "max_features": self.max_features_, "budget_folds_scored": self.budget_results_["folds_scored"]}
        return {**super()._report_checks(problem), **(objectives if of is problem else {}), **chosen}

    def _store(self, problem, tree):
        self.tree_ = tree
        self.node_std_ = node_std(tree, problem.data.X_original)
        self.feature_importances_ = feature_importances(tree, problem.data.X_original)

    def _has_proba(self):
        try:
            return layer_losses(self._settings()["loss"], int(self.max_depth))[-1] == "logistic"
        except (ValueError, TypeError):      # invalid settings: fit will say why
            return False

    # ------------------------------------------------------------- predict
    def predict(self, X):
        """Predicted class labels (more than two classes: the class whose tree scores highest)."""
        if getattr(self, "one_vs_rest_", None) is None:
            return super().predict(X)
        X = self._X(X)
        return self.classes_[self.one_vs_rest_.predict(X)]

    def decision_function(self, X):
        """``w_t x + b_t`` of the last-layer node each sample reaches (log-odds of ``classes_[1]``); with more
        than two classes, shape ``(n_samples, n_classes)``: each class's tree's score."""
        X = self._X(X)
        model = self.tree_ if getattr(self, "one_vs_rest_", None) is None else self.one_vs_rest_
        return model.decision_function(X)

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities ``sigmoid(w_t x + b_t)`` of the last-layer node (logistic last layer only); with
        more than two classes each tree's ``sigmoid(score)``, normalized to sum to one.

        Returns an array of shape ``(n_samples, n_classes)``, columns ordered as ``classes_``.
        """
        X = self._X(X)
        model = self.tree_ if getattr(self, "one_vs_rest_", None) is None else self.one_vs_rest_
        return model.predict_proba(X)

    # ----------------------------------------------------- interpretation
    def feature_influence(self, X=None):
        """Feature influence ``r_{j,t} = w_{j,t} sigma_{j,t}`` per node (seed 002, Figure 3.5).

        ``sigma_{j,t}`` is the standard deviation of feature ``j`` over the points
        reaching node ``t`` (the training points, or ``X`` when given).

        Returns
        -------
        DataFrame of shape (n_nodes, n_features), indexed by node id of ``tree_``.
        """
        import pandas as pd

        tree = self._one_tree()
        std = self.node_std_ if X is None else node_std(tree, self._X(X))
        return pd.DataFrame(tree.weights * std, index=pd.Index(np.arange(tree.n_nodes), name="node"),
                            columns=self._feature_names())

    def path_confidence(self, X):
        """Confidence of each decision on each sample's path (seed 002, Figure 3.6).

        Returns
        -------
        nodes : ndarray of shape (n_samples, max_depth)
            Node ids visited, root first.
        confidence : ndarray of shape (n_samples, max_depth)
            ``sigmoid(w_t x + b_t)`` of the node's own classifier for a right
            turn, one minus it for a left turn; at the last node, the
            probability of the predicted class.
        """
        X = self._X(X)
        tree = self._one_tree()
        path, values = tree.path_values(X)
        p = expit(values)
        right = np.empty(path.shape, bool)
        right[:, :-1] = path[:, 1:] == tree.children_right[path[:, :-1]]
        right[:, -1] = values[:, -1] > 0
        return path, np.where(right, p, 1.0 - p)


def _fill(doc):
    return doc.replace("{solver_doc}", SOLVER_PARAMETERS_DOC + "\n" + LOSS_OPTIMAL_FAIRNESS_DOC) \
        .replace("{attributes_doc}", _ATTRIBUTES_DOC).replace("{max_total_features_doc}", LOSS_OPTIMAL_TREE_WIDE_DOC)


LossOptimalTreeClassifier.__doc__ = _fill(LossOptimalTreeClassifier.__doc__)
