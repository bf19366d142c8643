"""The monotonicity checker against brute force on grids that hit every region, the relabelling's optimum against
enumeration, score cards and linear leaves by hand, and bad constraints named."""

import itertools

import numpy as np
import pytest

from optitrees.monotonicity import check_monotonic, monotone_leaf_labels, monotone_relabel, monotonic_signs
from optitrees.scorecard import ScoreCard
from optitrees.trees import Tree


def _random_axis_tree(rng, depth=3, p=3, levels=5):
    """A complete axis-aligned tree with integer thresholds in 0..levels-1 and random 0/1 labels."""
    n_nodes = 2 ** (depth + 1) - 1
    left = np.array([2 * t + 1 if 2 * t + 1 < n_nodes else -1 for t in range(n_nodes)])
    right = np.where(left >= 0, left + 1, -1)
    weights = np.zeros((n_nodes, p))
    threshold = np.zeros(n_nodes)
    inner = np.flatnonzero(left >= 0)
    weights[inner, rng.integers(0, p, len(inner))] = 1.0
    threshold[inner] = rng.integers(0, levels, len(inner)) + 0.5
    label = rng.integers(0, 2, n_nodes)
    return Tree(children_left=left, children_right=right, weights=weights, threshold=threshold,
                value=np.ones((n_nodes, 2)), label=label)


def _brute_keeps(tree, signs, levels=5):
    """Monotone along every constrained feature on the grid 0..levels of every feature (each cell of every
    threshold reached)."""
    p = tree.n_features
    grid = np.array(list(itertools.product(range(levels + 1), repeat=p)), float)
    pred = tree.predict(grid).reshape((levels + 1,) * p)
    return all(np.all(signs[j] * np.diff(pred, axis=j) >= 0) for j in np.flatnonzero(signs))


@pytest.mark.parametrize("seed", range(40))
def test_the_regions_check_is_exact(seed):
    rng = np.random.default_rng(seed)
    tree = _random_axis_tree(rng)
    signs = rng.choice([-1, 0, 1], size=3)
    if not signs.any():
        signs[0] = 1
    check = check_monotonic(tree, signs)
    assert check.exact and check.method == "regions"
    assert check.keeps == _brute_keeps(tree, signs)


@pytest.mark.parametrize("seed", range(12))
def test_the_monotone_relabelling_is_the_best_monotone_labelling(seed):
    rng = np.random.default_rng(100 + seed)
    tree = _random_axis_tree(rng, depth=2)
    X = rng.integers(0, 6, size=(60, 3)).astype(float)
    y = rng.integers(0, 2, 60)
    w = rng.uniform(0.5, 2.0, 60)
    signs = np.array([1, -1, 0])
    labels = monotone_leaf_labels(tree, signs, X, y, w)
    leaves = np.flatnonzero(tree.is_leaf)
    best = np.inf
    for combo in itertools.product((0, 1), repeat=len(leaves)):
        candidate = tree.label.copy()
        candidate[leaves] = combo
        t = Tree(tree.children_left, tree.children_right, tree.weights, tree.threshold, value=tree.value,
                 label=candidate)
        if check_monotonic(t, signs).keeps:
            best = min(best, w @ (t.predict(X) != y))
    fixed = monotone_relabel(tree, signs, X, y, w)
    assert check_monotonic(fixed, signs).keeps
    assert np.array_equal(fixed.label[leaves], labels)
    assert w @ (fixed.predict(X) != y) == pytest.approx(best)


def _random_oblique_tree(rng, depth=2, p=3):
    n_nodes = 2 ** (depth + 1) - 1
    left = np.array([2 * t + 1 if 2 * t + 1 < n_nodes else -1 for t in range(n_nodes)])
    right = np.where(left >= 0, left + 1, -1)
    inner = left >= 0
    weights = np.where(inner[:, None], rng.normal(size=(n_nodes, p)) * (rng.random((n_nodes, p)) < 0.7), 0.0)
    threshold = np.where(inner, rng.normal(size=n_nodes), 0.0)
    return Tree(children_left=left, children_right=right, weights=weights, threshold=threshold,
                value=np.ones((n_nodes, 2)), label=rng.integers(0, 2, n_nodes))


