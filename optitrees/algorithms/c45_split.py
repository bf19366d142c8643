"""Split search of C4.5 (seed 000, 2.2.2 and 2.2.4) and its soft search (seed 000, 3.2.1).

A node holds training rows with weights (fractional after a missing value or a
soft split). For every feature the search scores binary tests ``x_j <= tau``
on the rows whose value of ``x_j`` is known:

* information gain (eq. 2.3-2.6) of the known rows, multiplied by their share
  of the node's weight (C4.5's missing-value rule, 2.2.4);
* hard search: every cut between two distinct known values that leaves at
  least ``min_split`` weight on each side (C4.5 release 8: ``min_split`` is 10%
  of the known weight per class, clipped to ``[min_samples_leaf, 25]``), the
  best cut by gain, which then pays ``log2(#cuts) / weight`` (release 8's
  penalty for choosing among many thresholds);
* soft search (eqs. 3.5-3.8): the left and right weights of each class are the
  Gaussian-smoothed densities ``rho_L(y, tau) = sum_i N(y, x_i) Phi((tau - x_i) / sigma)``
  on the grid ``tau_min, tau_min + delta sigma, ..., tau_max`` of eq. 3.7.

Across features, ``criterion="gain_ratio"`` divides the gain by the split
information of the left, right and unknown shares and picks the best ratio
among the features whose gain is at least the average gain (C4.5);
a nominal feature splits into one branch per value (C4.5's multiway test);
``"information_gain"`` picks the best gain (the seed's simplification).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

__all__ = ["Split", "entropy", "best_split", "top_tests", "soft_density"]


@dataclass
class Split:
    feature: int
    threshold: float
    gain: float
    gain_ratio: float
    values: tuple | None = None     # a nominal feature's values, one branch each (multiway split)


def entropy(counts, axis=-1) -> np.ndarray:
    """Entropy in bits of class-weight vectors along ``axis`` (0 for empty vectors)."""
    counts = np.asarray(counts, float)
    total = counts.sum(axis=axis, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    return terms.sum(axis=axis)


def _split_info(left, right, total):
    shares = np.stack([left, right, np.maximum(total - left - right, 0.0)]) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(shares > 0, -shares * np.log2(shares), 0.0).sum(axis=0)


def _min_split(known_weight, n_classes, min_samples_leaf):
    return np.clip(0.1 * known_weight / n_classes, min_samples_leaf, 25.0)


def _hard_candidates(X, Yw, allowed, min_samples_leaf):
    """Per feature: (known weight, best gain on known rows, threshold, left weight, right weight, #cuts)."""
    n, p = X.shape
    C = Yw.shape[1]
    order = np.argsort(X, axis=0, kind="stable")               # NaN last
    xs = np.take_along_axis(X, order, axis=0)
    known = ~np.isnan(xs)
    cum = np.cumsum(Yw[order] * known[..., None], axis=0)       # (n, p, C) known class weight up to each row
    known_counts = cum[-1]                                      # (p, C)
    wk = known_counts.sum(axis=1)
    left = cum[:-1]
    right = known_counts[None] - left
    wl, wr = left.sum(axis=2), right.sum(axis=2)
    min_split = _min_split(wk, C, min_samples_leaf)
    tol = 1e-9
    valid = known[1:] & (xs[1:] > xs[:-1]) & (wl >= min_split - tol) & (wr >= min_split - tol) & allowed[None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = (wl * entropy(left) + wr * entropy(right)) / wk
    gain = np.where(valid, entropy(known_counts)[None] - cond, -np.inf)
    best = np.argmax(gain, axis=0) if n > 1 else np.zeros(p, np.int64)
    cols = np.arange(p)
    best_gain = gain[best, cols] if n > 1 else np.full(p, -np.inf)
    threshold = xs[best, cols]
    return wk, best_gain, threshold, wl[best, cols] if n > 1 else wk, wr[best, cols] if n > 1 else wk, \
        valid.sum(axis=0)


def soft_density(x, Yw, tau, sigma, window=None) -> np.ndarray:
    """``rho_L(y, tau)`` of eq. 3.5 for each candidate ``tau``: shape ``(len(tau), n_classes)``.

    ``Phi((tau - x_i) / sigma)`` is the probability that the measurement ``x_i``
    plus Gaussian noise of deviation ``sigma`` falls left of ``tau`` (eq. 3.9).
    With ``window`` (omega), the kernel is cut at ``|tau - x_i| > omega sigma`` as
    in 3.2.1: values further left count fully, further right not at all, and
    only the pairs inside the window evaluate ``Phi`` (``tau`` ascending).
    """
    values, inverse = np.unique(x, return_inverse=True)
    per_value = np.zeros((len(values), Yw.shape[1]))
    np.add.at(per_value, inverse, Yw)                           # N(y, x^(i))
    if window is None:
        return ndtr((tau[:, None] - values[None, :]) / sigma) @ per_value
    lo, hi = tau - window * sigma, tau + window * sigma
    below = np.searchsorted(values, lo, side="left")            # values with x_i < tau_k - omega sigma
    cumulative = np.vstack([np.zeros(Yw.shape[1]), np.cumsum(per_value, axis=0)])
    out = cumulative[below]
    first = np.searchsorted(hi, values, side="left")            # first k with x_i <= tau_k + omega sigma
    last = np.searchsorted(lo, values, side="right")            # one past the last k with tau_k - omega sigma <= x_i
    lengths = np.maximum(last - first, 0)
    if lengths.sum():
        owner = np.repeat(np.arange(len(values)), lengths)
        ks = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) + np.repeat(first, lengths)
        phi = ndtr((tau[ks] - values[owner]) / sigma)
        for c in range(Yw.shape[1]):
            out[:, c] += np.bincount(ks, weights=phi * per_value[owner, c], minlength=len(tau))
    return out


def _soft_candidates(X, Yw, allowed, min_samples_leaf, sigma, window, resolution, max_grid):
    n, p = X.shape
    C = Yw.shape[1]
    out = [np.zeros(p), np.full(p, -np.inf), np.zeros(p), np.zeros(p), np.zeros(p), np.zeros(p, np.int64)]
    for j in np.flatnonzero(allowed):
        known = ~np.isnan(X[:, j])
        x, yw = X[known, j], Yw[known]
        wk = yw.sum()
        out[0][j] = wk
        if wk <= 0 or sigma[j] <= 0 or np.ptp(x) == 0:
            continue
        lo, hi = x.min() - window * sigma[j] / 2, x.max() + window * sigma[j] / 2
        step = max(resolution * sigma[j], (hi - lo) / max_grid)
        tau = np.arange(lo, hi + step / 2, step)
        left = soft_density(x, yw, tau, sigma[j], window)
        right = yw.sum(axis=0)[None] - left
        wl, wr = left.sum(axis=1), right.sum(axis=1)
        ms = _min_split(wk, C, min_samples_leaf)
        valid = (wl >= ms) & (wr >= ms)
        if not valid.any():
            continue
        gain = np.where(valid, entropy(yw.sum(axis=0)) - (wl * entropy(left) + wr * entropy(right)) / wk, -np.inf)
        b = int(np.argmax(gain))
        run_end = b + int(np.argmin(np.r_[gain[b:] >= gain[b] - 1e-12, False]))
        b = (b + run_end - 1) // 2                              # the middle of a flat maximum
        out[1][j], out[2][j], out[3][j], out[4][j], out[5][j] = gain[b], tau[b], wl[b], wr[b], valid.sum()
    return out


def _nominal_candidates(X, Yw, nominal, min_samples_leaf, total):
    """Per nominal feature: ``(gain scaled by the known share, split information, sorted values)`` of the
    multiway split with one branch per value (C4.5); ``-inf`` gain unless two branches reach ``min_samples_leaf``."""
    out = {}
    for j in np.flatnonzero(nominal):
        known = ~np.isnan(X[:, j])
        values, inverse = np.unique(X[known, j], return_inverse=True)
        per_value = np.zeros((len(values), Yw.shape[1]))
        np.add.at(per_value, inverse, Yw[known])
        w = per_value.sum(axis=1)
        wk = w.sum()
        if wk <= 0 or np.count_nonzero(w >= min_samples_leaf - 1e-9) < 2:
            out[j] = (-np.inf, 1.0, tuple(values))
            continue
        gain = wk / total * (entropy(per_value.sum(axis=0)) - (w * entropy(per_value)).sum() / wk)
        shares = np.r_[w, total - wk] / total
        shares = shares[shares > 0]
        out[j] = (gain, float(-(shares * np.log2(shares)).sum()), tuple(float(v) for v in values))
    return out


def best_split(X, Y, weights, *, allowed, min_samples_leaf=2, criterion="gain_ratio", search_sigma=None,
               window=6.0, resolution=0.1, max_grid=2000, nominal=None) -> Split | None:
    """The C4.5 test of a node, or ``None`` when no test gains information.

    Parameters
    ----------
    X : ndarray (n, p) with ``nan`` for missing values; Y : one-hot classes (n, C);
    weights : weight of each row (fractional rows after missing values / soft splits).
    allowed : bool mask of features that may be tested.
    search_sigma : per-feature noise deviation for the soft search (``None``: hard search).
    window, resolution : omega and delta of eq. 3.7; ``max_grid`` caps the grid size.
    nominal : bool mask of nominal features: one branch per value (C4.5's multiway split, gain and
        gain ratio over all branches, no threshold penalty); the others are numeric.
    """
    Yw = Y * weights[:, None]
    total = weights.sum()
    nominal = np.zeros(X.shape[1], bool) if nominal is None else nominal & allowed
    numeric = allowed & ~nominal
    if search_sigma is None:
        wk, gain_known, thr, wl, wr, n_cuts = _hard_candidates(X, Yw, numeric, min_samples_leaf)
    else:
        wk, gain_known, thr, wl, wr, n_cuts = _soft_candidates(X, Yw, numeric, min_samples_leaf, search_sigma,
                                                               window, resolution, max_grid)
    gain = wk / total * gain_known
    if search_sigma is None:
        gain = gain - np.log2(np.maximum(n_cuts, 1)) / total
    gain = np.where(numeric, gain, -np.inf)
    info = _split_info(wl, wr, total)
    multiway = _nominal_candidates(X, Yw, nominal, min_samples_leaf, total)
    for j, (g, si, _) in multiway.items():
        gain[j], info[j] = g, si
    usable = np.isfinite(gain) & (gain > 0)
    if not usable.any():
        return None
    if criterion == "information_gain":
        j = int(np.argmax(np.where(usable, gain, -np.inf)))
        ratio = gain[j] / max(info[j], 1e-12)
    else:
        ratios = np.where(usable, gain / np.maximum(info, 1e-12), -np.inf)
        average = gain[usable].mean()
        ratios[gain < average - 1e-3] = -np.inf
        j = int(np.argmax(ratios))
        ratio = ratios[j]
    values = multiway[j][2] if j in multiway else None
    threshold = values[0] if values else float(thr[j])
    return Split(feature=j, threshold=float(threshold), gain=float(gain[j]), gain_ratio=float(ratio), values=values)


def top_tests(X, Y, weights, *, allowed, k, min_samples_leaf=2) -> list[Split]:
    """The ``k`` features with the largest gain (as :func:`best_split` scores them), each with its best cut.

    UCT-DT's candidate tests of a leaf (seed 000, Algorithm 2, GETACTIONS), one per feature.
    """
    Yw = Y * weights[:, None]
    total = weights.sum()
    wk, gain_known, thr, wl, wr, n_cuts = _hard_candidates(X, Yw, allowed, min_samples_leaf)
    gain = wk / total * gain_known - np.log2(np.maximum(n_cuts, 1)) / total
    order = [j for j in np.argsort(-gain, kind="stable") if np.isfinite(gain[j]) and gain[j] > 0][:k]
    return [Split(int(j), float(thr[j]), float(gain[j]), float(gain[j] / max(_split_info(wl[j], wr[j], total), 1e-12)))
            for j in order]
