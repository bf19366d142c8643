"""The oblique regression MILP and MIQP: their optima checked by brute force over every split, start and decoding."""

import numpy as np
import pytest
from scipy.optimize import linprog

from optitrees import solvers
from optitrees.formulations.oblique_regression import (ObliqueRegressionProblem, ObliqueRegressionSpec,
                                                       RegressionLoss, build, decode, start, tree_objective)
from optitrees.solvers.registry import available
from optitrees.scaling import ScaledData


def _lad(x, y):
    """Least absolute deviations of ``y ~ a x + c`` by its LP: min sum e, e >= +-(y - a x - c)."""
    n = len(y)
    if n == 0:
        return 0.0
    # variables a, c, e_1..e_n
    cost = np.r_[0.0, 0.0, np.ones(n)]
    A = np.block([[-x[:, None], -np.ones((n, 1)), -np.eye(n)], [x[:, None], np.ones((n, 1)), -np.eye(n)]])
    rhs = np.r_[-y, y]
    res = linprog(cost, A_ub=A, b_ub=rhs, bounds=[(None, None), (None, None)] + [(0, None)] * n, method="highs")
    return float(res.fun)


def _least_squares(x, y):
    """Residual sum of squares of ``y ~ a x + c``."""
    if len(y) == 0:
        return 0.0
    A = np.column_stack([x, np.ones_like(x)])
    r = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    return float(r @ r)


def _problem(x, y, depth, lam=0.0, **settings):
    data = ScaledData.create(x[:, None], y, "standard")
    spec = ObliqueRegressionSpec(depth=depth, lam=lam, weight_bound=50.0, **settings)
    return ObliqueRegressionProblem.create(spec, data, y)


def _two_lines():
    rng = np.random.default_rng(1)
    x = np.sort(rng.uniform(-1, 1, 14))
    return x, np.where(x > 0.1, 3.0 * x - 1.0, -x) + 0.1 * rng.normal(size=14)


def test_the_optimum_is_the_best_split_of_two_least_absolute_deviation_lines():
    x, y = _two_lines()
    problem = _problem(x, y, depth=2)
    xs, ys = problem.data.X[:, 0], problem.target
    best = _lad(xs, ys)                                          # no split: one line
    for k in range(1, len(x)):
        best = min(best, _lad(xs[:k], ys[:k]) + _lad(xs[k:], ys[k:]))
    f = build(problem)
    result = solvers.solve(f, time_limit=60, mip_gap=0.0, progress=False)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(best, abs=1e-6)
    tree = decode(f, result.x)
    assert tree_objective(problem, tree) == pytest.approx(result.objective, abs=1e-6)


def test_depth_one_is_least_absolute_deviations_with_the_l1_penalty():
    rng = np.random.default_rng(2)
    x = rng.uniform(-2, 2, 30)
    y = 0.5 * x + rng.laplace(size=30) * 0.2
    problem = _problem(x, y, depth=1)
    result = solvers.solve(build(problem), time_limit=30, progress=False)
    assert result.objective == pytest.approx(_lad(problem.data.X[:, 0], problem.target), abs=1e-6)
    penalized = _problem(x, y, depth=1, lam=1000.0)             # the penalty wins: a constant, a median
    f = build(penalized)
    result = solvers.solve(f, time_limit=30, progress=False)
    tree = decode(f, result.x)
    assert np.all(tree.weights == 0)
    assert result.objective == pytest.approx(np.abs(penalized.target - np.median(penalized.target)).sum(), abs=1e-6)


def test_a_start_from_a_decoded_tree_is_feasible_and_costs_its_objective():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    y = X[:, 0] * (X[:, 1] > 0) + 0.1 * rng.normal(size=25)
    data = ScaledData.create(X, y, "standard")
    problem = ObliqueRegressionProblem.create(ObliqueRegressionSpec(depth=2, lam=0.05), data, y)
    f = build(problem)
    result = solvers.solve(f, time_limit=30, solver_options={"mip_max_nodes": 50}, progress=False)
    tree = decode(f, result.x)
    x0 = start(f, tree)
    assert f.violation(x0) < 1e-7
    assert f.objective_value(x0) == pytest.approx(tree_objective(problem, tree), rel=1e-9)


