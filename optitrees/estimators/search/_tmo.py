"""The scikit-learn estimator of Tree Memetic Optimization, TMO (seed 002, 3.3, Algorithm 3)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, Options

from ...algorithms.local_search.baseline_check import check_against_baseline
from ...algorithms.local_search.tmo import tmo_label_tree
from ...scaling import Scaling
from .._docs import CLASS_WEIGHT_DOC
from ._local_search import _LocalSearchTree

__all__ = ["TMOClassifier"]


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
    feature_importances_ : ndarray of shape (n_features,)
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


TMOClassifier.__doc__ = TMOClassifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
