"""Writing .mps / .lp from the arrays: every array of the model read back by HiGHS, by name, for every kind of bound
and row, from the compiled writer and from HiGHS's writer (what ``write`` falls back to without numba and polars),
the files read by SCIP, and the same bytes whatever the buffer size or the number of formatting threads."""

import highspy
import numpy as np
import pytest

from optitrees import solvers
from optitrees.formulations import margot, olct
from optitrees.mip import Formulation
from optitrees.mip.files import FileWriter, write
from _support import needs_scip

#: both writers: every read-back test runs on each
WRITERS = pytest.mark.parametrize("writer", [FileWriter.COMPILED, FileWriter.HIGHS], ids=["compiled", "highs"])


def _every_kind(quadratic=False, ranged=True, isolated=True):
    """Columns with every kind of bound and domain, rows of every sense, an objective constant; with ``isolated``
    a column at the default bounds in no row and not in the objective."""
    f = Formulation("kinds")
    f.add_set("K", ["a", "b"])
    f.add_set("one", [0])
    groups = [f.add_variables("bin", ("K",), domain="binary"),
              f.add_variables("int", ("K",), [-3.0, 0.0], [5.0, np.inf], domain="integer"),
              f.add_variables("free", ("K",)),
              f.add_variables("upper", ("K",), -np.inf, [2.0, -1.5]),
              f.add_variables("lower", ("K",), [1.0, -0.25], np.inf),
              f.add_variables("fixed", ("K",), 0.7, 0.7),
              f.add_variables("plain", ("K",), 0.0, np.inf),
              f.add_variables("boxed", ("K",), [-1.0, 0.5], [1.0, 3.0])]
    cols = np.concatenate([g.columns for g in groups])
    rng = np.random.default_rng(0)
    coefs = np.round(rng.normal(size=(5, len(cols))), 3) * (rng.random((5, len(cols))) < 0.6)
    coefs[:, 0] = [1e-7, 123456.789, 1.0 / 3.0, -2.5, 0.0]
    coefs[:, cols == groups[6].columns[0]] = 0.0                      # plain(a) in no row
    bounds = [(1.0, 1.0), (-2.0, np.inf), (-np.inf, 4.0), (-1.0, 3.0) if ranged else (-1.0, np.inf),
              (-np.inf, 0.5)]
    for k, (row, (lo, up)) in enumerate(zip(coefs, bounds)):
        f.add_constraints(f"row{k}", ("one",), [(cols.reshape(1, -1), row.reshape(1, -1))], lower=lo, upper=up)
    f.add_objective(groups[2], [1.5, -2.0])
    f.add_objective(groups[0], [0.1, 7.0])
    if not isolated:
        f.add_objective(groups[6], [0.5, 0.0])
    f.objective_offset = -4.25
    if quadratic:
        f.add_quadratic_objective(groups[3], [0.5, 2.0])
    return f


def _read(path):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    return h


def _assert_same_model(f, h):
    """The model HiGHS read is ``f``: columns and rows matched by name, every array equal (exactly: the files
    hold shortest round-trip values)."""
    lp = h.getLp()
    col_at = {name: k for k, name in enumerate(lp.col_names_)}
    row_at = {name: k for k, name in enumerate(lp.row_names_)}
    order = np.array([col_at[n] for n in f.column_names()], dtype=int)
    rows = np.array([row_at[n] for n in f.row_names()], dtype=int)
    assert lp.num_col_ == f.n_cols and lp.num_row_ == f.n_rows
    np.testing.assert_array_equal(np.array(lp.col_cost_)[order], f.cost)
    np.testing.assert_array_equal(np.array(lp.col_lower_)[order], f.col_lower)
    np.testing.assert_array_equal(np.array(lp.col_upper_)[order], f.col_upper)
    np.testing.assert_array_equal(np.array(lp.row_lower_)[rows], f.row_lower)
    np.testing.assert_array_equal(np.array(lp.row_upper_)[rows], f.row_upper)
    integer = np.array([int(v) for v in lp.integrality_])[order] if lp.integrality_ else np.zeros(f.n_cols)
    np.testing.assert_array_equal(integer == 1, f.integrality)
    assert lp.offset_ == f.objective_offset
    m = lp.a_matrix_
    import scipy.sparse as sp

    A = sp.csc_matrix((m.value_, m.index_, m.start_), shape=(lp.num_row_, lp.num_col_))
    assert (A[rows][:, order] != f.matrix).nnz == 0
    if f.is_quadratic:
        hess = h.getModel().hessian_
        diag = np.zeros(lp.num_col_)
        for j in range(lp.num_col_):
            for p in range(hess.start_[j], hess.start_[j + 1]):
                if hess.index_[p] == j:
                    diag[j] = hess.value_[p]
        np.testing.assert_array_equal(diag[order], 2 * f.quadratic)


