"""The node LP over a cut pool: its value is that of the LP with every cut, and each solve gets its own time."""

import numpy as np
import pytest
from scipy.sparse import csc_matrix
from _support import ors_cuts_at_random_points

from optitrees.formulations.risk_scores.ors import ors
from optitrees.formulations.risk_scores.ors_master import LossOracle
from optitrees.solvers.cut_pool_lp import UNSOLVED, CutPoolLP


def test_each_node_lp_gets_the_time_left_not_what_remains_of_it_after_earlier_lps(card_data):
    """HiGHS's ``time_limit`` counts every run of one ``Highs`` object. A limit of the time left, set
    anew for each node, ran out once the node LPs together had taken that long: every later node
    ended at the time limit, was dropped as if infeasible, and an unfinished search reported a false
    optimum (rs_mushroom, T = 5: "optimal" at 152.42 and at 178.85 where 139.89 exists)."""
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-2, 3), method="cutting_planes")
    lp = CutPoolLP(f, 0, False)
    lo, hi = f.col_lower.astype(float), f.col_upper.astype(float)
    first = lp.solve(lo, hi, 0.05)     # limits of 50 ms: one small LP fits even on a loaded machine
    s = f.variables["s"].columns
    branched = [(lo.copy(), hi.copy()) for _ in range(2)]
    branched[0][1][s[0]] = -1.0                  # two nodes: the LP must move between them
    branched[1][0][s[0]] = 1.0
    k = 0
    while lp.h.getRunTime() < 0.25:              # the runs together take longer than any one limit
        k += 1
        res = lp.solve(*branched[k % 2], 0.05)
        assert res is not None and res is not UNSOLVED
    assert lp.solve(lo, hi, 0.05)[0] == pytest.approx(first[0])



def test_the_lp_over_a_cut_pool_has_the_value_of_the_lp_with_every_cut(card_data):
    """Cuts slack for a while leave the LP and come back when an optimum violates them: every value
    equals that of the LP that keeps them all, at the root and at branched bounds."""
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-3, 4), method="cutting_planes")
    oracle = LossOracle(f)
    pooled, full = CutPoolLP(f, 0, False, max_age=1, min_rows=0), CutPoolLP(f, 0, False, min_rows=10 ** 6)
    for row in ors_cuts_at_random_points(f, oracle, 60, seed=0):
        pooled.add_cut(*row)
        full.add_cut(*row)
    lo, hi = f.col_lower.astype(float), f.col_upper.astype(float)
    a, s = f.variables["a"].columns, f.variables["s"].columns
    rng = np.random.default_rng(1)
    for trial in range(30):
        lo2, hi2 = lo.copy(), hi.copy()
        j = rng.integers(len(a))
        if trial % 3 == 1:
            hi2[a[j]] = hi2[s[j]] = lo2[s[j]] = 0.0          # feature j unused
        elif trial % 3 == 2:
            lo2[s[j]] = 1.0                                   # feature j at >= 1 point
        v_pooled, x, _ = pooled.solve(lo2, hi2, 10.0)
        v_full, _, _ = full.solve(lo2, hi2, 10.0)
        assert v_pooled == pytest.approx(v_full, rel=1e-7, abs=1e-7)
        assert np.all(pooled.cut_values(x) >= pooled.lower - 1e-6 * np.maximum(1, np.abs(pooled.lower)))
    assert len(pooled.rows) < pooled.n_cuts == 60          # cuts did leave the LP


def test_the_pool_widens_to_columns_a_later_cut_brings_and_keeps_each_cut_exact(card_data):
    """The pool stores cuts on the columns any of them uses: a later cut on other columns widens it, and
    every cut's left-hand side and LP row stay those given (repeated indices summed)."""
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-3, 4), method="cutting_planes")
    oracle = LossOracle(f)
    lp = CutPoolLP(f, 0, False, min_rows=10 ** 6)
    rows = list(ors_cuts_at_random_points(f, oracle, 3, seed=0))
    a = f.variables["a"].columns
    rows.append((np.array([a[0], a[1], a[0]]), np.array([0.5, -1.0, 0.25]), -3.0))   # on selections: new columns
    rows.append(next(ors_cuts_at_random_points(f, oracle, 1, seed=1)))
    dense = np.zeros((len(rows), f.n_cols))
    for k, (index, coef, lower) in enumerate(rows):
        lp.add_cut(index, coef, lower)
        np.add.at(dense[k], np.asarray(index), np.asarray(coef))
    assert set(a[:2]) <= set(lp.columns) and len(lp.columns) < f.n_cols
    x = np.random.default_rng(3).uniform(-1, 1, f.n_cols)
    np.testing.assert_allclose(lp.cut_values(x), dense @ x, rtol=1e-12, atol=1e-12)
    matrix = lp.h.getLp().a_matrix_
    A = csc_matrix((matrix.value_, matrix.index_, matrix.start_), shape=(lp.h.getNumRow(), f.n_cols)).toarray()
    np.testing.assert_allclose(A[lp.n_base:], dense, rtol=1e-12, atol=1e-13)


def test_node_lps_solve_whatever_thread_count_the_process_scheduler_was_made_with(card_data):
    """HiGHS keeps one task scheduler per process, sized by its first run; a node LP that asked for another
    thread count failed every run (status ``kNotset``: no node solved) once any HiGHS had run with two."""
    import highspy

    other = highspy.Highs()
    other.setOptionValue("output_flag", False)
    other.setOptionValue("threads", 2)
    highspy.Highs.resetThreadScheduler(False)
    other.addVars(1, np.zeros(1), np.ones(1))
    other.run()
    X, y = card_data
    f = ors(X, y, n_rules=2, scores=range(-2, 3), method="cutting_planes")
    lp = CutPoolLP(f, 0, False)
    res = lp.solve(f.col_lower.astype(float), f.col_upper.astype(float), 10.0)
    assert res is not None and res is not UNSOLVED
