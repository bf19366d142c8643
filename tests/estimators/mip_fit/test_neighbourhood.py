"""The MIP's neighbourhood rounds: the rows set free are those nearest to a split, the others keep the incumbent's
routing (and get their bounds back), a round with no row free is the incumbent's routing re-solved, a round with
every row free is the full MIP, and a search never returns a worse tree than its incumbent."""

import itertools
from dataclasses import replace

import numpy as np
import pytest

from optitrees import MARGOTClassifier, OLCTClassifier
from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.estimators.mip_fit.neighbourhood import (NeighbourhoodSearch, fixed_routing, nearest_rows,
                                                        split_distances)
from optitrees.formulations import LOSS_OPTIMAL, loss_optimal_tree, olct
from optitrees.formulations.loss_optimal.solution import start, tree_objective
from optitrees.solvers import SolveOptions, solve
from optitrees.solvers.polish import polish
from optitrees.trees import LEAF, Tree


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(14, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1.0, -1.0)
    y[:2] = -y[:2]
    f = olct(X, y, depth=2, tangents="V0")
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
    return f, tree


def test_split_distances_are_the_nearest_split_on_each_path_by_brute_force():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(7, 3))
    W[3:] = 0.0
    W[2, 1] = 0.0
    tree = Tree([1, 3, 5, LEAF, LEAF, LEAF, LEAF], [2, 4, 6, LEAF, LEAF, LEAF, LEAF], W, rng.normal(size=7))
    X = rng.normal(size=(50, 3))
    expected = []
    for x in X:
        node, best = 0, np.inf
        while not tree.is_leaf[node]:
            v = W[node] @ x
            best = min(best, abs(v - tree.threshold[node]) / np.linalg.norm(W[node]))
            node = tree.children_left[node] if v <= tree.threshold[node] else tree.children_right[node]
        expected.append(best)
    np.testing.assert_allclose(split_distances(tree, X), expected, rtol=1e-12, atol=1e-12)


def test_a_tree_without_splits_has_every_row_infinitely_far():
    leaf = Tree([LEAF], [LEAF], np.zeros((1, 2)), [0.0])
    assert np.isinf(split_distances(leaf, np.ones((3, 2)))).all()


def test_nearest_rows_keeps_k_rows_and_all_of_them_when_k_is_large():
    d = np.array([0.5, 0.1, 0.4, 0.2])
    assert nearest_rows(d, 2).tolist() == [False, True, False, True]
    assert nearest_rows(d, 9).all() and not nearest_rows(d, 0).any()


def test_fixed_routing_fixes_the_other_rows_and_restores_the_bounds(small):
    f, tree = small
    x = start(f, tree)
    z = f.variables["z"]
    lower, upper = z.lower.copy(), z.upper.copy()
    free = np.zeros(f.problem.data.X.shape[0], bool)
    free[[0, 5]] = True
    values = f.values(x)["z"]
    with fixed_routing(f, x, free):
        lo, up = z.lower.reshape(z.shape), z.upper.reshape(z.shape)
        np.testing.assert_array_equal(lo[~free], values[~free])
        np.testing.assert_array_equal(up[~free], values[~free])
        assert (lo[free] == 0).all() and (up[free] == 1).all()
        assert f.violation(x) < 1e-9
    np.testing.assert_array_equal(z.lower, lower)
    np.testing.assert_array_equal(z.upper, upper)
    np.testing.assert_array_equal(f.col_upper[z.columns.ravel()], upper)


def test_no_row_free_is_the_incumbents_routing_resolved(small):
    f, tree = small
    x = start(f, tree)
    _, polished, _ = polish(f, x, SolveOptions(threads=1))
    with fixed_routing(f, x, np.zeros(f.problem.data.X.shape[0], bool)):
        result = solve(f, mip_gap=0.0, threads=1, progress=False)
    assert result.status.value == "optimal"
    assert result.objective == pytest.approx(polished, rel=1e-6, abs=1e-6)


def test_every_row_free_is_the_full_mip(small):
    f, tree = small
    x = start(f, tree)
    full = solve(f, mip_gap=0.0, threads=1, progress=False, warm_start=x)
    with fixed_routing(f, x, np.ones(f.problem.data.X.shape[0], bool)):
        round_ = solve(f, mip_gap=0.0, threads=1, progress=False, warm_start=x)
    assert full.status.value == round_.status.value == "optimal"
    assert round_.objective == pytest.approx(full.objective, rel=1e-6, abs=1e-6)


