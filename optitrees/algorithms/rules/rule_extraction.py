"""Decision rules of the trees of a forest (seed 004, II-A and the duplicate removal of II-B).

Every leaf of an axis-aligned :class:`~optitrees.trees.Tree` gives one
:class:`~optitrees.rule_set.Rule`: the tests on its path, merged into one
interval per feature, and the leaf's class. The rules of all trees are
pooled and duplicates (same intervals, same class) removed, keeping the first.
"""

from __future__ import annotations

import numpy as np

from ...rule_set import Rule
from ...trees import LEAF, Tree, from_sklearn, readable_tree

__all__ = ["tree_rules", "forest_rules", "rule_matrix"]


def tree_rules(tree: Tree) -> list[Rule]:
    """One rule per leaf of an axis-aligned tree, leaves from left to right.

    >>> t = Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [[1, 0], [0, 0], [0, 1], [0, 0], [0, 0]],
    ...          [0.5, 0, 2.0, 0, 0], label=[0, 1, 0, 0, 1])
    >>> [(r.features, r.lower, r.upper, r.then) for r in tree_rules(t)]
    [((0,), (-inf,), (0.5,), 1), ((0, 1), (0.5, -inf), (inf, 2.0), 0), ((0, 1), (0.5, 2.0), (inf, inf), 1)]
    """
    if not tree.is_axis_aligned:
        raise ValueError("rules are read from axis-aligned trees (each split tests one feature)")
    feature = tree.feature
    rules = []

    def walk(node, bounds):
        if tree.children_left[node] == LEAF:
            js = sorted(bounds)
            rules.append(Rule(tuple(js), tuple(bounds[j][0] for j in js), tuple(bounds[j][1] for j in js),
                              int(tree.label[node])))
            return
        j, t = int(feature[node]), float(tree.threshold[node])
        lo, hi = bounds.get(j, (-np.inf, np.inf))
        walk(tree.children_left[node], {**bounds, j: (lo, min(hi, t))})
        walk(tree.children_right[node], {**bounds, j: (max(lo, t), hi)})

    walk(0, {})
    return rules


def forest_rules(forest, X=None) -> list[Rule]:
    """The pooled rules of a fitted forest (``estimators_`` of decision trees, or a list of :class:`Tree`), duplicates removed.

    A leaf's class is the majority of its bootstrap training counts (the
    tree's own prediction there). Given the training rows ``X``, every
    threshold is first replaced by the shortest number that routes each row
    the same way (:func:`~optitrees.trees.readable_tree`), so rules print
    short numbers and rules differing only between two training values merge.
    """
    trees = getattr(forest, "estimators_", forest)
    seen, rules = set(), []
    for tree in trees:
        tree = tree if isinstance(tree, Tree) else from_sklearn(tree)
        if X is not None:
            tree = readable_tree(tree, X)
        for rule in tree_rules(tree):
            if rule not in seen:
                seen.add(rule)
                rules.append(rule)
    return rules


def rule_matrix(rules, X) -> np.ndarray:
    """The binary ``N x P`` matrix of II-B: 1 where the IF part of rule p holds for row i."""
    return np.column_stack([r.fires(X) for r in rules]).astype(float)
