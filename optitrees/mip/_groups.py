"""Named groups of a formulation: a block of variables, a block of constraint rows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["VariableGroup", "ConstraintGroup", "DOMAINS", "INT32_LIMIT", "compact_indices", "concatenated"]

DOMAINS = ("continuous", "binary", "integer")

#: Indices below this are kept as int32: a group's row and column indices take 8 bytes a coefficient, not 16.
INT32_LIMIT = 2**31 - 1


def compact_indices(parts) -> np.ndarray:
    """The index arrays ``parts`` concatenated, as int32 when every index fits (int64 otherwise); each part is
    cast as it is copied, so no int64 concatenation is made first."""
    fits = all(p.size == 0 or p.max() < INT32_LIMIT for p in parts)
    return np.concatenate(parts, dtype=np.int32 if fits else np.int64) if parts else np.zeros(0, np.int32)


def concatenated(arrays) -> np.ndarray:
    """The arrays end to end (an empty float array for none): the groups' bounds as whole columns or rows."""
    return np.concatenate(arrays) if arrays else np.zeros(0)


@dataclass(eq=False)
class VariableGroup:
    """A named array of variables: columns ``start .. start + size - 1`` in C order.

    It takes part in arithmetic as an :class:`~optitrees.mip.expressions.Expression` over its index sets
    (``w <= W * u``, ``z.sum("T_last") == 1``, ``w.sel(J="age")``).

    Attributes
    ----------
    name : str
        Component name (``z``, ``w`` ...).
    dims : tuple of str
        Names of the index sets (keys of :attr:`Formulation.sets`).
    shape : tuple of int
        Sizes of those sets.
    start : int
        First column.
    domain : {"continuous", "binary", "integer"}
    lower, upper : ndarray of shape (size,)
        Bounds (``-inf`` / ``inf`` for none).
    """

    name: str
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    start: int
    domain: str
    lower: np.ndarray
    upper: np.ndarray
    #: The formulation's index sets (the labels of ``dims``), for expressions.
    sets: dict | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def columns(self) -> np.ndarray:
        """Column index of every variable, shaped like the group."""
        return np.arange(self.start, self.start + self.size).reshape(self.shape)

    # ------------------------------------------------ as an expression (optitrees.mip.expressions)
    __array_ufunc__ = None                        # numpy and pandas operands defer to the group's operators
    __pandas_priority__ = 5000

    def expr(self):
        """The group as an :class:`~optitrees.mip.expressions.Expression`."""
        from .expressions import Expression

        return Expression.of(self)

    def __add__(self, other):
        return self.expr() + other

    def __radd__(self, other):
        return self.expr() + other

    def __sub__(self, other):
        return self.expr() - other

    def __rsub__(self, other):
        return other - self.expr()

    def __mul__(self, other):
        return self.expr() * other

    def __rmul__(self, other):
        return self.expr() * other

    def __truediv__(self, other):
        return self.expr() / other

    def __neg__(self):
        return -self.expr()

    def __pos__(self):
        return self.expr()

    def __pow__(self, power):
        return self.expr() ** power

    def __le__(self, other):
        return self.expr() <= other

    def __ge__(self, other):
        return self.expr() >= other

    def __eq__(self, other):
        return self.expr() == other

    __hash__ = object.__hash__

    def sum(self, *dims):
        return self.expr().sum(*dims)

    def sel(self, **labels):
        return self.expr().sel(**labels)

    def isel(self, **positions):
        return self.expr().isel(**positions)

    def rename(self, **names):
        return self.expr().rename(**names)

    def transpose(self, *dims):
        return self.expr().transpose(*dims)

    def __getitem__(self, rows):
        return self.expr()[rows]


@dataclass(eq=False)
class ConstraintGroup:
    """A named block of rows ``lower <= A[rows] x <= upper``.

    Rows are numbered ``start .. start + size - 1`` in C order over ``dims``; the
    coefficients are kept as COO triplets with row indices local to the group
    and global column indices (int32 where they fit: :func:`compact_indices`).
    ``print(group)`` shows its first rows as mathematics (:meth:`to_text`).
    """

    name: str
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    start: int
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    equation: str = ""
    #: The formulation it belongs to (for the names of its rows and columns when printed).
    owner: object = field(default=None, repr=False)

    def to_text(self, max_rows: int = 5) -> str:
        """The first ``max_rows`` rows as ``name[labels]: +1 w[1,age] -10 u[age] <= 0`` (safe labels, as the
        ``.lp`` files read them)."""
        if self.owner is None:
            return f"{self.name}: {int(np.prod(self.shape, dtype=np.int64))} rows over {self.dims}"
        from ._summary import rows_text

        return rows_text(self.owner, self, max_rows)

    def __str__(self) -> str:
        return self.to_text()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))
