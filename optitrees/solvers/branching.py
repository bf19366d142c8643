"""Which column :func:`~optitrees.solvers.branch_and_cut.branch_and_cut` branches on: pseudocosts.

A column's *pseudocost* in a direction is the average rise of the node bound per unit of change of that
column when the search branched on it in that direction: rounding ``x_j`` with fractional part ``f`` down
raised the child's bound by ``gain``, so ``gain / f`` is one observation of its down pseudocost, and
``gain / (1 - f)`` of its up pseudocost (Benichou et al. 1971; Achterberg, Koch & Martin 2005). The
column branched on is the fractional one with the largest product score

    score_j = max(down_j f_j, eps) * max(up_j (1 - f_j), eps),

which prefers a column whose two children both raise the bound. A column not branched on yet in a
direction takes the mean pseudocost of the columns that have been (1 before any). Binary columns are
considered before general integer ones, as by the most-fractional rule this replaces.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Pseudocosts"]

#: A column whose distance to the nearest integer is at most this is integral.
INTEGRAL = 1e-6
#: The smallest factor of the product score (keeps a column that raises only one child's bound comparable).
_EPS = 1e-6


class Pseudocosts:
    """Per-column pseudocosts of a branch-and-bound search, down (0) and up (1).

    Parameters
    ----------
    integer, binary : ndarray of bool, shape (n_cols,)
        The columns that must take integer values, and those of them that are 0/1.
    """

    def __init__(self, integer, binary):
        self.integer = np.asarray(integer, bool)
        self.binary = np.asarray(binary, bool)
        self.total = np.zeros((2, self.integer.size))
        self.count = np.zeros((2, self.integer.size))

    def record(self, col, up, fraction, gain):
        """One observation: branching ``col`` up (``up=True``) or down from fractional part ``fraction``
        raised the child's bound by ``gain`` (negative gains, numerical noise, count as 0)."""
        distance = 1.0 - fraction if up else fraction
        self.total[int(up), col] += max(gain, 0.0) / distance
        self.count[int(up), col] += 1

    def estimates(self):
        """``(down, up)``: each column's mean pseudocost, the mean over observed columns where unobserved."""
        seen = self.count > 0
        mean = np.divide(self.total, self.count, out=np.zeros_like(self.total), where=seen)
        for d in (0, 1):
            fallback = mean[d, seen[d]].mean() if seen[d].any() else 1.0
            mean[d, ~seen[d]] = fallback
        return mean

    def choose(self, x):
        """The column to branch on at LP solution ``x`` (``None`` when ``x`` is integral)."""
        fraction = x - np.floor(x)
        fractional = self.integer & (np.minimum(fraction, 1.0 - fraction) > INTEGRAL)
        for group in (self.binary, self.integer):
            candidates = np.flatnonzero(fractional & group)
            if candidates.size:
                break
        else:
            return None
        down, up = self.estimates()[:, candidates]
        f = fraction[candidates]
        score = np.maximum(down * f, _EPS) * np.maximum(up * (1.0 - f), _EPS)
        return int(candidates[np.argmax(score)])