@WRITERS
@pytest.mark.parametrize("quadratic", [False, True])
def test_mps_holds_every_bound_row_sense_range_and_the_objective(writer, tmp_path, quadratic):
    f = _every_kind(quadratic)
    _assert_same_model(f, _read(write(f, tmp_path / "kinds.mps", writer)))


@WRITERS
@pytest.mark.parametrize("quadratic", [False, True])
@pytest.mark.parametrize("isolated", [False, True])
def test_lp_holds_every_bound_row_sense_and_the_objective(writer, tmp_path, quadratic, isolated):
    """A column in no row, not in the objective and at the default bounds is declared in Bounds, so it is
    read back too (HiGHS's own LP writer left it out)."""
    f = _every_kind(quadratic, ranged=False, isolated=isolated)
    _assert_same_model(f, _read(write(f, tmp_path / "kinds.lp", writer)))


@WRITERS
def test_lp_writes_a_ranged_row_as_two_rows(writer, tmp_path):
    """The LP format has no ranges: a ranged row is written as a ``>=`` row ``name lo`` and a ``<=`` row
    ``name up``."""
    f = _every_kind()
    lp = _read(write(f, tmp_path / "kinds.lp", writer)).getLp()
    names = list(lp.row_names_)
    assert "row3(0)" not in names and lp.num_row_ == f.n_rows + 1
    lo, up = names.index("row3(0)lo"), names.index("row3(0)up")
    assert (lp.row_lower_[lo], lp.row_upper_[lo]) == (-1.0, highspy.kHighsInf)
    assert (lp.row_lower_[up], lp.row_upper_[up]) == (-highspy.kHighsInf, 3.0)


@WRITERS
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_a_tree_model_reads_back_whole_and_solves_to_the_same_optimum(writer, tmp_path, tiny_xor, suffix):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1")
    h = _read(write(f, tmp_path / f"olct{suffix}", writer))
    _assert_same_model(f, h)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(solvers.solve(f, mip_gap=0).objective, rel=1e-6)


def _scip_read(path):
    """SCIP's model of the file at ``path`` (read, not yet solved)."""
    from pyscipopt import Model

    model = Model()
    model.hideOutput()
    model.readProblem(str(path))
    model.setParam("limits/gap", 0.0)
    return model


@needs_scip
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_scip_reads_the_files_and_finds_the_same_optimum(tmp_path, tiny_xor, suffix):
    f = olct(*tiny_xor, depth=2, tangents="V1")
    model = _scip_read(f.write(tmp_path / f"olct{suffix}"))
    assert model.getNVars() == f.n_cols and model.getNConss() == f.n_rows
    model.optimize()
    assert model.getObjVal() == pytest.approx(solvers.solve(f, mip_gap=0).objective, rel=1e-6)


@needs_scip
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_scip_reads_a_quadratic_objective(tmp_path, tiny_xor, suffix):
    """SCIP's LP reader rejected ``x ^ 2`` ("sign after value without variable"); ``x ^2`` every reader takes."""
    f = margot(*tiny_xor, depth=1, l2_method="exact")
    model = _scip_read(f.write(tmp_path / f"margot{suffix}"))
    model.optimize()
    assert model.getObjVal() == pytest.approx(solvers.solve(f, solver="scip", mip_gap=0).objective, rel=1e-6)


def _awkward():
    """Labels that are not safe in names (a space, ``-``, ``+``), a row with no coefficient, a free row, and
    values that need all 17 digits."""
    f = Formulation("awkward")
    f.add_set("J", ["capital gain", "workclass_Self-emp", "a+b", "age"])
    f.add_set("one", [0])
    w = f.add_variables("w", ("J",), -1.0, 1.0)
    z = f.add_variables("z", ("one",), domain="binary")
    cols = np.concatenate([w.columns, z.columns]).reshape(1, -1)
    f.add_constraints("c", ("one",), [(cols, np.array([[0.1 + 0.2, -1.0 / 3.0, 2.0, np.pi, -1.0]]))], lower=-1.0)
    f.add_constraints("empty", ("one",), [(cols, np.zeros((1, 5)))], upper=2.0)
    f.add_constraints("free", ("one",), [(cols, np.ones((1, 5)))])
    f.add_objective(w, [1.0, -1.0, 0.5, np.e])
    return f


