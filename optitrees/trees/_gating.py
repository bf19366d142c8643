"""Probabilistic routing through an axis-aligned :class:`Tree` (seed 000, eqs. 3.1-3.2, 3.9-3.10).

Every split ``x_j <= tau`` has a *gate* ``g(x)``, the probability of going
left: ``1{x_j <= tau}`` for a known value (hard split, eq. 3.3), the Gaussian
CDF ``Phi((tau - x_j) / sigma_j)`` under soft evaluation (eq. 3.9), and, for a
missing value, the share of the node's training weight that went left
(C4.5's fractional instances, seed 000 2.2.4). A point reaches each node with
the product of the gates on its path; class probabilities are the
gate-weighted mixture of the leaves' class probabilities (eq. 3.2).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import ndtr

from ._tree import Tree

__all__ = ["node_membership", "leaf_reach", "left_share", "gated_mixture"]


def left_share(tree: Tree) -> np.ndarray:
    """Share of each split's training weight that went left (0.5 where a split saw no weight)."""
    inner = np.flatnonzero(~tree.is_leaf)
    share = np.full(tree.n_nodes, 0.5)
    wl = tree.value[tree.children_left[inner]].sum(axis=1)
    wr = tree.value[tree.children_right[inner]].sum(axis=1)
    total = wl + wr
    share[inner] = np.divide(wl, total, out=np.full(len(inner), 0.5), where=total > 0)
    return share


def node_membership(tree: Tree, X, sigma=None) -> np.ndarray:
    """Probability of each point reaching each node, shape ``(n_samples, n_nodes)``.

    ``sigma`` (per feature, optional): Gaussian evaluation noise; 0 or ``None``
    keeps the hard gate. Missing values (``nan``) follow :func:`left_share`.
    Requires an axis-aligned tree.
    """
    if not tree.is_axis_aligned:
        raise ValueError("probabilistic routing needs an axis-aligned tree")
    X = np.asarray(X, float)
    share = left_share(tree)
    reach = np.zeros((X.shape[0], tree.n_nodes))
    reach[:, 0] = 1.0
    feature = tree.feature
    for t in np.flatnonzero(~tree.is_leaf):                 # parents have smaller ids than their children
        x, tau = X[:, feature[t]], tree.threshold[t]
        s = 0.0 if sigma is None else float(sigma[feature[t]])
        with np.errstate(invalid="ignore"):
            g = ndtr((tau - x) / s) if s > 0 else (x <= tau).astype(float)
        g = np.where(np.isnan(x), share[t], g)
        reach[:, tree.children_left[t]] = reach[:, t] * g
        reach[:, tree.children_right[t]] = reach[:, t] * (1.0 - g)
    return reach


def leaf_reach(tree: Tree, X, sigma=None) -> sparse.csr_matrix:
    """The leaf columns of :func:`node_membership` as a sparse ``(n_samples, n_nodes)`` matrix (other columns 0).

    The same products of gates (eqs. 3.1, 3.10), computed only for the rows
    that reach each node with a positive probability: a complete point under
    hard gates follows one path, so the work is ``n_samples x depth`` instead
    of ``n_samples x n_nodes`` (a C4.5 tree of 3,744 leaves predicts 100,000
    rows without a dense 6 GB matrix).
    """
    if not tree.is_axis_aligned:
        raise ValueError("probabilistic routing needs an axis-aligned tree")
    X = np.asarray(X, float)
    n = X.shape[0]
    share = left_share(tree)
    feature = tree.feature
    pending = {0: (np.arange(n), np.ones(n))}
    rows, cols, vals = [], [], []
    for t in range(tree.n_nodes):                        # parents have smaller ids than their children
        if t not in pending:
            continue
        at, w = pending.pop(t)
        if tree.is_leaf[t]:
            rows.append(at)
            cols.append(np.full(len(at), t))
            vals.append(w)
            continue
        x, tau = X[at, feature[t]], tree.threshold[t]
        s = 0.0 if sigma is None else float(sigma[feature[t]])
        with np.errstate(invalid="ignore"):
            g = ndtr((tau - x) / s) if s > 0 else (x <= tau).astype(float)
        g = np.where(np.isnan(x), share[t], g)
        for child, wc in ((tree.children_left[t], w * g), (tree.children_right[t], w * (1.0 - g))):
            keep = wc > 0
            pending[child] = (at[keep], wc[keep])
    if not rows:
        return sparse.csr_matrix((n, tree.n_nodes))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(n, tree.n_nodes))


def gated_mixture(tree: Tree, X, leaf_values) -> np.ndarray:
    """``sum_leaf reach(x, leaf) * leaf_values[leaf]`` under hard gates (missing values by :func:`left_share`),
    shape ``(n_samples, k)``, computed from the leaves up as the SQL of
    :func:`~optitrees.export._sql.gated_tree_sql` writes it: at every split ``S(t) = g * S(left) + (1 - g) *
    S(right)``, ``S(leaf) = leaf_values[leaf]``, so both give the same floats on every row (a complete row's gates
    are 0 and 1, a missing value's the training share). The text of that SQL is linear in the tree; a product of
    the gates per leaf path was not (a chain of 2,000 splits: gigabytes).

    Only the rows that reach a node with a positive weight are computed there (the others add ``0 * S``), so a
    complete row costs its path: ``n_samples x depth`` work.
    """
    if not tree.is_axis_aligned:
        raise ValueError("probabilistic routing needs an axis-aligned tree")
    X = np.asarray(X, float)
    leaf_values = np.asarray(leaf_values, float)
    share = left_share(tree)
    feature = tree.feature
    reach = {0: np.arange(X.shape[0])}                   # the rows reaching each node with a positive weight
    gates = {}
    for t in range(tree.n_nodes):                        # parents have smaller ids than their children
        at = reach.get(t)
        if at is None or tree.is_leaf[t]:
            continue
        x = X[at, feature[t]]
        g = np.where(np.isnan(x), share[t], (x <= tree.threshold[t]).astype(float))
        gates[t] = g
        reach[tree.children_left[t]] = at[g > 0]
        reach[tree.children_right[t]] = at[g < 1]
    scores = {}
    for t in range(tree.n_nodes - 1, -1, -1):            # children before their parents
        at = reach.get(t)
        if at is None:
            continue
        if tree.is_leaf[t]:
            scores[t] = np.broadcast_to(leaf_values[t], (len(at), leaf_values.shape[1]))
            continue
        parts = []
        for child in (tree.children_left[t], tree.children_right[t]):      # both are reached (maybe by no row)
            part = np.zeros((len(at), leaf_values.shape[1]))
            part[np.searchsorted(at, reach.pop(child))] = scores.pop(child)
            parts.append(part)
        g = gates.pop(t)[:, None]
        scores[t] = g * parts[0] + (1.0 - g) * parts[1]         # S = g S(left) + (1 - g) S(right), as the SQL adds
    return np.asarray(scores[0])
