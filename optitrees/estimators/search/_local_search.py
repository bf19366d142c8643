"""scikit-learn estimators for trees found by local and memetic search: TAO and TMO (seed 002, 3.3)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, Options, StrOptions

from ...algorithms.fixed_tree import FixedTree
from ...algorithms.fold_search import balanced_accuracy
from ...algorithms.local_search.baseline_check import check_against_baseline
from ...algorithms.local_search.tao import label_objective, tao_label_tree
from ...algorithms.local_search.tmo import tmo_label_tree
from ...algorithms.oct.cart import cart_tree
from ...scaling import ScaledData, Scaling
from ...trees import feature_importances, readable_tree
from .. import _auto_budget as auto
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier
from .._docs import CLASS_WEIGHT_DOC
from .._views import TreeViews

__all__ = ["TAOClassifier", "TMOClassifier"]


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

    def _finish(self, ft: FixedTree, data, L_hat, budget, training, method, starts=None, notes=()):
        """Store the tree in original units with short thresholds, its exact objective, and the fit report."""
        tree = ft.to_tree(len(self.classes_)).to_original_units(data)
        self.tree_ = tree = readable_tree(tree, data.X_original).with_counts(data.X_original, data.y,
                                                                             sample_weight=data.fit_weight)
        # an axis-aligned tree's importances are its nodes' (weighted) training counts: no pass over the data
        self.feature_importances_ = feature_importances(tree, None if tree.is_axis_aligned else data.X_original)
        # the errors from the leaves' training counts (each leaf's weight outside its label): no routing pass
        leaf = tree.is_leaf
        errors = float(tree.value[leaf].sum() - tree.value[leaf, tree.label[leaf]].sum())
        complexity = tree.n_features_used() if getattr(self, "oblique", False) else tree.n_splits()
        self.objective_ = float(errors / L_hat + self.alpha * complexity)
        budget.lap("report")
        self._write_report(budget, training, method, objective=self.objective_, truncated=budget.expired,
                           starts=starts, notes=notes)
        return self

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
        the l1-logistic regression path admits on the training rows
        (:func:`optitrees.algorithms.feature_order.l1_entry_order`), the only
        features CART and TAO may then split on. ``"auto"``: the one of
        ``(2, 3, 5, 8, None)`` whose trees, fitted on 3 of 4 stratified folds
        (each fold's features ordered on its own training rows), have the best
        mean held-out balanced accuracy (ties: fewer features), within 30% of
        ``time_limit`` (``max_total_features_``, ``total_budget_results_``).
        On ten small sets at depth 3 and 3 features per split it read 5.8
        features instead of 8.1 at the same test accuracy (+0.3 +- 0.5
        points; :mod:`optitrees.estimators._auto_budget`). ``None``: every
        allowed feature.
    min_samples_leaf : int, default=1
    max_passes : int, default=20
        Passes over the tree; it stops earlier when a pass changes nothing.
    time_limit : float, optional
        Seconds; no new node is optimized after it.
    random_state : int, optional
    forbidden_features : sequence of str or int, optional
{class_weight}

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    feature_importances_ : ndarray of shape (n_features_in_,)
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
                              "max_passes": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, max_depth=2, *, alpha=0.0, oblique=False, max_features="auto", max_total_features=None,
                 min_samples_leaf=1, max_passes=20, time_limit=None, random_state=None, forbidden_features=None,
                 class_weight=None):
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

    def _fit(self, X, y, sample_weight, budget):
        """Fit CART, then improve it by TAO (``sample_weight``: each row's weight in the errors and leaf sizes)."""
        # axis-aligned: features of span under 1 scaled up (the CART start takes a feature whose values differ by
        # under 1e-7 as constant), no copy of the rest; oblique: [0, 1], the scale its l1-logistic surrogates assume
        scaling = Scaling.UNIT if self.oblique else Scaling.SMALL_SPANS
        training, data, allowed, L_hat = self._prepare(X, y, sample_weight, scaling)
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
        return self._finish(ft, data, L_hat, budget, training, "tao", {"CART": self.start_objective_})

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


class TMOClassifier(_LocalSearchTree):
    """Tree Memetic Optimization (seed 002, 3.3, Algorithm 3): a genetic search over trees improved by TAO.

    The population is the ``n_estimators`` trees of a random forest of depth
    ``max_depth`` (scikit-learn's, default settings), each improved by TAO.
    For ``n_generations`` generations, every tree is crossed node by node with a
    random partner (``cross_rate``: the probability of taking the partner's
    node) in the seed's fixed-length breadth-first encoding, the offspring is
    improved by TAO on a bootstrap sample of the generation, and it replaces its
    parent when its training accuracy (the fitness) is higher. The best tree
    ever seen is returned. See :mod:`optitrees.algorithms.local_search.tmo`.

    That choice, the best training accuracy of some hundreds of trees, can
    overfit small sets. So before the search on every row, TMO's trees are
    compared with CART's on ``cart_check_folds`` stratified folds (each fit on
    the other folds, scored by its weighted accuracy on the held-out one;
    :func:`~optitrees.algorithms.local_search.baseline_check.check_against_baseline`),
    and where CART's mean held-out accuracy is higher, CART's tree on every
    row is returned instead (``fit_report_.method == "cart"``, with a note).
    On ten binary sets the seed did not use (5 splits, ``bench/tao_tmo.py
    --datasets unseen``) TMO's mean test accuracy was at least CART's on 8 of
    10 sets at depth 2 and 4 of 10 at depth 3 without the check, 9 and 8 of 10
    with it; on those and the seed's 14 sets at depths 2 and 3, on 32 and 38
    of 48, for 2.5-4 times the fit time (``bench/results/tmo_vs_cart.csv``).
    ``cart_check_folds=0`` runs the seed's Algorithm 3 alone.

    Parameters
    ----------
    max_depth : int, default=2
    n_estimators : int, default=100
        Population size (the seed's 100).
    n_generations : int, default=5
        The seed's ``n_gen = 5``.
    cross_rate : float, default=0.75
        The seed's ``CR``.
    alpha : float, default=0.0
        Complexity weight of TAO's objective (the fitness stays the accuracy).
    min_samples_leaf : int, default=1
    n_jobs : int, optional
        Parallel TAO runs; the result is the same as with one job.
    cart_check_folds : int, default=4
        Folds of the held-out comparison with CART (``0``: none). With a
        ``time_limit`` the comparison may use ``k / (k + 1)`` of it (each fold's
        search an equal share), so the search on every row gets the rest.
    time_limit : float, optional
        Seconds; no new generation (or offspring) is started after it.
    random_state : int, optional
    forbidden_features : sequence of str or int, optional
{class_weight}

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    feature_importances_ : ndarray of shape (n_features_in_,)
        Each classifying node's training points shared over the features of its
        hyperplane by ``|w_j| * std(x_j)`` at the node (all to the feature of an
        axis-aligned split), summed and normalized
        (:func:`optitrees.trees.feature_importances`).
    tree_ : Tree
    objective_ : float
        ``errors / L_hat + alpha * splits`` of the returned tree.
    fitness_history_ : list of float
        Best training accuracy after the initial population and each generation
        of the search on every row (empty when CART's tree is returned: the
        search is not run).
    cart_check_ : dict or None
        ``None`` with ``cart_check_folds=0``; else
        ``"baseline_mean_held_out_accuracy"`` (CART's),
        ``"search_mean_held_out_accuracy"`` (TMO's), ``"folds_scored"``,
        ``"held_out_accuracy_per_fold"`` (one row per fold: CART, TMO) and
        ``"keeps_search"``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = TMOClassifier(max_depth=2, n_estimators=10, n_generations=2, random_state=0).fit(X, y)
    >>> clf.fitness_history_[-1] >= clf.fitness_history_[0]
    True
    """

    _parameter_constraints = {**_LocalSearchTree._parameter_constraints,
                              "n_estimators": [Interval(Integral, 2, None, closed="left")],
                              "n_generations": [Interval(Integral, 0, None, closed="left")],
                              "cross_rate": [Interval(Real, 0, 1, closed="both")],
                              "n_jobs": [Integral, None],
                              "cart_check_folds": [Options(Integral, {0}), Interval(Integral, 2, None, closed="left")]}

    def __init__(self, max_depth=2, *, n_estimators=100, n_generations=5, cross_rate=0.75, alpha=0.0,
                 min_samples_leaf=1, n_jobs=None, cart_check_folds=4, time_limit=None, random_state=None,
                 forbidden_features=None, class_weight=None):
        self.max_depth = max_depth
        self.n_estimators = n_estimators
        self.n_generations = n_generations
        self.cross_rate = cross_rate
        self.alpha = alpha
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.cart_check_folds = cart_check_folds
        self.time_limit = time_limit
        self.random_state = random_state
        self.forbidden_features = forbidden_features
        self.class_weight = class_weight

    def _fit(self, X, y, sample_weight, budget):
        """Compare TMO's trees with CART's on held-out folds; run TMO from a random forest's trees on every row, or
        return CART's tree where it held out better (``sample_weight``: each row's weight in the forest, TAO, the
        fitness and the held-out accuracy)."""
        training, data, allowed, L_hat = self._prepare(X, y, sample_weight, Scaling.SMALL_SPANS)
        self.cart_check_ = None
        if self.cart_check_folds:
            check = self._check_against_cart(data, allowed, budget)
            self.cart_check_ = check.as_dict()
            budget.lap("cart check")
            if not check.keeps_search:
                self.fitness_history_ = []
                note = (f"CART's trees held out better than TMO's on {check.folds_scored} folds (mean accuracy "
                        f"{check.baseline:.4f} against {check.search:.4f}): CART's tree is returned")
                return self._finish(self._cart(data.X, data.y, data.fit_weight, allowed), data, L_hat, budget,
                                    training, "cart", notes=(note,))
        best, self.fitness_history_ = self._tmo(data.X, data.y, data.fit_weight, allowed, L_hat, budget.deadline)
        budget.lap("tmo")
        return self._finish(best, data, L_hat, budget, training, "tmo")

    def _tmo(self, X, y, v, allowed, L_hat, deadline):
        """Algorithm 3 on the rows given: ``(best FixedTree, fitness history)``."""
        return tmo_label_tree(
            X, y, self.max_depth, len(self.classes_), n_estimators=self.n_estimators,
            n_generations=self.n_generations, cross_rate=self.cross_rate, random_state=self.random_state,
            n_jobs=1 if self.n_jobs is None else self.n_jobs, allowed=allowed, deadline=deadline, sample_weight=v,
            tao_options=dict(L_hat=L_hat, alpha=self.alpha, min_samples_leaf=self.min_samples_leaf))

    def _check_against_cart(self, data, allowed, budget):
        """TMO's and CART's trees on ``cart_check_folds`` stratified folds (at most ``k / (k + 1)`` of the
        budget)."""
        X, y, v = data.X, data.y, data.fit_weight
        weight = np.ones(len(y)) if v is None else v
        k = int(self.cart_check_folds)

        def on(train):
            totals = np.bincount(y[train], weights=weight[train])
            return X[train], y[train], None if v is None else v[train], max(totals.sum() - totals.max(), 1)

        def fit_cart(train):
            Xt, yt, vt, _ = on(train)
            tree = self._cart(Xt, yt, vt, allowed)
            return lambda rows: tree.predict(X[rows])

        def fit_tmo(train, deadline):
            Xt, yt, vt, L_hat = on(train)
            tree = self._tmo(Xt, yt, vt, allowed, L_hat, deadline)[0]
            return lambda rows: tree.predict(X[rows])

        seed = 0 if self.random_state is None else int(self.random_state)
        return check_against_baseline(y, weight, fit_cart, fit_tmo, n_folds=k, random_state=seed,
                                      deadline=budget.until(k / (k + 1)))


for _estimator in (TAOClassifier, TMOClassifier):
    _estimator.__doc__ = _estimator.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
