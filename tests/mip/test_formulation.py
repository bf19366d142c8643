"""The container and its two compilers: same matrix, bounds, integrality, senses, optimum; file export."""

import itertools

import highspy
import numpy as np
import pytest

from optitrees import solvers
from optitrees.formulations import loss_optimal_tree, margot, olct
from optitrees.formulations.risk_scores.ogrs import ogrs
from optitrees.formulations.oct.model import oct, octh
from optitrees.formulations.risk_scores.ors import ors
from optitrees.mip import Formulation


def _positions(f, group):
    keys = list(itertools.product(*[f.sets[d].tolist() for d in group.dims]))
    return {(k if len(k) > 1 else k[0]): group.start + r for r, k in enumerate(keys)}


def _unit(X):
    return (X - X.min(0)) / (X.max(0) - X.min(0))


BUILDERS = {
    "olct_v1": lambda X, y: olct(X, y, depth=2, tangents="V1"),
    "olct_univariate_d3": lambda X, y: olct(X, y, depth=3, tangents="V0", univariate=True),
    "olct_inline": lambda X, y: olct(X, y, depth=2, tangents="V0", score_variables=False),
    "margot_sfs_outer": lambda X, y: margot(X, y, depth=2, feature_selection="soft", alpha=0.1, l2_method="outer"),
    "mixed_losses_hfs": lambda X, y: loss_optimal_tree(X, y, depth=3, loss=["misclassification", "hinge", "logistic"],
                                                       regularizer=None, feature_selection="hard", max_features=2),
    "oct": lambda X, y: oct(_unit(X), (y > 0).astype(int), depth=2, alpha=0.1, min_samples_leaf=2),
    "octh": lambda X, y: octh(_unit(X), (y > 0).astype(int), depth=2, alpha=0.1),
    "ogrs": lambda X, y: ogrs(np.column_stack([_unit(X), (X[:, :1] > 0)]), y, n_rules=2, max_score=3),
    "ors": lambda X, y: ors((X > 0).astype(float), y, n_rules=2, scores=range(-3, 4), exact_rules=True),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_pyomo_standard_form_equals_container(small_data, name):
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    X, y = small_data
    f = BUILDERS[name](X[:10], y[:10])
    m = f.to_pyomo()
    info = LinearStandardFormCompiler().write(m, mixed_form=True)
    col_of = {id(v): k for k, v in enumerate(m._optitrees_columns)}
    cols = np.array([col_of[id(v)] for v in info.columns])

    # variables: bounds and integrality
    for v, k in zip(info.columns, cols):
        assert (v.lb if v.lb is not None else -np.inf) == f.col_lower[k]
        assert (v.ub if v.ub is not None else np.inf) == f.col_upper[k]
        assert v.is_integer() == f.integrality[k]
    # objective
    c = np.zeros(f.n_cols)
    c[cols] = np.asarray(info.c.todense()).ravel()
    assert np.allclose(c, f.cost)

    # rows: coefficients and senses
    positions = {g.name: _positions(f, g) for g in f.constraints.values()}
    A_pyomo = info.A.tocsr()
    A = f.matrix
    seen = set()
    for r, entry in enumerate(info.rows):
        con = entry.constraint
        k = positions[con.parent_component().name][con.index()]
        row = np.zeros(f.n_cols)
        sl = slice(A_pyomo.indptr[r], A_pyomo.indptr[r + 1])
        row[cols[A_pyomo.indices[sl]]] = A_pyomo.data[sl]
        assert np.allclose(row, A[k].toarray().ravel())
        if entry.bound_type == 1:
            assert info.rhs[r] == pytest.approx(f.row_upper[k])
        elif entry.bound_type == -1:
            assert info.rhs[r] == pytest.approx(f.row_lower[k])
        else:
            assert f.row_lower[k] == f.row_upper[k] == pytest.approx(info.rhs[r])
        seen.add(k)
    assert seen == set(range(f.n_rows))


def test_pyomo_components_are_named_and_indexed(tiny_xor):
    X, y = tiny_xor
    f = olct(X, y, depth=2)
    m = f.to_pyomo()
    assert m.z[3, 2].is_binary() and m.w[1, 0].lb == -f.problem.spec.weight_bound
    assert set(m.T_last) == {2, 3} and len(m.forward_left) == len(y)
    assert m.forward_left[1, 0].upper == pytest.approx(f.problem.bound[0])


def test_compilers_same_optimum(tiny_xor):
    """Both compilers reach the same optimum. A raw MIP solution may use HiGHS's integrality tolerance
    (a binary at 1 - 1e-6 opens ``M * 1e-6`` of slack in a big-M row; HiGHS 1.16 returns such a solution
    through Pyomo, 2.4e-5 below the exact optimum), so the Pyomo model's solution is polished as the direct
    path's is (integers rounded and fixed, the rest re-solved) and the two compared exactly."""
    from optitrees.solvers import SolveOptions
    from optitrees.solvers.polish import polish

    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1")
    direct = solvers.solve(f, mip_gap=0)
    via_pyomo = solvers.solve(f.to_pyomo(), solver="highs", mip_gap=0)
    assert direct.checks["polished"] and f.violation(via_pyomo.x) <= 1e-6
    assert via_pyomo.objective == pytest.approx(direct.objective, rel=1e-5)
    x, objective, _ = polish(f, via_pyomo.x, SolveOptions())
    assert objective == pytest.approx(direct.objective, rel=1e-9)
    assert f.objective_value(x) == pytest.approx(direct.objective, rel=1e-9)


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_written_file_reads_back_with_same_optimum(tmp_path, tiny_xor, suffix):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1")
    path = f.write(tmp_path / f"olct{suffix}")
    text = path.read_text()
    assert "forward_left(1,0)" in text and "z(7,3)" in text and "logistic_tangent(1,neg1.9,4)" in text
    assert "logistic_tangent_forwarded(2,neg1.9,4)" in text and "xi_margin_link(3,4)" in text
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(solvers.solve(f, mip_gap=0).objective, rel=1e-6)


def test_write_rejects_unknown_suffix(tmp_path, tiny_xor):
    with pytest.raises(ValueError, match=".lp or .mps"):
        olct(*tiny_xor).write(tmp_path / "model.txt")


def test_container_basics():
    f = Formulation("toy")
    f.add_set("I", [0, 1, 2])
    x = f.add_variables("x", ("I",), 0, 4, domain="integer")
    f.add_set("one", [0])
    f.add_constraints("cap", ("one",), [(x.columns.reshape(1, -1), np.array([[1.0, 2.0, 3.0]]))], upper=7.0)
    f.add_objective(x, [-1.0, -3.0, -4.0])
    assert f.matrix.toarray().tolist() == [[1.0, 2.0, 3.0]]
    assert f.column_names() == ["x(0)", "x(1)", "x(2)"] and f.row_names() == ["cap(0)"]
    res = solvers.solve(f, mip_gap=0)
    # best integer packing of 1a + 2b + 3c <= 7 maximizing a + 3b + 4c, a, b, c in 0..4
    best = min(-(a + 3 * b + 4 * c) for a, b, c in itertools.product(range(5), repeat=3) if a + 2 * b + 3 * c <= 7)
    assert res.objective == pytest.approx(best)
    assert f.values(res.x)["x"].shape == (3,)
    with pytest.raises(ValueError, match="already exists"):
        f.add_variables("x", ("I",))
    with pytest.raises(KeyError):
        f.add_variables("y", ("missing",))
    with pytest.raises(ValueError, match="missing values"):
        f.vector({})


def test_write_to_a_bad_path_raises_an_error_naming_it(tmp_path):
    """HiGHS crashed the interpreter on an .lp path in a missing directory; the three paths run in one child
    process, which prints each error."""
    import subprocess
    import sys

    (tmp_path / "a-directory.lp").mkdir()
    paths = [str(tmp_path / name) for name in ("missing-dir/model.lp", "missing-dir/model.mps", "a-directory.lp")]
    code = f"""
import numpy as np
from optitrees.formulations import olct
X = np.random.default_rng(0).normal(size=(10, 2))
f = olct(X, np.array([1, -1] * 5), depth=1)
for path in {paths!r}:
    try:
        f.write(path)
        print("written:", path)
    except OSError as exc:
        print("OSError:", exc)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    for line, path in zip(lines, paths):
        assert line.startswith("OSError:") and path in line


def test_feature_names_label_the_index_sets(tiny_xor, tmp_path):
    X, y = tiny_xor
    f = olct(X, y, depth=2, feature_names=["serum sodium", "age"])
    assert f.sets["J"].tolist() == ["serum_sodium", "age"] and f.index("J", "age") == 1
    assert "w(1,serum_sodium)" in f.write(tmp_path / "named.lp").read_text()
    m = f.to_pyomo()
    assert m.w[1, "age"].lb == -f.problem.spec.weight_bound
    with pytest.raises(KeyError, match="not in index set"):
        f.index("J", "height")


def test_the_summary_does_not_assemble_the_matrix(tiny_xor):
    """A model's size is read without its matrix (a fit decides from it whether HiGHS can reach the root)."""
    f = olct(*tiny_xor, depth=2, tangents="V1")
    coefficients = sum(len(g.vals) for g in f.constraints.values())
    assert f"{f.n_rows} rows, {coefficients} coefficients (matrix not assembled)" in f.summary()
    assert "A" not in f._cache
    assert f"{f.n_rows} rows, {f.matrix.nnz} nonzeros" in f.summary().splitlines()[0]


def test_the_summary_shows_the_objective_terms():
    """MARGOT's ``||w||^2`` appeared nowhere in the summary."""
    from optitrees.formulations import margot

    X = np.random.default_rng(0).normal(size=(10, 2))
    f = margot(X, np.where(X[:, 0] > 0, 1.0, -1.0), depth=2, C=3.0)
    line = f.summary().splitlines()[1]
    assert line.startswith("  obj minimize ") and "3 * zeta x20" in line and " * w^2 x6" in line
    assert Formulation("empty").objective_terms() == "0 (a feasibility model)"


def test_fixing_keeps_the_matrix_and_updates_the_column_bounds():
    f = Formulation()
    _ = f.add_set("K", [0, 1])
    x = f.add_variables("x", ["K"], 0, 5)
    f.add_constraints("cap", ["K"], [(x.columns, 1.0)], upper=3.0)
    A = f.matrix
    assert f.col_upper.tolist() == [5.0, 5.0]
    f.fix(x, 2.0, mask=[True, False])
    assert f.matrix is A                                    # a bound change assembles no new matrix
    assert f.col_lower.tolist() == [2.0, 0.0] and f.col_upper.tolist() == [2.0, 5.0]
    x.upper[1] = 4.0
    f.bounds_changed()
    assert f.col_upper.tolist() == [2.0, 4.0]
    f.add_constraints("more", ["K"], [(x.columns, 2.0)], upper=9.0)
    assert f.matrix is not A and f.matrix.shape == (4, 2)   # a structural change does
