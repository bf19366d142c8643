"""Branch and cut over HiGHS LPs with lazy loss cuts: optimal and certified, limits give a valid bound."""

import itertools

import numpy as np
import pytest

from optitrees.solvers.branch_and_cut import branch_and_cut
from optitrees.solvers.cut_pool_lp import UNSOLVED, CutPoolLP
from optitrees.formulations.risk_scores.ors import ors
from optitrees.formulations.risk_scores.ors_master import LossOracle
from _support import ors_cuts_at_random_points


def brute(X, y, T, lo, hi):
    from optitrees.formulations.risk_scores.aggregate_loss import AggregateLoss

    loss = AggregateLoss.from_data(X, y)
    best = np.inf
    for s in itertools.product(range(lo, hi + 1), repeat=X.shape[1]):
        s = np.array(s, float)
        if np.count_nonzero(s) <= T:
            best = min(best, loss.value(s, loss.best_intercept(s, 40.0)))
    return best


def test_optimum_equals_brute_force_and_is_certified(card_data):
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-2, 3), method="cutting_planes")
    r = branch_and_cut(f, LossOracle(f), mip_gap=0.0)
    assert r.status == "optimal" and r.solver == "cutting_planes"
    assert r.objective == pytest.approx(brute(X, y, 2, -2, 2), rel=1e-7)
    assert r.bound == pytest.approx(r.objective, rel=1e-6) and r.gap <= 1e-6
    v = f.values(r.x)
    assert np.count_nonzero(np.round(v["s"])) <= 2 and f.violation(r.x) <= 1e-6


def test_node_limit_keeps_a_valid_bound_and_the_start(card_data):
    X, y = card_data
    f = ors(X, y, n_rules=3, scores=range(-3, 4), method="cutting_planes")
    oracle = LossOracle(f)
    start = f.vector({"a": [1, 0, 0, 0, 0], "s": [1, 0, 0, 0, 0], "beta": [0.0], "L": [0.0]})
    r = branch_and_cut(f, oracle, incumbent=start, node_limit=2, root_rounds=3, mip_gap=0.0)
    start_loss = oracle.complete(start)[1]
    assert r.objective <= start_loss + 1e-9
    assert r.bound <= brute(X, y, 3, -3, 3) + 1e-7
    assert r.status in ("feasible", "optimal")


def test_a_node_lp_without_an_answer_stays_open_in_the_bound(card_data, monkeypatch):
    """An LP that ends without an optimum or a proof of infeasibility must not close its node."""
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-2, 3), method="cutting_planes")
    solve, calls = CutPoolLP.solve, []

    def flaky(self, lo, hi, time_left):
        calls.append(1)
        return UNSOLVED if len(calls) == 2 else solve(self, lo, hi, time_left)

    monkeypatch.setattr(CutPoolLP, "solve", flaky)
    r = branch_and_cut(f, LossOracle(f), mip_gap=0.0, root_rounds=0, node_rounds=0)
    assert len(calls) >= 2 and r.status != "optimal"
    assert r.bound is None or r.bound <= brute(X, y, 2, -2, 2) + 1e-7


def test_a_search_stopped_in_the_roots_cut_rounds_reports_the_last_lp_bound(card_data, monkeypatch):
    """The deadline falls in the root's cut rounds (its third LP): the second LP's value, with the cuts so far,
    is a valid lower bound, reported as the search's (it was None: no node finished)."""
    import time

    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-2, 3), method="cutting_planes")
    solve, values = CutPoolLP.solve, []
    deadline = time.perf_counter() + 5.0

    def stopped_at_the_third(self, lo, hi, time_left):
        if len(values) == 2:
            time.sleep(max(deadline - time.perf_counter(), 0.0) + 0.01)
            return UNSOLVED
        res = solve(self, lo, hi, time_left)
        values.append(res[0])
        return res

    monkeypatch.setattr(CutPoolLP, "solve", stopped_at_the_third)
    r = branch_and_cut(f, LossOracle(f), deadline=deadline, mip_gap=0.0)
    assert r.termination == "time_limit" and r.node_count == 0
    assert r.bound == values[1] and r.bound <= brute(X, y, 2, -2, 2) + 1e-7


