"""The column index shared by the threshold scans of C4.5 and TAO: value counts, presorted rows, levels."""

import numpy as np

from optitrees.algorithms.column_index import ColumnIndex


def test_the_column_index_counts_every_value_of_every_kind_of_column():
    """0/1 columns (mostly 0, mostly 1, constant), few-valued columns with a missing value and many-valued ones:
    each row's non-default bins plus the default bins give back each feature's value counts."""
    rng = np.random.default_rng(0)
    n = 200
    X = np.column_stack([rng.random(n) < 0.2, rng.random(n) < 0.8, np.ones(n), np.zeros(n),
                         rng.integers(0, 5, n), rng.normal(size=n)]).astype(float)
    X[3, 4] = np.nan
    index = ColumnIndex(X)
    assert list(index.counted) == [0, 1, 2, 3, 4] and list(index.sorted) == [5]
    entry, bins = index.other_bins_of(np.arange(n))
    counts = np.bincount(bins, minlength=index.n_bins)
    for c, j in enumerate(index.counted):
        lo, size = index.bin_offsets[c], index.n_values[j] + 1
        counts[index.default_bin[c]] = n - counts[lo:lo + size].sum()
        values = np.r_[index.values[j], np.nan]
        want = [np.sum(X[:, j] == v) if not np.isnan(v) else np.sum(np.isnan(X[:, j])) for v in values]
        assert counts[lo:lo + size].tolist() == want
    assert np.array_equal(index.values[5][index.sort_keys[:, 0]], X[:, 5])


def test_a_level_split_keeps_every_node_sorted_and_subset_renumbers():
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 2)).round(2)
    X[rng.random((n, 2)) < 0.1] = np.nan
    index = ColumnIndex(X)
    assert len(index.sorted) == 2
    level = index.level(np.arange(n), np.ones(n))
    go = np.where(np.isnan(X[:, 0]), 0.5, (X[:, 0] <= 0).astype(float))         # missing: both sides, half
    nxt, split_nodes = level.split(go, 1.0 - go, 1e-6)
    assert split_nodes.tolist() == [0] and nxt.sizes.tolist() == [np.sum(go > 0), np.sum(go < 1)]
    for k in range(2):
        mine = np.flatnonzero(nxt.node == k)
        assert set(nxt.rows[mine]) == set(np.flatnonzero(go > 0) if k == 0 else np.flatnonzero(go < 1))
        for h in range(len(index.sorted)):
            seq = nxt.order[h][nxt.node[nxt.order[h]] == k]
            keys = index.sort_keys[nxt.rows[seq], h]
            assert np.all(np.diff(keys) >= 0) and sorted(seq) == list(mine)      # each entry once, sorted
    right = nxt.subset(np.array([False, True]))
    assert right.n_nodes == 1 and np.array_equal(right.rows, nxt.rows[nxt.node == 1])
    assert np.all(np.diff(index.sort_keys[right.rows[right.order[0]], 0]) >= 0)
