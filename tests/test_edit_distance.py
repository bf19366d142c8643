"""Decision-tree edit distance (seed 000, ch. 5): sorting, the A/B costs, APTED against a brute-force recursion."""

from functools import lru_cache

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from optitrees import C45Classifier, Tree
from optitrees.edit_distance import (_DecisionTreeCosts, edit_distance_matrix, sorted_nodes, tree_edit_distance,
                                     tree_statistics)


def _stump(feature, threshold, left_counts, right_counts, n_features=3):
    w = np.zeros((3, n_features))
    w[0, feature] = 1.0
    value = np.array([np.add(left_counts, right_counts), left_counts, right_counts], float)
    return Tree([1, -1, -1], [2, -1, -1], w, [threshold, 0, 0], value=value, label=value.argmax(axis=1))


@pytest.fixture(scope="module")
def stats():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 1))
    X = np.hstack([z, z + 0.3 * rng.normal(size=(200, 1)), rng.normal(size=(200, 1))])  # x0, x1 correlated
    y = np.r_[np.zeros(120, int), np.ones(80, int)]
    return tree_statistics(X, y, correlation="pearson")


def test_substitution_costs_are_eqs_5_2_to_5_5(stats):
    a = _stump(0, 0.0, [5, 1], [1, 5])
    rho = stats.correlation[0, 1]
    other_feature = _stump(1, 0.0, [5, 1], [1, 5])
    assert 0.5 < rho < 1
    for cost, want in (("A1", 2.0), ("A2", 2.0 - rho), ("B1", 1.0), ("B2", 1.0 - rho)):
        assert tree_edit_distance(a, other_feature, stats, cost=cost) == pytest.approx(want)
    shifted = _stump(0, 0.25, [5, 1], [1, 5])
    gap = 0.25 / stats.iqr[0]
    assert tree_edit_distance(a, shifted, stats, cost="B1") == pytest.approx(min(1, gap))
    assert tree_edit_distance(a, shifted, stats, cost="A1") == pytest.approx(1 + min(1, gap))
    far = _stump(0, 50.0, [5, 1], [1, 5])
    assert tree_edit_distance(a, far, stats, cost="B1") == pytest.approx(1.0)
    assert tree_edit_distance(a, a, stats, cost="A1") == 0.0


def test_sorting_puts_the_child_richest_in_the_top_class_on_the_left(stats):
    """Class 0 is the most prevalent (120 of 200): both stumps sort to the same ordered tree."""
    a = _stump(0, 0.0, [5, 1], [1, 5])
    mirrored = _stump(0, 0.0, [1, 5], [5, 1])
    root = sorted_nodes(mirrored, stats)
    assert root.flipped and [c.label for c in root.children] == [0, 1]
    assert tree_edit_distance(a, mirrored, stats, cost="A1") == 0.0
    tie = _stump(0, 0.0, [3, 1], [3, 5])                             # equal share of class 0: class 1 goes right
    assert [c.label for c in sorted_nodes(tie, stats).children] == [0, 1]


def _brute_force(a, b, config):
    """Ordered tree edit distance by the textbook forest recursion on the rightmost roots."""
    nodes_a, nodes_b = [], []

    def index(node, out):
        out.append(node)
        me = len(out) - 1
        kids = tuple(index(c, out) for c in node.children)
        out[me] = (node, kids)
        return me

    index(a, nodes_a)
    index(b, nodes_b)

    def remove_root(forest, nodes):
        *rest, v = forest
        return tuple(rest) + nodes[v][1]

    @lru_cache(maxsize=None)
    def d(f, g):
        if not f and not g:
            return 0.0
        if not f:
            return config.insert(None) + d(f, remove_root(g, nodes_b))
        if not g:
            return config.delete(None) + d(remove_root(f, nodes_a), g)
        v, w = f[-1], g[-1]
        return min(config.delete(None) + d(remove_root(f, nodes_a), g),
                   config.insert(None) + d(f, remove_root(g, nodes_b)),
                   config.rename(nodes_a[v][0], nodes_b[w][0]) + d(nodes_a[v][1], nodes_b[w][1]) + d(f[:-1], g[:-1]))

    return d((0,), (0,))


