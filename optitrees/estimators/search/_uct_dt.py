"""UCT-DT: decision trees found by Monte Carlo tree search (seed 000, ch. 4)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, StrOptions

from ...algorithms.uct_dt.tree_search import UCTSearch
from ...trees import feature_importances
from .._base import CLASS_WEIGHT_CONSTRAINT, OptitreesClassifier, holdout_split
from .._docs import CLASS_WEIGHT_DOC
from .._views import TreeViews
from ._c45 import C45Classifier

__all__ = ["UCTDTClassifier"]

#: Share of ``time_limit`` the C4.5 fit that chooses the depth (``max_depth=None``) may use.
DEPTH_CHOICE_SHARE = 0.25


def _search(X, y, weight, ind, val, n_classes, allowed, depth, params, n_iterations, deadline, seed):
    search = UCTSearch(X, y, ind, val, n_classes=n_classes, allowed=allowed, max_depth=depth,
                       rng=np.random.default_rng(seed), sample_weight=weight, **params)
    return search.run(n_iterations, deadline)


class UCTDTClassifier(TreeViews, OptitreesClassifier):
    """Monte Carlo tree search over decision trees, UCT-DT (seed 000, ch. 4; see
    :mod:`optitrees.algorithms.uct_dt.tree_search`).

    The training data are split into induction (``1 - validation_fraction``)
    and validation rows, stratified. Each search node holds a tree; an action
    splits one leaf with one of the ``n_candidates`` best tests (information
    gain on the induction rows); UCB1 with constant ``exploration`` (C_p)
    chooses where to expand; the reward is the average F1 over the classes
    on the validation rows, of the tree itself (``policy="vs"``) or of the tree
    completed by C4.5 (``"c45"``) or by C4.5 on bootstrap samples (``"c45b"``).
    The returned tree is the search tree's best by validation F1.

    Parameters
    ----------
    n_iterations : int, default=2000
        MCTS iterations (the seed used 2e5).
    time_limit : float, optional
        Seconds for the whole fit; the search stops at it. With ``max_depth=None``
        the C4.5 fit that chooses the depth has a quarter of it.
    n_candidates : int, default=3
        K, the tests generated per new leaf (K = 1 is the greedy search).
    exploration : float, default=1.0
        C_p of UCB1.
    policy : {"vs", "c45", "c45b"}, default="vs"
    dt_pruning : bool, default=True
        Remove search nodes whose split C4.5's pessimistic pruning removes.
    value_pruning : bool, default=True
    value_pruning_every : int, default=300
        n_vp: iterations between value-based prunings (the seed: 3000 of 2e5).
    value_pruning_depth : int, default=5
        d_vp.
    max_depth : int, optional
        eta_depth; default: the depth of C4.5's tree on the training data (the seed's choice).
    min_samples_split : int, default=4
        eta_instances.
    confidence_factor : float, default=0.25
        C4.5's pruning confidence (DT-based pruning, ``max_depth`` default).
    validation_fraction : float, default=0.3
    n_jobs : int, optional
        Independent searches run in parallel (root parallelization); the
        iterations are shared among them and the best tree is kept.
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
    validation_f1_ : float
    n_iterations_ : int
        Iterations run (over all searches).
    search_nodes_ : int
        Trees in the search tree(s) at the end.
    search_depth_ : int
        Deepest search node (number of splits).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = UCTDTClassifier(n_iterations=200, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9), clf.search_nodes_ > 1
    (True, True)
    """

    _parameter_constraints = {
        "n_iterations": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "exploration": [Interval(Real, 0, None, closed="neither")],
        "policy": [StrOptions({"vs", "c45", "c45b"})],
        "dt_pruning": ["boolean"],
        "value_pruning": ["boolean"],
        "value_pruning_every": [Interval(Integral, 1, None, closed="left")],
        "value_pruning_depth": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "confidence_factor": [Interval(Real, 0, 1, closed="neither")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_jobs": [Integral, None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
        "forbidden_features": ["array-like", str, Integral, None],
        "class_weight": CLASS_WEIGHT_CONSTRAINT,
    }

    def __init__(self, n_iterations=2000, *, time_limit=None, n_candidates=3, exploration=1.0, policy="vs",
                 dt_pruning=True, value_pruning=True, value_pruning_every=300, value_pruning_depth=5,
                 max_depth=None, min_samples_split=4, confidence_factor=0.25, validation_fraction=0.3,
                 n_jobs=None, random_state=None, forbidden_features=None, class_weight=None):
        self.n_iterations = n_iterations
        self.time_limit = time_limit
        self.n_candidates = n_candidates
        self.exploration = exploration
        self.policy = policy
        self.dt_pruning = dt_pruning
        self.value_pruning = value_pruning
        self.value_pruning_every = value_pruning_every
        self.value_pruning_depth = value_pruning_depth
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.confidence_factor = confidence_factor
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.forbidden_features = forbidden_features
        self.class_weight = class_weight

    def _fit(self, X, y, sample_weight, budget):
        """Split induction / validation rows, search, keep the tree of best validation F1.

        ``sample_weight``: each row's weight in the class counts, gains, split
        sizes and the validation F1 (rows, with their weights, go wholly to the
        induction or the validation part).
        """
        self._validate_params()
        training = self._fit_data(X, y, sample_weight)
        X, y_idx, weight = training.X, training.y, training.weight
        K = len(self.classes_)
        allowed = self._allowed_features()
        ind, val = holdout_split(len(y_idx), y_idx, self.validation_fraction, self.random_state)
        if self.max_depth is not None:
            depth = self.max_depth
        else:                                   # eta_depth: the depth of C4.5's tree (seed 000, 4.5.1)
            c45 = C45Classifier(self.confidence_factor, forbidden_features=self.forbidden_features,
                                time_limit=None if budget.seconds is None else DEPTH_CHOICE_SHARE * budget.seconds)
            depth = max(c45.fit(X, y_idx, sample_weight=weight).tree_.max_depth, 1)
            budget.lap("depth choice")
        params = {"n_candidates": self.n_candidates, "exploration": self.exploration, "policy": self.policy,
                  "dt_pruning": self.dt_pruning, "value_pruning": self.value_pruning,
                  "vp_every": self.value_pruning_every, "vp_depth": self.value_pruning_depth,
                  "min_samples_split": self.min_samples_split, "confidence_factor": self.confidence_factor}
        deadline = budget.deadline
        n_searches = 1 if self.n_jobs in (None, 1) else max(1, min(abs(self.n_jobs), self.n_iterations))
        shares = [self.n_iterations // n_searches + (i < self.n_iterations % n_searches) for i in range(n_searches)]
        seed = np.random.default_rng(self.random_state).integers(2**31, size=n_searches)
        searches = Parallel(n_jobs=n_searches if n_searches > 1 else None)(
            delayed(_search)(X, y_idx, weight, ind, val, K, allowed, depth, params, share, deadline, int(s))
            for share, s in zip(shares, seed))
        best = max((s.best() for s in searches), key=lambda n: (n.state.f1, -n.state.n_leaves()))
        self.tree_ = best.state.to_tree(X.shape[1])
        self.feature_importances_ = feature_importances(self.tree_)
        self.validation_f1_ = best.state.f1
        self.max_depth_ = depth
        self.n_iterations_ = sum(s.iterations for s in searches)
        self.search_nodes_ = sum(len(s.nodes) for s in searches)
        self.search_depth_ = max(s.max_depth_reached() for s in searches)
        budget.lap("search")
        self._write_report(budget, training, "uct-dt", truncated=self.n_iterations_ < self.n_iterations and
                           budget.expired)
        return self

    def predict_proba(self, X):
        """Induction-row class frequencies of the leaf each sample reaches."""
        X = self._X(X)
        return self.tree_.predict_proba(X)


UCTDTClassifier.__doc__ = UCTDTClassifier.__doc__.replace("{class_weight}", CLASS_WEIGHT_DOC)
