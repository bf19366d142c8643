"""Pruning a grown regression tree by seed 003's Student t-test rule.

A split whose two children are leaves is kept only when their target values
differ significantly: with ``N``, ``ybar`` and ``s^2`` a leaf's (weighted) size,
mean and variance (``s^2 = sum v (y - ybar)^2 / (N - 1)``, ``v`` the rows'
weights), Welch's statistic

    t = (ybar_A - ybar_B) / sqrt(s_A^2 / N_A + s_B^2 / N_B)

gives the p-value ``P(Z > |t|)``, ``Z`` standard normal, as the seed writes it.
When the p-value exceeds the threshold (0.05), the two leaves merge into their
parent; pruning goes bottom-up, so a parent whose children both became leaves
is tested next. A leaf of at most one row (weight <= 1) has no variance
estimate (``N - 1 = 0``): the test cannot show a difference, its p-value is
taken as 1, and the leaf merges with its sibling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ...trees import LEAF, Tree

__all__ = ["NodeStatistics", "welch_p_value", "t_test_prune", "node_statistics", "keep_subtree"]


@dataclass(frozen=True)
class NodeStatistics:
    """Per node: the training weight ``n``, the target's weighted mean and its variance ``s^2`` (``N - 1``
    in the denominator)."""

    n: np.ndarray
    mean: np.ndarray
    variance: np.ndarray


def node_statistics(sklearn_tree) -> NodeStatistics:
    """The statistics of every node of a fitted scikit-learn regression tree (``estimator.tree_``): its
    squared-error impurity is the weighted variance with ``N`` in the denominator."""
    n = np.asarray(sklearn_tree.weighted_n_node_samples, float)
    mean = np.asarray(sklearn_tree.value[:, 0, 0], float)
    spread = np.asarray(sklearn_tree.impurity, float) * n                   # sum v (y - ybar)^2
    variance = np.divide(spread, n - 1.0, out=np.zeros_like(n), where=n > 1.0)
    return NodeStatistics(n, mean, variance)


def welch_p_value(mean_a, var_a, n_a, mean_b, var_b, n_b) -> np.ndarray:
    """``P(Z > |t|)`` for Welch's ``t`` of two groups (seed 003's t-test rule); 0 when the groups have no
    spread and different means, 0.5 when their means are equal and there is no spread, 1 when a group has
    weight <= 1 (no variance estimate).

    >>> float(welch_p_value(1.0, 1.0, 10, 0.0, 1.0, 10))      # t = 1 / sqrt(0.2) = 2.236
    0.012673659338734126
    """
    mean_a, mean_b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    se2 = np.asarray(var_a, float) / np.asarray(n_a, float) + np.asarray(var_b, float) / np.asarray(n_b, float)
    diff = np.abs(mean_a - mean_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se2 > 0, diff / np.sqrt(np.where(se2 > 0, se2, 1.0)), np.where(diff > 0, np.inf, 0.0))
    return np.where((np.asarray(n_a, float) <= 1) | (np.asarray(n_b, float) <= 1), 1.0, ndtr(-t))


def t_test_prune(children_left, children_right, stats: NodeStatistics, threshold: float):
    """Which nodes stay inner nodes after t-test pruning, and the p-value of every split tested.

    ``children_left`` / ``children_right``: the grown tree's arrays (``LEAF`` at leaves; children have larger
    ids than their parent, as in scikit-learn's trees).

    Returns
    -------
    inner : ndarray of bool
        ``True`` for the splits that are kept.
    p_values : dict
        ``node -> p-value`` of every split whose two children were leaves when it was tested.
    """
    left, right = np.asarray(children_left), np.asarray(children_right)
    inner = left != LEAF
    p_values = {}
    for t in np.flatnonzero(inner)[::-1]:                # children before parents
        a, b = left[t], right[t]
        if inner[a] or inner[b]:
            continue
        p = float(welch_p_value(stats.mean[a], stats.variance[a], stats.n[a],
                                stats.mean[b], stats.variance[b], stats.n[b]))
        p_values[int(t)] = p
        if p > threshold:
            inner[t] = False
    return inner, p_values


def keep_subtree(tree: Tree, inner) -> Tree:
    """``tree`` with only the splits marked in ``inner`` (a node not marked becomes a leaf, its subtree
    dropped); nodes renumbered in depth-first order."""
    order, stack = [], [0]
    while stack:
        t = stack.pop()
        order.append(t)
        if inner[t]:
            stack.extend([tree.children_right[t], tree.children_left[t]])
    new_id = {t: k for k, t in enumerate(order)}
    left = np.array([new_id[tree.children_left[t]] if inner[t] else LEAF for t in order], np.int64)
    right = np.array([new_id[tree.children_right[t]] if inner[t] else LEAF for t in order], np.int64)
    weights = tree.weights[order].copy()
    weights[left == LEAF] = 0.0
    threshold = np.where(left == LEAF, 0.0, tree.threshold[order])
    return Tree(left, right, weights, threshold, intercept=tree.intercept[order], value=tree.value[order],
                label=tree.label[order], leaf_model=tree.leaf_model)
