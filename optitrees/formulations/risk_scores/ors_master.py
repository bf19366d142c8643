r"""The aggregate-loss master of ORS: points, intercept and one loss variable, cut by the exact loss.

RiskSLIM's lattice cutting-plane model (Ustun & Rudin) of the optimal risk
score (4.5): instead of a slack and tangent rows per training point, one
variable ``L`` stands for the total logistic loss ``l(s, beta)`` (see
:class:`~optitrees.formulations.risk_scores.aggregate_loss.AggregateLoss`)::

    min  L
    s.t. the point rules of ORS (4.2, 4.3, groups)           (add_point_rules)
         L >= l(s_k, beta_k) + grad l(s_k, beta_k) . ((s, beta) - (s_k, beta_k))   for every cut k
         |beta| <= B

Its size does not depend on the number of training points. The cuts are
generated during the search (:func:`optitrees.solvers.branch_and_cut.branch_and_cut`, the strategy the master declares)
by :class:`LossOracle`; each is a tangent plane of a convex function, so
every LP bound is a valid lower bound on the exact training loss and the
gap the search reports is certified. The warm start's cut is in the model
from the start.
"""

from __future__ import annotations

import numpy as np

from ...mip import Formulation, timed_build
from ...solvers.strategies import BranchAndCut
from .shared import add_point_rules

__all__ = ["build_master", "LossOracle"]


@timed_build
def build_master(problem) -> Formulation:
    """The master of an :class:`~optitrees.formulations.risk_scores.ors.ORSProblem` (module docstring), without cuts."""
    spec = problem.spec
    f = Formulation(name=f"ors_master_T{spec.n_rules}", integrality_tol=1e-6)
    f.problem = problem
    a, s = add_point_rules(f, problem.data.labels, problem.lower, problem.upper, spec.n_rules, spec.exact_rules,
                           spec.groups, spec.forbidden)
    f.add_variables("beta", ("one",), -problem.intercept_bound, problem.intercept_bound)
    L = f.add_variables("L", ("one",), 0.0, np.inf)
    f.add_objective(L, 1.0)
    f.strategy = BranchAndCut(LossOracle(f))          # solved by one search tree with the oracle's cuts
    return f


class LossOracle:
    """The cuts and completions of the master ``f`` for :func:`~optitrees.solvers.branch_and_cut.branch_and_cut`.

    ``separate(x)`` returns the exact loss at ``(s, beta)`` of ``x`` and the
    RiskSLIM cut there as ``(columns, coefficients, lower)`` (the search adds
    it when the exact loss exceeds the LP's value); ``complete(x)`` gives an integral ``x`` the exactly best intercept
    for its points and ``L`` its exact loss; ``line_search(x0, x1)`` the point of least loss between two
    points (where the search's in-out cuts go).
    """

    def __init__(self, f: Formulation):
        self.f = f
        self.loss = f.problem.loss
        self.bound = f.problem.intercept_bound
        self.s = f.variables["s"].columns
        self.beta = int(f.variables["beta"].columns[0])
        self.L = int(f.variables["L"].columns[0])
        self.a = f.variables["a"].columns
        self.columns = np.concatenate([[self.L], self.s, [self.beta]])

    def separate(self, x):
        s, beta = x[self.s], float(x[self.beta])
        value, g_s, g_beta, rhs = self.loss.cut(s, beta)
        return value, (self.columns, np.concatenate([[1.0], -g_s, [-g_beta]]), rhs)

    def line_search(self, x0, x1):
        """The point of least exact loss on the segment from ``x0`` to ``x1``
        (:meth:`~optitrees.formulations.risk_scores.aggregate_loss.AggregateLoss.segment_minimum`)."""
        t = self.loss.segment_minimum(x0[self.s], float(x0[self.beta]), x1[self.s], float(x1[self.beta]))
        return x0 + t * (np.asarray(x1, float) - x0)

    def complete(self, x):
        x = np.array(x, float)
        s = np.round(x[self.s])
        x[self.s] = s
        x[self.a] = np.maximum(np.round(x[self.a]), (s != 0).astype(float))
        x[self.beta] = self.loss.best_intercept(s, self.bound)
        value = float(self.loss.value(s, x[self.beta]))
        x[self.L] = value
        return x, value