def _relaxation(X, y, T, top, multiplier):
    """The master's continuous relaxation by SLSQP: ``min l(s, beta)`` over ``|s_j| <= top``,
    ``sum |s_j| <= top T`` (``|s_j| <= top a_j``, ``sum a_j <= T``, ``0 <= a <= 1``)."""
    from scipy.optimize import minimize

    from optitrees.formulations.risk_scores.aggregate_loss import AggregateLoss

    loss, p = AggregateLoss.from_data(X, y, multiplier), X.shape[1]

    def fun(theta):
        s, beta = theta[:p] - theta[p:2 * p], theta[-1]
        g_s, g_beta = loss.gradient(s, beta)
        return loss.value(s, beta), np.concatenate([g_s, -g_s, [g_beta]])

    budget = {"type": "ineq", "fun": lambda th: top * T - th[:2 * p].sum(), "jac": lambda th: np.r_[-np.ones(2 * p), 0]}
    res = minimize(fun, np.zeros(2 * p + 1), jac=True, method="SLSQP", bounds=[(0, top)] * (2 * p) + [(-40, 40)],
                   constraints=[budget], options={"maxiter": 500, "ftol": 1e-12})
    assert res.success
    return res.fun


def test_in_out_cuts_reach_the_relaxation_where_cuts_at_lp_vertices_stall():
    """Nearly separable data: at the LP's vertices (rules at full points) the loss is almost 0 and so
    is its gradient, so a cut there bounds nothing, and the root bound stays 0 (rs_mushroom, T = 7:
    0 for 30 s). Cutting where the loss is least between the node's best point and the LP's reaches
    the relaxation's value in the same rounds."""
    rng = np.random.default_rng(3)
    X = (rng.random((300, 30)) < 0.5).astype(float)
    y = np.where(X @ rng.normal(0, 3, 30) - 1.0 + rng.logistic(size=300) > 0, 1.0, -1.0)
    relaxed = _relaxation(X, y, 2, 5, 0.5)
    f = ors(X, y, n_rules=2, multiplier=0.5, method="cutting_planes")
    r = branch_and_cut(f, LossOracle(f), node_limit=0, root_rounds=100)
    assert relaxed * (1 - 1e-3) <= r.bound <= relaxed + 1e-6

    kelley = LossOracle(f)
    kelley.line_search = None                     # cuts at the LP's points only
    f = ors(X, y, n_rules=2, multiplier=0.5, method="cutting_planes")
    assert branch_and_cut(f, kelley, node_limit=0, root_rounds=100).bound < 0.5 * relaxed


def test_the_branching_column_is_the_fractional_binary_of_largest_value():
    from optitrees.solvers.branch_and_cut import _branching_column

    integer = np.array([True, True, True, True, True, False])
    binary = np.array([True, True, True, False, False, False])
    # binaries at 0.3 (most fractional: 0.3), 0.8 (largest) and 1; integers at 2.5 and 1.1; a continuous 0.5
    assert _branching_column(np.array([0.3, 0.8, 1.0, 2.5, 1.1, 0.5]), integer, binary) == 1
    assert _branching_column(np.array([0.0, 1.0, 1.0, 2.5, 1.1, 0.5]), integer, binary) == 3   # then integers
    assert _branching_column(np.array([0.0, 1.0, 1.0, 2.0, 1.0, 0.5]), integer, binary) is None


