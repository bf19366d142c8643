"""OLCT (3.17): known optima, brute force, variants and decoding."""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from optitrees import solvers
from optitrees.formulations import olct
from optitrees.formulations.loss_optimal.solution import decode, start, tree_objective


def _tangents(points):
    """Slopes and intercepts written out from f(v) = log(1 + exp(-v)), independently of the library."""
    rows = [(-1.0, 0.0)]  # asymptote at -inf: xi >= -v
    for v in points:
        d = -1.0 / (1.0 + np.exp(v))
        rows.append((d, np.log1p(np.exp(-v)) - d * v))
    return rows


def _node_lp(X, y, C, lines, W, B, left=(), right=(), eps=0.0):
    """min C sum xi + ||w||_1 over (w+, w-, b, xi) for one node, with optional routing rows."""
    n, p = X.shape
    nv = 2 * p + 1 + n
    c = np.concatenate([np.ones(2 * p), [0.0], C * np.ones(n)])
    A, ub = [], []
    for i in range(n):
        for a, k in lines:  # xi_i >= k + a y_i (x_i w + b)
            row = np.zeros(nv)
            row[:p] = a * y[i] * X[i]
            row[p:2 * p] = -a * y[i] * X[i]
            row[2 * p] = a * y[i]
            row[2 * p + 1 + i] = -1.0
            A.append(row)
            ub.append(-k)
    norm = np.zeros(nv)
    norm[:2 * p] = 1.0
    A.append(norm)
    ub.append(W)
    for i in left:  # x_i w + b <= 0
        row = np.zeros(nv)
        row[:p], row[p:2 * p], row[2 * p] = X[i], -X[i], 1.0
        A.append(row)
        ub.append(0.0)
    for i in right:  # x_i w + b >= eps
        row = np.zeros(nv)
        row[:p], row[p:2 * p], row[2 * p] = -X[i], X[i], -1.0
        A.append(row)
        ub.append(-eps)
    bounds = [(0, W)] * (2 * p) + [(-B, B)] + [(0, None)] * n
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(ub), bounds=bounds, method="highs")
    return res.fun if res.status == 0 else np.inf


def test_depth1_hand_checked_optimum():
    # x = +-1, y = +-1, C = 2, V0: min 4 g(w) + |w| with g(s) = max(0, log2 - s/2, -s)
    # is 2 log 2, reached at w = 2 log 2, b = 0.
    X = np.array([[1.0], [-1.0]])
    y = np.array([1, -1])
    f = olct(X, y, depth=1, tangents="V0", C=2.0)
    res = solvers.solve(f, mip_gap=0)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(2 * np.log(2), rel=1e-7)
    tree, _ = decode(f, res.x)
    assert tree.n_nodes == 1 and tree.weights[0, 0] == pytest.approx(2 * np.log(2), rel=1e-6)
    assert tree.intercept[0] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("tangents,points", [("V0", [0.0]), ("V1", [0.0, 1.9, -1.9])])
def test_depth1_equals_independent_lp(small_data, tangents, points):
    X, y = small_data
    f = olct(X, y, depth=1, tangents=tangents, C=3.0)
    res = solvers.solve(f, mip_gap=0)
    m = f.problem
    expected = _node_lp(X, y, 3.0, _tangents(points), m.spec.weight_bound, m.intercept_bound)
    assert res.objective == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("score_variables", [False, True])
@pytest.mark.parametrize("forward_margins", [True, False])
def test_depth2_equals_brute_force_over_routings(tiny_xor, score_variables, forward_margins):
    X, y = tiny_xor
    C = [2.0, 1.0]
    f = olct(X, y, depth=2, tangents="V1", C=C, score_variables=score_variables, forward_margins=forward_margins)
    assert ("xi_margin" in f.variables) == forward_margins
    m = f.problem
    W, B, eps = m.spec.weight_bound, m.intercept_bound, m.eps
    lines = _tangents([0.0, 1.9, -1.9])
    best = np.inf
    for assign in itertools.product([0, 1], repeat=len(y)):
        right = np.flatnonzero(assign)
        left = np.flatnonzero(1 - np.array(assign))
        root = _node_lp(X, y, C[0], lines, W, B, left, right, eps)
        if not np.isfinite(root):
            continue
        total = root
        for idx in (left, right):
            if idx.size:
                total += _node_lp(X[idx], y[idx], C[1], lines, W, B)
        best = min(best, total)
    res = solvers.solve(f, mip_gap=0)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(best, rel=1e-6)


def test_decoded_tree_reproduces_solution(tiny_xor):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V2", C=1.0)
    res = solvers.solve(f, mip_gap=0)
    tree, checks = decode(f, res.x)
    assert checks["routing_mismatches"] == 0
    assert tree_objective(f.problem, tree, surrogate=True) == pytest.approx(res.objective, rel=1e-7)
    assert checks["objective_recomputed"] == pytest.approx(res.objective, rel=1e-7)
    # the XOR pattern is separated exactly on the training data
    assert np.array_equal(np.where(tree.predict(X) == 1, 1, -1), y)


def test_start_from_tree_is_feasible_and_priced(tiny_xor):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1", C=1.0)
    res = solvers.solve(f, mip_gap=0)
    tree, _ = decode(f, res.x)
    x0 = start(f, tree)
    assert f.violation(x0) < 1e-7
    assert f.objective_value(x0) == pytest.approx(res.objective, rel=1e-7)


