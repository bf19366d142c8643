"""C4.5's error-based pruning: Quinlan's worked numbers, the Laplace correction and subtree raising."""

import numpy as np
import pytest
from scipy.special import betainc
from scipy.stats import binom

from optitrees.algorithms.c45.induction import GrowNode, distribute
from optitrees.algorithms.c45.pessimistic_pruning import collapse, expected_errors, prune, upper_error_rate


@pytest.mark.parametrize("n, errors, want", [(6, 0, 0.206), (9, 0, 0.143), (1, 0, 0.750), (16, 1, 0.157)])
def test_upper_error_rates_of_quinlans_example(n, errors, want):
    """C4.5 (Quinlan 1993, 4.2) with CF = 25%; the defining equation P(Bin(N, U) <= E) = CF holds exactly.

    The book prints U(1, 16) = 0.157 from an approximation; the exact limit is 0.1596.
    """
    u = float(upper_error_rate(n, errors, 0.25))
    assert u == pytest.approx(want, abs=3e-3)
    assert binom.cdf(errors, n, u) == pytest.approx(0.25)


def test_laplace_corrected_errors_solve_the_same_equation_for_fractional_errors():
    counts = np.array([5.0, 1.0])                                      # N = 6, E = 1, K = 2
    e = 6 * (1 + 1) / (6 + 2)
    u = expected_errors(counts, 0.25, laplace=True) / 6
    assert betainc(6 - e, e + 1, 1 - u) == pytest.approx(0.25)         # P(Bin(N, u) <= e) for real e
    assert expected_errors(counts, 0.25, laplace=False) == pytest.approx(6 * upper_error_rate(6, 1, 0.25))


def _leaf(counts):
    counts = np.asarray(counts, float)
    return GrowNode(np.arange(0), np.zeros(0), counts)


def test_quinlans_subtree_is_replaced_by_a_leaf():
    """Leaves of 6, 9 and 1 cases without errors: 6(0.206) + 9(0.143) + 1(0.750) = 3.273 against
    16 U(1, 16) = 2.55 (the book: 2.512) as one leaf with one error."""
    node = GrowNode(np.arange(0), np.zeros(0), np.array([15.0, 1.0]), feature=0, threshold=0.0,
                    left=GrowNode(np.arange(0), np.zeros(0), np.array([6.0, 1.0]), feature=1, threshold=0.0,
                                  left=_leaf([6, 0]), right=_leaf([0, 1])),
                    right=_leaf([9, 0]))
    keep = sum(expected_errors(leaf.counts, 0.25, laplace=False) for leaf in node.leaves())
    assert keep == pytest.approx(3.273, abs=0.01)
    assert expected_errors(node.counts, 0.25, laplace=False) == pytest.approx(16 * 0.1596, abs=0.01)
    prune(np.zeros((0, 2)), np.zeros((0, 2)), node, 0.25, laplace=False, subtree_raising=False)
    assert node.is_leaf


def _raising_case():
    """x1 separates the classes everywhere; the root's test on x0 is useless, its small right branch a leaf."""
    x1 = np.r_[np.zeros(20), np.ones(20), [0, 0, 1]]
    x0 = np.r_[np.zeros(40), [1, 1, 1]]
    y = (x1 > 0.5).astype(int)
    X, Y = np.column_stack([x0, x1]), np.eye(2)[y]
    rows = np.arange(len(y))
    root = GrowNode(rows, np.ones(len(y)), Y.sum(axis=0), feature=0, threshold=0.5)
    root.left = GrowNode(rows[:40], np.ones(40), Y[:40].sum(axis=0), feature=1, threshold=0.5,
                         left=GrowNode(rows[:0], np.zeros(0), np.zeros(2)),
                         right=GrowNode(rows[:0], np.zeros(0), np.zeros(2)))
    root.right = GrowNode(rows[40:], np.ones(3), Y[40:].sum(axis=0))
    distribute(X, Y, root, rows, np.ones(len(y)))
    return X, Y, root


def test_subtree_raising_replaces_a_split_by_its_largest_branch_with_all_rows():
    X, Y, root = _raising_case()
    assert root.right.counts.tolist() == [2, 1]
    prune(X, Y, root, 0.25, laplace=True, subtree_raising=True)
    assert (root.feature, root.threshold) == (1, 0.5)                  # the left branch's test, raised
    assert root.left.counts.tolist() == [22, 0] and root.right.counts.tolist() == [0, 21]


def test_without_raising_the_useless_split_stays():
    X, Y, root = _raising_case()
    prune(X, Y, root, 0.25, laplace=True, subtree_raising=False)
    assert root.feature == 0 and root.n_leaves() == 3


def test_collapse_removes_splits_that_do_not_lower_training_errors():
    node = GrowNode(np.arange(0), np.zeros(0), np.array([5.0, 1.0]), feature=0, threshold=0.0,
                    left=_leaf([3, 1]), right=_leaf([2, 0]))
    collapse(node)
    assert node.is_leaf


@pytest.mark.parametrize("confidence", [0.01, 0.25, 0.5])
def test_a_nominal_chain_is_pruned_or_kept_as_one_test(confidence):
    from optitrees.algorithms.c45.induction import grow_c45

    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 4, 300).astype(float), rng.normal(size=300)])
    y = ((X[:, 0] >= 2) ^ (rng.random(300) < 0.05 * X[:, 0])).astype(int)
    Y = np.eye(2)[y]
    root = grow_c45(X, Y, allowed=np.ones(2, bool), nominal=np.array([True, False]))
    collapse(root)
    prune(X, Y, root, confidence)
    stack, heads = [root], 0
    while stack:
        node = stack.pop()
        if node.is_leaf:
            continue
        if node.extra.get("nominal"):
            heads += 1
            branches = node.branches()
            values = np.unique(X[node.rows[node.weights > 0], 0])
            assert len(branches) == len(values)                  # every value keeps its branch
            stack += branches
        else:
            assert not node.extra.get("member")
            stack += [node.left, node.right]
    assert heads >= 1


def test_raising_by_the_moved_rows_alone_prunes_as_passing_all_rows(monkeypatch):
    """Without missing values the largest branch's rows stay at its leaves, so raising it only routes the other
    branches' rows; a missing value in a column no test uses forces the general path, which passes all of the
    node's rows. Both prune to the same tree, and raising happened."""
    from optitrees.algorithms.c45 import pessimistic_pruning
    from optitrees.algorithms.c45.induction import grow_c45, to_tree

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 6, 800), rng.normal(size=800), rng.normal(size=800)]).astype(float)
    y = ((X[:, 0] > 2) ^ (X[:, 1] > 0.3) ^ (rng.random(800) < 0.2)).astype(int)
    Y = np.eye(2)[y]
    allowed = np.array([True, True, False])
    X_missing = X.copy()
    X_missing[0, 2] = np.nan
    raised = []
    monkeypatch.setattr(pessimistic_pruning, "distribute",
                        lambda *args, **kwargs: raised.append(1) or distribute(*args, **kwargs))
    trees = []
    for data in (X, X_missing):
        root = grow_c45(X, Y, allowed=allowed, min_samples_leaf=2)
        collapse(root)
        prune(data, Y, root, 0.25)
        trees.append(to_tree(root, 3))
    assert raised and trees[0].n_leaves > 3
    for field in ("feature", "threshold", "children_left", "children_right", "value"):
        np.testing.assert_array_equal(getattr(trees[0], field), getattr(trees[1], field))
