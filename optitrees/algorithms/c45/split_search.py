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

**Ties by an exact rule.** Gains are logarithms, and numpy's ``log2`` (which
vectorizes differently on different processors) and the compiled scan's libm
``log2`` may differ in their last bits. So a choice never hangs on the last
bits: gains and ratios are compared on a grid of :data:`TIE_GRID` steps per
bit (:func:`tie_key`), and among equal keys the first wins (the smallest
threshold, the lowest feature). Both paths choose by the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ..column_index import ColumnIndex, Level, cuts

__all__ = ["TIE_GRID", "tie_key", "Split", "HardCandidates", "class_sums", "row_entropy", "entropy", "hard_candidates",
           "numeric_gains", "choose_tests", "best_split", "top_tests", "soft_density"]


#: Steps per bit on which gains and gain ratios are compared (2^-40 of a bit, about 1e-12): far above the
#: last-bit differences of ``log2`` between processors, far below any gain difference a split should win by.
TIE_GRID = 2.0 ** 40


def tie_key(values):
    """The comparison key of gains or ratios: ``value * TIE_GRID`` rounded to the nearest integer (``-inf``
    stays). Rounding (not flooring) keeps round gains (1 bit for a perfect split of two equal classes, 0.5 ...)
    in the middle of their step, so their last-bit neighbours share their key."""
    return np.floor(np.asarray(values, float) * TIE_GRID + 0.5)


@dataclass
class Split:
    feature: int
    threshold: float
    gain: float
    gain_ratio: float
    values: tuple | None = None     # a nominal feature's values, one branch each (multiway split)


def class_sums(counts) -> np.ndarray:
    """The total of each row of class weights ``counts`` (``(m, C)``), added class by class.

    The same sums as ``counts.sum(axis=1)`` (numpy adds a short last axis in
    order too), without numpy's slow reduction along a short axis.
    """
    total = counts[:, 0].copy() if counts.shape[1] else np.zeros(len(counts))
    for c in range(1, counts.shape[1]):
        total += counts[:, c]
    return total


def row_entropy(counts, total) -> np.ndarray:
    """Entropy in bits of each row of class weights ``counts`` (``(m, C)``) with totals ``total``
    (:func:`class_sums`); 0 where the total is not positive. Class by class, as :func:`class_sums`."""
    out, positive = np.zeros(len(total)), total > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for c in range(counts.shape[1]):
            p = np.divide(counts[:, c], total, out=np.zeros(len(total)), where=positive)
            out += np.where(p > 0, -p * np.log2(p), 0.0)
    return out


def entropy(counts, axis=-1) -> np.ndarray:
    """Entropy in bits of class-weight vectors along ``axis`` (0 for empty vectors)."""
    counts = np.moveaxis(np.asarray(counts, float), axis, -1)
    rows = counts.reshape(-1, counts.shape[-1])
    return row_entropy(rows, class_sums(rows)).reshape(counts.shape[:-1])


def _split_info(left, right, total):
    shares = np.stack([left, right, np.maximum(total - left - right, 0.0)]) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(shares > 0, -shares * np.log2(shares), 0.0).sum(axis=0)


def _min_split(known_weight, n_classes, min_samples_leaf):
    return np.clip(0.1 * known_weight / n_classes, min_samples_leaf, 25.0)


@dataclass
class HardCandidates:
    """Per node and feature (arrays ``(K, p)``): the best cut of the known rows, as C4.5 release 8 scores it.

    ``gain`` is the information gain of the known rows at the best cut (the
    first of the largest: smallest threshold), ``-inf`` where no cut leaves
    ``min_split`` on each side; ``lower`` / ``upper`` the node's values either
    side of it; ``n_cuts`` the number of cuts that do.
    """

    known_weight: np.ndarray
    gain: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    left_weight: np.ndarray
    right_weight: np.ndarray
    n_cuts: np.ndarray


