"""Expressions over named index sets: blocks written in them give the same rows, columns, bounds and objective as the
index arithmetic written by hand; alignment by set name, sums, selections, printing, objectives; clear errors; the
same optimum from two backends."""

import numpy as np
import pandas as pd
import pytest

from optitrees.formulations import blocks
from optitrees.mip import Formulation
from optitrees.mip.expressions import Constraint, Data, Sense
from optitrees.topology import Topology


def same_model(f, g):
    """The two formulations hold the same matrix, bounds, integrality and objective."""
    assert f.n_rows == g.n_rows and f.n_cols == g.n_cols
    assert (f.matrix != g.matrix).nnz == 0
    for name in ("row_lower", "row_upper", "col_lower", "col_upper", "integrality", "cost"):
        np.testing.assert_array_equal(getattr(f, name), getattr(g, name), err_msg=name)
    for (a, b) in zip(f.constraints.values(), g.constraints.values()):
        assert a.name == b.name and a.dims == b.dims
        np.testing.assert_array_equal(a.rows, b.rows), np.testing.assert_array_equal(a.cols, b.cols)
        np.testing.assert_array_equal(a.vals, b.vals)


def olct_core(rows=40, p=3, depth=2, seed=0, written=False):
    """Routing (3.6), hyperplanes, the l1 split (3.16), scores and forwarding (3.7): by the blocks, or written as
    expressions."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(rows, p)), np.where(rng.uniform(size=rows) < 0.5, -1.0, 1.0)
    topo = Topology(depth)
    W, B, eps = 10.0, 5.0, 1e-3
    S = blocks.score_bounds(X, W, B)
    f = Formulation(name="core")
    if not written:
        z = blocks.add_routing(f, rows, topo.last_layer)
        w, b = blocks.add_hyperplanes(f, topo.branch_nodes, [f"x{j}" for j in range(p)], W, B)
        blocks.add_l1_split(f, w, W, penalty=0.5)
        scores = blocks.Scores(f, X, y, w, b, S, variables=True)
        blocks.add_forwarding(f, topo, scores, z, S, eps)
        return f
    f.add_set("I", np.arange(rows)), f.add_set("T_last", topo.last_layer)
    z = f.add_variables("z", ("I", "T_last"), 0, 1, domain="binary")
    f.add_constraints("routing", z.sum("T_last") == 1, equation="3.6a")
    f.add_set("T", topo.branch_nodes), f.add_set("J", [f"x{j}" for j in range(p)])
    w, b = f.add_variables("w", ("T", "J"), -W, W), f.add_variables("b", ("T",), -B, B)
    wp, wn = f.add_variables("w_pos", ("T", "J"), 0, W), f.add_variables("w_neg", ("T", "J"), 0, W)
    f.add_constraints("l1_split", w - wp + wn == 0, equation="3.16a")
    f.add_constraints("l1_bound", (wp + wn).sum("J") <= W)
    f.minimize(0.5 * wp.sum() + 0.5 * wn.sum())
    x, yy, M = Data(X, ("I", "J")), Data(y, ("I",)), Data(S, ("I",))
    s = f.add_variables("s", ("T", "I"), -S[None, :], S[None, :])
    f.add_constraints("score", yy * ((w * x).sum("J") + b) - s == 0)
    f.add_set("T_inner", topo.inner_nodes)
    margin = yy * s.sel(T=list(topo.inner_nodes)).rename(T="T_inner")
    left = Data(topo.left_mask(topo.last_layer, topo.inner_nodes), ("T_inner", "T_last"))
    right = Data(topo.right_mask(topo.last_layer, topo.inner_nodes), ("T_inner", "T_last"))
    f.add_constraints("forward_left", margin + M * (z * left).sum("T_last") <= M, equation="3.7a")
    f.add_constraints("forward_right", margin - (M + eps) * (z * right).sum("T_last") >= eps - (M + eps),
                      equation="3.7b")
    return f


@pytest.mark.parametrize("depth", [2, 3])
def test_blocks_written_as_expressions_give_the_same_model(depth):
    same_model(olct_core(depth=depth), olct_core(depth=depth, written=True))


def test_alignment_by_set_name_and_pandas_constants_by_label():
    f = Formulation()
    f.add_set("T", [1, 2]), f.add_set("J", ["age", "income", "debt"])
    w = f.add_variables("w", ("T", "J"), -10, 10)
    u = f.add_variables("u", ("J",), 0, 1, domain="binary")
    cost = pd.Series({"debt": 3.0, "age": 1.0, "income": 2.0}).rename_axis("J")          # another order
    f.add_constraints("use", w <= 10 * u)
    f.add_constraints("budget", (cost * u).sum() <= 3)
    group = f.constraints["use"]
    assert group.dims == ("T", "J") and group.shape == (2, 3)
    A = f.matrix.toarray()
    u0 = u.start
    np.testing.assert_array_equal(A[f.constraints["budget"].start, u0:u0 + 3], [1.0, 2.0, 3.0])
    assert str(f.constraints["budget"]) == "budget[]: +1 u[age] +2 u[income] +3 u[debt] <= 3"
    row = w.sel(J="income") - u.sel(J="income")                                          # a set dropped
    assert row.dims == ("T",)
    part = f.add_constraints("part", w.sel(J=["age", "debt"]) >= 0)                      # a part of a set
    assert part.dims == ("T", "J_part") and f.sets["J_part"].tolist() == ["age", "debt"]


def test_sums_selections_and_printing():
    f = Formulation()
    f.add_set("I", np.arange(4)), f.add_set("L", ["a", "b"])
    z = f.add_variables("z", ("I", "L"), 0, 1, domain="binary")
    group = f.add_constraints("two", z[np.array([True, False, True, False])].sum("I") <= 1)
    assert group.shape == (2,)
    text = str(group)
    assert text.splitlines()[0] == "two[a]: +1 z[0,a] +1 z[2,a] <= 1"
    both = f.add_constraints("both", 0 <= z.sum("L") - 0.5)                     # reflected: z.sum - 0.5 >= 0
    assert both.lower.tolist() == [0.5] * 4 and np.isinf(both.upper).all()
    eq = f.add_constraints("eq", +z.isel(L=0) == 1)
    assert str(eq).splitlines()[0] == "eq[0]: +1 z[0,a] = 1"


def test_objectives_linear_constant_and_quadratic():
    f, g = Formulation(), Formulation()
    for h in (f, g):
        h.add_set("J", [0, 1, 2])
        h.add_variables("w", ("J",), -1, 1)
    g.add_objective("w", [1.0, 2.0, 3.0])
    g.add_quadratic_objective("w", 0.5)
    w = f.variables["w"]
    f.minimize((Data([1.0, 2.0, 3.0], ("J",)) * w).sum() + 0.5 * (w ** 2).sum() + 4.0)
    np.testing.assert_array_equal(f.cost, g.cost)
    np.testing.assert_array_equal(f.quadratic, g.quadratic)
    assert f.objective_offset == 4.0
    h = Formulation()                                  # an objective over a set sums its entries, constants too
    h.add_set("J", [0, 1, 2])
    h.minimize(h.add_variables("w", ("J",)) + 1.0)
    assert h.objective_offset == 3.0 and h.cost.tolist() == [1.0, 1.0, 1.0]


def test_clear_errors():
    f = Formulation()
    f.add_set("I", np.arange(3)), f.add_set("K", np.arange(3)), f.add_set("J", ["a", "b"])
    x = f.add_variables("x", ("I",), 0, 1)
    k = f.add_variables("k", ("K",), 0, 1)
    v = f.add_variables("v", ("J",), 0, 1)
    with pytest.raises(TypeError, match="not linear"):
        x * x
    with pytest.raises(TypeError, match="Data"):
        x * np.ones(3)
    with pytest.raises(ValueError, match="cannot sum over"):
        x.sum("J")
    with pytest.raises(ValueError, match="no variable"):
        f.add_constraints("empty", _constant_only(x))
    with pytest.raises(KeyError, match="labels"):
        v.sel(J="c")
    with pytest.raises(ValueError, match="different labels"):
        x.expr().rename(I="J") + v
    with pytest.raises(TypeError, match="truth value"):
        bool(x <= 1)
    assert (x.sum() + k.sum()).dims == ()


def _constant_only(x):
    e = x.expr().sum()
    return Constraint(type(e)((), (), [], 1.0, e.sets), Sense.LESS_EQUAL)


def test_the_same_optimum_from_two_backends():
    """A knapsack written as expressions: HiGHS and GLPK (through Pyomo) agree with the brute-force optimum."""
    import itertools

    from optitrees.solvers import solve
    from optitrees.solvers.registry import get_backend

    value, weight = np.array([6.0, 5.0, 8.0, 9.0, 6.0]), np.array([2.0, 3.0, 6.0, 7.0, 5.0])
    f = Formulation()
    f.add_set("K", [f"item{i}" for i in range(5)])
    pick = f.add_variables("pick", ("K",), 0, 1, domain="binary")
    f.add_constraints("capacity", (Data(weight, ("K",)) * pick).sum() <= 12)
    f.minimize(-(Data(value, ("K",)) * pick).sum())
    best = max(value @ np.array(c) for c in itertools.product((0, 1), repeat=5) if weight @ np.array(c) <= 12)
    assert solve(f, solver="highs").objective == pytest.approx(-best)
    try:
        get_backend("glpk")
    except Exception:
        pytest.skip("GLPK is not installed")
    assert solve(f, solver="glpk").objective == pytest.approx(-best)


def test_ranged_rows_from_an_expression_and_its_bounds():
    """``lower <= expr <= upper`` row by row, the expression's constant moved to both sides; the same rows as the
    terms written by hand; clear errors for crossed bounds, a wrong count, or bounds beside a comparison."""
    f = Formulation()
    f.add_set("I", np.arange(3)), f.add_set("R", [1, 2])
    z = f.add_variables("z", ("I", "R"), 0, 1, domain="binary")
    group = f.add_constraints("discriminative", z.sum("I") + 1, lower=1, upper=[3, 4])
    np.testing.assert_array_equal(group.lower, [0.0, 0.0]), np.testing.assert_array_equal(group.upper, [2.0, 3.0])
    assert group.to_text().splitlines()[0] == "discriminative[1]: 0 <= +1 z[0,1] +1 z[1,1] +1 z[2,1] <= 2"
    by_hand = Formulation()
    by_hand.add_set("I", np.arange(3)), by_hand.add_set("R", [1, 2])
    zz = by_hand.add_variables("z", ("I", "R"), 0, 1, domain="binary")
    by_hand.add_constraints("discriminative", ("R",), [(zz.columns.T, 1.0)], lower=0.0, upper=[2.0, 3.0])
    same_model(f, by_hand)
    one_sided = f.add_constraints("at_least", z, lower=0.5)          # a variable group: each entry a row
    assert np.all(one_sided.upper == np.inf) and one_sided.shape == (3, 2)
    with pytest.raises(ValueError, match="lower <= upper"):
        f.add_constraints("crossed", z.sum("I"), lower=2, upper=1)
    with pytest.raises(ValueError, match="3 values for 2 rows"):
        f.add_constraints("count", z.sum("I"), lower=[0, 0, 0])
    with pytest.raises(ValueError, match="alone"):
        f.add_constraints("both", z.sum("I") <= 1, lower=0)
