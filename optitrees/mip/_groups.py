"""Named groups of a formulation: a block of variables, a block of constraint rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["VariableGroup", "ConstraintGroup", "DOMAINS", "INT32_LIMIT", "compact_indices"]

DOMAINS = ("continuous", "binary", "integer")

#: Indices below this are kept as int32: a group's row and column indices take 8 bytes a coefficient, not 16.
INT32_LIMIT = 2**31 - 1


def compact_indices(parts) -> np.ndarray:
    """The index arrays ``parts`` concatenated, as int32 when every index fits (int64 otherwise); each part is
    cast as it is copied, so no int64 concatenation is made first."""
    fits = all(p.size == 0 or p.max() < INT32_LIMIT for p in parts)
    return np.concatenate(parts, dtype=np.int32 if fits else np.int64) if parts else np.zeros(0, np.int32)


@dataclass
class VariableGroup:
    """A named array of variables: columns ``start .. start + size - 1`` in C order.

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

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def columns(self) -> np.ndarray:
        """Column index of every variable, shaped like the group."""
        return np.arange(self.start, self.start + self.size).reshape(self.shape)


@dataclass
class ConstraintGroup:
    """A named block of rows ``lower <= A[rows] x <= upper``.

    Rows are numbered ``start .. start + size - 1`` in C order over ``dims``; the
    coefficients are kept as COO triplets with row indices local to the group
    and global column indices (int32 where they fit: :func:`compact_indices`).
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

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))
