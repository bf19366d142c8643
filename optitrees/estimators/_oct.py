"""scikit-learn estimators for Bertsimas & Dunn's optimal classification trees: OCT and OCT-H."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..datasets import scale_unit
from ..formulations.oct import decode_label_tree, oct, octh, start_from_label_tree
from ..inspect import export_label_tree_text, label_tree_to_dict
from ..tree import LabelTree
from ..warmstart import cart_splits, greedy_oblique_splits
from ._base import MIPEstimatorMixin, check_depth

__all__ = ["OCTClassifier", "OCTHClassifier"]


def label_tree_objective(tree: LabelTree, X01, y, L_hat, alpha, oblique) -> float:
    """``errors / L_hat + alpha * complexity`` of a tree on training data (leaf labels = majority)."""
    counted = tree.with_counts(X01, y)
    errors = counted.leaf_counts.sum() - counted.leaf_counts.max(axis=1).sum()
    complexity = tree.n_features_used() if oblique else tree.n_splits()
    return float(errors / L_hat + alpha * complexity)


class _BaseOCT(MIPEstimatorMixin, ClassifierMixin, BaseEstimator):
    _oblique = False

    def __init__(self, max_depth=2, *, alpha=0.0, min_samples_leaf=1, warm_start=True, solver="highs",
                 time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None):
        self.max_depth = max_depth
        self.alpha = alpha
        self.min_samples_leaf = min_samples_leaf
        self.warm_start = warm_start
        self.solver = solver
        self.time_limit = time_limit
        self.mip_gap = mip_gap
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver_options = solver_options

    def _validate_params(self):
        depth = check_depth(self.max_depth)
        a = self.alpha
        if not (isinstance(a, numbers.Real) and np.isfinite(a) and a >= 0):
            raise ValueError(f"alpha must be a non-negative number, got {a!r}")
        m = self.min_samples_leaf
        if not isinstance(m, numbers.Integral) or isinstance(m, bool) or m < 1:
            raise ValueError(f"min_samples_leaf must be an integer >= 1, got {m!r}")
        self._validate_solver_params()
        return depth

    def fit(self, X, y):
        """Fit the tree by solving the Bertsimas-Dunn mixed-integer program.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features without missing values (scaled to [0, 1] internally).
        y : array-like of shape (n_samples,)
            Two or more class labels (any type).

        Returns
        -------
        self
        """
        depth = self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y has only one class ({self.classes_[0]!r}); a classifier needs two")
        if self.min_samples_leaf > X.shape[0]:
            raise ValueError(f"min_samples_leaf={self.min_samples_leaf} exceeds the number of samples ({X.shape[0]})")
        X01, low, span = scale_unit(X)
        K = len(self.classes_)
        build = octh if self._oblique else oct
        f = build(X01, y_idx, depth=depth, alpha=float(self.alpha), min_samples_leaf=int(self.min_samples_leaf),
                  n_classes=K)
        meta = f.meta
        if self._oblique:
            W, b, active = greedy_oblique_splits(X01, y_idx, depth, int(self.min_samples_leaf), meta["margin"],
                                                 self._seed)
        else:
            W, b, active = cart_splits(X01, y_idx, depth, int(self.min_samples_leaf), self._seed)
        start = start_from_label_tree(f, W, b, active)
        greedy, _ = decode_label_tree(f, start)
        exact = (lambda tree: label_tree_objective(tree, X01, y_idx, meta["L_hat"], meta["alpha"], self._oblique))
        self.warm_start_objective_ = exact(greedy)
        result = self._solve(f, start)
        notes = []
        tree = greedy
        if result.x is not None and np.all(np.isfinite(result.x)):
            tree, routing = decode_label_tree(f, result.x)
            mismatches = int(np.sum(tree.apply(X01) != routing))
            recomputed = exact(tree)
            reference = f.objective_value(result.x) if result.objective is None else result.objective
            result.checks.update(routing_mismatches=mismatches, objective_recomputed=recomputed,
                                 objective_discrepancy=abs(recomputed - reference))
            notes += self._polish_notes(result)
            if recomputed > self.warm_start_objective_ + 1e-9:
                notes.append("the solver's tree has a worse objective than the warm start; returning the warm start")
                tree = greedy
        else:
            notes.append(f"solver returned no solution ({result.status}); falling back to the "
                         f"{'greedy oblique' if self._oblique else 'CART'} warm start")
        if tree is greedy:
            self._report_start(f, result, start)
        self._warn(result, notes)
        self.objective_ = exact(tree)
        self.solver_result_ = result
        self.formulation_summary_ = f.summary()
        self.tree_ = tree.unscaled(low, span)
        self.tree_.feature_names = getattr(self, "feature_names_in_", None)
        return self

    def predict(self, X):
        """Class of the leaf each sample reaches."""
        X = self._X(X)
        return self.classes_[self.tree_.predict(X)]

    def predict_proba(self, X):
        """Training class frequencies in the leaf each sample reaches, shape ``(n_samples, n_classes)``."""
        X = self._X(X)
        return self.tree_.predict_proba(X)

    def apply(self, X):
        """Leaf id each sample reaches."""
        X = self._X(X)
        return self.tree_.apply(X)

    def export_text(self, decimals=3):
        """The fitted tree as text, thresholds in the original feature units."""
        check_is_fitted(self)
        return export_label_tree_text(self.tree_, self._feature_names(), self.classes_, decimals=decimals)

    def to_dict(self):
        """The fitted tree as a JSON-serializable dict."""
        check_is_fitted(self)
        return label_tree_to_dict(self.tree_, self._feature_names(), self.classes_)


_DOC = """{summary}

    Fits the mixed-integer program of Bertsimas & Dunn (2017) (see
    :mod:`optitrees.formulations.oct`) on features scaled to ``[0, 1]``: leaf
    labels for any number of classes, objective ``errors / L_hat + alpha *
    {complexity}`` with ``L_hat`` the error of predicting the majority class,
    and at least ``min_samples_leaf`` points in every leaf that holds any.
    The warm start is {start}, mapped to a complete feasible assignment; the
    returned tree is never worse than it. Splits are reported in the original
    feature units.

    Parameters
    ----------
    max_depth : int, default=2
    alpha : float, default=0.0
        Complexity weight.
    min_samples_leaf : int, default=1
        ``N_min``.
    warm_start : bool, default=True
    solver : str, default="highs"
        See :func:`optitrees.solvers.solve`.
    time_limit : float, default=60.0
        Seconds; at the limit the best tree found is returned with a warning
        stating the gap.
    mip_gap : float, default=1e-4
    threads : int, optional
    random_state : int, optional
    verbose : bool, default=False
    solver_options : dict, optional

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` had string column names.
    tree_ : LabelTree
        Splits ``w_t x >= threshold_t`` (right) in original units, leaf labels
        as indices into ``classes_`` and training class counts per leaf.
    solver_result_ : SolverResult
        With ``checks`` (routing agreement, recomputed objective).
    objective_ : float
        Training objective of the returned tree.
    warm_start_objective_ : float
    formulation_summary_ : str

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = {name}(max_depth=1, time_limit=10).fit(X, y)
    >>> len(set(clf.predict(X)))
    2
    """


class OCTClassifier(_BaseOCT):
    _oblique = False


class OCTHClassifier(_BaseOCT):
    _oblique = True


OCTClassifier.__doc__ = _DOC.format(
    summary="Optimal Classification Tree with axis-aligned splits (OCT, Bertsimas & Dunn 2017).",
    complexity="(number of splits)", start="scikit-learn's CART of the same depth", name="OCTClassifier")
OCTHClassifier.__doc__ = _DOC.format(
    summary="Optimal Classification Tree with oblique splits (OCT-H, Bertsimas & Dunn 2017).",
    complexity="(number of features used over all splits)",
    start="a greedy oblique tree (CART stump or one-vs-rest l1-logistic hyperplane per node)",
    name="OCTHClassifier")
