"""Whether a model keeps ``monotonic_cst`` globally: proved region by region where the model allows, searched
for violating pairs where it does not.

* **Axis-aligned trees with label leaves** (OCT, TAO, CART): each leaf is a box ``lo < x <= hi``. Leaf ``B`` lies
  *above* leaf ``A`` in feature ``j`` when a point of ``A`` moved up in ``j`` alone can land in ``B``: their boxes
  overlap in every other feature and ``hi_B[j] > lo_A[j]``. The tree is monotone (+1) in ``j`` exactly when no such
  pair has ``label_B < label_A`` (-1: ``label_B > label_A``): a proof over all of feature space, not the data's.
* **Trees with linear leaves** (the loss-optimal trees, the regressor's value leaves): monotone in ``j`` when no
  split reads ``j`` and every leaf's weight on ``j`` has the constraint's sign (or is 0): the route does not move
  with ``x_j`` and each leaf's score moves one way. Otherwise the pairs are searched.
* **Score cards**: a rule ``x_j >= b`` (or a per-unit rule) adds its points as ``x_j`` rises, a rule ``x_j < b``
  removes them: monotone exactly when every rule on ``j`` moves the score the constraint's way.
* **Oblique trees with label leaves** (OCT-H): proved where every split that weighs a constrained feature ``j``
  orders its subtrees: raising ``x_j`` alone moves a point across the split one way only (left to right where
  ``w_j > 0``), so the tree is monotone (+1) in ``j`` when, at each such split, no leaf of the side a point leaves
  predicts above one of the side it enters (:func:`hierarchy_leaf_pairs`; -1: below). This is sufficient, not
  necessary: a tree not of that form is searched.
* **Other trees**: searched. Each of at most :data:`SEARCH_ROWS` rows of ``X`` is moved
  through :data:`SEARCH_STEPS` values of ``x_j`` (the quantiles of ``X[:, j]``, and beyond its range); a pair of
  points whose decision moves against the constraint is a violation. A search that finds none proves nothing.

What is checked is the model's decision for the positive class: the label of a label leaf, the score of a linear
leaf (whose sigmoid is ``predict_proba``), the total of a score card; a regression tree's predicted value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..scorecard import ScoreCard
from ..trees import LeafModel, Tree

__all__ = ["MonotonicityCheck", "check_monotonic", "leaf_boxes", "ordered_leaf_pairs", "hierarchy_leaf_pairs",
           "monotone_leaf_order", "SEARCH_ROWS", "SEARCH_STEPS"]

#: Rows of ``X`` a search moves along each constrained feature.
SEARCH_ROWS = 500
#: Values of the feature each row is moved through.
SEARCH_STEPS = 24


@dataclass(frozen=True)
class MonotonicityCheck:
    """``exact``: the check covers all of feature space, so its answer is a proof either way (``"regions"`` or
    ``"signs"``); a ``"search"`` is not exact and proves nothing when it finds nothing. ``violations`` holds what
    was found: ``{"feature", "lower", "upper"}`` (two points, the second above the first in ``feature`` alone,
    whose decisions move against the constraint), ``{"feature", "leaves"}`` (two leaves, the second above the
    first) or ``{"feature", "rule"}`` (a score card's rule)."""

    exact: bool
    method: str
    violations: list = field(default_factory=list)

    @property
    def keeps(self) -> bool:
        """Whether no violation was found (a proof when ``exact``)."""
        return not self.violations

    @property
    def proven(self) -> bool:
        """Whether the model is proved to keep the constraints."""
        return self.exact and self.keeps


def _model_of(model):
    for name in ("tree_", "score_card_"):
        found = getattr(model, name, None)
        if found is not None:
            return found
    if isinstance(model, (Tree, ScoreCard)):
        return model
    raise TypeError(f"cannot check the monotonicity of a {type(model).__name__} (a tree or score card, or an "
                    "estimator holding one, is needed)")


def leaf_boxes(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(leaves, lo, hi)`` of an axis-aligned tree: each leaf's box ``lo < x <= hi`` (``-inf`` / ``inf`` where no
    split bounds it)."""
    p = tree.n_features
    lo = np.full((tree.n_nodes, p), -np.inf)
    hi = np.full((tree.n_nodes, p), np.inf)
    feature = tree.feature
    for t in range(tree.n_nodes):                     # parents before children: node ids grow down the tree
        if tree.is_leaf[t]:
            continue
        left, right, j = tree.children_left[t], tree.children_right[t], feature[t]
        lo[left], hi[left], lo[right], hi[right] = lo[t], hi[t], lo[t], hi[t]
        hi[left, j] = min(hi[t, j], tree.threshold[t])
        lo[right, j] = max(lo[t, j], tree.threshold[t])
    leaves = np.flatnonzero(tree.is_leaf)
    return leaves, lo[leaves], hi[leaves]


def ordered_leaf_pairs(tree: Tree, j: int) -> np.ndarray:
    """``(A, B)`` positions (into the leaves, in id order) of every pair of distinct reachable leaves with ``B``
    above ``A`` in feature ``j`` (the module docstring)."""
    leaves, lo, hi = leaf_boxes(tree)
    overlap = np.maximum(lo[:, None, :], lo[None, :, :]) < np.minimum(hi[:, None, :], hi[None, :, :])
    overlap[:, :, j] = True
    above = hi[None, :, j] > lo[:, None, j]                      # (A, B): hi_B > lo_A
    reachable = (lo < hi).all(axis=1)                            # a leaf under contradicting splits holds no point
    pairs = overlap.all(axis=2) & above & ~np.eye(len(leaves), dtype=bool) & reachable[:, None] & reachable[None, :]
    return np.argwhere(pairs)


def hierarchy_leaf_pairs(tree: Tree, signs) -> np.ndarray:
    """``(low, high)`` positions (into the leaves, in id order) of the leaves whose labels the hierarchy proof
    orders (module docstring): at every split weighing a feature ``j`` of sign ``s_j != 0`` by ``w_j != 0``, each
    leaf of the subtree a point leaves as ``x_j`` moves the constraint's way (left where ``s_j w_j > 0``) against
    each leaf of the subtree it enters."""
    signs = np.asarray(signs)
    leaves = np.flatnonzero(tree.is_leaf)
    position = {int(node): k for k, node in enumerate(leaves)}
    below = {}
    for t in range(tree.n_nodes - 1, -1, -1):                  # children (larger ids) before their parents
        below[t] = [position[t]] if tree.is_leaf[t] else below[tree.children_left[t]] + below[tree.children_right[t]]
    pairs = []
    for t in np.flatnonzero(~tree.is_leaf):
        moves = signs * tree.weights[t]
        left, right = below[tree.children_left[t]], below[tree.children_right[t]]
        if (moves > 0).any():                                  # x_j's way moves a point from left to right
            pairs += [(a, b) for a in left for b in right]
        if (moves < 0).any():                                  # ... from right to left
            pairs += [(a, b) for a in right for b in left]
    return np.unique(np.asarray(pairs, np.int64).reshape(-1, 2), axis=0)


def monotone_leaf_order(tree: Tree, signs) -> np.ndarray:
    """``(low, high)`` leaf positions whose positive labels a monotone label tree must order: the regions'
    (exact, :func:`ordered_leaf_pairs`) for an axis-aligned tree, the hierarchy's (sufficient,
    :func:`hierarchy_leaf_pairs`) for an oblique one."""
    signs = np.asarray(signs)
    if not (tree.is_axis_aligned or not (~tree.is_leaf).any()):
        return hierarchy_leaf_pairs(tree, signs)
    rows = []
    for j in np.flatnonzero(signs):
        for a, b in ordered_leaf_pairs(tree, j):
            rows.append((a, b) if signs[j] > 0 else (b, a))
    return np.unique(np.asarray(rows, np.int64).reshape(-1, 2), axis=0)


def _ordered_by_hierarchy(tree, signs) -> bool:
    label = tree.label[tree.is_leaf]
    pairs = hierarchy_leaf_pairs(tree, signs)
    return not (label[pairs[:, 0]] > label[pairs[:, 1]]).any()


def _regions(tree, signs):
    leaves = np.flatnonzero(tree.is_leaf)
    label = tree.label[leaves]
    found = []
    for j in np.flatnonzero(signs):
        for a, b in ordered_leaf_pairs(tree, j):
            if signs[j] * (label[b] - label[a]) < 0:
                found.append({"feature": int(j), "leaves": (int(leaves[a]), int(leaves[b]))})
    return found


def _card_signs(card: ScoreCard, signs):
    found = []
    moves = np.where(card.per_unit | card.greater, 1, -1) * card.points
    for k, j in enumerate(card.features):
        if signs[j] and signs[j] * moves[k] < 0:
            found.append({"feature": int(j), "rule": int(k)})
    return found


def _decision(model):
    if isinstance(model, ScoreCard):
        return model.totals
    if model.leaf_model is LeafModel.LINEAR:
        return model.leaf_scores
    return model.predict


def _search(model, signs, X):
    if X is None:
        raise ValueError("this model's monotonicity cannot be proved; give rows X to search for violating pairs")
    X = np.asarray(X, float)
    rows = X if len(X) <= SEARCH_ROWS else X[np.random.default_rng(0).choice(len(X), SEARCH_ROWS, replace=False)]
    decide = _decision(model)
    found = []
    for j in np.flatnonzero(signs):
        lo, hi = X[:, j].min(), X[:, j].max()
        span = max(hi - lo, 1.0)
        grid = np.unique(np.r_[lo - span, np.quantile(X[:, j], np.linspace(0, 1, SEARCH_STEPS - 2)), hi + span])
        moved = np.repeat(rows, len(grid), axis=0)
        moved[:, j] = np.tile(grid, len(rows))
        values = decide(moved).reshape(len(rows), len(grid)).astype(float)
        steps = signs[j] * np.diff(values, axis=1)
        bad = np.argwhere(steps < -1e-9 * np.maximum(1.0, np.abs(values[:, 1:])))
        for r, k in bad[:5]:
            lower, upper = rows[r].copy(), rows[r].copy()
            lower[j], upper[j] = grid[k], grid[k + 1]
            found.append({"feature": int(j), "lower": lower, "upper": upper})
    return found


def check_monotonic(model, monotonic_cst, X=None) -> MonotonicityCheck:
    """Check ``model`` (a fitted estimator with ``tree_`` or ``score_card_``, a :class:`~optitrees.trees.Tree` or a
    :class:`~optitrees.scorecard.ScoreCard`) against ``monotonic_cst`` (one sign per feature, or
    ``{feature name: sign}`` with an estimator) as the module docstring says; ``X``: the rows a search moves
    (needed where no proof applies).

    Raises
    ------
    ValueError
        A tree of more than two classes; a model that needs a search without ``X``.
    """
    from .constraints import monotonic_signs

    found = _model_of(model)
    if isinstance(monotonic_cst, dict):
        if not hasattr(model, "_feature_names"):
            raise ValueError("monotonic_cst by feature name needs a fitted estimator (its feature names); give one "
                             "sign per feature for a tree or score card")
        names = [str(n) for n in model._feature_names()]
    else:
        count = len(monotonic_cst) if not isinstance(monotonic_cst, str) and np.ndim(monotonic_cst) == 1 else 0
        names = [str(j) for j in range(count)]
    signs = monotonic_signs(monotonic_cst, names)
    if isinstance(found, Tree) and signs is not None and len(signs) != found.n_features:
        raise ValueError(f"monotonic_cst has {len(signs)} signs; the tree reads {found.n_features} features")
    if signs is None:
        return MonotonicityCheck(True, "none")
    if isinstance(found, ScoreCard):
        return MonotonicityCheck(True, "signs", _card_signs(found, signs))
    if found.leaf_model is LeafModel.LABEL:
        if found.n_classes > 2:
            raise ValueError("monotonic constraints need two classes")
        if found.is_axis_aligned or not (~found.is_leaf).any():
            return MonotonicityCheck(True, "regions", _regions(found, signs))
        if _ordered_by_hierarchy(found, signs):
            return MonotonicityCheck(True, "hierarchy")
    elif found.leaf_model in (LeafModel.LINEAR, LeafModel.LINEAR_VALUE):
        split_reads = (found.weights[~found.is_leaf] != 0).any(axis=0)
        leaf_w = found.weights[found.is_leaf]
        wrong = (signs[None, :] * leaf_w < 0).any(axis=0)
        constrained = signs != 0
        if not (split_reads & constrained).any():
            return MonotonicityCheck(True, "signs", [{"feature": int(j), "leaves": "weight of the wrong sign"}
                                                     for j in np.flatnonzero(wrong & constrained)])
    return MonotonicityCheck(False, "search", _search(found, signs, X))
