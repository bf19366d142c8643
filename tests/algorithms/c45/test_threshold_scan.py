"""The compiled threshold scan against the numpy path it stands in for: the same cuts and trees, the same numbers up
to the last bits of ``log2`` (which numpy vectorizes differently on different processors)."""

import numpy as np

from optitrees.algorithms.c45.induction import grow_c45, to_tree
from optitrees.algorithms.c45.split_search import hard_candidates
from optitrees.algorithms.column_index import ColumnIndex

#: what both paths choose or count: equal; the sums and gains: equal up to rounding
CHOSEN = ("lower", "upper", "n_cuts")
NUMBERS = ("known_weight", "gain", "left_weight", "right_weight")


def _data(rng, n, missing):
    """0/1 columns, small codes, rounded and continuous normals (histogram and sorted features both)."""
    X = np.c_[rng.integers(0, 2, (n, 3)), rng.integers(0, 5, (n, 2)),
              rng.normal(size=(n, 2)).round(1), rng.normal(size=(n, 2))].astype(float)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _random_level(rng, index, n, weights):
    """A level of 1-4 nodes: the root's rows split at random, some rows sent down both sides in parts."""
    level = index.level(np.arange(n), weights)
    for _ in range(int(rng.integers(0, 3))):
        share = rng.choice([0.0, 1.0, 0.3], size=len(level.rows), p=[0.45, 0.45, 0.1])
        level, _ = level.split(level.weights * share, level.weights * (1 - share), 1e-6)
    return level


def test_scan_level_gives_the_numpy_paths_numbers_and_trees():
    """One test (one compilation per worker): random levels, then whole trees grown both ways."""
    rng = np.random.default_rng(0)
    for trial in range(60):
        n = int(rng.integers(2, 200))
        X = _data(rng, n, missing=trial % 3 == 0)
        n_classes = int(rng.integers(2, 4))
        y = rng.integers(0, n_classes, n)
        weights = rng.uniform(0.1, 3.0, n) if trial % 2 else np.ones(n)
        index = ColumnIndex(X)
        level = _random_level(rng, index, n, weights)
        allowed = rng.random(X.shape[1]) < 0.8
        min_leaf = int(rng.integers(1, 4))
        args = (index, level, y[level.rows], n_classes, allowed, min_leaf)
        numpy_path, compiled = hard_candidates(*args), hard_candidates(*args, compiled=True)
        for name in CHOSEN:
            assert np.array_equal(getattr(numpy_path, name), getattr(compiled, name)), (trial, name)
        for name in NUMBERS:
            assert np.allclose(getattr(numpy_path, name), getattr(compiled, name), rtol=1e-12, atol=1e-12,
                               equal_nan=True), (trial, name)
    for seed, (missing, weighted) in enumerate([(False, False), (True, False), (False, True), (True, True)]):
        rng = np.random.default_rng(seed)
        X = _data(rng, 500, missing)
        y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 5]) > 0.5) ^ (rng.random(500) < 0.2)).astype(int)
        weights = rng.uniform(0.2, 2.0, 500) if weighted else None
        Y = np.eye(2)[y]
        trees = [to_tree(grow_c45(X, Y, allowed=np.ones(X.shape[1], bool), weights=weights, compiled_scan=flag),
                         X.shape[1]) for flag in (False, True)]
        assert trees[0].n_nodes > 5
        for name in ("children_left", "children_right", "threshold", "weights"):
            assert np.array_equal(getattr(trees[0], name), getattr(trees[1], name)), (seed, name)
        assert np.allclose(trees[0].value, trees[1].value, rtol=1e-12), seed


def test_near_ties_are_chosen_by_the_tie_key_not_the_last_bits():
    """Two cuts whose gains differ in the last bits (as numpy's and libm's log2 may on some processor) are a tie:
    the first (smallest threshold) wins in both paths; a gain larger by more than the grid wins."""
    from optitrees.algorithms.c45.split_search import TIE_GRID, choose_tests, tie_key

    for gain in (1.0, 0.5, 0.1234567, 3.0):           # round gains (a perfect split) are mid-step
        assert tie_key(np.nextafter(gain, 0.0)) == tie_key(gain) == tie_key(np.nextafter(gain, 9.0))
        assert tie_key(gain + 2.0 / TIE_GRID) > tie_key(gain) > tie_key(gain - 2.0 / TIE_GRID)
    gains = np.array([[0.3, 0.5, np.nextafter(0.5, 1.0), 0.2]])
    feature, _ = choose_tests(gains, np.ones_like(gains), np.ones_like(gains, bool), "information_gain")
    assert feature.tolist() == [1]
