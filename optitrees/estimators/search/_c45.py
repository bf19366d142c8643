"""C4.5 and soft decision trees for uncertain measurements (seed 000, chapters 2 and 3)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ...algorithms.c45.induction import grow_c45, to_tree
from ...algorithms.c45.pessimistic_pruning import collapse, prune
from ...budget import expired
from ...readable import format_number, printable
from ...trees import feature_importances, leaf_reach
from ...trees._gating import gated_mixture
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._docs import CLASS_WEIGHT_DOC
from .._input import feature_names, printed_names, resolve_features
from .._views import TreeViews

__all__ = ["C45Classifier"]


class C45Classifier(TreeViews, OptitreesClassifier):
    """C4.5 decision tree (seed 000, ch. 2) with the soft components of ch. 3 for uncertain measurements.

    Induction (Algorithm 1, eqs. 2.1-2.6): binary tests ``x_j <= tau``, the
    threshold of each feature chosen by information gain with C4.5 release 8's
    penalty for the number of candidate cuts, the feature by gain ratio among
    those with at least average gain (``criterion="gain_ratio"``) or by gain
    alone (``"information_gain"``, the seed's simplification). Missing values
    (``nan``) are C4.5's: a feature's gain is scaled by its known share, and a
    row with a missing value goes down both branches with fractional weights,
    in training and in prediction (2.2.4). Pruning is C4.5's error-based
    pruning with subtree raising and the Laplace correction (2.2.3), see
    :mod:`optitrees.algorithms.c45.pessimistic_pruning`. Leaves predict with
    Laplace-smoothed class frequencies ``(n_y + 1) / (n + K)``.

    Soft trees (ch. 3), each on its own or together: the noise of feature
    ``j`` is ``N(0, sigma_j^2)`` with ``sigma_j = u * |mean(x_j)|`` on the
    training data and

    * ``search_uncertainty`` (``u_s``): soft search for thresholds (eqs. 3.5-3.8)
      on the grid of eq. 3.7 (``window`` = omega, ``resolution`` = delta);
    * ``propagation_uncertainty`` (``u_t``): soft training propagation (eq. 3.9),
      each training row goes down both branches weighted by ``Phi((tau - x) / sigma)``;
    * ``evaluation_uncertainty`` (``u_e``): soft evaluation (eq. 3.10), predictions
      mix the leaves with the same gates.

    Parameters
    ----------
    confidence_factor : float in (0, 1), default=0.25
        C4.5's CF: the pessimistic error rate is the upper limit ``U`` with
        ``P(p > U) = CF`` (smaller prunes more; the seed's two-tailed ``c`` is ``2 CF``).
    min_samples_leaf : int, default=2
        C4.5's minimum weight on each side of a split (``-m``).
    max_depth : int, optional
    criterion : {"gain_ratio", "information_gain"}, default="gain_ratio"
    pruning : bool, default=True
    subtree_raising : bool, default=True
    laplace : bool, default=True
        Laplace correction of the pruning errors and of the leaf probabilities.
    search_uncertainty, propagation_uncertainty, evaluation_uncertainty : float, default=0.0
        ``u_s``, ``u_t``, ``u_e`` of seed 000, ch. 3 (0 = hard, plain C4.5).
    window, resolution : float, default=6.0, 0.1
        omega and delta of the soft search grid (eq. 3.7).
    categorical_features : sequence of str or int, optional
        Nominal features, given as numeric codes (``nan`` = missing): C4.5's
        multiway test, one branch per value seen at the node, scored by gain
        ratio over all branches. The fitted tree writes it as a chain of
        binary tests ``x <= v_1``, ``x <= v_2``, ... (one branch per value); a
        code not seen at a node in training follows the next larger seen code.
        The soft components leave nominal features hard.
    forbidden_features : sequence of str or int, optional
    time_limit : float, optional
        Seconds for the whole ``fit``. Nodes are split breadth-first; at the
        limit the nodes not yet split stay leaves and the pruning that is left
        skips subtree raising (``truncated_`` says so). From a process's
        second fit of 2,000 rows or more, the levels are scored by a compiled
        scan (numba, the same scores; 0.8 s to load once per process), first
        loaded only with 15 s or more left, as its first use on a machine
        compiles it (about 7 s).
{class_weight}

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    truncated_ : bool
        The time limit stopped the growth or the pruning early.
    feature_importances_ : ndarray of shape (n_features,)
        Each classifying node's training points shared over the features of its
        hyperplane by ``|w_j| * std(x_j)`` at the node (all to the feature of an
        axis-aligned split), summed and normalized
        (:func:`optitrees.trees.feature_importances`).
    tree_ : Tree
        The pruned tree; ``value`` holds the (fractional) training class weights.
    nominal_ : ndarray of bool
        Which features were treated as nominal.
    n_leaves_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = C45Classifier().fit(X, y)
    >>> bool(clf.score(X, y) > 0.95), clf.n_leaves_ < 30
    (True, True)
    """

    _parameter_constraints = {
        "confidence_factor": [Interval(Real, 0, 1, closed="neither")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "criterion": [StrOptions({"gain_ratio", "information_gain"})],
        "pruning": ["boolean"],
        "subtree_raising": ["boolean"],
        "laplace": ["boolean"],
        "search_uncertainty": [Interval(Real, 0, None, closed="left")],
        "propagation_uncertainty": [Interval(Real, 0, None, closed="left")],
        "evaluation_uncertainty": [Interval(Real, 0, None, closed="left")],
        "window": [Interval(Real, 0, None, closed="neither")],
        "resolution": [Interval(Real, 0, None, closed="neither")],
        "categorical_features": ["array-like", str, Integral, None],
        "forbidden_features": ["array-like", str, Integral, None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
    }
    _allow_nan = True

    def __init__(self, confidence_factor=0.25, *, min_samples_leaf=2, max_depth=None, criterion="gain_ratio",
                 pruning=True, subtree_raising=True, laplace=True, search_uncertainty=0.0,
                 propagation_uncertainty=0.0, evaluation_uncertainty=0.0, window=6.0, resolution=0.1,
                 categorical_features=None, forbidden_features=None, time_limit=None, class_weight=None):
        self.confidence_factor = confidence_factor
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.criterion = criterion
        self.pruning = pruning
        self.subtree_raising = subtree_raising
        self.laplace = laplace
        self.search_uncertainty = search_uncertainty
        self.propagation_uncertainty = propagation_uncertainty
        self.evaluation_uncertainty = evaluation_uncertainty
        self.window = window
        self.resolution = resolution
        self.categorical_features = categorical_features
        self.forbidden_features = forbidden_features
        self.time_limit = time_limit
        self.class_weight = class_weight

    def _sigma(self, u):
        """Per-feature noise deviation ``u * |mean(x_j)|`` (seed 000, 3.2.1), or ``None`` when ``u == 0``."""
        return None if u == 0 else u * self.feature_scale_

    def _fit(self, X, y, sample_weight, budget):
        """Grow the tree (soft search / propagation when asked), then prune it.

        ``sample_weight`` is each row's starting weight: C4.5's counts are already
        weights (a row with a missing value goes down both branches in parts),
        so gains, ``min_samples_leaf``, pruning errors and leaf frequencies all
        count weight.
        """
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        X, y_idx, weights = training.X, training.y, training.weight
        allowed = self._allowed_features()
        self.nominal_ = np.zeros(X.shape[1], bool)
        self.nominal_[list(resolve_features(self.categorical_features, feature_names(self),
                                            "categorical feature"))] = True
        known = ~np.isnan(X)
        v = training.weights
        if known.all():                                         # the weighted mean |x| per feature
            sums, present = v @ X, np.full(X.shape[1], v.sum())
        else:
            sums, present = v @ np.where(known, X, 0.0), v @ known
        self.feature_scale_ = np.abs(np.divide(sums, present, out=np.zeros(X.shape[1]), where=known.any(axis=0)))
        self.feature_scale_[self.nominal_] = 0.0                  # codes carry no measurement noise
        Y = np.eye(len(self.classes_))[y_idx]
        propagation = self._sigma(self.propagation_uncertainty)
        root = grow_c45(X, Y, allowed=allowed, min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
                        criterion=self.criterion, search_sigma=self._sigma(self.search_uncertainty),
                        propagation_sigma=propagation, window=self.window, resolution=self.resolution,
                        nominal=self.nominal_, deadline=budget.before_end(0.1), weights=weights, compiled_scan=None)
        growth_cut = expired(budget.before_end(0.1))
        budget.lap("grow")
        if self.pruning:
            collapse(root)
            prune(X, Y, root, self.confidence_factor, self.laplace, self.subtree_raising, propagation,
                  deadline=budget.deadline)
            budget.lap("prune")
        self.truncated_ = growth_cut or budget.expired
        self.tree_ = to_tree(root, X.shape[1])
        self.feature_importances_ = feature_importances(self.tree_)
        self.n_leaves_ = self.tree_.n_leaves
        budget.lap("report")
        self._write_report(budget, training, "c4.5", truncated=self.truncated_)
        return self


    def export_sql(self, table=None, feature_names=None):
        """``predict`` as one SQL expression: each class's probability summed over the leaves, a leaf weighted
        by its path's gates (a ``NULL`` value goes down both branches by the training shares, as ``nan`` does
        here); the first most probable class. Columns are qualified by ``table`` when given
        (:func:`optitrees.export.export_sql`).

        Raises
        ------
        ValueError
            With ``evaluation_uncertainty > 0``: soft evaluation gates by the normal distribution function,
            which SQL does not have.
        """
        from ...export._sql import feature_columns, gated_tree_sql

        check_is_fitted(self)
        if self.evaluation_uncertainty > 0:
            raise ValueError("export_sql: soft evaluation (evaluation_uncertainty > 0) gates splits by the normal "
                             "distribution function, which SQL has no function for; refit with "
                             "evaluation_uncertainty=0 to export this tree")
        columns = feature_columns(printed_names(self, feature_names), table, getattr(self, "feature_encoding_", None))
        return gated_tree_sql(self.tree_, columns, list(self.classes_), self.leaf_probabilities())

    def export_text(self, feature_names=None):
        """The tree as text, then how points with missing values (and under soft evaluation) are predicted
        (``feature_names``: see :meth:`TreeViews.export_text`)."""
        text = super().export_text(feature_names)
        names = [printable(n) for n in printed_names(self, feature_names)]
        K = len(self.classes_)
        notes = ["A missing value goes down both branches of a split, weighted by the training counts of the "
                 "two branches."]
        if self.evaluation_uncertainty > 0:
            used = sorted(set(self.tree_.feature[~self.tree_.is_leaf].tolist()))
            scales = ", ".join(f"{names[j]}: {format_number(self._sigma(self.evaluation_uncertainty)[j])}"
                               for j in used)
            notes.append(f"Soft evaluation: a split 'x <= t' sends a point left with probability "
                         f"Phi((t - x) / s), s = {{{scales}}}.")
        if self.evaluation_uncertainty > 0 or self.laplace:
            smooth = f"(count + 1) / (total + {K})" if self.laplace else "count / total"
            notes.append(f"Prediction: the class with the largest sum over the leaves of P(reach leaf) * {smooth}.")
        return text + "\n" + "\n".join(notes)

    def leaf_probabilities(self) -> np.ndarray:
        """Class probabilities of every node as a leaf: ``(n_y + 1) / (n + K)`` (Laplace) or ``n_y / n``."""
        check_is_fitted(self)
        counts = self.tree_.value + (1.0 if self.laplace else 0.0)
        return counts / counts.sum(axis=1, keepdims=True)

    def predict_proba(self, X):
        """Gate-weighted mixture of the leaves' class probabilities (eqs. 3.2, 3.10; fractional missing values)."""
        X = self._X(X)
        if self.evaluation_uncertainty == 0:         # hard gates: computed as the SQL writes it (gated_mixture)
            return gated_mixture(self.tree_, X, self.leaf_probabilities())
        reach = leaf_reach(self.tree_, X, self._sigma(self.evaluation_uncertainty))
        return np.asarray(reach @ self.leaf_probabilities())

    def predict(self, X):
        """The most probable class (the leaf's class for a complete point under hard evaluation)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


C45Classifier.__doc__ = C45Classifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