def test_reduced_cost_fixing_keeps_every_point_below_the_cutoff(card_data):
    """A bound moved by the LP's reduced costs cuts off only points whose LP value reaches the cutoff: the LP
    with a column pushed one step past its new bound is solved and checked."""
    from optitrees.solvers.branch_and_cut import _fix_by_reduced_costs

    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-3, 4), method="cutting_planes")
    lp = CutPoolLP(f, 0, False)
    for row in ors_cuts_at_random_points(f, LossOracle(f), 40, seed=3):
        lp.add_cut(*row)
    lo, hi = f.col_lower.astype(float), f.col_upper.astype(float)
    integer = np.asarray(f.integrality, bool)
    value, x, d = lp.solve(lo, hi, 10.0)
    moved_any = False
    for room in (0.5, 2.0, 8.0):
        lo2, hi2 = lo.copy(), hi.copy()
        moved = _fix_by_reduced_costs(lo2, hi2, x, value, d, value + room, integer)
        assert moved == np.count_nonzero(hi2 < hi) + np.count_nonzero(lo2 > lo)
        assert np.all(lo2 <= x + 1e-9) and np.all(x <= hi2 + 1e-9)     # the node's own optimum stays
        for j in np.flatnonzero(hi2 < hi):                              # one step past the new bound
            lo3, hi3 = lo.copy(), hi.copy()
            lo3[j] = hi2[j] + 1
            res = lp.solve(lo3, hi3, 10.0)
            assert res is None or res[0] >= value + room - 1e-6 * max(1.0, abs(value))
        for j in np.flatnonzero(lo2 > lo):
            lo3, hi3 = lo.copy(), hi.copy()
            hi3[j] = lo2[j] - 1
            res = lp.solve(lo3, hi3, 10.0)
            assert res is None or res[0] >= value + room - 1e-6 * max(1.0, abs(value))
        moved_any |= moved > 0
    assert moved_any
    assert _fix_by_reduced_costs(lo.copy(), hi.copy(), x, value, d, value - 1.0, integer) == 0   # pruned already


def test_optimum_with_cuts_leaving_the_lp_equals_brute_force(card_data, monkeypatch):
    from functools import partial

    import optitrees.solvers.branch_and_cut as bc

    monkeypatch.setattr(bc, "CutPoolLP", partial(CutPoolLP, max_age=1, min_rows=0))
    X, y = card_data
    f = ors(X, y, n_rules=3, scores=range(-3, 4), method="cutting_planes")
    r = branch_and_cut(f, LossOracle(f), mip_gap=0.0)
    assert r.status == "optimal"
    assert r.objective == pytest.approx(brute(X, y, 3, -3, 3), rel=1e-7)
    assert r.bound == pytest.approx(r.objective, rel=1e-6)


def test_the_master_declares_branch_and_cut_and_solve_runs_it(card_data):
    """The one entry point: ``solve`` runs the strategy the formulation declares, with its node limit."""
    from optitrees.solvers import BranchAndCut, solve

    X, y = card_data
    f = ors(X, y, n_rules=3, scores=range(-3, 4), method="cutting_planes")
    assert isinstance(f.strategy, BranchAndCut)
    r = solve(f, mip_gap=0.0, progress=False)
    assert r.solver == "cutting_planes" and r.status == "optimal" and r.trace
    assert r.objective == pytest.approx(brute(X, y, 3, -3, 3), rel=1e-7)
    limited = solve(ors(X, y, n_rules=3, scores=range(-3, 4), method="cutting_planes"), mip_gap=0.0,
                    solver_options={"mip_max_nodes": 1}, progress=False)
    assert limited.status == "feasible" and limited.node_count < r.node_count     # stopped by the node limit
    with pytest.raises(ValueError, match="BranchAndCut runs on highs"):
        solve(f, "scip")


def test_reduced_cost_fixing_leaves_unbounded_columns_quietly():
    """Columns with an infinite bound and no reduced cost (the loss variable) are left as they are, without a
    numpy warning reaching the user."""
    import warnings

    from optitrees.solvers.branch_and_cut import _fix_by_reduced_costs

    lo, hi = np.array([0.0, -5.0, 0.0]), np.array([1.0, 5.0, np.inf])
    x, d = np.array([0.0, 5.0, 3.0]), np.array([2.0, -1.0, 0.0])
    integer = np.array([True, True, False])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moved = _fix_by_reduced_costs(lo, hi, x, 10.0, d, 12.5, integer)
    # room 2.5: column 0 may rise by 1 step (2 * 2 > 2.5), column 1 fall by 2 (1 * 3 > 2.5)
    assert moved == 1 and hi[0] == 1.0 and lo[1] == 3.0 and hi[2] == np.inf and lo[2] == 0.0