@pytest.mark.parametrize("cost", ["A1", "A2", "B1", "B2"])
def test_apted_equals_the_brute_force_recursion_on_bootstrap_trees(cost):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6]
    stats = tree_statistics(X, y, correlation="spearman")
    rng = np.random.default_rng(1)
    trees = []
    for k in range(4):
        rows = rng.integers(0, len(y), len(y))
        trees.append(DecisionTreeClassifier(max_depth=2 + k % 2, random_state=k).fit(X[rows], y[rows]))
    config = _DecisionTreeCosts(cost, stats)
    D = edit_distance_matrix(trees, stats, cost=cost)
    for i in range(4):
        for j in range(i + 1, 4):
            want = _brute_force(sorted_nodes(trees[i], stats), sorted_nodes(trees[j], stats), config)
            assert D[i, j] == pytest.approx(want) and D[j, i] == D[i, j]
    assert np.all(np.diag(D) == 0)


def test_library_and_sklearn_trees_mix_and_bad_input_is_named(stats):
    X, y = load_breast_cancer(return_X_y=True)
    s = tree_statistics(X, y)
    ours = C45Classifier(max_depth=2).fit(X, y)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    d = tree_edit_distance(ours, cart, s, cost="B2", normalize=True)
    assert 0 <= d <= 1
    with pytest.raises(ValueError, match="cost must be one of"):
        tree_edit_distance(ours, cart, s, cost="C")
    with pytest.raises(ValueError, match="needs feature correlations"):
        tree_edit_distance(ours, cart, tree_statistics(X, y, correlation=None), cost="A2")
    with pytest.raises(TypeError, match="fitted tree estimator"):
        tree_edit_distance(ours, "tree", s)


def test_string_labels_fewer_statistics_and_deep_trees():
    X, y = load_breast_cancer(return_X_y=True)
    names = np.where(y == 1, "benign", "malignant")
    t1 = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, names)
    t2 = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, names)
    # string labels rank the classes as the trees index them (sorted): the same statistics as their indices
    by_name, by_index = tree_statistics(X, names), tree_statistics(X, (names == "malignant").astype(int))
    assert by_name.class_rank.tolist() == by_index.class_rank.tolist()
    assert tree_edit_distance(t1, t2, by_name) == tree_edit_distance(t1, t2, by_index)
    with pytest.raises(ValueError, match="30 features and the statistics 5"):
        tree_edit_distance(t1, t2, tree_statistics(X[:, :5], names))
    # a chain deeper than the recursion limit allows for (an unpruned tree of depth 999 raised RecursionError
    # with Python's default limit; here a 150-level chain under a limit of 75 frames above this test's own stack,
    # so a comparison that recursed once per level without raising the limit would fail, and quicker to compare)
    import sys

    depth = 150
    n = 2 * depth + 1
    inner = np.arange(depth) * 2                   # node 2k splits: left 2k + 2 (the chain), right 2k + 1 (a leaf)
    left, right = np.full(n, -1), np.full(n, -1)
    left[inner], right[inner] = inner + 2, inner + 1
    W = np.zeros((n, 2))
    W[inner, 0] = 1.0
    deep = Tree(left, right, W, np.where(np.arange(n) % 2 == 0, -np.arange(n) / n, 0.0), value=np.ones((n, 2)),
                label=np.arange(n) % 2)
    assert deep.max_depth == depth
    stats = tree_statistics(np.random.default_rng(0).normal(size=(50, 2)), np.arange(50) % 2)
    limit = sys.getrecursionlimit()
    frame, stack = sys._getframe(), 0
    while frame is not None:
        frame, stack = frame.f_back, stack + 1
    low = stack + depth // 2
    sys.setrecursionlimit(low)
    try:
        assert tree_edit_distance(deep, deep, stats, cost="B1") == 0.0
        assert edit_distance_matrix([deep, deep], stats, cost="B1").tolist() == [[0.0, 0.0], [0.0, 0.0]]
        assert sys.getrecursionlimit() == low                   # restored after each comparison
    finally:
        sys.setrecursionlimit(limit)
