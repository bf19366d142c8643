"""A constraint group's storage: its row and column indices are int32 where they fit, int64 beyond."""

import numpy as np

from optitrees.formulations import olct
from optitrees.mip import _formulation, _groups
from optitrees.mip._groups import INT32_LIMIT, compact_indices


def test_indices_are_int32_where_they_fit_and_int64_beyond():
    small = compact_indices([np.arange(4, dtype=np.int64), np.array([INT32_LIMIT - 1])])
    assert small.dtype == np.int32 and small.tolist() == [0, 1, 2, 3, INT32_LIMIT - 1]
    large = compact_indices([np.arange(2), np.array([INT32_LIMIT])])
    assert large.dtype == np.int64 and large.tolist() == [0, 1, INT32_LIMIT]
    assert compact_indices([]).dtype == np.int32 and compact_indices([]).size == 0


def test_the_matrix_is_the_same_with_int32_and_with_int64_indices(tiny_xor, monkeypatch):
    f = olct(*tiny_xor, depth=2, tangents="V1")
    assert all(g.rows.dtype == np.int32 and g.cols.dtype == np.int32 for g in f.constraints.values())
    A32 = f.matrix
    monkeypatch.setattr(_groups, "INT32_LIMIT", 3)            # every index "too large": the int64 paths
    monkeypatch.setattr(_formulation, "INT32_LIMIT", 3)
    g = olct(*tiny_xor, depth=2, tangents="V1")
    assert all(c.rows.dtype == np.int64 for c in g.constraints.values() if c.rows.size and c.rows.max() >= 3)
    assert (A32 != g.matrix).nnz == 0 and A32.shape == g.matrix.shape
