"""A backend's "optimal" is passed on only when its bound and the rows support it."""

import numpy as np
import pytest

from optitrees import solvers
from optitrees.formulations import olct
from optitrees.solvers.highs import HighsBackend
from optitrees.solvers.results import SolutionStatus, SolverResult, TerminationCondition
from optitrees.solvers.verify import check_optimal_claim, gap_closed


def claimed(objective, bound, x=None):
    return SolverResult(solver="cbc", termination=TerminationCondition.OPTIMAL,
                        solution_status=SolutionStatus.OPTIMAL, objective=objective, bound=bound, x=x)


@pytest.fixture(scope="module")
def formulation():
    X = np.array([[-1.0, -0.8], [-0.7, -1.2], [1.1, 0.9], [0.8, 1.3], [-1.0, 1.0], [-0.9, 0.7]])
    y = np.array([1, 1, 1, -1, -1, -1])
    return olct(X, y, depth=1, tangents="V1")


def test_a_bound_far_below_the_objective_is_not_optimal():
    # CBC's claim on the oblique regression tree: optimal at 15.022 with its own bound at 11.285
    r = claimed(15.022, 11.285)
    assert check_optimal_claim(r, 1e-4) is not None
    assert r.status == "feasible" and r.has_solution
    assert "cbc reported optimal" in r.message and "24.9% below" in r.message
    assert r.checks["optimal_claim"].startswith("rejected")


def test_a_bound_within_the_gap_is_optimal():
    r = claimed(100.0, 99.995)
    assert check_optimal_claim(r, 1e-4) is None and r.status == "optimal"
    assert check_optimal_claim(claimed(100.0, 99.98), 1e-4) is not None
    # an objective of zero is proven by a bound within the absolute gap
    assert gap_closed(0.0, -5e-7, 0.0) and not gap_closed(0.0, -1e-3, 1e-4)


def test_no_bound_is_no_proof_for_a_mip_but_an_lp_needs_none():
    assert check_optimal_claim(claimed(3.0, None), 1e-4) == "it reports no bound"
    r = claimed(3.0, None)
    assert check_optimal_claim(r, 1e-4, integer=False) is None and r.status == "optimal"


def test_a_solution_that_violates_a_row_is_not_optimal(formulation):
    best = solvers.solve(formulation, mip_gap=0)
    assert best.status == "optimal" and best.checks["optimal_claim"] == "verified"
    # GLPK's claim: a point 2.6e-4 outside a forwarding row, objective at the bound
    x = best.x.copy()
    rows = formulation.matrix @ x
    k = int(np.argmax(np.isfinite(formulation.row_upper)))
    col = formulation.matrix[k].indices[np.argmax(np.abs(formulation.matrix[k].data))]
    coef = formulation.matrix[k, col]
    x[col] += (formulation.row_upper[k] - rows[k] + 2.6e-4) / coef
    r = claimed(best.objective, best.objective, x=x)
    why = check_optimal_claim(r, 1e-4, formulation)
    assert formulation.violation(x, integrality=False) > 1e-4
    assert why is not None and "violates a bound or row" in why and r.status == "feasible"


def test_a_fractional_solution_is_not_optimal():
    """Every row holds, but a binary is 0.3 from integral."""
    from optitrees.mip import Formulation

    f = Formulation("one_binary", integrality_tol=1e-6)
    f.add_set("one", [0])
    z = f.add_variables("z", ("one",), 0.0, 1.0, domain="binary")
    f.add_constraints("cap", ("one",), [(z.columns.reshape(1, 1), np.ones((1, 1)))], upper=1.0)
    f.add_objective(z, 1.0)
    r = claimed(0.3, 0.3, x=np.array([0.3]))
    assert check_optimal_claim(r, 1e-4, f) == "its solution is 0.3 from integral (tolerance 1e-06)"
    assert r.status == "feasible"
    exact = claimed(0.0, 0.0, x=np.array([0.0]))
    assert check_optimal_claim(exact, 1e-4, f) is None and exact.status == "optimal"


def test_solve_downgrades_a_backend_that_claims_too_much(formulation, monkeypatch):
    """The check runs on every backend's result inside ``solve``: a backend reporting optimal with its bound
    at half the objective (highspy 1.14.0's failure) comes back feasible."""
    original = HighsBackend.solve

    def overclaiming(self, f, options, start=None):
        r = original(self, f, options, start)
        r.bound = r.objective / 2
        return r

    monkeypatch.setattr(HighsBackend, "solve", overclaiming)
    r = solvers.solve(formulation, mip_gap=0)
    assert r.status == "feasible" and r.gap == pytest.approx(0.5) and "highs reported optimal" in r.message


def test_one_default_gap_on_every_backend():
    from optitrees.solvers.options import DEFAULT_MIP_GAP, SolveOptions

    assert SolveOptions().mip_gap == DEFAULT_MIP_GAP == 1e-4
    assert SolveOptions(mip_gap=0).mip_gap == 0