@pytest.mark.parametrize("seed", range(30))
def test_an_oblique_tree_whose_splits_order_their_subtrees_is_proved_monotone(seed):
    """The hierarchy proof holds on every relabelled tree (a dense search along the constrained features finds no
    violation), and where a random labelling breaks the order the checker claims no proof."""
    rng = np.random.default_rng(200 + seed)
    tree = _random_oblique_tree(rng)
    signs = np.array([1, -1, 0])
    X = rng.normal(size=(300, 3)) * 2
    fixed = monotone_relabel(tree, signs, X, (X[:, 0] - X[:, 1] + rng.normal(size=300) > 0).astype(int))
    check = check_monotonic(fixed, signs, X)
    assert check.proven and check.method == "hierarchy"
    for j in (0, 1):
        grid = np.repeat(X[:60], 81, axis=0)
        grid[:, j] = np.tile(np.linspace(-8, 8, 81), 60)
        assert (signs[j] * np.diff(fixed.predict(grid).reshape(60, 81), axis=1) >= 0).all()
    raw = check_monotonic(tree, signs, X)
    assert raw.method in ("hierarchy", "search") and (raw.method == "hierarchy") == raw.proven


def test_score_cards_by_the_signs_of_their_rules():
    card = ScoreCard(features=[0, 1, 2], thresholds=[0.5, 2.0, 1.0], greater=[True, False, True],
                     points=[2, 3, -1], intercept=0.0)
    # x0 >= 0.5 adds 2 (rises with x0); x1 < 2 adds 3 (falls as x1 rises); x2 >= 1 takes 1 (falls with x2)
    assert check_monotonic(card, [1, -1, -1]).proven
    found = check_monotonic(card, [1, 1, 0])
    assert found.exact and not found.keeps and found.violations == [{"feature": 1, "rule": 1}]


def _linear_tree(split_weights, leaf_weights):
    weights = np.array([split_weights, leaf_weights[0], leaf_weights[1]], float)
    return Tree(children_left=[1, -1, -1], children_right=[2, -1, -1], weights=weights, threshold=[0.0, 0, 0],
                intercept=[0.0, -0.5, 0.5], leaf_model="linear", probabilistic=True)


def test_linear_leaves_proved_by_signs_or_searched():
    proved = check_monotonic(_linear_tree([0, 1.0], [[2.0, 0.3], [0.5, -1.0]]), [1, 0])
    assert proved.proven and proved.method == "signs"
    wrong = check_monotonic(_linear_tree([0, 1.0], [[2.0, 0.3], [-0.5, -1.0]]), [1, 0])
    assert wrong.exact and not wrong.keeps
    X = np.random.default_rng(0).normal(size=(200, 2))
    # the split reads x0: a point crossing it jumps from the right leaf's score to the left's
    searched = check_monotonic(_linear_tree([1.0, 0], [[0.1, 0.0], [0.1, 0.0]]), [-1, 0], X)
    assert not searched.exact and not searched.keeps
    low, high = searched.violations[0]["lower"], searched.violations[0]["upper"]
    tree = _linear_tree([1.0, 0], [[0.1, 0.0], [0.1, 0.0]])
    assert high[0] > low[0] and tree.leaf_scores(high[None])[0] > tree.leaf_scores(low[None])[0]
    with pytest.raises(ValueError, match="give rows X"):
        check_monotonic(tree, [1, 0])


@pytest.mark.parametrize("cst,message", [([1, 2, 0], "must be -1, 0 or 1"), ([1, 0], "one sign per feature"),
                                          ({"z": 1}, "do not have"), ([True, 0, 0], "must be -1, 0 or 1")])
def test_bad_constraints_are_named(cst, message):
    with pytest.raises(ValueError, match=message):
        monotonic_signs(cst, ["a", "b", "c"])


def test_signs_by_name_and_none():
    assert monotonic_signs({"b": -1}, ["a", "b", "c"]).tolist() == [0, -1, 0]
    assert monotonic_signs([0, 0, 0], ["a", "b", "c"]) is None and monotonic_signs(None, ["a"]) is None
