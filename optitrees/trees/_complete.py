"""Complete binary trees in breadth-first numbering (MIP and local-search trees) as :class:`Tree` objects.

Fixed-depth models number their nodes breadth-first from 1 (seed 002, Ch. 3.2):
node ``t`` has children ``2t`` and ``2t + 1``. A split that is not used sends
every point right (Bertsimas & Dunn's convention), so the compact tree replaces
it by its right subtree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._tree import LEAF, LeafModel, Tree

__all__ = ["from_complete", "to_complete", "CompleteArrays"]


def from_complete(split_weights, split_threshold, *, split_intercept=None, active=None, leaf_labels=None,
                  leaf_weights=None, leaf_intercepts=None, n_classes=2, probabilistic=False):
    """A :class:`Tree` from a complete tree with ``S = 2^s - 1`` splits and ``S + 1`` leaves.

    Parameters
    ----------
    split_weights : ndarray of shape (S, p)
        Row ``t - 1`` is the split of breadth-first node ``t``; ``S`` may be 0.
    split_threshold : ndarray of shape (S,)
        Left when ``split_weights[t - 1] @ x <= split_threshold[t - 1]``.
    split_intercept : ndarray of shape (S,), optional
        The inner nodes' own classifier offsets (linear-model trees).
    active : ndarray of bool of shape (S,), optional
        Unused splits send every point right.
    leaf_labels : ndarray of int of shape (S + 1,), optional
        Class index of each leaf, left to right (label leaves).
    leaf_weights, leaf_intercepts : ndarray of shape (S + 1, p) and (S + 1,), optional
        Linear model of each leaf (linear leaves).
    n_classes : int, default=2
    probabilistic : bool, default=False

    Returns
    -------
    tree : Tree
        Nodes in depth-first order (a node, its left subtree, its right subtree).
    position : ndarray of int of shape (tree.n_nodes,)
        Breadth-first id of each node of ``tree`` in the complete tree.
    """
    split_weights = np.asarray(split_weights, float).reshape(-1, _n_features(split_weights, leaf_weights))
    S = split_weights.shape[0]
    if S & (S + 1):
        raise ValueError(f"a complete tree has 2^s - 1 splits, got {S}")
    p = split_weights.shape[1]
    split_threshold = np.asarray(split_threshold, float).reshape(S)
    split_intercept = np.zeros(S) if split_intercept is None else np.asarray(split_intercept, float).reshape(S)
    active = np.ones(S, bool) if active is None else np.asarray(active, bool).reshape(S)
    linear = leaf_weights is not None
    if linear:
        leaf_weights = np.asarray(leaf_weights, float).reshape(S + 1, p)
        leaf_intercepts = np.asarray(leaf_intercepts, float).reshape(S + 1)
    elif leaf_labels is None:
        raise ValueError("give leaf_labels (label leaves) or leaf_weights and leaf_intercepts (linear leaves)")
    else:
        leaf_labels = np.asarray(leaf_labels, np.int64).reshape(S + 1)

    order = []                         # breadth-first ids in depth-first order, with their parent slot

    def visit(t, parent, side):
        while t <= S and not active[t - 1]:
            t = 2 * t + 1              # an unused split: its points all go right
        order.append((t, parent, side))
        k = len(order) - 1
        if t <= S:
            visit(2 * t, k, "left")
            visit(2 * t + 1, k, "right")

    visit(1, -1, None)
    n = len(order)
    position = np.array([t for t, _, _ in order], np.int64)
    left = np.full(n, LEAF, np.int64)
    right = np.full(n, LEAF, np.int64)
    for k, (_, parent, side) in enumerate(order):
        if parent >= 0:
            (left if side == "left" else right)[parent] = k
    W = np.zeros((n, p))
    thr = np.zeros(n)
    b = np.zeros(n)
    label = np.zeros(n, np.int64)
    is_split = position <= S
    W[is_split] = split_weights[position[is_split] - 1]
    thr[is_split] = split_threshold[position[is_split] - 1]
    b[is_split] = split_intercept[position[is_split] - 1]
    leaf_idx = position[~is_split] - (S + 1)
    if linear:
        W[~is_split] = leaf_weights[leaf_idx]
        b[~is_split] = leaf_intercepts[leaf_idx]
        label[:] = -1
    else:
        label[~is_split] = leaf_labels[leaf_idx]
    tree = Tree(left, right, W, thr, intercept=b, value=np.zeros((n, n_classes)), label=label,
                leaf_model=LeafModel.LINEAR if linear else LeafModel.LABEL, probabilistic=probabilistic)
    return tree, position


def _n_features(split_weights, leaf_weights):
    a = np.asarray(split_weights, float)
    if a.ndim == 2 and a.shape[0] > 0:
        return a.shape[1]
    return np.asarray(leaf_weights, float).shape[-1] if leaf_weights is not None else max(a.shape[-1], 1)



@dataclass
class CompleteArrays:
    """A tree laid out as a complete tree of ``S = 2^s - 1`` splits in breadth-first order (see :func:`to_complete`)."""

    split_weights: np.ndarray
    split_threshold: np.ndarray
    split_intercept: np.ndarray
    active: np.ndarray
    leaf_labels: np.ndarray
    leaf_weights: np.ndarray
    leaf_intercepts: np.ndarray
    position: np.ndarray


def to_complete(tree: Tree, split_levels: int) -> CompleteArrays:
    """Lay ``tree`` out as a complete tree with ``split_levels`` levels of splits (the inverse of
    :func:`from_complete`).

    A leaf above the last level is reached through unused splits that send
    every point right, so it sits at the rightmost leaf below its position.
    ``position[k]`` is the breadth-first id where node ``k`` of ``tree`` lands.

    Raises
    ------
    ValueError
        ``tree`` has more levels of splits than ``split_levels``.
    """
    S = 2**split_levels - 1
    p = tree.n_features
    out = CompleteArrays(np.zeros((S, p)), np.zeros(S), np.zeros(S), np.zeros(S, bool), np.zeros(S + 1, np.int64),
                         np.zeros((S + 1, p)), np.zeros(S + 1), np.zeros(tree.n_nodes, np.int64))
    stack = [(0, 1)]
    while stack:
        node, t = stack.pop()
        if tree.is_leaf[node]:
            while t <= S:
                t = 2 * t + 1
            k = t - (S + 1)
            out.leaf_labels[k] = tree.label[node]
            out.leaf_weights[k] = tree.weights[node]
            out.leaf_intercepts[k] = tree.intercept[node]
        else:
            if t > S:
                raise ValueError(f"the tree has more than {split_levels} levels of splits")
            out.split_weights[t - 1] = tree.weights[node]
            out.split_threshold[t - 1] = tree.threshold[node]
            out.split_intercept[t - 1] = tree.intercept[node]
            out.active[t - 1] = True
            stack += [(tree.children_left[node], 2 * t), (tree.children_right[node], 2 * t + 1)]
        out.position[node] = t
    return out


def left_heavy(tree: Tree, X, weight=None) -> Tree:
    """The same tree on ``X`` with every split, from the root down, mirrored where more of the weight reaching it
    goes right: ``w x <= t`` becomes ``-w x <= t'`` (``t'`` in the middle of the gap between the two sides'
    values, so every training point keeps its leaf) and the node's two subtrees swap. Training predictions are
    unchanged; the tree satisfies the symmetry rows of a formulation whose splits carry no loss
    (:func:`~optitrees.formulations.symmetry.add_mirror_symmetry`), so it stays a feasible MIP start.

    >>> tree, _ = from_complete(np.array([[1.0]]), np.array([0.5]), leaf_labels=np.array([0, 1]))
    >>> X = np.array([[0.0], [0.7], [0.9]])
    >>> mirrored = left_heavy(tree, X)
    >>> mirrored.weights[0].tolist(), float(mirrored.threshold[0]), bool((mirrored.apply(X) == tree.apply(X)).all())
    ([-1.0], -0.35, True)
    """
    v = np.ones(len(X)) if weight is None else np.asarray(weight, float)
    return _mirrored_where(tree, X, lambda node, rows, left: v[rows][left].sum() < v[rows][~left].sum())


def signs_oriented(tree: Tree, X, signs) -> Tree:
    """The same tree on ``X`` with every split that weighs the features of nonzero ``signs`` only against their
    sign (``s_j w_j <= 0`` for each, ``< 0`` for one) mirrored as :func:`left_heavy` mirrors: then ``s_j w_j >= 0``
    there, the form of a monotone OCT-H's splits
    (:func:`~optitrees.formulations.oct.blocks.add_monotone_order`). A split weighing them both ways keeps its
    form."""
    signs = np.asarray(signs)

    def against(node, rows, left):
        moves = signs * tree.weights[node]
        return bool((moves <= 0).all() and (moves < 0).any())

    return _mirrored_where(tree, X, against)


def _mirrored_where(tree: Tree, X, flip) -> Tree:
    """``tree`` with each split for which ``flip(node, rows reaching it, whether each goes left)`` is true mirrored
    (from the root down; training points keep their leaves)."""
    X = np.asarray(X, dtype=float)
    left_child, right_child = tree.children_left.copy(), tree.children_right.copy()
    weights, threshold = tree.weights.copy(), tree.threshold.copy()
    reach = {0: np.arange(len(X))}
    for node in range(tree.n_nodes):                     # parents have smaller ids: top-down
        rows = reach.pop(node, np.zeros(0, np.int64))
        if tree.is_leaf[node]:
            continue
        values = X[rows] @ weights[node]
        left = values <= threshold[node]
        if flip(node, rows, left):
            weights[node] = -weights[node]
            if (~left).any():
                low = -values[~left].min()                               # the largest mirrored value going left
                high = -values[left].max() if left.any() else None       # the smallest one going right
                threshold[node] = low if high is None else (low + high) / 2
            elif left.any():                               # every row went left: the mirror sends them all right
                threshold[node] = min(-threshold[node], np.nextafter(-values.max(), -np.inf))
            else:                                          # no row reaches it: the mirror image of the plane
                threshold[node] = -threshold[node]
            left_child[node], right_child[node] = right_child[node], left_child[node]
            left = ~left
        reach[left_child[node]] = rows[left]
        reach[right_child[node]] = rows[~left]
    from dataclasses import replace

    return replace(tree, children_left=left_child, children_right=right_child, weights=weights, threshold=threshold)
