"""FixedTree routing: on given rows in place, as on a copy of those rows."""

import numpy as np
import pytest

from optitrees.algorithms.fixed_tree import FixedTree


def _tree(oblique):
    rng = np.random.default_rng(0)
    S, p = 7, 5
    W = np.zeros((S, p))
    if oblique:
        W[:] = rng.normal(size=(S, p))
    else:
        W[np.arange(S), rng.integers(0, p, S)] = rng.choice([-2.0, 0.5, 1.0], S)
    active = np.array([True, True, False, True, True, True, False])
    return FixedTree(W, rng.normal(size=S) * 0.3, active, np.zeros(S), np.arange(S + 1) % 3)


@pytest.mark.parametrize("oblique", [False, True])
def test_routing_given_rows_equals_routing_a_copy_of_them(oblique):
    ft = _tree(oblique)
    X = np.random.default_rng(1).normal(size=(200, 5))
    rows = np.random.default_rng(2).choice(200, 60, replace=False)
    for start in (1, 2, 3):
        assert np.array_equal(ft.path(X, start, rows), ft.path(X[rows], start))
        assert np.array_equal(ft.predict(X, start, rows), ft.predict(X[rows], start))
    nodes = np.random.default_rng(3).integers(1, 8, len(rows))
    assert np.array_equal(ft.goes_right(X, nodes, rows), ft.goes_right(X[rows], nodes))
    # an inactive split sends every row right, whatever its values
    assert ft.goes_right(X, np.full(len(rows), 3), rows).all()
