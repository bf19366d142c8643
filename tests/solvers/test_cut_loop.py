"""The cut loop a formulation declares (squared norms, adaptive logistic tangents), run by ``solve``: exact MIQP
agreement, budgets, determinism under a node limit."""

import numpy as np
import pytest

from optitrees.formulations import margot
from optitrees.formulations.cuts import squares_error
from optitrees.formulations.loss_optimal.solution import decode, tree_objective
from optitrees.solvers import solve
from _support import needs_scip


def _data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(24, 3))
    y = np.where(X[:, 0] - 0.7 * X[:, 2] + 0.3 * rng.normal(size=24) > 0, 1.0, -1.0)
    return (X - X.mean(0)) / X.std(0), y


@pytest.fixture
def data():
    return _data()


@needs_scip
@pytest.mark.parametrize("fs", [dict(), dict(feature_selection="hard", max_features=1)])
def test_margot_scip_exact_agrees_with_highs_outer_approximation(data, fs):
    X, y = data
    exact = solve(margot(X, y, depth=2, C=2.0, **fs), "scip", mip_gap=0, time_limit=120)
    g = margot(X, y, depth=2, C=2.0, l2_method="outer", **fs)
    outer = solve(g, "highs", mip_gap=0)
    assert exact.status == outer.status == "optimal"
    err = outer.checks["l2_relative_error"]
    assert err <= 1e-4
    assert outer.checks["oa_rounds"] > 1
    # the OA optimum underestimates the exact one by at most its error on the quadratic term
    exact_sq, _, _ = squares_error(g, outer.x)
    assert outer.bound <= exact.objective + 1e-6
    assert abs(outer.objective - exact.objective) <= err * exact_sq + 1e-6 * exact.objective
    tree, _ = decode(g, outer.x)
    assert tree_objective(g.problem, tree) == pytest.approx(outer.objective, rel=1e-9)


@pytest.fixture(scope="module")
def free_margot_objective():
    """The optimum of the model without a feature budget (solved once for the budgets below)."""
    X, y = _data()
    return solve(margot(X, y, depth=2, C=5.0, l2_method="outer"), "highs", mip_gap=0).objective


@pytest.mark.parametrize("budget", [1, 2])
def test_hfs_budget_is_respected(data, budget, free_margot_objective):
    X, y = data
    f = margot(X, y, depth=2, C=5.0, feature_selection="hard", max_features=budget, l2_method="outer")
    res = solve(f, "highs", mip_gap=0)
    w = f.values(res.x)["w"]
    assert res.status == "optimal"
    assert np.all((np.abs(w) > 1e-9).sum(axis=1) <= budget)
    assert free_margot_objective <= res.objective + 1e-6


def test_rounds_continue_past_a_node_limit_and_repeat_exactly(data):
    X, y = data
    runs = []
    for _ in range(2):
        f = margot(X, y, depth=2, C=5.0, l2_method="outer")
        runs.append(solve(f, "highs", solver_options={"mip_max_nodes": 3}))
    a, b = runs
    assert a.checks["oa_rounds"] == b.checks["oa_rounds"] > 1
    assert np.array_equal(a.x, b.x) and a.checks["l2_relative_error"] <= 1e-4
    assert a.bound is not None and a.bound <= a.objective + 1e-9


def test_logistic_cuts_underestimate_the_exact_loss(data):
    from optitrees.algorithms.loss_optimal.greedy import greedy_tree
    from optitrees.algorithms.node_fit import node_fitter
    from optitrees.formulations import olct
    from optitrees.formulations.cuts import add_logistic_cuts
    from optitrees.formulations.loss_optimal.solution import start
    from optitrees.formulations.tangents import logistic_loss

    X, y = data
    f = olct(X, y, depth=2, tangents="V1")
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
    x = start(f, tree)
    # the exact slacks: the logistic loss at each point's margin on the node it visits
    _, values = tree.path_values(X)
    xi = f.variables["xi"]
    x[xi.columns.ravel()] = logistic_loss(y[:, None] * values).ravel()
    rng = np.random.default_rng(0)
    k = 40
    add_logistic_cuts(f, rng.integers(1, 4, k), rng.integers(0, len(y), k), rng.normal(0, 3, k))
    assert f.violation(x) < 1e-9
    assert "logistic_cut_0" in f.constraints and len(f.sets["P_0"]) == k


def test_adaptive_tangents_track_the_exact_loss(data):
    from optitrees.formulations import olct
    from optitrees.formulations.cuts import LogisticCuts
    from optitrees.formulations.loss_optimal.solution import decode
    from optitrees.solvers import CutLoop

    X, y = data
    f = olct(X, y, depth=2, tangents="adaptive", C=2.0)
    assert isinstance(f.strategy, CutLoop) and isinstance(f.strategy.cutters[0], LogisticCuts)
    r = solve(f, "highs", mip_gap=0)
    assert r.checks["logistic_relative_error"] <= 1e-3 and r.checks["oa_rounds"] > 1
    tree, checks = decode(f, r.x)
    assert checks["objective_recomputed"] == pytest.approx(r.objective, rel=1e-6)     # exact, reported exactly
    assert r.bound <= r.objective + 1e-6


