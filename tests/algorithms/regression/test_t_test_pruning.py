"""Seed 003's t-test rule: p-values by hand, and which splits are kept or merged."""

import numpy as np
import pytest
from scipy.stats import norm, ttest_ind

from optitrees.algorithms.regression.t_test_pruning import NodeStatistics, keep_subtree, t_test_prune, welch_p_value
from optitrees.trees import LEAF, LeafModel, Tree


def test_p_value_by_hand():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 6.0])
    # means 2 and 5, variances (N - 1 in the denominator) 1 and 2: t = 3 / sqrt(1/3 + 2/2) = 2.598
    t = 3.0 / np.sqrt(1.0 / 3.0 + 2.0 / 2.0)
    assert abs(ttest_ind(a, b, equal_var=False).statistic) == pytest.approx(t)        # Welch's statistic
    p = welch_p_value(a.mean(), a.var(ddof=1), 3, b.mean(), b.var(ddof=1), 2)
    assert p == pytest.approx(norm.sf(t)) == pytest.approx(0.004687, abs=1e-6)        # P(Z > |t|)
    assert welch_p_value(1.0, 0.0, 3, 1.0, 0.0, 4) == 0.5            # equal means, no spread
    assert welch_p_value(1.0, 0.0, 3, 2.0, 0.0, 4) == 0.0            # different means, no spread
    assert welch_p_value(1.0, 0.0, 1, 5.0, 1.0, 4) == 1.0            # one row: no variance estimate


def stump_stats(mean_left, mean_right, var=1.0, n=10):
    return NodeStatistics(n=np.array([2.0 * n, n, n]), mean=np.array([(mean_left + mean_right) / 2, mean_left,
                                                                       mean_right]),
                          variance=np.array([var, var, var]))


def test_a_split_is_kept_or_merged_as_the_rule_says():
    left, right = np.array([1, LEAF, LEAF]), np.array([2, LEAF, LEAF])
    # t = 1 / sqrt(0.1 + 0.1) = 2.236: p = 0.0127, kept at 0.05, merged at 0.01
    inner, p = t_test_prune(left, right, stump_stats(0.0, 1.0), threshold=0.05)
    assert inner.tolist() == [True, False, False] and p[0] == pytest.approx(norm.sf(np.sqrt(5.0)))
    inner, _ = t_test_prune(left, right, stump_stats(0.0, 1.0), threshold=0.01)
    assert inner.tolist() == [False, False, False]


def test_pruning_goes_bottom_up():
    # root 0 -> (1, 2); 1 -> (3, 4). Leaves 3 and 4 alike: merged; then 1 (now a leaf) and 2 differ: kept
    left, right = np.array([1, 3, LEAF, LEAF, LEAF]), np.array([2, 4, LEAF, LEAF, LEAF])
    stats = NodeStatistics(n=np.array([30.0, 20, 10, 10, 10]), mean=np.array([1.0, 0.0, 3.0, 0.0, 0.01]),
                           variance=np.ones(5))
    inner, p = t_test_prune(left, right, stats, threshold=0.05)
    assert inner.tolist() == [True, False, False, False, False] and set(p) == {0, 1}
    tree = Tree(left, right, weights=[[1.0], [1.0], [0], [0], [0]], threshold=[0.5, 0.2, 0, 0, 0],
                intercept=stats.mean, value=stats.n[:, None], leaf_model=LeafModel.VALUE)
    pruned = keep_subtree(tree, inner)
    assert pruned.n_nodes == 3 and pruned.predict(np.array([[0.0], [0.3], [1.0]])).tolist() == [0.0, 0.0, 3.0]
