"""A formulation solved on a subset of its rows: the rows left out checked at the solution and brought back.

A MIP with most of its integers fixed (a neighbourhood round: every row of the data routed as the incumbent routes
it but a few) carries rows that can no longer bind and rows that are far from binding, and with its presolve off
(HiGHS on big models, :data:`~optitrees.solvers.highs.UNTIMED_STEPS_OFF`) the solver pays for every one of them in
every simplex iteration. :class:`RowSubset` is the formulation on the rows that matter, the rest checked at its
solutions:

* **implied rows** (:func:`implied_rows`): rows every point within the column bounds satisfies (a big-M row whose
  binary is fixed at the value that relaxes it) are left out for good; they hold at any solution;
* **far rows** (:func:`row_distances`): rows whose slack at the start ``x0``, over the norm of their coefficients
  on the columns left free, is at least ``far``: left out at first, checked at every solution and brought back where
  violated (constraint generation), until none is;
* **switched-off rows** (:func:`switched_off_rows`): rows of a group of switches (a routing's binaries ``z``) whose
  every switch is fixed at 0, the value that relaxes them (a big-M row ``w x_i + M z[i, l] <= b + M`` of a row
  routed elsewhere): left out at first and checked like far rows. Their big-M values come from bounds the other
  rows imply (``||w_t||_1 <= 1``), which column bounds alone do not show, so the implied-row test keeps them (OCT-H
  on 2,966 rows of phishing, 8 rows free: 11,832 of its 18,537 rows);
* **defined columns**: a left-out equality row with one column that no kept row uses (the margin
  ``s[t, i] = y_i (w_t x_i + b_t)`` of a node whose rows are all left out) defines that column; the column is
  computed from its row at every solution (:meth:`RowSubset.complete`), and the row is brought back when the value
  leaves the column's bounds.

The loop (:func:`optitrees.solvers.row_generation.solve_by_row_generation`) ends with a solution of the whole
formulation: every row holds at it (to :data:`VIOLATION_TOL`), so the subset's optimum there is the formulation's
(the subset is a relaxation of it). No row on an integer column whose bounds are not fixed (a free routing binary)
is left out, so the search over the integers left free sees all of their rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ._formulation import Formulation
from ._groups import ConstraintGroup

__all__ = ["implied_rows", "row_distances", "switched_off_rows", "RowSubset"]

#: Relative tolerance of the implied-row test.
ROW_TOL = 1e-7
#: Violation (relative) above which a row left out is brought back: the solvers' primal feasibility tolerance.
VIOLATION_TOL = 1e-6


def _signed_parts(f: Formulation) -> tuple:
    """``(A+, A-, nonzero pattern of A+, of A-, A squared entrywise)`` of ``f``'s matrix, cached with it (a round
    changes only column bounds)."""
    def split():
        A = f.matrix
        pos, neg = A.maximum(0).tocsr(), A.minimum(0).tocsr()
        return pos, neg, (pos != 0).astype(float), (neg != 0).astype(float), A.multiply(A).tocsr()
    return f._cached("A+-", split)


def _activity(f: Formulation, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least and largest value of each row of ``f``'s ``A x`` over the box ``lower <= x <= upper`` (``-inf`` /
    ``inf`` where an unbounded column can take the row there)."""
    pos, neg, on_pos, on_neg, _ = _signed_parts(f)
    lo_inf, up_inf = (~np.isfinite(lower)).astype(float), (~np.isfinite(upper)).astype(float)
    lo, up = np.where(lo_inf > 0, 0.0, lower), np.where(up_inf > 0, 0.0, upper)
    least, most = pos @ lo + neg @ up, pos @ up + neg @ lo
    least[on_pos @ lo_inf + on_neg @ up_inf > 0] = -np.inf
    most[on_pos @ up_inf + on_neg @ lo_inf > 0] = np.inf
    return least, most


def implied_rows(f: Formulation, lower=None, upper=None) -> np.ndarray:
    """Mask of ``f``'s rows that hold at every point within its column bounds: ``lower <= min A_r x`` and
    ``max A_r x <= upper`` over the box (to :data:`ROW_TOL`, relative; ``lower``, ``upper``: the rows' bounds,
    ``f``'s when not given).

    >>> from optitrees.mip import Formulation
    >>> f = Formulation()
    >>> _ = f.add_set("K", [0]); x = f.add_variables("x", ["K"], 0, 1); z = f.add_variables("z", ["K"], 0, 0)
    >>> _ = f.add_constraints("big_m", ["K"], [(x.columns, 1.0), (z.columns, -5.0)], upper=1.0)   # x <= 1 + 5 z
    >>> _ = f.add_constraints("tight", ["K"], [(x.columns, 1.0)], upper=0.5)
    >>> implied_rows(f).tolist()
    [True, False]
    """
    least, most = _activity(f, f.col_lower, f.col_upper)
    lo = f.row_lower if lower is None else lower
    up = f.row_upper if upper is None else upper
    return (least >= lo - ROW_TOL * np.maximum(1.0, np.abs(lo))) & (most <= up + ROW_TOL * np.maximum(1.0, np.abs(up)))


