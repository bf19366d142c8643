"""What a solve's status says: the termination and whether a solution came back."""

import numpy as np
import pytest

from optitrees.solvers.results import SolutionStatus, SolverResult, SolveStatus, TerminationCondition

T = TerminationCondition


@pytest.mark.parametrize("termination, with_solution, expected", [
    (T.OPTIMAL, True, "optimal"),
    (T.TIME_LIMIT, True, "time_limit_feasible"),
    (T.TIME_LIMIT, False, "time_limit_no_solution"),
    (T.INFEASIBLE, False, "infeasible"),
    (T.UNBOUNDED, False, "unbounded"),
    (T.OTHER, True, "feasible"),                      # a node limit, with an incumbent
    (T.OTHER, False, "stopped_no_solution"),          # a node limit before any incumbent
    (T.INTERRUPTED, True, "feasible"),
    (T.INTERRUPTED, False, "stopped_no_solution"),
    (T.ERROR, True, "feasible"),                      # the solver failed after finding a solution: it is kept
    (T.ERROR, False, "error"),
])
def test_the_status_names_why_the_solver_stopped_and_whether_it_has_a_solution(termination, with_solution,
                                                                                 expected):
    result = SolverResult("highs", termination=termination,
                          solution_status=SolutionStatus.FEASIBLE if with_solution else SolutionStatus.NONE,
                          x=np.zeros(2) if with_solution else None)
    assert result.status == expected and result.status is SolveStatus(expected)
    assert expected in result.summary()
