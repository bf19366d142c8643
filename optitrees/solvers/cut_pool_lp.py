"""A formulation's LP relaxation in HiGHS with a pool of cuts: the node LP of :mod:`optitrees.solvers.branch_and_cut`.

The LP carries only the cuts that bind lately and takes back any other that
its optimum violates, so every value it returns is that of the LP with the
whole pool, with fewer rows to re-solve (:class:`CutPoolLP`).
"""

from __future__ import annotations

import time

import numpy as np

from ..budget import remaining
from ..mip import new_highs
from .highs_run import counted_run

__all__ = ["CutPoolLP", "UNSOLVED"]

#: What :meth:`CutPoolLP.solve` returns when the LP ends without an optimum or a proof of infeasibility.
UNSOLVED = "unsolved"


class CutPoolLP:
    """The formulation's LP relaxation in HiGHS, with cuts from a pool appended as rows.

    Every cut goes into the pool; the LP holds only those that have been
    binding lately. A cut slack at ``max_age`` LP optima in a row leaves the
    LP (once it holds more than ``min_rows`` cuts); at every LP optimum the
    pool's other cuts are checked and the most violated ones (at most
    ``max_back``) put back before the LP is solved again. So each optimum
    that ``solve`` returns satisfies every cut of the pool: its value is that
    of the LP with all cuts, with fewer rows to carry. A HiGHS run costs time
    in proportion to the LP's nonzeros even when it needs no simplex
    iteration (1.3 ms at 300 cuts of 115 nonzeros, 6.7 ms at 1000), and on
    ``rs_mushroom`` the cuts are dense: keeping them all, node LPs took 53 of 60 s.
    With dual steepest edge pricing a run after a change cost about 10 us more
    per LP row, few iterations or many (1.2 ms at 270 rows, 2.6 ms at 420, on
    ``rs_mushroom``): the LPs run with Devex pricing instead.
    """

    def __init__(self, formulation, seed, verbose, max_age=5, min_rows=100, max_back=32):
        import highspy

        self.highspy = highspy
        h = new_highs(verbose)
        h.setOptionValue("random_seed", int(seed))
        # ``threads`` is left to HiGHS's process-wide scheduler: an explicit count that differs from the one it was
        # made with fails every run (see :func:`~optitrees.solvers.highs.configured_highs`); dual simplex is serial
        # Devex pricing: with dual steepest edge (HiGHS's choice) a run after a change spent its time in BTRANs
        # and refactoring, about 10 us per row (its weights computed again, it seems): node LPs took 1.5x as
        # long on rs_mushroom (T = 7 certified in 53-56 s against 38 s)
        h.setOptionValue("simplex_dual_edge_weight_strategy", 1)
        formulation.to_highs(names=False, highs=h)
        n = formulation.n_cols
        self.n = n
        h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.full(n, highspy.HighsVarType.kContinuous))
        self.h = h
        self.all = np.arange(n, dtype=np.int32)
        self.n_base = h.getNumRow()
        self.max_age, self.min_rows, self.max_back = max_age, min_rows, max_back
        self.n_cuts = 0
        self.columns = np.zeros(0, np.int32)      # the columns any cut has a coefficient on, ascending
        self._in_columns = np.zeros(n, bool)      # whether a column is in ``columns``
        self._pool = np.zeros((64, 0))            # cut rows on those columns: pool @ x[columns] >= lower
        self._lower = np.zeros(64)
        self._in_lp = np.zeros(64, bool)
        self._age = np.zeros(64, int)             # LP optima at which the cut has been slack, in a row
        self.rows = np.zeros(0, int)              # pool ids of the LP's cut rows, in row order

    pool = property(lambda self: self._pool[: self.n_cuts])
    lower = property(lambda self: self._lower[: self.n_cuts])
    in_lp = property(lambda self: self._in_lp[: self.n_cuts])
    age = property(lambda self: self._age[: self.n_cuts])

    def cut_values(self, x) -> np.ndarray:
        """The left-hand side of every pool cut at ``x`` (of shape (n_cols,)); the cuts read ``>= lower``."""
        return self.pool @ np.asarray(x, float)[self.columns]

    def add_cut(self, index, coef, lower):
        """Add the cut ``coef x[index] >= lower`` to the pool and the LP.

        The pool stores the cuts on the columns any of them uses (a risk score's cuts are on its points
        and the loss, not its selections: half of the columns), so checking it costs half as much."""
        index, coef = np.asarray(index, int), np.asarray(coef, float)
        new = index[(coef != 0.0) & ~self._in_columns[index]]
        if new.size:                               # widen the pool to the new columns, kept ascending
            columns = np.union1d(self.columns, new).astype(np.int32)
            pool = np.zeros((len(self._lower), len(columns)))
            pool[:, np.searchsorted(columns, self.columns)] = self._pool
            self.columns, self._pool = columns, pool
            self._in_columns[new] = True
        k = self.n_cuts
        if k == len(self._lower):
            self._pool, self._lower, self._in_lp, self._age = (np.concatenate([a, np.zeros_like(a)]) for a in (
                self._pool, self._lower, self._in_lp, self._age))
        row = np.zeros(self.n)
        np.add.at(row, index, coef)
        row[np.abs(row) <= 1e-13] = 0.0
        self._pool[k] = row[self.columns]
        self._lower[k] = float(lower)
        self.n_cuts += 1
        self._to_lp(np.array([k]))

    def _to_lp(self, ids):
        block = self.pool[ids]
        nz = block != 0.0
        starts = np.concatenate([[0], np.cumsum(nz.sum(axis=1))[:-1]]).astype(np.int32)
        cols = self.columns[np.nonzero(nz)[1]]
        self.h.addRows(len(ids), self.lower[ids], np.full(len(ids), self.highspy.kHighsInf), int(nz.sum()), starts,
                       cols, block[nz])
        self.in_lp[ids] = True
        self.age[ids] = 0
        self.rows = np.concatenate([self.rows, ids])

    def _violated(self, x, tol):
        """Pool cuts outside the LP that ``x`` violates, the ``max_back`` most violated."""
        excess = self.lower - self.cut_values(x)
        out = np.flatnonzero((excess > tol * np.maximum(1.0, np.abs(self.lower))) & ~self.in_lp)
        return out[np.argsort(-excess[out])[: self.max_back]]

    def _age_and_purge(self, row_value):
        ids = self.rows
        slack = row_value[self.n_base:] - self.lower[ids] > 1e-6 * np.maximum(1.0, np.abs(self.lower[ids]))
        self.age[ids] = np.where(slack, self.age[ids] + 1, 0)
        old = self.age[ids] >= self.max_age
        if len(ids) > self.min_rows and old.any():
            rows = (self.n_base + np.flatnonzero(old)).astype(np.int32)
            self.h.deleteRows(len(rows), rows)
            self.in_lp[ids[old]] = False
            self.rows = ids[~old]

    def solve(self, lo, hi, time_left, tol=1e-9):
        """``(value, x, reduced_costs)`` at the LP optimum (every pool cut satisfied), ``None`` when the node is
        infeasible, ``UNSOLVED`` otherwise (time limit, numerical trouble: the node is neither bounded nor
        closed)."""
        h = self.h
        h.changeColsBounds(self.n, self.all, lo, hi)
        deadline = time.perf_counter() + max(float(time_left), 1e-3)
        while True:
            # HiGHS's time limit counts the run time of every solve of this object, not of this one
            h.setOptionValue("time_limit", h.getRunTime() + max(remaining(deadline), 1e-3))
            counted_run(h)
            status = h.getModelStatus()
            if status == self.highspy.HighsModelStatus.kInfeasible:
                return None
            if status != self.highspy.HighsModelStatus.kOptimal:
                return UNSOLVED
            solution = h.getSolution()
            x = np.array(solution.col_value)
            back = self._violated(x, tol)
            if back.size == 0:
                value = float(h.getInfo().objective_function_value)      # before a purge clears it
                self._age_and_purge(np.array(solution.row_value))
                return value, x, np.array(solution.col_dual)
            self._to_lp(back)
