r"""The total logistic loss of a linear score, on data compressed to its distinct rows.

A risk score with points ``s`` (one per column of ``X``), intercept ``beta`` and
multiplier ``m`` gives point ``i`` the log-odds ``z_i = (x_i s + beta) / m``;
its training loss is

    l(s, beta) = sum_i log(1 + exp(-y_i z_i)),

convex in ``(s, beta)``. Rows that repeat (same features, same label) are
stored once with their count as a weight, which shrinks binarized data sets
by one or two orders of magnitude (``rs_adult``: 26048 training rows, 8498
distinct). Because ``l`` is convex, its tangent plane at any point is a valid
lower bound everywhere (Ustun & Rudin's risk-score cutting planes):

    L >= l(s_k, beta_k) + g_s (s - s_k) + g_beta (beta - beta_k),      (RiskSLIM cut)

with ``g`` the gradient at ``(s_k, beta_k)``, so a model holding the points,
the intercept and one loss variable ``L`` needs no row per training point.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ...readable import significant_neighbours

__all__ = ["AggregateLoss"]


@dataclass(frozen=True)
class AggregateLoss:
    """``l(s, beta)`` of the module docstring on weighted distinct rows.

    Attributes
    ----------
    X : ndarray of shape (n_distinct, p)
    y : ndarray of shape (n_distinct,), values in {-1, +1}
    weight : ndarray of shape (n_distinct,)
        How often each row occurs.
    multiplier : float
        ``m``: the log-odds are ``(x s + beta) / m``.
    """

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    multiplier: float = 1.0

    @classmethod
    def from_data(cls, X, y, multiplier: float = 1.0, sample_weight=None) -> "AggregateLoss":
        """Compress ``(X, y)`` (``y`` in {-1, +1}) to its distinct rows with counts (or summed weights)."""
        X = np.asarray(X, float)
        y = np.asarray(y, float)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        first, inverse = _distinct_rows(np.column_stack([X, y]))
        weight = np.bincount(inverse, weights=w, minlength=len(first))
        return cls(X[first], y[first], weight, float(multiplier))

    def with_multiplier(self, multiplier: float) -> "AggregateLoss":
        return AggregateLoss(self.X, self.y, self.weight, float(multiplier))

    def restricted(self, columns) -> "AggregateLoss":
        """The loss of scores on ``columns`` only, its rows compressed again: on a few columns many rows
        coincide (``rs_mushroom``: 6499 distinct training rows, at most ``2^(T+1)`` on ``T`` 0/1 columns),
        so a search over one support costs a fraction of a pass over the data."""
        return AggregateLoss.from_data(self.X[:, np.asarray(columns, int)], self.y, self.multiplier, self.weight)

    @property
    def n_points(self) -> float:
        return float(self.weight.sum())

    @cached_property
    def _columns(self) -> np.ndarray:
        """``X`` transposed, each column of ``X`` one contiguous row (a sparse ``s`` reads only its own)."""
        return np.ascontiguousarray(self.X.T)

    def margins(self, s, beta) -> np.ndarray:
        """``y_i z_i``; ``s`` of shape (p,) or (k, p) and ``beta`` scalar or (k,) give (n,) or (k, n).

        An ``s`` with nonzeros on under a quarter of the columns (a card, most LP points of the
        risk-score search) reads those columns only."""
        s = np.asarray(s, float)
        if s.ndim == 2:
            scores = s @ self.X.T + np.asarray(beta, float)[..., None]
        else:
            used = np.flatnonzero(s)
            scores = (s[used] @ self._columns[used] if 4 * len(used) < len(s) else self.X @ s) + float(beta)
        return self.y * scores / self.multiplier

    def value(self, s, beta):
        """``l(s, beta)``: a float, or one per row of a (k, p) ``s``."""
        return np.logaddexp(0.0, -self.margins(s, beta)) @ self.weight

    def segment_minimum(self, s0, beta0, s1, beta1, tol: float = 1e-7) -> float:
        """The step ``t`` in [0, 1] of least loss at ``(s0, beta0) + t ((s1, beta1) - (s0, beta0))``: the
        margins ``z0 + t dz`` are linear in ``t``, so the loss is a 1-D convex function of ``t``, minimized by
        Newton's method safeguarded by bisection (each step one pass over the rows)."""
        z0 = self.margins(s0, beta0)
        dz = self.margins(s1, beta1) - z0
        wdz = self.weight * dz

        def slope_and_curvature(t):
            sig = expit(-(z0 + t * dz))
            return -float(wdz @ sig), float((wdz * dz) @ (sig * (1.0 - sig)))

        if slope_and_curvature(0.0)[0] >= 0:
            return 0.0
        if slope_and_curvature(1.0)[0] <= 0:
            return 1.0
        return _newton_minimum(slope_and_curvature, 0.0, 1.0, 0.5, tol)

    def _gradient_at(self, margins) -> tuple[np.ndarray, float]:
        q = -self.weight * self.y * expit(-margins) / self.multiplier
        return self._columns @ q, float(q.sum())      # X' q, each column of X contiguous: 2.5x X.T @ q

    def gradient(self, s, beta) -> tuple[np.ndarray, float]:
        """``(dl/ds, dl/dbeta)`` at one point."""
        return self._gradient_at(self.margins(s, beta))

    def cut(self, s, beta) -> tuple[float, np.ndarray, float, float]:
        """The tangent plane at ``(s, beta)`` as ``(value, g_s, g_beta, rhs)``: the cut reads
        ``L - g_s s' - g_beta beta' >= rhs`` with ``rhs = value - g_s s - g_beta beta``."""
        s = np.asarray(s, float)
        margins = self.margins(s, beta)
        value = float(np.logaddexp(0.0, -margins) @ self.weight)
        g_s, g_beta = self._gradient_at(margins)
        return value, g_s, g_beta, value - float(g_s @ s) - g_beta * float(beta)

    def best_intercept(self, s, bound: float, tol: float = 1e-10) -> float:
        """The ``beta`` in ``[-bound, bound]`` minimizing ``l(s, beta)`` (Newton's method on a 1-D convex
        function, safeguarded by bisection)."""
        base = self.y * (self.X @ np.asarray(s, float)) / self.multiplier

        def slope_and_curvature(b):
            sig = expit(-(base + self.y * b / self.multiplier))
            return (-float((self.weight * self.y * sig).sum()) / self.multiplier,
                    float((self.weight * sig * (1.0 - sig)).sum()) / self.multiplier ** 2)

        lo, hi = -float(bound), float(bound)
        return _newton_minimum(slope_and_curvature, lo, hi, float(np.clip(0.0, lo, hi)), tol)

    def best_multiplier(self, s, intercept_bound: float, m_range=(0.5, 1000.0), digits: int = 3):
        r"""The multiplier and intercept minimizing ``l(s, beta)`` for fixed points ``s``: ``(m, beta, value)``.

        With ``t = 1/m`` and ``v = beta/m`` the loss ``sum_i w_i log(1 + exp(-y_i (t x_i s + v)))`` is
        convex in ``(t, v)``, so its minimum over ``m`` in ``m_range`` is found exactly (L-BFGS-B).
        The loss with the best intercept is then unimodal in ``m``, so the better of the two numbers
        of ``digits`` significant digits around the minimum is the best multiplier a card prints
        exactly; its intercept is refitted within ``|beta| <= intercept_bound * m``.

        The range starts at 0.5, where the search's ray does: on nearly separable data the loss
        keeps falling as ``m`` shrinks (every point's log-odds grow), which only makes the card
        overconfident.
        """
        a = self.y * (self.X @ np.asarray(s, float))
        w, y = self.weight, self.y

        def fun(theta):
            margins = theta[0] * a + theta[1] * y
            q = -w * expit(-margins)
            return float(np.logaddexp(0.0, -margins) @ w), np.array([q @ a, q @ y])

        t0, v0 = 1.0 / self.multiplier, self.best_intercept(s, intercept_bound * self.multiplier) / self.multiplier
        res = minimize(fun, np.array([t0, v0]), jac=True, method="L-BFGS-B",
                       bounds=[(1.0 / m_range[1], 1.0 / m_range[0]), (-intercept_bound, intercept_bound)],
                       options={"gtol": 1e-10, "ftol": 1e-14})
        best = None
        m_best = float(np.clip(1.0 / float(res.x[0]), *m_range))
        for m in [c for c in significant_neighbours(m_best, digits) if m_range[0] <= c <= m_range[1]] or [m_best]:
            at_m = self.with_multiplier(m)
            beta = at_m.best_intercept(s, intercept_bound * m)
            value = float(at_m.value(s, beta))
            if best is None or value < best[2]:
                best = (m, beta, value)
        return best


