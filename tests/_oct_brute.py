"""The optimum of an axis-aligned OCT by enumeration of every tree (tiny data)."""

import itertools

import numpy as np


def brute_force_oct(X, y, depth, alpha, n_min):
    """Minimum of errors / L_hat + alpha * splits over every axis-aligned tree of the given depth.

    A split is unused (all points right) or "x_j >= v" for a training value v of feature j;
    a node under an unused split is unused; each non-empty leaf predicts its majority
    class and holds at least n_min points.
    """
    n, p = X.shape
    K = y.max() + 1
    L_hat = n - np.bincount(y).max()
    options = [None] + [(j, v) for j in range(p) for v in np.unique(X[:, j])]
    n_branch = 2**depth - 1
    best = np.inf
    for combo in itertools.product(options, repeat=n_branch):
        if any(combo[t - 1] is None and combo[c - 1] is not None
               for t in range(1, n_branch + 1) for c in (2 * t, 2 * t + 1) if c <= n_branch):
            continue
        node = np.ones(n, int)
        for _ in range(depth):
            split = [combo[t - 1] for t in node]
            right = np.array([s is None or X[i, s[0]] >= s[1] for i, s in enumerate(split)])
            node = 2 * node + right
        errors, ok = 0, True
        for leaf in np.unique(node):
            counts = np.bincount(y[node == leaf], minlength=K)
            if counts.sum() < n_min:
                ok = False
                break
            errors += counts.sum() - counts.max()
        if ok:
            best = min(best, errors / L_hat + alpha * sum(s is not None for s in combo))
    return best