def test_univariate_has_one_feature_per_node(small_data):
    X, y = small_data
    f = olct(X, y, depth=2, tangents="V0", univariate=True)
    assert "delta" in f.variables and "l0_budget" in f.constraints
    res = solvers.solve(f, mip_gap=0, time_limit=60)
    tree, _ = decode(f, res.x)
    assert ((np.abs(tree.weights) > 1e-9).sum(axis=1) <= 1).all()


def test_big_m_and_eps_are_derived_from_data():
    X = np.array([[1.0, -3.0], [0.5, 0.5], [2.0, 0.0]])
    y = np.array([1, -1, 1])
    f = olct(X, y, depth=2, weight_bound=2.0, intercept_bound=1.0)
    assert np.allclose(f.problem.bound, [2 * 3 + 1, 2 * 0.5 + 1, 2 * 2 + 1])
    assert f.problem.eps >= 10 * 1e-6 * f.problem.bound.max()
    rows = f.constraints["forward_left"]
    assert np.allclose(rows.upper, f.problem.bound)


@pytest.mark.parametrize("depth, tangents", [(2, "V3"), (3, "V0"), (3, "V2")])
def test_forwarded_margins_same_optimum_as_rows_per_node(small_data, depth, tangents):
    """The margin forwarded once per layer (layer_slacks) against a big-M row per node and line: the same optimum,
    its tree priced the same, and a start from that tree feasible in both with the same objective."""
    X, y = small_data
    models = [olct(X[:12], y[:12], depth=depth, tangents=tangents, C=[2.0, 1.0, 0.5][:depth], forward_margins=fw)
              for fw in (True, False)]
    assert "xi_margin" in models[0].variables and "xi_margin" not in models[1].variables
    assert models[0].n_rows < models[1].n_rows
    results = [solvers.solve(f, mip_gap=0, time_limit=120) for f in models]
    assert [r.status for r in results] == ["optimal", "optimal"]
    assert results[0].objective == pytest.approx(results[1].objective, rel=1e-6)
    tree, checks = decode(models[0], results[0].x)
    assert checks["routing_mismatches"] == 0
    assert tree_objective(models[0].problem, tree, surrogate=True) == pytest.approx(results[0].objective, rel=1e-6)
    for f in models:
        x0 = start(f, tree)
        assert f.violation(x0) < 1e-7
        assert f.objective_value(x0) == pytest.approx(results[0].objective, rel=1e-6)


def test_forwarded_margin_is_capped_where_the_loss_reaches_zero(small_data):
    """``m <= v*``, the margin beyond which every tangent is below 0 (``2 log 2`` for V0), and its link row's big-M
    is ``v* + S_i``: the least that leaves it slack when the point goes elsewhere (``m <= v*``, ``s >= -S_i``)."""
    X, y = small_data
    f = olct(X, y, depth=3, tangents="V0")
    m = f.variables["xi_margin"]
    S = f.problem.bound
    assert np.allclose(f.col_upper[m.columns], np.minimum(2 * np.log(2), S)[:, None])
    assert np.allclose(f.col_lower[m.columns], -S[:, None])
    link = f.constraints["xi_margin_link"]
    assert np.allclose(link.upper.reshape(-1, len(y)), np.minimum(2 * np.log(2), S) + S)


def test_a_weight_whose_indicator_is_off_decodes_to_zero(small_data):
    """The solver leaves a weight within its tolerance of 0 when its l0 indicator is 0; the decoded tree drops it, so
    it uses no feature beyond its budget (a start built from such a tree would count it as a feature)."""
    X, y = small_data
    f = olct(X[:12], y[:12], depth=2, tangents="V0", univariate=True)
    res = solvers.solve(f, mip_gap=0, time_limit=60)
    x = res.x.copy()
    w, delta = f.variables["w"], f.variables["delta"]
    off = np.argwhere(x[delta.columns] < 0.5)[0]
    x[w.columns[tuple(off)]] = 1e-10
    tree, _ = decode(f, x)
    assert (np.count_nonzero(tree.weights, axis=1) <= 1).all()
    assert f.violation(start(f, tree)) < 1e-7


def test_inline_and_score_variables_same_optimum(small_data):
    X, y = small_data
    objs = [solvers.solve(olct(X[:14], y[:14], depth=2, tangents="V0", score_variables=s), mip_gap=0).objective
            for s in (False, True)]
    assert objs[0] == pytest.approx(objs[1], rel=1e-6)


@pytest.mark.parametrize("kwargs,match", [
    (dict(depth=0), "depth"), (dict(C=[1.0, 2.0, 3.0]), "C must"), (dict(C=-1.0), "non-negative"),
    (dict(tangents="V7"), "tangent"), (dict(weight_bound=0.0), "weight_bound"),
])
def test_bad_parameters(small_data, kwargs, match):
    X, y = small_data
    with pytest.raises(ValueError, match=match):
        olct(X, y, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        olct(np.array([[np.nan], [1.0]]), np.array([1, -1]))
    with pytest.raises(ValueError, match="-1, \\+1"):
        olct(np.array([[0.0], [1.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="one per row"):
        olct(np.array([[0.0], [1.0]]), np.array([1, -1, 1]))


def test_decode_detects_a_routing_discrepancy(tiny_xor):
    X, y = tiny_xor
    f = olct(X, y, depth=2, tangents="V1")
    res = solvers.solve(f, mip_gap=0)
    assert decode(f, res.x)[1]["routing_mismatches"] == 0
    x = res.x.copy()
    z = f.variables["z"].columns
    x[z[0]] = 1.0 - x[z[0]]                  # point 0 assigned to the other last-layer node
    assert decode(f, x)[1]["routing_mismatches"] == 1
