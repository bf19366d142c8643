"""Fair trees by enumeration on tiny data: the optimum the fair searches and MIPs are checked against."""

import itertools

import numpy as np


def tiny(seed=0, n=16):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 2)).astype(float)
    groups = np.where(rng.uniform(size=n) < 0.5, "a", "b")
    y = ((X[:, 0] >= 2) ^ (rng.uniform(size=n) < 0.15) | ((groups == "a") & (X[:, 1] >= 3))).astype(int)
    return X, y, groups


def best_fair_tree(X, y, groups, notion, depth):
    """Least errors / L_hat over every axis-aligned tree of ``depth`` and every labelling of its leaves whose
    disparity is within the bound (a split sends ``x_j >= v`` right; an unused one sends every point right)."""
    from optitrees.fairness import ParityCells, group_codes

    codes, labels = group_codes(groups, len(y))
    cells = ParityCells.create(notion, y, codes, labels)
    n, p = X.shape
    L_hat = n - np.bincount(y).max()
    options = [None] + [(j, v) for j in range(p) for v in np.unique(X[:, j])]
    n_branch = 2**depth - 1
    best = np.inf
    for combo in itertools.product(options, repeat=n_branch):
        node = np.ones(n, int)
        for _ in range(depth):
            split = [combo[t - 1] for t in node]
            node = 2 * node + np.array([s is None or X[i, s[0]] >= s[1] for i, s in enumerate(split)])
        leaves = np.unique(node)
        for lab in itertools.product((0, 1), repeat=len(leaves)):
            predicted = np.array(lab)[np.searchsorted(leaves, node)]
            if cells.disparity(predicted == 1) <= notion.difference_bound + 1e-9:
                best = min(best, np.sum(predicted != y) / L_hat)
    return best
