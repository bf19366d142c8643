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
from ...budget import expired

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


def forest_rules(forest, X=None, deadline=None) -> list[Rule]:
    """The pooled rules of a fitted forest (``estimators_`` of decision trees, or a list of :class:`Tree`),
    duplicates removed.

    A leaf's class is the majority of its bootstrap training counts (the
    tree's own prediction there). Given the training rows ``X``, every
    threshold is first replaced by the shortest number that routes each row
    the same way (:func:`~optitrees.trees.readable_tree`), so rules print
    short numbers and rules differing only between two training values merge.
    With a ``deadline`` (a ``time.perf_counter()`` value) the trees are read in order until it passes (the
    first tree always): on 30,000 rows each tree's readable thresholds take 7-20 ms, as long as growing it.
    """
    trees = getattr(forest, "estimators_", forest)
    seen, rules = set(), []
    for k, tree in enumerate(trees):
        if k and expired(deadline):
            break
        tree = tree if isinstance(tree, Tree) else from_sklearn(tree)
        if X is not None:
            tree = readable_tree(tree, X)
        for rule in tree_rules(tree):
            if rule not in seen:
                seen.add(rule)
                rules.append(rule)
    return rules


def rule_matrix(rules, X) -> np.ndarray:
    """The binary ``N x P`` matrix of II-B: 1 where the IF part of rule p holds for row i (``Rule.fires``).

    The rules of a forest share their tests (on 0/1 features every threshold is 0.5), so each distinct test
    ``x_j > lower`` or ``x_j <= upper`` is evaluated once on a contiguous copy of its column: on 30,000
    rows and 779 rules, 0.13 s where one ``fires`` per rule took 1.3 s.
    """
    X = np.asarray(X, dtype=float)
    columns, tests = {}, {}

    def holds(j, bound, upper):
        key = (j, bound, upper)
        if key not in tests:
            if j not in columns:
                columns[j] = np.ascontiguousarray(X[:, j])
            tests[key] = columns[j] <= bound if upper else columns[j] > bound
        return tests[key]

    fires = np.ones((len(rules), len(X)), dtype=bool)
    for k, rule in enumerate(rules):
        for j, lower, upper in zip(rule.features, rule.lower, rule.upper):
            fires[k] &= holds(j, lower, False)
            fires[k] &= holds(j, upper, True)
    return fires.T.astype(float, order="C")
