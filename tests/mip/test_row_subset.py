"""A formulation on a subset of its rows: implied rows found by the column bounds, far rows left out, the columns
left-out equality rows define computed from them, a start outside the model held by widened rows, and the subset's
optimum (with the rows its solution violates brought back) equal to the whole formulation's."""

import numpy as np
import pytest

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.estimators.mip_fit.neighbourhood import fixed_routing, nearest_rows, split_distances, within_bounds
from optitrees.formulations import margot, olct
from optitrees.algorithms.oct.cart import greedy_oblique_tree
from optitrees.formulations.loss_optimal.solution import start
from optitrees.formulations.oct.model import octh
from optitrees.formulations.oct.solution import start as oct_start
from optitrees.mip import Formulation
from optitrees.mip.row_subset import RowSubset, implied_rows, row_distances, switched_off_rows
from optitrees.solvers import solve
from optitrees.solvers.row_generation import solve_by_row_generation


def _routed(build, seed=3, n=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1.0, -1.0)
    y[:3] = -y[:3]
    f = build(X, y, depth=2)
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
    return f, tree, start(f, tree)


def _solve(g, x0, deadline):
    return solve(g, warm_start=x0, deadline=deadline, threads=1, progress=False, mip_gap=1e-9)


def test_implied_rows_by_hand():
    f = Formulation()
    f.add_set("K", [0, 1])
    x = f.add_variables("x", ["K"], 0.0, 1.0)
    z = f.add_variables("z", ["K"], [0.0, 1.0], [0.0, 1.0], domain="binary")       # fixed: z0 = 0, z1 = 1
    f.add_constraints("big_m", ["K"], [(x.columns, 1.0), (z.columns, 5.0)], lower=0.5)   # x + 5 z >= 0.5
    f.add_constraints("cap", ["K"], [(x.columns, 2.0)], upper=[2.0, 1.0])               # 2 x <= 2 (implied), <= 1
    assert implied_rows(f).tolist() == [False, True, True, False]
    # distances at x = (0.5, 0.5): big_m[0] binds (0), big_m[1] has slack 5 over |1| (z is fixed: its coefficient
    # moves nothing), cap[0] slack 1 over |2|, cap[1] binds
    np.testing.assert_allclose(row_distances(f, [0.5, 0.5, 0.0, 1.0]), [0.0, 5.0, 0.5, 0.0])
    only_fixed = Formulation()
    only_fixed.add_set("K", [0])
    v = only_fixed.add_variables("v", ["K"], 1.0, 1.0)
    only_fixed.add_constraints("row", ["K"], [(v.columns, 1.0)], upper=2.0)
    assert row_distances(only_fixed, [1.0]).tolist() == [np.inf]


def _margot(X, y, depth):
    return margot(X, y, depth=depth, l2_method="outer")       # HiGHS: the squared l2 by its cut loop


@pytest.mark.parametrize("build", [olct, _margot], ids=["OLCT", "MARGOT"])
@pytest.mark.parametrize("far", [0.0, 0.5, np.inf])
def test_the_subset_solved_with_rows_brought_back_has_the_whole_models_optimum(build, far):
    f, tree, x0 = _routed(build)
    free = nearest_rows(split_distances(tree, f.problem.data.X), 4)
    with fixed_routing(f, x0, free):
        whole = _solve(f, x0, None)
        subset = RowSubset.of(f, x0, far)
        assert subset.keep.sum() < f.n_rows                    # the fixing makes rows implied: they are left out
        part = solve_by_row_generation(subset, _solve, x0, None)
        assert whole.status == part.status == "optimal"
        # MARGOT's cut loop ends within l2_tol of its squared term, at a point that depends on the cuts each solve
        # added (each seeds the tangents at its start): its two optima agree to that tolerance, OLCT's exactly
        rel = f.strategy.cutters[0].tol if getattr(f, "strategy", None) is not None else 1e-6
        assert part.objective == pytest.approx(whole.objective, rel=rel, abs=1e-6)
        assert f.violation(part.x) <= 1e-5                     # a solution of the whole model, defined columns too
        assert part.checks["subset_violated_rows"] == 0 and part.checks["subset_rows"] == subset.keep.sum()
        if far == 0.0:
            assert part.checks["subset_rows_added"]           # left out at first, then violated
        assert subset.columns.size > 0                        # margins of nodes off a row's path, left out


