"""The training columns ranked once, and the rows of the nodes being split (C4.5's hard split search).

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

import numpy as np
import pandas as pd

__all__ = ["HISTOGRAM_MAX_VALUES", "ColumnIndex", "Level"]

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
        self.values, ranks = [], np.empty((n, p), np.int32)
        for j in range(p):
            rank, values = pd.factorize(X[:, j], sort=True)    # by hashing; missing: -1
            ranks[:, j] = np.where(rank < 0, len(values), rank)
            self.values.append(np.asarray(values, float))
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
        bins = ranks[:, self.counted] + self.bin_offsets.astype(np.int32)
        # each counted feature's most frequent bin is left implicit (the node's total less the other bins), so
        # a node's histogram counts only the rows' other bins: one per row and one-hot group on one-hot data
        frequency = np.bincount(bins.ravel(), minlength=self.n_bins)
        self.default_bin = np.array([self.bin_offsets[c] + np.argmax(frequency[self.bin_offsets[c]:
                                                                              self.bin_offsets[c] + sizes[c]])
                                     for c in range(len(self.counted))], np.int64)
        other = bins != self.default_bin[None].astype(np.int32)
        self.other_bins = bins[other].astype(np.int64)                      # row by row
        self.other_start = np.r_[0, np.cumsum(other.sum(axis=1))].astype(np.int64)
        self.sort_keys = ranks[:, self.sorted]

    @property
    def n_features(self) -> int:
        return len(self.values)

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
        for k, (j, v) in enumerate(zip(features, x)):
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
        return np.r_[0, np.cumsum(self.sizes)[:-1]].astype(np.int64)

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
        split_nodes = np.unique(self.node[splitting])
        new_parent = np.full(self.n_nodes, -1)
        new_parent[split_nodes] = np.arange(len(split_nodes))
        keep_left = splitting & (np.nan_to_num(left_weights) > min_weight)
        keep_right = splitting & (np.nan_to_num(right_weights) > min_weight)
        child = np.r_[2 * new_parent[self.node[keep_left]], 2 * new_parent[self.node[keep_right]] + 1]
        grouping = np.argsort(child, kind="stable")                 # two runs, each sorted by parent
        entries = np.r_[np.flatnonzero(keep_left), np.flatnonzero(keep_right)][grouping]
        weights = np.r_[left_weights[keep_left], right_weights[keep_right]][grouping]
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
        h = self.order.shape[0]
        lefts, rights = left_id[self.order], right_id[self.order]
        ids = np.hstack([lefts[lefts >= 0].reshape(h, n_left), rights[rights >= 0].reshape(h, len(node) - n_left)])
        order = np.take_along_axis(ids, np.argsort(node[ids], axis=1, kind="stable"), axis=1)
        return Level(self.rows[entries], weights, node, sizes, order), split_nodes
