"""scikit-learn estimators for loss-optimal oblique trees (seed 002, 3.12): general, OLCT (3.17), MARGOT."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from ..datasets import standardize
from ..formulations.loss_optimal import (FEATURE_SELECTION, REGULARIZERS, _layer_values, decode_tree,
                                         layer_losses, layer_weights, loss_optimal_tree, start_from_tree,
                                         tree_objective)
from ..formulations.tangents import TANGENT_SETS, logistic_loss
from ..inspect import export_text, tree_to_dict
from ..solvers.outer_approximation import solve_outer_approximation
from ..warmstart import greedy_tree, node_fitter, refine_last_layer
from ._base import MIPEstimatorMixin, check_depth

__all__ = ["LossOptimalTreeClassifier", "OLCTClassifier", "MARGOTClassifier"]

_SOLVER_DOC = """    refine : bool, default=True
        Remark 1: refit each last-layer node on the points routed to it (on its
        current features when feature selection is on), kept only when the
        exact objective does not increase.
    warm_start : bool, default=True
        Hand the greedy tree to the solver as a start.
    solver : str, default="highs"
        See :func:`optitrees.solvers.solve`.
    time_limit : float, default=60.0
        Seconds; at the limit the best tree found is returned with a warning
        stating the gap. Same data, seed and options give the same tree when
        the solve ends on the gap or a node limit (``solver_options=
        {"mip_max_nodes": n}`` for HiGHS); where a wall-clock limit stops it,
        the incumbent depends on machine speed.
    mip_gap : float, default=1e-4
    threads : int, optional
    random_state : int, optional
        Seed for the solver and the warm start.
    verbose : bool, default=False
        Show the solver log.
    solver_options : dict, optional
        Raw solver options, applied last."""

_ATTRIBUTES_DOC = """    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (+1 internally).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` had string column names.
    tree_ : ObliqueTree
        Fitted tree in the user's original feature units.
    solver_result_ : SolverResult
        Status, objective, bound, gap, nodes, timings, solution source, and
        ``checks`` (routing agreement, recomputed objective, and for the outer
        approximation of ``||w||^2`` the achieved ``l2_relative_error``).
    objective_ : float
        Exact training objective of the returned tree (standardized units).
    warm_start_objective_ : float
        Exact training objective of the greedy tree.
    formulation_summary_ : str
        Variable and constraint groups of the solved MIP with their sizes.
    node_std_ : ndarray of shape (n_nodes, n_features_in_)
        Standard deviation of each feature over the training points reaching
        each node (for :meth:`feature_influence`)."""


class LossOptimalTreeClassifier(MIPEstimatorMixin, ClassifierMixin, BaseEstimator):
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
    max_features : int or sequence of int, optional
        HFS budget per node (per layer); ``1`` gives univariate splits.
    alpha : float or sequence of float, optional
        SFS penalty per feature used (per layer).
    tangents : {"V0", "V1", "V2", "V3"}, default="V0"
        Tangent set of the logistic-loss underestimator.
    weight_bound : float, default=10.0
        ``||w_t||_1 <= weight_bound`` on standardized features; big-M values are
        derived from it.
    l2_tol : float, default=1e-4
        Relative error of the outer approximation of ``||w||^2`` at which the
        re-solve loop stops (reported in ``solver_result_.checks``).
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

    def __init__(self, max_depth=2, *, loss="logistic", regularizer="l1", C=1.0, lam=1.0, feature_selection=None,
                 max_features=None, alpha=None, tangents="V0", weight_bound=10.0, l2_tol=1e-4, refine=True,
                 warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None,
                 random_state=None, verbose=False, solver_options=None):
        self.max_depth = max_depth
        self.loss = loss
        self.regularizer = regularizer
        self.C = C
        self.lam = lam
        self.feature_selection = feature_selection
        self.max_features = max_features
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------ settings
    def _spec(self) -> dict:
        """Model settings passed to :func:`loss_optimal_tree` (presets override this)."""
        return dict(loss=self.loss, regularizer=self.regularizer, C=self.C, lam=self.lam,
                    feature_selection=self.feature_selection, max_features=self.max_features, alpha=self.alpha,
                    tangents=self.tangents)

    def _validate_params(self):
        depth = check_depth(self.max_depth)
        spec = self._spec()
        layer_losses(spec["loss"], depth)
        if spec["regularizer"] not in REGULARIZERS:
            raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {spec['regularizer']!r}")
        if spec["feature_selection"] not in FEATURE_SELECTION:
            raise ValueError(f"feature_selection must be one of {FEATURE_SELECTION}, got "
                             f"{spec['feature_selection']!r}")
        layer_weights(spec["C"], depth)
        _layer_values(spec["lam"], depth, "lam")
        if spec["feature_selection"] == "hard":
            b = _layer_values(spec["max_features"], depth, "max_features (the HFS budget)")
            if np.any(b < 1) or np.any(b != np.round(b)):
                raise ValueError("max_features must be a positive integer per layer")
        if spec["feature_selection"] == "soft":
            _layer_values(spec["alpha"], depth, "alpha (the SFS penalty)")
        t = spec["tangents"]
        if isinstance(t, str) and t.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {t!r}")
        if not (isinstance(self.weight_bound, numbers.Real) and self.weight_bound > 0
                and np.isfinite(self.weight_bound)):
            raise ValueError(f"weight_bound must be a positive number, got {self.weight_bound!r}")
        if not (isinstance(self.l2_tol, numbers.Real) and self.l2_tol > 0):
            raise ValueError(f"l2_tol must be a positive number, got {self.l2_tol!r}")
        backend = self._validate_solver_params()
        return depth, spec, backend

    def _has_proba(self):
        try:
            return layer_losses(self._spec()["loss"], check_depth(self.max_depth))[-1] == "logistic"
        except ValueError:      # invalid settings: fit will say why
            return False

    # ----------------------------------------------------------------- fit
    def fit(self, X, y):
        """Fit the tree by solving the loss-optimal mixed-integer program.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features without missing values.
        y : array-like of shape (n_samples,)
            Exactly two class labels (any type).

        Returns
        -------
        self
        """
        depth, spec, backend = self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y_pm = self._encode_binary(y)
        Xs, mean, scale = standardize(X)
        seed = self._seed
        outer = spec["regularizer"] == "l2" and not backend.supports_miqp
        f = loss_optimal_tree(Xs, y_pm, depth=depth, weight_bound=float(self.weight_bound),
                              l2_method="outer" if outer else "exact", **spec)
        meta = f.meta
        exact = (lambda tree: tree_objective(tree, Xs, y_pm, meta, surrogate=False))
        layer_fit = _per_layer_fitter(meta, seed)
        greedy = greedy_tree(Xs, y_pm, depth, layer_fit, meta["weight_bound"], meta["intercept_bound"], meta["eps"])
        start = start_from_tree(f, greedy)
        if outer:
            result = self._solve(f, start, solve_fn=solve_outer_approximation, tol=float(self.l2_tol))
        else:
            result = self._solve(f, start)
        self.warm_start_objective_ = exact(greedy)
        notes = []
        if result.x is not None and np.all(np.isfinite(result.x)):
            tree, routing = decode_tree(f, result.x)
            result.checks.update(_agreement(tree, routing, Xs, y_pm, meta, result.objective,
                                            f.objective_value(result.x)))
            notes += self._polish_notes(result)
            err = result.checks.get("l2_relative_error")
            if err is not None and err > self.l2_tol:
                notes.append(f"the outer approximation of ||w||^2 stopped at relative error {err:.2e} "
                             f"(l2_tol={self.l2_tol:g})")
            objective = exact(tree)
            if self.refine and meta["losses"][-1] != "misclassification":
                refined = refine_last_layer(tree, Xs, y_pm, layer_fit, _node_objective(meta),
                                            keep_support=meta["feature_selection"] is not None
                                            and not meta["univariate"])
                refined_objective = exact(refined)
                if refined_objective <= objective:
                    tree, objective = refined, refined_objective
            if objective > self.warm_start_objective_:
                notes.append("the solver's tree has a worse exact objective than the warm start; "
                             "returning the warm start")
                tree, objective = greedy, self.warm_start_objective_
        else:
            tree, objective = greedy, self.warm_start_objective_
            notes.append(f"solver returned no solution ({result.status}); falling back to the greedy warm start")
        if tree is greedy:
            self._report_start(f, result, start)
        self._warn(result, notes)
        self.objective_ = objective
        self.solver_result_ = result
        self.formulation_summary_ = f.summary()

        self.tree_ = tree.unscaled(mean, scale)
        self.tree_.feature_names = getattr(self, "feature_names_in_", None)
        self.node_std_ = _node_std(self.tree_, X)
        return self

    # ------------------------------------------------------------- predict
    def decision_function(self, X):
        """``w_t x + b_t`` of the last-layer node each sample reaches (log-odds of ``classes_[1]``)."""
        X = self._X(X)
        return self.tree_.decision_function(X)

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities ``sigmoid(w_t x + b_t)`` of the last-layer node (logistic last layer only).

        Returns an array of shape ``(n_samples, 2)``, columns ordered as ``classes_``.
        """
        X = self._X(X)
        p = self.tree_.predict_proba(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """Predicted class labels."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def apply(self, X):
        """Last-layer node id each sample reaches."""
        X = self._X(X)
        return self.tree_.apply(X)

    # ----------------------------------------------------- interpretation
    def feature_influence(self, X=None):
        """Feature influence ``r_{j,t} = w_{j,t} sigma_{j,t}`` per node (seed 002, Figure 3.5).

        ``sigma_{j,t}`` is the standard deviation of feature ``j`` over the points
        reaching node ``t`` (the training points, or ``X`` when given).

        Returns
        -------
        DataFrame of shape (n_nodes, n_features), indexed by node id.
        """
        import pandas as pd

        check_is_fitted(self)
        std = self.node_std_ if X is None else _node_std(self.tree_, self._X(X))
        return pd.DataFrame(self.tree_.weights * std, index=pd.Index(self.tree_.nodes, name="node"),
                            columns=self._feature_names())

    def path_confidence(self, X):
        """Confidence of each decision on each sample's path (seed 002, Figure 3.6).

        Returns
        -------
        nodes : ndarray of shape (n_samples, max_depth)
            Node ids visited, root first.
        confidence : ndarray of shape (n_samples, max_depth)
            ``sigmoid(w_t x + b_t)`` for a right turn, one minus it for a left
            turn; at the last node, the probability of the predicted class.
        """
        X = self._X(X)
        return self.tree_.confidence(X)

    def export_text(self, decimals=3):
        """The fitted tree as text: each node's sparse hyperplane in original units."""
        check_is_fitted(self)
        return export_text(self.tree_, self._feature_names(), self.classes_, decimals=decimals,
                           probabilistic=self._has_proba())

    def to_dict(self):
        """The fitted tree as a JSON-serializable dict."""
        check_is_fitted(self)
        return tree_to_dict(self.tree_, self._feature_names(), self.classes_)


def _per_layer_fitter(meta, seed):
    """Greedy node fit with each layer's own loss (see :func:`optitrees.warmstart.node_fitter`)."""
    fits = [node_fitter(loss, meta["regularizer"], meta["C"], meta["lam"], meta["budget"], seed)
            for loss in meta["losses"]]
    return lambda Xn, yn, h, support=None: fits[h](Xn, yn, h, support)


def _node_objective(meta):
    """Exact objective of one last-layer node ``(X, y, w, b) -> float``."""
    h = meta["topology"].depth - 1
    loss = {"logistic": logistic_loss, "hinge": lambda s: np.maximum(0.0, 1.0 - s)}[meta["losses"][h]]
    C, lam, reg, alpha = meta["C"][h], meta["lam"][h], meta["regularizer"], meta["alpha"]

    def objective(X, y, w, b):
        value = C * loss(y * (X @ w + b)).sum()
        if reg == "l1":
            value += lam * np.abs(w).sum()
        elif reg == "l2":
            value += lam * (w * w).sum()
        if alpha is not None:
            value += alpha[h] * np.count_nonzero(w)
        return float(value)

    return objective


def _agreement(tree, routing, X, y, meta, reported, vector_objective):
    """Routing recomputed from the hyperplanes vs ``z``, and the objective recomputed from the tree."""
    mismatches = int(np.sum(tree.apply(X) != routing))
    recomputed = tree_objective(tree, X, y, meta, surrogate=True)
    reference = vector_objective if reported is None else reported
    return {"routing_mismatches": mismatches, "objective_recomputed": recomputed,
            "objective_discrepancy": abs(recomputed - reference)}


def _node_std(tree, X):
    """Std of each feature over the points reaching each node (zero where none do)."""
    path = tree.decision_path(X)
    std = np.zeros_like(tree.weights)
    for h in range(tree.depth):
        for t in np.unique(path[:, h]):
            rows = path[:, h] == t
            std[t - 1] = X[rows].std(axis=0)
    return std



def _fill(doc):
    return doc.replace("{solver_doc}", _SOLVER_DOC).replace("{attributes_doc}", _ATTRIBUTES_DOC)


LossOptimalTreeClassifier.__doc__ = _fill(LossOptimalTreeClassifier.__doc__)


class OLCTClassifier(LossOptimalTreeClassifier):
    """Optimal Logistic Classification Tree (seed 002, 3.17): an oblique tree of sparse logistic regressions.

    The preset ``loss="logistic", regularizer="l1", lam=1`` of
    :class:`LossOptimalTreeClassifier`: routing (3.6), big-M forwarding (3.7),
    logistic-loss tangent slacks on every layer (3.15) and l1-regularized
    hyperplanes (3.16), with a greedy warm start, then the exact refit of the
    last layer (Remark 1). The objective is the seed's experimental form
    ``sum_h C_h sum_i logloss_i,h + sum_t ||w_t||_1`` on standardized features.

    Parameters
    ----------
    max_depth : int, default=2
        Number of branching layers.
    C : float or sequence of float, default=1.0
        Loss weight per layer ``C_h`` (a scalar applies to every layer).
    tangents : {"V0", "V1", "V2", "V3"}, default="V0"
        Tangent set of the logistic-loss underestimator.
    univariate : bool, default=False
        Axis-aligned splits (``||w_t||_0 <= 1``, Remark 2).
    weight_bound : float, default=10.0
        ``||w_t||_1 <= weight_bound`` on standardized features; big-M values are
        derived from it.
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

    def __init__(self, max_depth=2, *, C=1.0, tangents="V0", univariate=False, weight_bound=10.0, refine=True,
                 warm_start=True, solver="highs", time_limit=60.0, mip_gap=1e-4, threads=None,
                 random_state=None, verbose=False, solver_options=None):
        self.max_depth = max_depth
        self.C = C
        self.tangents = tangents
        self.univariate = univariate
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

    l2_tol = 1e-4

    def _spec(self):
        return dict(loss="logistic", regularizer="l1", C=self.C, lam=1.0,
                    feature_selection="hard" if self.univariate else None,
                    max_features=1 if self.univariate else None, alpha=None, tangents=self.tangents)


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
    alpha : float or sequence of float, optional
    weight_bound : float, default=10.0
    l2_tol : float, default=1e-4
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

    def __init__(self, max_depth=2, *, C=1.0, feature_selection=None, max_features=None, alpha=None,
                 weight_bound=10.0, l2_tol=1e-4, refine=True, warm_start=True, solver="highs", time_limit=60.0,
                 mip_gap=1e-4, threads=None, random_state=None, verbose=False, solver_options=None):
        self.max_depth = max_depth
        self.C = C
        self.feature_selection = feature_selection
        self.max_features = max_features
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

    def _spec(self):
        return dict(loss="hinge", regularizer="l2", C=self.C, lam=1.0, feature_selection=self.feature_selection,
                    max_features=self.max_features, alpha=self.alpha, tangents="V0")


for _cls in (OLCTClassifier, MARGOTClassifier):
    _cls.__doc__ = _fill(_cls.__doc__)