def test_defined_columns_are_computed_from_their_rows():
    f, tree, x0 = _routed(olct)
    with fixed_routing(f, x0, np.zeros(f.problem.data.X.shape[0], bool)):
        subset = RowSubset.of(f, x0, 0.0)
        assert f.integrality.any() and not subset.formulation().integrality.any()   # every integer fixed: an LP
        x = x0.copy()
        x[subset.columns] = 123.0
        done = subset.complete(x)
        np.testing.assert_allclose(done, x0, atol=1e-9)
        assert not subset.violated(done).any()
        x[subset.columns[0]] = 0.0
        back = subset.complete(x)
        back[subset.columns[0]] += 1.0                       # a defined column off its row: its row is violated
        assert subset.violated(back)[subset.defining[0]]


def test_a_start_outside_the_model_is_held_by_widened_rows():
    f, tree, x0 = _routed(olct)
    x = x0.copy()
    wp, wn = f.variables["w_pos"], f.variables["w_neg"]
    x[wp.columns[0]] = x[wn.columns[0]] = 0.45 * f.problem.spec.weight_bound    # ||w_0||_1 beyond the bound W
    assert within_bounds(f, x) and f.violation(x) > 1.0
    with fixed_routing(f, x0, np.zeros(f.problem.data.X.shape[0], bool)):
        held = RowSubset.of(f, x, np.inf, hold=True)
        assert held.formulation().violation(x) <= 1e-9 and not held.violated(x).any()
        strict = RowSubset.of(f, x, np.inf)
        assert strict.formulation().violation(x) > 1.0


def test_a_row_on_integer_columns_alone_is_never_widened_for_a_start():
    """A start over a feature budget (its indicators' row) does not widen the budget: only rows with a continuous
    column (big-M rows a start beyond the weight bound breaks) are widened to hold it."""
    f, tree, x0 = _routed(lambda X, y, depth: olct(X, y, depth=depth, univariate=True))
    x = x0.copy()
    delta = f.variables["delta"]
    x[delta.columns[0]] = 1.0                               # every feature "used" at the root: budget 1 broken
    budget = f.constraints["l0_budget"]
    with fixed_routing(f, x0, np.zeros(f.problem.data.X.shape[0], bool)):
        held = RowSubset.of(f, x, np.inf, hold=True)
    assert held.row_upper[budget.start] == 1.0
    assert np.array_equal(held.row_upper[budget.start:budget.start + budget.size], budget.upper)


def _octh_routed(seed=3, n=30):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.6).astype(int)
    y[:3] = 1 - y[:3]
    f = octh(X, y, depth=2)
    tree = greedy_oblique_tree(X, y, 2, 2, random_state=0).with_counts(X, y)
    return f, tree, oct_start(f, tree)


@pytest.mark.parametrize("routed, implied_anyway", [(lambda: _routed(olct), True), (lambda: _routed(_margot), True),
                                                    (_octh_routed, False)], ids=["OLCT", "MARGOT", "OCT-H"])
def test_rows_the_routing_switches_off_are_left_out_and_the_optimum_is_the_whole_models(routed, implied_anyway):
    """The loss-optimal family bounds its margins ``s`` by columns, so the column bounds already show its switched-off
    rows implied; OCT-H's splits ``w x_i`` are bounded only by the row ``||w_t||_1 <= 1``."""
    f, tree, x0 = routed()
    z = f.variables["z"]
    free = nearest_rows(split_distances(tree, f.problem.data.X), 4)
    with fixed_routing(f, x0, free):
        whole = _solve(f, x0, None)                  # first: MARGOT's cut loop adds its cuts to f
        off = switched_off_rows(f, z.columns)
        # a switched-off row has routing entries, all fixed at 0, of the relaxing sign; none is on a free row's z
        A = f.matrix.tocsr()
        on_z = np.zeros(f.n_cols, bool)
        on_z[z.columns.ravel()] = True
        for r in np.flatnonzero(off)[:50]:
            cols = A.indices[A.indptr[r]:A.indptr[r + 1]]
            assert on_z[cols].any() and np.all(f.col_upper[cols[on_z[cols]]] == 0)
        assert off.any()
        switched = RowSubset.of(f, x0, np.inf, switches=z.columns)
        plain = RowSubset.of(f, x0, np.inf)
        assert not (switched.keep & off).any()
        assert np.all(implied_rows(f)[off]) == implied_anyway
        assert (switched.keep.sum() == plain.keep.sum()) == implied_anyway
        part = solve_by_row_generation(switched, _solve, x0, None)
        assert whole.status == part.status == "optimal"
        assert part.objective == pytest.approx(whole.objective, rel=1e-6, abs=1e-6)
        assert f.violation(part.x) <= 1e-5
