"""C4.5's threshold scan of a whole level of nodes, compiled with numba (seed 000, eqs. 2.3-2.6).

:func:`~optitrees.algorithms.c45.split_search.hard_candidates` needs, for every
node and feature of a level, the best cut of the known rows by information gain
and how many cuts leave ``min_split`` weight on each side. Done with numpy
(:func:`~optitrees.algorithms.column_index.cuts` then array arithmetic) that is
about 70 calls a level, whatever the level's size: a tree of 34 levels on 4,000
rows spent 1-2 ms a level in them. :func:`scan_level` does the same in one
compiled pass over each node's histograms (features with few values) and sorted
entries (the others).

The arithmetic is the numpy path's, in its order: histograms and running sums
add in entry order, a feature's bins are totalled as ``numpy.add.reduceat`` does
(first bin, plus numpy's pairwise sum of the rest), class weights are added class
by class and entropies use ``log2``. numpy's ``log2`` is vectorized differently
on different processors, so the entropies may differ from the numpy path's in
their last bits; both paths therefore choose cuts by the same tie keys
(:func:`~optitrees.algorithms.c45.split_search.tie_key`), and the choices, and
the trees, are the same (``tests/algorithms/c45/test_threshold_scan.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..column_index import ColumnIndex, Level
from .split_search import TIE_GRID

_TIE_GRID = TIE_GRID              # a module global: numba freezes it into the compiled scan

__all__ = ["scan_level", "is_loaded"]


@njit(cache=True, error_model="numpy")
def _pairwise_sum(a, start, n):
    """numpy's pairwise sum of ``a[start:start + n]`` for ``n <= 128`` (one block: below 8 elements in order,
    else eight running sums combined pairwise, then the rest in order)."""
    res = 0.0
    if n < 8:
        for i in range(n):
            res += a[start + i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[start + i]
        r1 += a[start + i + 1]
        r2 += a[start + i + 2]
        r3 += a[start + i + 3]
        r4 += a[start + i + 4]
        r5 += a[start + i + 5]
        r6 += a[start + i + 6]
        r7 += a[start + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[start + i]
        i += 1
    return res


@njit(cache=True, error_model="numpy")
def _entropy(counts, total):
    """Entropy in bits of the class weights ``counts`` with total ``total`` (0 when the total is not positive)."""
    out = 0.0
    for c in range(counts.shape[0]):
        p = counts[c] / total if total > 0 else 0.0
        out += -p * math.log2(p) if p > 0 else 0.0
    return out


@njit(cache=True, error_model="numpy")
def _class_sum(counts):
    total = counts[0]
    for c in range(1, counts.shape[0]):
        total += counts[c]
    return total


@njit(cache=True, error_model="numpy")
def _score_cut(group, left, right, known, known_entropy, n_classes, min_samples_leaf, lower, upper, wk, best,
               best_lower, best_upper, best_wl, best_wr, n_cuts, seen):
    """Score one cut of ``group`` (left class weights ``left``; ``right`` is filled here; the group's known class
    weights ``known``, their total ``wk`` and entropy ``known_entropy``) and keep it when it is the group's first
    or beats its best on the grid of :data:`~optitrees.algorithms.c45.split_search.TIE_GRID` (ties keep the
    first: the smallest threshold)."""
    for c in range(n_classes):
        right[c] = known[c] - left[c]
    wl, wr = _class_sum(left), _class_sum(right)
    min_split = min(max(0.1 * wk / n_classes, min_samples_leaf), 25.0)
    valid = (wl >= min_split - 1e-9) and (wr >= min_split - 1e-9)
    if valid:
        cond = (wl * _entropy(left, wl) + wr * _entropy(right, wr)) / wk
        gain = known_entropy - cond
        n_cuts[group] += 1
    else:
        gain = -np.inf
    if not seen[group] or math.floor(gain * _TIE_GRID + 0.5) > math.floor(best[group] * _TIE_GRID + 0.5):
        seen[group] = True
        best[group], best_lower[group], best_upper[group], best_wl[group], best_wr[group] = gain, lower, upper, wl, wr


@njit(cache=True, error_model="numpy")
def _scan(rows, node, weights, labels, n_nodes, n_classes, n_features, min_samples_leaf, allowed,
          other_start, other_bins, n_bins, counted, bin_offsets, counted_values, default_bin, is_value_bin,
          sorted_features, order, sort_keys, n_values, value_offsets, all_values):
    K, C, p = n_nodes, n_classes, n_features
    wk = np.zeros(K * p)
    best = np.full(K * p, -np.inf)
    best_lower, best_upper = np.zeros(K * p), np.zeros(K * p)
    best_wl, best_wr = np.zeros(K * p), np.zeros(K * p)
    n_cuts = np.zeros(K * p, np.int64)
    seen = np.zeros(K * p, np.bool_)
    m = rows.shape[0]
    sizes = np.zeros(K, np.int64)
    for e in range(m):
        sizes[node[e]] += 1
    starts = np.zeros(K, np.int64)
    for k in range(1, K):
        starts[k] = starts[k - 1] + sizes[k - 1]
    n_counted = counted.shape[0]
    any_counted = False
    for col in range(n_counted):
        any_counted = any_counted or allowed[counted[col]]
    if any_counted and m > 0:
        # every node's histogram over the counted features' bins (class-major, as the numpy path lays it out)
        hist = np.zeros((C, K * n_bins))
        rows_in = np.zeros(K * n_bins, np.int64)
        totals = np.zeros((C, K))
        for e in range(m):
            r = rows[e]
            base = node[e] * n_bins
            for t in range(other_start[r], other_start[r + 1]):
                hist[labels[e], base + other_bins[t]] += weights[e]
                rows_in[base + other_bins[t]] += 1
        for e in range(m):
            totals[labels[e], node[e]] += weights[e]
        # each feature's most frequent bin: the node's totals less the feature's other bins
        for k in range(K):
            for col in range(n_counted):
                first = k * n_bins + bin_offsets[col]
                end = k * n_bins + (bin_offsets[col + 1] if col + 1 < n_counted else n_bins)
                other_rows = 0
                for b in range(first, end):
                    other_rows += rows_in[b]
                default_rows = sizes[k] - other_rows
                d = k * n_bins + default_bin[col]
                rows_in[d] = default_rows
                for c in range(C):
                    other = hist[c, first] + _pairwise_sum(hist[c], first + 1, end - first - 1)
                    hist[c, d] = totals[c, k] - other if default_rows > 0 else 0.0
        # running sums of the value bins (not the missing ones) over all nodes, as one cumulative sum
        cum = np.zeros((C, K * n_bins + 1))
        for c in range(C):
            for b in range(K * n_bins):
                cum[c, b + 1] = cum[c, b] + (hist[c, b] if is_value_bin[b % n_bins] else 0.0)
        left, right = np.empty(C), np.empty(C)
        group_known = np.empty(C)
        for k in range(K):
            for col in range(n_counted):
                j = counted[col]
                g = k * p + j
                first = k * n_bins + bin_offsets[col]
                last = first + counted_values[col]
                for c in range(C):
                    group_known[c] = cum[c, last] - cum[c, first]
                wk[g] = _class_sum(group_known)
                if not allowed[j]:
                    continue
                known_entropy = _entropy(group_known, wk[g])
                previous = -1
                for b in range(first, last):
                    if rows_in[b] == 0:
                        continue
                    if previous >= 0:
                        for c in range(C):
                            left[c] = cum[c, previous + 1] - cum[c, first]
                        base = value_offsets[j] - bin_offsets[col] - k * n_bins
                        _score_cut(g, left, right, group_known, known_entropy, C, min_samples_leaf,
                                   all_values[base + previous], all_values[base + b], wk[g], best, best_lower,
                                   best_upper, best_wl, best_wr, n_cuts, seen)
                    previous = b
    if m > 1:
        cum_s = np.zeros((C, m + 1))
        left, right = np.empty(C), np.empty(C)
        group_known = np.empty(C)
        for h in range(sorted_features.shape[0]):
            j = sorted_features[h]
            if not allowed[j]:
                continue
            entries = order[h]
            for i in range(m):                              # each class's known weight up to each position
                e = entries[i]
                known_entry = sort_keys[rows[e], h] < n_values[j]
                for c in range(C):
                    cum_s[c, i + 1] = cum_s[c, i] + (weights[e] if known_entry and labels[e] == c else 0.0)
            for k in range(K):
                g = k * p + j
                s, end = starts[k], starts[k] + sizes[k]
                for c in range(C):
                    group_known[c] = cum_s[c, end] - cum_s[c, s]
                wk[g] = _class_sum(group_known)
                known_entropy = _entropy(group_known, wk[g])
                for i in range(s, end - 1):
                    key, next_key = sort_keys[rows[entries[i]], h], sort_keys[rows[entries[i + 1]], h]
                    if next_key >= n_values[j] or next_key == key:
                        continue
                    for c in range(C):
                        left[c] = cum_s[c, i + 1] - cum_s[c, s]
                    _score_cut(g, left, right, group_known, known_entropy, C, min_samples_leaf,
                               all_values[value_offsets[j] + key], all_values[value_offsets[j] + next_key], wk[g],
                               best, best_lower, best_upper, best_wl, best_wr, n_cuts, seen)
    for g in range(K * p):
        if not seen[g]:                                     # no cut: the known weight on both sides
            best_wl[g], best_wr[g] = wk[g], wk[g]
    return wk, best, best_lower, best_upper, best_wl, best_wr, n_cuts


def is_loaded() -> bool:
    """Whether this process has the compiled scan (compiled or loaded from numba's cache) ready to run."""
    return bool(_scan.signatures)


def scan_level(index: ColumnIndex, level: Level, labels, n_classes, allowed, min_samples_leaf):
    """Per node and feature of ``level`` (arrays of ``n_nodes * n_features``, node-major): the known weight,
    the best cut's information gain (``-inf`` where no cut leaves ``min_split`` on each side), the node's
    values either side of it, its left and right weights, and the number of cuts that leave ``min_split``.

    ``labels``: each entry's class. The cuts are those of
    :func:`~optitrees.algorithms.column_index.cuts`, scored by eqs. 2.3-2.6.
    """
    if index.n_values[index.counted].max(initial=0) > 128:    # past 128, numpy's pairwise sum splits into blocks
        raise ValueError("scan_level: a counted feature has more than 128 values")
    sorted_features = index.sorted.astype(np.int64)
    order = level.order if len(sorted_features) else np.zeros((0, len(level.rows)), np.int64)
    return _scan(np.asarray(level.rows, np.int64), np.asarray(level.node, np.int64),
                 np.asarray(level.weights, float), np.asarray(labels, np.int64), level.n_nodes, n_classes,
                 index.n_features, float(min_samples_leaf), np.ascontiguousarray(allowed, np.bool_),
                 index.other_start, index.other_bins, index.n_bins, index.counted, index.bin_offsets,
                 index.n_values[index.counted], index.default_bin, index.is_value_bin, sorted_features,
                 np.ascontiguousarray(order, np.int64), index.wide_sort_keys, index.n_values, index.value_offsets,
                 index.all_values)
