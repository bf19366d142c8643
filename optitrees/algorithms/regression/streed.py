"""Optimal axis-aligned regression trees by STreeD's dynamic programming (``pystreed``, MIT) on our thresholds.

STreeD searches binary features. We give it one per candidate split ``x_j <= c``
(:func:`candidate_thresholds`: midpoints between consecutive distinct training
values, at most ``n_thresholds`` per feature, spread over the values' ranks),
so the tree it proves optimal is the best tree of its depth over exactly those
splits, with constant leaves (the means of their rows), minimizing the training
squared error (plus ``cost_complexity`` per split). With linear leaves each leaf
fits ``w x + b`` on all features of its rows, the l1 penalty ``lasso_penalty
||w||_1`` on the standardized features making ``w`` sparse (STreeD's piecewise
linear regressor; the split features stay ours; the leaves are written back in
the units of ``X``). :func:`to_tree` reads its answer back as a
:class:`~optitrees.trees.Tree` in the units of ``X``.
"""

from __future__ import annotations


import numpy as np

from ...budget import remaining
from ...trees import LEAF, LeafModel, Tree
from ...forked import call_forked

__all__ = ["candidate_thresholds", "binarize", "fit_streed", "to_tree"]


def candidate_thresholds(X, n_thresholds=None) -> list[np.ndarray]:
    """Per feature, the midpoints between consecutive distinct values of ``X`` (all of them with
    ``n_thresholds=None``, else at most that many, evenly spread over the midpoints' ranks).

    >>> [t.tolist() for t in candidate_thresholds(np.array([[0.0, 5.0], [1.0, 5.0], [3.0, 5.0]]))]
    [[0.5, 2.0], []]
    """
    out = []
    for column in np.asarray(X, float).T:
        values = np.unique(column)
        mid = (values[:-1] + values[1:]) / 2.0
        if n_thresholds is not None and len(mid) > n_thresholds:
            mid = mid[np.unique(np.round(np.linspace(0, len(mid) - 1, n_thresholds)).astype(int))]
        out.append(mid)
    return out


def _split_index(thresholds):
    """``(feature, threshold)`` of every candidate split, feature by feature."""
    feature = np.concatenate([np.full(len(t), j) for j, t in enumerate(thresholds)]).astype(np.int64)
    return feature, (np.concatenate(thresholds) if thresholds else np.zeros(0))


def binarize(X, thresholds):
    """``(B, feature, threshold)``: ``B[:, k] = X[:, feature[k]] <= threshold[k]`` as 0/1 integers."""
    feature, threshold = _split_index(thresholds)
    return (np.asarray(X, float)[:, feature] <= threshold).astype(np.intc), feature, threshold


def fit_streed(X, y, max_depth: int, n_thresholds=None, min_samples_leaf: int = 1, cost_complexity: float = 0.0,
               deadline=None, linear_leaves: bool = False, lasso_penalty: float = 0.0):
    """STreeD's optimal regression tree of ``max_depth`` over the candidate splits: ``(tree, proven)``, or
    ``(None, False)`` when ``deadline`` (a ``time.perf_counter()`` value) passes first. STreeD searches in a
    forked child (:func:`~optitrees.forked.call_forked`) that is stopped at the deadline: its own
    time limit (set to the time left) is not kept exactly. ``linear_leaves``: leaves ``w x + b`` fitted with
    the l1 penalty ``lasso_penalty``. ``(None, False)`` also when STreeD finds no feasible tree."""
    X = np.asarray(X, float)
    thresholds = candidate_thresholds(X, n_thresholds)
    feature, threshold = _split_index(thresholds)
    if feature.size == 0 and not linear_leaves:
        mean = float(np.mean(y))
        return Tree([LEAF], [LEAF], np.zeros((1, X.shape[1])), [0.0], intercept=[mean],
                    value=[[len(y)]], leaf_model=LeafModel.VALUE), True
    time_limit = 600.0 if deadline is None else max(0.05, remaining(deadline))
    # the binary matrix (rows x candidate splits) is built in the child too: it is the search's first cost
    done, result = call_forked(_search, (X, feature, threshold, np.asarray(y, float), max_depth, min_samples_leaf,
                                         cost_complexity, time_limit, linear_leaves, lasso_penalty),
                               deadline, name="optitrees-streed")
    if not done:
        return None, False
    (root_tree, proven) = result
    if root_tree is None:                   # STreeD found no feasible tree (it happens with large penalties)
        return None, False
    return to_tree(root_tree, feature, threshold, np.asarray(X).shape[1], _standard(X) if linear_leaves else None), \
        proven