def _newton_minimum(slope_and_curvature, lo, hi, x, tol) -> float:
    """The minimum on ``[lo, hi]`` of a 1-D convex function from ``x``: Newton steps (``slope_and_curvature(x)``
    gives the first and second derivatives), a bisection of the bracket when a step would leave it; ends when a
    step or the bracket is within ``tol`` (relative above 1)."""
    for _ in range(100):
        g, h = slope_and_curvature(x)
        if g > 0:
            hi = x
        else:
            lo = x
        step = x - g / h if h > 1e-300 else (lo + hi) / 2
        nxt = step if lo < step < hi else (lo + hi) / 2
        if abs(nxt - x) <= tol * max(1.0, abs(x)) or hi - lo <= tol * max(1.0, abs(x)):
            return float(nxt)
        x = nxt
    return float(x)


def _distinct_rows(A):
    """``(first, inverse)``: the index of one occurrence of each distinct row of ``A`` (in sorted order of
    the rows) and each row's position among them. Rows are keyed as one integer (each column's values
    numbered, the numbers combined in mixed radix) when the key fits in 62 bits, which is far faster than
    sorting whole rows; otherwise each row is one byte string that sorts as the row does
    (:func:`_ordered_bytes`), sorted by ``memcmp`` (``np.unique(axis=0)`` compares rows field by field:
    1.1 s of 3,000 x 1,921 candidate columns of a generalized risk score, 0.06 s as bytes)."""
    codes, radix = [], []
    # 62 columns or more cannot fit a 62-bit key (each takes a bit at least): skip numbering them (the
    # per-column np.unique took 0.5 s of 3,000 x 1,921 candidate columns of a generalized risk score)
    for column in A.T if A.shape[1] < 62 else ():
        values, code = np.unique(column, return_inverse=True)
        codes.append(code.ravel())
        radix.append(len(values))
    if A.shape[1] >= 62 or np.sum(np.log2(np.maximum(radix, 1))) >= 62:
        _, first, inverse = np.unique(_ordered_bytes(A), return_index=True, return_inverse=True)
        return first, inverse.ravel()
    key = np.zeros(len(A), np.int64)
    for code, r in zip(codes, radix):
        key = key * r + code
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _ordered_bytes(A):
    """Each row of the float matrix ``A`` (no ``NaN``) as one byte string whose byte order is the row's
    lexicographic order. A matrix of small integers (0/1 rules, labels) takes a byte a value (its sign bit
    flipped); otherwise every value's IEEE bits, with the sign bit set for values >= 0 and all bits flipped
    for negative ones (an unsigned integer in the order of the floats; ``-0.0`` is ``0.0``), big-endian."""
    A = np.asarray(A, float)
    if A.size and -128 <= A.min() and A.max() <= 127 and np.array_equal(small := A.astype(np.int8), A):
        keys = small.view(np.uint8) ^ np.uint8(0x80)
    else:
        bits = (A + 0.0).view(np.uint64)
        bits ^= (bits.view(np.int64) >> 63).view(np.uint64) | np.uint64(1 << 63)      # all ones where negative
        keys = bits.astype(">u8")
    return np.ascontiguousarray(keys).view(np.dtype((np.void, keys.itemsize * A.shape[1]))).ravel()
