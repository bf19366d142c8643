"""The compiled threshold scan against the numpy path it stands in for: the same numbers to the bit, the same trees."""

import time

import numpy as np

from optitrees.algorithms.c45 import induction
from optitrees.algorithms.c45.induction import COMPILED_SCAN_MIN_ROWS, grow_c45, to_tree
from optitrees.algorithms.c45.split_search import hard_candidates
from optitrees.algorithms.column_index import ColumnIndex

FIELDS = ("known_weight", "gain", "lower", "upper", "left_weight", "right_weight", "n_cuts")


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
        for name in FIELDS:
            assert np.array_equal(getattr(numpy_path, name), getattr(compiled, name)), (trial, name)
    for seed, (missing, weighted) in enumerate([(False, False), (True, False), (False, True), (True, True)]):
        rng = np.random.default_rng(seed)
        X = _data(rng, 500, missing)
        y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 5]) > 0.5) ^ (rng.random(500) < 0.2)).astype(int)
        weights = rng.uniform(0.2, 2.0, 500) if weighted else None
        Y = np.eye(2)[y]
        trees = [to_tree(grow_c45(X, Y, allowed=np.ones(X.shape[1], bool), weights=weights, compiled_scan=flag),
                         X.shape[1]) for flag in (False, True)]
        assert trees[0].n_nodes > 5
        for name in ("children_left", "children_right", "threshold", "value", "weights"):
            assert np.array_equal(getattr(trees[0], name), getattr(trees[1], name)), (seed, name)


def test_the_compiled_scan_is_loaded_from_a_second_large_fit_with_time_to_compile(monkeypatch):
    class NotLoaded:
        @staticmethod
        def is_loaded():
            return False

    monkeypatch.setitem(__import__("sys").modules, "optitrees.algorithms.c45.threshold_scan", NotLoaded)
    monkeypatch.setattr(induction, "_large_growths", 0)
    pays = induction.compiled_scan_pays
    big = COMPILED_SCAN_MIN_ROWS
    assert not pays(big - 1, None)                          # small data: the numpy path, and not counted
    assert not pays(big, None)                              # a process's first large fit: no 0.8 s load
    assert induction._large_growths == 1
    assert pays(big, None)                                  # the second, with no time limit: load it (compile once)
    assert not pays(big, time.perf_counter() + 1.0)         # 1 s left: a first compilation could take 7
    assert pays(big, time.perf_counter() + induction.COMPILE_SECONDS + 1.0)
    NotLoaded.is_loaded = staticmethod(lambda: True)
    assert pays(big, time.perf_counter() + 1.0)             # already in this process: nothing to load
    assert not pays(big - 1, None)


def test_a_growth_uses_the_compiled_scan_only_when_asked(monkeypatch):
    """``grow_c45`` (UCT-DT's completions: many growths under the search's own deadline) keeps the numpy path
    unless told; ``compiled_scan=None`` asks :func:`compiled_scan_pays`."""
    asked = []
    monkeypatch.setattr(induction, "compiled_scan_pays", lambda n, deadline: asked.append(n) or False)
    rng = np.random.default_rng(0)
    X = _data(rng, 50, missing=False)
    Y = np.eye(2)[(X[:, 5] > 0).astype(int)]
    grow_c45(X, Y, allowed=np.ones(X.shape[1], bool))
    assert asked == []
    grow_c45(X, Y, allowed=np.ones(X.shape[1], bool), compiled_scan=None)
    assert asked == [50]
