"""The training columns ranked once, the rows of the nodes being split, and every cut of every node.

Shared by the split searches that scan thresholds: C4.5 (information gain,
:mod:`~optitrees.algorithms.c45.split_search`) and TAO (pseudo-label errors,
:mod:`~optitrees.algorithms.local_search.tao`).

:class:`ColumnIndex` ranks each column once per fit. Features with few
distinct values (0/1 indicators, codes: at most :data:`HISTOGRAM_MAX_VALUES`)
are scored from a histogram of a node's rows over their values; the others
from the node's rows in sorted order, sorted once at the root and passed to
the children by a stable partition (:meth:`Level.split`), never sorted again.

:class:`Level` holds the rows of several nodes at once, so one pass of
numpy scores every node of a level of the tree: entry ``e`` is row
``rows[e]`` of node ``node[e]`` with weight ``weights[e]`` (a row with a
missing value lives in both children, with fractional weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

__all__ = ["HISTOGRAM_MAX_VALUES", "ColumnIndex", "Level", "Cuts", "cuts"]

#: Features with at most this many distinct known values are counted into per-node value histograms.
HISTOGRAM_MAX_VALUES = 64


class ColumnIndex:
    """Each column's distinct known values (``values[j]``, ascending) and every row's rank among them.

    The counted features (``counted``) share one flat histogram: feature
    offset plus rank, and one extra bin per feature for a missing value. Each
    row's bins other than its feature's most frequent one (``default_bin``)
    are stored row by row (``other_bins[other_start[r]:other_start[r + 1]]``).
    ``sort_keys``: each row's rank for the ``sorted``
    features (missing: one past the largest rank, so it sorts last).
    """

    def __init__(self, X):
        X = np.asarray(X, float)
        n, p = X.shape
        self.values = [None] * p
        zero, one = X == 0, X == 1
        indicator = np.all(zero | one, axis=0)                              # 0/1 columns: the value is the rank
        n_zero, n_one = np.count_nonzero(zero, axis=0), np.count_nonzero(one, axis=0)
        for j in np.flatnonzero(indicator):
            self.values[j] = np.array([0.0, 1.0][int(n_zero[j] == 0): 1 + int(n_one[j] > 0)])
        coded = np.flatnonzero(~indicator)
        ranks = np.empty((n, len(coded)), np.int32)                         # the other columns, by hashing
        for k, j in enumerate(coded):
            rank, values = pd.factorize(X[:, j], sort=True)
            ranks[:, k] = np.where(rank < 0, len(values), rank)             # missing: one past the largest rank
            self.values[j] = np.asarray(values, float)
        self.n_values = np.array([len(v) for v in self.values], np.int64)
        self.value_offsets = np.r_[0, np.cumsum(self.n_values)[:-1]].astype(np.int64)
        self.all_values = np.concatenate(self.values) if p else np.zeros(0)
        counted = self.n_values <= HISTOGRAM_MAX_VALUES
        self.counted, self.sorted = np.flatnonzero(counted), np.flatnonzero(~counted)
        sizes = self.n_values[self.counted] + 1
        self.bin_offsets = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
        self.n_bins = int(sizes.sum())
        self.bin_column = np.repeat(np.arange(len(self.counted)), sizes)     # position in ``counted`` per bin
        self.is_value_bin = np.ones(self.n_bins, bool)
        self.is_value_bin[self.bin_offsets + sizes - 1] = False
        # each counted feature's most frequent value is left implicit (the node's total less the other bins), so
        # a node's histogram counts only the rows' other values: one per row and one-hot group on one-hot data
        code_of = np.full(p, -1)
        code_of[coded] = np.arange(len(coded))
        # a 0/1 feature's default is 1 when ones outnumber zeros; its other value's rows are where it is not the
        # default (none for a constant column): whole arrays at once, no gather of columns
        ones_default = indicator & (n_one > n_zero) & (n_zero > 0)
        other = one ^ ones_default                                          # on a 0/1 column, zero is ~one
        other &= indicator & (n_zero > 0) & (n_one > 0)
        default_rank = ones_default.astype(np.int64)[self.counted]
        other_rank = (indicator & ~ones_default).astype(np.int64)[self.counted]   # an indicator's other value
        is_indicator = indicator[self.counted]
        if len(self.counted) < p:
            other = other[:, self.counted]
        for c in np.flatnonzero(~is_indicator):
            rank = ranks[:, code_of[self.counted[c]]]
            default_rank[c] = np.argmax(np.bincount(rank, minlength=sizes[c])[:sizes[c] - 1]) if n else 0
            other[:, c] = rank != default_rank[c]
        self.default_bin = self.bin_offsets + default_rank
        # row by row (np.nonzero of the 2-D array took 3x as long as this at 30,000 x 104)
        row, column = np.divmod(np.flatnonzero(other), other.shape[1]) if other.size else (np.zeros(0, int),) * 2
        rank = other_rank[column]
        coded_entry = ~is_indicator[column]
        if coded_entry.any():
            rank[coded_entry] = ranks[row[coded_entry], code_of[self.counted[column[coded_entry]]]]
        self.other_bins = self.bin_offsets[column] + rank
        self.other_start = np.r_[0, np.cumsum(np.bincount(row, minlength=n))].astype(np.int64)
        # ranks in the smallest integer type that holds them: numpy sorts 16-bit keys stably by radix
        self.sort_keys = ranks[:, code_of[self.sorted]].astype(np.min_scalar_type(int(self.n_values.max(initial=0))))

    @property
    def n_features(self) -> int:
        return len(self.values)

    @cached_property
    def wide_sort_keys(self) -> np.ndarray:
        """``sort_keys`` as 32-bit integers: one type whatever the number of values (a compiled scan is compiled
        once per type of its arguments)."""
        return np.ascontiguousarray(self.sort_keys, np.int32)

    def other_bins_of(self, rows) -> tuple[np.ndarray, np.ndarray]:
        """``(entry, bin)``: the non-default bins of each of ``rows``, with the position in ``rows`` they belong to."""
        starts, ends = self.other_start[rows], self.other_start[np.asarray(rows) + 1]
        lengths = ends - starts
        entry = np.repeat(np.arange(len(lengths)), lengths)
        offsets = np.cumsum(lengths) - lengths
        return entry, self.other_bins[np.arange(len(entry)) - np.repeat(offsets - starts, lengths)]

    def level(self, rows, weights) -> "Level":
        """One node holding ``rows`` with ``weights``, its rows sorted by every sorted feature."""
        rows = np.asarray(rows)
        order = np.argsort(self.sort_keys[rows], axis=0, kind="stable").T
        return Level(rows, np.asarray(weights, float), np.zeros(len(rows), np.int64), np.array([len(rows)]),
                     np.ascontiguousarray(order))

    def largest_values_not_above(self, features, x) -> np.ndarray:
        """For each ``(features[k], x[k])``: the largest known training value of the feature ``<= x[k]``."""
        out = np.empty(len(features))
        for k, (j, v) in enumerate(zip(np.asarray(features).tolist(), np.asarray(x, float).tolist())):
            values = self.values[j]
            out[k] = values[np.searchsorted(values, v, side="right") - 1]
        return out


@dataclass
class Level:
    """The rows of ``len(sizes)`` nodes: entries grouped by node (``sizes[k]`` entries of node ``k``).

    ``order[h]`` lists the entries sorted by node, then by the ``h``-th sorted
    feature of the :class:`ColumnIndex`, then by entry (stable).
    """

    rows: np.ndarray
    weights: np.ndarray
    node: np.ndarray
    sizes: np.ndarray
    order: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.sizes)

    @property
    def starts(self) -> np.ndarray:
        sizes = self.sizes.astype(np.int64, copy=False)
        return np.cumsum(sizes) - sizes

    def node_sums(self, values) -> np.ndarray:
        """Per node, the sum of ``values`` (one row of ``values`` per entry)."""
        values = np.asarray(values, float)
        out = np.zeros((self.n_nodes,) + values.shape[1:])
        if len(values):
            nonempty = self.sizes > 0
            out[nonempty] = np.add.reduceat(values, self.starts[nonempty], axis=0)
        return out

    def subset(self, keep_nodes) -> "Level":
        """The level of the nodes with ``keep_nodes`` (bool per node), renumbered in their order."""
        keep = keep_nodes[self.node]
        renumber = np.cumsum(keep_nodes) - 1
        entry = np.cumsum(keep) - 1
        order = entry[self.order[keep[self.order]]].reshape(self.order.shape[0], int(keep.sum()))
        return Level(self.rows[keep], self.weights[keep], renumber[self.node[keep]], self.sizes[keep_nodes], order)

    def split(self, left_weights, right_weights, min_weight) -> tuple["Level", np.ndarray]:
        """The next level: node ``k`` of this level that has weights on either side becomes nodes ``2s`` (left)
        and ``2s + 1`` (right), ``s`` its rank among them; entries below ``min_weight`` on a side are dropped.

        ``left_weights`` / ``right_weights``: each entry's weight going left / right (``nan`` for the entries
        of nodes that do not split). Returns the level and the ids of the nodes that split.
        """
        splitting = ~np.isnan(left_weights)
        split_nodes = np.flatnonzero(np.bincount(self.node[splitting], minlength=self.n_nodes))
        new_parent = np.full(self.n_nodes, -1)
        new_parent[split_nodes] = np.arange(len(split_nodes))
        keep_left = splitting & (left_weights > min_weight)           # ``nan > x`` is false: no test, not kept
        keep_right = splitting & (right_weights > min_weight)
        child = np.concatenate([2 * new_parent[self.node[keep_left]], 2 * new_parent[self.node[keep_right]] + 1])
        grouping = np.argsort(child, kind="stable")                 # two runs, each sorted by parent
        entries = np.concatenate([np.flatnonzero(keep_left), np.flatnonzero(keep_right)])[grouping]
        weights = np.concatenate([left_weights[keep_left], right_weights[keep_right]])[grouping]
        node = child[grouping]
        sizes = np.bincount(node, minlength=2 * len(split_nodes))
        # entry ids of the next level, for each entry of this one on each side (-1: not kept)
        position = np.empty(len(grouping), np.int64)
        position[grouping] = np.arange(len(grouping))
        n_left = int(keep_left.sum())
        left_id = np.full(len(self.rows), -1)
        right_id = np.full(len(self.rows), -1)
        left_id[keep_left] = position[:n_left]
        right_id[keep_right] = position[n_left:]
        # each sorted feature's order: a side's entries keep their order, node by node, and the next level's entry
        # ids of the left children (even nodes) and of the right children (odd nodes) are where they go
        h = self.order.shape[0]
        lefts, rights = left_id[self.order], right_id[self.order]
        order = np.empty((h, len(node)), np.int64)
        is_left = node % 2 == 0
        order[:, is_left] = lefts[lefts >= 0].reshape(h, n_left)
        order[:, ~is_left] = rights[rights >= 0].reshape(h, len(node) - n_left)
        return Level(self.rows[entries], weights, node, sizes, order), split_nodes


@dataclass
class Cuts:
    """The cuts of the nodes of a level, grouped by ``group = node * p + feature``, ascending within a group.

    ``known``: each group's class weights of the rows whose value is known,
    shape ``(K * p, C)``. Per cut: ``left`` its class weights at or below the
    cut, ``left_rows`` how many entries that is, ``lower`` / ``upper`` the
    node's values either side of it.
    """

    known: np.ndarray
    group: np.ndarray
    left: np.ndarray
    left_rows: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def cuts(index: ColumnIndex, level: Level, labels, n_classes, allowed) -> Cuts:
    """Every cut between two present known values of an allowed feature in each node of ``level``, with the
    class weights on its left (``labels``: each entry's class, ``0 .. n_classes - 1``)."""
    p, C, K = index.n_features, n_classes, level.n_nodes
    known = np.zeros((K * p, C))
    groups, lefts, left_rows, lowers, uppers = [], [], [], [], []
    if np.any(allowed[index.counted]) and len(level.rows):
        n_bins = index.n_bins
        entry, bins = index.other_bins_of(level.rows)
        flat_bin = level.node[entry] * n_bins + bins
        # class-major histograms, (C, K * n_bins): each class's cumulative sum runs along contiguous memory
        hist = np.bincount(labels[entry] * (K * n_bins) + flat_bin, weights=level.weights[entry],
                           minlength=C * K * n_bins).reshape(C, K * n_bins)
        rows_in = np.bincount(flat_bin, minlength=K * n_bins)
        # the default bins: the node's totals less the feature's other bins
        totals = np.bincount(labels * K + level.node, weights=level.weights, minlength=C * K).reshape(C, K, 1)
        sizes = np.bincount(level.node, minlength=K).reshape(K, 1)
        starts = index.bin_offsets
        other = np.add.reduceat(hist.reshape(C, K, n_bins), starts, axis=2)  # (C, K, counted)
        other_rows = np.add.reduceat(rows_in.reshape(K, n_bins), starts, axis=1)
        default = (np.arange(K)[:, None] * n_bins + index.default_bin[None]).ravel()
        default_rows = (sizes - other_rows).ravel()
        rows_in[default] = default_rows
        hist[:, default] = np.where(default_rows > 0, (totals - other).reshape(C, -1), 0.0)
        is_value = np.tile(index.is_value_bin, K)
        present = (rows_in > 0) & is_value
        cum = np.concatenate([np.zeros((C, 1)), np.cumsum(hist * is_value, axis=1)], axis=1)
        cum_rows = np.concatenate([[0], np.cumsum(rows_in * is_value)])
        node_offset = (np.arange(K) * n_bins)[:, None]
        first = (node_offset + index.bin_offsets[None]).ravel()             # (K * counted) segment starts
        last = first + np.tile(index.n_values[index.counted], K)
        group_of = (np.arange(K)[:, None] * p + index.counted[None]).ravel()
        known[group_of] = (cum[:, last] - cum[:, first]).T
        b = np.flatnonzero(present)
        segment = b // n_bins * len(index.counted) + index.bin_column[b % n_bins]
        same = segment[:-1] == segment[1:]
        same &= allowed[index.counted[segment[:-1] % len(index.counted)]]
        cut, upper, segment = b[:-1][same], b[1:][same], segment[:-1][same]
        column = segment % len(index.counted)
        value_base = index.value_offsets[index.counted[column]] - index.bin_offsets[column]
        groups.append(group_of[segment])
        lefts.append((cum[:, cut + 1] - cum[:, first[segment]]).T)
        left_rows.append(cum_rows[cut + 1] - cum_rows[first[segment]])
        lowers.append(index.all_values[value_base + cut % n_bins])
        uppers.append(index.all_values[value_base + upper % n_bins])
    columns = np.flatnonzero(allowed[index.sorted])
    if len(columns) and len(level.rows) > 1:
        order = level.order[columns]                                        # (h, m) entries by node and value
        keys = index.sort_keys[level.rows[order], columns[:, None]]
        feature = index.sorted[columns]
        is_known = keys < index.n_values[feature][:, None]
        # per class, the known weight of the entries up to each position: (h, m + 1) each, class by class so
        # each cumulative sum runs along contiguous memory
        cum = []
        for c in range(C):
            known_c = np.where(is_known, np.where(labels == c, level.weights, 0.0)[order], 0.0)
            cum.append(np.concatenate([np.zeros((len(columns), 1)), np.cumsum(known_c, axis=1)], axis=1))
        starts = level.starts
        before = np.stack([cum_c[:, starts] for cum_c in cum], axis=-1)     # (h, K, C) before each node
        known[(np.arange(K)[None] * p + feature[:, None]).ravel()] = \
            (np.stack([cum_c[:, starts + level.sizes] for cum_c in cum], axis=-1) - before).reshape(-1, C)
        node = level.node[order]
        h, i = np.nonzero(is_known[:, 1:] & (keys[:, 1:] != keys[:, :-1]) & (node[:, 1:] == node[:, :-1]))
        k = node[h, i]
        groups.append(k * p + feature[h])
        lefts.append(np.stack([cum_c[h, i + 1] for cum_c in cum], axis=1) - before[h, k])
        left_rows.append(i + 1 - starts[k])
        lowers.append(index.all_values[index.value_offsets[feature[h]] + keys[h, i]])
        uppers.append(index.all_values[index.value_offsets[feature[h]] + keys[h, i + 1]])
    if not groups:
        return Cuts(known, np.zeros(0, np.int64), np.zeros((0, C)), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    return Cuts(known, np.concatenate(groups), np.vstack(lefts), np.concatenate(left_rows).astype(np.int64),
                np.concatenate(lowers), np.concatenate(uppers))
