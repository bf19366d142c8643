"""Row generation: a subset solved, the rows its solution violates brought back until none is; at the deadline a
solution of the subset alone is not passed on, and rows a solve added (a cut loop's cuts) carry into the next."""

import time

import numpy as np

from optitrees.algorithms.loss_optimal.greedy import greedy_tree
from optitrees.algorithms.node_fit import node_fitter
from optitrees.estimators.mip_fit.neighbourhood import fixed_routing
from optitrees.formulations import margot, olct
from optitrees.formulations.loss_optimal.solution import start
from optitrees.mip.row_subset import RowSubset
from optitrees.solvers import solve
from optitrees.solvers.row_generation import solve_by_row_generation


def _routed(build):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] - X[:, 2] > 0.0, 1.0, -1.0)
    y[:3] = -y[:3]
    f = build(X, y)
    tree = greedy_tree(f.problem, node_fitter(f.problem.spec, 0))
    return f, start(f, tree)


def test_a_solution_of_the_subset_alone_is_not_passed_on_at_the_deadline():
    f, x0 = _routed(lambda X, y: olct(X, y, depth=2))
    seen = []

    def solve_to_the_end(g, x, deadline):                     # ignores the deadline: the first solution is found
        seen.append(g.n_rows)
        return solve(g, warm_start=x, threads=1, progress=False)

    with fixed_routing(f, x0, np.zeros(30, bool)):
        subset = RowSubset.of(f, x0, 0.0)
        result = solve_by_row_generation(subset, solve_to_the_end, x0, time.perf_counter() - 1.0)
    assert len(seen) == 1 and result.checks["subset_violated_rows"] > 0
    assert result.x is None and result.objective is None and result.status == "time_limit_no_solution"


def test_a_cut_loops_cuts_carry_into_the_next_subset():
    f, x0 = _routed(lambda X, y: margot(X, y, depth=2, l2_method="outer"))
    cuts = []

    def recording(g, x, deadline):
        cuts.append(sorted(name for name in g.constraints if name.startswith("square_cut_")))
        return solve(g, warm_start=x, threads=1, progress=False)

    with fixed_routing(f, x0, np.zeros(30, bool)):
        subset = RowSubset.of(f, x0, 0.0)
        result = solve_by_row_generation(subset, recording, x0, None)
    assert len(cuts) >= 2 and result.checks["subset_violated_rows"] == 0 and f.violation(result.x) <= 1e-5
    # the groups a subset starts with: none in the first (f's own cuts are among its kept rows), and the cut loop's
    # cuts of the solves before it in the last
    assert cuts[0] == [] and cuts[-1]