def _standard(X):
    """``(mean, scale)`` of each column (scale 1 for a constant one): the units STreeD's linear leaves fit in."""
    mean, scale = X.mean(axis=0), X.std(axis=0)
    return mean, np.where(scale > 0, scale, 1.0)


def _search(X, feature, threshold, y, max_depth, min_samples_leaf, cost_complexity, time_limit,
            linear_leaves=False, lasso_penalty=0.0):
    """STreeD on the binary features ``x_feature <= threshold``: its tree as nested tuples (picklable) and
    whether it is proven. A leaf is its value, or ``(intercept, coefficients)`` with linear leaves (fitted on
    the columns of ``X``, given to STreeD as its continuous data: they are not split on)."""
    import pandas as pd
    from pystreed import STreeDPiecewiseLinearRegressor, STreeDRegressor

    B = (X[:, feature] <= threshold).astype(np.intc)
    if feature.size == 0:                   # no split to make: one column that never splits the rows
        B = np.ones((len(y), 1), np.intc)
    if linear_leaves:
        model = STreeDPiecewiseLinearRegressor(max_depth=max_depth, min_leaf_node_size=min_samples_leaf,
                                               cost_complexity=cost_complexity, time_limit=time_limit,
                                               lasso_penalty=lasso_penalty)
        mean, scale = _standard(X)
        model.fit(pd.DataFrame(B), y, continuous_columns=(X - mean) / scale)
    else:
        model = STreeDRegressor(max_depth=max_depth, min_leaf_node_size=min_samples_leaf,
                                cost_complexity=cost_complexity, time_limit=time_limit)
        model.fit(pd.DataFrame(B), y)

    def nested(node):
        if node.is_branching_node():
            return (int(node.feature), nested(node.left_child), nested(node.right_child))
        if linear_leaves:
            return (float(node.label.intercept), [float(c) for c in node.label.coefficients])
        return float(node.label)

    if getattr(model, "tree_", None) is None:
        return None, False
    return nested(model.get_tree()), bool(model.fit_result.is_optimal())


def to_tree(root, feature, threshold, n_features: int, standard=None) -> Tree:
    """A STreeD tree over :func:`binarize`'s features as a :class:`Tree`. ``root`` is nested tuples
    ``(k, not_satisfied, satisfied)`` with a leaf at the bottom: its value, or ``(intercept, coefficients)``
    (linear leaves, fitted on ``(x - mean) / scale`` with ``standard = (mean, scale)``: written back as
    ``w = c / scale``, ``b = intercept - sum(c mean / scale)``); binary feature ``k`` satisfied, i.e. ``x_j <= c``,
    is STreeD's right child and our left one."""
    left, right, weights, thr, value = [], [], [], [], []
    linear = []

    def visit(node):
        t = len(left)
        left.append(LEAF)
        right.append(LEAF)
        row = np.zeros(n_features)
        if isinstance(node, tuple) and len(node) == 3:
            k, not_satisfied, satisfied = node
            row[feature[k]] = 1.0
            weights.append(row)
            thr.append(float(threshold[k]))
            value.append(0.0)
            left[t] = visit(satisfied)
            right[t] = visit(not_satisfied)
        else:
            if isinstance(node, tuple):                  # a linear leaf: (intercept, coefficients)
                linear.append(True)
                mean, scale = standard if standard is not None else (np.zeros(n_features), np.ones(n_features))
                row = np.asarray(node[1], float) / scale
                node = node[0] - float(row @ mean)
            weights.append(row)
            thr.append(0.0)
            value.append(float(node))
        return t

    visit(root)
    return Tree(left, right, np.array(weights), thr, intercept=value,
                leaf_model=LeafModel.LINEAR_VALUE if linear else LeafModel.VALUE)