def test_a_free_row_may_change_leaf_and_a_fixed_row_may_not(small):
    """Brute force on the free rows: the round's optimum is the least, over the routings of the free rows to the
    four leaves, of the LP with every row's routing fixed."""
    f, tree = small
    x = start(f, tree)
    d = split_distances(tree, f.problem.data.X)
    free = nearest_rows(d, 2)
    with fixed_routing(f, x, free):
        result = solve(f, mip_gap=0.0, threads=1, progress=False, warm_start=x)
    z = f.variables["z"]
    values = f.values(x)["z"]
    best = np.inf
    rows = np.flatnonzero(free)
    for leaves in itertools.product(range(z.shape[1]), repeat=len(rows)):
        routing = values.copy()
        for row, leaf in zip(rows, leaves):
            routing[row] = 0.0
            routing[row, leaf] = 1.0
        with fixed_routing(f, f.vector({**f.values(x), "z": routing}), np.zeros(len(routing), bool)):
            lp = solve(f, mip_gap=0.0, threads=1, progress=False)
        if lp.objective is not None:
            best = min(best, lp.objective)
    assert result.objective == pytest.approx(best, rel=1e-6, abs=1e-6)
    routed = np.rint(f.values(result.x)["z"])
    np.testing.assert_array_equal(routed[~free], values[~free])


def test_the_search_never_returns_a_worse_tree_and_records_its_rounds(small):
    f, tree = small
    problem = f.problem

    def solve_round(formulation, x0, deadline):
        return solve(formulation, warm_start=x0, deadline=deadline, threads=1, progress=False)

    def score(model, deadline):
        return model, model, tree_objective(problem, model)

    search = NeighbourhoodSearch(f, solve_round, lambda m: start(f, m), lambda x: LOSS_OPTIMAL.decode(f, x)[0], score)
    import time
    value = tree_objective(problem, tree)
    model, final, objective = search.run(tree, tree, value, time.perf_counter() + 20.0, first_free=2)
    assert objective <= value and objective == pytest.approx(tree_objective(problem, model))
    assert search.rounds and search.rounds[0].free_rows == 2
    for r in search.rounds:
        assert r.mip_objective is None or r.mip_objective <= r.start_mip_objective + 1e-6
    assert search.rounds[-1].free_rows <= problem.data.X.shape[0]


def test_the_first_round_refits_the_incumbents_routing(small):
    """The refit round frees no row: its MIP objective is the optimum of the model with every row routed as the
    incumbent routes it, solved on the whole model."""
    f, tree = small
    problem = f.problem
    x0 = start(f, tree)
    with fixed_routing(f, x0, np.zeros(problem.data.X.shape[0], bool)):
        whole = solve(f, mip_gap=0.0, threads=1, progress=False)

    def solve_round(formulation, x, deadline):
        return solve(formulation, warm_start=x, deadline=deadline, threads=1, progress=False, mip_gap=0.0)

    def score(model, deadline):
        return model, model, tree_objective(problem, model)

    import time
    search = NeighbourhoodSearch(f, solve_round, lambda m: start(f, m), lambda x: LOSS_OPTIMAL.decode(f, x)[0], score)
    search.run(tree, tree, tree_objective(problem, tree), time.perf_counter() + 20.0)
    refit = search.rounds[0]
    assert refit.free_rows == 0 and refit.status == "optimal"
    assert refit.mip_objective == pytest.approx(whole.objective, rel=1e-7, abs=1e-7)
    assert refit.model_rows < refit.all_model_rows == f.n_rows          # the rows the fixing makes implied left out
    assert len(search.rounds) == 1 or search.rounds[1].free_rows == 8


@pytest.mark.parametrize("cls", [OLCTClassifier, MARGOTClassifier])
def test_a_fit_returns_the_best_of_its_rounds_and_never_worse_than_its_start(cls):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::6, :5], y[::6]
    est = cls(max_depth=2, time_limit=8, threads=1, random_state=0, max_features=None)
    est.fit(X, y)
    report = est.fit_report_
    rounds = report.checks["neighbourhood_rounds"]
    assert rounds and "neighbourhood search" in report.stages and rounds[0]["free_rows"] == 0
    assert report.objective <= min(report.starts.values()) + 1e-9
    if report.method == "mip neighbourhood":
        best = min(r["exact_objective"] for r in rounds if r["improved"])
        assert report.objective == pytest.approx(best, rel=1e-9)
    off = cls(max_depth=2, time_limit=8, threads=1, random_state=0, max_features=None)
    off._shares = replace(off._shares, neighbourhood=0.0)
    off.fit(X, y)
    assert "neighbourhood_rounds" not in off.fit_report_.checks


