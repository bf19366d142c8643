"""scikit-learn estimators for Bertsimas & Dunn's optimal classification trees: OCT and OCT-H."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from ..algorithms.cart import cart_tree, greedy_oblique_tree
from ..formulations.oct import OCTProblem, OCTSpec
from ..formulations.oct_solution import OCT_FAMILY
from ._template import SOLVER_PARAMETERS_DOC, MIPClassifier
from ._views import TreeViews

__all__ = ["OCTClassifier", "OCTHClassifier"]


class _BaseOCT(TreeViews, MIPClassifier):
    _family = OCT_FAMILY
    _scaling = "unit"
    _binary = False
    _oblique = False
    _parameter_constraints = {
        **MIPClassifier._parameter_constraints,
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, max_depth=2, *, alpha=0.0, min_samples_leaf=1, warm_start=True, solver="highs",
                 time_limit=60.0, mip_gap=1e-4, threads=None, random_state=None, verbose=False,
                 solver_options=None, forbidden_features=None, constraints=None):
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
        self.forbidden_features = forbidden_features
        self.constraints = constraints

    def _make_spec(self, forbidden, n_classes):
        return OCTSpec.create(self.max_depth, float(self.alpha), self.min_samples_leaf, n_classes, self._oblique,
                              forbidden=forbidden)

    def _make_problem(self, spec, data):
        return OCTProblem.create(spec, data)

    def _starts(self, problem, deadline):
        spec, data = problem.spec, problem.data
        allowed = np.ones(data.n_features, bool)
        allowed[list(spec.forbidden)] = False
        if self._oblique:
            tree = greedy_oblique_tree(data.X, data.y, spec.depth, spec.n_classes, spec.min_samples_leaf, spec.mu,
                                       self._seed, allowed)
            return {"greedy oblique": tree}
        tree = cart_tree(data.X, data.y, spec.depth, spec.min_samples_leaf, self._seed, allowed)
        return {"CART": tree.with_counts(data.X, data.y)}

    def _store(self, problem, tree):
        self.tree_ = tree

    def predict_proba(self, X):
        """Training class frequencies in the leaf each sample reaches, shape ``(n_samples, n_classes)``."""
        X = self._X(X)
        return self.tree_.predict_proba(X)


_DOC = """{summary}

    Fits the mixed-integer program of Bertsimas & Dunn (2017) (see
    :mod:`optitrees.formulations.oct`) on features scaled to ``[0, 1]``: leaf
    labels for any number of classes, objective ``errors / L_hat + alpha *
    {complexity}`` with ``L_hat`` the error of predicting the majority class,
    and at least ``min_samples_leaf`` points in every leaf that holds any.
    The warm start is {start}, mapped to a complete feasible assignment; the
    returned tree is never worse than it. Splits are reported in the original
    feature units, each threshold a short number strictly between the
    neighbouring training values.

    Parameters
    ----------
    max_depth : int, default=2
    alpha : float, default=0.0
        Complexity weight.
    min_samples_leaf : int, default=1
        ``N_min``.
{solver_doc}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` had string column names.
    tree_ : Tree
        Splits ``w @ x <= threshold`` (left) in original units, leaf labels as
        indices into ``classes_`` and training class counts per node.
    solver_result_ : SolverResult
        The solve, ``checks`` (routing agreement, recomputed objective),
        ``returned`` and the exact ``objectives`` of start and solver.
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
    complexity="(number of splits)", start="scikit-learn's CART of the same depth", name="OCTClassifier",
    solver_doc=SOLVER_PARAMETERS_DOC)
OCTHClassifier.__doc__ = _DOC.format(
    summary="Optimal Classification Tree with oblique splits (OCT-H, Bertsimas & Dunn 2017).",
    complexity="(number of features used over all splits)",
    start="a greedy oblique tree (CART stump or one-vs-rest l1-logistic hyperplane per node)",
    name="OCTHClassifier", solver_doc=SOLVER_PARAMETERS_DOC)
