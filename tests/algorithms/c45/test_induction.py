"""C4.5 growth: fractional instances for missing values and soft training propagation (seed 000, 2.2.4, 3.2.2)."""

import numpy as np
import pytest
from scipy.stats import norm

from optitrees.algorithms.c45 import induction
from optitrees.algorithms.c45.induction import grow_c45, hard_leaf_counts, leaf_counts, to_tree


def test_a_missing_value_goes_down_both_branches_with_the_known_shares():
    X = np.array([[0.0], [0], [0], [1], [1], [np.nan]])
    Y = np.eye(2)[[0, 0, 0, 1, 1, 1]]
    root = grow_c45(X, Y, allowed=np.ones(1, bool), min_samples_leaf=1)
    assert (root.feature, root.threshold) == (0, 0.0)
    left, right = root.left, root.right
    assert dict(zip(left.rows, left.weights))[5] == pytest.approx(3 / 5)
    assert dict(zip(right.rows, right.weights))[5] == pytest.approx(2 / 5)
    assert left.counts == pytest.approx([3, 0.6]) and right.counts == pytest.approx([0, 2.4])
    tree = to_tree(root, 1)
    assert tree.value[1:].sum() == pytest.approx(6)


def test_soft_training_propagation_weights_rows_by_the_gaussian_gate():
    rng = np.random.default_rng(1)
    x = rng.normal(size=60)
    X, Y = x[:, None], np.eye(2)[(x > 0.1).astype(int)]
    sigma = np.array([0.5])
    root = grow_c45(X, Y, allowed=np.ones(1, bool), max_depth=1, propagation_sigma=sigma)
    tau = root.threshold
    left = dict(zip(root.left.rows, root.left.weights))
    right = dict(zip(root.right.rows, root.right.weights))
    for i in range(60):
        g = norm.cdf((tau - x[i]) / 0.5)
        assert left.get(i, 0.0) == pytest.approx(g, abs=1e-6)
        assert right.get(i, 0.0) == pytest.approx(1 - g, abs=1e-6)


def test_growth_stops_at_pure_nodes_and_small_nodes():
    X = np.arange(10, dtype=float)[:, None]
    Y = np.eye(2)[[0] * 5 + [1] * 5]
    tree = to_tree(grow_c45(X, Y, allowed=np.ones(1, bool)), 1)
    assert tree.n_leaves == 2 and tree.threshold[0] == 4.0          # x <= 4 left: the largest left value
    assert tree.value[tree.is_leaf].tolist() == [[5, 0], [0, 5]]
    small = to_tree(grow_c45(X[:3], Y[[0, 0, 5]], allowed=np.ones(1, bool)), 1)
    assert small.n_leaves == 1                                       # weight 3 < 2 * min_samples_leaf


def test_a_soft_threshold_that_splits_no_row_ends_the_branch():
    """A wide noise model can put the soft-search threshold beyond every row: the node stays a leaf."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(50, 5, 40), [400.0, 410]][:, None]
    Y = np.eye(2)[np.r_[rng.integers(0, 2, 40), [1, 1]]]
    root = grow_c45(X, Y, allowed=np.ones(1, bool), search_sigma=np.array([60.0]))
    assert all(leaf.weights.sum() > 0 for leaf in root.leaves())


def test_growth_stops_at_its_deadline_and_splits_breadth_first(monkeypatch):
    import time

    from optitrees.algorithms.c45 import induction as c45

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    Y = np.eye(2)[(X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)]
    allowed = np.ones(4, bool)
    assert grow_c45(X, Y, allowed=allowed, deadline=time.perf_counter() - 1.0).is_leaf
    full = to_tree(grow_c45(X, Y, allowed=allowed), 4)
    checks = iter([False] * 2 + [True] * 1000)             # the deadline passes after two levels are split
    monkeypatch.setattr(c45, "expired", lambda deadline: next(checks))
    cut = to_tree(grow_c45(X, Y, allowed=allowed, deadline=1.0), 4)
    assert full.max_depth > 2 and cut.max_depth == 2      # depth first would have gone down to depth 3
    splits = {(int(f), float(t)) for f, t in zip(full.feature[~full.is_leaf], full.threshold[~full.is_leaf])}
    assert {(int(f), float(t)) for f, t in zip(cut.feature[~cut.is_leaf], cut.threshold[~cut.is_leaf])} <= splits


@pytest.mark.parametrize("soft_propagation", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_growing_by_levels_equals_growing_node_by_node(seed, soft_propagation):
    """The level-wise hard search and the node-by-node search (used for soft and nominal tests) grow the same
    tree, missing values, weights and soft training propagation (eq. 3.9) included."""
    from optitrees.algorithms.c45.induction import _grow_nodes, GrowNode

    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=150).round(1), rng.integers(0, 2, 150), rng.integers(0, 6, 150)]).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + X[:, 1] > 0.5) ^ (rng.random(150) < 0.2)).astype(int)
    Y, w = np.eye(2)[y], rng.uniform(0.5, 2.0, 150)
    allowed = np.ones(3, bool)
    sigma = np.array([0.2, 0.0, 0.5]) if soft_propagation else None
    levels = to_tree(grow_c45(X, Y, allowed=allowed, weights=w, propagation_sigma=sigma), 3)
    root = GrowNode(np.arange(150), w, Y.T @ w)
    _grow_nodes(X, Y, root, allowed, 2, None, "gain_ratio", None, sigma, 6.0, 0.1, None, None)
    nodes = to_tree(root, 3)
    assert levels.n_nodes == nodes.n_nodes and levels.n_nodes > 5
    assert np.array_equal(levels.feature, nodes.feature) and np.allclose(levels.threshold, nodes.threshold)
    assert np.allclose(levels.value, nodes.value)


def test_hard_leaf_counts_equal_the_general_routing_without_missing_values():
    """Rows with fractional weights routed through a grown subtree by plain partitions reach the leaves with the
    class weights of :func:`leaf_counts` (the general gate), an empty branch giving zeros to its leaves."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 5, 400), rng.normal(size=400)]).astype(float)
    y = ((X[:, 0] > 1) ^ (X[:, 1] > 0.2) ^ (rng.random(400) < 0.1)).astype(int)
    Y = np.eye(2)[y]
    root = grow_c45(X, Y, allowed=np.ones(2, bool))
    assert root.n_leaves() > 4
    for node in (root, root.left, root.right):
        rows = np.sort(rng.choice(400, 90, replace=False))
        weights = rng.uniform(0.1, 2.0, 90)
        got = hard_leaf_counts(X, y, 2, node, rows, weights)
        want = leaf_counts(X, Y, node, rows, weights)
        assert len(got) == node.n_leaves() == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    empty = hard_leaf_counts(X, y, 2, root, np.zeros(0, int), np.zeros(0))
    assert len(empty) == root.n_leaves() and all(np.array_equal(c, np.zeros(2)) for c in empty)


def test_a_growth_uses_the_compiled_scan_only_when_asked(monkeypatch):
    """``grow_c45`` (UCT-DT's completions: many growths under the search's own deadline) keeps the numpy path
    unless told; ``compiled_scan=None`` asks :func:`compiled_scan_pays`."""
    asked = []
    monkeypatch.setattr(induction, "compiled_scan_pays", lambda n, deadline: asked.append(n) or False)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    Y = np.eye(2)[(X[:, 0] > 0).astype(int)]
    grow_c45(X, Y, allowed=np.ones(X.shape[1], bool))
    assert asked == []
    grow_c45(X, Y, allowed=np.ones(X.shape[1], bool), compiled_scan=None)
    assert asked == [50]