def test_a_start_inside_a_split_margin_starts_its_rounds_with_the_violated_rows_widened():
    """OCT-H keeps a margin ``mu`` between the two sides of a split: a stump whose threshold sits within it of a
    point cannot be expressed; its rounds widen the rows it violates, so they start from it, and never return a worse
    tree."""
    import time

    from optitrees.formulations import OCT_FAMILY
    from optitrees.formulations.oct.model import octh

    rng = np.random.default_rng(5)
    X = rng.uniform(size=(16, 2))
    X[[0, 1, 2, 3], 0] = [0.0, 1.0, 0.500, 0.503]                 # two points 0.003 apart on the first feature
    y = (X[:, 0] > 0.5015).astype(int)
    f = octh(X, y, depth=1)
    stump = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], np.array([[1.0, 0.0], [0, 0], [0, 0]]),
                 [0.5015, 0.0, 0.0], label=np.array([0, 0, 1]))
    x0 = OCT_FAMILY.start(f, stump)
    assert f.violation(x0) > 1e-6                                  # closer than OCT-H's margin mu = 0.005
    given = []

    def solve_round(formulation, start_x, deadline):
        given.append(start_x)
        return solve(formulation, warm_start=start_x, deadline=deadline, threads=1, progress=False)

    def score(model, deadline):
        return model, model, OCT_FAMILY.objective(f.problem, model)

    search = NeighbourhoodSearch(f, solve_round, lambda m: OCT_FAMILY.start(f, m),
                                 lambda x: OCT_FAMILY.decode(f, x)[0], score)
    value = OCT_FAMILY.objective(f.problem, stump)
    model, _, objective = search.run(stump, stump, value, time.perf_counter() + 20.0, first_free=2)
    assert given[0] is not None and np.allclose(given[0], x0)       # the start, held by its widened rows
    assert search.rounds[0].free_rows == 2
    assert search.rounds[0].start_mip_objective == pytest.approx(f.objective_value(x0))
    assert objective <= value