def row_distances(f: Formulation, x, lower=None, upper=None) -> np.ndarray:
    """Each row's slack at ``x`` (to the nearer of its bounds ``lower``, ``upper``, ``f``'s when not given) over
    the Euclidean norm of its coefficients on the columns whose bounds are not fixed: how far the free columns must
    move from ``x`` before the row binds (``inf`` for a row on fixed columns only; negative where ``x`` violates
    it)."""
    x = np.asarray(x, dtype=float)
    A = f.matrix
    ax = A @ x
    slack = np.minimum(ax - (f.row_lower if lower is None else lower), (f.row_upper if upper is None else upper) - ax)
    moving = (f.col_upper > f.col_lower).astype(float)
    norm = np.sqrt(_signed_parts(f)[4] @ moving)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norm > 0, slack / norm, np.where(slack >= 0, np.inf, -np.inf))


def switched_off_rows(f: Formulation, switches) -> np.ndarray:
    """Mask of ``f``'s rows that have entries on the columns ``switches`` (binaries), every one of them fixed at 0
    and of the sign that makes 1 tighten the row: positive in a row with only an upper bound, negative in one with
    only a lower bound (``w x_i + M z <= b + M``: at ``z = 0`` the row is relaxed by ``M``). Ranged and equality
    rows are never switched off.

    >>> from optitrees.mip import Formulation
    >>> f = Formulation()
    >>> _ = f.add_set("K", [0, 1]); x = f.add_variables("x", ["K"], 0, 1); z = f.add_variables("z", ["K"], 0, 1)
    >>> _ = f.add_constraints("big_m", ["K"], [(x.columns, 1.0), (z.columns, 5.0)], upper=5.5)   # x <= 0.5 + 5 (1 - z)
    >>> f.fix(z, [0.0, 1.0])
    >>> switched_off_rows(f, z.columns).tolist()
    [True, False]
    """
    A = f.matrix
    on = np.zeros(f.n_cols, bool)
    on[np.asarray(switches).ravel()] = True
    at_zero = on & (f.col_upper == 0)
    upper_only = np.isfinite(f.row_upper) & ~np.isfinite(f.row_lower)
    lower_only = np.isfinite(f.row_lower) & ~np.isfinite(f.row_upper)
    entry_on = on[A.indices]
    row = np.repeat(np.arange(f.n_rows), np.diff(A.indptr))
    relaxing = at_zero[A.indices] & np.where(upper_only[row], A.data > 0, lower_only[row] & (A.data < 0))
    entries = np.bincount(row[entry_on], minlength=f.n_rows)
    relaxed = np.bincount(row[entry_on & relaxing], minlength=f.n_rows)
    return (entries > 0) & (relaxed == entries)