@WRITERS
def test_unsafe_labels_are_written_through_safe_labels_and_read_back_by_name(writer, tmp_path):
    """HiGHS's own LP writer named every column ``c0``, ``c1``, ... as soon as one name held a space or a
    ``-``; the labels are now made safe, so the names survive."""
    f = _awkward()
    expected = ["w(capital_gain)", "w(workclass_Self_emp)", "w(a_b)", "w(age)", "z(0)"]
    for suffix in (".lp", ".mps"):
        lp = _read(write(f, tmp_path / f"awkward{suffix}", writer)).getLp()
        assert list(lp.col_names_) == expected
        np.testing.assert_array_equal(lp.col_cost_, [1.0, -1.0, 0.5, np.e, 0.0])


def test_an_empty_row_is_kept_and_a_free_row_is_kept_in_lp(tmp_path):
    """An empty row is ``+ 0 x`` in LP and a row with no entry in MPS; a free row is ``>= -inf`` in LP and an
    ``N`` row in MPS, which readers drop (it constrains nothing)."""
    f = _awkward()
    lp = _read(f.write(tmp_path / "awkward.lp")).getLp()
    assert list(lp.row_names_) == ["c(0)", "empty(0)", "free(0)"]
    np.testing.assert_array_equal(lp.row_lower_, [-1.0, -highspy.kHighsInf, -highspy.kHighsInf])
    np.testing.assert_array_equal(lp.row_upper_, [highspy.kHighsInf, 2.0, highspy.kHighsInf])
    mps = _read(f.write(tmp_path / "awkward.mps")).getLp()
    assert list(mps.row_names_) == ["c(0)", "empty(0)"]
    for read in (lp, mps):
        m = read.a_matrix_
        import scipy.sparse as sp

        A = sp.csc_matrix((m.value_, m.index_, m.start_), shape=(read.num_row_, read.num_col_)).toarray()
        np.testing.assert_array_equal(A[0], [0.1 + 0.2, -1.0 / 3.0, 2.0, np.pi, -1.0])   # every digit kept
        np.testing.assert_array_equal(A[1], 0.0)


@pytest.mark.parametrize("shared", [0.0, 1.0])
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_the_bytes_do_not_depend_on_the_buffer_or_the_formatting_threads(tmp_path, tiny_xor, suffix, shared,
                                                                         monkeypatch):
    """A 16-byte buffer is outgrown by almost every line (the writer doubles it and resumes where it stopped),
    numbers formatted in four slices are each formatted by whichever thread meets them first, and the matrix
    goes out in blocks of 7 coefficients, each formatted while the one before is written, or in one table
    shared by equal columns (rows): the file is the same."""
    from optitrees.mip.files import coefficients, numbers, pieces

    f = olct(*tiny_xor, depth=2, tangents="V1")
    reference = f.write(tmp_path / f"reference{suffix}").read_bytes()
    monkeypatch.setattr(pieces, "_BUFFER_BYTES", 16)
    monkeypatch.setattr(numbers, "_PER_THREAD", 1)
    monkeypatch.setattr(numbers, "_THREADS", 4)
    monkeypatch.setattr(coefficients, "_PER_BLOCK", 7)
    monkeypatch.setattr(coefficients, "_SHARED", shared)
    assert f.write(tmp_path / f"small{suffix}").read_bytes() == reference


@WRITERS
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_a_model_of_binary_features_reads_back_whole(writer, tmp_path, suffix):
    """Binary features give few distinct coefficients, formatted once each and written by id."""
    rng = np.random.default_rng(0)
    X = (rng.random((40, 5)) < 0.5).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + rng.random(40) > 1.2, 1, -1)
    f = olct(X, y, depth=2, tangents="V1")
    _assert_same_model(f, _read(write(f, tmp_path / f"binary{suffix}", writer)))


@WRITERS
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_a_model_without_rows_reads_back_and_one_without_variables_is_refused(writer, tmp_path, suffix):
    f = Formulation("bare")
    f.add_set("J", ["a", "b"])
    f.add_objective(f.add_variables("x", ("J",), 0.0, 3.0, domain="integer"), [1.0, -1.0])
    _assert_same_model(f, _read(write(f, tmp_path / f"bare{suffix}", writer)))
    with pytest.raises(ValueError, match="has no variables"):
        Formulation("none").write(tmp_path / f"none{suffix}")
    assert not (tmp_path / f"none{suffix}").exists()
