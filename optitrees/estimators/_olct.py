"""scikit-learn estimator for Optimal Logistic Classification Trees (seed 002, 3.17)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..formulations.loss_optimal import decode_tree, layer_weights, olct, start_from_tree
from ..formulations.tangents import TANGENT_SETS, logistic_loss
from ..inspect import export_text, tree_to_dict
from ..datasets import standardize
from ..solvers import SolveOptions, solve
from ..solvers.results import relative_gap
from ..solvers.registry import get_backend
from ..warmstart import greedy_logistic_tree, refine_last_layer

__all__ = ["OLCTClassifier"]


class OLCTClassifier(ClassifierMixin, BaseEstimator):
    """Optimal Logistic Classification Tree: an oblique tree of sparse logistic regressions.

    Fits model (3.17) of seed 002 -- routing (3.6), big-M forwarding (3.7),
    logistic-loss tangent slacks on every layer (3.15) and l1-regularized
    hyperplanes (3.16) -- with a greedy warm start, then refits the last layer
    exactly (Remark 1). The objective is the seed's experimental form
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
    refine : bool, default=True
        Remark 1 refinement, kept only when the exact objective does not increase.
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
        Raw solver options, applied last.

    Attributes
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
        ``checks`` (routing agreement and recomputed objective).
    objective_ : float
        Exact training objective of the returned tree (standardized units).
    warm_start_objective_ : float
        Exact training objective of the greedy tree.
    formulation_summary_ : str
        Variable and constraint groups of the solved MIP with their sizes.
    node_std_ : ndarray of shape (n_nodes, n_features_in_)
        Standard deviation of each feature over the training points reaching
        each node (for :meth:`feature_influence`).

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------ checking
    def _validate_params(self):
        d = self.max_depth
        if not isinstance(d, numbers.Integral) or isinstance(d, bool) or d < 1:
            raise ValueError(f"max_depth must be an integer >= 1, got {d!r}")
        layer_weights(self.C, int(d))
        if isinstance(self.tangents, str) and self.tangents.upper() not in TANGENT_SETS:
            raise ValueError(f"tangents must be one of {sorted(TANGENT_SETS)}, got {self.tangents!r}")
        if not (isinstance(self.weight_bound, numbers.Real) and self.weight_bound > 0
                and np.isfinite(self.weight_bound)):
            raise ValueError(f"weight_bound must be a positive number, got {self.weight_bound!r}")
        rs = self.random_state
        if rs is not None and not (isinstance(rs, numbers.Integral) and rs >= 0):
            raise ValueError(f"random_state must be None or a non-negative integer, got {rs!r}")
        # solver name and options are checked here too, before any model is built
        SolveOptions(time_limit=self.time_limit, mip_gap=self.mip_gap, threads=self.threads,
                     solver_options=self.solver_options or {})
        get_backend(self.solver)

    def _encode_labels(self, y):
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs two")
        if len(classes) > 2:
            raise ValueError(
                f"Only binary classification is supported: OLCTClassifier got {len(classes)} classes; use "
                "sklearn.multiclass.OneVsRestClassifier(OLCTClassifier()) (or a multi-class optimal tree)")
        return classes, np.where(y_idx == 1, 1.0, -1.0)

    # ----------------------------------------------------------------- fit
    def fit(self, X, y):
        """Fit the tree by solving the OLCT mixed-integer program.

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
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        self.classes_, y_pm = self._encode_labels(y)
        Xs, mean, scale = standardize(X)
        seed = 0 if self.random_state is None else int(self.random_state)

        f = olct(Xs, y_pm, depth=int(self.max_depth), tangents=self.tangents, C=self.C,
                 univariate=self.univariate, weight_bound=float(self.weight_bound))
        meta = f.meta
        C = meta["C"]
        exact = (lambda tree: tree.objective(Xs, y_pm, C, logistic_loss))
        greedy = greedy_logistic_tree(Xs, y_pm, int(self.max_depth), C, meta["weight_bound"],
                                      meta["intercept_bound"], meta["eps"], self.univariate, seed)
        start = start_from_tree(f, greedy)
        result = solve(f, self.solver, time_limit=self.time_limit, mip_gap=self.mip_gap, threads=self.threads,
                       seed=seed, verbose=self.verbose, warm_start=start if self.warm_start else None,
                       solver_options=self.solver_options)
        self.warm_start_objective_ = exact(greedy)
        notes = []
        if result.x is not None and np.all(np.isfinite(result.x)):
            tree, routing = decode_tree(f, result.x)
            result.checks.update(_agreement(tree, routing, Xs, y_pm, C, meta["lines"], result.objective,
                                            f.objective_value(result.x)))
            if result.checks.get("polished") is False:
                notes.append("the solver's integer solution could not be polished (it relies on integrality "
                             "tolerances); its hyperplanes are used as they are")
            if result.checks["routing_mismatches"]:
                notes.append(f"{result.checks['routing_mismatches']} training points are routed differently by "
                             "the returned hyperplanes than by z; the objective is recomputed from the hyperplanes")
            objective = exact(tree)
            if self.refine:
                refined = refine_last_layer(tree, Xs, y_pm, C[-1], seed, self.univariate)
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
            # report the returned model: the warm start's solution, surrogate objective and gap
            result.x, result.solution_source = start, "warm_start"
            result.objective = f.objective_value(start)
            result.gap = relative_gap(result.objective, result.bound)
        if result.status in ("time_limit_feasible", "feasible"):
            why = "time limit reached" if result.status == "time_limit_feasible" else "solver stopped early"
            notes.append(f"{why}: returning the best tree found, not proven optimal (gap "
                         f"{100 * (result.gap or 0):.2f}%, solution from {result.solution_source})")
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=2)
        result.message = "; ".join([result.message] + notes)
        self.objective_ = objective
        self.solver_result_ = result
        self.formulation_summary_ = f.summary()

        names = getattr(self, "feature_names_in_", None)
        self.tree_ = tree.unscaled(mean, scale)
        self.tree_.feature_names = names
        self.node_std_ = _node_std(self.tree_, X)
        return self

    # ------------------------------------------------------------- predict
    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def decision_function(self, X):
        """``w_t x + b_t`` of the last-layer node each sample reaches (log-odds of ``classes_[1]``)."""
        X = self._X(X)
        return self.tree_.decision_function(X)

    def predict_proba(self, X):
        """Class probabilities, shape ``(n_samples, 2)``, columns ordered as ``classes_``."""
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

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return list(names) if names is not None else [f"x{j}" for j in range(self.n_features_in_)]

    def export_text(self, decimals=3):
        """The fitted tree as text: each node's sparse hyperplane in original units."""
        check_is_fitted(self)
        return export_text(self.tree_, self._feature_names(), self.classes_, decimals=decimals)

    def to_dict(self):
        """The fitted tree as a JSON-serializable dict."""
        check_is_fitted(self)
        return tree_to_dict(self.tree_, self._feature_names(), self.classes_)


def _agreement(tree, routing, X, y, C, lines, reported, vector_objective):
    """Routing recomputed from the hyperplanes vs ``z``, and the objective recomputed from the tree."""
    mismatches = int(np.sum(tree.apply(X) != routing))
    recomputed = tree.objective(X, y, C, lines)
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

