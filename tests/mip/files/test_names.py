"""Names as files write them: the formulation's names, copied from the index sets' file labels."""

import numpy as np

from optitrees.formulations import olct
from optitrees.mip.files.names import file_labels, names
from optitrees.mip.files.pieces import Pool

from _support import pool_strings


def test_names_are_the_formulations_names_with_a_leading_space(tiny_xor):
    """Groups of zero to three index sets, in row-major order, as ``Formulation.column_names`` spells them."""
    f = olct(*tiny_xor, depth=2, tangents="V1")
    f.add_set("one", [0])
    f.add_variables("scalar", ())
    pool = Pool()
    columns, rows = names(f, list(f.variables.values()), list(f.constraints.values()))
    first_col, first_row = pool.add(*columns), pool.add(*rows)
    pool.finish()
    assert any(len(g.dims) == 3 for g in f.constraints.values())
    assert pool_strings(pool, first_col + np.arange(f.n_cols)) == [" " + n for n in f.column_names()]
    assert pool_strings(pool, first_row + np.arange(f.n_rows)) == [" " + n for n in f.row_names()]
    assert pool_strings(pool, [first_col + f.n_cols - 1]) == [" scalar()"]


def test_file_labels_keep_safe_labels_and_make_the_others_safe():
    assert file_labels(np.arange(3)).tolist() == ["0", "1", "2"]
    assert file_labels(["age", "mean_radius", "neg1.9"]).tolist() == ["age", "mean_radius", "neg1.9"]
    assert file_labels(["capital gain", "capital-gain", "x>=1"]).tolist() == ["capital_gain", "capital_gain_1",
                                                                             "x__1"]
