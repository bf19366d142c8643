"""The formulation container: a mixed-integer program held as whole arrays.

A :class:`Formulation` holds

* variable groups (``z``, ``w``, ``b``, ``xi`` ...) over named index sets, each a
  contiguous block of columns with bounds and a domain;
* constraint groups (``routing``, ``forward_left`` ...) over named index sets,
  each a block of rows ``lower <= A x <= upper`` given as sparse triplets;
* a linear objective ``c x + offset`` plus an optional diagonal quadratic
  ``sum_k q_k x_k^2`` (minimized);
* ``problem``: the typed description of what was modelled (data, settings and
  derived constants such as big-M and ``eps``) that a model family needs to
  decode a solution; the container never reads it.

Groups are added as arrays or as expressions (:mod:`optitrees.mip.expressions`). The compilers live beside it:
:mod:`optitrees.mip._highs` (``to_highs``), :mod:`optitrees.mip.files` (``write``), :mod:`optitrees.mip._pyomo`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._build_deadline import check_build_deadline
from ._groups import DOMAINS, INT32_LIMIT, ConstraintGroup, VariableGroup, compact_indices, concatenated

__all__ = ["Formulation"]


@dataclass
class Formulation:
    """A mixed-integer program assembled from named variable and constraint groups.

    Parameters
    ----------
    name : str
        Model name written to exported files.

    Attributes
    ----------
    sets : dict of str -> ndarray
        Index sets by name (``I`` points, ``J`` features, ``T`` branch nodes ...).
    variables, constraints : dict
        :class:`VariableGroup` / :class:`ConstraintGroup` by name, in creation order.
    problem : object
        The model family's typed description of what was built (for example
        :class:`~optitrees.formulations.loss_optimal.model.LossOptimalProblem`); the
        family's ``decode`` and ``start`` read it.
    build_time : float
        Seconds the builder spent creating the groups.
    integrality_tol : float or None
        Integrality tolerance the big-M values and margins were sized for;
        ``solve`` imposes it on every backend.
    user_groups : tuple of str
        Variable groups a user's ``constraints`` hook added to a model family's
        formulation (set by the estimators); a family's start leaves them to be
        completed.
    """

    name: str = "optitrees"
    sets: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)
    constraints: dict = field(default_factory=dict)
    problem: object = None
    build_time: float = 0.0
    objective_offset: float = 0.0
    integrality_tol: float | None = None
    user_groups: tuple = ()

    def __post_init__(self):
        self.n_cols = 0
        self.n_rows = 0
        self._cost: list[tuple[np.ndarray, np.ndarray]] = []
        self._quad: list[tuple[np.ndarray, np.ndarray]] = []
        self._cache: dict = {}

    # ------------------------------------------------------------ building
    def add_set(self, name: str, labels) -> np.ndarray:
        """Declare an index set; re-declaring it with the same labels is a no-op."""
        labels = np.asarray(labels)
        if name in self.sets and not np.array_equal(self.sets[name], labels):
            raise ValueError(f"index set {name!r} already declared with other labels")
        self.sets[name] = labels
        return labels

    def index(self, set_name: str, label) -> int:
        """Position of ``label`` in the index set ``set_name`` (e.g. a feature name in ``J``)."""
        labels = self.sets[set_name].tolist()
        if label not in labels:
            raise KeyError(f"{label!r} is not in index set {set_name!r} (labels: {labels[:8]}...)")
        return labels.index(label)

    def _shape(self, dims) -> tuple[int, ...]:
        missing = [d for d in dims if d not in self.sets]
        if missing:
            raise KeyError(f"undeclared index set(s) {missing}")
        return tuple(len(self.sets[d]) for d in dims)

    def add_variables(self, name, dims, lower=-np.inf, upper=np.inf, domain="continuous") -> VariableGroup:
        """Add a variable group over the index sets ``dims``.

        Parameters
        ----------
        name : str
        dims : sequence of str
            Names of declared index sets.
        lower, upper : float or array broadcastable to the group's shape
        domain : {"continuous", "binary", "integer"}

        Returns
        -------
        VariableGroup
        """
        check_build_deadline()
        if name in self.variables or name in self.constraints:
            raise ValueError(f"component {name!r} already exists")
        if domain not in DOMAINS:
            raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
        dims = tuple(dims)
        shape = self._shape(dims)
        lo = np.broadcast_to(np.asarray(lower, dtype=float), shape).ravel().copy()
        up = np.broadcast_to(np.asarray(upper, dtype=float), shape).ravel().copy()
        if domain == "binary":
            lo, up = np.maximum(lo, 0.0), np.minimum(up, 1.0)
        group = VariableGroup(name, dims, shape, self.n_cols, domain, lo, up, self.sets)
        self.variables[name] = group
        self.n_cols += group.size
        self._cache.clear()
        return group

    def add_constraints(self, name, dims, terms=None, lower=-np.inf, upper=np.inf, equation="") -> ConstraintGroup:
        """Add rows ``lower <= sum_terms coef * x[col] <= upper`` over ``dims``, or the rows of a comparison of
        expressions (``f.add_constraints("use", w <= W * u)``, :mod:`optitrees.mip.expressions`).

        Parameters
        ----------
        name : str
        dims : sequence of str, Constraint or Expression
            Index sets; the group has ``prod(len(set))`` rows in C order. A comparison of expressions
            gives its sets, terms and bounds (:func:`~optitrees.mip.expressions.compile_rows`); an expression
            with ``lower`` and/or ``upper`` gives the ranged rows ``lower <= expression <= upper``
            (``f.add_constraints("discriminative", z.sum("I"), lower=1, upper=n - 1)``).
        terms : sequence of (cols, coefs)
            Each pair holds arrays of shape ``(n_rows,)`` or ``(n_rows, k)``: the
            column indices and coefficients of ``k`` nonzeros per row. Scalars and
            shorter shapes broadcast. Entries with coefficient 0 are dropped.
        lower, upper : float or array of shape (n_rows,)
        equation : str
            Seed equation the group implements, e.g. ``"3.7a"``.
        """
        from .expressions import rows_of_expression

        compiled = rows_of_expression(self, name, dims, terms, lower, upper)
        if compiled is not None:                             # a comparison, an expression or a group: its rows
            return self.add_constraints(name, *compiled, equation=equation)
        if terms is None:
            raise ValueError("add_constraints needs the rows' terms, or a comparison of expressions")
        check_build_deadline()
        if name in self.variables or name in self.constraints:
            raise ValueError(f"component {name!r} already exists")
        dims = tuple(dims)
        shape = self._shape(dims)
        n = int(np.prod(shape, dtype=np.int64))
        rows, cols, vals = [], [], []
        for c, v in terms:
            c = np.asarray(c)
            v = np.asarray(v, dtype=float)
            c2 = c.reshape(n, -1) if c.size >= n else np.broadcast_to(c.reshape(1, -1), (n, c.size))
            k = c2.shape[1]
            v2 = np.broadcast_to(v.reshape(n, -1) if v.size >= n else v.reshape(1, -1), (n, k))
            r2 = np.broadcast_to(np.arange(n)[:, None], (n, k))
            keep = v2 != 0
            rows.append(r2[keep])
            cols.append(c2[keep])
            vals.append(v2[keep])
        lo = np.broadcast_to(np.asarray(lower, dtype=float), (n,)).copy()
        up = np.broadcast_to(np.asarray(upper, dtype=float), (n,)).copy()
        group = ConstraintGroup(
            name, dims, shape, self.n_rows, compact_indices(rows), compact_indices(cols),
            np.concatenate(vals) if vals else np.zeros(0), lo, up, equation, self,
        )
        self.constraints[name] = group
        self.n_rows += n
        self._cache.clear()
        return group

    def minimize(self, objective) -> None:
        """Add an expression to the (minimized) objective, summed over every entry of its sets: linear terms, its
        constant and squares of variable groups (:func:`~optitrees.mip.expressions.objective_parts`)."""
        from .expressions import objective_parts

        linear, squares, offset = objective_parts(objective)
        self._cost += linear
        self._quad += squares
        self.objective_offset += offset
        self._cache.clear()

    def add_objective(self, group: VariableGroup | str, coefs) -> None:
        """Add ``sum coefs * group`` to the (minimized) linear objective."""
        g = self.variables[group] if isinstance(group, str) else group
        c = np.broadcast_to(np.asarray(coefs, dtype=float), g.shape).ravel()
        self._cost.append((g.columns.ravel(), c))
        self._cache.clear()

    def add_quadratic_objective(self, group: VariableGroup | str, coefs) -> None:
        """Add ``sum coefs * group**2`` (diagonal, convex for ``coefs >= 0``)."""
        g = self.variables[group] if isinstance(group, str) else group
        q = np.broadcast_to(np.asarray(coefs, dtype=float), g.shape).ravel()
        if np.any(q < 0):
            raise ValueError("quadratic objective coefficients must be >= 0 (convex)")
        self._quad.append((g.columns.ravel(), q))
        self._cache.clear()

    def fix(self, group: VariableGroup | str, values, mask=None) -> None:
        """Fix variables at ``values`` (lower = upper); ``mask`` selects entries of the group's shape."""
        g = self.variables[group] if isinstance(group, str) else group
        v = np.broadcast_to(np.asarray(values, dtype=float), g.shape).ravel()
        m = np.ones(g.size, bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), g.shape).ravel()
        g.lower[m] = v[m]
        g.upper[m] = v[m]
        self.bounds_changed()

    def bounds_changed(self) -> None:
        """Forget the cached column bounds (after a group's ``lower`` / ``upper`` changed in place); the matrix and
        everything else that depends on the structure stay cached."""
        self._cache.pop("cl", None)
        self._cache.pop("cu", None)

    # ---------------------------------------------------------- standard form
    def _cached(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    @property
    def cost(self) -> np.ndarray:
        """Dense linear objective vector ``c`` (length ``n_cols``)."""
        def build():
            c = np.zeros(self.n_cols)
            for cols, vals in self._cost:
                np.add.at(c, cols, vals)
            return c
        return self._cached("cost", build)

    @property
    def quadratic(self) -> np.ndarray:
        """Dense diagonal ``q`` of the quadratic objective ``sum q_k x_k^2``."""
        def build():
            q = np.zeros(self.n_cols)
            for cols, vals in self._quad:
                np.add.at(q, cols, vals)
            return q
        return self._cached("quad", build)

    @property
    def is_quadratic(self) -> bool:
        return bool(np.any(self.quadratic))

    @property
    def matrix(self) -> sp.csr_matrix:
        """Constraint matrix ``A`` (``n_rows x n_cols``, CSR, duplicates summed)."""
        def build():
            check_build_deadline()
            groups = list(self.constraints.values())
            if not groups:
                return sp.csr_matrix((0, self.n_cols))
            index = np.int32 if self.n_rows < INT32_LIMIT else np.int64
            rows = np.concatenate([g.rows.astype(index, copy=False) + index(g.start) for g in groups])
            cols = np.concatenate([g.cols for g in groups])
            vals = np.concatenate([g.vals for g in groups])
            A = sp.csr_matrix((vals, (rows, cols)), shape=(self.n_rows, self.n_cols))
            A.sum_duplicates()
            return A
        return self._cached("A", build)

    @property
    def row_lower(self) -> np.ndarray:
        return self._cached("rl", lambda: concatenated([g.lower for g in self.constraints.values()]))

    @property
    def row_upper(self) -> np.ndarray:
        return self._cached("ru", lambda: concatenated([g.upper for g in self.constraints.values()]))

    @property
    def col_lower(self) -> np.ndarray:
        return self._cached("cl", lambda: concatenated([g.lower for g in self.variables.values()]))

    @property
    def col_upper(self) -> np.ndarray:
        return self._cached("cu", lambda: concatenated([g.upper for g in self.variables.values()]))

    @property
    def integrality(self) -> np.ndarray:
        """Boolean mask of integer (binary or integer) columns."""
        return self._cached("int", lambda: concatenated([
            np.full(g.size, g.domain != "continuous") for g in self.variables.values()
        ]).astype(bool))

    def column_names(self) -> list[str]:
        """Readable names ``z(17,3)`` of every column, in column order."""
        return self._cached("cn", lambda: [
            n for g in self.variables.values() for n in self._names(g.name, g.dims)
        ])

    def row_names(self) -> list[str]:
        """Readable names ``forward_left(1,17)`` of every row, in row order."""
        return self._cached("rn", lambda: [
            n for g in self.constraints.values() for n in self._names(g.name, g.dims)
        ])

    def _names(self, name, dims):
        labels = [[str(v) for v in self.sets[d]] for d in dims]
        return [f"{name}({','.join(idx)})" for idx in itertools.product(*labels)]

    # ----------------------------------------------------------- solutions
    def values(self, x) -> dict[str, np.ndarray]:
        """Split a column vector into the variable groups, each in its shape."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_cols,):
            raise ValueError(f"expected a vector of length {self.n_cols}, got shape {x.shape}")
        return {g.name: x[g.start:g.start + g.size].reshape(g.shape) for g in self.variables.values()}

    def vector(self, values: dict) -> np.ndarray:
        """Assemble a column vector from group values (the inverse of :meth:`values`).

        Every group must be given (a start solution handed to a solver is complete), but for those a user's
        ``constraints`` hook added (:attr:`user_groups`): a model family's start knows nothing of them, so their
        entries are NaN, to be completed (:func:`optitrees.solvers.polish.complete`).
        """
        missing = [n for n in self.variables if n not in values and n not in self.user_groups]
        if missing:
            raise ValueError(f"missing values for variable group(s) {missing}")
        x = np.full(self.n_cols, np.nan)
        for g in self.variables.values():
            if g.name in values:
                x[g.start:g.start + g.size] = np.broadcast_to(np.asarray(values[g.name], float), g.shape).ravel()
        return x

    def objective_value(self, x) -> float:
        """``c x + offset + sum q x^2`` at ``x``."""
        x = np.asarray(x, dtype=float)
        return float(self.cost @ x + self.objective_offset + self.quadratic @ (x * x))

    def violation(self, x, integrality=True, rows=True) -> float:
        """Largest violation of column bounds, (optionally) rows and (optionally) integrality at ``x``."""
        x = np.asarray(x, dtype=float)
        v = [np.max(self.col_lower - x, initial=0.0), np.max(x - self.col_upper, initial=0.0)]
        if rows:
            ax = self.matrix @ x
            v += [np.max(self.row_lower - ax, initial=0.0), np.max(ax - self.row_upper, initial=0.0)]
        if integrality:
            xi = x[self.integrality]
            v.append(np.max(np.abs(xi - np.round(xi)), initial=0.0))
        return float(max(v))

    # ------------------------------------------------------------ compilers
    def to_highs(self, names: bool = True, start=None, highs=None, allow_quadratic: bool = False):
        """Load the model into a ``highspy.Highs`` object with one ``passModel`` (:func:`optitrees.mip.to_highs`)."""
        from ._highs import to_highs

        return to_highs(self, names=names, start=start, highs=highs, allow_quadratic=allow_quadratic)

    def write(self, path) -> Path:
        """Write the model to ``.lp`` or ``.mps`` with readable names (see :func:`optitrees.mip.write`)."""
        from .files import write

        return write(self, path)

    def to_pyomo(self):
        """A Pyomo ``ConcreteModel`` with named, indexed components (see :func:`optitrees.mip.to_pyomo`)."""
        from ._pyomo import to_pyomo

        return to_pyomo(self)

    # ------------------------------------------------------------- summary
    def summary(self) -> str:
        """One line per group and the objective's terms (:func:`~optitrees.mip._summary.summary`)."""
        from ._summary import summary

        return summary(self)

    def objective_terms(self) -> str:
        """The objective's terms by variable group (:func:`~optitrees.mip._summary.objective_terms`).

        >>> f = Formulation("f"); _ = f.add_set("J", [0, 1])
        >>> w = f.add_variables("w", ("J",)); f.add_objective(w, [1.0, 2.0]); f.add_quadratic_objective(w, 0.5)
        >>> f.objective_terms()
        '[1, 2] * w x2 + 0.5 * w^2 x2'
        """
        from ._summary import objective_terms

        return objective_terms(self)

    def __repr__(self):
        return (f"Formulation(name={self.name!r}, n_cols={self.n_cols}, n_rows={self.n_rows}, "
                f"groups={list(self.variables)}+{list(self.constraints)})")
