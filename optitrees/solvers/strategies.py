"""How a formulation is solved, declared by the formulation itself and run by :func:`optitrees.solvers.solve`.

Most formulations are solved by one backend solve. Two need more, and say so
by setting ``formulation.strategy`` when they are built:

* :class:`CutLoop` -- convex terms modelled by tangents (MARGOT's squared l2 on
  HiGHS, logistic trees with ``tangents="adaptive"``): re-solve, adding cuts
  where the solution is underestimated (:mod:`optitrees.solvers.cut_loop`);
* :class:`BranchAndCut` -- an objective made exact by a cut oracle (the
  risk-score master): one search tree over HiGHS LPs with lazy cuts
  (:mod:`optitrees.solvers.branch_and_cut`).

Either way the caller gets one :class:`~optitrees.solvers.SolverResult`, the
same progress line on long solves, and the incumbent / bound trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["CutLoop", "BranchAndCut"]


@dataclass
class CutLoop:
    """Re-solve with cuts from ``cutters`` (:mod:`optitrees.formulations.cuts`) until each term is within its
    tolerance, at most ``max_rounds`` solves."""

    cutters: tuple
    max_rounds: int = 50
    #: The backends that can run it (any MILP backend).
    backends = None

    def run(self, formulation, solve_once, options, start):
        from .cut_loop import run_cut_loop

        return run_cut_loop(formulation, self.cutters, solve_once, max_rounds=self.max_rounds, warm_start=start,
                            deadline=_deadline(options))


@dataclass
class BranchAndCut:
    """Branch and bound over HiGHS LPs with the cuts of ``oracle`` (see :func:`~optitrees.solvers.branch_and_cut.
    branch_and_cut`); the node limit is the ``mip_max_nodes`` solver option."""

    oracle: object
    root_rounds: int = 300
    node_rounds: int = 3
    #: Its LPs are HiGHS's.
    backends = ("highs",)

    def run(self, formulation, solve_once, options, start):
        from .branch_and_cut import branch_and_cut
        from .options import ProgressPrinter

        with ProgressPrinter("cutting_planes", options) as progress:
            return branch_and_cut(formulation, self.oracle, incumbent=start, deadline=_deadline(options),
                                  mip_gap=options.mip_gap,
                                  node_limit=options.solver_options.get("mip_max_nodes"),
                                  root_rounds=self.root_rounds, node_rounds=self.node_rounds,
                                  threads=options.threads or 1, seed=options.seed, verbose=options.verbose,
                                  progress=progress)


def _deadline(options):
    """The ``time.perf_counter()`` by which the whole strategy ends (time limit and deadline), or ``None``."""
    remaining = options.remaining()
    return None if remaining is None else time.perf_counter() + remaining
