"""Earlier incumbents judged by the exact objective: the least below the solver's model wins, newest first, none
looked at where the MIP's objective is the exact one or the deadline has passed."""

import time

import numpy as np

from optitrees.estimators.mip_fit.incumbents import best_earlier_incumbent
from optitrees.solvers import SolverResult


class _Family:
    """A model is a number; its exact objective is that number (decoded from ``x[0]``)."""

    def __init__(self):
        self.decoded = []

    def decode(self, f, x):
        self.decoded.append(float(x[0]))
        return float(x[0]), {}

    def finalize(self, problem, model):
        return model

    def objective(self, problem, model):
        return model


def _result(objective, values):
    return SolverResult(solver="stub", objective=objective, pool=[np.array([v]) for v in values])


def test_the_least_exact_objective_below_the_solvers_model_wins():
    family = _Family()
    best = best_earlier_incumbent(family, None, None, _result(5.0, [9.0, 7.0, 8.0, 12.0]), 10.0, None)
    assert best == (7.0, 7.0, 7.0, 3) and family.decoded == [12.0, 8.0, 7.0, 9.0]    # newest first
    assert best_earlier_incumbent(_Family(), None, None, _result(5.0, [11.0, 10.0]), 10.0, None) is None


def test_polishing_comes_first():
    best = best_earlier_incumbent(_Family(), None, None, _result(5.0, [9.0, 12.0]), 10.0, None,
                                  polished=lambda x, deadline: None if x[0] == 9.0 else x - 4.0)
    assert best == (8.0, 8.0, 8.0, 1)                        # 12 polished to 8; 9 not polishable, kept as 9


def test_nothing_is_decoded_when_the_mip_objective_is_exact_or_time_is_up():
    family = _Family()
    assert best_earlier_incumbent(family, None, None, _result(10.0, [7.0]), 10.0, None) is None
    assert best_earlier_incumbent(family, None, None, _result(None, [7.0]), 10.0, None) is None
    assert best_earlier_incumbent(family, None, None, _result(5.0, [7.0]), 10.0, time.perf_counter()) is None
    assert family.decoded == []
