"""Regression trees: seed 003's greedy tree with its stopping and pruning rules, and TAO on squared loss."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.regression.streed import fit_streed
from ...algorithms.regression.t_test_pruning import keep_subtree, node_statistics, t_test_prune
from ...algorithms.regression.tao_regression import tao_regression_tree
from ...budget import expired
from ...enums import TextEnum
from ...scaling import power_of_two_scale
from ...trees import LEAF, feature_importances, from_sklearn
from .._base import OptitreesEstimator
from .._views import TreeViews

__all__ = ["CARTRegressor", "TAORegressor", "OptimalTreeRegressor", "RegressionPruning"]


def grow_cart(training, max_depth, min_samples_leaf=1, min_samples_split=2, ccp_alpha=0.0, random_state=None):
    """scikit-learn's squared-error tree on the training rows and weights: ``(estimator, Tree)``.

    ``min_samples_leaf`` counts weight (a row of weight 2 counts as two rows, as a repeated row would). The
    tree is grown on features scaled by powers of two (exact), since scikit-learn does not split features
    whose values differ by less than 1e-7; the ``Tree``'s thresholds are in the units of ``X``.
    """
    weight = training.weights
    cart = DecisionTreeRegressor(
        max_depth=max_depth, min_samples_split=min_samples_split, random_state=random_state, ccp_alpha=ccp_alpha,
        min_weight_fraction_leaf=min(0.5, min_samples_leaf / float(weight.sum())) if min_samples_leaf > 1 else 0.0)
    scale = power_of_two_scale(training.X)
    cart.fit(training.X / scale, training.y, sample_weight=weight)
    return cart, from_sklearn(cart, scale)


#: Thresholds per feature of the optimal tree's first, quick search (with a time limit; see ``time_limit``).
COARSE_THRESHOLDS = 16


def training_mse(tree, training) -> float:
    """The weighted mean squared error of ``tree`` on the training rows."""
    return float(np.average((training.y - tree.predict(training.X)) ** 2, weights=training.weights))


class RegressionPruning(TextEnum):
    """How a grown regression tree is pruned (seed 003, "Model complexity" and "Pruning rule")."""

    #: no pruning: the stopping rules alone
    NONE = "none"
    #: minimal cost-complexity: the subtree minimizing training MSE + ``ccp_alpha`` x leaves
    COST_COMPLEXITY = "cost_complexity"
    #: merge two sibling leaves while the t-test p-value of their means exceeds ``p_value_threshold``
    T_TEST = "t_test"


class CARTRegressor(TreeViews, RegressorMixin, OptitreesEstimator):
    """Regression tree of seed 003: greedy squared-error splits, then pruning.

    Growth (scikit-learn's ``DecisionTreeRegressor``) splits a node on the feature and value minimizing
    ``sum_{i in I<} (y_i - beta<)^2 + sum_{i in I>} (y_i - beta>)^2``, each leaf predicting its mean
    ``beta_j`` (seed 003, "Algorithm for regression trees"); it stops at ``max_depth``, below
    ``min_samples_split`` rows, where a child would get fewer than ``min_samples_leaf`` rows, and at one
    instance (or one target value) per leaf. Pruning then follows ``pruning``:

    * ``"t_test"`` (default): bottom-up, two sibling leaves merge while the p-value ``P(Z > |t|)`` of
      Welch's ``t`` between their targets exceeds ``p_value_threshold``
      (:mod:`optitrees.algorithms.regression.t_test_pruning`);
    * ``"cost_complexity"``: the subtree minimizing training MSE + ``ccp_alpha`` x number of leaves
      (minimal cost-complexity pruning, the weakest link first);
    * ``"none"``.

    Parameters
    ----------
    max_depth : int, optional
        Depth limit of growth (``None``: none).
    min_samples_split : int, default=2
        A node with fewer rows is not split.
    min_samples_leaf : int, default=1
        Each leaf keeps at least this much training weight (rows, with unit weights).
    pruning : {"t_test", "cost_complexity", "none"}, default="t_test"
        The pruning rule (see :class:`RegressionPruning`).
    p_value_threshold : float, default=0.05
        The t-test rule's threshold (0.05 or 0.01 in the seed).
    ccp_alpha : float, default=0.0
        The cost-complexity rule's price per leaf, in units of training MSE.
    random_state : int, optional
        Ties between equally good splits (scikit-learn's feature order). ``None``, as in scikit-learn, draws a
        new order at each fit, so two fits may break a tie differently and print different (equally good)
        trees; give an int for the same tree every time.

    Attributes
    ----------
    tree_ : Tree
        Value leaves (``intercept`` is the leaf mean; ``value`` the training weight of each node).
    p_values_ : dict
        ``node of the grown tree -> p-value`` of every split the t-test examined.
    grown_leaves_ : int
        Leaves before pruning.
    feature_importances_ : ndarray of shape (n_features,)
    fit_report_ : FitReport
        ``objective``: the training mean squared error.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = CARTRegressor(max_depth=6, random_state=0).fit(X, y)
    >>> reg.grown_leaves_, reg.tree_.n_leaves                 # the t-test merges 12 pairs of leaves
    (55, 43)
    """

    _is_classifier = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "pruning": [StrOptions({p.value for p in RegressionPruning})],
        "p_value_threshold": [Interval(Real, 0, 1, closed="both")],
        "ccp_alpha": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, max_depth=None, *, min_samples_split=2, min_samples_leaf=1, pruning="t_test",
                 p_value_threshold=0.05, ccp_alpha=0.0, random_state=None):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.pruning = pruning
        self.p_value_threshold = p_value_threshold
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def _fit(self, X, y, sample_weight, budget):
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        pruning = RegressionPruning(self.pruning)
        ccp_alpha = float(self.ccp_alpha) if pruning is RegressionPruning.COST_COMPLEXITY else 0.0
        cart, grown = grow_cart(training, self.max_depth, self.min_samples_leaf, self.min_samples_split,
                                ccp_alpha=ccp_alpha, random_state=self.random_state)
        self.grown_leaves_ = int(np.sum(cart.tree_.children_left == LEAF))
        inner = cart.tree_.children_left != LEAF
        self.p_values_ = {}
        if pruning is RegressionPruning.T_TEST:
            inner, self.p_values_ = t_test_prune(cart.tree_.children_left, cart.tree_.children_right,
                                                 node_statistics(cart.tree_), float(self.p_value_threshold))
        self.tree_ = keep_subtree(grown, inner)
        self.feature_importances_ = feature_importances(self.tree_)
        self._write_report(budget, training, f"greedy squared-error tree, {pruning.value} pruning",
                           objective=training_mse(self.tree_, training))
        return self

    def predict(self, X):
        """The mean of the leaf each row reaches."""
        X = self._X(X)
        return self.tree_.predict(X)


class TAORegressor(TreeViews, RegressorMixin, OptitreesEstimator):
    """Regression tree by TAO (seed 002, 3.3, on squared loss): CART's tree of ``max_depth``, then alternating
    optimization of its nodes depth by depth (:mod:`optitrees.algorithms.regression.tao_regression`).

    Each leaf takes the mean of its points; each split takes the axis-aligned cut that routes every point to
    the subtree predicting it better, weighted by how much better. Every step lowers the training squared
    error, so the returned tree is never worse than CART's.

    Parameters
    ----------
    max_depth : int, default=3
        Depth of CART's start (TAO keeps its structure).
    min_samples_leaf : int, default=1
        Training weight a split leaves on each side.
    max_passes : int, default=20
        Bottom-up passes over the tree (it stops earlier when a pass changes nothing).
    time_limit : float, optional
        Seconds for the whole fit; the best tree so far is returned at the limit.
    random_state : int, optional
        Ties between equally good splits of CART's start (``None``: a new order each fit, as in scikit-learn;
        an int: the same tree every time).

    Attributes
    ----------
    tree_ : Tree
    start_objective_, objective_ : float
        Training mean squared error of CART's start and of the returned tree.
    feature_importances_ : ndarray of shape (n_features,)
    fit_report_ : FitReport

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(1000, 3))
    >>> y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)) + 0.5 * (X[:, 2] > 0.8)   # greedy growth splits on x2 first
    >>> tao = TAORegressor(max_depth=3, random_state=0).fit(X, y)
    >>> round(tao.start_objective_, 4), round(tao.objective_, 4)
    (0.2255, 0.0391)
    """

    _is_classifier = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_passes": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, max_depth=3, *, min_samples_leaf=1, max_passes=20, time_limit=None, random_state=None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_passes = max_passes
        self.time_limit = time_limit
        self.random_state = random_state

    def _fit(self, X, y, sample_weight, budget):
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        _, start = grow_cart(training, self.max_depth, self.min_samples_leaf, random_state=self.random_state)
        budget.lap("start")
        self.start_objective_ = training_mse(start, training)
        tree = tao_regression_tree(start, training.X, training.y, training.weights,
                                   min_samples_leaf=float(self.min_samples_leaf),
                                   max_passes=self.max_passes, deadline=budget.deadline)
        truncated = expired(budget.deadline)
        budget.lap("tao")
        self.objective_ = training_mse(tree, training)
        if self.objective_ > self.start_objective_:         # TAO accepts only improving steps: never reached
            tree, self.objective_ = start, self.start_objective_
        self.tree_ = tree
        self.feature_importances_ = feature_importances(tree)
        self._write_report(budget, training, "tao", objective=self.objective_, truncated=truncated,
                           starts={"CART": self.start_objective_})
        return self

    def predict(self, X):
        """The value of the leaf each row reaches."""
        X = self._X(X)
        return self.tree_.predict(X)


class OptimalTreeRegressor(TreeViews, RegressorMixin, OptitreesEstimator):
    """Optimal axis-aligned regression tree of ``max_depth`` with constant or sparse linear leaves, by STreeD's
    dynamic programming (``pystreed``; :mod:`optitrees.algorithms.regression.streed`).

    Minimizes the training squared error ``sum_i v_i (y_i - f_leaf(i)(x_i))^2`` (plus ``cost_complexity`` per
    split, and with linear leaves ``lasso_penalty ||w_leaf||_1`` per leaf) over every tree of ``max_depth``
    whose splits are ``x_j <= c`` at the candidate thresholds: all midpoints between consecutive distinct
    values (``n_thresholds=None``: the tree is optimal among all axis-aligned trees of that depth) or at most
    ``n_thresholds`` per feature, spread over the values' ranks. A leaf predicts a constant
    ``f(x) = beta``, or with ``linear_leaves`` ``f(x) = w x + b`` over all features.

    Parameters
    ----------
    max_depth : int, default=2
    n_thresholds : int, optional
        Candidate thresholds per feature (``None``: every midpoint).
    min_samples_leaf : int, default=1
        Rows each leaf keeps.
    cost_complexity : float, default=0.0
        Added to the squared error for each split.
    linear_leaves : bool, default=False
        Each leaf fits ``w x + b`` on its rows (STreeD's piecewise linear regression) instead of their mean.
    lasso_penalty : float, default=0.0
        With linear leaves, the l1 penalty on each leaf's ``w``: larger values leave fewer features in a leaf.
    time_limit : float, default=60.0
        Seconds for the whole fit. STreeD searches in a forked child stopped at the limit. With a limit, a
        first search over 16 thresholds per feature (spread over the ranks) gets up to a quarter of it, then
        the search over every candidate the rest. A tree the second search has not proven optimal is
        compared with the first search's and with CART's tree of the same depth, and the best in training
        error is returned (the report says which). With every midpoint, 3,000-7,500 rows were not proven
        even at depth 2 in 60 s (``bench/regression_trees.py``); ``n_thresholds`` makes the search smaller.

    Attributes
    ----------
    tree_ : Tree
    proven_ : bool
        STreeD proved the tree optimal over the candidate splits.
    objective_ : float
        Training mean squared error.
    fit_report_ : FitReport
        ``outcome`` is "proven optimal" when STreeD proved the tree optimal over every midpoint.

    Notes
    -----
    STreeD takes no sample weights: a weight must be a whole number (the row counted that many times).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> ort = OptimalTreeRegressor(max_depth=2).fit(X[:, :4], y)
    >>> ort.proven_, str(ort.fit_report_.outcome)
    (True, 'proven optimal')
    """

    _is_classifier = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "n_thresholds": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "cost_complexity": [Interval(Real, 0, None, closed="left")],
        "linear_leaves": ["boolean"],
        "lasso_penalty": [Interval(Real, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, max_depth=2, *, n_thresholds=None, min_samples_leaf=1, cost_complexity=0.0,
                 linear_leaves=False, lasso_penalty=0.0, time_limit=60.0):
        self.max_depth = max_depth
        self.n_thresholds = n_thresholds
        self.min_samples_leaf = min_samples_leaf
        self.cost_complexity = cost_complexity
        self.linear_leaves = linear_leaves
        self.lasso_penalty = lasso_penalty
        self.time_limit = time_limit

    def _fit(self, X, y, sample_weight, budget):
        import dataclasses

        from .._report import FitOutcome

        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        weight = training.weights
        counts = np.round(weight)
        if not np.allclose(weight, counts, rtol=0, atol=1e-9):
            raise ValueError("OptimalTreeRegressor takes whole-number sample weights (a row counted that many "
                             "times): STreeD has no row weights")
        counts = counts.astype(np.int64)
        Xr, yr = np.repeat(training.X, counts, axis=0), np.repeat(training.y, counts)
        deadline = None if budget.deadline is None else budget.deadline - max(0.2, 0.02 * budget.seconds)
        options = dict(min_samples_leaf=self.min_samples_leaf, cost_complexity=float(self.cost_complexity),
                       linear_leaves=bool(self.linear_leaves), lasso_penalty=float(self.lasso_penalty))
        coarse = None
        if budget.seconds is not None and (self.n_thresholds or np.inf) > COARSE_THRESHOLDS:
            # a quick search over a few thresholds first: a search of all of them the limit stops leaves it
            coarse, _ = fit_streed(Xr, yr, self.max_depth, COARSE_THRESHOLDS, deadline=budget.until(0.25), **options)
            budget.lap("coarse search")
        tree, proven = fit_streed(Xr, yr, self.max_depth, self.n_thresholds, deadline=deadline, **options)
        budget.lap("search")
        timed_out = tree is None
        candidates = {"streed": tree, "coarse": coarse}
        if not proven:            # STreeD's tree is not proven (or there is none): never worse than CART's
            candidates["cart"] = grow_cart(training, self.max_depth, self.min_samples_leaf, random_state=0)[1]
        errors = {k: training_mse(t, training) for k, t in candidates.items() if t is not None}
        chosen = "streed" if proven else min(errors, key=lambda k: (errors[k], k != "streed"))
        use_cart = chosen == "cart"
        tree = candidates[chosen]
        # each node's training weight (one column, as regression trees keep it)
        self.tree_ = tree.with_counts(training.X, np.zeros(len(training.y), np.int64), sample_weight=weight)
        self.proven_ = proven
        self.objective_ = training_mse(self.tree_, training)
        self.feature_importances_ = feature_importances(self.tree_, training.X)
        exact = proven and self.n_thresholds is None
        if chosen == "coarse":
            notes = (f"the time limit stopped STreeD's search of every threshold: the tree of its first search, "
                     f"optimal over {COARSE_THRESHOLDS} thresholds per feature, is returned",)
        elif timed_out:
            notes = ("STreeD returned no tree (the time limit ended its search, or it found none for its penalties): "
                     "CART's tree is returned",)
        elif use_cart:
            notes = ("the time limit stopped STreeD with a tree worse than CART's: CART's tree is returned",)
        elif exact:
            notes = ()
        else:
            notes = (f"optimal over at most {self.n_thresholds} thresholds per feature",) if proven else \
                ("the time limit stopped STreeD: its best tree so far",)
        self._write_report(budget, training, "cart" if use_cart else "streed", objective=self.objective_,
                           truncated=not proven, notes=notes)
        penalized = self.cost_complexity > 0 or (self.linear_leaves and self.lasso_penalty > 0)
        if exact and penalized:
            # proven in the squared error plus the penalties, not in the reported objective (the error alone)
            self.fit_report_ = dataclasses.replace(
                self.fit_report_, outcome=FitOutcome.NOT_PROVEN, solved_by="streed",
                notes=self.fit_report_.notes + ("STreeD proved the tree optimal in the squared error plus its "
                                                "penalties, not in the squared error alone",))
        elif exact:
            self.fit_report_ = dataclasses.replace(self.fit_report_, outcome=FitOutcome.PROVEN_OPTIMAL,
                                                   solved_by="streed", certified_by="streed",
                                                   bound=self.objective_)
        return self

    def predict(self, X):
        """The value of the leaf each row reaches (its linear model's value, with linear leaves)."""
        X = self._X(X)
        return self.tree_.predict(X)