def test_a_weight_whose_indicator_is_off_decodes_to_zero():
    """With a feature budget, a weight the solver leaves near 0 where its l0 indicator is 0 is not in the decoded
    tree, which keeps the budget; its start is feasible and costs its objective."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    y = X[:, 0] * (X[:, 1] > 0) + 0.1 * rng.normal(size=20)
    data = ScaledData.create(X, y, "standard")
    problem = ObliqueRegressionProblem.create(ObliqueRegressionSpec(depth=1, lam=0.05, max_features=1), data, y)
    f = build(problem)
    x = solvers.solve(f, mip_gap=0, time_limit=60, progress=False).x.copy()
    w, delta = f.variables["w"], f.variables["delta"]
    off = np.argwhere(x[delta.columns] < 0.5)[0]
    x[w.columns[tuple(off)]] = 1e-9
    tree = decode(f, x)
    assert (np.count_nonzero(tree.weights, axis=1) <= 1).all()
    x0 = start(f, tree)
    assert f.violation(x0) < 1e-7
    assert f.objective_value(x0) == pytest.approx(tree_objective(problem, tree), rel=1e-9)


@pytest.mark.parametrize("solver, quadratic", [("highs", False), ("scip", True)])
def test_the_squared_loss_optimum_is_the_best_split_of_two_least_squares_lines(solver, quadratic):
    """HiGHS by tangent cuts (within their tolerance, its bound below the optimum), SCIP as an MIQP."""
    if solver not in available():
        pytest.skip(f"{solver} is not installed")
    x, y = _two_lines()
    problem = _problem(x, y, depth=2, loss="squared", quadratic=quadratic)
    xs, ys = problem.data.X[:, 0], problem.target
    best = min([_least_squares(xs, ys)] +
               [_least_squares(xs[:k], ys[:k]) + _least_squares(xs[k:], ys[k:]) for k in range(1, len(x))])
    f = build(problem)
    assert f.is_quadratic == quadratic and ("e_sq" in f.variables) == (not quadratic)
    result = solvers.solve(f, solver, time_limit=60, mip_gap=0.0, progress=False)
    assert result.status == "optimal"
    tree = decode(f, result.x)
    assert tree_objective(problem, tree) == pytest.approx(result.objective, rel=1e-9)
    assert result.bound <= best + 1e-6
    if quadratic:
        assert result.objective == pytest.approx(best, abs=1e-6)
    else:                                   # the tangents are within 1e-4 of the squares at the solution
        assert best - 1e-9 <= result.objective <= best * (1 + 2e-4)
        assert result.checks["squared_loss_relative_error"] <= 1e-4 and result.checks["oa_rounds"] > 1


def test_squared_loss_tangents_start_and_bad_loss():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    y = X[:, 0] * (X[:, 1] > 0) + 0.1 * rng.normal(size=25)
    data = ScaledData.create(X, y, "standard")
    spec = ObliqueRegressionSpec(depth=2, lam=0.05, loss=RegressionLoss.SQUARED)
    problem = ObliqueRegressionProblem.create(spec, data, y)
    f = build(problem)
    # a short limit: the tangent loop returns its last round (it ran 7 s of rounds at 30 s); any tree decodes
    result = solvers.solve(f, time_limit=3, solver_options={"mip_max_nodes": 20}, progress=False)
    tree = decode(f, result.x)
    x0 = start(f, tree)                                  # the epigraph at the squares: exact, and feasible
    assert f.violation(x0) < 1e-7
    assert f.objective_value(x0) == pytest.approx(tree_objective(problem, tree), rel=1e-9)
    with pytest.raises(ValueError, match="loss must be one of"):
        ObliqueRegressionSpec(depth=2, loss="huber")