@dataclass
class RowSubset:
    """``f`` (whose column bounds are as the solve will see them) on its rows ``keep``, with the columns that the
    equality rows ``defining`` define (``columns[k]`` by ``defining[k]``) computed from them (module docstring).
    :meth:`of` chooses the subset."""

    f: Formulation
    keep: np.ndarray
    defining: np.ndarray
    columns: np.ndarray
    #: The rows' bounds in the subset: ``f``'s, or widened to hold the start (:meth:`of` with ``hold``).
    row_lower: np.ndarray
    row_upper: np.ndarray
    #: Rows brought back by each check (:meth:`bring_back`).
    added: tuple = ()

    @classmethod
    def of(cls, f: Formulation, x0, far: float, hold: bool = False, switches=None) -> "RowSubset":
        """The subset of ``f`` for a solve from ``x0``: every row but the implied ones, those at distance ``far``
        or more from ``x0`` (:func:`row_distances`) and those the columns ``switches`` switch off
        (:func:`switched_off_rows`), and every row on an integer column whose bounds are not fixed; the columns left
        out equality rows define (module docstring). With ``hold``, each row ``x0`` violates is widened to hold it (a
        start from outside the model: a tree whose weights exceed the bound the big-M values come from), so ``x0`` is
        a solution of the subset wherever it is within the column bounds, unless it violates a row on integer
        columns alone (such as a feature budget), which is never widened."""
        A = f.matrix
        lower, upper = f.row_lower.copy(), f.row_upper.copy()
        if hold:
            # a row on integer columns alone (a feature budget over its indicators) is a choice of the model, not
            # a big-M a start beyond the weight bound can break: it is never widened
            ax = A @ np.asarray(x0, dtype=float)
            _, _, on_pos, on_neg, _ = _signed_parts(f)               # cached with the matrix: no copy per round
            continuous = (~f.integrality).astype(float)
            on_continuous = (on_pos @ continuous + on_neg @ continuous) > 0
            np.minimum(lower, np.where(on_continuous, ax, lower), out=lower)
            np.maximum(upper, np.where(on_continuous, ax, upper), out=upper)
        free_integer = f.integrality & (f.col_upper > f.col_lower)
        on_free_integer = (A @ free_integer.astype(float)) != 0
        implied = implied_rows(f, lower, upper)
        equality = lower == upper
        off = np.zeros(f.n_rows, bool) if switches is None else switched_off_rows(f, switches)
        keep = on_free_integer | (~implied & ~equality & ~off & (row_distances(f, x0, lower, upper) < far))
        return cls._with_definitions(f, keep, implied, lower, upper)

    @classmethod
    def _with_definitions(cls, f, keep, implied, lower, upper) -> "RowSubset":
        """The subset ``keep`` with its defined columns: each equality row left out (and not implied) with exactly
        one continuous column that no kept row and no other such row uses defines that column; every other equality
        row is kept."""
        A = f.matrix
        used = np.zeros(f.n_cols, bool)
        used[A[np.flatnonzero(keep)].indices] = True
        rows = np.flatnonzero(~keep & ~implied & (lower == upper))
        sub = A[rows]
        in_rows = np.bincount(sub.indices, minlength=f.n_cols)
        open_entry = ~used[sub.indices] & ~f.integrality[sub.indices] & (in_rows[sub.indices] == 1)
        owner = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
        count = np.bincount(owner, weights=open_entry, minlength=len(rows))
        single = open_entry & (count[owner] == 1)
        columns, defining = sub.indices[single], rows[owner[single]]
        keep = keep.copy()
        keep[rows[~np.isin(rows, defining)]] = True
        return cls(f, keep, defining, columns, lower, upper)

    def formulation(self, carried=()) -> Formulation:
        """``f`` on the rows :attr:`keep`: the same columns (shared, with their bounds), objective, problem and
        solve strategy, its rows one group ``kept_rows`` labelled by their index in ``f``, followed by the groups of
        ``carried`` (rows a solve of an earlier subset added, such as a cut loop's cuts, valid in every subset). An
        integer group whose every column is fixed is continuous in it: with every integer fixed it is an LP, and the
        solver's LP is not its MIP's root (cuts, heuristics)."""
        f = self.f
        rows = np.flatnonzero(self.keep)
        variables = {name: replace(v, domain="continuous") if v.domain != "continuous" and np.all(v.lower == v.upper)
                     else v for name, v in f.variables.items()}
        g = Formulation(f.name, sets={**f.sets, "R": rows}, variables=variables, constraints={}, problem=f.problem,
                        objective_offset=f.objective_offset, integrality_tol=f.integrality_tol,
                        user_groups=f.user_groups)
        g.n_cols, g._cost, g._quad = f.n_cols, list(f._cost), list(f._quad)
        sub = f.matrix[rows].tocoo()
        g.constraints["kept_rows"] = ConstraintGroup("kept_rows", ("R",), (len(rows),), 0, sub.row.astype(np.int64),
                                                     sub.col.astype(np.int64), sub.data.astype(float),
                                                     self.row_lower[rows].copy(), self.row_upper[rows].copy(),
                                                     "the formulation's rows (a subset)")
        g.n_rows = len(rows)
        for group in carried:
            g.constraints[group.name] = replace(group, start=g.n_rows)
            g.n_rows += group.size
        if getattr(f, "strategy", None) is not None:
            g.strategy = f.strategy
        return g

    def complete(self, x) -> np.ndarray:
        """``x`` with each defined column computed from its defining row (the row's other columns at ``x``)."""
        x = np.array(x, dtype=float)
        if self.defining.size:
            A = self.f.matrix[self.defining]
            coef = np.asarray(A[np.arange(len(self.columns)), self.columns]).ravel()
            x[self.columns] = 0.0
            x[self.columns] = (self.row_lower[self.defining] - A @ x) / coef
        return x

    def violated(self, x, tol: float = VIOLATION_TOL) -> np.ndarray:
        """Rows left out that ``x`` (completed) violates by more than ``tol`` (relative), and the defining rows
        of columns ``x`` puts outside their bounds."""
        f = self.f
        ax = f.matrix @ x
        lo, up = self.row_lower, self.row_upper
        bad = (ax < lo - tol * np.maximum(1.0, np.abs(lo))) | (ax > up + tol * np.maximum(1.0, np.abs(up)))
        out = np.zeros(f.n_rows, bool)
        out[bad & ~self.keep] = True
        xc = x[self.columns]
        off = (xc < f.col_lower[self.columns] - tol * np.maximum(1.0, np.abs(xc))) | \
              (xc > f.col_upper[self.columns] + tol * np.maximum(1.0, np.abs(xc)))
        out[self.defining[off]] = True
        return out

    def bring_back(self, rows: np.ndarray) -> None:
        """Keep ``rows`` (a mask) from now on, with the defining rows of the defined columns they use; a defining row
        brought back no longer defines its column."""
        rows = rows.copy()
        uses = np.zeros(self.f.n_cols, bool)
        uses[self.f.matrix[np.flatnonzero(rows)].indices] = True
        rows[self.defining[uses[self.columns]]] = True
        self.keep = self.keep | rows
        self.added = self.added + (int(rows.sum()),)
        stay = ~self.keep[self.defining]
        self.defining, self.columns = self.defining[stay], self.columns[stay]
