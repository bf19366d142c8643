r"""Formulations written as mathematics: expressions over named index sets, compiled to the matrix ``Formulation``.

A variable group is an array labelled by its index sets (``w`` over ``("T", "J")``). Arithmetic aligns operands by
set name, as the equations do: ``W * u`` with ``u`` over ``J`` against ``w`` over ``(T, J)`` is
``W u[j]`` for every ``(t, j)``; ``.sum("J")`` sums a set out; a comparison is a constraint group::

    f.add_constraints("use_upper", w <= W * u)                    # |w[t, j]| <= W u[j] for all t, j
    f.add_constraints("use_lower", w >= -W * u)
    f.add_constraints("few_features", u.sum("J") <= 2)
    f.minimize(xi.sum() + lam * (w_pos + w_neg).sum())

Constants are numbers, :class:`Data` (an array labelled by set names: ``Data(X, ("I", "J"))``) or pandas objects
whose index (and columns) are named after sets and hold their labels. An expression keeps, for each of its terms,
an array of columns and one of coefficients shaped like the expression with one more axis (the nonzeros of a row),
so a constraint compiles to the ``(columns, coefficients)`` pairs of :meth:`Formulation.add_constraints` without a
Python loop over rows: the same rows, in the same order, as index arithmetic written by hand.

>>> import numpy as np
>>> from optitrees.mip import Formulation
>>> f = Formulation()
>>> _ = f.add_set("T", [1, 2]); _ = f.add_set("J", ["age", "income"])
>>> w = f.add_variables("w", ("T", "J"), -10, 10); u = f.add_variables("u", ("J",), 0, 1, domain="binary")
>>> group = f.add_constraints("use", w <= 10 * u)
>>> print(group)
use[1,age]: +1 w[1,age] -10 u[age] <= 0
use[1,income]: +1 w[1,income] -10 u[income] <= 0
use[2,age]: +1 w[2,age] -10 u[age] <= 0
use[2,income]: +1 w[2,income] -10 u[income] <= 0
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from ._labelled import Data, as_data, expand, set_labels

__all__ = ["Expression", "QuadraticExpression", "Data", "Constraint", "Sense", "expression", "is_variable_group",
           "ranged", "compile_rows", "rows_of_expression", "objective_parts"]


class Sense(Enum):
    """The relation of a :class:`Constraint`."""

    LESS_EQUAL = "<="
    GREATER_EQUAL = ">="
    EQUAL = "=="
    RANGE = "in"


class Expression:
    """``sum_m coefs_m[..., k] x[cols_m[..., k]] + constant`` over the index sets ``dims`` (labels ``labels``).

    Made from a variable group (``f.add_variables`` returns one that takes part in arithmetic), by arithmetic on
    expressions, numbers and :class:`Data`, and by :meth:`sum`, :meth:`sel` and :meth:`isel`."""

    __array_ufunc__ = None                        # numpy arrays and scalars defer to the expression's operators
    __pandas_priority__ = 5000                    # and so do pandas objects (aligned by label here)

    def __init__(self, dims, labels, terms, constant, sets=None):
        self.dims = tuple(dims)
        self.labels = tuple(np.asarray(v) for v in labels)
        self.terms = tuple(terms)
        self.shape = tuple(len(v) for v in self.labels)
        self.constant = np.broadcast_to(np.asarray(constant, float), self.shape)
        self.sets = sets

    @classmethod
    def of(cls, group, sets=None) -> "Expression":
        """The variables of ``group`` (a :class:`~optitrees.mip.VariableGroup`) as an expression."""
        sets = sets if sets is not None else getattr(group, "sets", None)
        labels = [set_labels(sets, d, n) for d, n in zip(group.dims, group.shape)]
        return cls(group.dims, labels, [(group.columns[..., None], np.ones(group.shape + (1,)))], 0.0, sets)

    # ------------------------------------------------------------ alignment
    def _aligned(self, dims, labels) -> "Expression":
        shape = tuple(len(v) for v in labels)
        terms = [(expand(c, self.dims, dims, shape, 1), expand(v, self.dims, dims, shape, 1)) for c, v in self.terms]
        return Expression(dims, labels, terms, expand(self.constant, self.dims, dims, shape), self.sets)

    def _union(self, dims, labels) -> tuple[tuple, tuple]:
        out_dims, out_labels = list(self.dims), list(self.labels)
        for d, v in zip(dims, labels):
            if d in out_dims:
                mine = out_labels[out_dims.index(d)]
                if len(mine) != len(v) or not np.array_equal(mine, v):
                    raise ValueError(f"the two sides index {d!r} by different labels ({len(mine)} and {len(v)})")
            else:
                out_dims.append(d), out_labels.append(v)
        return tuple(out_dims), tuple(out_labels)

    def _operand(self, other):
        if isinstance(other, Expression):
            return other
        if is_variable_group(other):
            return Expression.of(other, self.sets)
        dims, values, labels = as_data(other, self.sets)
        return Expression(dims, labels, [], values, self.sets)

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other) -> "Expression":
        if isinstance(other, QuadraticExpression):
            return other + self
        other = self._operand(other)
        dims, labels = self._union(other.dims, other.labels)
        a, b = self._aligned(dims, labels), other._aligned(dims, labels)
        return Expression(dims, labels, a.terms + b.terms, a.constant + b.constant, self.sets or other.sets)

    __radd__ = __add__

    def __neg__(self) -> "Expression":
        return Expression(self.dims, self.labels, [(c, -v) for c, v in self.terms], -self.constant, self.sets)

    def __pos__(self) -> "Expression":
        return self

    def __sub__(self, other) -> "Expression":
        return self + (-self._operand(other))

    def __rsub__(self, other) -> "Expression":
        return self._operand(other) + (-self)

    def __mul__(self, other) -> "Expression":
        other = self._operand(other)
        if other.terms and self.terms:
            raise TypeError("a product of two expressions with variables is not linear (a square: `x ** 2`, in an "
                            "objective)")
        if other.terms:
            return other * self
        dims, labels = self._union(other.dims, other.labels)
        a = self._aligned(dims, labels)
        factor = expand(other.constant, other.dims, dims, a.shape)
        return Expression(dims, labels, [(c, v * factor[..., None]) for c, v in a.terms], a.constant * factor,
                          self.sets)

    __rmul__ = __mul__

    def __truediv__(self, other) -> "Expression":
        other = self._operand(other)
        if other.terms:
            raise TypeError("division by an expression with variables is not linear")
        return self * Expression(other.dims, other.labels, [], 1.0 / other.constant, self.sets)

    def __pow__(self, power) -> "QuadraticExpression":
        if power != 2 or len(self.terms) != 1 or self.terms[0][0].shape[-1] != 1 or np.any(self.constant != 0):
            raise TypeError("only the square of a variable group (`w ** 2`) is supported: a diagonal quadratic")
        cols, coefs = self.terms[0]
        return QuadraticExpression([(cols[..., 0], coefs[..., 0] ** 2)])

    # ------------------------------------------------------------ reductions, selections
    def sum(self, *dims) -> "Expression":
        """The expression summed over ``dims`` (every set when none is named)."""
        dims = dims or self.dims
        unknown = [d for d in dims if d not in self.dims]
        if unknown:
            raise ValueError(f"cannot sum over {unknown}: the expression is over {self.dims}")
        keep = [d for d in self.dims if d not in dims]
        keep_axes = [self.dims.index(d) for d in keep]
        sum_axes = [self.dims.index(d) for d in dims]
        shape = tuple(self.shape[a] for a in keep_axes)
        terms = []
        for c, v in self.terms:
            order = keep_axes + sum_axes + [len(self.dims)]
            terms.append((np.transpose(c, order).reshape(shape + (-1,)), np.transpose(v, order).reshape(shape + (-1,))))
        constant = self.constant.sum(axis=tuple(sum_axes)) if sum_axes else self.constant
        return Expression(keep, [self.labels[a] for a in keep_axes], terms, constant, self.sets)

    def isel(self, **positions) -> "Expression":
        """The rows at ``positions`` of each named set: an integer drops the set, an array of positions or a boolean
        mask keeps it (with the labels chosen)."""
        unknown = sorted(set(positions) - set(self.dims))
        if unknown:
            raise ValueError(f"the expression has no index set {unknown} (it is over {self.dims})")
        dims, labels = list(self.dims), list(self.labels)
        terms, constant = [list(t) for t in self.terms], self.constant
        for axis in reversed(range(len(self.dims))):              # the later axes first: earlier ones keep place
            d = self.dims[axis]
            if d not in positions:
                continue
            chosen = positions[d]
            if np.ndim(chosen) == 0:
                chosen = int(chosen)
                del dims[axis], labels[axis]
            else:
                chosen = np.asarray(chosen)
                chosen = np.flatnonzero(chosen) if chosen.dtype == bool else chosen
                labels[axis] = labels[axis][chosen]
            terms = [[np.take(c, chosen, axis=axis), np.take(v, chosen, axis=axis)] for c, v in terms]
            constant = np.take(constant, chosen, axis=axis)
        return Expression(dims, labels, [tuple(t) for t in terms], constant, self.sets)

    def sel(self, **labels) -> "Expression":
        """:meth:`isel` by label: ``w.sel(J="age")``, ``z.sel(T_last=[4, 5])``."""
        positions = {}
        for d, wanted in labels.items():
            if d not in self.dims:
                raise ValueError(f"the expression has no index set {d!r} (it is over {self.dims})")
            own = self.labels[self.dims.index(d)].tolist()
            try:
                positions[d] = own.index(wanted) if np.ndim(wanted) == 0 else [own.index(w) for w in wanted]
            except ValueError:
                raise KeyError(f"{wanted!r} is not among the labels of {d!r}") from None
        return self.isel(**positions)

    def transpose(self, *dims) -> "Expression":
        """The same expression with its index sets in the order ``dims`` (its rows' order once a constraint)."""
        if sorted(dims) != sorted(self.dims):
            raise ValueError(f"transpose needs every set of {self.dims} once, got {dims}")
        return self._aligned(tuple(dims), tuple(self.labels[self.dims.index(d)] for d in dims))

    def rename(self, **names) -> "Expression":
        """The expression with index sets renamed (``s.sel(T=inner).rename(T="T_inner")``): its labels stay."""
        unknown = sorted(set(names) - set(self.dims))
        if unknown:
            raise ValueError(f"the expression has no index set {unknown} (it is over {self.dims})")
        dims = tuple(names.get(d, d) for d in self.dims)
        if len(set(dims)) != len(dims):
            raise ValueError(f"renaming gives a set twice: {dims}")
        return Expression(dims, self.labels, self.terms, self.constant, self.sets)

    def __getitem__(self, rows) -> "Expression":
        """``z[rows]``: :meth:`isel` on the first index set."""
        return self.isel(**{self.dims[0]: rows})

    # ------------------------------------------------------------ constraints
    def _constraint(self, other, sense: Sense) -> "Constraint":
        return Constraint(self - self._operand(other), sense)

    def __le__(self, other) -> "Constraint":
        return self._constraint(other, Sense.LESS_EQUAL)

    def __ge__(self, other) -> "Constraint":
        return self._constraint(other, Sense.GREATER_EQUAL)

    def __eq__(self, other) -> "Constraint":          # type: ignore[override]
        return self._constraint(other, Sense.EQUAL)

    __hash__ = None

    def row_terms(self) -> list:
        """The ``(columns, coefficients)`` pairs of every row, shaped ``(n_rows, k)`` in C order over the sets."""
        n = int(np.prod(self.shape, dtype=np.int64))
        return [(c.reshape(n, -1), v.reshape(n, -1)) for c, v in self.terms]

    def __repr__(self) -> str:
        return f"Expression over {self.dims} of shape {self.shape}, {sum(c.shape[-1] for c, _ in self.terms)} terms"


class QuadraticExpression:
    """A linear expression plus ``sum q x^2`` (squares of variable groups, a diagonal quadratic): for objectives,
    ``xi.sum() + lam * (w ** 2).sum()``."""

    def __init__(self, squares, linear: Expression | None = None):
        self.squares = list(squares)             # (columns, q) pairs
        self.linear = linear

    def __mul__(self, factor) -> "QuadraticExpression":
        if np.ndim(factor) != 0:
            raise TypeError("a quadratic expression is scaled by a number")
        factor = float(factor)
        return QuadraticExpression([(c, q * factor) for c, q in self.squares],
                                   None if self.linear is None else self.linear * factor)

    __rmul__ = __mul__

    def __add__(self, other) -> "QuadraticExpression":
        if isinstance(other, QuadraticExpression):
            linear = self.linear if other.linear is None else (other.linear if self.linear is None
                                                                else self.linear + other.linear)
            return QuadraticExpression(self.squares + other.squares, linear)
        return QuadraticExpression(self.squares, other if self.linear is None else self.linear + other)

    __radd__ = __add__

    def sum(self, *dims) -> "QuadraticExpression":
        """An objective sums every term: the squares stay as they are."""
        return self


@dataclass(frozen=True)
class Constraint:
    """``expression <= 0``, ``>= 0`` or ``== 0`` for every label of its sets: what a comparison of expressions
    gives and :meth:`Formulation.add_constraints` takes. :func:`ranged` makes ``lower <= expression <= upper``
    (``sense`` ``RANGE``, the two bounds in ``span``)."""

    expression: Expression
    sense: Sense
    span: tuple = None

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` of the rows once the constant moves to the right-hand side."""
        rhs = 0.0 - np.asarray(self.expression.constant, float).ravel()          # 0.0 - c: no -0 in print
        if self.sense is Sense.RANGE:
            return tuple(np.broadcast_to(np.asarray(bound, float).ravel(), rhs.shape) + rhs for bound in self.span)
        lower = rhs if self.sense in (Sense.GREATER_EQUAL, Sense.EQUAL) else np.full(rhs.shape, -np.inf)
        upper = rhs if self.sense in (Sense.LESS_EQUAL, Sense.EQUAL) else np.full(rhs.shape, np.inf)
        return lower, upper

    def transpose(self, *dims) -> "Constraint":
        """The same rows ordered by the index sets ``dims`` (:meth:`Expression.transpose`)."""
        return Constraint(self.expression.transpose(*dims), self.sense, self.span)

    def isel(self, **positions) -> "Constraint":
        """The rows at ``positions`` of the named sets (:meth:`Expression.isel`)."""
        return Constraint(self.expression.isel(**positions), self.sense, self.span)

    def __bool__(self):
        raise TypeError("a constraint has no truth value: give it to Formulation.add_constraints")


def ranged(expr: Expression, lower=-np.inf, upper=np.inf) -> Constraint:
    """``lower <= expr <= upper`` row by row (numbers, or arrays in the expression's row order); a bound that is
    +-inf leaves that side open."""
    rows = int(np.prod(expr.shape, dtype=np.int64))
    span = []
    for bound in (lower, upper):
        bound = np.asarray(bound, float)
        if bound.size not in (1, rows):
            raise ValueError(f"a bound of {bound.size} values for {rows} rows")
        span.append(bound.ravel())
    if np.any(np.isnan(span[0])) or np.any(np.isnan(span[1])) or np.any(span[0] > span[1]):
        raise ValueError("ranged rows need lower <= upper (and no NaN)")
    return Constraint(expr, Sense.RANGE, tuple(span))


def is_variable_group(value) -> bool:
    """Whether ``value`` is a variable group of a formulation (it takes part in arithmetic as its expression)."""
    return hasattr(value, "columns") and hasattr(value, "dims") and hasattr(value, "domain")


def expression(group, sets=None) -> Expression:
    """The variables of ``group`` as an :class:`Expression` (what arithmetic on the group gives)."""
    return Expression.of(group, sets)


def compile_rows(f, name, constraint: Constraint):
    """``(dims, terms, lower, upper)`` of ``constraint`` for :meth:`Formulation.add_constraints`: a set whose labels
    are not a declared set's (a part of one, or positions) is declared as ``<set>_<name>``."""
    expr = constraint.expression
    if not expr.terms:
        raise ValueError(f"constraint {name!r} holds no variable")
    dims = []
    for d, labels in zip(expr.dims, expr.labels):
        declared = f.sets.get(d)
        if declared is not None and len(declared) == len(labels) and np.array_equal(declared, labels):
            dims.append(d)
        else:
            dims.append(f"{d}_{name}")
            f.add_set(dims[-1], labels)
    lower, upper = constraint.bounds()
    return dims, expr.row_terms(), lower, upper


def rows_of_expression(f, name, rows, terms, lower, upper):
    """``(dims, terms, lower, upper)`` for :meth:`Formulation.add_constraints` when ``rows`` is a comparison of
    expressions (its own bounds), an expression or a variable group (``lower <= rows <= upper``); ``None`` when
    ``rows`` names index sets (the rows are then given as ``terms``)."""
    if isinstance(rows, Constraint):
        if terms is not None or np.any(np.asarray(lower) != -np.inf) or np.any(np.asarray(upper) != np.inf):
            raise ValueError("give a constraint of expressions alone (its terms and bounds come from it)")
        return compile_rows(f, name, rows)
    if is_variable_group(rows):
        rows = Expression.of(rows, f.sets)
    if not isinstance(rows, Expression):
        return None
    if terms is not None:
        raise ValueError("give an expression with its lower and upper bounds, not with terms")
    return compile_rows(f, name, ranged(rows, lower, upper))


def objective_parts(objective) -> tuple[list, list, float]:
    """``(linear, squares, offset)`` of an objective expression: ``(columns, coefficients)`` pairs for ``c``, for the
    diagonal quadratic, and the constant summed over every entry."""
    if isinstance(objective, Expression):
        squares, linear = [], objective
    elif isinstance(objective, QuadraticExpression):
        squares, linear = objective.squares, objective.linear
    else:
        raise TypeError(f"minimize takes an expression, got {type(objective).__name__}")
    if any(np.any(np.asarray(q) < 0) for _, q in squares):
        raise ValueError("quadratic objective coefficients must be >= 0 (convex)")
    quad = [(np.asarray(c).ravel(), np.asarray(q, float).ravel()) for c, q in squares]
    if linear is None:
        return [], quad, 0.0
    cost = [(np.asarray(c).ravel(), np.asarray(v, float).ravel()) for c, v in linear.terms]
    return cost, quad, float(np.sum(linear.constant))