def hard_candidates(index: ColumnIndex, level: Level, labels, n_classes, allowed,
                    min_samples_leaf, compiled=False) -> HardCandidates:
    """Score every cut between two present values of every allowed feature in every node of ``level``.

    ``labels``: each entry's class (``0 .. n_classes - 1``). Eqs. 2.3-2.6 on the known rows of each cut.
    ``compiled``: by :func:`~optitrees.algorithms.c45.threshold_scan.scan_level` (numba), the same numbers
    (to the last bits of ``log2``) and the same cuts, chosen by :func:`tie_key`, in one pass instead of about 70
    numpy calls.
    """
    p, C, K = index.n_features, n_classes, level.n_nodes
    shape = (K, p)
    if compiled:
        from .threshold_scan import scan_level            # numba is imported (and the scan compiled) on first use

        return HardCandidates(*(a.reshape(shape) for a in scan_level(index, level, labels, n_classes, allowed,
                                                                     min_samples_leaf)))
    found = cuts(index, level, np.asarray(labels), n_classes, allowed)
    known, group, left, lower, upper = found.known, found.group, found.left, found.lower, found.upper
    wk = class_sums(known)
    right = known[group] - left
    wl, wr = class_sums(left), class_sums(right)
    min_split = _min_split(wk, C, min_samples_leaf)[group]
    tol = 1e-9
    valid = (wl >= min_split - tol) & (wr >= min_split - tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = (wl * row_entropy(left, wl) + wr * row_entropy(right, wr)) / wk[group]
    gain = np.where(valid, row_entropy(known, wk)[group] - cond, -np.inf)
    best = np.full(K * p, -np.inf)
    best_lower, best_upper, best_wl, best_wr = np.zeros(K * p), np.zeros(K * p), wk.copy(), wk.copy()
    if len(group):
        starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
        key = tie_key(gain)
        top = np.maximum.reduceat(key, starts)
        lengths = np.concatenate([starts[1:], [len(group)]]) - starts
        first = np.minimum.reduceat(np.where(key == np.repeat(top, lengths), np.arange(len(gain)), len(gain)),
                                    starts)
        g = group[starts]
        best[g], best_lower[g], best_upper[g], best_wl[g], best_wr[g] = \
            gain[first], lower[first], upper[first], wl[first], wr[first]
    n_cuts = np.bincount(group[valid], minlength=K * p)
    return HardCandidates(wk.reshape(shape), best.reshape(shape), best_lower.reshape(shape),
                          best_upper.reshape(shape), best_wl.reshape(shape), best_wr.reshape(shape),
                          n_cuts.reshape(shape))


def _known_share_gain(wk, total, gain_known):
    """The gain of the known rows times their share of the node (C4.5's missing-value rule); ``-inf`` stays."""
    finite = np.isfinite(gain_known)
    return np.where(finite, wk / total * np.where(finite, gain_known, 0.0), -np.inf)


def choose_tests(gain, info, usable, criterion) -> tuple[np.ndarray, np.ndarray]:
    """Per node (rows of ``(K, p)`` arrays): the chosen feature (``-1``: none usable) and its gain ratio.

    ``"gain_ratio"``: the best ratio among the usable features whose gain is
    at least the node's average usable gain (C4.5); ``"information_gain"``: the best gain.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(usable, gain / np.maximum(info, 1e-12), -np.inf)
        if criterion == "information_gain":
            feature = np.argmax(tie_key(np.where(usable, gain, -np.inf)), axis=1)
        else:
            count = usable.sum(axis=1, keepdims=True)
            average = np.where(usable, gain, 0.0).sum(axis=1, keepdims=True) / np.maximum(count, 1)
            ratios = np.where(tie_key(gain) < tie_key(average - 1e-3), -np.inf, ratios)
            feature = np.argmax(tie_key(ratios), axis=1)
    rows = np.arange(len(feature))
    return np.where(usable.any(axis=1), feature, -1), ratios[rows, feature]


def numeric_gains(candidates: HardCandidates, total) -> tuple[np.ndarray, np.ndarray]:
    """Gain (scaled by the known share, less release 8's ``log2(#cuts) / weight``) and split information of
    every node's numeric features (``total``: each node's weight, shape ``(K,)``)."""
    total = np.asarray(total, float)[:, None]
    gain = _known_share_gain(candidates.known_weight, total, candidates.gain) \
        - np.log2(np.maximum(candidates.n_cuts, 1)) / total
    return gain, _split_info(candidates.left_weight, candidates.right_weight, total)


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
               window=6.0, resolution=0.1, max_grid=2000, nominal=None, index=None, rows=None) -> Split | None:
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
    index, rows : the training set's :class:`~optitrees.algorithms.column_index.ColumnIndex` and the node's
        rows in it (by default ``X`` is indexed); ``X`` is then read only by the soft search and nominal features.
    """
    Yw = Y * weights[:, None]
    total = weights.sum()
    nominal = np.zeros(len(allowed), bool) if nominal is None else nominal & allowed
    numeric = allowed & ~nominal
    if search_sigma is None:
        index = ColumnIndex(X) if index is None else index
        level = index.level(np.arange(len(weights)) if rows is None else rows, weights)
        candidates = hard_candidates(index, level, np.argmax(Y, axis=1), Y.shape[1], numeric, min_samples_leaf)
        gain, info = numeric_gains(candidates, [total])
        gain, info, thr = gain[0], info[0], candidates.lower[0]
    else:
        wk, gain_known, thr, wl, wr, n_cuts = _soft_candidates(X, Yw, numeric, min_samples_leaf, search_sigma,
                                                               window, resolution, max_grid)
        gain, info = _known_share_gain(wk, total, gain_known), _split_info(wl, wr, total)
    gain = np.where(numeric, gain, -np.inf)
    multiway = _nominal_candidates(X, Yw, nominal, min_samples_leaf, total)
    for j, (g, si, _) in multiway.items():
        gain[j], info[j] = g, si
    usable = np.isfinite(gain) & (gain > 0)
    feature, ratio = choose_tests(gain[None], info[None], usable[None], criterion)
    j = int(feature[0])
    if j < 0:
        return None
    values = multiway[j][2] if j in multiway else None
    threshold = values[0] if values else thr[j]
    return Split(feature=j, threshold=float(threshold), gain=float(gain[j]), gain_ratio=float(ratio[0]), values=values)


def top_tests(X, Y, weights, *, allowed, k, min_samples_leaf=2) -> list[Split]:
    """The ``k`` features with the largest gain (as :func:`best_split` scores them), each with its best cut.

    UCT-DT's candidate tests of a leaf (seed 000, Algorithm 2, GETACTIONS), one per feature.
    """
    total = weights.sum()
    index = ColumnIndex(X)
    candidates = hard_candidates(index, index.level(np.arange(len(weights)), weights), np.argmax(Y, axis=1),
                                 Y.shape[1], allowed, min_samples_leaf)
    gain, info = numeric_gains(candidates, [total])
    gain, info, thr = gain[0], info[0], candidates.lower[0]
    best = [j for j in np.argsort(-gain, kind="stable") if np.isfinite(gain[j]) and gain[j] > 0][:k]
    return [Split(int(j), float(thr[j]), float(gain[j]), float(gain[j] / max(info[j], 1e-12))) for j in best]
