"""What CCT and CRT share: one tree of a random forest chosen per point by a learned policy (seed 002, ch. 5).

The classifier and the regressor (:mod:`._contextual_classifier`,
:mod:`._contextual_regressor`) set the task-specific pieces: trees, rewards,
supervised targets and the validation score.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ... import export
from ...algorithms.contextual.bandit import cross_entropy_gradient, policy_gradient, sample_actions, train_policy
from ...algorithms.contextual.policy_network import PolicyNetwork
from ...algorithms.forest import grow_forest
from ...budget import expired
from ...readable import format_number
from ...scaling import power_of_two_scale
from ...trees import from_sklearn, readable_tree
from .._base import OptitreesEstimator, holdout_split
from .._input import feature_names, printed_names

__all__ = ["DEPTH_GRID"]

#: Depths the seed validates for CART (and then the forest's trees) when ``max_depth`` is None.
DEPTH_GRID = (2, 3, 4)
#: The forest grows at most this share of the time left after CART's depth is chosen (the policy, its data and
#: its training get the rest: at 30,000 rows the forest alone took 3.2 s of a 2 s limit), ``FOREST_CHUNK``
#: trees at a time.
FOREST_SHARE_OF_REST = 0.5
FOREST_CHUNK = 5


class _ContextualTrees(OptitreesEstimator):
    """Shared fit of CCT / CRT; subclasses set the task-specific pieces.

    ``sample_weight`` weighs each row in CART's and the forest's fits, in the
    policy's loss (each row's term times its weight over the mean weight) and
    in the validation score; the policy's input standardization is weighted.
    """

    _model_shapes = (frozenset({"trees_", "policy_"}),)

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "policy": [StrOptions({"bandit", "supervised"})],
        "hidden_layer_sizes": ["array-like"],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "entropy_weight": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
    }

    def __init__(self, n_estimators=50, *, max_depth=None, policy="bandit", hidden_layer_sizes=(128, 128),
                 dropout=0.2, entropy_weight=1e-4, learning_rate=1e-3, batch_size=64, max_epochs=1000, patience=150,
                 validation_fraction=0.2, time_limit=None, random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.policy = policy
        self.hidden_layer_sizes = hidden_layer_sizes
        self.dropout = dropout
        self.entropy_weight = entropy_weight
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.time_limit = time_limit
        self.random_state = random_state

    # ---------------------------------------------------------------- fit
    def _fit(self, X, y, sample_weight, budget):
        """Validate CART's depth, grow the forest, train the policy (Algorithm 4) with early stopping."""
        self._validate_params()
        hidden = tuple(int(h) for h in np.atleast_1d(self.hidden_layer_sizes))
        if any(h < 1 for h in hidden):
            raise ValueError(f"hidden_layer_sizes must be positive widths, got {self.hidden_layer_sizes!r}")
        training = self._fit_data(X, y, sample_weight)
        X, target, weight = training.X, training.y, training.weights
        rng = np.random.default_rng(self.random_state)
        train, val = holdout_split(len(X), target if self._is_classifier else None, self.validation_fraction,
                                   self.random_state)
        Xt, yt, Xv, yv = X[train], target[train], X[val], target[val]
        vt, vv = weight[train], weight[val]
        fit_weight, val_weight = (None, None) if training.weight is None else (vt, vv)
        # CART and the forest learn on X / forest_scale_ (powers of two: the same splits, and features in tiny
        # units are not taken for constants); the trees are read back in the units of X, with thresholds the
        # shortest numbers that route every row the same way (scikit-learn's sit between float32 values)
        self.forest_scale_ = power_of_two_scale(X)
        self.max_depth_, self.cart_ = self._validated_cart(Xt / self.forest_scale_, yt, Xv / self.forest_scale_, yv,
                                                           fit_weight, val_weight)
        budget.lap("cart depth")
        # the forest grows a few trees at a time within half the time left; the policy and its data get the rest
        left = budget.remaining()
        forest_by = None if left is None else time.perf_counter() + FOREST_SHARE_OF_REST * left
        self.forest_ = grow_forest(Xt / self.forest_scale_, self._decode(yt), self.n_estimators, forest_by,
                                   chunk=FOREST_CHUNK, sample_weight=fit_weight,
                                   regression=not self._is_classifier, max_depth=self.max_depth_,
                                   random_state=self.random_state, n_jobs=1)
        self.trees_ = [from_sklearn(e, self.forest_scale_) for e in self.forest_.estimators_]
        for i, tree in enumerate(self.trees_):
            if expired(forest_by):              # the short numbers only print better: the budget comes first
                break
            self.trees_[i] = readable_tree(tree, X)
        budget.lap("forest")
        self.input_mean_ = np.average(Xt, axis=0, weights=fit_weight)
        std = np.sqrt(np.average((Xt - self.input_mean_) ** 2, axis=0, weights=fit_weight))
        self.input_scale_ = np.where(std > 0, std, 1.0)
        Pt, Pv = self._tree_predictions(Xt), self._tree_predictions(Xv)
        Zt, Zv = self._standardize(Xt), self._standardize(Xv)
        net = PolicyNetwork(X.shape[1], len(self.trees_), hidden, self.dropout, rng)
        relative = None if fit_weight is None else vt / vt.mean()       # each row's term in the policy's loss

        if self.policy == "bandit":
            rewards = self._rewards(Pt, yt)

            def batch_signal(batch, probabilities):
                actions = sample_actions(probabilities, rng)
                r = rewards[batch, actions]
                v = None if relative is None else relative[batch]
                return float(np.average(r, weights=v)), policy_gradient(probabilities, actions, r,
                                                                        self.entropy_weight, v)[1]
        else:
            targets = self._supervised_targets(Xt, Pt, yt, rng)

            def batch_signal(batch, probabilities):
                return cross_entropy_gradient(probabilities, targets[batch],
                                              None if relative is None else relative[batch])

        def validation_score(network):
            choice = np.argmax(network.logits(Zv), axis=1)
            return self._choice_score(Pv[np.arange(len(Xv)), choice], yv, val_weight)

        deadline = budget.deadline
        self.history_ = train_policy(net, Zt, batch_signal, validation_score, max_epochs=self.max_epochs,
                                     batch_size=self.batch_size, learning_rate=self.learning_rate,
                                     patience=self.patience, rng=rng, deadline=deadline)
        budget.lap("policy")
        self.policy_ = net
        self.validation_score_ = validation_score(net)
        self.n_epochs_ = len(self.history_.validation)
        usage = np.bincount(self._choose(X), weights=weight, minlength=len(self.trees_))
        self.tree_usage_ = usage.astype(np.int64) if np.all(usage == np.round(usage)) else usage
        # the forest trees' (impurity-based) importances, weighted by how many training points each explains
        self.feature_importances_ = np.average([e.feature_importances_ for e in self.forest_.estimators_], axis=0,
                                               weights=self.tree_usage_)
        self._write_report(budget, training, "contextual tree", truncated=self.history_.stopped == "time_limit")
        return self

    def _validated_cart(self, Xt, yt, Xv, yv, sample_weight=None, validation_weight=None):
        depths = DEPTH_GRID if self.max_depth is None else (self.max_depth,)
        best = None
        for depth in depths:
            cart = self._cart(depth).fit(Xt, self._decode(yt), sample_weight)
            score = self._choice_score(self._encode_predictions(cart.predict(Xv)), yv, validation_weight)
            if best is None or score > best[0]:
                best = (score, depth, cart)
        return best[1], best[2]

    def _standardize(self, X):
        return (X - self.input_mean_) / self.input_scale_

    def _tree_predictions(self, X) -> np.ndarray:
        return np.column_stack([t.predict(X) for t in self.trees_])

    # ---------------------------------------------------------- prediction
    def choose(self, X) -> np.ndarray:
        """Index into ``trees_`` of the tree the policy picks for each point: ``argmax_i pi(i | x)``."""
        return self._choose(self._X(X))

    def _choose(self, X):
        return np.argmax(self.policy_.logits(self._standardize(X)), axis=1)

    def policy_proba(self, X) -> np.ndarray:
        """``pi(. | x)``: the policy's distribution over the trees, shape ``(n, n_estimators)``."""
        X = self._X(X)
        return self.policy_.probabilities(self._standardize(X))

    def _chosen_predictions(self, X) -> np.ndarray:
        choice = self._choose(X)
        out = np.empty(len(X), dtype=float)
        for i in np.unique(choice):
            rows = choice == i
            out[rows] = self.trees_[i].predict(X[rows])
        return out

    def explain(self, X) -> pd.DataFrame:
        """Per point: the chosen tree, its decision path as conditions, and the prediction it gives."""
        X = self._X(X)
        names = feature_names(self)
        choice = self._choose(X)
        paths = np.empty(len(X), dtype=object)
        for i in np.unique(choice):
            rows = np.flatnonzero(choice == i)
            tree = self.trees_[i]
            visited = tree.decision_path(X[rows])
            # the test of each visited inner node, read in the direction the point took
            conditions = [[f"{names[tree.feature[a]]} {'<=' if b == tree.children_left[a] else '>'} "
                           f"{format_number(tree.threshold[a])}" for a, b in zip(path[:-1], path[1:]) if b >= 0]
                          for path in visited]
            paths[rows] = [" AND ".join(c) or "true" for c in conditions]
        return pd.DataFrame({"sample": np.arange(len(X)), "tree": choice, "path": paths,
                             "prediction": self._predict_array(X)})

    def export_text(self, tree: int | None = None, feature_names=None) -> str:
        """Tree ``tree`` of the forest as text (the explanation of every point the policy sends to it); without
        ``tree``, every tree the policy chose for a training point, each under a heading. Which tree a point
        gets is the policy network's choice: :meth:`explain` shows it. ``feature_names`` (one per feature)
        replaces the names seen in ``fit``."""
        check_is_fitted(self)
        names = printed_names(self, feature_names)
        if tree is not None:
            return export.export_text(self.trees_[self._tree_index(tree)], names, self._class_names())
        parts = ["A policy network chooses one of these trees for each point (explain(X) shows which); "
                 "the tree's leaf is the prediction."]
        for i in np.flatnonzero(self.tree_usage_):
            parts.append(f"tree {i} (chosen for {self.tree_usage_[i]} training points):\n"
                         + export.export_text(self.trees_[i], names, self._class_names()))
        return "\n\n".join(parts)

    def export_sql(self, table=None, feature_names=None) -> str:
        """``predict`` as one SQL expression: the policy network (standardized inputs, ReLU layers) written in
        nested subqueries, its first largest logit choosing which tree's nested CASE gives the prediction.
        Columns are qualified by ``table`` when given (:func:`optitrees.export.export_sql`)."""
        from ...export._sql import feature_columns, policy_choice_sql, tree_sql

        check_is_fitted(self)
        names = printed_names(self, feature_names)
        columns = feature_columns(names, table, getattr(self, "feature_encoding_", None))
        classes = self._class_names() or ["0", "1"]
        branches = [tree_sql(t, columns, classes) for t in self.trees_]
        return policy_choice_sql(self.policy_, self.input_mean_, self.input_scale_, columns, branches, names)

    def to_dict(self, tree: int | None = None, feature_names=None) -> dict:
        """Tree ``tree`` of the forest as a JSON-serializable dict; without ``tree``, ``{"trees": {index: dict}}``
        for every tree the policy chose for a training point, with ``"usage"`` (training points per tree);
        ``feature_names`` as in :meth:`export_text`."""
        check_is_fitted(self)
        names = printed_names(self, feature_names)
        if tree is not None:
            return export.export_dict(self.trees_[self._tree_index(tree)], names, self._class_names())
        used = np.flatnonzero(self.tree_usage_)
        return {"trees": {int(i): export.export_dict(self.trees_[i], names, self._class_names())
                          for i in used},
                "usage": {int(i): self.tree_usage_[i].item() for i in used}}

    def _tree_index(self, tree) -> int:
        if not isinstance(tree, Integral) or not 0 <= tree < len(self.trees_):
            raise ValueError(f"tree must be an index in [0, {len(self.trees_)}), got {tree!r}")
        return int(tree)
