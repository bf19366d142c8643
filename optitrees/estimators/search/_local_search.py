"""scikit-learn estimators for trees found by local search: the shared base of TAO and TMO, and TAO (seed 002,
3.3). TMO is in :mod:`._tmo`."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.fixed_tree import FixedTree
from ...algorithms.fold_search import balanced_accuracy
from ...algorithms.local_search.tao import label_objective, tao_label_tree
from ...algorithms.oct.cart import cart_tree
from ...scaling import ScaledData, Scaling
from ...monotonicity import MonotoneConstraint, monotone_relabel, monotonic_signs
from ...trees import feature_importances, readable_tree
from .. import _auto_budget as auto
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._docs import CLASS_WEIGHT_DOC
from .._views import TreeViews

__all__ = ["TAOClassifier"]


class _LocalSearchTree(TreeViews, OptitreesClassifier):
    """Scaling and finishing shared by the label-tree learners that are not MIPs (errors, leaf majorities and leaf
    sizes weighted by the rows' weights)."""

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
        "forbidden_features": ["array-like", str, Integral, None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
    }

    def _prepare(self, X, y, sample_weight, scaling):
        """The checked rows, the weighted training data on ``scaling``, the allowed features and ``L_hat`` (the
        weight outside the largest class)."""
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        data = ScaledData.create(training.X, training.y, scaling, self._feature_names(), training.weight)
        totals = np.bincount(data.y, weights=data.weight)
        return training, data, self._allowed_features(), max(totals.sum() - totals.max(), 1)

    def _cart(self, X, y, v, allowed) -> FixedTree:
        """CART's tree (scikit-learn's, ``max_depth`` and ``min_samples_leaf``) on the rows given."""
        return FixedTree.from_tree(cart_tree(X, y, self.max_depth, self.min_samples_leaf, self.random_state, allowed,
                                             v), self.max_depth)

    def _monotone(self) -> MonotoneConstraint | None:
        """``monotonic_cst`` on the fitted features (``None`` without one, or for a learner that has none)."""
        signs = monotonic_signs(getattr(self, "monotonic_cst", None), self._feature_names())
        return None if signs is None else MonotoneConstraint(signs, tuple(self._feature_names()))

    def _final_tree(self, ft: FixedTree, data):
        """The tree in original units with short thresholds and its training counts; under ``monotonic_cst``, with
        the monotone leaf labels of least error (:func:`~optitrees.monotonicity.monotone_relabel`: after the
        thresholds are shortened and empty leaves labelled, so the tree returned is the one proved monotone)."""
        tree = ft.to_tree(len(self.classes_)).to_original_units(data)
        tree = readable_tree(tree, data.X_original).with_counts(data.X_original, data.y, sample_weight=data.fit_weight)
        monotone = self._monotone()
        if monotone is not None:
            tree = monotone_relabel(tree, monotone.signs, data.X_original, data.y == 1, data.fit_weight)
        return tree

    @staticmethod
    def _tree_errors(tree) -> float:
        """The training errors from the leaves' counts (each leaf's weight outside its label)."""
        leaf = tree.is_leaf
        return float(tree.value[leaf].sum() - tree.value[leaf, tree.label[leaf]].sum())

    def _finish(self, ft: FixedTree, data, L_hat, budget, training, method, starts=None, notes=(), tree=None):
        """Store the tree (``tree``, or ``ft`` made final by :meth:`_final_tree`), its exact objective, and the
        fit report."""
        self.tree_ = tree = self._final_tree(ft, data) if tree is None else tree
        # an axis-aligned tree's importances are its nodes' (weighted) training counts: no pass over the data
        self.feature_importances_ = feature_importances(tree, None if tree.is_axis_aligned else data.X_original)
        # the errors from the leaves' training counts (each leaf's weight outside its label): no routing pass
        self.objective_ = self._objective(tree, L_hat)
        budget.lap("report")
        monotone = self._monotone()
        self._write_report(budget, training, method, objective=self.objective_, truncated=budget.expired,
                           starts=starts, notes=notes,
                           monotonicity=None if monotone is None else monotone.report(tree, data.X_original))
        return self

    def _objective(self, tree, L_hat) -> float:
        complexity = tree.n_features_used() if getattr(self, "oblique", False) else tree.n_splits()
        return float(self._tree_errors(tree) / L_hat + self.alpha * complexity)

    def predict_proba(self, X):
        """Training class frequencies (weights) in the leaf each sample reaches, shape ``(n_samples, n_classes)``."""
        X = self._X(X)
        return self.tree_.predict_proba(X)


class TAOClassifier(_LocalSearchTree):
    """Tree Alternating Optimization (Carreira-Perpinan & Tavallali 2018; seed 002, 3.3) from CART.

    Starts from scikit-learn's CART of depth ``max_depth`` and improves it on
    the exact training objective ``errors / L_hat + alpha * complexity`` by
    alternating over the nodes, bottom-up: a leaf takes its majority class; a
    split solves the reduced problem of its points that care where they go,
    exactly for axis-aligned splits (a sorted scan over every feature and
    threshold), by l1-logistic surrogates for oblique ones; a move is taken only
    when the objective strictly decreases (see :mod:`optitrees.algorithms.local_search.tao`).
    Features are scaled to ``[0, 1]`` internally for oblique splits, and
    features whose span is under 1 by powers of two for axis-aligned ones;
    splits are reported in the original units.

    Parameters
    ----------
    max_depth : int, default=2
    alpha : float, default=0.0
        Complexity weight: per split (axis-aligned) or per feature used over all
        splits (``oblique=True``), as OCT / OCT-H.
    oblique : bool, default=False
    max_features : int, "auto" or None, default="auto"
        With ``oblique=True``: at most this many features in each split (3.14's
        HFS budget; the l1-logistic candidates keep their largest terms and are
        refitted on them). ``None``: any number, priced by ``alpha``.
        ``"auto"``: the fewest of ``(2, 3, 5, 8, None)`` features per split
        whose TAO trees, fitted on 3 of 4 stratified folds, keep the held-out
        weighted accuracy within a point of the best candidate's, chosen within
        15% of ``time_limit`` (:mod:`optitrees.estimators._auto_budget`;
        ``max_features_``, ``budget_results_``). Axis-aligned splits use one
        feature whatever it says.
    max_total_features : int, "auto" or None, default=None
        At most this many distinct features in the whole tree: the first ones
        the l1-logistic regression path admits on the training rows (a
        stratified sample of 8,000 beyond that;
        :func:`optitrees.algorithms.feature_order.l1_entry_order`), the only
        features CART and TAO may then split on. ``"auto"``: the one of ``(2,
        3, 5, 8, None)`` whose trees, fitted on 3 of 4 stratified folds (each
        fold's features ordered on its own training rows), keep a mean
        held-out balanced accuracy non-inferior to no budget's (their paired
        difference less one standard error at least 0; best mean first, then
        fewer features), within 30% of ``time_limit``, on 400 training rows or
        more; on fewer, no budget (folds that small chose budgets that lost
        3-5 points on held-out rows: :mod:`optitrees.estimators._auto_budget`)
        (``max_total_features_``, ``total_budget_results_``). ``None``: every
        allowed feature.
    min_samples_leaf : int, default=1
    max_passes : int, default=20
        Passes over the tree; it stops earlier when a pass changes nothing.
    time_limit : float, optional
        Seconds; no new node is optimized after it.
    random_state : int, optional
    forbidden_features : sequence of str or int, optional
{class_weight}
    monotonic_cst : array-like of {-1, 0, 1} or dict, optional
        scikit-learn's meaning: per feature, the predicted class never falls
        (+1) or rises (-1) as the feature rises, all else fixed; ``{name:
        sign}`` leaves unnamed features free. Two classes and ``oblique=False``
        only. TAO's tree and CART's get the monotone leaf labels of least
        training error (a small closure MILP over the leaves,
        :mod:`optitrees.monotonicity`), and the better is returned;
        ``fit_report_.monotonicity`` says the returned tree is proved monotone
        region by region. ``predict_proba`` gives the leaves' training
        frequencies, which are not held monotone.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    feature_importances_ : ndarray of shape (n_features,)
        Each classifying node's training points shared over the features of its
        hyperplane by ``|w_j| * std(x_j)`` at the node (all to the feature of an
        axis-aligned split), summed and normalized
        (:func:`optitrees.trees.feature_importances`).
    tree_ : Tree
    objective_ : float
        ``errors / L_hat + alpha * complexity`` of the returned tree.
    start_objective_ : float
        The same for the CART start.
    max_features_ : int or None
        With ``oblique=True``: the budget of each split (chosen with ``"auto"``); ``None``: no budget.
    budget_results_ : dict
        With ``oblique=True`` and ``max_features="auto"``: ``"max_features"`` (the candidates),
        ``"mean_held_out_balanced_accuracy"``, ``"folds_scored"``, ``"candidates_scored"`` and
        ``"held_out_balanced_accuracy_per_fold"`` (one row per fold scored).
    max_total_features_ : int or None
        The distinct features the tree may read (chosen with ``"auto"``); ``None``: every allowed feature.
    total_budget_results_ : dict
        With ``max_total_features="auto"``: as ``budget_results_``, the candidates under
        ``"max_total_features"``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = TAOClassifier(max_depth=2).fit(X, y)
    >>> clf.objective_ <= clf.start_objective_
    True
    """

    _parameter_constraints = {**_LocalSearchTree._parameter_constraints, "oblique": ["boolean"],
                              "max_features": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}),
                                               None],
                              "max_total_features": [Interval(Integral, 1, None, closed="left"),
                                                     StrOptions({"auto"}), None],
                              "max_passes": [Interval(Integral, 1, None, closed="left")],
                              "monotonic_cst": ["array-like", dict, None]}

    def __init__(self, max_depth=2, *, alpha=0.0, oblique=False, max_features="auto", max_total_features=None,
                 min_samples_leaf=1, max_passes=20, time_limit=None, random_state=None, forbidden_features=None,
                 class_weight=None, monotonic_cst=None):
        self.max_depth = max_depth
        self.alpha = alpha
        self.oblique = oblique
        self.max_features = max_features
        self.max_total_features = max_total_features
        self.min_samples_leaf = min_samples_leaf
        self.max_passes = max_passes
        self.time_limit = time_limit
        self.random_state = random_state
        self.forbidden_features = forbidden_features
        self.class_weight = class_weight
        self.monotonic_cst = monotonic_cst

    def _fit(self, X, y, sample_weight, budget):
        """Fit CART, then improve it by TAO (``sample_weight``: each row's weight in the errors and leaf sizes)."""
        # axis-aligned: features of span under 1 scaled up (the CART start takes a feature whose values differ by
        # under 1e-7 as constant), no copy of the rest; oblique: [0, 1], the scale its l1-logistic surrogates assume
        scaling = Scaling.UNIT if self.oblique else Scaling.SMALL_SPANS
        training, data, allowed, L_hat = self._prepare(X, y, sample_weight, scaling)
        if self._monotone() is not None and (self.oblique or len(self.classes_) != 2):
            raise ValueError("monotonic_cst needs two classes and axis-aligned splits (oblique=False): an oblique "
                             "label tree cannot be relabelled region by region")
        v = data.fit_weight
        for name in ("max_features_", "budget_results_"):     # an earlier fit's choice is not this one's
            self.__dict__.pop(name, None)
        max_features = None
        if self.oblique:
            max_features = self._choose_budget(data, allowed, budget) if auto.is_auto(self.max_features) \
                else self.max_features
            self.max_features_ = max_features
        allowed = self._tree_wide_features(data, allowed, max_features, budget)
        # CART's leaves are labelled with their (weighted) majorities already: no counting pass
        start = self._cart(data.X, data.y, v, allowed)
        complexity = "features" if self.oblique else "splits"
        self.start_objective_ = label_objective(start, data.X, data.y, L_hat, self.alpha, complexity, v)
        budget.lap("start")
        ft = self._tao(start, data.X, data.y, v, allowed, L_hat, max_features, budget.deadline)
        budget.lap("tao")
        if self._monotone() is None:
            return self._finish(ft, data, L_hat, budget, training, "tao", {"CART": self.start_objective_})
        # monotone: TAO's tree and CART's, each relabelled, the better returned (never worse than the start)
        trees = {"tao": self._final_tree(ft, data), "CART": self._final_tree(start, data)}
        objectives = {name: self._objective(tree, L_hat) for name, tree in trees.items()}
        self.start_objective_ = objectives["CART"]
        chosen = min(objectives, key=objectives.get)
        return self._finish(ft, data, L_hat, budget, training, chosen, {"CART": self.start_objective_},
                            notes=("the trees' leaves were relabelled to be monotone (monotonic_cst)",),
                            tree=trees[chosen])

    def _tao(self, start, X, y, v, allowed, L_hat, max_features, deadline) -> FixedTree:
        return tao_label_tree(start, X, y, L_hat=L_hat, alpha=self.alpha,
                              complexity="features" if self.oblique else "splits", oblique=self.oblique,
                              min_samples_leaf=self.min_samples_leaf, allowed=allowed, max_passes=self.max_passes,
                              random_state=self.random_state, deadline=deadline, sample_weight=v,
                              max_features=max_features)

    def _held_out_score(self, data, train, test, allowed, max_features, deadline) -> float:
        """Balanced accuracy on the rows ``test`` of the tree fitted as :meth:`_fit` does (CART, then TAO) on the
        rows ``train``, splitting on the ``allowed`` features."""
        X, y, v = data.X, data.y, data.fit_weight
        weight = np.ones(len(y)) if v is None else v
        v_train = None if v is None else v[train]
        totals = np.bincount(y[train], weights=weight[train])
        L_hat = max(totals.sum() - totals.max(), 1)
        start = self._cart(X[train], y[train], v_train, allowed)
        tree = self._tao(start, X[train], y[train], v_train, allowed, L_hat, max_features, deadline)
        return balanced_accuracy(y[test], tree.predict(X[test]), weight[test])

    def _choose_budget(self, data, allowed, budget):
        """``max_features="auto"``: the fewest features per split whose TAO trees (CART, then TAO, as the fit)
        keep the held-out balanced accuracy (:func:`._auto_budget.choose`); sets ``budget_results_``."""
        deadline = budget.until(auto.SHARE)

        def fit_and_score(max_features, train, test):
            return self._held_out_score(data, train, test, allowed, max_features, deadline)

        chosen, self.budget_results_ = auto.choose(data.y, fit_and_score, budget, self._seed)
        return chosen

    @property
    def _seed(self) -> int:
        return 0 if self.random_state is None else int(self.random_state)

    def _tree_wide_features(self, data, allowed, max_features, budget) -> np.ndarray:
        """``allowed`` narrowed to the first ``max_total_features`` features the l1-logistic path admits on the
        training rows (the number chosen on held-out folds with ``"auto"``: :func:`._auto_budget.tree_wide_features`
        by the trees :meth:`_fit` grows)."""
        def fit_and_score(kept, train, test, deadline):
            return self._held_out_score(data, train, test, kept, max_features, deadline)

        return auto.tree_wide_features(self, data.X, data.y, data.fit_weight, allowed, fit_and_score, budget,
                                       self._seed)


TAOClassifier.__doc__ = TAOClassifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