def test_a_formulation_without_tangents_declares_no_loop(data):
    from optitrees.formulations import olct

    X, y = data
    assert getattr(olct(X, y, depth=1), "strategy", None) is None
    assert margot(X, y, depth=1, l2_method="outer", l2_tol=1e-6).strategy.cutters[0].tol == 1e-6


def test_a_round_worse_than_an_earlier_one_neither_replaces_it_nor_starts_the_next():
    """Scripted rounds on ``min q, q >= w**2`` (tangent at 3): the second round's solution is worse in the exact
    objective than the first; the third starts from the first (repaired) and the loop returns the first."""
    from optitrees.formulations.cuts import SquareCuts, add_square_outer_approximation
    from optitrees.mip import Formulation
    from optitrees.solvers.cut_loop import run_cut_loop
    from optitrees.solvers.results import SolutionStatus, SolverResult, TerminationCondition

    f = Formulation()
    f.add_set("J", [0])
    w = f.add_variables("w", ("J",), -5.0, 5.0)
    add_square_outer_approximation(f, w, 1.0, (3.0,))
    script = [(TerminationCondition.OTHER, [1.0, 0.0]), (TerminationCondition.OTHER, [2.0, 0.0]),
              (TerminationCondition.TIME_LIMIT, [1.5, 0.5])]
    starts = []

    def solve_once(start):
        starts.append(None if start is None else start.copy())
        termination, x = script[len(starts) - 1]
        return SolverResult("scripted", termination=termination, solution_status=SolutionStatus.FEASIBLE,
                            x=np.array(x), objective=x[1], bound=0.0)

    result = run_cut_loop(f, (SquareCuts(value="w", epigraph="q"),), solve_once, max_rounds=10)
    assert len(starts) == 3 and starts[0] is None
    np.testing.assert_array_equal(starts[1], [1.0, 1.0])     # round 1's solution, q repaired to w**2
    np.testing.assert_array_equal(starts[2], [1.0, 1.0])     # still round 1's: round 2 is worse (4 > 1)
    np.testing.assert_array_equal(result.x, [1.0, 0.0])
    assert result.objective == 1.0 and result.status == "time_limit_feasible"
    assert result.checks["oa_rounds"] == 3 and result.checks["l2_relative_error"] == 1.0


def test_a_warm_start_gets_its_tangents_before_the_first_solve():
    """On ``min q, q >= w**2`` (tangent at 3), a loop started from ``w = 1.5`` solves first with the tangent at 1.5
    too, so its first round's model values the start exactly (``q = 2.25``, not the initial tangent's 0 there);
    the start handed to the solver is repaired (``q = w**2``), and the caller's vector is left as it was."""
    from optitrees.formulations.cuts import SquareCuts, add_square_outer_approximation
    from optitrees.mip import Formulation
    from optitrees.solvers.cut_loop import run_cut_loop
    from optitrees.solvers.results import SolutionStatus, SolverResult, TerminationCondition

    f = Formulation()
    f.add_set("J", [0])
    w = f.add_variables("w", ("J",), -5.0, 5.0)
    add_square_outer_approximation(f, w, 1.0, (3.0,))
    seen = []

    def solve_once(start):
        seen.append((start.copy(), f.matrix.toarray(), f.row_lower.copy()))
        return SolverResult("scripted", termination=TerminationCondition.OPTIMAL,
                            solution_status=SolutionStatus.OPTIMAL, x=start.copy(), objective=start[1], bound=0.0)

    given = np.array([1.5, 0.0])
    result = run_cut_loop(f, (SquareCuts(value="w", epigraph="q"),), solve_once, warm_start=given)
    start, A, lower = seen[0]
    np.testing.assert_array_equal(start, [1.5, 2.25])
    np.testing.assert_array_equal(given, [1.5, 0.0])
    at_start = A @ np.array([1.5, 2.0])               # q = 2 < 2.25: violated only by the tangent at 1.5
    assert (at_start < lower - 1e-12).sum() == 1
    assert len(seen) == 1 and result.objective == pytest.approx(2.25) and result.checks["oa_rounds"] == 1
    # the same start seeded again (a round's re-solve after rows were brought back) adds no row: it is held already
    rows = f.n_rows
    SquareCuts(value="w", epigraph="q").seed(f, np.array([1.5, 0.0]))
    assert f.n_rows == rows
    SquareCuts(value="w", epigraph="q").seed(f, np.array([-0.5, 0.0]))   # a new point: its tangent is added
    assert f.n_rows == rows + 1