def test_the_refit_keeps_the_incumbents_features_and_is_an_lp():
    """With a feature budget (3.14's HFS) the refit round fixes the indicators ``delta`` at the incumbent's support as
    well as the routing: its model is an LP, and its optimum is the whole model's with both fixed (left free, the
    refit was a MIP over ``delta`` and ran out of its time at the users' sizes)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(16, 3))
    y = np.where(X[:, 0] - 0.7 * X[:, 2] > 0.1, 1.0, -1.0)
    y[:2] = -y[:2]
    f = loss_optimal_tree(X, y, depth=2, loss="logistic", regularizer="l1", tangents="V0", feature_selection="hard",
                          max_features=1)
    problem = f.problem
    tree = greedy_tree(problem, node_fitter(problem.spec, 0))
    x0 = start(f, tree)
    delta = f.variables["delta"]
    lower, upper = delta.lower.copy(), delta.upper.copy()
    with fixed_routing(f, x0, np.zeros(16, bool), every_integer=True):
        assert np.array_equal(delta.lower, np.rint(x0[delta.columns.ravel()]))
        assert np.array_equal(delta.lower, delta.upper)
        whole = solve(f, mip_gap=0.0, threads=1, progress=False)
    np.testing.assert_array_equal(delta.lower, lower)            # restored
    np.testing.assert_array_equal(delta.upper, upper)

    models = []

    def solve_round(formulation, x, deadline):
        models.append(formulation)
        return solve(formulation, warm_start=x, deadline=deadline, threads=1, progress=False, mip_gap=0.0)

    import time
    search = NeighbourhoodSearch(f, solve_round, lambda m: start(f, m), lambda x: LOSS_OPTIMAL.decode(f, x)[0],
                                 lambda model, deadline: (model, model, tree_objective(problem, model)))
    search.run(tree, tree, tree_objective(problem, tree), time.perf_counter() + 20.0)
    refit = search.rounds[0]
    assert refit.free_rows == 0 and refit.status == "optimal"
    assert not models[0].integrality.any()                       # every integer fixed: an LP
    assert refit.mip_objective == pytest.approx(whole.objective, rel=1e-7, abs=1e-7)
    if len(models) > 1:
        assert models[1].integrality.any()                       # a later round frees rows and the budget's features


def test_a_closed_neighbourhood_is_not_solved_again_around_the_same_incumbent(small):
    """Rounds that find nothing: 4 rows free close, 8 run to their time limit, and the next size named (4 again, the
    same neighbourhood of the same incumbent) ends the rounds instead of cycling 4, 8, 4, 8 to the deadline."""
    import time

    from optitrees.solvers import SolverResult
    from optitrees.solvers.results import SolutionStatus, TerminationCondition

    f, tree = small
    problem = f.problem

    def solve_round(formulation, x0, deadline):         # the incumbent back: rounds 1, 3, ... closed, 2, 4, ... not
        closed = len(search.rounds) % 2 == 0
        return SolverResult(solver="stub", x=np.array(x0, float), objective=float(formulation.objective_value(x0)),
                            termination=TerminationCondition.OPTIMAL if closed else TerminationCondition.TIME_LIMIT,
                            solution_status=SolutionStatus.OPTIMAL if closed else SolutionStatus.FEASIBLE)

    def score(model, deadline):
        return model, model, tree_objective(problem, model)

    search = NeighbourhoodSearch(f, solve_round, lambda m: start(f, m), lambda x: LOSS_OPTIMAL.decode(f, x)[0], score)
    value = tree_objective(problem, tree)
    model, final, objective = search.run(tree, tree, value, time.perf_counter() + 30.0, first_free=4)
    assert [r.free_rows for r in search.rounds] == [4, 8]
    assert [r.status for r in search.rounds] == ["optimal", "time_limit_feasible"]
    assert not any(r.improved for r in search.rounds) and objective == value


def test_rounds_stop_doubling_before_they_free_more_than_a_quarter_of_the_rows():
    """Rounds that close without a better tree double the rows set free until twice as many would be more than
    MAX_FREE_SHARE of the rows (the full MIP gets the time): on 80 rows, 4, 8, 16 and not 32."""
    import time

    from optitrees.estimators.mip_fit.neighbourhood import MAX_FREE_SHARE, most_free, next_free
    from optitrees.solvers import SolverResult
    from optitrees.solvers.results import SolutionStatus, SolveStatus, TerminationCondition

    assert most_free(80) == int(MAX_FREE_SHARE * 80) == 20
    assert next_free(16, 80, SolveStatus.OPTIMAL, False) is None and next_free(8, 80, SolveStatus.OPTIMAL, False) == 16
    assert next_free(16, 80, SolveStatus.OPTIMAL, True) == 16          # a better tree: the same size again
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
    f = olct(X, y, depth=2, tangents="V0")
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))

    def solve_round(formulation, x0, deadline):         # every neighbourhood closes on the incumbent
        return SolverResult(solver="stub", x=np.array(x0, float), objective=float(formulation.objective_value(x0)),
                            termination=TerminationCondition.OPTIMAL, solution_status=SolutionStatus.OPTIMAL)

    search = NeighbourhoodSearch(f, solve_round, lambda m: start(f, m), lambda x: LOSS_OPTIMAL.decode(f, x)[0],
                                 lambda m, deadline: (m, m, tree_objective(f.problem, m)))
    search.run(tree, tree, tree_objective(f.problem, tree), time.perf_counter() + 30.0, first_free=4)
    assert [r.free_rows for r in search.rounds] == [4, 8, 16]


def test_a_round_never_hands_the_solver_a_start_its_rows_refuse():
    """A start the round's rows do not admit (its widening did not reach them) is not handed over: the solver would
    warn the user about a start of the library's own (the fit report notes it instead)."""
    given = []

    class Round:
        strategy = None

        def __init__(self, violation):
            self.amount = violation

        def violation(self, x):
            return self.amount

    search = NeighbourhoodSearch(None, lambda g, x0, deadline: given.append(x0), None, None, None)
    x0 = np.ones(3)
    search._solve_round(Round(0.0), x0, None)
    search._solve_round(Round(0.5), x0, None)
    assert given[0] is x0 and given[1] is None
