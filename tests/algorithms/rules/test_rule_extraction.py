"""Rules read from forest trees are exactly the trees' root-to-leaf paths (seed 004, II-A/II-B)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

from optitrees.algorithms.rules.rule_extraction import forest_rules, rule_matrix, tree_rules
from optitrees.trees import Tree, from_sklearn


def _leaves_left_to_right(tree, node=0):
    if tree.is_leaf[node]:
        return [node]
    return _leaves_left_to_right(tree, tree.children_left[node]) + _leaves_left_to_right(tree, tree.children_right[node])


@pytest.fixture(scope="module")
def forest():
    X, y = load_breast_cancer(return_X_y=True)
    return X, RandomForestClassifier(8, max_depth=3, random_state=0).fit(X, y)


def test_each_rule_fires_exactly_on_its_leaf_and_predicts_the_tree(forest):
    X, rf = forest
    for est in rf.estimators_:
        tree = from_sklearn(est)
        rules = tree_rules(tree)
        leaves = _leaves_left_to_right(tree)
        assert len(rules) == len(leaves)
        reached = tree.apply(X)
        for leaf, rule in zip(leaves, rules):
            fires = rule.fires(X)
            assert np.array_equal(fires, reached == leaf)
            assert np.all(rule.predict(X)[fires] == tree.predict(X)[fires])
            assert rule.length <= 3
        # the leaves partition the space: exactly one rule fires per row
        assert np.all(rule_matrix(rules, X).sum(axis=1) == 1)


def test_pooled_rules_are_distinct_and_cover_every_path(forest):
    X, rf = forest
    pooled = forest_rules(rf)
    assert len(set(pooled)) == len(pooled)
    every_path = [r for est in rf.estimators_ for r in tree_rules(from_sklearn(est))]
    assert set(every_path) == set(pooled) and len(every_path) >= len(pooled)


def test_readable_thresholds_keep_every_training_row_on_its_path(forest):
    X, rf = forest
    plain, short = forest_rules(rf), forest_rules(rf, X)
    assert len(short) <= len(plain)
    masks_plain = {m.tobytes() for m in rule_matrix(plain, X).T}
    masks_short = {m.tobytes() for m in rule_matrix(short, X).T}
    assert masks_short == masks_plain


def test_a_deadline_reads_the_trees_in_order_until_it_passes(forest):
    import time

    X, rf = forest
    trees = [from_sklearn(e) for e in rf.estimators_]
    assert len(forest_rules(trees[:1], X)) < len(forest_rules(trees, X))
    assert forest_rules(trees, X, deadline=time.perf_counter() - 1.0) == forest_rules(trees[:1], X)
    assert forest_rules(trees, X, deadline=time.perf_counter() + 60.0) == forest_rules(trees, X)


def test_the_rule_matrix_is_each_rules_fires_column_including_missing_values(forest):
    X, rf = forest
    X = X.copy()
    X[::7, :5] = np.nan                                 # a missing value fails every test, as in Rule.fires
    rules = forest_rules(rf)
    Z = rule_matrix(rules, X)
    assert Z.dtype == float and Z.flags["C_CONTIGUOUS"]
    assert np.array_equal(Z, np.column_stack([r.fires(X) for r in rules]).astype(float))


def test_repeated_feature_on_a_path_merges_into_one_interval():
    # x0 <= 4 then x0 > 1: the middle leaf is 1 < x0 <= 4
    tree = Tree([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [[1.0], [1.0], [0.0], [0.0], [0.0]], [4.0, 1.0, 0, 0, 0],
                label=[0, 0, 1, 0, 1])
    rules = tree_rules(tree)                   # leaves from left to right: 3, 4, 2
    assert [(r.lower, r.upper, r.then) for r in rules] == [((-np.inf,), (1.0,), 0), ((1.0,), (4.0,), 1),
                                                           ((4.0,), (np.inf,), 1)]


def test_oblique_trees_are_refused():
    tree = Tree([1, -1, -1], [2, -1, -1], [[1.0, 1.0], [0, 0], [0, 0]], [0.0, 0, 0], label=[0, 0, 1])
    with pytest.raises(ValueError, match="axis-aligned"):
        tree_rules(tree)
