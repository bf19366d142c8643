"""Rows of a Pyomo model kept in sparse form until first read: made right, one group at a time, and safe to
replace, delete, clone and pickle before they are made."""

import pickle

import numpy as np
import pytest
from pyomo.core.base.constraint import ConstraintData
from pyomo.environ import Var
from pyomo.repn import generate_standard_repn

from optitrees.formulations import olct
from optitrees.mip._pyomo_rows import SparseRowData


def _row(f, m, group, key):
    """The matrix row of ``m.<group>[key]`` in column positions, from the Pyomo expression."""
    con = m.component(group)[key]
    repn = generate_standard_repn(con.body)
    position = {id(v): j for j, v in enumerate(m._optitrees_columns)}
    row = np.zeros(f.n_cols)
    for c, v in zip(repn.linear_coefs, repn.linear_vars):
        row[position[id(v)]] += c
    return row, con.lb, con.ub


def _matrix_row(f, group, position):
    r = f.constraints[group].start + position
    return f.matrix[r].toarray().ravel(), f.row_lower[r], f.row_upper[r]


@pytest.fixture
def model(tiny_xor):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1")
    return f, f.to_pyomo()


def test_rows_are_sparse_until_a_row_of_their_group_is_read(model):
    f, m = model
    assert all(con.__class__ is SparseRowData for con in m.forward_left.values())
    key = list(m.forward_right)[3]
    row, lb, ub = _row(f, m, "forward_right", key)
    expected, lo, up = _matrix_row(f, "forward_right", 3)
    np.testing.assert_array_equal(row, expected)
    assert (lb if lb is not None else -np.inf, ub if ub is not None else np.inf) == (lo, up)
    assert all(con.__class__ is ConstraintData for con in m.forward_right.values())   # the whole group at once
    assert all(con.__class__ is SparseRowData for con in m.forward_left.values())     # the others left alone


def test_a_replaced_or_deleted_row_leaves_the_others_right(model):
    f, m = model
    keys = list(m.forward_left)
    m.forward_left[keys[0]].set_value(m.z[keys[0][1], 2] <= 1)
    del m.forward_left[keys[1]]
    assert str(m.forward_left[keys[0]].expr) == str(m.z[keys[0][1], 2] <= 1)
    assert keys[1] not in m.forward_left
    for position in (2, len(keys) - 1):
        row, _, _ = _row(f, m, "forward_left", keys[position])
        np.testing.assert_array_equal(row, _matrix_row(f, "forward_left", position)[0])


def test_a_clone_and_a_pickle_make_their_rows_on_their_own_variables(model):
    f, m = model
    key = list(m.forward_left)[5]
    for copy in (m.clone(), pickle.loads(pickle.dumps(m))):
        assert copy.forward_left[key].__class__ is SparseRowData
        used = generate_standard_repn(copy.forward_left[key].body).linear_vars
        owned = {id(v) for v in copy.component_data_objects(Var)}
        assert used and all(id(v) in owned for v in used)
        row, _, _ = _row(f, copy, "forward_left", key)
        np.testing.assert_array_equal(row, _matrix_row(f, "forward_left", 5)[0])
    assert m.forward_left[key].__class__ is SparseRowData              # the original is untouched
